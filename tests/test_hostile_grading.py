"""Hostile submissions through both graders: no marks gained, no one else hurt, no file changed,
every attempt flagged.

A class of three honest students (complete, blank, wrong) and one student per attack in
``hostile.ATTACKS`` (the wrong submission with the attack at the end of its last answer) is
graded end to end by ``tools/grade.py`` (one command for the class) and by ``nbgrader
autograde`` (one command for the class, in the course ``tools/course.py`` writes). For each
attack and grader: the marks are at most those of the same submission without the attack, the
honest students get exactly their marks, the instructors' sources, the course's notebooks, the
gradebook's grades, the other submissions and the Python environment are unchanged, and the
attack is flagged for the instructor. The table of results is printed at the end of the run.
"""

from __future__ import annotations

import csv
import hashlib
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import numpy
from hostile import ATTACKS, EXERCISE, MISTAKE, attacked
from nbgrader_course import ROOT, course_tool, load_tool

exercises = load_tool("exercises")

#: Seconds an answer cell may take in this test (the sleeping attack waits for it).
TIMEOUT = 10
HONEST = {"ann": "complete", "ben": "blank", "cai": "wrong"}
#: Marks of the honest submissions (ex-6-21: checks of 1, 1, 1 and 2 points).
HONEST_MARKS = {"ann": 5.0, "ben": 0.0, "cai": 2.0}
BASELINE = HONEST_MARKS["cai"]  # the attacks' submission without the attack


def student_name(attack):
    return "attack-" + "".join(c if c.isalnum() else "-" for c in attack.lower())[:40]


def notebooks():
    """Every student's notebook: the honest ones and one per attack."""
    cells = exercises.read_exercise(ROOT / "exercises" / "prml06" / f"{EXERCISE}.md")
    complete = exercises.to_notebook(cells)
    wrong = MISTAKE.apply(complete)
    honest = {"complete": complete, "blank": exercises.to_notebook(cells, release=True),
              "wrong": wrong}
    class_ = {student: honest[kind] for student, kind in HONEST.items()}
    class_.update({student_name(attack): attacked(wrong, attack) for attack in ATTACKS})
    return class_


def digest(paths):
    """One hash of the contents of every file under ``paths``."""
    sha = hashlib.sha256()
    for root in map(Path, paths):
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for path in files:
            if path.is_file() and "__pycache__" not in path.parts:
                sha.update(str(path).encode() + path.read_bytes())
    return sha.hexdigest()


#: What no submission may change, besides the class's own files.
PROTECTED = [ROOT / "exercises", ROOT / "tools", ROOT / "kmlib",
             Path(numpy.__file__).parent / "testing"]


def report_table(grader, rows):
    """The battery's table for one grader, printed in the test's output."""
    lines = [f"{grader}: attack | marks gained | grader finished | files unchanged | flagged"]
    lines += [f"  {attack} | {gained:+g} | {finished} | {unchanged} | {flagged}"
              for attack, gained, finished, unchanged, flagged in rows]
    print("\n".join(lines))


def test_grade_py_against_a_hostile_class(tmp_path):
    folder = tmp_path / "class"
    submissions = []
    for student, notebook in notebooks().items():
        (folder / student).mkdir(parents=True)
        nbformat.write(notebook, folder / student / f"{EXERCISE}.ipynb")
        submissions.append(folder / student / f"{EXERCISE}.ipynb")
    decoy = folder / "gradebook.db"  # what a gradebook-writing attack would look for
    with sqlite3.connect(decoy) as db:
        db.execute("create table grade (id integer, extra_credit real)")
        db.execute("insert into grade values (1, NULL)")
    others = {path: digest([path]) for path in submissions}
    before = digest(PROTECTED + [decoy])

    started = time.monotonic()
    table = tmp_path / "grades.csv"
    run = subprocess.run(
        [sys.executable, ROOT / "tools" / "grade.py", "--csv", table, "--timeout", str(TIMEOUT),
         *submissions], capture_output=True, text=True, cwd=tmp_path, timeout=3600)
    wall = time.monotonic() - started
    print(f"grade.py: {len(submissions)} submissions in {wall:.0f} s")

    assert run.returncode == 1, run.stderr  # some checks fail; the run itself finished
    rows = list(csv.DictReader(table.open(encoding="utf-8")))
    marks = {row["student"]: float(row["points"]) for row in rows
             if row["item"] == "checks-total"}
    notes = {row["student"]: row["note"] for row in rows if row["item"] == "checks-total"}
    assert {s: marks.get(s) for s in HONEST} == HONEST_MARKS, run.stdout
    unchanged = digest(PROTECTED + [decoy]) == before and all(
        digest([path]) == hashed for path, hashed in others.items())
    results = []
    for attack in ATTACKS:
        student = student_name(attack)
        results.append((attack, marks.get(student, float("nan")) - BASELINE,
                        student in marks, unchanged, bool(notes.get(student))))
    report_table("tools/grade.py", results)
    for attack, gained, finished, same, flagged in results:
        assert finished, f"{attack}: not graded\n{run.stdout[-3000:]}"
        assert gained <= 0, f"{attack}: gained {gained} marks"
        assert flagged, f"{attack}: not flagged"
    assert unchanged, "a submission changed a file outside its sandbox"
    assert not any(notes.get(student) for student in HONEST), notes


def test_nbgrader_against_a_hostile_class(tmp_path):
    from nbgrader.api import Gradebook

    course = tmp_path / "course"
    course_tool.write_course(course, {EXERCISE: [EXERCISE]})
    with (course / "nbgrader_config.py").open("a", encoding="utf-8") as config:
        config.write(f"\nc.SandboxedExecute.timeout = {TIMEOUT}\n")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    nbgrader = [str(Path(sys.executable).parent / "nbgrader")]
    subprocess.run([*nbgrader, "generate_assignment", EXERCISE], cwd=course, env=env,
                   check=True, capture_output=True)
    name = f"{EXERCISE}.ipynb"
    submitted = []
    for student, notebook in notebooks().items():
        target = course / "submitted" / student / EXERCISE / name
        target.parent.mkdir(parents=True)
        nbformat.write(notebook, target)
        submitted.append(target)
    others = {path: digest([path]) for path in submitted}
    before = digest(PROTECTED + [course / "source", course / "release"])

    started = time.monotonic()
    run = subprocess.run([*nbgrader, "autograde", EXERCISE], cwd=course, env=env,
                         capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - started
    print(f"nbgrader autograde: {len(submitted)} submissions in {wall:.0f} s")
    assert run.returncode == 0, run.stderr[-3000:]

    marks, extra = {}, []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in notebooks():
            try:
                submission = gradebook.find_submission_notebook(EXERCISE, EXERCISE, student)
            except Exception:  # noqa: BLE001 (never graded)
                continue
            marks[student] = sum(g.score for g in submission.grades
                                 if g.cell.name.startswith("check-"))
            extra += [g.extra_credit for g in submission.grades if g.extra_credit]
    flagged = set()
    incidents = course / "sandbox-incidents.csv"
    if incidents.exists():
        flagged = {row["student"] for row in csv.DictReader(incidents.open(encoding="utf-8"))}
    unchanged = (digest(PROTECTED + [course / "source", course / "release"]) == before
                 and all(digest([path]) == hashed for path, hashed in others.items())
                 and not extra)
    results = []
    for attack in ATTACKS:
        student = student_name(attack)
        results.append((attack, marks.get(student, float("nan")) - BASELINE,
                        student in marks, unchanged, student in flagged))
    report_table("nbgrader autograde", results)
    assert {s: marks.get(s) for s in HONEST} == HONEST_MARKS
    for attack, gained, finished, same, was_flagged in results:
        assert finished, f"{attack}: not graded\n{run.stderr[-3000:]}"
        assert gained <= 0, f"{attack}: gained {gained} marks"
        assert was_flagged, f"{attack}: not flagged"
    assert unchanged, "a submission changed a file outside its sandbox"
    assert not flagged & set(HONEST), flagged
