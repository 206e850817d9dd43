"""Write the exercises as an nbgrader course.

Usage::

    python tools/course.py [--out _build/course] [--problem-sets FILE]

writes ``nbgrader_config.py``, ``grading/`` (the sandboxed autograding that the configuration
puts in place of nbgrader's own execution) and ``source/<assignment>/<exercise>.ipynb`` under
``--out``. By
default every exercise is an assignment of its own, named after its file (``ex-6-21``). A
problem-sets file groups exercises into assignments instead; it is YAML, one assignment per key::

    week-3: [ex-6-01, ex-6-02, ex-6-10]
    week-4: [ex-6-21]

Every notebook is written from the exercise's MyST source by ``tools/exercises.py``: the
statement in plain Markdown, answer cells, the derivation as a manually graded answer, checks as
autograded tests with the points the source declares, and every other cell locked. Nothing is
edited by hand. In the course folder, ``nbgrader generate_assignment ASSIGNMENT`` then writes the
students' version to ``release/``.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
from pathlib import Path

import nbformat
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercises  # noqa: E402  (a sibling script, not a package)

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = {path.stem: path for path in exercises.exercise_sources()}
GRADING = ROOT / "tools" / "grading"  # the sandboxed grading, copied into the course

#: The course's nbgrader configuration; every setting says why it is there.
CONFIG = '''\
"""nbgrader configuration of the kernel-methods exercises (written by tools/course.py)."""

c = get_config()  # noqa: F821 (nbgrader provides get_config)

c.CourseDirectory.course_id = "kernel-methods"

# A student who deletes a check cell gets it back: nbgrader restores it from the gradebook, so
# deleting a check cannot raise a grade (editing one cannot either: locked cells are checked
# against their checksums and restored).
c.OverwriteCells.add_missing_cells = True

# Student code never runs in nbgrader's process or kernel. The course's `grading/` package
# (copied from the kmlib repository's tools/) replaces nbgrader's Execute: the student's cells
# run in a bubblewrap sandbox (no course files, no network, its own processes, limits), the
# checks in a clean process of their own, and each check cell's outputs, which nbgrader's
# SaveAutoGrades turns into marks, are the checker's verdict. Incidents (a sandbox that died or
# timed out, suspicious code) go to the log and to sandbox-incidents.csv.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grading.autograde import SandboxedExecute  # noqa: E402
from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import (  # noqa: E402
    AssignLatePenalties, CheckCellMetadata, IgnorePattern, LimitOutput, SaveAutoGrades)

c.Autograde.autograde_preprocessors = [
    SandboxedExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
    AssignLatePenalties, CheckCellMetadata,
]
# An answer cell, or one call of the student's code from a check, may take 30 s (nbgrader's
# own default cell timeout): the slowest cell of any exercise takes a few seconds on a 2-core
# laptop.
c.SandboxedExecute.timeout = 30

# Feedback pages typeset their mathematics offline: a MathJax 3 copy is written into the page
# itself (feedback-templates/feedback/mathjax.html.j2 replaces nbconvert's macro, which loads
# MathJax 2 from a CDN), so a student reads it anywhere, with no network.
import nbgrader  # noqa: E402

c.HTMLExporter.extra_template_basedirs = [
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "feedback-templates"),
    os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader",
                 "templates"),
]
'''


#: MathJax 3 with every TeX extension (nothing to fetch later) and SVG output (no font files),
#: from the package the website uses offline.
MATHJAX = Path(importlib.util.find_spec("sphinx-mathjax-offline").origin).parent / (
    "static/mathjax/tex-svg-full.js")
#: nbconvert's ``mathjax`` macro, replaced for the feedback pages: MathJax 3 configured for the
#: delimiters Jupyter uses, its code inline (between raw tags, so Jinja leaves it alone).
MATHJAX_MACRO = """{%- macro mathjax(url=None) -%}
<script>
window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']],
                        displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']],
                        processEscapes: true, processEnvironments: true, tags: 'ams'},
                  svg: {fontCache: 'global'}};
</script>
<script>{% raw %}MATHJAX_SOURCE{% endraw %}</script>
{%- endmacro %}
"""


def read_problem_sets(path):
    """Read a problem-sets file: a mapping from assignment name to a list of exercise names.

    Parameters
    ----------
    path : path or None
        YAML file; None gives one assignment per exercise.

    Returns
    -------
    dict of str to list of str
    """
    if path is None:
        return {name: [name] for name in EXERCISES}
    if not Path(path).is_file():
        raise SystemExit(f"{path}: no such problem-sets file")
    sets = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(sets, dict) or not sets:
        raise SystemExit(f"{path}: expected a mapping 'assignment: [exercise, ...]'")
    for assignment, names in sets.items():
        if not isinstance(names, list) or not names:
            raise SystemExit(f"{path}: assignment {assignment!r} needs a list of exercises")
        unknown = [name for name in names if name not in EXERCISES]
        if unknown:
            raise SystemExit(
                f"{path}: assignment {assignment!r} names unknown exercise(s) {unknown}; "
                f"they are named like {next(iter(EXERCISES))} (see exercises/)"
            )
    return {str(assignment): names for assignment, names in sets.items()}


def write_course(output, problem_sets=None):
    """Write the nbgrader course folder.

    Parameters
    ----------
    output : path
        The course folder; its ``source/`` is replaced, other folders (``release/``,
        ``submitted/``, the gradebook) are kept.
    problem_sets : dict of str to list of str, optional
        Assignment name to exercise names; default one assignment per exercise.

    Returns
    -------
    list of Path
        The notebooks written.
    """
    output = Path(output)
    problem_sets = problem_sets or read_problem_sets(None)
    if (output / "source").exists():
        shutil.rmtree(output / "source")
    output.mkdir(parents=True, exist_ok=True)
    (output / "nbgrader_config.py").write_text(CONFIG, encoding="utf-8")
    grading = output / "grading"
    if grading.exists():
        shutil.rmtree(grading)
    shutil.copytree(GRADING, grading, ignore=shutil.ignore_patterns("__pycache__"))
    macro = output / "feedback-templates" / "feedback" / "mathjax.html.j2"
    macro.parent.mkdir(parents=True, exist_ok=True)
    macro.write_text(MATHJAX_MACRO.replace("MATHJAX_SOURCE", MATHJAX.read_text(encoding="utf-8")),
                     encoding="utf-8")
    written = []
    for assignment, names in problem_sets.items():
        for name in names:
            notebook = exercises.to_notebook(exercises.read_exercise(EXERCISES[name]))
            target = output / "source" / assignment / f"{name}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(notebook, target)
            written.append(target)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="_build/course", help="course folder (default: %(default)s)")
    parser.add_argument(
        "--problem-sets", metavar="FILE", help="YAML file grouping exercises into assignments"
    )
    args = parser.parse_args(argv)
    written = write_course(args.out, read_problem_sets(args.problem_sets))
    assignments = {path.parent.name for path in written}
    print(f"wrote {len(written)} notebooks in {len(assignments)} assignments to {args.out}/source")
    print(f"next: cd {args.out} && nbgrader generate_assignment ASSIGNMENT")


if __name__ == "__main__":
    main()
