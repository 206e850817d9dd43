"""How wide each figure of a page comes out and how small its smallest text is.

Usage::

    python tools/figure_report.py [--save FOLDER] PAGE.md [PAGE.md ...]

runs each page top to bottom in its own folder (as the book's build does) and, for every figure
the page shows, prints the width of the image the notebook receives, in pixels, and the smallest
font size of any text drawn on it, in points. The book's style (``kmlib/book.mplstyle``) draws
100 pixels per inch, and the website shows an image of at most :data:`COLUMN_PIXELS` pixels at its
natural size, so a figure that fits the column shows its text at the size it was drawn:
:data:`MIN_FONT_POINTS` or more. A figure that breaks either rule is marked ``!``; the exit status
is 1 when any does. With ``--save``, each figure is also written to FOLDER as
``<page>-<number>.png``, to look at.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

#: Width of the website's content column at a 1280-pixel window: a wider image is scaled down.
COLUMN_PIXELS = 660
#: Smallest text a figure may draw, in points.
MIN_FONT_POINTS = 10

#: Run before the page: record every figure the inline backend turns into an image.
RECORDER = """
import json as _json, os as _os
from matplotlib.backend_bases import FigureCanvasBase as _Canvas
from matplotlib.text import Text as _Text

def _record_figure(self, filename, *args, _print=_Canvas.print_figure, **kwargs):
    result = _print(self, filename, *args, **kwargs)
    if hasattr(filename, "getvalue") and filename.getvalue()[:8] == b"\\x89PNG\\r\\n\\x1a\\n":
        width = int.from_bytes(filename.getvalue()[16:20], "big")
        sizes = [text.get_fontsize() for text in self.figure.findobj(_Text)
                 if text.get_visible() and text.get_text().strip()]
        with open(_os.environ["FIGURE_REPORT"], "a") as out:
            out.write(_json.dumps({"width": width, "font": min(sizes, default=None),
                                   "png": filename.getvalue().hex()}) + "\\n")
    return result

_Canvas.print_figure = _record_figure
"""


def report(page: Path) -> list[dict]:
    """Run ``page`` and return one ``{"width", "font", "png"}`` record per figure it shows."""
    notebook = jupytext.read(page)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(RECORDER))
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as records:
        os.environ["FIGURE_REPORT"] = records.name
        NotebookClient(notebook, timeout=900, kernel_name="python3",
                       resources={"metadata": {"path": str(page.parent)}}).execute()
        return [json.loads(line) for line in Path(records.name).read_text().splitlines()]


def main(arguments: list[str]) -> int:
    save = None
    if arguments[:1] == ["--save"]:
        save, arguments = Path(arguments[1]), arguments[2:]
        save.mkdir(parents=True, exist_ok=True)
    failed = False
    for page in map(Path, arguments):
        for number, figure in enumerate(report(page), start=1):
            if save:
                (save / f"{page.stem}-{number}.png").write_bytes(bytes.fromhex(figure["png"]))
            bad = figure["width"] > COLUMN_PIXELS or (figure["font"] or 99) < MIN_FONT_POINTS
            failed |= bad
            print(f"{'!' if bad else ' '} {page}  figure {number}: {figure['width']} px wide, "
                  f"smallest text {figure['font']} pt")
    return int(failed)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
