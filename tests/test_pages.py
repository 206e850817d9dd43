"""Rules every page of the book keeps (counts in ``tools/page_stats.py``).

* No visible code cell is longer than ``MAX_VISIBLE_LINES``: bookkeeping is hidden or in helpers
  (an exercise's check cell, whose messages tell a student what is wrong, ``MAX_CHECK_LINES``).
* No visible code line is wider than ``MAX_VISIBLE_COLUMNS``: it would run past the code cell's
  right edge on the website (``tests/browser/test_layout.py`` measures it there).
* Every number the prose takes from the code through a glue role is glued by the page's code,
  and every glued value is used: a typo in a key cannot reach the website as an empty gap.
* Reader-facing text never speaks of the project's working files.
* No line of prose starts with ``%``: MyST reads it as a comment and drops it from the page (a
  sentence wrapped before "% of ..." loses its line).
* Every page that draws uses the book's figure style (``kmlib/book.mplstyle``), and no page asks
  for text smaller than the style's 10 pt (``tools/figure_report.py`` measures each figure's width
  and smallest text when a page runs; ``tests/browser/test_layout.py`` that the website shows each
  figure at its natural size).
* Every page opens with a cell that only jupyterlab-myst reads (the website removes it): front
  matter with ``numbering: false``, so that in ``make lab`` an equation shows its own ``\\tag``
  and no second, automatic number (``tests/browser/test_jupyterlab.py`` checks it there).
* A chapter page teaches first (``page_stats.teaches``): at most 3 % of its visible code lines
  verify, it ends with Key points and Try it, and its figures are named, captioned and cited.
"""

import re

import jupytext
import pytest
import yaml
from nbgrader_course import ROOT, load_tool

page_stats = load_tool("page_stats")
figure_report = load_tool("figure_report")

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


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.stem)
def test_page_opens_with_the_settings_jupyterlab_myst_reads(page):
    first = jupytext.read(page, fmt="md:myst").cells[0]
    assert first.cell_type == "markdown" and first.metadata.get("tags") == ["remove-cell"], (
        "the first cell must be a markdown cell tagged remove-cell")
    front_matter = re.fullmatch(r"---\n(.*)\n---\s*", first.source, re.S)
    assert front_matter, f"not a front matter block: {first.source!r}"
    assert yaml.safe_load(front_matter[1]) == {"numbering": False}


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


BOOK_PAGES = [*PAGES, *sorted((ROOT / "book").glob("*.md"))]
STYLE_LINE = 'plt.style.use("kmlib.book")'
#: An explicit font size in code: a number, or one of matplotlib's named sizes below "medium".
FONT_SIZE = re.compile(
    r"""(?:fontsize|labelsize|titlesize|["']size["']\s*:)\s*=?\s*"""
    r"""(?P<size>\d+(?:\.\d+)?|["'](?:xx-small|x-small|small|smaller)["'])"""
)


def code_cells(page):
    text = page.read_text(encoding="utf-8")
    return [cell for cell in re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, flags=re.S)]


@pytest.mark.parametrize("page", BOOK_PAGES, ids=lambda path: path.stem)
def test_figures_use_the_book_style_and_readable_text(page):
    cells = code_cells(page)
    drawing = [i for i, cell in enumerate(cells) if "matplotlib" in cell]
    if not drawing:
        return
    first = cells[drawing[0]]
    assert STYLE_LINE in first, f"the cell importing matplotlib does not apply {STYLE_LINE}"
    small = [match.group(0) for cell in cells for match in FONT_SIZE.finditer(cell)
             if not match["size"][0].isdigit()
             or float(match["size"]) < figure_report.MIN_FONT_POINTS]
    assert not small, f"text below {figure_report.MIN_FONT_POINTS} pt asked for: {small}"


def test_book_style_draws_text_at_readable_sizes():
    """Every text size the style sets is at least the minimum; a default figure fits the column."""
    import matplotlib as mpl

    style = mpl.rc_params_from_file(ROOT / "kmlib" / "book.mplstyle", use_default_template=False)
    sizes = {key: style[key] for key in style
             if key.endswith("size") and key != "figure.figsize"}
    assert "font.size" in sizes and "legend.fontsize" in sizes
    points = {key: mpl.font_manager.FontProperties(size=value).get_size_in_points()
              if isinstance(value, str) else value for key, value in sizes.items()}
    assert min(points.values()) >= figure_report.MIN_FONT_POINTS, points
    assert style["figure.dpi"] == 100
    assert style["figure.figsize"][0] * style["figure.dpi"] <= figure_report.COLUMN_PIXELS


def test_explicit_small_fonts_are_found():
    """The font-size search finds the forms a page could use, and not a sample's size."""
    code = 'ax.legend(fontsize=8)\nax.set_title("a", fontsize="small")\nax.legend(prop={"size": 7})'
    assert [match["size"] for match in FONT_SIZE.finditer(code)] == ["8", '"small"', "7"]
    assert [match["size"] for match in FONT_SIZE.finditer(
        "rng.normal(size=8)\nax.legend(fontsize=12)")] == ["12"]
