# The companion's commands. Each creates .venv (Python 3.11 to 3.13) and installs the
# pinned environment first if needed (scripts/venv.sh: the Python is checked first, and
# a venv on another Python than PYTHON=... or with an unfinished install is recreated).
#   make install                               the environment only (.venv and the kernel)
#   make doctor                                report Python, venv, kernel, chromium, disk
#   make figures [PROFILE=default|ci|thesis] [ARGS=...]  every notebook, write figures/
#   make test                                  unit, statistical, notebook and book (browser) tests
#   make unit                                  the tests without nbval and the browser
#   make unit PYTHON=python3.13 VENV=.venv313  the same on another Python (3.11 to 3.13)
#   make book                                  the offline HTML book in build/book/html
#   make book-serve                            build it and serve it on 127.0.0.1:8000
#   make pdf                                   the book as one PDF (build/book/dpnn-companion.pdf)
#   make student                               the seminar handout: notebooks without solutions in build/student
#   make lab                                   JupyterLab on copies in build/lab (make lab-reset starts over)
#   make run NB=05 ARGS="-p epsilon 0.5"       run one notebook (any options of python -m companion.run)
#   make format                                ruff format lib, tests, benchmarks, notebooks' code (88 columns)
#   make bench | make notebooks | make clean

PROFILE ?= default
# The first of these that runs (a pyenv shim may exist without its version).
PYTHON ?= $(shell for p in python3.11 python3.12 python3.13 python3; do $$p -c '' >/dev/null 2>&1 && { command -v $$p; break; }; done)
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# PYTHON given on the command line or in the environment: the venv must be on it.
PYTHON_EXPLICIT := $(if $(filter command line environment,$(origin PYTHON)),1,0)
VENV_SCRIPT = PYTHON="$(PYTHON)" PYTHON_EXPLICIT=$(PYTHON_EXPLICIT) VENV="$(VENV)" sh scripts/venv.sh

.PHONY: format book-serve pdf figures test unit lab lab-reset run bench notebooks clean install book browser student doctor force

install: $(STAMP)

# With PYTHON=... the check runs every time (a venv on another Python is recreated).
ifeq ($(PYTHON_EXPLICIT),1)
$(STAMP): force
endif
$(STAMP): pyproject.toml constraints.txt
	@$(VENV_SCRIPT) install

doctor:
	@$(VENV_SCRIPT) doctor

force:

figures: $(STAMP)
	$(PY) -m companion.run --profile $(PROFILE) $(ARGS)

# The book's browser test drives Debian's chromium (playwright's own browser download is not used).
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing chromium (Debian package) for the book's browser test"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "chromium is missing: run 'sudo apt-get install chromium' (the book's browser test needs it)"; exit 1; \
	  fi; }

test: $(STAMP) browser
	$(PY) -m pytest

unit: $(STAMP)
	$(PY) -m pytest tests -m "not browser"

book: $(STAMP)
	$(PY) -m companion.book

# The whole book as one PDF (build/book/dpnn-companion.pdf), printed by chromium.
pdf: $(STAMP)
	$(PY) -m companion.pdf

# The book served on http://127.0.0.1:8000 (search with snippets); Ctrl-C stops.
book-serve: $(STAMP)
	$(PY) -m companion.book --serve

student: $(STAMP)
	$(PY) -m companion.student

# The reader's copies live in build/lab: created on first use, never overwritten, never notebooks/.
lab: $(STAMP)
	$(PY) -m companion.lab

lab-reset:
	rm -rf build/lab

# One notebook (or all with NB unset) under PROFILE, with the runner's options in ARGS.
run: $(STAMP)
	$(PY) -m companion.run --profile $(PROFILE) $(NB) $(ARGS)

bench: $(STAMP)
	@for script in benchmarks/bench_*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

# Re-execute every notebook under the default profile and store its outputs (maintainers).
notebooks: $(STAMP)
	$(PY) -m companion.run --profile default --store

# Python and the notebooks' code cells to 88 columns with ruff ([tool.ruff] in
# pyproject.toml); outputs and metadata are left as they are, nothing is executed. Lines
# ruff cannot break (long strings, comments, docstrings) are shortened by hand;
# tests/test_notebooks.py and tests/test_architecture.py check every line.
format: $(STAMP)
	$(PY) -m ruff format notebooks/*.ipynb lib tests benchmarks

clean:
	rm -rf build .pytest_cache
