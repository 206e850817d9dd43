"""The built websites as a reader meets them: every page in headless Chromium, network off.

Run after ``make book`` and ``make student`` with ``make browser`` (these tests carry the
``browser`` mark, which ``make test`` leaves out because the sites are not built yet then).

Every page of the main site must load with every request answered by the local server, show
its mathematics typeset by MathJax (no raw TeX left, no MathJax error), load all its images and
log no console error outside the allow-list below. Every internal link of both sites must reach
an existing page and anchor, and the search page must find the RVM pages. The students' site
must contain no solution: no solution box and no line of any solution's text or answer code.
Screenshots of a few pages go to ``_build/screenshots``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest
from bs4 import BeautifulSoup
from selenium.common.exceptions import TimeoutException
from urllib3.exceptions import ReadTimeoutError

from nbgrader_course import load_tool

from .conftest import MAIN_SITE, ROOT, SCREENSHOTS, STUDENT_SITE, requested_urls

pytestmark = pytest.mark.browser

#: Console messages that are not failures, each with the reason. (Empty: none is expected.)
CONSOLE_ALLOW_LIST: list[tuple[str, str]] = []

#: TeX left in the visible text: a delimiter, an environment, or a $...$ span with a command.
RAW_TEX = re.compile(
    r"\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{|\$[^$\n]{0,200}\\[A-Za-z]+[^$\n]{0,200}\$"
)

#: What a driver call raises when the browser does not answer in time.
BROWSER_HUNG = (TimeoutException, ReadTimeoutError)
#: PAGE_REPORT's answer for a load that hung the browser: nothing was measured.
HUNG_REPORT = {"broken": [], "math": 0, "untypeset": [], "mathErrors": [], "text": ""}

SKIPPED_FOLDERS = ("_static", "_sources", "_images", "_downloads")
#: Requests that never reach a network.
LOCAL_SCHEMES = ("data", "blob", "about")


def site_pages(site):
    """Every HTML page of a built site, as paths relative to it."""
    return sorted(
        str(path.relative_to(site))
        for path in site.rglob("*.html")
        if not path.relative_to(site).parts[0] in SKIPPED_FOLDERS
    )


MAIN_PAGES = site_pages(MAIN_SITE) if MAIN_SITE.is_dir() else []

PAGE_REPORT = """
const done = arguments[arguments.length - 1];
const within = (promise, ms) =>
  Promise.race([promise.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);
(async () => {
  const ready = () => window.MathJax && MathJax.startup && MathJax.startup.promise;
  const deadline = Date.now() + 30000;  // MathJax loads deferred; wait for it to start
  while (!ready() && document.querySelector("span.math, div.math") && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stalled = [];
  if (ready() && !(await within(MathJax.startup.promise, 30000))) {
    stalled.push("MathJax typesetting");
  }
  const images = [...document.images];
  images.forEach((image) => { image.loading = "eager"; });
  const loaded = Promise.all(images.map((image) => image.complete ? null : new Promise((r) => {
    image.addEventListener("load", r);
    image.addEventListener("error", r);
  })));
  if (!(await within(loaded, 20000))) {
    stalled.push("image loading");
  }
  const math = [...document.querySelectorAll("span.math, div.math")];
  const visible = document.body.cloneNode(true);
  visible.querySelectorAll("pre, code, script, style, textarea, mjx-container, .highlight")
    .forEach((node) => node.remove());
  done({
    stalled: stalled,
    broken: images.filter((i) => !(i.complete && i.naturalWidth > 0)).map((i) => i.src),
    math: math.length,
    untypeset: math.filter((m) => !m.querySelector("mjx-container"))
      .map((m) => m.textContent.slice(0, 80)),
    mathErrors: [...document.querySelectorAll("mjx-merror")].map((error) => {
      const items = MathJax.startup.document.getMathItemsWithin(error.closest("mjx-container"));
      const tex = items.length ? items[0].math.slice(0, 120) : "?";
      return `${error.getAttribute("data-mjx-error") || error.textContent} in ${tex}`;
    }),
    text: visible.textContent,
  });
})();
"""


def load_and_report(browser, url, attempts=3):
    """Load a page and run PAGE_REPORT on it.

    A load whose typesetting or image loading stalls is tried again (a loaded 2-core machine
    has stalled a headless page now and then); a page that stalls every time is reported. So is
    a page that hangs the browser itself (no answer within the driver's timeouts): the browser
    is restarted before the next try. Three tries in all.
    """
    for _ in range(attempts):
        try:
            browser.get_log("browser")
            browser.get_log("performance")
            browser.get(url)
            report = browser.execute_async_script(PAGE_REPORT)
        except BROWSER_HUNG as error:
            report = dict(HUNG_REPORT, stalled=[f"the browser itself ({type(error).__name__})"])
            browser.restart()
            continue
        if not report["stalled"]:
            break
    return report


def check_page(browser, base, page):
    """Load one page; return the list of problems found."""
    report = load_and_report(browser, f"{base}/{page}")
    problems = []
    if report["stalled"]:
        problems.append(f"stalled on every try: {report['stalled']}")
    if report["broken"]:
        problems.append(f"images that did not load: {report['broken']}")
    if report["untypeset"]:
        problems.append(
            f"{len(report['untypeset'])} math elements not typeset, e.g. {report['untypeset'][:3]}"
        )
    if report["mathErrors"]:
        problems.append(f"MathJax errors: {report['mathErrors'][:5]}")
    raw = RAW_TEX.findall(report["text"])
    if raw:
        problems.append(f"raw TeX in the text: {raw[:5]}")
    console = [
        entry["message"]
        for entry in browser.get_log("browser")
        if entry["level"] == "SEVERE"
        and not any(re.search(pattern, entry["message"]) for pattern, _ in CONSOLE_ALLOW_LIST)
    ]
    if console:
        problems.append(f"console errors: {console[:5]}")
    offsite = [
        url
        for url in requested_urls(browser, base)
        if not url.startswith(base) and urlsplit(url).scheme not in LOCAL_SCHEMES
    ]
    if offsite:
        problems.append(f"requests that left the local server: {offsite[:5]}")
    return problems, report


@pytest.mark.parametrize("page", MAIN_PAGES)
def test_page_loads_offline_with_math_images_and_no_console_errors(browser, main_site, page):
    problems, _ = check_page(browser, main_site, page)
    assert not problems, f"{page}:\n  " + "\n  ".join(problems)


def test_the_main_site_has_its_pages():
    pages = set(MAIN_PAGES)
    assert "index.html" in pages and "search.html" in pages
    for part in (
        "chapters/prml06",
        "chapters/prml07",
        "chapters/mlapp14",
        "chapters/bsvm",
        "exercises/prml06",
        "exercises/prml07",
        "book/api",
    ):
        assert any(page.startswith(part) for page in pages), f"no page under {part}"


def test_math_is_typeset_on_a_page_full_of_it(browser, main_site):
    page = "chapters/prml07/7-2-2-analysis-of-sparsity.html"
    problems, report = check_page(browser, main_site, page)
    assert not problems
    assert report["math"] > 50  # the check above could not pass vacuously here
    browser.save_screenshot(str(SCREENSHOTS / "7-2-2-analysis-of-sparsity.png"))


@lru_cache(maxsize=None)
def anchors(path):
    """The ids and names an HTML file defines."""
    soup = BeautifulSoup(Path(path).read_text(encoding="utf-8"), "html.parser")
    return {tag.get("id") for tag in soup.find_all(id=True)} | {
        tag.get("name") for tag in soup.find_all("a", attrs={"name": True})
    }


def broken_links(site):
    """Internal links (a, img, link, script) whose target file or anchor is missing."""
    broken = []
    for page in site_pages(site):
        path = site / page
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        for tag, attribute in (("a", "href"), ("img", "src"), ("link", "href"), ("script", "src")):
            for element in soup.find_all(tag, attrs={attribute: True}):
                target = element[attribute]
                parts = urlsplit(target)
                if parts.scheme or parts.netloc or target.startswith("//"):
                    continue  # external: not part of the site
                file = path if not parts.path else (path.parent / unquote(parts.path)).resolve()
                if file.is_dir():
                    file = file / "index.html"
                if not file.is_file():
                    broken.append(f"{page}: {target} (no file)")
                elif parts.fragment and file.suffix == ".html":
                    if unquote(parts.fragment) not in anchors(str(file)):
                        broken.append(f"{page}: {target} (no anchor)")
    return broken


@pytest.mark.parametrize("site", [MAIN_SITE, STUDENT_SITE], ids=["main", "students"])
def test_every_internal_link_resolves(site):
    broken = broken_links(site)
    assert not broken, f"{len(broken)} broken links:\n  " + "\n  ".join(broken[:30])


def test_search_finds_the_relevance_vector_machine(browser, main_site):
    browser.get(f"{main_site}/search.html?q=relevance+vector")
    found = browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const start = Date.now();
        (function poll() {  // Sphinx writes the summary when the search has finished
          const summary = document.querySelector("#search-results .search-summary");
          const finished = summary && /found/.test(summary.textContent);
          if (finished || Date.now() - start > 30000) {
            done([...document.querySelectorAll("#search-results li a")]
              .map((a) => a.getAttribute("href")));
          } else {
            setTimeout(poll, 200);
          }
        })();
        """
    )
    assert any("7-2-1-rvm-for-regression" in href for href in found), found
    browser.save_screenshot(str(SCREENSHOTS / "search.png"))


@pytest.mark.parametrize(
    "page",
    [
        "index.html",
        "exercises/prml07/ex-7-10.html",
        "book/api/rvm.html",
        "chapters/prml06/6-4-2-gp-regression.html",
    ],
)
def test_screenshots_of_a_few_pages(browser, main_site, page):
    problems, _ = check_page(browser, main_site, page)
    assert not problems
    browser.save_screenshot(str(SCREENSHOTS / page.replace("/", "_").replace(".html", ".png")))
    assert (SCREENSHOTS / page.replace("/", "_").replace(".html", ".png")).stat().st_size > 10_000


# ----------------------------------------------------------------------------- students' site
exercises = load_tool("exercises")
student_edition = load_tool("student_edition")

EXERCISES = exercises.exercise_sources()


def page_text(path):
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    return soup.get_text(" ")


def shown_text(path):
    """The text a reader sees in a built page, a page source or a notebook."""
    if path.suffix == ".html":
        return page_text(path)
    if path.suffix == ".ipynb":
        return "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("source", EXERCISES, ids=lambda path: path.stem)
def test_students_exercise_page_and_downloads_carry_no_solution(source):
    cells = exercises.read_exercise(source)
    relative = source.relative_to(ROOT).with_suffix("")
    instructors = MAIN_SITE / relative.with_suffix(".html")
    # the search finds the solution on the instructors' page, so it can find it elsewhere
    assert exercises.find_leaks(cells, [page_text(instructors)]), f"{instructors}: no solution"
    places = [STUDENT_SITE / relative.with_suffix(".html")]
    places += sorted((STUDENT_SITE / "_sources").glob(f"{relative}.*"))
    places += sorted((ROOT / "_build" / "student" / "notebooks").glob(f"{relative}.*"))
    assert len(places) >= 3, f"missing students' files for {relative}: {places}"
    for place in places:
        found = exercises.find_leaks(cells, [shown_text(place)])
        assert not found, f"{place} shows solution text: {found[:3]}"


plain_myst = load_tool("plain_myst")
EDITION_PAGES = [*sorted(ROOT.glob("chapters/*/*.md")), *EXERCISES]
LAUNCH_LINK = re.compile(r'href="(https://(?:mybinder\.org|colab\.research\.google\.com)/[^"]*)"')


@pytest.mark.parametrize("site", [MAIN_SITE, STUDENT_SITE], ids=["main", "students"])
def test_download_and_launch_buttons_give_the_notebooks_edition(site):
    """A page's .ipynb download is its plain notebook; Binder and Colab open it where published."""
    problems = []
    for source in EDITION_PAGES:
        name = source.relative_to(ROOT).with_suffix("").as_posix()
        cells = nbformat.read(site / "_sources" / f"{name}.ipynb", as_version=4).cells
        markdown = "\n".join(cell.source for cell in cells if cell.cell_type == "markdown")
        if plain_myst.myst_constructs(markdown):
            problems.append(f"{name}.ipynb holds MyST: {plain_myst.myst_constructs(markdown)[:3]}")
        if name.startswith("chapters/") and "notebooks edition" not in markdown:
            problems.append(f"{name}.ipynb is not the edition's notebook")
        links = LAUNCH_LINK.findall((site / f"{name}.html").read_text(encoding="utf-8"))
        if sorted({link.split("/")[2] for link in links}) != ["colab.research.google.com",
                                                              "mybinder.org"] \
                or not all(link.endswith(f"/{name}.ipynb") and "/notebooks" in link
                           for link in links):
            problems.append(f"{name}.html launch links: {links}")
    assert not problems, "\n".join(problems[:10])


def test_figures_are_numbered_within_each_page():
    """Each chapter page numbers its figures 1, 2, ... as its notebook in the edition does."""
    book = plain_myst.the_book(ROOT)
    wrong = {}
    for source in sorted(ROOT.glob("chapters/*/*.md")):
        name = source.relative_to(ROOT).with_suffix("").as_posix()
        html = (MAIN_SITE / f"{name}.html").read_text(encoding="utf-8")
        numbers = re.findall(r'<span class="caption-number">Figure (\d+) </span>', html)
        expected = sorted(number for page, number in book.figures.values() if page == name)
        if [int(number) for number in numbers] != expected:
            wrong[name] = numbers
    assert not wrong, wrong


def test_students_exercise_pages_show_exercises_but_no_solution_boxes(browser, student_site):
    for source in EXERCISES:
        page = source.relative_to(ROOT).with_suffix(".html").as_posix()
        browser.get(f"{student_site}/{page}")
        counts = browser.execute_script(
            "return [document.querySelectorAll('.exercise').length,"
            " document.querySelectorAll('.solution').length,"
            " document.body.textContent.includes(arguments[0])];",
            student_edition.ANNOUNCEMENT,
        )
        assert counts[0] >= 1, f"{page}: no exercise box"
        assert counts[1] == 0, f"{page}: {counts[1]} solution boxes"
        assert counts[2], f"{page}: no students' edition banner"
    browser.save_screenshot(str(SCREENSHOTS / "students_exercise.png"))


def test_the_reference_documents_every_public_name_with_its_links():
    import importlib

    import kmlib

    for module in kmlib.__all__:
        page = MAIN_SITE / "book" / "api" / f"{module}.html"
        ids = anchors(str(page))
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for name in importlib.import_module(f"kmlib.{module}").__all__:
            target = f"kmlib.{module}.{name}"
            assert target in ids, f"{page.name} does not document {target}"
            entry = soup.find(id=target).find_parent("dl")
            links = [a["href"] for a in entry.find_all("a", href=True)]
            assert any(
                href.startswith(("../../chapters/", "../../exercises/")) for href in links
            ), f"{target} links to no page of the book"
