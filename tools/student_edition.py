"""Write the students' edition: the notebooks edition, a kmlib wheel, the website.

The exercise sources follow the conventions of ``tools/exercises.py``. The students' edition

* writes the notebooks edition (``tools/notebooks.py``): every chapter page and every exercise as
  an ``.ipynb`` notebook for any Jupyter, in plain Markdown (no MyST); in the exercises the
  derivation and answer code are replaced by nbgrader's stubs, the checks kept and labelled with
  their marks (the same notebooks nbgrader releases);
* writes the source of the students' website: the book with each exercise page stripped of its
  ``{solution}`` and answer code (there the MyST directives stay, since Sphinx renders them).

Usage::

    python tools/student_edition.py . _build/student [--wheel-only]

writes the notebooks edition to ``_build/student/notebooks`` (its chapter notebooks take the numbers
they show from the main book's executed pages: build the book first), the kmlib wheel
``_build/student/kmlib-<version>-py3-none-any.whl`` and the site source ``_build/student/site``;
``make student`` then builds the site into ``_build/student/site/_build/html``. The site's chapter
pages take their outputs from the main book's execution cache (so build the book first, or they
run again); the exercise pages are not executed, since without their answers they would fail.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercises  # noqa: E402  (sibling scripts, not a package)
import notebooks  # noqa: E402

ROOT = exercises.ROOT

SOLUTION_DIRECTIVE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{solution\}")
CELL_BREAK = re.compile(r"^\+\+\+([ \t]+\{.*\})?[ \t]*$")

#: What a student sees where the answer code was (nbgrader's stub).
PLACEHOLDER = tuple(exercises.CODE_STUB.splitlines())


def strip_solutions(text, placeholder=PLACEHOLDER):
    """Remove solution directives and answer code from the MyST text of an exercise notebook.

    The cell breaks (``+++``) that set the derivation apart go with it.

    Parameters
    ----------
    text : str
        The notebook as jupytext MyST markdown.
    placeholder : sequence of str
        Lines written, at the block's indentation, where answer code was removed.

    Returns
    -------
    str
        The students' version, still MyST (for the students' website).

    Raises
    ------
    ValueError
        If a solution directive or a ``# BEGIN SOLUTION`` block is not closed.
    """
    lines = text.splitlines(keepends=True)
    out = []
    i = 0
    while i < len(lines):
        directive = SOLUTION_DIRECTIVE.match(lines[i])
        begin = exercises.BEGIN.match(lines[i])
        if directive:
            fence = directive["fence"]
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence), None)
            if end is None:
                raise ValueError(f"line {i + 1}: the {{solution}} directive is never closed")
            while out and (not out[-1].strip() or CELL_BREAK.match(out[-1])):
                out.pop()  # the cell break (with the derivation's points) before it
            out.append("\n")
            i = end + 1
            while i < len(lines) and (not lines[i].strip() or CELL_BREAK.match(lines[i])):
                i += 1  # and the one after it
        elif begin:
            end = next((j for j in range(i + 1, len(lines)) if exercises.END.match(lines[j])), None)
            if end is None:
                raise ValueError(f"line {i + 1}: '# BEGIN SOLUTION' has no '# END SOLUTION'")
            out.extend(f"{begin['indent']}{line}\n" for line in placeholder)
            i = end + 1
        else:
            out.append(lines[i])
            i += 1
    return "".join(out)


def build_wheel(output_dir, root=ROOT):
    """Build the kmlib wheel that students install, without network access.

    The package is copied to a temporary folder first, so that the build leaves nothing in the
    repository; the build uses the environment's setuptools (no build isolation, no download).

    Parameters
    ----------
    output_dir : path
        Folder that receives the wheel; earlier kmlib wheels in it are removed.
    root : path
        The repository.

    Returns
    -------
    Path
        The wheel.
    """
    output_dir = Path(output_dir).resolve()
    output_dir.mkdir(parents=True, exist_ok=True)
    for old in output_dir.glob("kmlib-*.whl"):
        old.unlink()
    with tempfile.TemporaryDirectory() as folder:
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(Path(root) / name, folder)
        shutil.copytree(
            Path(root) / "kmlib", Path(folder) / "kmlib",
            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
        )
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
             "--no-deps", "--no-build-isolation", "--wheel-dir", str(output_dir), folder],
            check=True,
        )
    (wheel,) = output_dir.glob("kmlib-*.whl")
    return wheel


#: Shown at the top of every page of the students' website.
ANNOUNCEMENT = "Students' edition: the exercises' solutions are not included."


def write_student_site(root, site_dir):
    """Write the source of the students' website: the book with the exercises stripped.

    The table of contents is the book's; the exercise pages are the students' versions and are
    not executed, and every page carries a banner that says which edition it is.

    Parameters
    ----------
    root : path
        The repository (holds ``_config.yml``, ``_toc.yml``, ``book/``, ``chapters/`` and
        ``exercises/``).
    site_dir : path
        Folder that receives the site's source; it is replaced if it exists.

    Returns
    -------
    Path
        ``site_dir``.
    """
    root, site_dir = Path(root).resolve(), Path(site_dir)
    if site_dir.exists():
        shutil.rmtree(site_dir)
    site_dir.mkdir(parents=True)
    for folder in ("book", "chapters"):
        shutil.copytree(root / folder, site_dir / folder, ignore=shutil.ignore_patterns("_build"))
    # the protocol code that pages show with literalinclude (MLAPP 14.6, Chu 4.5.3)
    shutil.copytree(root / "experiments", site_dir / "experiments",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for source in exercises.exercise_sources(root):
        page = site_dir / source.relative_to(root)
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(strip_solutions(source.read_text(encoding="utf-8")), encoding="utf-8")

    shutil.copy(root / "_toc.yml", site_dir / "_toc.yml")
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    config["title"] = f"{config['title']} (students' edition)"
    execute = config.setdefault("execute", {})
    execute["cache"] = str((root / execute.get("cache", "_build/.jupyter_cache")).resolve())
    # matched from the right of each path: exercises/<chapter>/<page>; without their answers
    # these notebooks would stop with errors
    execute["exclude_patterns"] = ["exercises/*/*"]
    config.setdefault("html", {})["announcement"] = ANNOUNCEMENT
    # the download buttons' notebooks are converted by the repository's tools
    config["sphinx"].setdefault("config", {})["book_tools_dir"] = str(root / "tools")
    (site_dir / "_config.yml").write_text(
        yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    return site_dir


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repository", type=Path)
    parser.add_argument("output", type=Path, help="for example _build/student")
    parser.add_argument("--wheel-only", action="store_true", help="only build the kmlib wheel")
    args = parser.parse_args(argv)
    wheel = build_wheel(args.output, args.repository)
    print(f"built {wheel}: students install it with `pip install {wheel.name}`")
    if args.wheel_only:
        return
    written = notebooks.write_edition(args.repository, args.output / "notebooks",
                                      executed=args.repository / "_build" / "jupyter_execute",
                                      wheel_name=wheel.name)
    print(f"wrote the notebooks edition ({len(written)} notebooks: chapters and exercises) "
          f"under {args.output / 'notebooks'}")
    site = write_student_site(args.repository, args.output / "site")
    print(f"wrote the students' website source to {site}")


if __name__ == "__main__":
    main()
