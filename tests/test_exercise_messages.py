"""Every failing check tells the student what is wrong: no bare assertion, every NumPy test
labelled.

A check cell's ``assert`` carries a message, and each ``np.testing.assert_*`` call an
``err_msg`` naming what it compares (with the student's value first: NumPy prints it as
ACTUAL, the reference as DESIRED, as the students' guide says).
"""

import ast

import pytest
from nbgrader_course import load_tool

exercises = load_tool("exercises")
SOURCES = list(exercises.exercise_sources())


def unlabelled(source):
    """The lines of the checks in ``source`` that would fail without a message."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert) and node.msg is None:
            lines.append(ast.unparse(node)[:80])
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr.startswith("assert_")
              and not any(keyword.arg == "err_msg" for keyword in node.keywords)):
            lines.append(ast.unparse(node)[:80])
    return lines


def test_the_search_finds_unlabelled_checks():
    source = ("assert x > 0\nassert y, 'y must be set'\nnp.testing.assert_allclose(a, b)\n"
              "np.testing.assert_allclose(a, b, err_msg='the mean')\n")
    assert unlabelled(source) == ["assert x > 0", "np.testing.assert_allclose(a, b)"]


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.stem)
def test_every_check_explains_its_failure(path):
    problems = [f"{cell.grade_id}: {line}" for cell in exercises.read_exercise(path)
                if cell.kind == "check" for line in unlabelled(cell.source)]
    assert not problems, "\n".join(problems)
