"""The pieces of the sandboxed grading (``tools/grading``): what crosses the boundary, which
names an answer may bring in, and the sandbox's walls, each tried directly."""

import io
import json
import sys

import numpy as np
import pytest
from nbgrader_course import ROOT

sys.path.insert(0, str(ROOT / "tools"))
from grading import autograde, checks, protocol, review  # noqa: E402

from kmlib.kernels import RBF, Linear  # noqa: E402


def no_references(kind, payload):
    raise AssertionError(f"unexpected {kind} {payload}")


def test_plain_data_crosses_and_comes_back_equal():
    value = {"a": [1, 2.5, None, True, "x", (3, 4j)], 5: np.arange(6).reshape(2, 3),
             "s": np.float32(1.5), "set": frozenset({1, 2}), "big": 2**80, "inf": float("inf")}
    data = json.loads(json.dumps(protocol.encode(value, no_references)))
    back = protocol.decode(data, no_references)
    assert back.keys() == value.keys() and back["a"] == value["a"] and back["big"] == 2**80
    np.testing.assert_array_equal(back[5], value[5])
    assert back["s"].dtype == np.float32 and back["set"] == frozenset({1, 2})


def test_a_kmlib_kernel_crosses_as_its_class_and_parameters():
    kernel = Linear(variance=0.5) + RBF(lengthscale=2.0)
    back = protocol.decode(protocol.encode(kernel, no_references), no_references)
    x = np.linspace(0, 1, 5)[:, None]
    np.testing.assert_array_equal(back(x), kernel(x))


def test_code_never_crosses():
    kept = []

    def keep(obj):
        kept.append(obj)
        return len(kept) - 1

    data = protocol.encode([lambda x: x, np.array([object()], dtype=object)], keep)
    assert [item.get("ref") for item in data["list"]] == [0, 1]  # both stayed behind
    with pytest.raises(protocol.ProtocolError):  # a class outside kmlib and scikit-learn
        protocol.decode({"object": "os.system", "params": {"dict": []}}, no_references)
    pickled = io.BytesIO()
    np.save(pickled, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    import base64
    with pytest.raises(ValueError):  # np.load refuses pickled arrays
        protocol.decode({"ndarray": base64.b64encode(pickled.getvalue()).decode()}, no_references)


def test_names_an_answer_may_bring_in():
    assert review.bound_names("def f(x):\n    y = 1\nA, (b, c) = 1, (2, 3)\nimport numpy.linalg\n"
                              "for i in range(3): pass") == {"f", "A", "b", "c", "numpy", "i"}
    # a check's own result is protected; a name a check reads first is the student's
    owned = review.check_owned(["A = np.asarray(A)\nw_ref = 2 * A", "print(w_ref, q)"])
    assert owned == {"w_ref"}


def test_suspicious_code_is_named():
    assert review.suspicious("np.testing.assert_allclose = lambda *a: None") == [
        "replaces a library function"]
    assert review.suspicious("import sys\nsys.settrace(f)")[0] == "traces or profiles execution"
    assert review.suspicious("def f(x):\n    return x @ x.T") == []


def test_spreadsheet_formulas_are_escaped():
    assert [autograde.csv_safe(v) for v in ("=SUM(A1)", "+1", "-2", "@x", "ann", None, 3)] == [
        "'=SUM(A1)", "'+1", "'-2", "'@x", "ann", "", "3"]


def test_the_sandbox_walls():
    """From inside: no course files, no network, no grader processes, its own user, limits."""
    probe = (
        "import os, socket, resource\n"
        f"print(os.path.exists({str(ROOT / 'exercises')!r}), os.path.exists('/work/main/tools'))\n"
        "print(os.getuid() != 0, sum(name.isdigit() for name in os.listdir('/proc')) <= 3)\n"
        "print(resource.getrlimit(resource.RLIMIT_NPROC)[0])\n"
        "try:\n    socket.create_connection(('192.0.2.1', 80), timeout=1)\n"
        "except OSError as error:\n    print('no network:', error.strerror)\n"
        "try:\n    open('/work/main/kmlib/evil.py', 'w')\nexcept OSError:\n    print('read-only')\n"
    )
    report = checks.grade([{"role": "answer", "source": probe}])
    text = report["results"][0]["outputs"][0]["text"].split("\n")
    assert text[:3] == ["False False", "True True", "64"], text
    assert text[3] == "no network: Network is unreachable" and text[4] == "read-only", text


def test_a_check_uses_a_students_function_through_a_reference():
    report = checks.grade([
        {"role": "setup", "source": "import numpy as np"},
        {"role": "answer", "source": "def square(x):\n    return x * x\nclass Box:\n"
                                     "    size = 3\nbox = Box()"},
        {"role": "check", "source": "assert square(np.arange(3)).tolist() == [0, 1, 4]\n"
                                    "assert square.__name__ == 'square' and box.size == 3\n"
                                    "assert not hasattr(square, '__array_interface__')"},
    ])
    assert [result["failed"] for result in report["results"]] == [False] * 3, report


def test_a_graded_notebook_is_a_valid_notebook():
    """Outputs as a kernel gives them: an answer that ends with an expression shows its value,
    numbered, and the notebook validates (nbgrader refuses one that does not)."""
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("x = 2", metadata={"nbgrader": {
            "locked": True, "solution": False, "grade": False, "grade_id": "setup"}}),
        nbformat.v4.new_code_cell("y = x + 1\ny", metadata={"nbgrader": {
            "locked": False, "solution": True, "grade": False, "grade_id": "answer-1"}}),
        nbformat.v4.new_code_cell("assert y == 3, y", metadata={"nbgrader": {
            "locked": True, "solution": False, "grade": True, "grade_id": "check-1",
            "points": 1}}),
    ])
    assert autograde.grade_notebook(notebook) == []
    nbformat.validate(notebook)
    answer, check = notebook.cells[1], notebook.cells[2]
    assert answer.outputs[0]["data"]["text/plain"] == "3"
    assert answer.outputs[0]["execution_count"] == 2
    assert check.outputs == [] and check.execution_count == 3
