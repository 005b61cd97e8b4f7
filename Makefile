# The two commands a newcomer runs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run chat test lint typecheck bench lock clean migrate

# Bytecode is compiled once here: a service user who cannot write the tree (or
# PYTHONDONTWRITEBYTECODE) would otherwise recompile every source on every start.
$(STAMP): requirements-dev.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check "uv==0.13.9"
	$(BIN)/uv pip sync --quiet --compile-bytecode --python $(BIN)/python requirements-dev.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	$(BIN)/python -m compileall -q bot db pipeline migrations
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/stepan run

chat: $(STAMP)
	$(BIN)/stepan chat --user $${USER:-farmer}

migrate: $(STAMP)
	$(BIN)/stepan migrate

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy bot db pipeline
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bench: $(STAMP)
	$(BIN)/python bench/light_path.py

# Re-resolve the pinned versions after editing pyproject.toml's dependencies.
lock: $(STAMP)
	$(BIN)/uv pip compile --quiet --python-version 3.11 pyproject.toml -o requirements.lock
	$(BIN)/uv pip compile --quiet --python-version 3.11 --extra dev pyproject.toml -o requirements-dev.lock

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
