"""What a reader meets on each page: visible code cells by length, and numbers glued into the prose.

Usage::

    python tools/page_stats.py

prints, for every page of the book (chapters and exercises), its visible code cells over
:data:`MAX_VISIBLE_LINES` lines, its longest visible code cell, and how many numbers its prose
takes from the code through myst-nb's glue roles; then the totals. A code cell is visible unless
its tags hide or remove its input. ``tests/test_pages.py`` asserts the rules these numbers follow.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[1]
#: A visible code cell longer than this buries the book's thread (hide it or move code to helpers).
MAX_VISIBLE_LINES = 40
HIDDEN = {"hide-input", "remove-input", "hide-cell", "remove-cell"}
GLUE_ROLE = re.compile(r"\{glue(?::\w+)?\}`(?P<key>[\w.-]+)(?::[^`]*)?`")
GLUE_CALL = re.compile(r"\bglue\(\s*(?P<quote>['\"])(?P<key>[\w.-]+)(?P=quote)")
GLUE_FSTRING = re.compile(r"\bglue\(\s*f(?P<quote>['\"])(?P<pattern>[^'\"]+)(?P=quote)")


@dataclass
class PageStats:
    """The counts of one page."""

    path: Path
    long_cells: list  # (first line of the cell, its number of lines) of each long visible cell
    longest: int
    glued_roles: int  # glue roles in the prose
    roles_without_glue: list  # keys the prose uses that no code cell glues
    glued_not_used: list  # keys the code glues that the prose never uses


def pages(root=ROOT):
    """Every notebook page of the book: chapters and exercises."""
    return sorted([*Path(root).glob("chapters/*/*.md"), *Path(root).glob("exercises/*/ex-*.md")])


def _glued_keys(code):
    keys = {match["key"] for match in GLUE_CALL.finditer(code)}
    patterns = [match["pattern"] for match in GLUE_FSTRING.finditer(code)]
    return keys, [re.compile(re.sub(r"\\\{[^}]*\\\}", r"[\\w.-]+", re.escape(p)) + "$")
                  for p in patterns]


def page_stats(path):
    """Count the visible code cells over the limit and the glue roles of one page.

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
    for cell in notebook.cells:
        if cell.cell_type != "code":
            prose.append(cell.source)
            continue
        code.append(cell.source)
        if HIDDEN & set(cell.metadata.get("tags", [])):
            continue
        lines = len(cell.source.strip().splitlines())
        longest = max(longest, lines)
        if lines > MAX_VISIBLE_LINES:
            long_cells.append((cell.source.strip().splitlines()[0], lines))
    used = [match["key"] for text in prose for match in GLUE_ROLE.finditer(text)]
    glued, patterns = _glued_keys("\n".join(code))
    missing = sorted({key for key in used if key not in glued
                      and not any(p.match(key) for p in patterns)})
    unused = sorted(glued - set(used))
    return PageStats(Path(path), long_cells, longest, len(used), missing, unused)


def main():
    totals = {"pages": 0, "long": 0, "glued": 0, "pages_with_glue": 0}
    for path in pages():
        stats = page_stats(path)
        totals["pages"] += 1
        totals["long"] += len(stats.long_cells)
        totals["glued"] += stats.glued_roles
        totals["pages_with_glue"] += stats.glued_roles > 0
        flags = f"  {len(stats.long_cells)} visible cells over {MAX_VISIBLE_LINES} lines" if (
            stats.long_cells
        ) else ""
        print(f"{path.relative_to(ROOT)}: {stats.glued_roles} glued numbers, longest visible "
              f"code cell {stats.longest} lines{flags}")
    print(f"{totals['pages']} pages: {totals['glued']} glued numbers on "
          f"{totals['pages_with_glue']} pages; {totals['long']} visible code cells over "
          f"{MAX_VISIBLE_LINES} lines")
    return 0 if totals["long"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
