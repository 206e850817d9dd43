"""Run one notebook cell's code in a namespace and collect what Jupyter would show.

Both sides of the sandbox run cells this way: no IPython kernel, so nothing of a cell can reach
a kernel's machinery (input transformers, custom exception handlers, event callbacks). A cell's
printed text, the value of its last expression, the figures it leaves open and its error come
back as nbformat outputs.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import io
import sys
import traceback

#: Printed text kept per cell; the rest is cut (a loop that prints a million lines).
MAX_TEXT = 100_000


class _Capped(io.StringIO):
    def write(self, text):
        room = MAX_TEXT - self.tell()
        return super().write(text[: max(room, 0)]) if room > 0 else len(text)


def _stream(name, text):
    if len(text) >= MAX_TEXT:
        text += "\n[... output cut at 100 000 characters]\n"
    return {"output_type": "stream", "name": name, "text": text}


def _figures():
    """Every open matplotlib figure as a PNG display output (then closed)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    outputs = []
    for number in pyplot.get_fignums():
        buffer = io.BytesIO()
        pyplot.figure(number).savefig(buffer, format="png")
        outputs.append({"output_type": "display_data", "metadata": {}, "data": {
            "image/png": base64.b64encode(buffer.getvalue()).decode("ascii"),
            "text/plain": "<Figure>"}})
    pyplot.close("all")
    return outputs


def error_output(error, filename):
    """An nbformat error output for ``error``, its traceback limited to the cell's own frames."""
    frames = traceback.extract_tb(error.__traceback__)
    while frames and frames[0].filename != filename:
        frames.pop(0)
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(error), error)
    return {"output_type": "error", "ename": type(error).__name__,
            "evalue": str(error), "traceback": ["".join(lines)]}


def run_cell(source, namespace, filename="<cell>"):
    """Execute ``source`` in ``namespace`` as a notebook cell.

    Returns
    -------
    outputs : list of dict
        nbformat outputs: the printed text, the last expression's value, the figures, an error.
    error : BaseException or None
        What the cell raised.
    """
    stdout, stderr, outputs, error = _Capped(), _Capped(), [], None
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            tree = ast.parse(source, filename)
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, filename, "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), filename, "eval"), namespace)
                if value is not None:
                    outputs.append({"output_type": "execute_result", "metadata": {},
                                    "data": {"text/plain": repr(value)[:MAX_TEXT]}})
        except BaseException as raised:  # noqa: BLE001 (a cell's SystemExit is its error too)
            error = raised
    streams = [_stream(name, buffer.getvalue())
               for name, buffer in (("stdout", stdout), ("stderr", stderr)) if buffer.getvalue()]
    outputs = streams + outputs + _figures()
    if error is not None:
        outputs.append(error_output(error, filename))
    return outputs, error
