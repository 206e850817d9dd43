"""Sphinx extension: link every public kmlib object in the reference to the pages about it.

Two kinds of links are appended to the docstring of each module, class, function and constant
named in its module's ``__all__``:

* **Derived in** — the pages that derive the object (for data sets: describe it), listed by
  hand in ``book/api/derivations.yml`` (an object's own entry, else its module's);
* **Used in** — every other page of the table of contents that imports it, found by reading the
  pages' ``from kmlib.<module> import ...`` lines.

``tests/test_reference.py`` checks that every public name has a "Derived in" page that exists.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import yaml

IMPORT = re.compile(r"^from kmlib\.(?P<module>\w+) import (?P<names>\([^)]*\)|[^\n]*)", re.M)


def toc_pages(root):
    """Document names of the table of contents, in reading order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                yield node["file"]
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    return [toc["root"], *walk(toc.get("parts", []))]


def imported_names(text):
    """``{(module, name), ...}`` imported by ``from kmlib.<module> import ...`` lines."""
    found = set()
    for match in IMPORT.finditer(text):
        names = match["names"].strip("()").split("#")[0]
        for part in re.split(r"[,\s]+", names):
            if part.isidentifier() and part != "as":
                found.add((match["module"], part))
    return found


def derivations(root):
    """Pages ``{"kmlib.mod": [...], "kmlib.mod.Name": [...]}`` and each module's link label
    (default "Derived in"), from ``book/api/derivations.yml``."""
    table = yaml.safe_load((root / "book" / "api" / "derivations.yml").read_text(encoding="utf-8"))
    pages, labels = {}, {}
    for module, entry in table.items():
        pages[f"kmlib.{module}"] = list(entry["module"])
        labels[f"kmlib.{module}"] = entry.get("label", "Derived in")
        for name, derived in (entry.get("objects") or {}).items():
            pages[f"kmlib.{module}.{name}"] = list(derived)
    return pages, labels


def derived_pages(table, qualified_name):
    """The pages that derive an object: its own entry, else its module's."""
    if qualified_name in table:
        return table[qualified_name]
    return table.get(qualified_name.rsplit(".", 1)[0], [])


def _public(qualified_name):
    """True for ``kmlib.mod`` and for ``kmlib.mod.Name`` with Name in the module's __all__."""
    parts = qualified_name.split(".")
    if parts[0] != "kmlib" or len(parts) not in (2, 3):
        return False
    if len(parts) == 2:
        return not parts[1].startswith("_")
    module = importlib.import_module(".".join(parts[:2]))
    return parts[2] in getattr(module, "__all__", ())


def _collect(app):
    root = Path(app.srcdir)
    app.env.kmlib_derived, app.env.kmlib_labels = derivations(root)
    usage = {}
    for page in toc_pages(root):
        path = root / f"{page}.md"
        if path.is_file():
            for module, name in imported_names(path.read_text(encoding="utf-8")):
                usage.setdefault(f"kmlib.{module}.{name}", []).append(page)
    app.env.kmlib_used = usage


def _links(pages):
    return ", ".join(f":doc:`/{page}`" for page in pages)


def _append_links(app, what, name, obj, options, lines):
    if what not in ("module", "class", "function", "data") or not _public(name):
        return
    derived = derived_pages(app.env.kmlib_derived, name)
    used = [p for p in app.env.kmlib_used.get(name, []) if p not in derived]
    label = app.env.kmlib_labels.get(".".join(name.split(".")[:2]), "Derived in")
    lines.extend(["", f"**{label}** {_links(derived)}."])
    if used:
        lines.extend(["", f"**Used in** {_links(used)}."])


def setup(app):
    app.connect("builder-inited", _collect)
    app.connect("autodoc-process-docstring", _append_links)
    return {"version": "1.0", "parallel_read_safe": True}
