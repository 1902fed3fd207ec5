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
run: $(BIN)/.installed
	scripts/run

# Runs the whole test suite (headless Chromium is installed from Debian's packages if missing).
test: $(BIN)/.installed
	scripts/ensure-chromium
	$(BIN)/pytest $(PYTEST_ARGS)

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
