"""The sandboxed grading of an nbgrader notebook: for ``nbgrader autograde`` and ``tools/grade.py``.

:func:`roles` reads each code cell's part from its nbgrader metadata (a cell without any, which
a student added, is the student's code too); :func:`grade_notebook` runs the notebook through
:func:`grading.checks.run_checker` and writes each cell's outputs into it, as a kernel would, so
that what nbgrader records, ``SaveAutoGrades`` reading the outputs of the check cells, is the
checker's verdict. :class:`SandboxedExecute` is the nbgrader preprocessor that replaces
nbgrader's ``Execute`` in the course that ``tools/course.py`` writes.
"""

from __future__ import annotations

import csv
from pathlib import Path

import nbformat
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer

from grading import checks, sandbox


def csv_safe(value):
    """``value`` as CSV text that no spreadsheet runs as a formula (a student's folder named
    ``=HYPERLINK(...)``): a leading ``=``, ``+``, ``-``, ``@``, tab or carriage return is
    escaped with an apostrophe, as OWASP recommends."""
    text = "" if value is None else str(value)
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def roles(notebook):
    """The part each code cell plays: ``setup``, ``answer``, ``check`` or ``after``."""
    parts, answered = [], False
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            parts.append("check")
        elif meta.get("locked") and not meta.get("solution"):
            parts.append("after" if answered else "setup")
        else:  # an answer, or a cell the student added: the student's code
            answered = True
            parts.append("answer")
    return parts


def grade_notebook(notebook, timeout=checks.TIMEOUT, limits=None):
    """Run ``notebook`` (answers in the sandbox, checks outside it) and write the outputs of
    every code cell into it; return the incidents."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    report = checks.run_checker(
        [{"role": role, "source": cell.source} for role, cell in zip(roles(notebook), code)],
        timeout, limits)
    for number, (cell, result) in enumerate(zip(code, report["results"]), start=1):
        for output in result["outputs"]:
            if output["output_type"] == "execute_result":
                output["execution_count"] = number
        cell.outputs = [nbformat.from_dict(output) for output in result["outputs"]]
        cell.execution_count = number
        if "started" in result:  # the timing Jupyter records, under its own keys
            cell.metadata["execution"] = {"iopub.execute_input": result["started"],
                                          "shell.execute_reply": result["finished"]}
    return report["incidents"]


class SandboxedExecute(NbGraderPreprocessor):
    """nbgrader's ``Execute``, with the student's code in a sandbox and the checks outside it.

    Incidents (the student's process ended or timed out, code that deserves a look) go to the
    log and to ``sandbox-incidents.csv`` in the course folder.
    """

    timeout = Integer(checks.TIMEOUT, help="Seconds an answer cell, or one call into the "
                      "student's code from a check, may take.").tag(config=True)
    memory = Integer(sandbox.MEMORY, help="Bytes of address space of the student's process."
                     ).tag(config=True)
    cpu_seconds = Integer(sandbox.CPU_SECONDS, help="CPU seconds of the student's process."
                          ).tag(config=True)

    def preprocess(self, nb, resources):
        incidents = grade_notebook(nb, self.timeout, sandbox.limits(self.memory, self.cpu_seconds))
        info = resources.get("nbgrader", {})
        for incident in incidents:
            self.log.warning("%s, %s: %s", info.get("student"), info.get("notebook"), incident)
        if incidents:
            report = Path(CourseDirectory(config=self.config).root) / "sandbox-incidents.csv"
            new = not report.exists()
            with report.open("a", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                if new:
                    writer.writerow(["student", "assignment", "notebook", "incident"])
                for incident in incidents:
                    writer.writerow([csv_safe(value) for value in (
                        info.get("student"), info.get("assignment"), info.get("notebook"),
                        incident)])
        return nb, resources
