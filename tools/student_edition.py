"""Write the students' edition of the exercise notebooks: solutions out, checks kept.

An exercise notebook (jupytext MyST markdown) marks its answers in two ways:

* the derivation sits in a ``{solution}`` directive (backtick or colon fence);
* code that is the answer sits between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` lines, the
  markers nbgrader uses.

The students' copy drops the directives and replaces each marked block with a placeholder at the
same indentation, so the notebook still parses and the checks below the block are untouched.

Usage::

    python tools/student_edition.py . _build/student

writes the students' notebooks, ``_build/student/notebooks/exercises/<chapter>/ex-*.md`` and the
matching ``.ipynb``, and the source of the students' website, ``_build/student/site``: the whole
book with the exercises replaced by their students' versions.
``make student`` then builds that site into ``_build/student/site/_build/html``. Its chapter
pages take their outputs from the main book's execution cache (so build the book first, or they
run again); the exercise pages are not executed, since without their answers they would fail.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import jupytext
import yaml

SOLUTION_DIRECTIVE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{solution\}")
BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN SOLUTION[ \t]*$")
END = re.compile(r"^[ \t]*# END SOLUTION[ \t]*$")

#: What a student sees where the answer code was (nbgrader's convention).
PLACEHOLDER = ("# YOUR CODE HERE", 'raise NotImplementedError("write your solution here")')


def strip_solutions(text, placeholder=PLACEHOLDER):
    """Remove solution directives and answer code from the text of an exercise notebook.

    Parameters
    ----------
    text : str
        The notebook as jupytext MyST markdown.
    placeholder : sequence of str
        Lines written, at the block's indentation, where answer code was removed.

    Returns
    -------
    str
        The students' version.

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
        begin = BEGIN.match(lines[i])
        if directive:
            fence = directive["fence"]
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence), None)
            if end is None:
                raise ValueError(f"line {i + 1}: the {{solution}} directive is never closed")
            i = end + 1
            # drop one blank line after the directive so that none pile up
            if i < len(lines) and not lines[i].strip() and out and not out[-1].strip():
                i += 1
        elif begin:
            end = next((j for j in range(i + 1, len(lines)) if END.match(lines[j])), None)
            if end is None:
                raise ValueError(f"line {i + 1}: '# BEGIN SOLUTION' has no '# END SOLUTION'")
            out.extend(f"{begin['indent']}{line}\n" for line in placeholder)
            i = end + 1
        else:
            out.append(lines[i])
            i += 1
    return "".join(out)


def write_student_edition(source_dir, output_dir):
    """Write stripped ``.md`` and ``.ipynb`` copies of every exercise notebook.

    Parameters
    ----------
    source_dir : path
        Folder searched recursively for ``ex-*.md``.
    output_dir : path
        Folder that receives the copies, mirroring the source layout under ``source_dir``'s name.

    Returns
    -------
    list of Path
        The ``.md`` files written.
    """
    source_dir, output_dir = Path(source_dir), Path(output_dir)
    written = []
    for source in sorted(source_dir.rglob("ex-*.md")):
        target = output_dir / source_dir.name / source.relative_to(source_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        student = strip_solutions(source.read_text(encoding="utf-8"))
        target.write_text(student, encoding="utf-8")
        jupytext.write(jupytext.reads(student, fmt="md:myst"), target.with_suffix(".ipynb"))
        written.append(target)
    return written


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
    write_student_edition(root / "exercises", site_dir)
    for notebook in (site_dir / "exercises").rglob("*.ipynb"):
        notebook.unlink()  # the .md is the page; a second copy would be a duplicate document

    shutil.copy(root / "_toc.yml", site_dir / "_toc.yml")
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    config["title"] = f"{config['title']} (students' edition)"
    execute = config.setdefault("execute", {})
    execute["cache"] = str((root / execute.get("cache", "_build/.jupyter_cache")).resolve())
    # matched from the right of each path: exercises/<chapter>/<page>; without their answers
    # these notebooks would stop with errors
    execute["exclude_patterns"] = ["exercises/*/*"]
    config.setdefault("html", {})["announcement"] = ANNOUNCEMENT
    (site_dir / "_config.yml").write_text(
        yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    return site_dir


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: python tools/student_edition.py REPOSITORY OUTPUT_DIR")
    root, output = Path(argv[1]), Path(argv[2])
    written = write_student_edition(root / "exercises", output / "notebooks")
    print(f"wrote {len(written)} student notebooks (.md and .ipynb) under {output / 'notebooks'}")
    site = write_student_site(root, output / "site")
    print(f"wrote the students' website source to {site}")


if __name__ == "__main__":
    main(sys.argv)
