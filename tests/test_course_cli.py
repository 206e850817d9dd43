"""The instructors' guide, command by command: a problem set through nbgrader's command line.

``tools/course.py`` groups two exercises into one assignment from a problem-sets file (what
``make course PROBLEM_SETS=...`` runs); then, in the course folder, ``nbgrader
generate_assignment``, ``autograde``, ``generate_feedback`` and ``export`` run as the guide says.
One student submits a complete answer to one exercise and nothing to the other.
"""

import csv
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader_course import ROOT, course_tool

BIN = Path(sys.executable).parent


def nbgrader(course, *args):
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run(
        [BIN / "nbgrader", *args], cwd=course, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run


def test_problem_set_through_the_nbgrader_command_line(tmp_path):
    sets = tmp_path / "problem-sets.yml"
    sets.write_text("week-7: [ex-6-21, ex-7-11]\n", encoding="utf-8")
    course = tmp_path / "course"
    subprocess.run(
        [sys.executable, ROOT / "tools" / "course.py", "--out", course, "--problem-sets", sets],
        check=True, capture_output=True,
    )
    assert sorted(p.name for p in (course / "source" / "week-7").iterdir()) == [
        "ex-6-21.ipynb", "ex-7-11.ipynb"
    ]
    nbgrader(course, "generate_assignment", "week-7")
    submitted = course / "submitted" / "ada" / "week-7"
    submitted.mkdir(parents=True)
    complete = nbformat.read(course / "source" / "week-7" / "ex-6-21.ipynb", as_version=4)
    nbformat.write(complete, submitted / "ex-6-21.ipynb")
    blank = nbformat.read(course / "release" / "week-7" / "ex-7-11.ipynb", as_version=4)
    nbformat.write(blank, submitted / "ex-7-11.ipynb")
    nbgrader(course, "autograde", "week-7", "--create")
    nbgrader(course, "generate_feedback", "week-7")
    for name in ("ex-6-21", "ex-7-11"):
        assert (course / "feedback" / "ada" / "week-7" / f"{name}.html").is_file()
    nbgrader(course, "export", "--to", "grades.csv")
    (row,) = csv.DictReader((course / "grades.csv").open(encoding="utf-8"))
    full = sum(
        cell.metadata["nbgrader"]["points"]
        for cell in complete.cells
        if cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("check-")
    )
    assert (row["assignment"], row["student_id"]) == ("week-7", "ada")
    assert float(row["raw_score"]) == pytest.approx(full)  # checks of ex-6-21 only


def test_problem_sets_file_errors_name_the_problem(tmp_path):
    sets = tmp_path / "sets.yml"
    sets.write_text("week-1: [ex-6-99]\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="unknown exercise.*ex-6-99"):
        course_tool.read_problem_sets(sets)
    with pytest.raises(SystemExit, match="no such problem-sets file"):
        course_tool.read_problem_sets(tmp_path / "missing.yml")
    sets.write_text("- ex-6-01\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="expected a mapping"):
        course_tool.read_problem_sets(sets)
