# Two entry points for a fresh Linux machine with Python >= 3.11:
#   make reproduce   -> builds .venv from requirements.lock, runs the full reproduction (snakemake --cores all)
#   make test        -> builds .venv from requirements.lock, runs the test suite
# Other targets: quick (the quick config), overlays (the sensitivity runs whose outputs are committed
# beside the primary ones), bench (benchmark suite), lint, docs (Sphinx site into
# docs/_build/html, warnings are errors), lock (re-pin the lock file).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORES ?= all
# pytest-xdist workers for make test: one per core; each test file stays on one worker
# (module fixtures build the quick workflows once), in the order tests/conftest.py gives them
# (the quick build first, its copies last: --no-loadscope-reorder keeps that order).
TEST_WORKERS ?= auto
# Offline mirror of the raw data files: the sibling ../shared/datasets when it exists.
GRAPHDR_DATA_MIRROR ?= $(wildcard $(abspath ../shared/datasets))
export GRAPHDR_DATA_MIRROR
# numpy and scipy each bundle an OpenBLAS; idle threads of one pool spin for ~0.1 s and slow the
# other: spin 2^16 cycles instead (graphdr.pipeline.plan.BLAS_ENVIRONMENT, the same value)
export OPENBLAS_THREAD_TIMEOUT ?= 16

.PHONY: reproduce quick overlays test bench lint docs lock clean-venv

# The lock is installed by uv (pinned, from PyPI, into .venv itself): about 20 s where pip
# takes about 70 s on 2 cores (measured 2026-11-24), with the same pinned versions and
# precompiled bytecode. pip does it instead wherever uv cannot be installed or fails.
UV_VERSION ?= 0.13.9
UV_INSTALL = $(BIN)/uv pip install -q --python $(BIN)/python --compile-bytecode

$(BIN)/.installed: requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	if $(BIN)/python -m pip install -q uv==$(UV_VERSION) && $(UV_INSTALL) -r requirements.lock; \
	then $(UV_INSTALL) --no-deps -e .; \
	else echo "uv unavailable: installing with pip" && \
		$(BIN)/python -m pip install -q --upgrade pip && \
		$(BIN)/python -m pip install -q -r requirements.lock && \
		$(BIN)/python -m pip install -q --no-deps -e .; fi
	touch $@

reproduce: $(BIN)/.installed
	$(BIN)/snakemake --cores $(CORES)

quick: $(BIN)/.installed
	$(BIN)/snakemake --cores $(CORES) --configfile config/quick.yaml

# Every overlay config (an `overlay:` section): its run, then its published files copied to
# paper_figures/<paper>/<folder>/ (rule copy_overlay_outputs; docs/workflow.md)
OVERLAYS := $(shell grep -l '^overlay:' config/*.yaml)
overlays: $(BIN)/.installed
	for c in $(OVERLAYS); do $(BIN)/snakemake --cores $(CORES) copy_overlay_outputs --configfile $$c || exit 1; done

test: $(BIN)/.installed
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

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
