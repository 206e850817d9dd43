"""How long each chapter page takes to run, in two checkouts of the book side by side.

Usage::

    python tools/page_times.py OLD_CHECKOUT NEW_CHECKOUT [PAGE.md ...]

runs every chapter page (or the pages named, as paths inside a checkout) of both checkouts as the
book's build does (top to bottom, in the page's own folder, one kernel per page, one page at a
time), alternating old and new so that a change in the machine's load falls on both, and prints
each page's two run times and their ratio, then the totals. Pages run with one BLAS and one
numba thread so that the times compare the pages' work, not how many cores were free. Both
checkouts run with the current environment's kmlib: compare pages, not kmlib versions.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import jupytext
from nbclient import NotebookClient

ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                     "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")}


def run_seconds(page: Path) -> float:
    """Run ``page`` in its folder and return the wall-clock seconds the kernel took."""
    notebook = jupytext.read(page)
    client = NotebookClient(notebook, timeout=1800, kernel_name="python3",
                            resources={"metadata": {"path": str(page.parent)}})
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def main(arguments: list[str]) -> int:
    if len(arguments) < 2:
        print(__doc__)
        return 2
    old, new = Path(arguments[0]), Path(arguments[1])
    pages = arguments[2:] or sorted(str(path.relative_to(new))
                                    for path in new.glob("chapters/*/*.md"))
    os.environ.update(ONE_THREAD)
    totals = [0.0, 0.0]
    print(f"{'page':55s} {'old s':>7s} {'new s':>7s} {'new/old':>8s}")
    for page in pages:
        seconds = [run_seconds(old / page), run_seconds(new / page)]
        totals = [total + s for total, s in zip(totals, seconds)]
        print(f"{page:55s} {seconds[0]:7.1f} {seconds[1]:7.1f} {seconds[1] / seconds[0]:8.2f}",
              flush=True)
    print(f"{'all pages':55s} {totals[0]:7.1f} {totals[1]:7.1f} {totals[1] / totals[0]:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
