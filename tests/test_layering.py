"""kmlib's modules import one another without a circle, counting imports inside functions too
(a circle hidden in a function still ties two modules together, and breaks on a reordering)."""

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

KMLIB = Path(__file__).resolve().parents[1] / "kmlib"


def imported_modules(path, modules):
    """The kmlib modules that the module at ``path`` imports, anywhere in its code."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            if node.level == 1:  # from .name import x, or from . import name
                found.update([parts[0]] if node.module else [a.name for a in node.names])
            elif parts[0] == "kmlib":
                found.update(parts[1:2] or [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names
                         if a.name.startswith("kmlib."))
    return found & modules - {path.stem}


def test_no_import_circle_in_kmlib():
    paths = [p for p in KMLIB.glob("*.py") if p.stem != "__init__"]
    modules = {p.stem for p in paths}
    graph = {p.stem: imported_modules(p, modules) for p in paths}
    assert sum(map(len, graph.values())) > 20  # the scan does see kmlib's imports
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as error:
        circle = " -> ".join(error.args[1])
        raise AssertionError(f"kmlib modules import each other in a circle: {circle}") from None
    assert order.index("kernels") < order.index("svm")  # dependencies come first
