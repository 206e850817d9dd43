"""Stored results are current: every results file a page reads was computed by the code in the
repository now (``experiments.fingerprint``), and the runner will not mix in results of other
code."""

import json
import re
import warnings
from pathlib import Path

import pytest

from experiments.__main__ import main
from experiments.fingerprint import changed_code, code_fingerprint, source_hash
from experiments.runner import load_results, staleness

ROOT = Path(__file__).resolve().parents[1]

SOURCE = '''"""A module."""

SCALE = 2.0  # a comment


def twice(x):
    """Twice x."""
    return SCALE * x
'''


def pages_reading(name):
    """The book's pages that read ``results/NAME.json``."""
    pattern = re.compile(rf"""stored_results\(["']{re.escape(name)}["']\)""")
    return sorted(str(page.relative_to(ROOT)) for page in ROOT.glob("chapters/*/*.md")
                  if pattern.search(page.read_text(encoding="utf-8")))


def test_a_fingerprint_sees_code_not_docstrings_comments_or_layout():
    reworded = SOURCE.replace('"""Twice x."""', '"""Two times x, documented again."""')
    reworded = reworded.replace("# a comment", "# another comment").replace("\n\n\n", "\n\n")
    assert source_hash(reworded) == source_hash(SOURCE)
    assert source_hash(SOURCE.replace("2.0", "3.0")) != source_hash(SOURCE)
    assert source_hash(SOURCE.replace("SCALE * x", "x * SCALE")) != source_hash(SOURCE)


def test_a_fingerprint_follows_the_imports_an_experiment_makes():
    files = code_fingerprint("experiments.chu_sinc")
    # direct imports, imports of imports, and kmlib.smo's import of its compiled loop, which
    # sits inside a function
    for path in ("experiments/chu_sinc.py", "experiments/model_selection.py", "kmlib/bsvr.py",
                 "kmlib/smo.py", "kmlib/_smo_loop.py", "kmlib/datasets.py",
                 "kmlib/data/santafe_laser_a.txt"):
        assert path in files, path
    # modules the experiment does not use, and the runner, which computes no result
    for path in ("kmlib/rvm.py", "kmlib/btsvc.py", "experiments/runner.py", "kmlib/__init__.py"):
        assert path not in files, path


def test_relative_imports_resolve_from_the_importing_module_or_package():
    import ast

    from experiments.fingerprint import _import_targets

    def targets(statement, module):
        return _import_targets(ast.parse(statement).body[0], module)

    # kmlib/__init__.py imports its own modules; kmlib/gp.py its siblings, whole or by name
    assert targets("from . import bsvr", "kmlib") == [("kmlib.bsvr", None)]
    assert targets("from . import _linalg", "kmlib.gp") == [("kmlib._linalg", None)]
    assert targets("from .kernels import RBF", "kmlib.gp") == [("kmlib.kernels", "RBF")]
    assert targets("import numpy as np", "kmlib.gp") == []


def test_a_fingerprint_leaves_out_imported_code_that_is_never_reached():
    # chu_raetsch takes only at_stored from model_selection, which also imports BayesianSVR for
    # its BSVR helpers: BTSVC's results do not depend on BayesianSVR's code
    raetsch = code_fingerprint("experiments.chu_raetsch")
    assert "experiments/model_selection.py" in raetsch and "kmlib/btsvc.py" in raetsch
    assert "kmlib/bsvr.py" not in raetsch
    # a module the stored run used and the code no longer reaches is no change; a new one is
    stored = dict(raetsch, **{"kmlib/bsvr.py": "0" * 16})
    assert changed_code(stored, raetsch) == []
    del stored["kmlib/btsvc.py"]
    assert changed_code(stored, raetsch) == ["kmlib/btsvc.py"]


#: results files known to be stale that pages still read, each with why it has not been run
#: again yet; a page that reads one says so (``stored_results`` prints a note). An entry goes
#: when its file is regenerated: the test fails while a listed file is current, and for any
#: stale file not listed
REGENERATION_PENDING: dict[str, str] = {}


def test_every_results_file_a_page_reads_was_computed_by_the_current_code():
    stale = {}
    for path in sorted((ROOT / "results").glob("*.json")):
        reasons = staleness(load_results(path))
        if reasons:
            stale[path.stem] = (reasons, pages_reading(path.stem))
    for name, (reasons, pages) in stale.items():
        if not pages:  # listed, but no page's numbers depend on it
            warnings.warn(f"results/{name}.json is stale ({reasons[0]}); no page reads it")
        elif name in REGENERATION_PENDING:
            warnings.warn(f"results/{name}.json is stale and due to be run again: "
                          f"{REGENERATION_PENDING[name]}")
    read = {name: entry for name, entry in stale.items()
            if entry[1] and name not in REGENERATION_PENDING}
    assert not read, "stale results files that pages read:\n" + "\n".join(
        f"results/{name}.json, read by {', '.join(pages)}:\n    " + "\n    ".join(reasons)
        + f"\n  regenerate: rm results/{name}.json; python -m experiments {name} with the "
          "options of its last run (python -m experiments status)"
        for name, (reasons, pages) in read.items())
    regenerated = sorted(set(REGENERATION_PENDING) - set(stale))
    assert not regenerated, f"current again, take them off REGENERATION_PENDING: {regenerated}"


def test_the_runner_refuses_to_resume_a_file_of_other_code(tmp_path):
    out = tmp_path / "table-4.3.json"
    main(["table-4.3", "--sizes", "50", "--betas", "0.3", "--splits", "1", "--out", str(out)])
    stored = load_results(out)
    run = stored["runs"][-1]
    assert run["code"]["kmlib/bsvr.py"] == code_fingerprint("experiments.chu_sinc")[
        "kmlib/bsvr.py"]
    assert run["numerics"]["blas"] and run["numerics"]["numba_cpu"]
    assert staleness(stored) == []
    run["code"]["kmlib/bsvr.py"] = "0" * 16  # as if bsvr.py had changed since
    out.write_text(json.dumps(stored))
    assert staleness(load_results(out)) == ["run 0: code changed since: kmlib/bsvr.py"]
    with pytest.raises(SystemExit, match="computed by other code .* kmlib/bsvr.py"):
        main(["table-4.3", "--sizes", "50,100", "--betas", "0.3", "--splits", "1",
              "--out", str(out)])


def test_a_page_reading_a_stale_file_is_told_so_once(monkeypatch, capsys):
    from experiments import runner

    reasons = {"table-4.3": ["run 0: code changed since: kmlib/bsvr.py, kmlib/smo.py"],
               "table-4.6": []}
    monkeypatch.setattr(runner, "staleness", lambda stored: reasons[stored["experiment"]])
    monkeypatch.setattr(runner, "_REPORTED_STALE", set())
    for name in ("table-4.3", "table-4.3", "table-4.6"):
        assert runner.stored_results(name)["experiment"] == name
    printed = capsys.readouterr().out.splitlines()
    assert printed == ["Note: results/table-4.3.json was computed by an earlier version of the "
                       "code and is due to be run again (python -m experiments status says what "
                       "changed)."]


def test_outside_the_repository_the_installed_kmlib_is_what_is_checked(tmp_path):
    """As in the notebooks edition: ``experiments/`` and ``results/`` in a folder of their own,
    kmlib installed elsewhere. The check reads the kmlib that runs, so a stored result stays
    current with the same code and goes stale when the installed kmlib computes otherwise."""
    import shutil
    import subprocess
    import sys

    edition, site = tmp_path / "edition", tmp_path / "site-packages"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "experiments", edition / "experiments", ignore=ignore)
    shutil.copytree(ROOT / "kmlib", site / "kmlib", ignore=ignore)
    (edition / "results").mkdir()
    shutil.copy(ROOT / "results" / "table-4.3.json", edition / "results")
    ask = ("from experiments.runner import staleness, stored_results\n"
           "import kmlib\n"
           "print(kmlib.__file__)\n"
           "print(staleness(stored_results('table-4.3')))\n")

    def staleness_there():
        out = subprocess.run([sys.executable, "-c", ask], cwd=edition, check=True, text=True,
                             capture_output=True, env={"PYTHONPATH": str(site), "PATH": ""})
        return out.stdout.splitlines()

    kmlib_file, reasons = staleness_there()
    assert Path(kmlib_file).is_relative_to(site) and reasons == "[]"
    bsvr = site / "kmlib" / "bsvr.py"
    source = bsvr.read_text(encoding="utf-8")
    bsvr.write_text(source + "\nSCALE = 2.0\n", encoding="utf-8")  # code, not a docstring
    assert "code changed since: kmlib/bsvr.py" in staleness_there()[-1]
