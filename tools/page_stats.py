"""What a reader meets on each page: visible code, how much of it is verification, glued numbers.

Usage::

    python tools/page_stats.py

prints, for every page of the book (chapters and exercises), its visible code lines and the share
of them that verify rather than teach (asserts, ``np.testing`` calls and glue calls: the
*verification share*), its visible code cells over :data:`MAX_VISIBLE_LINES` lines, its longest
visible code cell, and how many numbers its prose takes from the code through myst-nb's glue
roles; then the totals. A code cell is visible unless its tags hide or remove its input; a line
is a non-blank line of a visible cell. ``tests/test_pages.py`` asserts the rules these numbers
follow.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from dataclasses import field as dc_field
from pathlib import Path

import jupytext

sys.path.insert(0, str(Path(__file__).resolve().parent))
import plain_myst  # noqa: E402  (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
#: A visible code cell longer than this buries the book's thread (hide it or move code to helpers).
MAX_VISIBLE_LINES = 40
#: An exercise's check cell may be longer: its messages tell a student which part is wrong.
MAX_CHECK_LINES = 60
HIDDEN = {"hide-input", "remove-input", "hide-cell", "remove-cell"}
GLUE_ROLE = re.compile(r"\{glue(?::\w+)?\}`(?P<key>[\w.-]+)(?::[^`]*)?`")
GLUE_CALL = re.compile(r"\bglue\(\s*(?P<quote>['\"])(?P<key>[\w.-]+)(?P=quote)")
GLUE_FSTRING = re.compile(r"\bglue\(\s*f(?P<quote>['\"])(?P<pattern>[^'\"]+)(?P=quote)")
#: Largest share of a chapter page's visible code lines that may verify rather than teach.
MAX_VERIFICATION_SHARE = 0.03
#: Widest visible code line: wider lines run past the right edge of a code cell on the website.
MAX_VISIBLE_COLUMNS = 88
#: A line of IPython syntax (magic, shell escape) that the Python parser would reject.
IPYTHON_LINE = re.compile(r"^\s*[%!]")
#: A code cell that shows a matplotlib figure.
DRAWS = re.compile(r"\bplt\.show\(\)")
HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<title>.+?)\s*$", re.M)
BULLET = re.compile(r"^[-*]\s+\S", re.M)
NUMBERED_ITEM = re.compile(r"^\d+\.\s+\S", re.M)


@dataclass
class Figure:
    """A figure a code cell draws: its name and caption (cell metadata ``mystnb.figure``)."""

    first_line: str
    name: str | None
    caption: str | None
    referenced: bool  # the prose cites it with {numref}


@dataclass
class PageStats:
    """The counts of one page."""

    path: Path
    long_cells: list  # (first line of the cell, its number of lines) of each long visible cell
    longest: int
    glued_roles: int  # glue roles in the prose
    roles_without_glue: list  # keys the prose uses that no code cell glues
    glued_not_used: list  # keys the code glues that the prose never uses
    visible_lines: int = 0  # non-blank lines of the visible code cells
    verification_lines: int = 0  # of those, lines of asserts, np.testing calls and glue calls
    figures: list = dc_field(default_factory=list)  # a Figure per cell that draws one
    key_points: int | None = None  # bullets under "Key points", None without the section
    try_it: list | None = None  # the text of each item under "Try it", None without it
    last_headings: tuple = ()  # the page's last two section headings
    wide_lines: list = dc_field(default_factory=list)  # visible code lines over the width

    @property
    def verification_share(self):
        """Verification lines over visible code lines (0 on a page without visible code)."""
        return self.verification_lines / self.visible_lines if self.visible_lines else 0.0


def pages(root=ROOT):
    """Every notebook page of the book: chapters and exercises."""
    return sorted([*Path(root).glob("chapters/*/*.md"), *Path(root).glob("exercises/*/ex-*.md")])


def _glued_keys(code):
    keys = {match["key"] for match in GLUE_CALL.finditer(code)}
    patterns = [match["pattern"] for match in GLUE_FSTRING.finditer(code)]
    return keys, [re.compile(re.sub(r"\\\{[^}]*\\\}", r"[\\w.-]+", re.escape(p)) + "$")
                  for p in patterns]


def _is_verification_call(call):
    """True for ``glue(...)``, ``np.testing.*(...)`` and ``assert_*(...)`` calls."""
    name = ast.unparse(call.func)
    last = name.rsplit(".", 1)[-1]
    return last == "glue" or last.startswith("assert_") or ".testing." in f".{name}"


def verification_lines(source):
    """The line numbers (1-based) of a code cell that verify: asserts, test and glue calls.

    A statement that spans several lines counts with all of them.

    Parameters
    ----------
    source : str
        The code of one cell.

    Returns
    -------
    set of int
    """
    lines = source.splitlines()
    code = "\n".join("" if IPYTHON_LINE.match(line) else line for line in lines)
    found = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Assert) or (
            isinstance(node, (ast.Expr, ast.With)) and any(
                isinstance(call, ast.Call) and _is_verification_call(call)
                for call in ([node.value] if isinstance(node, ast.Expr)
                             else [item.context_expr for item in node.items])
            )
        ):
            last = node.end_lineno if isinstance(node, ast.Expr | ast.Assert) else (
                node.items[-1].context_expr.end_lineno
            )
            found.update(range(node.lineno, last + 1))
    return {number for number in found if lines[number - 1].strip()}


def _section(text, title):
    """The body of the level-2 section ``title`` of a page's prose, or None."""
    match = re.search(rf"^## {re.escape(title)}\s*$(?P<body>.*?)(?=^## |\Z)", text, re.M | re.S)
    return match["body"] if match else None


def _items(body, pattern):
    """The top-level list items of a section body (each with its indented continuation)."""
    starts = [match.start() for match in pattern.finditer(body)]
    return [body[start:end].strip() for start, end in zip(starts, [*starts[1:], len(body)])]


def page_stats(path):
    """Measure one page: its visible code, figures, closing sections and glue roles.

    Parameters
    ----------
    path : path
        A jupytext MyST page.

    Returns
    -------
    PageStats
    """
    notebook = jupytext.read(path, fmt="md:myst")
    long_cells, longest, prose, code = [], 0, [], []
    visible, verifying, drawn, wide = 0, 0, [], []
    for cell in plain_myst.shown_cells(notebook):
        if cell.cell_type != "code":
            prose.append(cell.source)
            continue
        code.append(cell.source)
        tags = set(cell.metadata.get("tags", []))
        if DRAWS.search(cell.source) and not {"remove-output", "remove-cell"} & tags:
            figure = cell.metadata.get("mystnb", {}).get("figure", {})
            drawn.append((cell.source.strip().splitlines()[0], figure.get("name"),
                          figure.get("caption")))
        if HIDDEN & tags:
            continue
        lines = len(cell.source.strip().splitlines())
        visible += sum(1 for line in cell.source.splitlines() if line.strip())
        verifying += len(verification_lines(cell.source))
        wide += [line for line in cell.source.splitlines() if len(line) > MAX_VISIBLE_COLUMNS]
        longest = max(longest, lines)
        limit = MAX_CHECK_LINES if "points" in cell.metadata else MAX_VISIBLE_LINES
        if lines > limit:
            long_cells.append((cell.source.strip().splitlines()[0], lines))
    used = [match["key"] for text in prose for match in GLUE_ROLE.finditer(text)]
    glued, patterns = _glued_keys("\n".join(code))
    missing = sorted({key for key in used if key not in glued
                      and not any(p.match(key) for p in patterns)})
    unused = sorted(glued - set(used))
    text = "\n\n".join(prose)
    cited = set(re.findall(r"\{numref\}`(?:[^`<]*<)?([\w.-]+)>?`", text))
    figures = [Figure(first, name, caption, name in cited) for first, name, caption in drawn]
    key_points, try_it = _section(text, "Key points"), _section(text, "Try it")
    return PageStats(
        Path(path), long_cells, longest, len(used), missing, unused, visible, verifying, figures,
        None if key_points is None else len(_items(key_points, BULLET)),
        None if try_it is None else _items(try_it, NUMBERED_ITEM),
        tuple(match["title"] for match in HEADING.finditer(text) if len(match["level"]) == 2)[-2:],
        wide,
    )


def teaches(stats):
    """What keeps a chapter page from the book's teaching rules; empty when it keeps them all.

    The rules: at most :data:`MAX_VERIFICATION_SHARE` of the visible code lines verify; the page
    ends with "Key points" (3 to 6 bullets) and "Try it" (2 to 4 numbered items, each with a
    hint); every figure it draws has a name and a caption and is cited in the prose; no visible
    code line is wider than :data:`MAX_VISIBLE_COLUMNS`.
    """
    problems = [f"visible code line of {len(line)} columns: {line.strip()[:40]!r}..."
                for line in stats.wide_lines]
    if stats.verification_share > MAX_VERIFICATION_SHARE:
        problems.append(f"{stats.verification_lines} of {stats.visible_lines} visible code lines "
                        f"verify ({stats.verification_share:.1%})")
    if stats.last_headings != ("Key points", "Try it"):
        problems.append(f"ends with sections {stats.last_headings}, not Key points and Try it")
    if stats.key_points is not None and not 3 <= stats.key_points <= 6:
        problems.append(f"{stats.key_points} key points")
    if stats.try_it is not None:
        if not 2 <= len(stats.try_it) <= 4:
            problems.append(f"{len(stats.try_it)} things to try")
        problems += [f"Try it item {n} has no hint" for n, item in enumerate(stats.try_it, 1)
                     if "Hint" not in item]
    for figure in stats.figures:
        if not (figure.name and figure.caption):
            problems.append(f"figure without name or caption: {figure.first_line!r}")
        elif not figure.referenced:
            problems.append(f"figure {figure.name} is not cited with {{numref}}")
    return problems


def main():
    totals = {"pages": 0, "long": 0, "glued": 0, "pages_with_glue": 0, "chapters": 0,
              "chapter_lines": 0, "chapter_verifying": 0, "teaching": 0}
    for path in pages():
        stats = page_stats(path)
        totals["pages"] += 1
        totals["long"] += len(stats.long_cells)
        totals["glued"] += stats.glued_roles
        totals["pages_with_glue"] += stats.glued_roles > 0
        flags = f"  {len(stats.long_cells)} visible cells over {MAX_VISIBLE_LINES} lines" if (
            stats.long_cells
        ) else ""
        print(f"{path.relative_to(ROOT)}: {stats.visible_lines} visible code lines, "
              f"{stats.verification_share:.1%} verifying, {len(stats.figures)} figures, "
              f"{stats.glued_roles} glued numbers, longest visible code cell {stats.longest} "
              f"lines{flags}")
        if path.parts[-3] == "chapters":
            totals["chapter_lines"] += stats.visible_lines
            totals["chapter_verifying"] += stats.verification_lines
            totals["teaching"] += not teaches(stats)
            totals["chapters"] += 1
    print(f"{totals['pages']} pages: {totals['glued']} glued numbers on "
          f"{totals['pages_with_glue']} pages; {totals['long']} visible code cells over "
          f"{MAX_VISIBLE_LINES} lines")
    print(f"{totals['chapters']} chapter pages: {totals['chapter_verifying']} of "
          f"{totals['chapter_lines']} visible code lines verify "
          f"({totals['chapter_verifying'] / totals['chapter_lines']:.1%}); "
          f"{totals['teaching']} keep every teaching rule")
    return 0 if totals["long"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
