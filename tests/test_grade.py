"""tools/grade.py: marks from the instructors' checks, whatever the submission did to them."""

import copy
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


def scores(graded):
    assert not graded.problem, graded.problem
    return {item.grade_id: item.points for item in graded.items}


def test_complete_blank_wrong_and_tampered(submissions):
    complete = scores(grading.grade(submissions["ann"]))
    assert complete == {"check-1": 1, "check-2": 1, "check-3": 1, "check-4": 2, "derivation": None}

    blank = grading.grade(submissions["ben"]).items
    assert all(item.points == 0 for item in blank if item.points is not None)
    # a check that needs a missing answer reports the answer's error, with its code cell
    messages = {item.grade_id: item.message for item in blank if item.points is not None}
    assert messages["check-1"].startswith("could not run: the answer in code cell 2 failed")
    # the kernel check needs part 3, the answer in code cell 4
    assert messages["check-3"].startswith("could not run: the answer in code cell 4 failed")
    assert all("NotImplementedError" in m and "NameError" not in m for m in messages.values())

    wrong_graded = grading.grade(submissions["cai"])
    wrong_scores = scores(wrong_graded)
    assert wrong_scores == {**complete, "check-3": 0, "check-4": 0}
    wrong = wrong_graded.items
    check_3 = next(item for item in wrong if item.grade_id == "check-3")
    assert check_3.message.startswith("AssertionError")
    # the whole assertion message, with the values that disagree
    check_4 = next(item for item in wrong if item.grade_id == "check-4")
    assert "Mismatched elements" in check_4.message and "ACTUAL" in check_4.message.upper()
    assert check_4.name.endswith("(code cell 8)")  # code cells only, as Jupyter numbers them

    assert scores(grading.grade(submissions["dee"])) == wrong_scores


def test_a_notebook_without_its_nbgrader_ids_is_left_for_marking_by_hand(submissions, tmp_path):
    notebook = nbformat.read(submissions["cai"], as_version=4)
    for cell in notebook.cells:
        cell.metadata = {}
    (tmp_path / "eve").mkdir()
    path = tmp_path / "eve" / f"{EXERCISE}.ipynb"
    nbformat.write(notebook, path)
    graded = grading.grade(path)
    assert not graded.items and "no answer cell carries its nbgrader id" in graded.problem


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
        "check-1", "check-2", "check-3", "check-4", "derivation", "checks-total", "student-total"
    }


def test_a_notebook_named_after_no_exercise_is_not_graded(tmp_path):
    path = tmp_path / "homework.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), path)
    assert "name it after the exercise" in grading.grade(path).problem


def test_a_class_that_breaks_submissions_in_every_way_is_graded_to_the_end(submissions, tmp_path):
    """Each broken submission gets its own line and row; the others are graded; the CSV has a
    total per student and no cell a spreadsheet would run."""
    complete = nbformat.read(submissions["ann"], as_version=4)
    folder = tmp_path / "class"

    def put(student, text=None, notebook=None, layout=None):
        path = folder / (layout or student) / f"{EXERCISE}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        if notebook is not None:
            nbformat.write(notebook, path)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    duplicated = copy.deepcopy(complete)
    answer = next(c for c in duplicated.cells if c.metadata.get("nbgrader", {}).get("grade_id")
                  == "answer-2")
    second = copy.deepcopy(answer)
    second.id = "answer-2-again"  # a cell copied in Jupyter gets a new cell id, same metadata
    duplicated.cells.insert(duplicated.cells.index(answer), second)
    renamed = copy.deepcopy(complete)
    next(c for c in renamed.cells if c.metadata.get("nbgrader", {}).get("grade_id")
         == "answer-3").metadata["nbgrader"]["grade_id"] = "my-kernel"
    sleeper = copy.deepcopy(complete)
    next(c for c in sleeper.cells if c.metadata.get("nbgrader", {}).get("grade_id")
         == "answer-1").source += "\nimport time\ntime.sleep(600)"
    paths = [
        put("truncated", text=submissions["ann"].read_text(encoding="utf-8")[:2000]),
        put("not-json", text="my answers are in the email"),
        put("version-3", notebook=nbformat.convert(complete, 3)),
        put("duplicated", notebook=duplicated),
        put("renamed", notebook=renamed),
        put("sleeper", notebook=sleeper),
        put('=HYPERLINK("evil.example","A")', notebook=complete),
        put("ann", notebook=complete, layout=f"submitted/ann/{EXERCISE}"),
    ]
    table = tmp_path / "grades.csv"
    run = subprocess.run(
        [sys.executable, ROOT / "tools" / "grade.py", "--csv", table, "--timeout", "5", *paths],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert run.returncode == 1, run.stderr
    printed = {path: line for path in paths for line in run.stdout.splitlines()
               if line.startswith(f"{path}:")}
    assert len(printed) == len(paths), run.stdout
    for student in ("truncated", "not-json"):
        assert "NOT GRADED, not a readable notebook" in printed[paths[["truncated", "not-json"]
                                                                   .index(student)]]
    assert "5/5 points" in printed[paths[2]]  # nbformat 3, converted
    assert "NOT GRADED, two cells carry the nbgrader id 'answer-2'" in printed[paths[3]]
    assert "NOT GRADED, no cell carries the nbgrader id of answer-3" in printed[paths[4]]
    assert "did not finish within 5 s" in run.stdout and "0/5 points" in printed[paths[5]]

    rows = list(csv.DictReader(table.open(encoding="utf-8")))
    totals = {row["student"]: row["points"] for row in rows if row["item"] == "student-total"}
    assert totals["'=HYPERLINK(\"evil.example\",\"A\")"] == "5"  # escaped, and graded
    assert totals["ann"] == "5"  # the folder after submitted/, not the assignment's
    not_graded = {row["student"] for row in rows if row["item"] == "not-graded"}
    assert not_graded == {"truncated", "not-json", "duplicated", "renamed"}
    assert not any(value.startswith(("=", "+", "-", "@")) for row in rows for value in row.values())
