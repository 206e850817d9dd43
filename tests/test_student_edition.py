"""The students' edition: every exercise passes as written and fails once its answer is removed.

For each exercise notebook three versions are executed:

1. the instructors' version (the file itself) must run cleanly;
2. the students' version (answers replaced by ``raise NotImplementedError``) must fail;
3. the answers replaced by nothing at all (``pass``) must fail *in a check cell*, one that holds an
   ``assert``: this proves that the checks themselves notice a missing answer, so none is vacuous.
"""

import importlib.util
from pathlib import Path, PurePosixPath

import jupytext
import pytest
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = sorted((ROOT / "exercises").rglob("ex-*.md"))

spec = importlib.util.spec_from_file_location("student_edition", ROOT / "tools/student_edition.py")
student_edition = importlib.util.module_from_spec(spec)
spec.loader.exec_module(student_edition)


def execute(text, folder, kernel_start_attempts=3):
    """Run a MyST notebook; return None on success or ``(cell source, error)`` of the failure.

    A kernel that dies before it answers is replaced, up to ``kernel_start_attempts`` times: with
    tests on every core, kernels start side by side and now and then two pick the same port.
    """
    for attempt in range(1, kernel_start_attempts + 1):
        notebook = jupytext.reads(text, fmt="md:myst")
        client = NotebookClient(
            notebook,
            timeout=300,
            kernel_name="python3",
            resources={"metadata": {"path": str(folder)}},
        )
        failed = None
        try:
            client.execute()
        except CellExecutionError as error:
            failed = error
        except RuntimeError as error:
            if "before replying to kernel_info" in str(error) and attempt < kernel_start_attempts:
                continue
            raise
        break
    # an error output also counts when the cell itself succeeded (a figure that failed to draw)
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                return cell.source, f"{output['ename']}: {output['evalue']}"
    if failed is not None:
        raise failed  # a failure that left no error output is not one we can attribute
    return None


@pytest.fixture(params=EXERCISES, ids=lambda path: path.stem)
def exercise(request):
    return request.param


def test_every_exercise_marks_its_answers(exercise):
    text = exercise.read_text(encoding="utf-8")
    assert "{solution}" in text, "the derivation belongs in a {solution} directive"
    assert "# BEGIN SOLUTION" in text, "answer code belongs between BEGIN/END SOLUTION markers"
    assert "{exercise}" in text
    student = student_edition.strip_solutions(text)
    assert "{solution}" not in student and "BEGIN SOLUTION" not in student


def test_instructor_version_passes(exercise):
    failure = execute(exercise.read_text(encoding="utf-8"), exercise.parent)
    assert failure is None, "the instructors' version fails with {1} in\n{0}".format(*failure)


def test_student_version_fails(exercise):
    student = student_edition.strip_solutions(exercise.read_text(encoding="utf-8"))
    failure = execute(student, exercise.parent)
    assert failure is not None, "the students' version ran without its answers"


def test_checks_notice_a_missing_answer(exercise):
    blank = student_edition.strip_solutions(exercise.read_text(encoding="utf-8"), ["pass"])
    failure = execute(blank, exercise.parent)
    assert failure is not None, "the checks pass with the answers removed: they are vacuous"
    source, error = failure
    assert "assert" in source, f"the notebook failed outside a check cell ({error}):\n{source}"


def test_strip_solutions_on_a_small_example():
    text = (
        "```{exercise}\n:label: e\nShow it.\n```\n\n"
        "````{solution} e\n:class: dropdown\nThe derivation.\n```python\nx = 1\n```\n````\n\n"
        "```{code-cell} ipython3\ndef f(x):\n    # BEGIN SOLUTION\n    return 2 * x\n"
        "    # END SOLUTION\n\nassert f(2) == 4\n```\n"
    )
    student = student_edition.strip_solutions(text)
    assert "derivation" not in student and "2 * x" not in student
    assert "Show it." in student and "assert f(2) == 4" in student
    assert '    raise NotImplementedError("write your solution here")\n' in student
    with pytest.raises(ValueError, match="never closed"):
        student_edition.strip_solutions("```{solution} e\nopen\n")
    with pytest.raises(ValueError, match="no '# END SOLUTION'"):
        student_edition.strip_solutions("# BEGIN SOLUTION\nx = 1\n")


def test_student_edition_writes_markdown_and_notebooks(tmp_path):
    written = student_edition.write_student_edition(ROOT / "exercises", tmp_path)
    assert len(written) == len(EXERCISES)
    for path in written:
        assert path.with_suffix(".ipynb").is_file()
        assert "BEGIN SOLUTION" not in path.read_text(encoding="utf-8")


def test_grading_counts_the_checks_that_pass(tmp_path):
    grade_spec = importlib.util.spec_from_file_location("grade", ROOT / "tools/grade.py")
    grading = importlib.util.module_from_spec(grade_spec)
    grade_spec.loader.exec_module(grading)
    source = ROOT / "exercises" / "prml06" / "ex-6-01.md"
    full = grading.grade(source)
    assert full.total >= 1 and full.passed == full.total and not full.failures
    student = tmp_path / source.name
    student.write_text(student_edition.strip_solutions(source.read_text(encoding="utf-8")))
    stripped = grading.grade(student)
    assert stripped.total == full.total  # the checks are all still there
    assert stripped.passed < stripped.total
    assert all(":" in error for _, error in stripped.failures)


def test_student_site_source_is_the_book_with_the_exercises_stripped(tmp_path):
    site = student_edition.write_student_site(ROOT, tmp_path / "site")
    assert (site / "_toc.yml").read_text() == (ROOT / "_toc.yml").read_text()
    config = yaml.safe_load((site / "_config.yml").read_text(encoding="utf-8"))
    # myst-nb matches the patterns from the right of each notebook's absolute path
    (pattern,) = config["execute"]["exclude_patterns"]
    assert all(PurePosixPath(page.resolve()).match(pattern) for page in site.rglob("ex-*.md"))
    assert not any(PurePosixPath(page.resolve()).match(pattern) for page in site.rglob("7-*.md"))
    assert Path(config["execute"]["cache"]).is_absolute()
    assert config["html"]["announcement"] == student_edition.ANNOUNCEMENT
    pages = sorted((site / "exercises").rglob("ex-*.md"))
    assert len(pages) == len(EXERCISES)
    assert not list((site / "exercises").rglob("*.ipynb"))  # one source per page
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "{solution}" not in text and "BEGIN SOLUTION" not in text
    chapter = "chapters/prml07/7-2-2-analysis-of-sparsity.md"
    assert (site / chapter).read_text() == (ROOT / chapter).read_text()
