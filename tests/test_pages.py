"""Rules every page of the book keeps (counts in ``tools/page_stats.py``).

* No visible code cell is longer than ``MAX_VISIBLE_LINES``: bookkeeping is hidden or in helpers.
* No visible code line is wider than ``MAX_VISIBLE_COLUMNS``: it would run past the code cell's
  right edge on the website (``tests/browser/test_layout.py`` measures it there).
* Every number the prose takes from the code through a glue role is glued by the page's code,
  and every glued value is used: a typo in a key cannot reach the website as an empty gap.
* Reader-facing text never speaks of the project's working files.
* No line of prose starts with ``%``: MyST reads it as a comment and drops it from the page (a
  sentence wrapped before "% of ..." loses its line).
* A chapter page teaches first (``page_stats.teaches``): at most 3 % of its visible code lines
  verify, it ends with Key points and Try it, and its figures are named, captioned and cited.
"""

import re

import pytest
from nbgrader_course import ROOT, load_tool

page_stats = load_tool("page_stats")

PAGES = page_stats.pages()
CHAPTERS = [page for page in PAGES if page.parts[-3] == "chapters"]
#: The project's working material, which a reader does not have.
#: (A random generator's seed is fine; the source texts as "seed notes" or "the seed's OCR" are not.)
WORKING_FILES = re.compile(
    r"\bseed (?:notes?|texts?|files?|copy)\b|\bseed's\b|\bOCR\b|\binventor(?:y|ies)\b", re.I
)


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.stem)
def test_no_long_visible_code_cell(page):
    stats = page_stats.page_stats(page)
    assert not stats.long_cells, (
        f"visible code cells over {page_stats.MAX_VISIBLE_LINES} lines (first line, length): "
        f"{stats.long_cells}"
    )


@pytest.mark.parametrize("page", CHAPTERS, ids=lambda path: path.stem)
def test_chapter_page_teaches_first(page):
    problems = page_stats.teaches(page_stats.page_stats(page))
    assert not problems, "; ".join(problems)


def test_teaching_rules_are_measured(tmp_path):
    """The page counts behind the rules, on a page made for the purpose."""
    source = "\n".join([
        "---", "jupytext:", "  text_representation:", "    extension: .md",
        "    format_name: myst", "kernelspec:", "  display_name: Python 3", "  name: python3", "---", "# A page", "",
        "As {numref}`fig-a` shows.", "", "```{code-cell} ipython3",
        "---", "mystnb:", "  figure:", "    name: fig-a", "    caption: A line.", "---",
        "x = 1", "", "y = [x,", "     2]", "np.testing.assert_allclose(y,", "    [1, 2])",
        "plt.show()", "```", "", "```{code-cell} ipython3", ":tags: [hide-cell]",
        "assert x == 1", "glue('x', x)", "```", "", "```{code-cell} ipython3", "plt.show()",
        "```", "", "## Key points", "", "- one", "- two", "", "## Try it", "",
        "1. Do this. *Hint:* think.", "", "   ```{dropdown} Answer", "   It is 2.", "   ```",
        "", "2. And that.", "",
    ])
    page = tmp_path / "page.md"
    page.write_text(source, encoding="utf-8")
    stats = page_stats.page_stats(page)
    # seven non-blank lines in the two visible cells, two of them one assert_allclose call
    assert (stats.visible_lines, stats.verification_lines) == (7, 2)
    assert [(f.name, f.referenced) for f in stats.figures] == [("fig-a", True), (None, False)]
    assert (stats.key_points, len(stats.try_it)) == (2, 2)
    assert page_stats.teaches(stats) == [
        "2 of 7 visible code lines verify (28.6%)", "2 key points",
        "Try it item 2 has no hint", "figure without name or caption: 'plt.show()'",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.stem)
def test_no_visible_code_line_runs_past_the_cell(page):
    wide = page_stats.page_stats(page).wide_lines
    assert not wide, (
        f"visible code lines over {page_stats.MAX_VISIBLE_COLUMNS} columns: "
        + "; ".join(line.strip()[:50] for line in wide)
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.stem)
def test_glued_numbers_are_glued_and_used(page):
    stats = page_stats.page_stats(page)
    assert not stats.roles_without_glue, f"prose uses keys no cell glues: {stats.roles_without_glue}"
    assert not stats.glued_not_used, f"glued but never used: {stats.glued_not_used}"


@pytest.mark.parametrize(
    "page", [*PAGES, *sorted((ROOT / "book").glob("*.md"))], ids=lambda path: path.stem
)
def test_reader_text_names_no_working_file(page):
    text = page.read_text(encoding="utf-8")
    prose = re.sub(r"```\{code-cell\}.*?```", "", text, flags=re.S)
    found = sorted({match.group(0) for match in WORKING_FILES.finditer(prose)})
    assert not found, f"reader-facing text mentions {found}"


@pytest.mark.parametrize(
    "page", [*PAGES, *sorted((ROOT / "book").glob("*.md"))], ids=lambda path: path.stem
)
def test_no_prose_line_is_a_myst_comment(page):
    text = page.read_text(encoding="utf-8")
    prose = re.sub(r"```.*?```", "", text, flags=re.S)  # code and directive blocks
    comments = [line for line in prose.splitlines() if line.lstrip().startswith("%")]
    assert not comments, f"lines MyST would drop as comments: {comments}"
