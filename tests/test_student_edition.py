"""The students' edition: every exercise follows the grading conventions and leaks nothing.

What the students see (the released notebooks and the students' website pages) is searched for
every run of the solution (derivation and answer code) of at least ``LEAK_RUN`` tokens; the same
search run on the instructors' version must find runs, so the search can fail. Whether the
checks pass with the answers and fail without them is tested through nbgrader
(``test_course_prml06.py``, ``test_course_prml07.py``).
"""

import re
from pathlib import Path, PurePosixPath

import nbformat
import pytest
import yaml
from nbgrader_course import load_tool

ROOT = Path(__file__).resolve().parents[1]
exercises = load_tool("exercises")
plain_myst = load_tool("plain_myst")
EXERCISES = exercises.exercise_sources()
student_edition = load_tool("student_edition")
notebooks = load_tool("notebooks")

#: Phrases that point at something only the solution holds.
STRIPPED_REFERENCES = re.compile(
    r"\\ast\b|\(\*\)|\bthe (?:solution|derivation)\b|\bderived (?:above|below)\b", re.I
)


@pytest.fixture(params=EXERCISES, ids=lambda path: path.stem)
def exercise(request):
    return request.param


def test_every_exercise_declares_its_grading(exercise):
    cells = exercises.read_exercise(exercise)  # raises on a broken convention
    kinds = [cell.kind for cell in cells]
    assert kinds.count("derivation") == 1 and "answer" in kinds and "check" in kinds
    assert all(cell.points > 0 for cell in cells if cell.kind in ("check", "derivation"))
    statement = next(cell for cell in cells if cell.grade_id == "exercise")
    assert re.match(r"### PRML Exercise \d\.\d+ \(★+\)\n", statement.source), statement.source


def test_students_see_no_solution(exercise):
    cells = exercises.read_exercise(exercise)
    released = [exercises.release_source(cell) for cell in cells]
    website = student_edition.strip_solutions(exercise.read_text(encoding="utf-8"))
    assert exercises.find_leaks(cells, released) == []
    assert exercises.find_leaks(cells, [website]) == []
    # the same search finds the solution in the instructors' version
    assert exercises.find_leaks(cells, [cell.source for cell in cells])
    assert exercises.find_leaks(cells, [exercise.read_text(encoding="utf-8")])


def test_students_text_points_at_nothing_stripped(exercise):
    cells = exercises.read_exercise(exercise)
    written_here = ("derivation-prompt", "marks")  # by tools/exercises.py, not the author
    visible = [
        c.source for c in cells if c.kind in ("text", "code", "check") and c.grade_id not in (
            written_here
        )
    ]
    found = [match for text in visible for match in STRIPPED_REFERENCES.findall(text)]
    assert not found, f"text outside the solution refers to it: {found}"


def test_students_notebooks_are_plain_markdown(exercise):
    notebook = exercises.to_notebook(exercises.read_exercise(exercise), release=True)
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            assert not plain_myst.myst_constructs(cell.source), cell.source
            assert "BEGIN SOLUTION" not in cell.source
        else:
            assert "BEGIN SOLUTION" not in cell.source
    derivation = [
        c.source for c in notebook.cells
        if c.metadata.get("nbgrader", {}).get("grade_id") == "derivation"
    ]
    assert derivation == [exercises.TEXT_STUB]


def test_read_exercise_on_a_small_example(tmp_path):
    source = tmp_path / "ex-0-01.md"
    source.write_text(
        "# Exercise 0.1\n\n```{exercise} PRML Exercise 0.1 (★)\n:label: e\nShow it, as in "
        "{cite}`rahimi2007random`.\n```\n\n+++ {\"points\": 3}\n\n````{solution} e\n:class: "
        "dropdown\nThe derivation.\n````\n\n+++\n\n```{code-cell} ipython3\nx = 2\n```\n\n"
        "```{code-cell} ipython3\ndef f(x):\n    # BEGIN SOLUTION\n    return 2 * x\n"
        "    # END SOLUTION\n```\n\n```{code-cell} ipython3\n:points: 2\n\nassert f(x) == 4\n```\n",
        encoding="utf-8",
    )
    cells = exercises.read_exercise(source)
    assert [c.kind for c in cells] == [
        "text", "text", "text", "text", "derivation", "code", "answer", "check"
    ]
    assert cells[1].source == (
        "### PRML Exercise 0.1 (★)\n\nShow it, as in (Rahimi and Recht, 2007).")
    assert "3 points" in cells[2].source and "2 points" in cells[2].source
    assert cells[4].points == 3 and cells[7].points == 2
    assert cells[7].source.startswith("# Check 1 of 1: 2 points\n")
    assert exercises.release_source(cells[6]) == (
        "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()"
    )
    assert exercises.release_source(cells[4]) == exercises.TEXT_STUB
    # a check that sits after a locked code cell cannot be restored by nbgrader: refused
    text = source.read_text(encoding="utf-8")
    source.write_text(text + "\n```{code-cell} ipython3\ny = 1\n```\n\n" + text[text.rindex(
        "```{code-cell} ipython3\n:points"):], encoding="utf-8")
    with pytest.raises(exercises.ExerciseFormatError, match="between the first answer"):
        exercises.read_exercise(source)
    source.write_text(text.replace('+++ {"points": 3}', "+++"), encoding="utf-8")
    with pytest.raises(exercises.ExerciseFormatError, match="declares its marks"):
        exercises.read_exercise(source)


def test_strip_solutions_on_a_small_example():
    text = (
        "```{exercise}\n:label: e\nShow it.\n```\n\n+++ {\"points\": 2}\n\n"
        "````{solution} e\n:class: dropdown\nThe derivation.\n```python\nx = 1\n```\n````\n\n"
        "+++\n\nCheck text.\n\n```{code-cell} ipython3\ndef f(x):\n    # BEGIN SOLUTION\n"
        "    return 2 * x\n    # END SOLUTION\n```\n\n```{code-cell} ipython3\n:points: 1\n\n"
        "assert f(2) == 4\n```\n"
    )
    student = student_edition.strip_solutions(text)
    assert "derivation" not in student and "2 * x" not in student and "+++" not in student
    assert "Show it." in student and "Check text." in student and "assert f(2) == 4" in student
    assert "    raise NotImplementedError()\n" in student
    with pytest.raises(ValueError, match="never closed"):
        student_edition.strip_solutions("```{solution} e\nopen\n")
    with pytest.raises(ValueError, match="no '# END SOLUTION'"):
        student_edition.strip_solutions("# BEGIN SOLUTION\nx = 1\n")


def test_student_edition_writes_a_notebook_per_exercise(tmp_path):
    written = notebooks.write_exercises(ROOT, tmp_path)
    assert len(written) == len(EXERCISES)
    for path in written:
        notebook = nbformat.read(path, as_version=4)
        assert notebook.cells[0].cell_type == "markdown"
        assert all("BEGIN SOLUTION" not in cell.source for cell in notebook.cells)


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
    # every page of the table of contents is there, the chapters' lists of exercises included
    toc = yaml.safe_load((site / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]
    entries = [entry for part in toc["parts"] for entry in part["chapters"]]
    while entries:
        entry = entries.pop()
        files.append(entry["file"])
        entries += entry.get("sections", [])
    missing = [f for f in files if not (site / f"{f}.md").exists()]
    assert not missing, f"pages of the table of contents missing from the site: {missing}"


def test_every_exercise_has_a_wrong_answer_in_the_course_tests():
    from test_course_prml06 import MISTAKES as chapter_6
    from test_course_prml07 import MISTAKES as chapter_7

    assert sorted({**chapter_6, **chapter_7}) == [path.stem for path in EXERCISES]
