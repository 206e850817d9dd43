"""Grade exercise notebooks by their check cells.

A check cell is a code cell that holds an ``assert``. Every cell of the notebook is run in order,
in the notebook's own folder, and the run goes on after a failing cell, so that each check is
judged even when an earlier one failed. A check passes when its cell runs without an error.

Usage::

    python tools/grade.py NOTEBOOK [NOTEBOOK ...]

takes ``.ipynb`` files and jupytext ``.md`` notebooks, prints one line per notebook (the checks
that pass out of all checks, and the first line of each failing check's error), and exits with
status 1 if any check failed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import NamedTuple

import jupytext
from nbclient import NotebookClient

ASSERT = re.compile(r"^\s*assert\b|\bnp\.testing\.assert_\w+\(", re.M)


class Grade(NamedTuple):
    """The checks of one notebook: how many passed and the errors of the others."""

    passed: int
    total: int
    failures: list  # (cell number, "ErrorName: message") of each failing check


def is_check(cell):
    """True for a code cell that asserts something."""
    return cell.cell_type == "code" and bool(ASSERT.search(cell.source))


def grade(path, timeout=300):
    """Run a notebook cell by cell and judge its check cells.

    Parameters
    ----------
    path : path
        An ``.ipynb`` file or a jupytext ``.md`` notebook.
    timeout : int
        Seconds allowed per cell.

    Returns
    -------
    Grade
    """
    path = Path(path)
    notebook = jupytext.read(path)
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent.resolve())}},
    )
    client.execute()
    passed, total, failures = 0, 0, []
    for number, cell in enumerate(notebook.cells, start=1):
        if not is_check(cell):
            continue
        total += 1
        errors = [out for out in cell.get("outputs", []) if out.get("output_type") == "error"]
        if errors:
            message = str(errors[0]["evalue"]).strip().splitlines()
            failures.append((number, f"{errors[0]['ename']}: {message[0] if message else ''}"))
        else:
            passed += 1
    return Grade(passed, total, failures)


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: python tools/grade.py NOTEBOOK [NOTEBOOK ...]")
    all_passed = True
    for name in argv[1:]:
        result = grade(name)
        print(f"{name}: {result.passed}/{result.total} checks pass")
        for number, error in result.failures:
            print(f"    cell {number}: {error}")
        all_passed &= result.passed == result.total
    sys.exit(0 if all_passed else 1)


if __name__ == "__main__":
    main(sys.argv)
