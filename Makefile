# Two commands set everything up on a fresh clone: `make book` and `make test`.
# Both create .venv when it is missing and (re)install kmlib when pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.kmlib-installed

.PHONY: book test student lab bench clean

# The execution cache keys on each notebook's own code, so it cannot see a change in kmlib:
# drop the cache whenever a kmlib source file is newer than the last build.
KMLIB_SOURCES := $(wildcard kmlib/*.py kmlib/*/*.py)
CACHE_STAMP   := _build/.kmlib-sources

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[book,test]"
	touch $@

# Notebooks run with one BLAS thread in the tests and in the build alike, so that both see the
# same rounding (and, for the tests, so that parallel workers do not compete for the cores).
ONE_BLAS_THREAD := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

## book: build the website into _build/html (strict, offline; notebooks cached between builds)
book: $(STAMP) $(CACHE_STAMP)
	$(ONE_BLAS_THREAD) $(BIN)/jupyter-book build --all -W -n --keep-going .

$(CACHE_STAMP): $(KMLIB_SOURCES)
	rm -rf _build/.jupyter_cache
	mkdir -p _build && touch $@

## test: kmlib unit tests, every notebook (nbval) and the student-edition checks
# One test file per worker on every core, each with one BLAS thread.
test: $(STAMP)
	$(ONE_BLAS_THREAD) $(BIN)/python -m pytest -n auto --dist loadfile

## student: solution-free exercise notebooks (.md and .ipynb) in _build/student
student: $(STAMP)
	$(BIN)/python tools/student_edition.py exercises _build/student

## lab: open the MyST notebooks as notebooks in JupyterLab (jupytext pairs them on the fly)
lab: $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"
	$(BIN)/jupyter lab --ServerApp.contents_manager_class=jupytext.TextFileContentsManager

## bench: time kmlib against the reference libraries (prints ratios and agreement)
bench: $(STAMP)
	for script in benchmarks/bench_*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf _build
