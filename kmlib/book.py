"""What the companion book's pages use besides the models: the figure style and ``glue``.

The figure style ships beside this module as ``book.mplstyle``; ``plt.style.use("kmlib.book")``
applies it (100 pixels per inch, no text below 10 pt, figures that fit the website's column).

:func:`glue` is how a page hands a number it computes to its own text. In the book's build it is
myst-nb's ``glue``, and the website shows the value wherever the text writes
``{glue:text}`name```. Anywhere else (plain Jupyter, the notebooks edition, a script) there is no
text to fill in, and :func:`glue` only shows the value when the page asks for it, so a page runs
the same with or without myst-nb installed.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

__all__ = ["glue"]


@cache
def _myst_nb_glue():
    """myst-nb's ``glue``, or ``None`` where myst-nb is not installed."""
    try:
        return import_module("myst_nb").glue
    except ImportError:
        return None


def glue(name, value, display=True):
    """Store ``value`` under ``name`` for the page's text, and show it if ``display``.

    Parameters
    ----------
    name : str
        The key the text refers to (``{glue:text}`name```, optionally with a format,
        ``{glue:text}`name:.3f```).
    value : object
        What to store: a number, a string, an array, a figure.
    display : bool, default=True
        Show ``value`` as the cell's output, as well as storing it.

    Notes
    -----
    With myst-nb installed this is ``myst_nb.glue(name, value, display)``. Without it nothing is
    stored (no build reads it) and ``value`` is shown when ``display`` is true, as myst-nb would.

    Examples
    --------
    >>> glue("answer", 42, display=False)  # the build's text shows 42 where it glues "answer"
    """
    myst_nb_glue = _myst_nb_glue()
    if myst_nb_glue is not None:
        myst_nb_glue(name, value, display=display)
    elif display:
        try:
            from IPython.display import display as show
        except ImportError:  # a plain Python script
            show = print
        show(value)
