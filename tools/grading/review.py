"""What the grader reads in an answer's code and outputs, before and after it runs.

* Which names an answer brings into the checks' namespace: :func:`bound_names` (what a cell
  assigns at top level) and :func:`check_owned` (what the checks compute for themselves, which
  no answer may replace).
* What deserves the instructor's eye (it never changes a mark): :func:`suspicious`, the
  constructs of the attacks the sandbox stops and of others like them, and :func:`limits_hit`,
  the sandbox's limits a cell reached.
"""

from __future__ import annotations

import ast
import re

#: What in an answer deserves the instructor's eye (it never changes a mark): the constructs of
#: the attacks the sandbox stops, and of others like them.
SUSPICIOUS = {
    "traces or profiles execution": r"\bset(?:trace|profile)\b|\bsys\.monitoring\b",
    "reaches into Jupyter's machinery": (r"\bget_ipython\b|\binput_transformers|"
                                         r"\bset_custom_exc\b|\bevents\.register\b|\bmagic\b"),
    "registers exit handlers or signals": r"\batexit\b|\bsignal\b|\bos\.kill|\bkillpg\b",
    "starts processes": (r"\bfork\b|\bsubprocess\b|\bos\.system\b|\bpopen\b|\bspawn|"
                         r"\bmultiprocessing\b"),
    "changes the import system or builtins": (r"\bsys\.modules\b|\bbuiltins\b|__builtins__|"
                                              r"\bimportlib\b|__import__|\bmeta_path\b|\bpath_hooks\b"),
    "reads or writes files": (r"\bopen\(|\bpathlib\b|\bos\.(?:listdir|walk|scandir|remove|unlink|"
                              r"rename|chmod|makedirs|mkdir|write|read|dup2?)\b|\bfdopen\b|"
                              r"\bshutil\b|\bglob\b"),
    "inspects the running program": (r"__file__|\binspect\b|\bgc\.|\b_getframe\b|\bglobals\(\)|"
                                     r"\b__code__\b|\b__globals__\b|\bctypes\b"),
    "runs code built at run time": r"\bexec\(|\beval\(|\bcompile\(",
    "uses the network": r"\bsocket\b|\burllib\b|\brequests\b|\bhttp\b",
    "replaces a library function": (r"^\s*(?:np|numpy|scipy|sklearn|kmlib|math|plt)(?:\.\w+)+"
                                    r"\s*=[^=]"),
}


class _TopLevelNames(ast.NodeVisitor):
    """Collects the names a module binds in its own scope (not in functions, classes, lambdas
    or comprehensions, which have scopes of their own)."""

    def __init__(self):
        self.names = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def visit_FunctionDef(self, node):
        self.names.add(node.name)

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Import(self, node):
        self.names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)

    visit_ImportFrom = visit_Import

    def visit_Lambda(self, node):
        pass

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda


def bound_names(source):
    """The names ``source`` binds at top level (assignments, definitions, imports, loops)."""
    try:
        tree = ast.parse(source) if isinstance(source, str) else source
    except SyntaxError:
        return set()
    collector = _TopLevelNames()
    collector.visit(tree)
    return collector.names


def check_owned(sources):
    """Names a check (or later locked code) assigns before any of them reads it: the checks'
    own results, which no answer may replace."""
    owned, read = set(), set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for statement in tree.body:
            loads = {node.id for node in ast.walk(statement)
                     if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
            read |= loads - owned
            owned |= bound_names(statement) - read
    return owned


def limits_hit(outputs):
    """The sandbox's limits that a cell's outputs show it reached."""
    hit = []
    for output in outputs:
        if output.get("output_type") == "error" and output.get("ename") in (
                "MemoryError", "RecursionError"):
            hit.append(f"raised {output['ename']} (the memory or recursion limit)")
        if output.get("output_type") == "stream" and "[... output cut" in output.get("text", ""):
            hit.append("printed more than the limit of text")
    return hit


def suspicious(source):
    """What in an answer's code an instructor may want to look at (see :data:`SUSPICIOUS`)."""
    return [reason for reason, pattern in SUSPICIOUS.items()
            if re.search(pattern, source, re.M)]
