# The companion's commands. Each creates .venv (Python 3.11) and installs the
# pinned environment first if needed.
#   make figures [PROFILE=default|ci|thesis]   execute every notebook, write figures/
#   make test                                  unit, statistical and notebook tests
#   make lab | make bench | make notebooks | make clean

PROFILE ?= default
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: figures test lab bench notebooks clean install

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -c constraints.txt -e ".[dev]"
	$(PY) -c "from dpnn.run import ensure_kernel; ensure_kernel()"
	@touch $(STAMP)

figures: $(STAMP)
	$(PY) -m dpnn.run --profile $(PROFILE)

test: $(STAMP)
	$(PY) -m pytest

lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/

bench: $(STAMP)
	@for script in benchmarks/bench_*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

# Re-execute every notebook under the default profile and store its outputs (maintainers).
notebooks: $(STAMP)
	$(PY) -m dpnn.run --profile default --store

clean:
	rm -rf build .pytest_cache
