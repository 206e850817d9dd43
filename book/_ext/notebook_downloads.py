"""Sphinx extension: a page's download and launch buttons give its notebooks-edition notebook.

The theme's download menu offers each notebook page's ``.ipynb``, which it copies from the
build's executed notebook: the MyST source with its outputs, full of syntax that plain Jupyter
shows raw. This extension writes, in its place, the page's notebook of the notebooks edition
(``tools/notebooks.py``: plain Markdown, the glued numbers filled in from this build, folded
cells folded; for an exercise, the students' notebook).

It also points the launch menu's Binder and Colab links at that notebook in the published
edition: the branch ``notebooks_branch`` (a ``sphinx: config:`` value, default ``notebooks``) of
the repository in ``_config.yml``, which holds the output of ``make notebooks``. The links are
plain links; nothing is loaded from them while building or reading.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat


def _tools(app):
    folder = Path(app.config.book_tools_dir or Path(app.confdir) / "tools").resolve()
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    import exercises  # noqa: PLC0415  (the repository's tools, found through the setting)
    import notebooks  # noqa: PLC0415
    import plain_myst  # noqa: PLC0415

    return exercises, notebooks, plain_myst


def _is_edition_page(pagename):
    """A chapter page or an exercise: the pages the notebooks edition holds."""
    return pagename.startswith("chapters/") or (
        pagename.startswith("exercises/") and Path(pagename).name.startswith("ex-"))


def _edition_notebook(app, pagename):
    exercises, notebooks, plain_myst = _tools(app)
    source = Path(app.srcdir) / f"{pagename}.md"
    if pagename.startswith("exercises/"):  # from the full source (the students' site has none)
        full = exercises.ROOT / f"{pagename}.md"
        return exercises.to_notebook(exercises.read_exercise(full), release=True)
    executed = Path(app.outdir).parent / "jupyter_execute"
    return notebooks.chapter_notebook(source, plain_myst.the_book(Path(app.srcdir)),
                                      notebooks.glued_values(pagename, executed))


def _replace_download_and_launch(app, pagename, templatename, context, doctree):
    if not _is_edition_page(pagename):
        return
    if context.get("ipynb_source"):
        target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
        nbformat.write(_edition_notebook(app, pagename), target)
    repository = app.config.html_theme_options.get("repository_url", "").rstrip("/")
    if not repository.startswith("https://github.com/"):
        return
    org_repo, branch = repository.removeprefix("https://github.com/"), app.config.notebooks_branch
    links = {
        "Binder": f"https://mybinder.org/v2/gh/{org_repo}/{branch}"
                  f"?urlpath=lab/tree/{pagename}.ipynb",
        "Colab": f"https://colab.research.google.com/github/{org_repo}/blob/{branch}/"
                 f"{pagename}.ipynb",
    }
    for group in context.get("header_buttons", []):
        if group.get("label") == "launch-buttons":
            for button in group["buttons"]:
                if button.get("text") in links:
                    button["url"] = links[button["text"]]


def setup(app):
    app.add_config_value("notebooks_branch", "notebooks", "html")
    app.add_config_value("book_tools_dir", "", "html")
    # after the theme, which copies the executed notebook and adds the launch buttons
    app.connect("html-page-context", _replace_download_and_launch, priority=950)
    return {"version": "1.0", "parallel_read_safe": True}
