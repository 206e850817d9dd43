"""Read an exercise notebook's MyST source into graded cells, for any Jupyter and for nbgrader.

An exercise notebook (``exercises/<chapter>/ex-*.md``, jupytext MyST markdown) declares its
grading in the source itself:

* the exercise statement sits in an ``{exercise}`` directive;
* the derivation a student writes sits in a ``{solution}`` directive, alone in a markdown cell
  that declares its marks: ``+++ {"points": 4}`` on the line before it, and ``+++`` after it;
* code that is the answer sits between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` lines (the
  markers nbgrader looks for);
* a check is a code cell that declares its marks with a ``:points: 2`` option; it must not
  contain answer code;
* every other cell (text, setup, plots, negative controls) is locked and worth nothing.

:func:`read_exercise` turns the source into a list of :class:`Cell` with those roles, every
markdown cell in plain Markdown (no MyST directives or roles: ``tools/plain_myst.py``, the
conversion the chapters' notebooks share), so the notebook reads the same in
JupyterLab, the classic Notebook, VS Code and Colab. :func:`to_notebook` writes the list as an
nbformat notebook whose cells carry nbgrader's metadata: the instructors' source version, or
with ``release=True`` the students' version (answers replaced by nbgrader's stubs).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import plain_myst  # noqa: E402  (a sibling script, not a package)

ROOT = plain_myst.ROOT

BEGIN = re.compile(r"^(?P<indent>[ \t]*)#+ BEGIN SOLUTION[ \t]*$")
END = re.compile(r"^[ \t]*#+ END SOLUTION[ \t]*$")

#: nbgrader's default stubs (``ClearSolutions.code_stub`` and ``text_stub``), used where the
#: students' version has no answer.
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"


@dataclass
class Cell:
    """One cell of an exercise notebook and its part in grading.

    ``kind`` is one of ``"text"`` (markdown, locked), ``"code"`` (setup, plot or negative
    control: locked, worth nothing), ``"answer"`` (code the student writes, between the
    solution markers), ``"check"`` (an autograded test worth ``points``), ``"derivation"``
    (markdown the student writes, graded by hand, worth ``points``).
    """

    kind: str
    source: str
    grade_id: str
    points: float = 0

    @property
    def cell_type(self):
        return "markdown" if self.kind in ("text", "derivation") else "code"


def exercise_sources(root=ROOT):
    """The exercise sources, ``exercises/<chapter>/ex-*.md``, in order (no checkpoint copies)."""
    return sorted(Path(root).joinpath("exercises").glob("*/ex-*.md"))


class ExerciseFormatError(ValueError):
    """The exercise source does not follow the conventions in this module's docstring."""


def split_directives(markdown):
    """Split a markdown cell into ``(name, argument, body)`` pieces, one per unindented directive.

    ``name`` is ``None`` for the text between them (indented directives included, as text);
    ``body`` is the directive's content without its option lines.
    """
    pieces, text = [], []

    def flush():
        if "\n".join(text).strip():
            pieces.append((None, "", "\n".join(text).strip()))
        text.clear()

    for block in plain_myst.blocks(markdown.splitlines()):
        if isinstance(block, str) or block.indent:
            text.extend([block] if isinstance(block, str) else block.lines)
            continue
        flush()
        pieces.append((block.name, block.argument, "\n".join(block.body).strip()))
    flush()
    return pieces


def _markdown_cells(cell, page, counter):
    """The graded cells of one markdown cell of the source."""
    pieces = split_directives(cell.source)
    solutions = [piece for piece in pieces if piece[0] == "solution"]
    points = cell.metadata.get("points")
    if solutions and (len(pieces) != 1 or points is None):
        raise ExerciseFormatError(
            'a {solution} must sit alone in a markdown cell that declares its marks: put '
            '+++ {"points": N} on the line before it and +++ after it'
        )
    if points is not None and not solutions:
        raise ExerciseFormatError("a markdown cell declares points but holds no {solution}")
    cells = []
    for name, argument, body in pieces:
        if name is None:
            cells.append(Cell("text", page.markdown(body), counter("text")))
        elif name == "exercise":
            title = f"### {argument}\n\n" if argument else ""
            cells.append(Cell("text", title + page.markdown(body), "exercise"))
        elif name == "solution":
            prompt = (
                f"**Your derivation** ({_points(points)}, marked by hand). Write it in the "
                "next cell, in Markdown; `$...$` and `$$...$$` give mathematics."
            )
            cells.append(Cell("text", prompt, "derivation-prompt"))
            cells.append(
                Cell("derivation", page.markdown(body), "derivation", points)
            )
        else:
            raise ExerciseFormatError(f"no plain-Markdown form for the {{{name}}} directive")
    return cells


def _points(points):
    return f"{points:g} point" + ("" if points == 1 else "s")


def read_exercise(path):
    """Read an exercise notebook into graded cells.

    Parameters
    ----------
    path : path
        The exercise's jupytext MyST source.

    Returns
    -------
    list of Cell
        In notebook order. A ``text`` cell giving the marks follows the statement.

    Raises
    ------
    ExerciseFormatError
        If the source breaks a convention of this module (see its docstring).
    """
    path = Path(path)
    notebook = jupytext.read(path, fmt="md:myst")
    page = plain_myst.Page(plain_myst.docname(path), plain_myst.the_book())
    counts = {}

    def counter(kind):
        counts[kind] = counts.get(kind, 0) + 1
        return f"{kind}-{counts[kind]}"

    cells = []
    try:
        for cell in plain_myst.shown_cells(notebook):
            if cell.cell_type == "markdown":
                cells.extend(_markdown_cells(cell, page, counter))
            else:
                cells.append(_code_cell(cell, counter))
    except (ExerciseFormatError, plain_myst.MystSyntaxError) as error:
        raise ExerciseFormatError(f"{path.name}: {error}") from None
    _check_structure(path, cells)
    _number_checks(cells)
    cells.insert(_after("exercise", cells), Cell("text", marks_line(cells), "marks"))
    return cells


def _code_cell(cell, counter):
    """The graded cell of one code cell of the source: answer, check or locked code."""
    source = cell.source
    has_answer = any(BEGIN.match(line) for line in source.splitlines())
    points = cell.metadata.get("points")
    if has_answer and points is not None:
        raise ExerciseFormatError("a check cell must not hold answer code:\n" + source)
    if has_answer:
        _check_markers(source)
        return Cell("answer", source, counter("answer"))
    if points is not None:
        return Cell("check", source, counter("check"), float(points))
    return Cell("code", source, counter("code"))


def _check_markers(source):
    inside = False
    for line in source.splitlines():
        if BEGIN.match(line):
            if inside:
                raise ExerciseFormatError("'BEGIN SOLUTION' inside a solution block")
            inside = True
        elif END.match(line):
            if not inside:
                raise ExerciseFormatError("'END SOLUTION' without 'BEGIN SOLUTION'")
            inside = False
    if inside:
        raise ExerciseFormatError("'BEGIN SOLUTION' has no 'END SOLUTION'")


def _check_structure(path, cells):
    kinds = [cell.kind for cell in cells]
    problems = []
    if not any(cell.grade_id == "exercise" for cell in cells):
        problems.append("no {exercise} directive")
    if kinds.count("derivation") != 1:
        problems.append("exactly one {solution} (the derivation) is expected")
    if "answer" not in kinds:
        problems.append("no answer code between '# BEGIN SOLUTION' and '# END SOLUTION'")
    if "check" not in kinds:
        problems.append("no check cell (a code cell with a ':points:' option)")
    elif "answer" in kinds:
        first_answer, last_check = kinds.index("answer"), len(kinds) - kinds[::-1].index("check")
        if kinds.index("check") < first_answer:
            problems.append("a check cell comes before the first answer")
        if "code" in kinds[first_answer:last_check]:
            problems.append(
                "a locked code cell sits between the first answer and the last check: put setup "
                "before the answers, negative controls and plots after the checks, or the code "
                "into the check that needs it"
            )
    if problems:
        raise ExerciseFormatError(f"{path.name}: " + "; ".join(problems))


def _number_checks(cells):
    checks = [cell for cell in cells if cell.kind == "check"]
    for number, cell in enumerate(checks, start=1):
        cell.source = f"# Check {number} of {len(checks)}: {_points(cell.points)}\n{cell.source}"


def _after(grade_id, cells):
    return next(i for i, cell in enumerate(cells) if cell.grade_id == grade_id) + 1


def marks_line(cells):
    """The sentence that tells a student how the exercise is marked."""
    derivation = sum(cell.points for cell in cells if cell.kind == "derivation")
    checks = [cell.points for cell in cells if cell.kind == "check"]
    parts = " + ".join(f"{points:g}" for points in checks)
    total = sum(checks)
    return (
        f"**Marks.** The derivation: {_points(derivation)}, marked by hand. The "
        f"{len(checks)} check cell{'s' if len(checks) != 1 else ''}: "
        f"{parts + ' = ' if len(checks) > 1 else ''}{_points(total)}, each earned when the "
        "cell runs without an error. Total: "
        f"{_points(derivation + total)}."
    )


def release_source(cell):
    """The source a student receives for ``cell``: answers replaced by nbgrader's stubs."""
    if cell.kind == "derivation":
        return TEXT_STUB
    if cell.kind != "answer":
        return cell.source
    out, inside = [], False
    for line in cell.source.splitlines():
        begin = BEGIN.match(line)
        if begin:
            inside = True
            out.extend(begin["indent"] + stub for stub in CODE_STUB.splitlines())
        elif END.match(line):
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


def nbgrader_metadata(cell):
    """nbgrader's cell metadata (schema 3) for the part ``cell`` plays in grading.

    Text cells get none: Jupyter's own ``editable``/``deletable`` flags lock them. nbgrader
    restores a deleted check after the source cell before it and fails (``KeyError``, nbgrader
    0.9.6) unless that cell is an answer or a check, so text between checks must not be an
    nbgrader cell; for the same reason no locked code cell may sit between the first answer and
    the last check (:func:`read_exercise` refuses one).
    """
    metadata = {
        "grade": cell.kind in ("check", "derivation"),
        "grade_id": cell.grade_id,
        "locked": cell.kind in ("code", "check"),
        "schema_version": 3,
        "solution": cell.kind in ("answer", "derivation"),
        "task": False,
    }
    if metadata["grade"]:
        metadata["points"] = cell.points
    return metadata


def to_notebook(cells, release=False):
    """Write graded cells as an nbformat notebook with nbgrader metadata.

    Parameters
    ----------
    cells : list of Cell
        From :func:`read_exercise`.
    release : bool
        False: the instructors' version (answers in place, as nbgrader's ``source``). True: the
        students' version (answers replaced by nbgrader's stubs).

    Returns
    -------
    nbformat.NotebookNode
    """
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    for cell in cells:
        source = release_source(cell) if release else cell.source
        make = nbformat.v4.new_markdown_cell if cell.cell_type == "markdown" else (
            nbformat.v4.new_code_cell
        )
        new = make(source, id=cell.grade_id)
        if cell.kind != "text":
            new.metadata["nbgrader"] = nbgrader_metadata(cell)
        if cell.kind in ("text", "code", "check"):
            new.metadata.update(editable=False, deletable=False)
        notebook.cells.append(new)
    nbformat.validate(notebook)
    return notebook


#: Tokens of a leak search: LaTeX commands, names, numbers and single symbols. Braces and
#: pure formatting commands are dropped, so that ``\mathbf{k}^T`` and ``\mathbf k^T`` match.
TOKEN = re.compile(r"\\[A-Za-z]+|[A-Za-z_]\w*|\d+(?:\.\d+)?|[^\s\w{}]")
FORMATTING = {
    r"\mathbf", r"\boldsymbol", r"\mathrm", r"\left", r"\right", r"\big", r"\Big", r"\bigl",
    r"\bigr", r"\quad", r"\qquad", "$", "*", "`", ",", ".",
}
#: A run of this many tokens shared by a solution and the students' text is a leak: short
#: enough to catch a formula such as ``(1 + x^T x')^2``, long enough to let notation repeat.
LEAK_RUN = 10


def _tokens(text):
    return [token.lower() for token in TOKEN.findall(text) if token not in FORMATTING]


def _runs(tokens, k=LEAK_RUN):
    return {tuple(tokens[i : i + k]) for i in range(len(tokens) - k + 1)}


def answer_code(source):
    """The lines of ``source`` between the solution markers."""
    lines, inside = [], False
    for line in source.splitlines():
        if BEGIN.match(line):
            inside = True
        elif END.match(line):
            inside = False
        elif inside:
            lines.append(line)
    return "\n".join(lines)


def find_leaks(cells, visible):
    """Runs of a solution that appear in text a student sees.

    Parameters
    ----------
    cells : list of Cell
        The exercise, from :func:`read_exercise`: its derivation and answer code are the
        solution, its statement may repeat in the solution without counting as a leak.
    visible : list of str
        What the student sees (the sources of the students' cells).

    Returns
    -------
    list of str
        Each maximal run of at least :data:`LEAK_RUN` tokens (space-separated, lower-case) that
        the solution and ``visible`` share and the statement does not hold.
    """
    solution = [cell.source for cell in cells if cell.kind == "derivation"]
    solution += [answer_code(cell.source) for cell in cells if cell.kind == "answer"]
    secret = set().union(*(_runs(_tokens(text)) for text in solution))
    secret -= set().union(*(_runs(_tokens(c.source)) for c in cells if c.grade_id == "exercise"))
    leaks = []
    for text in visible:
        tokens = _tokens(text)
        start = 0
        while start <= len(tokens) - LEAK_RUN:
            if tuple(tokens[start : start + LEAK_RUN]) not in secret:
                start += 1
                continue
            end = start
            while end <= len(tokens) - LEAK_RUN and tuple(tokens[end : end + LEAK_RUN]) in secret:
                end += 1
            leaks.append(" ".join(tokens[start : end + LEAK_RUN - 1]))
            start = end + LEAK_RUN - 1
    return leaks
