# Two entry points for a fresh Linux machine with Python >= 3.11:
#   make reproduce   -> builds .venv from requirements.lock, runs the full reproduction (snakemake --cores all)
#   make test        -> builds .venv from requirements.lock, runs the test suite
# Other targets: quick (the quick config), bench (benchmark suite), lint, docs (Sphinx site into
# docs/_build/html, warnings are errors), lock (re-pin the lock file).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORES ?= all
# pytest-xdist workers for make test: one per core; each test file stays on one worker
# (module fixtures build the quick workflows once).
TEST_WORKERS ?= auto
# Offline mirror of the raw data files: the sibling ../shared/datasets when it exists.
GRAPHDR_DATA_MIRROR ?= $(wildcard $(abspath ../shared/datasets))
export GRAPHDR_DATA_MIRROR
# numpy and scipy each bundle an OpenBLAS; idle threads of one pool spin for ~0.1 s and slow the
# other: spin 2^16 cycles instead (graphdr.pipeline.plan.BLAS_ENVIRONMENT, the same value)
export OPENBLAS_THREAD_TIMEOUT ?= 16

.PHONY: reproduce quick test bench lint docs lock clean-venv

$(BIN)/.installed: requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $@

reproduce: $(BIN)/.installed
	$(BIN)/snakemake --cores $(CORES)

quick: $(BIN)/.installed
	$(BIN)/snakemake --cores $(CORES) --configfile config/quick.yaml

test: $(BIN)/.installed
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

bench: $(BIN)/.installed
	$(BIN)/python -m benchmarks

lint: $(BIN)/.installed
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/snakefmt --check Snakefile workflow/rules

docs: $(BIN)/.installed
	$(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html

lock:
	uv pip compile requirements.in --python-version 3.11 -o requirements.lock --custom-compile-command "make lock"

clean-venv:
	rm -rf $(VENV)
