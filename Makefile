# The two commands a newcomer needs:  `make run`  and  `make test`.
# Both create .venv and install what they need on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint ci messages docs

$(BIN)/.installed: requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

# Runs the demo: migrate, seed the two venues, an admin user (password printed), the ASGI server on
# 127.0.0.1:8000 and the floor simulator. Embedded SQLite unless DATABASE_URL / REDIS_URL are set.
# WIDE_AREA=1: the wide-area Jumbo 7 instead, a link and two casinos on ports 8000-8002 (scripts/run-wide-area).
run: $(BIN)/.installed
	$(if $(WIDE_AREA),scripts/run-wide-area,scripts/run)

# Runs the whole test suite (headless Chromium is installed from Debian's packages if missing) on
# TEST_WORKERS pytest-xdist workers, each with its own test database and Redis database (0: one process).
# --dist loadgroup keeps the tests that share a private stack on one worker (tests/conftest.py); the workers'
# test databases are copies of one migrated template (tests/template_db.py). No test asserts a wall-clock
# goal (those are the benchmarks' figures, bench/): the suite's limits are the product's own (a sign's 10 s
# before it warns, the gateway's 12 s of freshness). TEST_REPORT=path writes JUnit XML (path.xml).
TEST_WORKERS ?= 2
TEST_REPORT ?=
test: $(BIN)/.installed
	scripts/ensure-chromium
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup \
		$(if $(TEST_REPORT),--junitxml=$(TEST_REPORT).xml) $(PYTEST_ARGS)

lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	DEBUG=1 $(BIN)/mypy
	DEBUG=1 $(BIN)/python manage.py makemigrations --check --dry-run
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The manual (docs/) as a static site in site/: open site/index.html; no request leaves the machine.
docs: $(BIN)/.installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# CI: starts PostgreSQL/Redis if down, lint, migration check, the tests on the real services, no skips.
ci:
	.ci/run

# Refreshes the Italian catalogue after changing translatable strings (needs gettext), then compiles it.
messages: $(BIN)/.installed
	DEBUG=1 $(BIN)/python manage.py makemessages -l it --ignore=var --ignore=tests --ignore=test-artifacts --no-obsolete
	DEBUG=1 $(BIN)/python manage.py compilemessages -l it --ignore=.venv
