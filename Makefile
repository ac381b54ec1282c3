# Two commands: `make run` starts everything, `make test` checks everything.
# The venv's interpreter: PYTHON when given (make PYTHON=python3.12), else the fastest
# Python 3.11+ on PATH (bench/fastest_python.py: builds of one version differ by 10-15 %).
PYTHON ?=
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint typecheck unit openapi release-openapi bench clean browser

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || { \
	  py="$(PYTHON)"; [ -n "$$py" ] || py=$$(python3 bench/fastest_python.py) || exit 1; \
	  "$$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "stakeout needs Python 3.11+"; exit 1; }; \
	  echo "$$py -m venv $(VENV)"; "$$py" -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/stakeout run

test: $(STAMP) lint typecheck browser
	$(BIN)/python -m pytest -q -n 2 -p no:cacheprovider

# The browser tests drive Debian's Chromium through Playwright (no browser download ever).
# Installed when missing; should that fail, the browser tests fail and say why.
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@test -x $(CHROMIUM) || { $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq -o DPkg::Lock::Timeout=600 && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
	    --no-install-recommends chromium fonts-dejavu-core; } || \
	  echo "could not install $(CHROMIUM) (Debian's chromium): the browser tests will fail"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

openapi: $(STAMP)
	$(BIN)/stakeout export-openapi --output openapi/v1.json

# The deliberate release step (docs/contract-releases.md): what clients may now rely on.
# tests/contract/test_v1_grows.py keeps every later v1.json a growth of this copy.
release-openapi: openapi
	cp openapi/v1.json openapi/v1-released.json

bench: $(STAMP)
	$(BIN)/python bench/playthrough_rate.py

clean:
	rm -rf $(VENV) .data .mypy_cache .ruff_cache

# The schemathesis CLI against a real server, every check and phase, seeds 11, 1, 2 and 3
# (docs/contract-releases.md; takes minutes, so not part of `make test`).
contract-cli: $(STAMP)
	$(BIN)/python -m tests.contract.schemathesis_cli
