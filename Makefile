# Task commands for working on pbem (each is one line you can also type yourself).
# Run from the repository root.  `make check` is what CI runs before the tests.
PY ?= python3
export PYTHONPATH := $(CURDIR)

.PHONY: help install lint format format-check types check test test-one test-postgres coverage coverage-core bench docs

help:  ## list the tasks
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

install:  ## the package with its test extras, editable
	$(PY) -m pip install -e '.[test]'

lint:  ## ruff's rules (pyproject.toml [tool.ruff.lint])
	ruff check .

format:  ## rewrite the code in the project's format
	ruff format .

format-check:  ## fail if a file is not formatted
	ruff format --check .

types:  ## mypy as configured in pyproject.toml
	mypy

check: lint format-check types  ## lint, format and types, as .ci/run checks them

test:  ## the whole suite on two workers (about 7 minutes on 2 cores, 10 at most): the README's test command
	$(PY) -m pytest

test-one:  ## one test file in one process: make test-one T=tests/test_layers.py
	$(PY) -m pytest -n 0 -q $(T)

test-postgres:  ## the PostgreSQL tier in this run's own database (starts the cluster: bash .ci/postgres)
	$(PY) -m pytest -n 1 -m postgres tests/test_postgres.py

fuzz:  ## the property tests (Hypothesis) with a fresh draw on each of RUNS runs (the suite's draw is fixed)
	for i in $$(seq $(RUNS)); do PBEM_HYPOTHESIS=explore $(PY) -m pytest -q $$(grep -rl "from hypothesis" tests) || exit 1; done

RUNS = 5

coverage:  ## the suite with line coverage of pbem, as CI reports it (total on the TOTAL line)
	PYTEST_ADDOPTS="$(COVERAGE_FLAGS)" $(PY) -m pytest

COVERAGE_FLAGS = --cov=pbem --cov-report=term:skip-covered  # as .ci/run adds them

coverage-core:  ## line coverage of the core by its own tiers (tests/engine, tests/app), as every CI run reports it
	$(PY) -m pytest -q tests/engine tests/app $(CORE_COVERAGE)

CORE_COVERAGE = --cov=pbem.engine --cov=pbem.app --cov=pbem.orders --cov=pbem.trust --cov-report=term:skip-covered

bench:  ## the quick benchmarks (benchmarks/README.md has each script's full size)
	$(PY) benchmarks/idle_poll.py --runs 5
	$(PY) benchmarks/engine_speed.py --games 3
	$(PY) benchmarks/poll_throughput.py --messages 40 --games 5

docs:  ## write pbem/engine/rulings.py from docs/rulings.md, then check every cited ruling is shown
	PBEM_UPDATE_GOLDEN=1 $(PY) -m pytest -n 0 -q tests/test_rulings.py -k shipped
	$(PY) -m pytest -n 0 -q tests/test_rulings.py
