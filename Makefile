# The two commands of the README: `make run` and `make test`. Each creates the virtual
# environment on first use and installs what it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean browser postgres screenshots

# The web table's tests drive Debian's chromium (Playwright's own browser download cannot
# work offline), with fonts that show Chinese and emoji in the screenshots.
BROWSER_PACKAGES := chromium fonts-noto-cjk fonts-noto-color-emoji

$(BIN)/activate-stamp: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

run: $(BIN)/activate-stamp
	$(BIN)/python -m bot run

browser:
	@if [ -x /usr/bin/chromium ] && fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing $(BROWSER_PACKAGES) for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null; \
	else \
		echo "the browser tests need Debian's packages: $(BROWSER_PACKAGES) (run as root, or install them)"; \
		exit 1; \
	fi

# The storage tests and a set of end-to-end tests run on SQLite and on PostgreSQL: a throwaway
# cluster of Debian's server for the run (bench/pgcluster.py). Without it (no root, no apt)
# the PostgreSQL half is skipped with what to install; once installed, a skip is a failure.
POSTGRES_PACKAGES := postgresql
HAS_POSTGRES := ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1

postgres:
	@if $(HAS_POSTGRES); then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing $(POSTGRES_PACKAGES) for the PostgreSQL half of the tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(POSTGRES_PACKAGES) >/dev/null; \
	else \
		echo "the PostgreSQL half of the tests needs Debian's $(POSTGRES_PACKAGES) (run as root, or install it): running the SQLite half only"; \
	fi

test: $(BIN)/activate-stamp browser postgres
	$(BIN)/ruff check bot fakebot tests bench
	$(BIN)/mypy --strict bot
	$(BIN)/lint-imports
	REQUIRE_POSTGRESQL=$$($(HAS_POSTGRES) && echo 1) $(BIN)/python -m pytest

# The README's pictures: the browser tests write their screenshots to build/screenshots/ on
# every run; this writes them to docs/screenshots/ instead, to be looked at and committed.
screenshots: $(BIN)/activate-stamp browser
	SCREENSHOTS_DIR=docs/screenshots $(BIN)/python -m pytest -n 0 tests/web/test_browser.py tests/web/test_feel.py

lint: $(BIN)/activate-stamp
	$(BIN)/ruff check bot fakebot tests bench
	$(BIN)/lint-imports

bench: $(BIN)/activate-stamp
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench.engine

clean:
	rm -rf $(VENV)
