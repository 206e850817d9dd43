"""What a stored result depends on, so that a page can tell when it is stale.

A results file is only as current as the code that computed it. Each run records the
**fingerprint** of that code: for the experiment's module and every module of ``kmlib`` and
``experiments`` whose definitions it uses, directly or through others (imports inside functions
included, so the compiled loops that are imported on first use count), a hash of the module's
syntax tree with docstrings removed; and, when ``kmlib.datasets`` is among them, a hash of every
data file shipped in ``kmlib/data``. Comments, docstrings and layout do not change a
fingerprint; any change to what the code does does. ``experiments.runner`` is left out: it
schedules tasks and writes files, and computes no result. The modules are read where Python
imports them from, so the check holds outside the repository too: in the notebooks edition it
compares the kmlib installed from the wheel with the kmlib that computed the stored results.

It also records the numerical environment the numbers came from (``numerics``): the BLAS library,
its version and the kernel it chose for this CPU, numba's target CPU and kmlib's version. Those
do not make a file stale (the pages compare results across machines by what they mean), but say
where a number came from.
"""

import ast
import hashlib
import importlib.util
from pathlib import Path

PACKAGES = ("kmlib", "experiments")
#: modules that compute no result: their changes leave stored results current
NOT_RESULTS = ("experiments.runner", "experiments.fingerprint")
#: in the search of ``code_fingerprint``: a module's statements that run when it is imported
ON_IMPORT = "<statements run on import>"


def _package_folder(package):
    """The folder from which ``import package`` takes ``kmlib`` or ``experiments``, or None.

    The code that runs, wherever it is: the repository's folders, or, in the notebooks edition,
    kmlib as installed from the wheel beside the edition's own ``experiments/``. Nothing is
    imported to find it.
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _source_file(module):
    """The source file of a ``kmlib`` or ``experiments`` module, or None."""
    package, *parts = module.split(".")
    folder = _package_folder(package)
    if folder is None:
        return None
    module_file = [folder.joinpath(*parts).with_suffix(".py")] if parts else []
    for candidate in (*module_file, folder.joinpath(*parts, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None


def _key(path, package):
    """``path`` as a fingerprint names it: from its package's name (``kmlib/bsvr.py``)."""
    return f"{package}/{path.relative_to(_package_folder(package)).as_posix()}"


def _import_targets(node, module):
    """What an import statement in ``module`` brings in: ``[(module, name or None)]``.

    ``None`` stands for a whole module (``import kmlib.smo``, ``from kmlib import smo``); a name
    for one definition of a module (``from kmlib.bsvr import BayesianSVR``). Only ``kmlib`` and
    ``experiments`` modules are listed.
    """
    if isinstance(node, ast.Import):
        targets = [(alias.name, None) for alias in node.names]
    else:
        source = node.module
        if node.level:  # relative to the importing module's package (itself, for an __init__)
            package = module.split(".")
            if _source_file(module).name != "__init__.py":
                package = package[:-1]
            base = package[: len(package) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        targets = [(f"{source}.{alias.name}", None) if _source_file(f"{source}.{alias.name}")
                   else (source, alias.name) for alias in node.names]
    return [(name, what) for name, what in targets if name.split(".")[0] in PACKAGES]


def _is_docstring(statement):
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str))


def _definitions(tree):
    """A module's top-level names, each with the statements that bind it, and the statements
    that run for their effect when the module is imported (anything but a definition, an import
    or an assignment to plain names)."""
    bound, effects = {}, []
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [statement.name]
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:  # one binding per alias, so each is followed alone
                single = (ast.Import(names=[alias]) if isinstance(statement, ast.Import) else
                          ast.ImportFrom(module=statement.module, names=[alias],
                                         level=statement.level))
                bound.setdefault(alias.asname or alias.name.split(".")[0], []).append(single)
            continue
        elif isinstance(statement, ast.Assign) and all(
                isinstance(target, ast.Name) for target in statement.targets):
            names = [target.id for target in statement.targets]
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names = [statement.target.id]
        elif _is_docstring(statement):
            continue
        else:
            effects.append(statement)
            continue
        for name in names:
            bound.setdefault(name, []).append(statement)
    return bound, effects


def _references(statements, module):
    """The names a list of statements reads, and the imports they make (at any depth)."""
    names, imports = set(), []
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                imports += _import_targets(node, module)
    return names, imports


def _without_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.body and _is_docstring(node.body[0]):
                node.body = node.body[1:] or [ast.Pass()]
    return tree


def _digest(data):
    return hashlib.sha256(data).hexdigest()[:16]


def source_hash(source):
    """Hash of Python source by what it does: its syntax tree, docstrings removed."""
    return _digest(ast.dump(_without_docstrings(ast.parse(source))).encode())


def code_fingerprint(module):
    """``{path: hash}`` of ``module`` and of the kmlib/experiments modules whose code it uses.

    A module counts when a definition the experiment can reach lives in it: the experiment
    module's own definitions are reached, and from each reached definition (a function, a class,
    a constant) the names it reads in its module and what it imports, inside functions too, so
    the compiled loops imported on first use count. A module that is imported but none of whose
    definitions are reached (``experiments.model_selection`` imports ``BayesianSVR``, which
    ``at_stored`` never touches) does not, unless it runs statements of its own on import.
    Each module that counts is hashed whole.

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
        are not hashed (the names imported through them are followed to their modules), and
        :data:`NOT_RESULTS` are left out.
    """
    hashes, parsed, reached = {}, {}, set()
    queue = [(module, None)]
    while queue:
        name, what = queue.pop()
        if name in NOT_RESULTS or (name, what) in reached:
            continue
        reached.add((name, what))
        path = _source_file(name)
        if path is None:
            continue
        if name not in parsed:
            source = path.read_text(encoding="utf-8")
            parsed[name] = _definitions(ast.parse(source))
            if path.name != "__init__.py":  # gathers its modules: only those used count
                hashes[_key(path, name.split(".")[0])] = source_hash(source)
                queue.append((name, ON_IMPORT))
        bound, effects = parsed[name]
        statements = (effects if what == ON_IMPORT else
                      [s for names in bound.values() for s in names] if what is None else
                      bound.get(what, []))
        names, imports = _references(statements, name)
        queue += imports + [(name, used) for used in names if used in bound]
    if "kmlib/datasets.py" in hashes:
        for data in sorted((_package_folder("kmlib") / "data").iterdir()):
            if data.is_file() and data.suffix in (".csv", ".txt"):
                hashes[_key(data, "kmlib")] = _digest(data.read_bytes())
    return dict(sorted(hashes.items()))


def changed_code(stored, current):
    """Paths of the current fingerprint whose hash differs from the stored one's (or that it
    lacks). A path only the stored one lists is code the experiment no longer uses."""
    return sorted(path for path in current if stored.get(path) != current[path])


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
