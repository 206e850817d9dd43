"""Write the notebooks edition: every page of the book as a plain notebook for any Jupyter.

Usage::

    python tools/notebooks.py . _build/notebooks

writes, under the output folder,

* ``chapters/<part>/<page>.ipynb``: every chapter page, its Markdown converted by
  ``tools/plain_myst.py`` (no MyST syntax; the numbers the page computes filled in from the
  executed build in ``_build/jupyter_execute``, so build the book first), each figure's caption
  in a cell under it, the cells the website folds folded with Jupyter's own
  ``jupyter.source_hidden`` / ``outputs_hidden`` metadata, and the page's reference list at its
  end;
* ``exercises/<chapter>/ex-*.ipynb``: the students' exercise notebooks (solutions removed, the
  same notebooks nbgrader releases);
* ``experiments/`` and ``results/``: the protocol code, the thesis's tables and the stored
  full-size results that the Chu and MLAPP 14.6 pages read. They are the repository's one copy,
  copied at build time; a page that needs them puts the edition's folder on its import path;
* ``README.md``: how to install and run them, and ``requirements.txt``: what Binder installs
  when the edition is published (the launch buttons of the website open its notebooks there).

The notebooks need only the kmlib wheel and matplotlib: the pages take ``glue`` (which hands a
number to the website's text) from ``kmlib.book``, which works without myst-nb; the edition's
text already holds the numbers.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from importlib import metadata
from pathlib import Path

import jupytext
import nbformat
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercises  # noqa: E402  (sibling scripts, not a package)
import plain_myst  # noqa: E402

ROOT = plain_myst.ROOT
EXECUTED = ROOT / "_build" / "jupyter_execute"

EXPERIMENTS_IMPORT = re.compile(r"^(from experiments[\w.]* import|import experiments)", re.M)
EXPERIMENTS_PATH = (
    'import sys\n\nsys.path.insert(0, "../..")  # the edition\'s experiments/ folder\n'
)
HIDDEN = {"hide-input": {"source_hidden"}, "remove-input": {"source_hidden"},
          "hide-output": {"outputs_hidden"}, "remove-output": {"outputs_hidden"},
          "hide-cell": {"source_hidden", "outputs_hidden"},
          "remove-cell": {"source_hidden", "outputs_hidden"}}


def chapter_pages(root=ROOT):
    """The chapter pages, ``chapters/<part>/*.md``, in order."""
    return sorted(Path(root).glob("chapters/*/*.md"))


def glued_values(name, executed=EXECUTED):
    """The values the executed build glued on page ``name`` (``{key: output}``)."""
    stored = Path(executed) / f"{name}.glue.json"
    if not stored.is_file():
        raise FileNotFoundError(f"{stored} is missing: build the book (`make book`) first")
    return json.loads(stored.read_text(encoding="utf-8"))


def _code_cell(cell):
    """The edition's form of a code cell, and the cell's figure options (name, caption)."""
    tags = cell.metadata.get("tags", [])
    metadata = {"tags": tags} if tags else {}
    hidden = set().union(*(HIDDEN.get(tag, set()) for tag in tags))
    if hidden:
        metadata["jupyter"] = {flag: True for flag in sorted(hidden)}
    figure = cell.metadata.get("mystnb", {}).get("figure", {})
    return nbformat.v4.new_code_cell(cell.source, metadata=metadata), figure


def chapter_notebook(path, book, glue):
    """Convert one chapter page into a plain notebook.

    Parameters
    ----------
    path : path
        The page's MyST source.
    book : plain_myst.Book
        The whole book (titles, labels, figures, bibliography).
    glue : mapping
        The values the executed page glued (:func:`glued_values`).

    Returns
    -------
    nbformat.NotebookNode
    """
    name = plain_myst.docname(path, book.root)
    page = plain_myst.Page(name, book, glue=glue)
    source = jupytext.read(path)
    cells, figures, experiments_path_added = [], 0, False
    for cell in plain_myst.shown_cells(source):
        if cell.cell_type == "markdown":
            text = page.markdown(cell.source)
            if text.strip():
                cells.append(nbformat.v4.new_markdown_cell(text))
            continue
        code, figure = _code_cell(cell)
        if not experiments_path_added and EXPERIMENTS_IMPORT.search(code.source):
            code.source = EXPERIMENTS_PATH + code.source
            experiments_path_added = True
        cells.append(code)
        if figure.get("caption"):
            figures += 1
            if book.figures.get(figure.get("name")) != (name, figures):
                raise plain_myst.MystSyntaxError(
                    f"{name}: figure {figures} ({figure.get('name')}) is numbered "
                    f"{book.figures.get(figure.get('name'))} in the book's index")
            caption = page.markdown(figure["caption"].strip())
            cells.append(nbformat.v4.new_markdown_cell(f"**Figure {figures}.** {caption}"))
    cells.insert(1 if cells and cells[0].cell_type == "markdown" else 0,
                 nbformat.v4.new_markdown_cell(_edition_note(name, book)))
    references = page.reference_list()
    if references:
        cells.append(nbformat.v4.new_markdown_cell(references))
    for number, cell in enumerate(cells, start=1):
        cell.id = f"cell-{number}"  # the same notebook from the same page, build after build
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python",
                                        "name": "python3"},
                         "language_info": {"name": "python"}}
    return notebook


def _edition_note(name, book):
    title = yaml.safe_load((book.root / "_config.yml").read_text(encoding="utf-8"))["title"]
    web = f" The same page on the website: <{book.website}/{name}.html>." if book.website else ""
    return (f"*From the notebooks edition of* {title}.{web} *It runs with the kmlib wheel and "
            "matplotlib; run the cells from the top.*")


README = """\
# {title}: the notebooks edition

Every page of the book as a Jupyter notebook that runs in any Jupyter (JupyterLab, the classic
Notebook, VS Code, Colab) with two packages installed:

```bash
python3 -m venv kernel-methods
source kernel-methods/bin/activate        # Windows: kernel-methods\\Scripts\\activate
pip install {wheel} matplotlib jupyterlab
jupyter lab
```

* `chapters/`: the chapters (PRML 6 and 7, MLAPP 14, Chu's Bayesian SVMs), one notebook per
  section. Cells the website folds (the checks that the code is right, the plotting code) are
  collapsed; click the bar beside a cell to open it.
* `exercises/`: the exercises, without their solutions.
* `experiments/` and `results/`: the experiment protocols, the thesis's tables and the stored
  full-size results that some chapter pages read. Keep them beside `chapters/`.
"""


def write_notebook(notebook, root, source, output):
    """Write ``notebook`` where ``source`` sits in the book, under ``output``; return its path."""
    target = Path(output) / Path(source).relative_to(root).with_suffix(".ipynb")
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    return target


def write_exercises(root, output):
    """Write the students' notebook of every exercise under ``output``; return their paths."""
    return [write_notebook(exercises.to_notebook(exercises.read_exercise(source), release=True),
                           root, source, output)
            for source in exercises.exercise_sources(root)]


def copy_experiments(root, output):
    """Copy the protocol code, thesis tables and stored results that pages read to ``output``."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("experiments", "results"):
        shutil.copytree(Path(root) / folder, Path(output) / folder, ignore=ignore)


def write_edition(root, output, executed=EXECUTED, wheel_name="kmlib-<version>-py3-none-any.whl"):
    """Write the notebooks edition of the book under ``root`` into ``output``.

    Parameters
    ----------
    root : path
        The repository.
    output : path
        Folder that receives the edition; it is replaced if it exists.
    executed : path
        The build's executed notebooks (for the glued numbers).
    wheel_name : str
        The kmlib wheel's file name, for the README's install line.

    Returns
    -------
    list of Path
        The notebooks written (chapters, then exercises).
    """
    root, output = Path(root).resolve(), Path(output)
    book = plain_myst.the_book(root)
    if output.exists():
        shutil.rmtree(output)
    written = []
    for path in chapter_pages(root):
        glue = glued_values(plain_myst.docname(path, root), executed)
        written.append(write_notebook(chapter_notebook(path, book, glue), root, path, output))
    written += write_exercises(root, output)
    copy_experiments(root, output)
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    (output / "README.md").write_text(README.format(title=config["title"], wheel=wheel_name),
                                      encoding="utf-8")
    repository = config["repository"]
    (output / "requirements.txt").write_text(  # what Binder installs for the published edition
        f"kmlib @ git+{repository['url']}@{repository['branch']}\nmatplotlib\n", encoding="utf-8")
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repository", type=Path)
    parser.add_argument("output", type=Path, help="for example _build/notebooks")
    args = parser.parse_args(argv)
    written = write_edition(args.repository, args.output,
                            executed=args.repository / "_build" / "jupyter_execute",
                            wheel_name=f"kmlib-{metadata.version('kmlib')}-py3-none-any.whl")
    print(f"wrote {len(written)} notebooks under {args.output}")


if __name__ == "__main__":
    main()
