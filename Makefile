# The two commands of the README: `make run` and `make test`. Each creates the virtual
# environment on first use and installs what it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean

$(BIN)/activate-stamp: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

run: $(BIN)/activate-stamp
	$(BIN)/python -m bot run

test: $(BIN)/activate-stamp
	$(BIN)/ruff check bot fakebot tests bench
	$(BIN)/mypy --strict bot
	$(BIN)/python -m pytest

lint: $(BIN)/activate-stamp
	$(BIN)/ruff check bot fakebot tests bench

bench: $(BIN)/activate-stamp
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench.engine

clean:
	rm -rf $(VENV)
