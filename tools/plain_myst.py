"""Turn the book's MyST Markdown into plain Markdown that any Jupyter renders.

The book's pages are written in MyST: labels (``(name)=``), roles (``{cite}``, ``{ref}``,
``{numref}``, ``{doc}``, ``{glue:text}``) and directives (``{dropdown}``, ``{literalinclude}``,
admonitions). Outside the book's build they show as raw syntax. :class:`Page` rewrites a page's
Markdown for a notebook that stands on its own:

* labels are dropped;
* ``{cite}`` becomes author-year text, and the page remembers what it cited (its reference list);
* ``{ref}``, ``{numref}`` and ``{doc}`` become links to the neighbouring notebook, or to the
  website for pages that are not notebooks; figures are numbered within each page, in order;
* a glue role becomes the value the executed build stored for it, formatted as myst-nb does;
* a dropdown becomes an HTML ``<details>`` block, an admonition a block quote, a
  ``literalinclude`` the code it includes.

Anything else raises :class:`MystSyntaxError`, so no MyST reaches a notebook unconverted. The
exercises (``tools/exercises.py``) and the chapters' notebooks edition (``tools/notebooks.py``)
share this one conversion.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BIBLIOGRAPHY = ROOT / "book" / "references.bib"

LABEL_LINE = re.compile(r"^\((?P<label>[\w.:-]+)\)=[ \t]*$")
ROLE = re.compile(r"\{(?P<name>[\w:-]+)\}`(?P<content>[^`]*)`")
ROLE_OR_CODE = re.compile(ROLE.pattern + r"|(?P<code>`+)[^`]+?(?P=code)")
DIRECTIVE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|:{3,})\{(?P<name>[\w-]+)\}[ \t]*(?P<argument>.*)$"
)
OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*)$")
EXPLICIT_TARGET = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
REMOVED_MARKDOWN = re.compile(r'^\+\+\+ \{[^\n]*"remove-cell"[^\n]*\}[ \t]*\n.*?(?=^\+\+\+|^```|\Z)',
                              re.M | re.S)
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
#: A code cell's figure name, in its options (``mystnb: figure: name: fig-...``).
FIGURE_NAME = re.compile(r"\A---\n(?:.*\n)*?[ \t]+figure:[ \t]*\n(?:[ \t]+.*\n)*?"
                         r"[ \t]+name:[ \t]*(?P<name>[\w.-]+)")
HEADING = re.compile(r"^#{1,6}[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*$")
ADMONITIONS = {"note", "tip", "hint", "important", "warning", "caution", "attention", "danger",
               "error", "seealso", "admonition"}


#: What MyST leaves in Markdown: a role, a directive's opening fence, a target label.
MYST = re.compile(r"\{[\w:-]+\}`[^`]*`|^[ \t]*(?:`{3,}|:{3,})\{[\w-]+\}|^\([\w.:-]+\)=[ \t]*$",
                  re.M)


def myst_constructs(text):
    """The MyST syntax left in ``text`` (Markdown), outside double-backtick code spans."""
    return [match.group(0) for match in MYST.finditer(re.sub(r"``[^`]+``", "", text))]


class MystSyntaxError(ValueError):
    """MyST syntax with no plain-Markdown form (or a reference that leads nowhere)."""


# --------------------------------------------------------------------------- bibliography


@dataclass(frozen=True)
class Reference:
    """One bibliography entry: ``names`` ("Rasmussen and Williams"), ``year``, full ``text``."""

    names: str
    year: str
    text: str

    @property
    def label(self):
        """The entry as the subject of a sentence: "Rasmussen and Williams (2006)"."""
        return f"{self.names} ({self.year})"


def _field(entry, name):
    match = re.search(rf"\b{name}\s*=\s*\{{(?P<value>(?:[^{{}}]|\{{[^{{}}]*\}})*)\}}", entry, re.S)
    return re.sub(r"\s+", " ", match["value"].replace("{", "").replace("}", "")).strip() \
        if match else None


def read_bibliography(path=BIBLIOGRAPHY):
    """Read a BibTeX file into a mapping from key to :class:`Reference`.

    Parameters
    ----------
    path : path
        A BibTeX file.

    Returns
    -------
    dict of str to Reference
    """
    references = {}
    for entry in re.split(r"\n(?=@)", Path(path).read_text(encoding="utf-8")):
        key = re.match(r"@\w+\{([^,]+),", entry.strip())
        authors, year = _field(entry, "author"), _field(entry, "year")
        if not (key and authors and year):
            continue
        surnames = [name.split(",")[0].strip() for name in authors.split(" and ")]
        names = " and ".join(surnames) if len(surnames) <= 2 and "others" not in surnames \
            else f"{surnames[0]} et al."
        where = [_field(entry, name) for name in ("journal", "booktitle", "publisher", "school")]
        parts = [f"{authors.replace(' and others', ' et al.')} ({year}).",
                 f"*{_field(entry, 'title')}*."]
        parts += [f"{value}." for value in where if value]
        references[key[1]] = Reference(names, year, " ".join(parts))
    return references


# --------------------------------------------------------------------------- the whole book


def docname(path, root=ROOT):
    """A page's name as Sphinx knows it: its path in the book, without suffix (a file outside
    the book: its name)."""
    path, root = Path(path).resolve(), Path(root).resolve()
    if not path.is_relative_to(root):
        return path.stem
    return path.relative_to(root).with_suffix("").as_posix()


@dataclass
class Book:
    """What converting one page needs to know about the others.

    ``titles`` maps each page's docname to its title, ``sections`` each label to the page and
    heading it marks, ``figures`` each figure name to its page and number within the page;
    ``notebooks`` is the set of pages that are notebooks beside this one (the others are linked
    on the website at ``website``).
    """

    root: Path
    bibliography: dict
    titles: dict = field(default_factory=dict)
    sections: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)
    notebooks: set = field(default_factory=set)
    website: str = ""

    @classmethod
    def read(cls, root=ROOT):
        """Read every page of the book under ``root`` (chapters, exercises and ``book/``)."""
        root = Path(root).resolve()
        config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
        book = cls(root, read_bibliography(root / "book" / "references.bib"),
                   website=config.get("html", {}).get("baseurl", "").rstrip("/"))
        pages = [*root.glob("chapters/*/*.md"), *root.glob("exercises/*/ex-*.md"),
                 *root.glob("book/**/*.md")]
        for page in sorted(pages):
            book._read_page(page)
        book.notebooks = {name for name in book.titles
                          if name.startswith(("chapters/", "exercises/"))}
        return book

    def _read_page(self, path):
        name = docname(path, self.root)
        label, figure_number = None, 0
        for kind, text in _cells(path.read_text(encoding="utf-8")):
            if kind == "code":
                figure = FIGURE_NAME.search(text)
                if figure:
                    figure_number += 1
                    self.figures[figure["name"]] = (name, figure_number)
                continue
            for line in _outside_fences(text):
                if LABEL_LINE.match(line):
                    label = LABEL_LINE.match(line)["label"]
                    continue
                heading = HEADING.match(line)
                if heading:
                    title = _plain_title(heading["title"])
                    self.titles.setdefault(name, title)
                    if label:
                        self.sections[label] = (name, title)
                elif line.strip() and label:
                    self.sections[label] = (name, None)  # a label on something else
                if line.strip():
                    label = None

    def link(self, target, here):
        """A Markdown link target for page ``target`` seen from page ``here``."""
        if target in self.notebooks:
            return os.path.relpath(f"{target}.ipynb", Path(here).parent.as_posix())
        return f"{self.website}/{target}.html"


def shown_cells(notebook):
    """The cells of a page that the website shows or runs: all but the markdown cells tagged
    ``remove-cell`` (each page's first cell is one: the front matter only jupyterlab-myst reads,
    which numbers no equation in ``make lab``)."""
    return [cell for cell in notebook.cells
            if cell.cell_type != "markdown" or "remove-cell" not in cell.metadata.get("tags", [])]


def _cells(text):
    """Split a jupytext MyST page into ``("markdown" | "code", text)`` pieces (front matter and
    markdown cells tagged ``remove-cell`` dropped; a code piece is a code cell's options and
    source)."""
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    text = REMOVED_MARKDOWN.sub("", text)
    pieces = CODE_CELL.split(text)
    for index, piece in enumerate(pieces):
        yield ("code" if index % 2 else "markdown"), piece


def _outside_fences(text):
    """The lines of ``text`` that are not inside a fenced block."""
    fence = None
    for line in text.splitlines():
        opening = re.match(r"^\s*(`{3,}|:{3,})", line)
        if fence is None and opening:
            fence = opening[1]
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None:
            yield line


def _plain_title(title):
    """A heading's text without Markdown emphasis or maths delimiters' surrounding spaces."""
    return re.sub(r"[*_]{1,2}(\S.*?\S|\S)[*_]{1,2}", r"\1", title).strip()


@cache
def the_book(root=ROOT):
    """The book under ``root``, read once per process."""
    return Book.read(root)


# --------------------------------------------------------------------------- directives


@dataclass
class Directive:
    """One directive: its name, argument, options, body (dedented, options removed), the
    indentation of its fence and its source ``lines``, fences included."""

    name: str
    argument: str
    options: dict
    body: list
    indent: str
    lines: list


def blocks(lines, where=""):
    """Yield each line of ``lines`` outside a directive as it is, and each directive (its own
    content left unparsed) as a :class:`Directive`. ``where`` starts the error message."""
    i = 0
    while i < len(lines):
        opening = DIRECTIVE.match(lines[i])
        if not opening:
            yield lines[i]
            i += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        end = next((j for j in range(i + 1, len(lines))
                    if lines[j].strip() == fence and lines[j].startswith(indent)), None)
        if end is None:
            raise MystSyntaxError(f"{where}the {{{opening['name']}}} directive at line {i + 1} "
                                  "is never closed")
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip()
                for line in lines[i + 1:end]]
        options = {}
        while body and OPTION.match(body[0]):
            option = OPTION.match(body.pop(0))
            options[option["key"]] = option["value"]
        yield Directive(opening["name"], opening["argument"].strip(), options, body, indent,
                        lines[i:end + 1])
        i = end + 1


# --------------------------------------------------------------------------- one page


@dataclass
class Page:
    """The conversion of one page's Markdown; ``glue`` maps glued keys to their outputs."""

    name: str
    book: Book
    glue: dict = field(default_factory=dict)
    cited: list = field(default_factory=list)

    @property
    def folder(self):
        return self.book.root / Path(self.name).parent

    def markdown(self, text):
        """``text`` (one Markdown cell) in plain Markdown."""
        lines = [line for line in text.splitlines() if not LABEL_LINE.match(line)]
        return self._roles_outside_code(self._directives(lines))

    # directives

    def _directives(self, lines):
        out = []
        for block in blocks(lines, where=f"{self.name}: "):
            if isinstance(block, str):
                out.append(block)
                continue
            rendered = self._directive(block.name, block.argument, block.options, block.body)
            out += [block.indent + line if line else "" for line in rendered]
        return "\n".join(out)

    def _directive(self, name, argument, options, body):
        inner = self._directives(body).splitlines()
        if name == "dropdown":
            return ["<details>", f"<summary>{argument or 'Details'}</summary>", "", *inner, "",
                    "</details>"]
        if name in ADMONITIONS:
            title = argument if name == "admonition" else (argument or name.capitalize())
            quoted = [f"> **{title}.**", ">", *(f"> {line}".rstrip() for line in inner)]
            return quoted
        if name == "math":
            return ["$$", *inner, "$$"]
        if name == "literalinclude":
            return ["```python", *self._included(argument, options), "```"]
        raise MystSyntaxError(f"{self.name}: no plain-Markdown form for the {{{name}}} directive")

    def _included(self, argument, options):
        source_file = (self.folder / argument).resolve()
        source = source_file.read_text(encoding="utf-8")
        wanted = options.get("pyobject")
        if not wanted:
            return source.rstrip("\n").splitlines()
        for node in ast.parse(source).body:
            if getattr(node, "name", None) == wanted:
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                return source.splitlines()[first - 1:node.end_lineno]
        raise MystSyntaxError(f"{self.name}: {argument} defines no {wanted}")

    # roles

    def _roles_outside_code(self, text):
        # a role is matched before a code span starting at the same place; a code span keeps
        # what it shows (a backtick pair between two roles is not a code span)
        return ROLE_OR_CODE.sub(lambda m: self._role(m) if m["name"] else m[0], text)

    def _role(self, match):
        name, content = match["name"], match["content"]
        handler = {"cite": self._cite, "cite:p": self._cite, "cite:t": self._cite_textual,
                   "ref": self._ref, "numref": self._numref, "doc": self._doc,
                   "glue": self._glue, "glue:text": self._glue, "glue:any": self._glue,
                   "eq": self._eq, "math": lambda content: f"${content}$"}.get(name)
        if handler is None:
            raise MystSyntaxError(f"{self.name}: no plain-Markdown form for the {{{name}}} role")
        return handler(content)

    def _references(self, content):
        keys = [key.strip() for key in content.split(",")]
        missing = [key for key in keys if key not in self.book.bibliography]
        if missing:
            raise MystSyntaxError(f"{self.name}: citation key(s) {missing} are not in the "
                                  "bibliography")
        self.cited += [key for key in keys if key not in self.cited]
        return [self.book.bibliography[key] for key in keys]

    def _cite(self, content):
        return "(" + "; ".join(f"{r.names}, {r.year}" for r in self._references(content)) + ")"

    def _cite_textual(self, content):
        return "; ".join(reference.label for reference in self._references(content))

    def _split(self, content):
        explicit = EXPLICIT_TARGET.match(content)
        return (explicit["text"], explicit["target"].strip()) if explicit else (None, content)

    def _doc(self, content):
        text, target = self._split(content)
        path = target.lstrip("/") if target.startswith("/") else \
            (Path(self.name).parent / target).as_posix()
        path = os.path.normpath(path)
        if path not in self.book.titles:
            raise MystSyntaxError(f"{self.name}: {{doc}} to a page that does not exist: {target}")
        return f"[{text or self.book.titles[path]}]({self.book.link(path, self.name)})"

    def _ref(self, content):
        text, label = self._split(content)
        if label not in self.book.sections:
            raise MystSyntaxError(f"{self.name}: {{ref}} to an unknown label: {label}")
        page, title = self.book.sections[label]
        text = text or title or self.book.titles[page]
        return text if page == self.name else f"[{text}]({self.book.link(page, self.name)})"

    def _numref(self, content):
        text, name = self._split(content)
        if name not in self.book.figures:
            raise MystSyntaxError(f"{self.name}: {{numref}} to an unknown figure: {name}")
        page, number = self.book.figures[name]
        text = (text or "Figure %s").replace("%s", str(number)).replace("{number}", str(number))
        if page == self.name:
            return text
        return f"{text} of [{self.book.titles[page]}]({self.book.link(page, self.name)})"

    def _eq(self, content):
        raise MystSyntaxError(f"{self.name}: {{eq}} roles are not used: tag the equation and "
                              f"write its number ({content})")

    def _glue(self, content):
        from myst_nb.core.variables import format_plain_text  # the build's own formatting

        key, _, spec = content.partition(":")
        if key not in self.glue:
            raise MystSyntaxError(f"{self.name}: no glued value {key!r} in the executed page")
        return format_plain_text(self.glue[key]["data"]["text/plain"], spec)

    def reference_list(self):
        """The Markdown of a "References" section for what the page cited (empty if nothing)."""
        if not self.cited:
            return ""
        entries = sorted(self.book.bibliography[key].text for key in self.cited)
        return "## References\n\n" + "\n".join(f"- {entry}" for entry in entries)
