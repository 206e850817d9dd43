"""The notebooks edition: chapter pages as plain notebooks that run with the students' install.

``tools/notebooks.py`` writes the edition (``make notebooks``); ``tools/plain_myst.py`` does the
conversion of MyST that it shares with the exercises. Here:

* the conversion of each MyST construct the book uses, on a page made for the purpose;
* every chapter page converts with no MyST left (roles, directives, labels) and every reference
  resolving: ``plain_myst.myst_constructs`` is the search, and it finds them in the sources;
* a few chapter notebooks (one with figures and glued numbers, one Gaussian-process page, one that
  reads the stored experiment results) run top to bottom in a fresh virtual environment with only
  the kmlib wheel, matplotlib and a kernel, outside the repository.

With ``-m edition`` (``make test-notebooks``, after ``make notebooks``): every notebook of the
built edition holds no MyST, and every chapter notebook runs in that environment.
"""

from __future__ import annotations

import subprocess
import textwrap
from collections import defaultdict
from pathlib import Path

import nbformat
import pytest
from nbgrader_course import ROOT, load_tool
from students_env import students_environment

plain_myst = load_tool("plain_myst")
notebooks = load_tool("notebooks")
student_edition = load_tool("student_edition")

EDITION = ROOT / "_build" / "notebooks"
#: Pages run in a fresh environment by `make test`: glue and figures; a GP page; stored results.
REPRESENTATIVE = ("chapters/prml07/7-1-maximum-margin-classifiers.md",
                  "chapters/prml06/6-4-2-gp-regression.md",
                  "chapters/bsvm/4-5-1-bsvr-sinc.md")

RUNNER = """
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

path = Path(sys.argv[1])
notebook = nbformat.read(path, as_version=4)
NotebookClient(notebook, timeout=1200, kernel_name="python3",
               resources={"metadata": {"path": str(path.parent)}}).execute()
"""


class EveryValueZero(dict):
    """Glued values for converting a page without its executed build: every number reads 0."""

    def __contains__(self, key):
        return True

    def __getitem__(self, key):
        return {"data": {"text/plain": "0"}}


# --------------------------------------------------------------------------- the conversion


@pytest.fixture(scope="module")
def probe_book(tmp_path_factory):
    folder = tmp_path_factory.mktemp("book")
    (folder / "protocol.py").write_text("X = 1\n\n\ndef fit(data):\n    return data\n")
    bibliography = {"rw2006": plain_myst.Reference("Rasmussen and Williams", "2006",
                                                   "Rasmussen, C. E. (2006). *GPML*.")}
    return plain_myst.Book(
        root=folder, bibliography=bibliography,
        titles={"chapters/a/one": "1 One", "chapters/a/two": "2 Two",
                "book/about": "How the book is made"},
        sections={"sec-two": ("chapters/a/two", "2 Two"), "sec-one": ("chapters/a/one", "1 One")},
        figures={"fig-here": ("chapters/a/one", 1), "fig-there": ("chapters/a/two", 3)},
        notebooks={"chapters/a/one", "chapters/a/two"},
        website="https://example.org/book",
    )


def test_every_construct_has_its_plain_form(probe_book):
    page = plain_myst.Page("chapters/a/one", probe_book,
                           glue={"margin": {"data": {"text/plain": "0.123456"}},
                                 "count": {"data": {"text/plain": "7"}}})
    source = textwrap.dedent("""\
        (sec-one)=
        As {cite}`rw2006` and {cite:t}`rw2006` show,
        the margin is {glue:text}`margin:.3f` over {glue:text}`count` points
        (`{glue:text}` is the role); see {numref}`fig-here`,
        {numref}`Figure %s <fig-there>`, {ref}`sec-two`, {ref}`the start <sec-one>`,
        {doc}`/chapters/a/two`, {doc}`how <../../book/about>`.

        1. Try it. *Hint:* think.

           ```{dropdown} Answer
           It is $x = 2$.
           ```

        :::{note}
        Read this.
        :::

        ```{literalinclude} ../../protocol.py
        :pyobject: fit
        ```
        """)
    assert page.markdown(source) == textwrap.dedent("""\
        As (Rasmussen and Williams, 2006) and Rasmussen and Williams (2006) show,
        the margin is 0.123 over 7 points
        (`{glue:text}` is the role); see Figure 1,
        Figure 3 of [2 Two](two.ipynb), [2 Two](two.ipynb), the start,
        [2 Two](two.ipynb), [how](https://example.org/book/book/about.html).

        1. Try it. *Hint:* think.

           <details>
           <summary>Answer</summary>

           It is $x = 2$.

           </details>

        > **Note.**
        >
        > Read this.

        ```python
        def fit(data):
            return data
        ```""")
    assert page.reference_list() == (
        "## References\n\n- Rasmussen, C. E. (2006). *GPML*.")


@pytest.mark.parametrize("text", ["{eq}`7.1`", "{download}`data.csv`", "{ref}`no-such-label`",
                                  "{cite}`nobody1900`", "{glue:text}`not-glued`",
                                  "```{tableofcontents}\n```", "```{dropdown} Open\nnever closed"])
def test_myst_without_a_plain_form_is_refused(probe_book, text):
    page = plain_myst.Page("chapters/a/one", probe_book, glue={})
    with pytest.raises(plain_myst.MystSyntaxError):
        page.markdown(text)


@pytest.fixture(scope="module")
def book():
    return plain_myst.the_book(ROOT)


@pytest.mark.parametrize("path", notebooks.chapter_pages(ROOT), ids=lambda path: path.stem)
def test_chapter_page_converts_to_plain_markdown(book, path):
    source = path.read_text(encoding="utf-8")
    assert plain_myst.myst_constructs(source), "the search finds nothing in the MyST source"
    notebook = notebooks.chapter_notebook(path, book, EveryValueZero())
    markdown = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    assert not plain_myst.myst_constructs(markdown)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert not any("mystnb" in cell.metadata for cell in code)
    folded = [cell for cell in code if set(cell.metadata.get("tags", ())) & {"hide-cell"}]
    assert all(cell.metadata["jupyter"] == {"outputs_hidden": True, "source_hidden": True}
               for cell in folded)


# --------------------------------------------------------------------------- running them


@pytest.fixture(scope="module")
def students_python(tmp_path_factory):
    folder = tmp_path_factory.mktemp("students")
    wheel = student_edition.build_wheel(folder / "dist")
    python = students_environment(folder, wheel)
    no_myst = subprocess.run([python, "-c", "import myst_nb"], capture_output=True, cwd=folder)
    assert no_myst.returncode != 0, "myst-nb is visible in the students' environment"
    return python


def run_in(python, notebook):
    run = subprocess.run([python, "-c", RUNNER, notebook], capture_output=True, text=True,
                         cwd=notebook.parent)
    assert run.returncode == 0, run.stderr[-3000:]


@pytest.mark.parametrize("page", REPRESENTATIVE, ids=lambda page: Path(page).stem)
def test_representative_notebook_runs_with_the_students_install(book, students_python,
                                                                 tmp_path, page):
    edition = tmp_path / "edition"
    notebook = notebooks.chapter_notebook(ROOT / page, book, EveryValueZero())
    target = notebooks.write_notebook(notebook, ROOT, ROOT / page, edition)
    notebooks.copy_experiments(ROOT, edition)
    run_in(students_python, target)


# --------------------------------------------------------------------------- the built edition


def edition_notebooks(kind):
    return sorted(EDITION.glob(f"{kind}/*/*.ipynb")) if EDITION.is_dir() else []


@pytest.mark.edition
def test_the_edition_was_built():
    assert len(edition_notebooks("chapters")) == len(notebooks.chapter_pages(ROOT))
    assert len(edition_notebooks("exercises")) == len(list(ROOT.glob("exercises/*/ex-*.md")))


@pytest.mark.edition
@pytest.mark.parametrize("notebook", [*edition_notebooks("chapters"),
                                      *edition_notebooks("exercises")],
                         ids=lambda path: path.stem)
def test_edition_notebook_holds_no_myst(notebook):
    cells = nbformat.read(notebook, as_version=4).cells
    found = defaultdict(list)
    for cell in cells:
        if cell.cell_type == "markdown":
            for construct in plain_myst.myst_constructs(cell.source):
                found[construct].append(cell.id)
    assert not found, dict(found)


@pytest.mark.edition
@pytest.mark.parametrize("notebook", edition_notebooks("chapters"), ids=lambda path: path.stem)
def test_edition_notebook_runs_with_the_students_install(students_python, notebook):
    run_in(students_python, notebook)
