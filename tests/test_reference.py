"""The kmlib reference covers every public module and links every public name to its pages."""

import importlib
import pkgutil
import sys
from pathlib import Path

import pytest

import kmlib

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import kmlib_reference  # noqa: E402  (the Sphinx extension, importable without Sphinx)

PUBLIC_MODULES = sorted(
    info.name for info in pkgutil.iter_modules(kmlib.__path__) if not info.name.startswith("_")
)
PAGES = set(kmlib_reference.toc_pages(ROOT))
DERIVED, LABELS = kmlib_reference.derivations(ROOT)


def test_every_public_module_is_exported_and_has_a_reference_page_in_the_contents():
    assert set(PUBLIC_MODULES) == set(kmlib.__all__)
    for module in PUBLIC_MODULES:
        page = ROOT / "book" / "api" / f"{module}.md"
        assert f".. automodule:: kmlib.{module}" in page.read_text(encoding="utf-8"), module
        assert f"book/api/{module}" in PAGES, f"book/api/{module} is not in _toc.yml"


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_every_public_name_links_to_pages_in_the_contents(module):
    names = importlib.import_module(f"kmlib.{module}").__all__
    assert names, f"kmlib.{module} has an empty __all__"
    for name in [None, *names]:
        qualified = f"kmlib.{module}" if name is None else f"kmlib.{module}.{name}"
        pages = kmlib_reference.derived_pages(DERIVED, qualified)
        assert pages, f"{qualified} has no 'Derived in' page in book/api/derivations.yml"
        missing = [page for page in pages if page not in PAGES]
        assert not missing, f"{qualified}: {missing} are not pages of _toc.yml"


def test_derivations_file_names_only_existing_objects():
    for qualified in DERIVED:
        parts = qualified.split(".")
        module = importlib.import_module(".".join(parts[:2]))
        if len(parts) == 3:
            assert parts[2] in module.__all__, f"{qualified} is not public"


def test_imports_are_read_from_single_and_parenthesised_lines():
    text = (
        "from kmlib.rvm import RVR, design_matrix  # comment\n"
        "from kmlib.svm import (\n    SVC,\n    NuSVR,\n)\n"
        "import kmlib.gp as gp\n"
    )
    assert kmlib_reference.imported_names(text) == {
        ("rvm", "RVR"),
        ("rvm", "design_matrix"),
        ("svm", "SVC"),
        ("svm", "NuSVR"),
    }


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_docstrings_hold_no_control_characters(module):
    """A backslash escape in a docstring that is not raw (``"\\alpha"`` is a bell and "lpha")
    turns TeX into garbage on the reference pages."""
    mod = importlib.import_module(f"kmlib.{module}")
    objects = [mod, *(getattr(mod, name) for name in mod.__all__)]
    for obj in list(objects):
        if isinstance(obj, type):
            objects += [value for value in vars(obj).values() if callable(value)]
    for obj in objects:
        doc = getattr(obj, "__doc__", None) or ""
        bad = sorted({repr(c) for c in doc if ord(c) < 32 and c not in "\n"})
        assert not bad, f"{getattr(obj, '__qualname__', obj)} has {bad} in its docstring"
