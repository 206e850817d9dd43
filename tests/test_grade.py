"""tools/grade.py: marks from the instructors' checks, whatever the submission did to them."""

import csv
import subprocess
import sys

import nbformat
import pytest
from nbgrader_course import ROOT, Mistake, load_tool, tamper

exercises = load_tool("exercises")
grading = load_tool("grade")

EXERCISE = "ex-6-21"
#: the prior variance 1/alpha left out of the kernel: checks 3 and 4 fail, 1 and 2 pass
MISTAKE = Mistake(
    "answer-3", "Linear(variance=1 / alpha)", "Linear(variance=1.0)",
    frozenset({"check-3", "check-4"}),
)


@pytest.fixture(scope="module")
def submissions(tmp_path_factory):
    """Four students' notebooks: complete, blank, wrong, and wrong with its checks tampered."""
    folder = tmp_path_factory.mktemp("class")
    cells = exercises.read_exercise(grading.EXERCISES[EXERCISE])
    complete = exercises.to_notebook(cells)
    wrong = MISTAKE.apply(complete)
    notebooks = {
        "ann": complete,
        "ben": exercises.to_notebook(cells, release=True),
        "cai": wrong,
        "dee": tamper(wrong),
    }
    paths = {}
    for student, notebook in notebooks.items():
        (folder / student).mkdir()
        paths[student] = folder / student / f"{EXERCISE}.ipynb"
        nbformat.write(notebook, paths[student])
    return paths


def scores(items):
    return {item.grade_id: item.points for item in items}


def test_complete_blank_wrong_and_tampered(submissions):
    complete = scores(grading.grade(submissions["ann"]))
    assert complete == {"check-1": 1, "check-2": 1, "check-3": 1, "check-4": 2, "derivation": None}

    blank = grading.grade(submissions["ben"])
    assert all(item.points == 0 for item in blank if item.points is not None)
    # a check that needs a missing answer reports the answer's error, with its code cell
    messages = {item.grade_id: item.message for item in blank if item.points is not None}
    assert messages["check-1"].startswith("could not run: the answer in code cell 2 failed")
    # the kernel check needs part 3, the answer in code cell 4
    assert messages["check-3"].startswith("could not run: the answer in code cell 4 failed")
    assert all("NotImplementedError" in m and "NameError" not in m for m in messages.values())

    wrong = grading.grade(submissions["cai"])
    assert scores(wrong) == {**complete, "check-3": 0, "check-4": 0}
    check_3 = next(item for item in wrong if item.grade_id == "check-3")
    assert check_3.message.startswith("AssertionError")
    # the whole assertion message, with the values that disagree
    check_4 = next(item for item in wrong if item.grade_id == "check-4")
    assert "Mismatched elements" in check_4.message and "ACTUAL" in check_4.message.upper()
    assert check_4.name.endswith("(code cell 8)")  # code cells only, as Jupyter numbers them

    assert scores(grading.grade(submissions["dee"])) == scores(wrong)


def test_answers_found_without_nbgrader_ids(submissions, tmp_path):
    notebook = nbformat.read(submissions["cai"], as_version=4)
    for cell in notebook.cells:
        cell.metadata = {}
    (tmp_path / "eve").mkdir()
    path = tmp_path / "eve" / f"{EXERCISE}.ipynb"
    nbformat.write(notebook, path)
    assert scores(grading.grade(path)) == scores(grading.grade(submissions["cai"]))


def test_command_line_prints_and_writes_the_class_csv(submissions, tmp_path):
    table = tmp_path / "grades.csv"
    run = subprocess.run(
        [sys.executable, ROOT / "tools" / "grade.py", "--csv", table,
         submissions["ann"], submissions["cai"]],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert run.returncode == 1, run.stderr  # a check failed
    assert "5/5 points from the checks, 6 to mark by hand" in run.stdout
    assert "2/5 points from the checks" in run.stdout and "FAILED" in run.stdout
    rows = list(csv.DictReader(table.open(encoding="utf-8")))
    totals = {row["student"]: row["points"] for row in rows if row["item"] == "checks-total"}
    assert totals == {"ann": "5", "cai": "2"}
    assert {row["item"] for row in rows} == {
        "check-1", "check-2", "check-3", "check-4", "derivation", "checks-total"
    }


def test_a_notebook_named_after_no_exercise_is_refused(tmp_path):
    path = tmp_path / "homework.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), path)
    with pytest.raises(SystemExit, match="name it after the exercise"):
        grading.grade(path)
