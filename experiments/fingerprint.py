"""What a stored result depends on, so that a page can tell when it is stale.

A results file is only as current as the code that computed it. Each run records the
**fingerprint** of that code: for the experiment's module and every module of ``kmlib`` and
``experiments`` that it imports, directly or through others (imports inside functions included,
so the compiled loops that are imported on first use count), a hash of the module's syntax tree
with docstrings removed; and, when ``kmlib.datasets`` is among them, a hash of every data file
shipped in ``kmlib/data``. Comments, docstrings and layout do not change a fingerprint; any change
to what the code does does. ``experiments.runner`` is left out: it schedules tasks and writes
files, and computes no result.

It also records the numerical environment the numbers came from (``numerics``): the BLAS library,
its version and the kernel it chose for this CPU, numba's target CPU and kmlib's version. Those
do not make a file stale (the pages compare results across machines by what they mean), but say
where a number came from.
"""

import ast
import hashlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kmlib", "experiments")
#: modules that compute no result: their changes leave stored results current
NOT_RESULTS = ("experiments.runner", "experiments.fingerprint")


def _source_file(module):
    """The repository file of a ``kmlib`` or ``experiments`` module, or None."""
    parts = module.split(".")
    for candidate in (ROOT.joinpath(*parts).with_suffix(".py"),
                      ROOT.joinpath(*parts, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None


def _imported(tree, module):
    """Names of the kmlib/experiments modules a module's syntax tree imports (at any depth)."""
    package = module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            # ``from package import name``: name may be a module of the package
            found += [source] + [f"{source}.{alias.name}" for alias in node.names]
    return [name for name in found if name.split(".")[0] in PACKAGES]


def _without_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _digest(data):
    return hashlib.sha256(data).hexdigest()[:16]


def source_hash(source):
    """Hash of Python source by what it does: its syntax tree, docstrings removed."""
    return _digest(ast.dump(_without_docstrings(ast.parse(source))).encode())


def code_fingerprint(module):
    """``{path: hash}`` of ``module`` and of the kmlib/experiments modules it imports.

    Parameters
    ----------
    module : str
        A dotted module name, for example ``"experiments.chu_sinc"``.

    Returns
    -------
    dict
        Repository-relative paths (``kmlib/bsvr.py``, ``kmlib/data/abalone.csv``) to the
        first 16 hex digits of a SHA-256: of the module's syntax tree without docstrings, or of
        a data file's bytes. Packages' ``__init__.py`` files, which only gather their modules,
        are neither hashed nor followed, and :data:`NOT_RESULTS` are left out.
    """
    hashes, queue, seen = {}, [module], set()
    while queue:
        name = queue.pop()
        if name in seen or name in NOT_RESULTS:
            continue
        seen.add(name)
        path = _source_file(name)
        if path is None:  # a function or class imported by name, not a module
            continue
        if path.name == "__init__.py":  # gathers its modules: only those imported count
            continue
        source = path.read_text(encoding="utf-8")
        queue += _imported(ast.parse(source), name)
        hashes[path.relative_to(ROOT).as_posix()] = source_hash(source)
    if "kmlib/datasets.py" in hashes:
        for data in sorted((ROOT / "kmlib" / "data").iterdir()):
            if data.is_file() and data.suffix in (".csv", ".txt"):
                hashes[data.relative_to(ROOT).as_posix()] = _digest(data.read_bytes())
    return dict(sorted(hashes.items()))


def changed_code(stored, current):
    """Paths whose hash differs between two fingerprints (added or removed files included)."""
    return sorted(path for path in set(stored) | set(current)
                  if stored.get(path) != current.get(path))


def numerics():
    """The numerical environment of this process: BLAS, its kernel, numba's CPU, kmlib."""
    import numba
    from threadpoolctl import threadpool_info

    import kmlib

    blas = [{key: info.get(key) for key in ("internal_api", "version", "architecture")}
            for info in threadpool_info() if info.get("user_api") == "blas"]
    return {"blas": blas, "numba_cpu": numba.config.CPU_NAME or _host_cpu_name(),
            "kmlib": kmlib.__version__}


def _host_cpu_name():
    from llvmlite import binding

    return binding.get_host_cpu_name()


def experiment_module(experiment):
    """The dotted name of the module that defines an experiment's tasks."""
    return experiment.phases[0].__module__


def stale_runs(stored, module):
    """Why a stored results file is stale, per run: ``[(run index, reason)]``; empty if current.

    A run is stale when it recorded no fingerprint (it predates them) or when the code it
    recorded differs from the code in the repository now.
    """
    current = code_fingerprint(module)
    reasons = []
    for index, run in enumerate(stored["runs"]):
        if "code" not in run:
            reasons.append((index, "recorded no code fingerprint"))
            continue
        changed = changed_code(run["code"], current)
        if changed:
            reasons.append((index, "code changed since: " + ", ".join(changed)))
    return reasons
