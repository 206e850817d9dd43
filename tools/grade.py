"""Grade students' exercise notebooks without nbgrader, with the checks from the instructors' source.

Usage::

    python tools/grade.py [--csv FILE] SUBMISSION [SUBMISSION ...]

A submission is a students' notebook (``.ipynb``, or jupytext ``.md``) named after its exercise,
``ex-6-21.ipynb``; the student is the name of the folder it sits in (``alice/ex-6-21.ipynb``).
Only the student's answers are taken from it: the cells a student was asked to fill (found by
their nbgrader ids, which the students' notebooks carry, or else in order). Everything else,
setup and checks included, comes from the exercise's source in ``exercises/``, so editing or
deleting a check changes nothing. The notebook runs top to bottom and goes on after an error, so
every check is judged.

For each submission this prints the points of each check as declared in the source, the total,
and for each failing check its whole error message; a check that could not run because an
answer cell failed shows that answer's error instead. Code cells are numbered as Jupyter shows
them after "Run All" (markdown cells are not counted). The derivation is listed with its points,
to be marked by hand. ``--csv FILE`` writes one row per check, derivation and total for the
class. The exit status is 1 if any check failed.

Student code runs with your permissions: grade in an environment you are willing to expose.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import jupytext
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercises  # noqa: E402  (a sibling script, not a package)

EXERCISES = {path.stem: path for path in exercises.exercise_sources()}
#: Errors a check raises when something it uses was never defined or is broken upstream.
KNOCK_ON = ("NameError", "AttributeError", "TypeError", "NotImplementedError", "UnboundLocalError")


@dataclass
class Item:
    """One graded item of a submission."""

    name: str  # "check 2 of 4" or "derivation"
    grade_id: str
    points: float | None  # None: to be marked by hand
    max_points: float
    message: str = ""


def _answers(submission, cells):
    """The student's source for each answer and the derivation, keyed by grade id."""
    wanted = [cell for cell in cells if cell.kind in ("answer", "derivation")]
    by_id = {
        cell.metadata.get("nbgrader", {}).get("grade_id"): cell.source
        for cell in submission.cells
    }
    if any(cell.grade_id in by_id for cell in wanted):
        return {cell.grade_id: by_id.get(cell.grade_id, exercises.release_source(cell))
                for cell in wanted}
    # no nbgrader ids (a notebook re-saved by a tool that drops metadata): take, in order, the
    # cells whose source is not one the exercise itself provides
    given = {exercises.release_source(cell).strip() for cell in cells}
    answers = {}
    for kind in ("answer", "derivation"):
        expected = [cell for cell in wanted if cell.kind == kind]
        cell_type = "code" if kind == "answer" else "markdown"
        offered = [c.source for c in submission.cells
                   if c.cell_type == cell_type and c.source.strip() not in given]
        for cell, source in zip(expected, offered):
            answers[cell.grade_id] = source
        for cell in expected[len(offered):]:
            answers[cell.grade_id] = exercises.release_source(cell)
    return answers


def _error(cell):
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return output["ename"], str(output["evalue"]).strip()
    return None


def _culprit(error, failed_answers):
    """The failed answer cell that a check's error comes from.

    For a ``NameError``, the answer whose solution defines the missing name; otherwise the last
    answer that failed before the check.
    """
    missing = re.match(r"name '(\w+)' is not defined", error[1])
    if error[0] == "NameError" and missing:
        defines = re.compile(rf"^\s*(?:def\s+{missing[1]}\b|(?:\w+\s*,\s*)*{missing[1]}\b[^=\n]*=)", re.M)
        for failed in failed_answers:
            if defines.search(failed[1].source):
                return failed
    return failed_answers[-1]


def grade(path, timeout=120):
    """Run one submission with the instructors' checks.

    Parameters
    ----------
    path : path
        The student's notebook, named ``ex-X-YY.ipynb`` (or ``.md``).
    timeout : int
        Seconds allowed per cell.

    Returns
    -------
    list of Item
        The checks in order, then the derivation.
    """
    path = Path(path)
    if path.stem not in EXERCISES:
        raise SystemExit(
            f"{path}: cannot tell which exercise this is; name it after the exercise, "
            f"as the students' notebooks are named (for example {next(iter(EXERCISES))}.ipynb)"
        )
    cells = exercises.read_exercise(EXERCISES[path.stem])
    answers = _answers(jupytext.read(path), cells)
    graded = exercises.to_notebook(cells)
    for cell, notebook_cell in zip(cells, graded.cells):
        if cell.grade_id in answers:
            notebook_cell.source = answers[cell.grade_id]
    NotebookClient(
        graded,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent.resolve())}},
    ).execute()

    items, failed_answers, code_number = [], [], 0
    checks = [cell for cell in cells if cell.kind == "check"]
    for cell, notebook_cell in zip(cells, graded.cells):
        if cell.cell_type == "code":
            code_number += 1
        error = _error(notebook_cell) if cell.cell_type == "code" else None
        if cell.kind == "answer" and error:
            failed_answers.append((code_number, cell, error))
        if cell.kind != "check":
            continue
        name = f"check {len(items) + 1} of {len(checks)} (code cell {code_number})"
        item = Item(name, cell.grade_id, cell.points, cell.points)
        if error:
            item.points = 0.0
            item.message = f"{error[0]}: {error[1]}"
            if failed_answers and error[0] in KNOCK_ON:
                number, _, (ename, evalue) = _culprit(error, failed_answers)
                item.message = (
                    f"could not run: the answer in code cell {number} failed with\n"
                    f"{ename}: {evalue}"
                )
        items.append(item)
    derivation = next(cell for cell in cells if cell.kind == "derivation")
    items.append(Item("derivation", "derivation", None, derivation.points, "mark by hand"))
    return items


def report(path, items):
    """The lines printed for one submission."""
    checks = [item for item in items if item.points is not None]
    score, full = sum(i.points for i in checks), sum(i.max_points for i in checks)
    by_hand = sum(item.max_points for item in items if item.points is None)
    lines = [f"{path}: {score:g}/{full:g} points from the checks, {by_hand:g} to mark by hand"]
    for item in checks:
        status = "passed" if item.points == item.max_points else "FAILED"
        lines.append(f"  {item.name}: {item.points:g}/{item.max_points:g} {status}")
        lines.extend(f"      {line}" for line in item.message.splitlines())
    return lines


def write_csv(path, graded):
    """One row per check, derivation and total of every submission."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "exercise", "item", "points", "max_points"])
        for submission, items in graded:
            student, exercise = submission.parent.name, submission.stem
            for item in items:
                points = "" if item.points is None else f"{item.points:g}"
                writer.writerow([student, exercise, item.grade_id, points, f"{item.max_points:g}"])
            checks = [item for item in items if item.points is not None]
            writer.writerow([
                student, exercise, "checks-total",
                f"{sum(i.points for i in checks):g}", f"{sum(i.max_points for i in checks):g}",
            ])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", nargs="+", type=Path, metavar="SUBMISSION")
    parser.add_argument("--csv", type=Path, metavar="FILE", help="write the class's grades here")
    args = parser.parse_args(argv)
    graded = [(path, grade(path)) for path in args.submissions]
    for path, items in graded:
        print("\n".join(report(path, items)))
    if args.csv:
        write_csv(args.csv, graded)
        print(f"wrote {args.csv}")
    all_passed = all(i.points == i.max_points for _, items in graded for i in items
                     if i.points is not None)
    sys.exit(0 if all_passed else 1)


if __name__ == "__main__":
    main()
