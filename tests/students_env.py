"""A fresh virtual environment with what the students' guide installs, and nothing else.

Students install the kmlib wheel, matplotlib and a Jupyter. Tests may not download anything, so
the environment borrows the project's installed copies of exactly those packages and of what they
require (and of ``nbclient``, to run notebooks from a test): each is linked into a folder of its
own that a ``.pth`` line puts on the new environment's path. Nothing else of the project's
environment is visible there (no myst-nb, no jupyter-book, no editable kmlib), and kmlib comes
only from the wheel, installed with ``pip --no-index``.
"""

from __future__ import annotations

import re
import subprocess
import venv
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

#: What the students' guide has students install besides the wheel (a Jupyter kernel stands for
#: JupyterLab; nbclient runs the notebooks in the tests).
STUDENT_PACKAGES = ("matplotlib", "ipykernel", "nbclient")


def _closure(names):
    """The distributions ``names`` need, with everything they require (extras left out)."""
    environment = {**default_environment(), "extra": ""}
    seen, todo = {}, list(names)
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen:
            continue
        distribution = metadata.distribution(name)
        seen[name] = distribution
        for line in distribution.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate(environment):
                todo.append(requirement.name)
    return seen


def _top_level(distribution):
    """The names a distribution installs at the top of site-packages."""
    names = {Path(str(file)).parts[0] for file in distribution.files or []}
    return {name for name in names if name not in ("..", "bin", "__pycache__")
            and not name.endswith(".pth")}


def students_environment(folder, wheel):
    """Make the environment in ``folder`` and install ``wheel`` there; return its Python.

    Parameters
    ----------
    folder : Path
        An empty folder (a test's ``tmp_path``).
    wheel : Path
        The kmlib wheel.

    Returns
    -------
    Path
        The new environment's ``python``.
    """
    kmlib_requires = [Requirement(line).name for line in metadata.requires("kmlib") or []
                      if "extra ==" not in line]
    packages = folder / "borrowed"
    packages.mkdir()
    for distribution in _closure([*kmlib_requires, *STUDENT_PACKAGES]).values():
        site = Path(distribution.locate_file(""))
        for name in _top_level(distribution):
            if (site / name).exists() and not (packages / name).exists():
                (packages / name).symlink_to(site / name)
    environment = folder / "env"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                              "['purelib'])"], capture_output=True, text=True,
                             check=True).stdout.strip()
    Path(purelib, "borrowed-packages.pth").write_text(f"{packages}\n")
    install = subprocess.run(
        [python, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", wheel],
        capture_output=True, text=True, cwd=folder,
    )
    if install.returncode:
        raise RuntimeError(f"pip could not install {wheel.name}:\n{install.stderr}")
    return python
