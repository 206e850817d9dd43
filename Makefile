# Two commands set everything up on a fresh clone: `make book` and `make test`.
# Both create .venv when it is missing and (re)install kmlib when pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.kmlib-installed

.PHONY: book test test-portable notebooks test-notebooks student wheel course browser lab bench clean

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

# The graders run students' code in a bubblewrap sandbox (Debian's package bubblewrap).
SANDBOX := command -v bwrap >/dev/null || (apt-get update -qq && apt-get install -y -qq bubblewrap)

## test: kmlib unit tests and docstring examples (doctests), every notebook (nbval) and the
## student-edition checks
# One test file per worker on every core, each with one BLAS thread.
test: $(STAMP)
	$(SANDBOX)
	$(ONE_BLAS_THREAD) $(BIN)/python -m pytest -n auto --dist loadfile

## test-portable: every page, exercise, numerical test and docstring example again in a second
## numerical environment: another OpenBLAS kernel than this processor's and numba's generic
## x86-64 target (tools/other_numerics.py), so that a check that holds for one processor's
## rounding only fails where it is written. The tests of the tooling (nbgrader course, students'
## edition, grader, reference pages) compute nothing that depends on the processor and run once,
## in `make test`.
TOOLING_TESTS := test_course_cli test_course_prml06 test_course_prml07 test_grade \
                 test_hostile_grading test_grading_engine test_exercise_messages \
                 test_student_edition test_student_wheel test_reference test_pages \
                 test_notebooks_edition
test-portable: $(STAMP)
	env $$($(BIN)/python tools/other_numerics.py) $(ONE_BLAS_THREAD) $(BIN)/python -m pytest \
		-n auto --dist loadfile chapters exercises tests kmlib \
		$(foreach t,$(TOOLING_TESTS),--ignore=tests/$(t).py)

## student: the students' edition: the notebooks edition (chapters and solution-free exercises,
## .ipynb, plain Markdown) in _build/student/notebooks, the kmlib wheel in _build/student, and the
## students' website in _build/student/site/_build/html (its chapter pages reuse the main build's
## execution cache and the edition its glued numbers: run `make book` first)
student: $(STAMP) $(CACHE_STAMP)
	$(BIN)/python tools/student_edition.py . _build/student
	$(ONE_BLAS_THREAD) $(BIN)/jupyter-book build --all -W -n --keep-going _build/student/site

## notebooks: the notebooks edition in _build/notebooks: every chapter page and every exercise as a
## plain .ipynb for any Jupyter, with the experiments' code and stored results they read (the
## numbers in the chapters' text come from the book's build: run `make book` first)
notebooks: $(STAMP)
	$(BIN)/python tools/notebooks.py . _build/notebooks

## test-notebooks: no MyST left in any notebook of the edition, and every chapter notebook run top
## to bottom in a fresh environment that has only the kmlib wheel, matplotlib and a kernel
test-notebooks: notebooks
	$(ONE_BLAS_THREAD) $(BIN)/python -m pytest -n auto --dist load -m edition \
		tests/test_notebooks_edition.py

## wheel: only the kmlib wheel that students install, in _build/student
wheel: $(STAMP)
	$(BIN)/python tools/student_edition.py . _build/student --wheel-only

## course: the exercises as an nbgrader course in _build/course (one assignment per exercise,
## or the problem sets of a YAML file: make course PROBLEM_SETS=sets.yml)
course: $(STAMP)
	$(SANDBOX)
	$(BIN)/python tools/course.py --out _build/course $(if $(PROBLEM_SETS),--problem-sets $(PROBLEM_SETS))

## browser: load both built websites in headless Chromium (Debian's chromium and chromedriver,
## installed here when missing) with the network off; screenshots go to _build/screenshots
browser: $(STAMP)
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq chromium chromium-driver)
	$(BIN)/python -m pytest -m browser tests/browser

## lab: open the MyST pages as notebooks in JupyterLab, rendered by jupyterlab-myst. It listens on
## LAB_IP:LAB_PORT (default 127.0.0.1:8888); on a remote machine, either tunnel the port
## (ssh -L 8888:localhost:8888 HOST) or listen on every interface (make lab LAB_IP=0.0.0.0),
## then open the address with its token that JupyterLab prints.
LAB_IP   ?= 127.0.0.1
LAB_PORT ?= 8888
lab: $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[lab]"
	@echo "JupyterLab will listen on $(LAB_IP):$(LAB_PORT). Open the http://...?token=... address it"
	@echo "prints below. From another computer: ssh -L $(LAB_PORT):localhost:$(LAB_PORT) THIS-HOST"
	@echo "and open it there, or run make lab LAB_IP=0.0.0.0 and use this machine's address."
	KMLIB_LAB_IP=$(LAB_IP) KMLIB_LAB_PORT=$(LAB_PORT) \
		$(BIN)/jupyter lab --config=tools/jupyterlab/jupyter_lab_config.py

## bench: time kmlib against the reference libraries (prints ratios and agreement)
bench: $(STAMP)
	for script in benchmarks/bench_*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf _build
