"""The students' kmlib wheel works outside the repository, in a fresh virtual environment.

The wheel (built as ``make student`` builds it) is installed with ``pip --no-index`` into a new
virtual environment that sees only what the students' guide installs (``tests/students_env.py``:
the wheel's dependencies, matplotlib and a kernel, borrowed from the project's environment, since
nothing may be downloaded in a test). kmlib itself can only come from the wheel, and everything
runs outside the repository. A students' notebook (an exercise with its answers filled in, as a
student would submit it) then runs on that environment's Python.
"""

import subprocess

import nbformat
from nbgrader_course import load_tool
from students_env import students_environment

exercises = load_tool("exercises")
student_edition = load_tool("student_edition")

NOTEBOOK_RUNNER = """
import sys
import nbformat
from nbclient import NotebookClient
notebook = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
nbformat.write(notebook, sys.argv[1])
"""


def test_wheel_installs_and_runs_a_students_notebook(tmp_path):
    wheel = student_edition.build_wheel(tmp_path / "dist")
    python = students_environment(tmp_path, wheel)  # pip resolved the dependencies, no index
    environment = python.parent.parent
    where = subprocess.run(
        [python, "-c", "import kmlib, kmlib.datasets as d; print(kmlib.__file__); "
         "print(d.boston_housing()[0].shape); import matplotlib.pyplot as plt; "
         "plt.style.use('kmlib.book'); print(plt.rcParams['legend.fontsize'])"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert where.returncode == 0, where.stderr
    location, shape, legend_size = where.stdout.split("\n")[:3]
    assert location.startswith(str(environment)), location  # the wheel's kmlib, not the repo's
    assert shape == "(506, 13)"  # the data files travel in the wheel
    assert legend_size == "10.0"  # and so does the book's figure style

    source = exercises.read_exercise(exercises.ROOT / "exercises" / "prml07" / "ex-7-11.md")
    notebook = tmp_path / "ex-7-11.ipynb"
    submission = exercises.to_notebook(source)
    submission.cells.append(
        nbformat.v4.new_code_cell("import sys, kmlib\nprint(sys.executable)\nprint(kmlib.__file__)")
    )
    nbformat.write(submission, notebook)
    run = subprocess.run(
        [python, "-c", NOTEBOOK_RUNNER, notebook], capture_output=True, text=True, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr[-3000:]
    executed = nbformat.read(notebook, as_version=4)
    errors = [o for c in executed.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors and sum(c.cell_type == "code" for c in executed.cells) >= 3
    kernel_python, kernel_kmlib = executed.cells[-1].outputs[0]["text"].split()
    assert kernel_python == str(python) and kernel_kmlib.startswith(str(environment))
