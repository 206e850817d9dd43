"""How the main site's pages lay out at a desktop and a narrow window width.

On every page of the main site, in headless Chromium:

* no display equation is cut off: its typeset formula starts inside its box and, when it is
  wider than the column, the box scrolls (at 1280 and at 800 pixels of window width);
* no code cell that shows its input runs past the cell's right edge at 1280 pixels (the pages
  keep visible code within 88 columns; a folded cell is not measured until it is opened);
* a number glued into a sentence has the sentence's font weight, not bold;
* every figure a page shows is displayed at its natural size at 1280 pixels (not scaled down to
  fit the column), so its text reads at the 10 pt or more the book's style drew it at
  (``tools/figure_report.py`` measures the drawn sizes).

Run after ``make book`` with ``make browser``.
"""

from __future__ import annotations

import pytest

from .conftest import MAIN_SITE
from .test_websites import MAIN_PAGES, load_and_report

pytestmark = pytest.mark.browser

WIDTHS = (1280, 800)

LAYOUT_REPORT = """
const done = arguments[arguments.length - 1];
const clipped = [];
for (const box of document.querySelectorAll('div.math mjx-container[display="true"]')) {
  const formula = box.querySelector("mjx-math");
  if (!formula) continue;
  const outer = box.getBoundingClientRect(), inner = formula.getBoundingClientRect();
  const scrolls = ["auto", "scroll"].includes(getComputedStyle(box).overflowX);
  const column = box.closest("div.math").getBoundingClientRect();
  const cut = inner.left < outer.left - 1 || (inner.right > outer.right + 1 && !scrolls)
    || outer.right > column.right + 1;
  if (cut) clipped.push(box.getAttribute("aria-label") || formula.textContent.slice(0, 60));
}
const shown = (node) => !node.closest("details:not([open])") && node.offsetParent !== null;
const wide = [...document.querySelectorAll("div.cell div.cell_input pre")]
  .filter((pre) => shown(pre) && pre.scrollWidth > pre.clientWidth + 1)
  .map((pre) => pre.textContent.split("\\n").reduce((a, b) => (b.length > a.length ? b : a)));
const bold = [...document.querySelectorAll("span.pasted-text")]
  .filter((span) => getComputedStyle(span).fontWeight
    !== getComputedStyle(span.parentElement).fontWeight)
  .map((span) => span.textContent);
const shrunk = [...document.querySelectorAll("div.cell_output img, figure img")]
  .filter((img) => shown(img) && img.naturalWidth > 1.02 * img.getBoundingClientRect().width)
  .map((img) => `${img.naturalWidth} px shown at ${Math.round(img.getBoundingClientRect().width)}`);
done({clipped: clipped, wide: wide, bold: bold, shrunk: shrunk});
"""

CONTENT_PAGES = [page for page in MAIN_PAGES
                 if page.startswith(("chapters/", "exercises/", "book/")) or page == "index.html"]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page", CONTENT_PAGES)
def test_equations_code_and_glued_numbers_fit(browser, main_site, page, width):
    browser.set_window_size(width, 900)
    try:
        report = load_and_report(browser, f"{main_site}/{page}")
        assert not report["stalled"], f"{page}: stalled on every try: {report['stalled']}"
        layout = browser.execute_async_script(LAYOUT_REPORT)
    finally:
        browser.set_window_size(1280, 900)
    problems = []
    if layout["clipped"]:
        problems.append(f"display equations cut off: {layout['clipped'][:3]}")
    if width == 1280 and layout["wide"]:
        problems.append(f"code cells wider than their box: {layout['wide'][:3]}")
    if width == 1280 and layout["shrunk"]:
        problems.append(f"figures scaled down to fit the column: {layout['shrunk']}")
    if layout["bold"]:
        problems.append(f"glued numbers not in the text's weight: {layout['bold'][:5]}")
    assert not problems, f"{page} at {width} px:\n  " + "\n  ".join(problems)


def test_layout_checks_see_the_pages():
    """The parametrisation above is not empty: the site is built and has chapter pages."""
    assert MAIN_SITE.is_dir() and any(page.startswith("chapters/") for page in CONTENT_PAGES)
