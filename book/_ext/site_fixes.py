"""Sphinx extension: six fixes to what the theme stack puts on the pages.

* Sphinx wraps a display equation that contains a line break ``\\\\`` in a ``split``
  environment, and MathJax refuses a ``\\tag`` inside ``split`` (even when the line break
  belongs to a matrix or a ``cases``): the equation shows an error instead of the book's number.
  In such an equation the tag is moved after the ``split``, where it is allowed; what Jupyter
  shows (MathJax on the unwrapped source) is unchanged.
* sphinx-thebe's configuration script (and sphinx-togglebutton's) reach a page twice, once with
  the file name ``None`` and once with ``""``; the second copy redeclares a ``const`` and the
  browser logs a SyntaxError. Identical inline scripts are kept once.
* Sphinx loads MathJax only on pages that contain mathematics, but the navigation of every page
  shows page titles that do (such as "6.4 … $f(\\mathbf x)$"); MathJax is loaded on every page.
* pydata-sphinx-theme logs "Got invalid theme mode" when no default colour mode is set (Jupyter
  Book does not pass one). The site uses the light mode, in which its figures were drawn.
* Sphinx numbers figures across the whole book when its sections are not numbered ("Fig. 57"
  on the sixth page); each page numbers its own figures from 1 instead, as the notebooks
  edition does, so that "Figure 2" is the second figure of the page a reader is on.
* ``book/_static/book.css``: glued numbers in the weight of the sentence around them (myst-nb
  makes them bold), and display equations wider than the column that scroll from their left
  edge instead of being cut on both sides.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes

STATIC = Path(__file__).resolve().parent.parent / "_static"

TAG = re.compile(r"\\tag\*?\{[^{}]*\}")


def _tags_outside_split(app, doctree, docname):
    """Rewrite tagged multi-line display equations as ``\\[\\begin{split}…\\end{split}\\tag{…}\\]``."""
    opening, closing = app.config.mathjax_display
    for node in doctree.findall(nodes.math_block):
        text = node.astext()
        if node.get("nowrap") or node.get("number") or "\n\n" in text.strip():
            continue  # Sphinx's own layout is right for these (or numbers them itself)
        tags = TAG.findall(text)
        if len(tags) != 1 or "\\\\" not in text:
            continue  # several tags belong in an align environment, written as such
        body = TAG.sub("", text).strip()
        node.children = [
            nodes.Text(f"{opening}\\begin{{split}}{body}\\end{{split}}{tags[0]}{closing}")
        ]
        node["nowrap"] = True


def _number_figures_per_page(app, env):
    """Renumber each page's figures 1, 2, … in page order (Sphinx numbered them book-wide)."""
    for numbers in env.toc_fignumbers.values():
        figures = numbers.get("figure", {})
        for number, node_id in enumerate(sorted(figures, key=figures.get), start=1):
            figures[node_id] = (number,)


def _set_default_mode(app, config):
    config.html_context.setdefault("default_mode", "light")  # pydata-sphinx-theme reads it here


def _drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for script in scripts:
        # the same inline script, added twice, has the file name None once and "" once
        key = (
            getattr(script, "filename", script) or None,
            repr(sorted(getattr(script, "attributes", {}).items())),
        )
        if key not in seen:
            seen.add(key)
            kept.append(script)
    scripts[:] = kept


def _add_static_path(app, config):
    config.html_static_path = [*config.html_static_path, str(STATIC)]


def setup(app):
    app.set_html_assets_policy("always")
    app.connect("config-inited", _add_static_path)
    app.add_css_file("book.css")
    app.connect("config-inited", _set_default_mode)
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)
    app.connect("doctree-resolved", _tags_outside_split)
    # after Sphinx assigns its numbers (env-get-updated) and pickles them, so that its comparison
    # with the next build's numbers, which decides what to rewrite, stays like with like
    app.connect("env-check-consistency", _number_figures_per_page)
    return {"version": "1.0", "parallel_read_safe": True}
