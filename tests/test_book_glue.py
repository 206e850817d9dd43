"""``kmlib.book.glue``: myst-nb's glue in the book's build, a harmless stand-in elsewhere.

Every chapter page takes ``glue`` from ``kmlib.book``, so that it runs in any Jupyter. Both
cases run a real kernel: with myst-nb (the project's environment) the outputs carry the
records the build reads; with ``import myst_nb`` failing, nothing is recorded and a value shows
only when the page asks for it.
"""

import nbformat
from nbclient import NotebookClient

PAGE = 'from kmlib.book import glue\nglue("hidden", 3, display=False)\nglue("shown", 4)\n'


def run(*sources):
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in sources])
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    return notebook.cells[-1].outputs


def test_in_the_build_glue_is_myst_nbs():
    outputs = run(PAGE)
    records = [output["metadata"]["scrapbook"]["name"] for output in outputs]
    assert records == ["hidden", "shown"]  # both stored for the text
    # the hidden value under a mime type no front end shows; the shown one as plain text too
    assert outputs[0]["data"] == {"application/papermill.record/text/plain": "3"}
    assert outputs[1]["data"]["text/plain"] == "4"


def test_without_myst_nb_glue_shows_a_value_only_when_asked():
    outputs = run('import sys\nsys.modules["myst_nb"] = None  # `import myst_nb` now fails', PAGE)
    assert [output["data"] for output in outputs] == [{"text/plain": "4"}]
    assert not any("scrapbook" in output.get("metadata", {}) for output in outputs)
