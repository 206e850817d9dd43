"""Collect the book's MyST notebooks (jupytext ``.md`` files) as nbval notebooks.

nbval only reads ``.ipynb``. Rather than writing converted copies (which would run in the wrong
folder and litter the tree), the collector below lets nbval read each ``.md`` through jupytext in
memory. The kernel then runs in the notebook's own folder and test ids name the ``.md`` file.
"""

from pathlib import Path
from unittest import mock

import jupytext
import nbformat
import nbval.kernel
from nbval.plugin import IPyNbFile

#: Kernel start attempts. With tests on every core, kernels start side by side, and now and then
#: one dies before answering (jupyter_client picks its ports per process, so two processes can
#: pick the same free port). A new kernel is what a person would try; a real fault fails 3 times.
KERNEL_START_ATTEMPTS = 3


def start_kernel_with_retries(*args, _start=nbval.kernel.start_new_kernel, **kwargs):
    """nbval's ``start_new_kernel``, tried again when the kernel dies while starting."""
    for attempt in range(1, KERNEL_START_ATTEMPTS + 1):
        try:
            return _start(*args, **kwargs)
        except RuntimeError:
            if attempt == KERNEL_START_ATTEMPTS:
                raise


nbval.kernel.start_new_kernel = start_kernel_with_retries


def is_jupytext_notebook(path):
    """True for a ``.md`` file whose front matter declares jupytext and a kernel."""
    path = Path(path)
    if path.suffix != ".md":
        return False
    head = path.read_text(encoding="utf-8")[:4096]
    if not head.startswith("---"):
        return False
    front_matter = head.split("\n---", 1)[0]
    return "jupytext:" in front_matter and "kernelspec:" in front_matter


class MystNotebook(IPyNbFile):
    """An nbval notebook item read from jupytext MyST markdown."""

    def collect(self):
        source = str(self.fspath)
        real_read = nbformat.read

        def read(path, as_version=4, **kwargs):
            if str(path) == source:
                return jupytext.read(source)
            return real_read(path, as_version=as_version, **kwargs)

        with mock.patch.object(nbformat, "read", read):
            yield from super().collect()


def pytest_collect_file(file_path, parent):
    options = parent.config.option
    wants_notebooks = getattr(options, "nbval", False) or getattr(options, "nbval_lax", False)
    if wants_notebooks and is_jupytext_notebook(file_path):
        return MystNotebook.from_parent(parent, path=file_path)


def pytest_terminal_summary(terminalreporter):
    """Print the marks nbgrader gave each exercise's submissions (tests/nbgrader_course.py)."""
    rows = []
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            properties = dict(getattr(report, "user_properties", []))
            if "nbgrader" in properties:
                exercise = report.nodeid.rsplit("[", 1)[-1].rstrip("]")
                rows.append((exercise, properties, outcome))
    if not rows:
        return
    terminalreporter.section("autograded marks from nbgrader (score/full)")
    terminalreporter.write_line(
        f"{'exercise':10s} {'source':>8s} {'blank':>8s} {'wrong':>8s} {'tampered':>9s} "
        f"{'slowest cell':>13s}"
    )
    for exercise, properties, outcome in sorted(rows):
        scores = properties["nbgrader"]
        marks = [f"{scores[s][0]:g}/{scores[s][1]:g}" for s in ("source", "blank", "wrong")]
        tampered = f"{scores['tampered'][0]:g}/{scores['tampered'][1]:g}"
        slowest = f"{properties['slowest_cell']:.1f} s"
        flag = "" if outcome == "passed" else "  FAILED"
        terminalreporter.write_line(
            f"{exercise:10s} {marks[0]:>8s} {marks[1]:>8s} {marks[2]:>8s} {tampered:>9s} "
            f"{slowest:>13s}{flag}"
        )
