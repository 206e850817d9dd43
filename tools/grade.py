"""Grade students' exercise notebooks without nbgrader, with the checks from the instructors' source.

Usage::

    python tools/grade.py [--csv FILE] [--timeout SECONDS] SUBMISSION [SUBMISSION ...]

A submission is a students' notebook (``.ipynb``, or jupytext ``.md``) named after its exercise,
``ex-6-21.ipynb``. The student is the folder it sits in (``alice/ex-6-21.ipynb``), or, in
nbgrader's layout (``submitted/<student>/<assignment>/ex-6-21.ipynb``), the folder after
``submitted``. Only the student's answers are taken from it: the cells a student was asked to
fill, found by their nbgrader ids, which the students' notebooks carry. Everything else, setup
and checks included, comes from the exercise's source in ``exercises/``, so editing or deleting a
check changes nothing.

The student's code runs in a sandbox and the checks outside it (``tools/grading``): the answers
cannot see or change the checks, the sources, the other submissions or this process, and a
check passes only when it runs without an error in a process that runs no student code. Every
check is judged, even after an error.

For each submission, as soon as it is graded, this prints the points of each check as declared
in the source, the total, and for each failing check its whole error message; a check that
could not run because an answer cell failed shows that answer's error instead. Code cells are
numbered as Jupyter shows them after "Run All" (markdown cells are not counted). The
derivation is listed with its points, to be marked by hand. A submission that cannot be graded
(not a notebook, cut short, answers without their nbgrader ids) gets a line saying why and is
left for marking by hand; the others go on. What deserves the instructor's eye (code that
reaches for the grader, a sandbox that died or timed out) is printed as "flagged".

``--csv FILE`` writes, as it goes, one row per check, derivation and total of every submission,
and a total per student; text a spreadsheet could run as a formula is escaped. The exit
status is 1 if any check failed or any submission could not be graded.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import jupytext
import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercises  # noqa: E402  (sibling scripts, not a package)
from grading import autograde, checks, sandbox  # noqa: E402

EXERCISES = {path.stem: path for path in exercises.exercise_sources()}
#: Errors a check raises when something it uses was never defined or is broken upstream.
KNOCK_ON = ("NameError", "AttributeError", "TypeError", "NotImplementedError", "UnboundLocalError")


class Ungradable(Exception):
    """A submission that cannot be graded automatically; the message says why."""


@dataclass
class Item:
    """One graded item of a submission."""

    name: str  # "check 2 of 4" or "derivation"
    grade_id: str
    points: float | None  # None: to be marked by hand
    max_points: float
    message: str = ""


@dataclass
class Graded:
    """One submission's marks, or the reason it could not be graded."""

    path: Path
    student: str
    exercise: str
    items: list = field(default_factory=list)
    flags: list = field(default_factory=list)
    problem: str = ""  # why it could not be graded automatically


def student_of(path):
    """The student a submission belongs to: the folder after ``submitted`` in nbgrader's
    layout, else the folder the notebook sits in."""
    parts = Path(path).resolve().parts
    if "submitted" in parts[:-2]:
        return parts[len(parts) - 1 - parts[::-1].index("submitted") + 1]
    return parts[-2]


def read_submission(path):
    """The submission as an nbformat 4 notebook (``.md`` through jupytext)."""
    try:
        if path.suffix == ".md":
            return jupytext.read(path)
        return nbformat.read(path, as_version=4)
    except Exception as error:  # noqa: BLE001 (any unreadable file is reported, not fatal)
        raise Ungradable(f"not a readable notebook ({type(error).__name__}: "
                         f"{str(error)[:200]})") from None


def _answers(submission, cells):
    """The student's source for each answer and the derivation, keyed by grade id."""
    wanted = [cell for cell in cells if cell.kind in ("answer", "derivation")]
    found = {}
    for cell in submission.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in {w.grade_id for w in wanted}:
            if grade_id in found:
                raise Ungradable(f"two cells carry the nbgrader id {grade_id!r}: mark by hand, "
                                 "taking the answer the student meant")
            found[grade_id] = cell.source
    if not found:
        raise Ungradable(
            "no answer cell carries its nbgrader id (the notebook was saved by a tool that drops "
            "cell metadata, or rebuilt): mark by hand")
    missing = [cell.grade_id for cell in wanted if cell.grade_id not in found]
    if missing:
        raise Ungradable(
            f"no cell carries the nbgrader id of {', '.join(missing)} (deleted, or its metadata "
            "changed): mark by hand, finding the student's answer to that part")
    return found


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


def _error(cell):
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return output["ename"], str(output["evalue"]).strip()
    return None


def grade(path, timeout=checks.TIMEOUT):
    """Grade one submission with the instructors' checks.

    Parameters
    ----------
    path : path
        The student's notebook, named ``ex-X-YY.ipynb`` (or ``.md``).
    timeout : float
        Seconds an answer cell, or one call of the student's code, may take.

    Returns
    -------
    Graded
        The checks in order, then the derivation; or, if the submission cannot be graded, the
        reason (``problem``).
    """
    path = Path(path)
    graded = Graded(path, student_of(path), path.stem)
    if path.stem not in EXERCISES:
        graded.problem = (
            f"cannot tell which exercise this is; name it after the exercise, as the students' "
            f"notebooks are named (for example {next(iter(EXERCISES))}.ipynb)")
        return graded
    cells = exercises.read_exercise(EXERCISES[path.stem])
    try:
        answers = _answers(read_submission(path), cells)
    except Ungradable as error:
        graded.problem = str(error)
        return graded
    notebook = exercises.to_notebook(cells)
    for cell, notebook_cell in zip(cells, notebook.cells):
        if cell.grade_id in answers:
            notebook_cell.source = answers[cell.grade_id]
    graded.flags = autograde.grade_notebook(notebook, timeout)

    failed_answers, code_number = [], 0
    checks_in = [cell for cell in cells if cell.kind == "check"]
    for cell, notebook_cell in zip(cells, notebook.cells):
        if cell.cell_type == "code":
            code_number += 1
        error = _error(notebook_cell) if cell.cell_type == "code" else None
        if cell.kind == "answer" and error:
            failed_answers.append((code_number, cell, error))
        if cell.kind != "check":
            continue
        name = f"check {len(graded.items) + 1} of {len(checks_in)} (code cell {code_number})"
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
        graded.items.append(item)
    derivation = next(cell for cell in cells if cell.kind == "derivation")
    graded.items.append(Item("derivation", "derivation", None, derivation.points, "mark by hand"))
    return graded


def report(graded):
    """The lines printed for one submission."""
    if graded.problem:
        return [f"{graded.path}: NOT GRADED, {graded.problem}"]
    marked = [item for item in graded.items if item.points is not None]
    score, full = sum(i.points for i in marked), sum(i.max_points for i in marked)
    by_hand = sum(item.max_points for item in graded.items if item.points is None)
    lines = [f"{graded.path}: {score:g}/{full:g} points from the checks, "
             f"{by_hand:g} to mark by hand"]
    for item in marked:
        status = "passed" if item.points == item.max_points else "FAILED"
        lines.append(f"  {item.name}: {item.points:g}/{item.max_points:g} {status}")
        lines.extend(f"      {line}" for line in item.message.splitlines())
    lines.extend(f"  flagged: {flag}" for flag in graded.flags)
    return lines


class ClassTable:
    """The class's CSV, written row by row as submissions are graded, escaped against formula
    injection, with a total per student at the end."""

    HEADER = ["student", "exercise", "item", "points", "max_points", "note"]

    def __init__(self, path):
        self.handle = open(path, "w", newline="", encoding="utf-8")  # noqa: SIM115
        self.writer = csv.writer(self.handle)
        self.writer.writerow(self.HEADER)
        self.totals = {}

    def row(self, *values):
        self.writer.writerow([autograde.csv_safe(value) for value in values])

    def add(self, graded):
        student, exercise = graded.student, graded.exercise
        earned, full = self.totals.get(student, (0.0, 0.0))
        if graded.problem:
            self.row(student, exercise, "not-graded", "", "", graded.problem)
        else:
            for item in graded.items:
                points = "" if item.points is None else f"{item.points:g}"
                self.row(student, exercise, item.grade_id, points, f"{item.max_points:g}",
                         item.message.splitlines()[0] if item.message else "")
            marked = [item for item in graded.items if item.points is not None]
            score, most = sum(i.points for i in marked), sum(i.max_points for i in marked)
            self.row(student, exercise, "checks-total", f"{score:g}", f"{most:g}",
                     "; ".join(graded.flags))
            earned, full = earned + score, full + most
        self.totals[student] = (earned, full)
        self.handle.flush()

    def close(self):
        for student, (earned, full) in self.totals.items():
            self.row(student, "", "student-total", f"{earned:g}", f"{full:g}",
                     "checks only; derivations are marked by hand")
        self.handle.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", nargs="+", type=Path, metavar="SUBMISSION")
    parser.add_argument("--csv", type=Path, metavar="FILE", help="write the class's grades here")
    parser.add_argument("--timeout", type=float, default=checks.TIMEOUT, metavar="SECONDS",
                        help="seconds an answer cell, or one call of the student's code from a "
                             "check, may take (default: %(default)g)")
    args = parser.parse_args(argv)
    table = ClassTable(args.csv) if args.csv else None
    all_passed = True
    try:
        for path in args.submissions:
            try:
                graded = grade(path, args.timeout)
            except sandbox.SandboxUnavailable as error:
                raise SystemExit(f"cannot grade without the sandbox: {error}") from None
            print("\n".join(report(graded)), flush=True)
            if table:
                table.add(graded)
            all_passed &= not graded.problem and all(
                i.points == i.max_points for i in graded.items if i.points is not None)
    finally:
        if table:
            table.close()
            print(f"wrote {args.csv}")
    sys.exit(0 if all_passed else 1)


if __name__ == "__main__":
    main()
