"""Run one exercise through nbgrader as an instructor would, with four submissions.

``tools/course.py`` writes the exercise as a one-assignment course; nbgrader generates the
students' version, then autogrades four submissions and writes the feedback of one:

* ``source``: the instructors' notebook, answers in place;
* ``blank``: the students' version as released, nothing answered;
* ``wrong``: the instructors' notebook with one plausible mistake in an answer (a
  :class:`Mistake` written in the test module);
* ``tampered``: the wrong submission with every check weakened (asserts turned into prints,
  ``np.testing`` calls into no-ops) and its last check deleted.

The per-check results come from nbgrader's gradebook; nbgrader writes the feedback of the wrong
submission, whose failing checks it must explain. Used by ``test_course_prml06.py`` and
``test_course_prml07.py`` through :func:`course_test` (one module per chapter, so that
pytest-xdist, which keeps a module on one worker, runs them side by side).
"""

from __future__ import annotations

import copy
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
STUDENTS = ("source", "blank", "wrong", "tampered")


def load_tool(name):
    """Import ``tools/<name>.py`` (the tools are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


course_tool = load_tool("course")


@dataclass(frozen=True)
class Mistake:
    """A plausible wrong answer: ``old`` replaced by ``new`` in the answer cell ``cell``.

    ``fails`` names the checks that must fail; every other check must pass, so a student keeps
    the marks of the parts that are right.
    """

    cell: str
    old: str
    new: str
    fails: frozenset

    def apply(self, notebook):
        wrong = copy.deepcopy(notebook)
        (cell,) = [c for c in wrong.cells if grade_id(c) == self.cell]
        assert cell.source.count(self.old) == 1, f"{self.old!r} is not once in {self.cell}"
        cell.source = cell.source.replace(self.old, self.new)
        return wrong


def grade_id(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def tamper(notebook):
    """Weaken every check of ``notebook`` and delete its last one."""
    tampered = copy.deepcopy(notebook)
    checks = [cell for cell in tampered.cells if (grade_id(cell) or "").startswith("check-")]
    for cell in checks:
        source = re.sub(r"np\.testing\.assert_\w+\(", "(lambda *args, **kwargs: None)(", cell.source)
        cell.source = re.sub(r"^(\s*)assert\b(.*)$", r"\1print(\2)", source, flags=re.M)
    tampered.cells.remove(checks[-1])
    return tampered


@dataclass
class Result:
    """What nbgrader gave one submission."""

    score: float
    max_score: float
    failed: frozenset  # the autograded checks that scored nothing
    errors: list  # (cell, error name, message) of each error output in the autograded notebook
    slowest_cell: float  # seconds, the longest any cell ran under nbgrader
    feedback: str = ""  # the HTML feedback nbgrader wrote (for the wrong submission)


def run_course(exercise, course, mistake):
    """Put ``exercise`` through nbgrader; return a :class:`Result` per submission.

    Parameters
    ----------
    exercise : str
        Exercise name, such as ``"ex-6-21"``.
    course : Path
        An empty folder for the course.
    mistake : Mistake
        The wrong answer of the ``wrong`` submission.

    Returns
    -------
    dict of str to Result
    """
    from nbgrader.apps import NbGraderAPI
    from nbgrader.api import Gradebook
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    # nbgrader runs alembic, installed beside it, to create the gradebook
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    course_tool.write_course(course, {exercise: [exercise]})
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    config.CourseDirectory.root = str(course)
    api = NbGraderAPI(CourseDirectory(config=config), config=config)

    generated = api.generate_assignment(exercise)
    assert generated["success"], generated.get("error") or generated["log"]
    name = f"{exercise}.ipynb"
    source = nbformat.read(course / "source" / exercise / name, as_version=4)
    release = nbformat.read(course / "release" / exercise / name, as_version=4)
    wrong = mistake.apply(source)
    submissions = {"source": source, "blank": release, "wrong": wrong, "tampered": tamper(wrong)}
    results = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student, notebook in submissions.items():
            folder = course / "submitted" / student / exercise
            folder.mkdir(parents=True)
            nbformat.write(notebook, folder / name)
            autograde(api, exercise, student)
            grades = gradebook.find_submission_notebook(name[:-6], exercise, student).grades
            autograded = [grade for grade in grades if grade.cell.name.startswith("check-")]
            results[student] = Result(
                score=sum(grade.score for grade in autograded),
                max_score=sum(grade.max_score for grade in autograded),
                failed=frozenset(g.cell.name for g in autograded if g.score < g.max_score),
                errors=_errors(course / "autograded" / student / exercise / name),
                slowest_cell=_slowest_cell(course / "autograded" / student / exercise / name),
            )
    feedback = api.generate_feedback(exercise, "wrong")  # the submission with failing checks
    assert feedback["success"], feedback.get("error") or feedback["log"]
    results["wrong"].feedback = (course / "feedback" / "wrong" / exercise / name).with_suffix(
        ".html"
    ).read_text(encoding="utf-8")
    return results


def autograde(api, exercise, student, attempts=3):
    """nbgrader's autograde, run again when the kernel dies while starting.

    With tests on every core, kernels start side by side and now and then one dies before it
    answers (two processes picked the same free port); a real fault fails every attempt.
    """
    for attempt in range(1, attempts + 1):
        graded = api.autograde(exercise, student)
        log = f"{graded.get('error', '')}{graded.get('log', '')}"
        if graded["success"] or "before replying to kernel_info" not in log or attempt == attempts:
            break
    assert graded["success"], graded.get("error") or graded["log"]
    return graded


def _slowest_cell(path):
    """The longest run time of a cell, from the timings nbclient records in cell metadata."""
    from datetime import datetime

    times = [0.0]
    for cell in nbformat.read(path, as_version=4).cells:
        timing = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
            start, end = (
                datetime.fromisoformat(timing[key].replace("Z", "+00:00"))
                for key in ("iopub.execute_input", "shell.execute_reply")
            )
            times.append((end - start).total_seconds())
    return max(times)


#: The lines of NumPy's own report in an ``np.testing`` assertion (header, counts, mismatches);
#: the arrays compared come last, from the first ``ACTUAL:`` (or ``x:``) line on.
NUMPY_REPORT = re.compile(
    r"^\s*(Not equal to tolerance|Arrays are not|Mismatched elements|Mismatch at ind|Max "
    r"(absolute|relative) difference|First \d+ mismatches|\(shapes|(x and y )?\S+ location "
    r"mismatch|\[|$)"
)
NUMPY_VALUES = re.compile(r"^\s*(ACTUAL|DESIRED|x|y):")


def own_words(message):
    """The part of an assertion's message its author wrote, NumPy's report left out."""
    words = []
    for line in message.splitlines():
        if NUMPY_VALUES.match(line):
            break
        if not NUMPY_REPORT.match(line):
            words.append(line)
    return "\n".join(words)


def _errors(path):
    notebook = nbformat.read(path, as_version=4)
    return [
        (grade_id(cell) or cell.get("id"), output["ename"], output["evalue"])
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]


def check_results(results, mistake):
    """The assertions of the course test on the results of :func:`run_course`."""
    full = results["source"].max_score
    source, blank, wrong, tampered = (results[student] for student in STUDENTS)
    assert source.score == full > 0 and not source.failed, source.failed
    assert not source.errors, f"cells of the instructors' version fail: {source.errors}"
    assert blank.score == 0, f"a blank notebook earns {blank.score}: {set(blank.failed)}"
    assert wrong.failed == mistake.fails, (
        f"the mistake should fail {sorted(mistake.fails)}, it fails {sorted(wrong.failed)}"
    )
    assert wrong.score < full
    # every cell the mistake breaks, a check or a plot or control that uses the answer, fails
    # by its own assertion with a message in words, not by NumPy's error or a bare assert
    unexplained = [(cell, error, message) for cell, error, message in wrong.errors
                   if error != "AssertionError" or not own_words(message).strip()]
    assert not unexplained, f"cells fail without saying which part is wrong: {unexplained}"
    assert (tampered.score, tampered.failed) == (wrong.score, wrong.failed)
    # the feedback shows the student why each failing check failed
    for cell, error, _ in wrong.errors:
        if cell in wrong.failed:
            assert error in wrong.feedback, f"the feedback does not show {error} of {cell}"


def course_test(mistakes):
    """The test of one chapter's exercises through nbgrader, parametrised over ``mistakes``."""
    import pytest

    @pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's gradebook
    @pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")  # restored
    @pytest.mark.parametrize("exercise", sorted(mistakes))
    def test_exercise_through_nbgrader(exercise, tmp_path, record_property):
        results = run_course(exercise, tmp_path / "course", mistakes[exercise])
        record_property("nbgrader", {s: (r.score, r.max_score) for s, r in results.items()})
        record_property("slowest_cell", max(r.slowest_cell for r in results.values()))
        check_results(results, mistakes[exercise])

    return test_exercise_through_nbgrader
