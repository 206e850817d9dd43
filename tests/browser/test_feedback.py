"""nbgrader's feedback page, as a student opens it: its mathematics typeset with no network.

The course that ``tools/course.py`` writes puts a copy of MathJax 3 into each feedback page
(nbconvert's own template loads MathJax 2 from a CDN, so offline a student saw raw ``$...$``).
One exercise goes through nbgrader with a wrong submission; its feedback page, served from a
local folder, must show its formulas typeset and request nothing but itself.
"""

import functools
import http.server
import threading
import time

import pytest

from .conftest import SCREENSHOTS, QuietHandler, requested_urls

pytestmark = pytest.mark.browser


def test_feedback_page_typesets_its_mathematics_offline(browser, tmp_path):
    from nbgrader_course import run_course
    from test_course_prml06 import MISTAKES

    run_course("ex-6-21", tmp_path / "course", MISTAKES["ex-6-21"])
    folder = tmp_path / "course" / "feedback" / "wrong" / "ex-6-21"
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        browser.get("about:blank")
        browser.get_log("performance")
        browser.get(f"{base}/ex-6-21.html")
        deadline, typeset = time.monotonic() + 60, 0
        while time.monotonic() < deadline:
            typeset = browser.execute_script(
                "return document.querySelectorAll('mjx-container').length")
            if typeset >= 10:
                break
            time.sleep(1)
        browser.save_screenshot(str(SCREENSHOTS / "feedback_ex-6-21.png"))
        text = browser.execute_script(  # the page's text outside code, where TeX is typeset
            "const page = document.body.cloneNode(true);"
            "page.querySelectorAll('code, pre, script').forEach(node => node.remove());"
            "return page.innerText")
        urls = requested_urls(browser, base)
    finally:
        server.shutdown()
    assert typeset >= 10, f"{typeset} formulas typeset"
    assert "$" not in text.replace("$$", ""), "raw TeX delimiters left in the page"
    elsewhere = [url for url in urls if not url.startswith((base, "data:"))]
    assert not elsewhere, elsewhere  # the page itself, and its inline images
