# Two commands: `make run` starts everything, `make test` checks everything (and
# `make banner` prints a running `make run`'s addresses and key again).
# The venv's interpreter: PYTHON when given (make PYTHON=python3.12), else the fastest
# Python 3.11+ on PATH (bench/fastest_python.py: builds of one version differ by 10-15 %).
PYTHON ?=
VENV := .venv
BIN := $(VENV)/bin
# `make run` installs what serving needs (the project); `make test` and the checks add the
# test extra (pytest, ruff, mypy, the validators, Playwright...): a first `make run` waits
# for no test tool. Each stamp is remade when pyproject.toml changes.
RUN_STAMP := $(VENV)/.run-stamp
STAMP := $(VENV)/.installed-stamp
# No pip self-check against the index (a request, and a notice nobody asked for).
PIP := $(BIN)/python -m pip --disable-pip-version-check --quiet

.PHONY: run banner test lint typecheck openapi release-openapi bench clean browser clients

# The venv, with a pip of its own. When the chosen interpreter has pip 22.3+ (`--python`),
# that pip installs the venv's, uncompiled (1-2 s), rather than ensurepip installing and
# compiling its bundled pip and setuptools (4-5 s); else ensurepip does. Either pip is new
# enough for an editable install of a pyproject.toml project (21.3+): no upgrade step.
OUTER_PIP_OK := import sys, importlib.metadata as m; \
	sys.exit(tuple(map(int, m.version("pip").split(".")[:2])) < (22, 3))
$(BIN)/python:
	@py="$(PYTHON)"; [ -n "$$py" ] || py=$$(python3 bench/fastest_python.py) || exit 1; \
	  "$$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "stakeout needs Python 3.11+"; exit 1; }; \
	  if "$$py" -c '$(OUTER_PIP_OK)' 2>/dev/null; then \
	    echo "$$py -m venv --without-pip $(VENV) (its pip from $$py's pip)"; \
	    "$$py" -m venv --without-pip $(VENV) || exit 1; \
	    "$$py" -m pip --disable-pip-version-check --quiet --python $(BIN)/python install --no-compile pip || \
	      $(BIN)/python -m ensurepip --upgrade; \
	  else echo "$$py -m venv $(VENV)"; "$$py" -m venv $(VENV); fi

# No bytecode compiled at install: pip would compile every file of every package (5 s of
# CPU here), most never imported when serving. One import of the modules the processes of
# `make run` start from compiles what they load (about 600 files, 2-3 s; the few dozen the
# app loads later compile on first use), written even under PYTHONDONTWRITEBYTECODE: once,
# not at every start.
SERVING_MODULES := stakeout.cli stakeout.supervisor service.app workers.main \
	uvicorn.main uvicorn.supervisors service.http.protocol
$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install --no-compile -e .
	@$(BIN)/python -c 'import importlib, sys; sys.dont_write_bytecode = False; \
	  [importlib.import_module(name) for name in sys.argv[1:]]' $(SERVING_MODULES)
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml clients/typescript/package-lock.json lint/asyncapi-schema/package-lock.json | $(BIN)/python
	$(PIP) install -e '.[test]'
	cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error
	cd lint/asyncapi-schema && npm ci --no-audit --no-fund --loglevel=error
	touch $(RUN_STAMP) $(STAMP)

run: $(RUN_STAMP)
	$(BIN)/stakeout run

# The running `make run`'s addresses and API key, again (its banner scrolls away).
banner: $(RUN_STAMP)
	@$(BIN)/stakeout banner

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
	$(BIN)/deptry .
	$(BIN)/python -m lint.asyncapi

typecheck: $(STAMP)
	$(BIN)/mypy

openapi: $(RUN_STAMP)
	$(BIN)/stakeout export-openapi --output openapi/v1.json

# The deliberate release step (docs/contract-releases.md): what clients may now rely on.
# tests/contract/test_v1_grows.py keeps every later v1.json a growth of this copy.
release-openapi: openapi
	cp openapi/v1.json openapi/v1-released.json

# The SDKs' generated wire types, from openapi/v1.json (docs/clients.md); a test fails while
# the committed ones differ from what the contract generates.
clients: $(STAMP)
	$(BIN)/python clients/python/generate.py
	cd clients/typescript && npm run --silent generate

bench: $(RUN_STAMP)
	$(BIN)/python bench/playthrough_rate.py

clean:
	rm -rf $(VENV) .data .mypy_cache .ruff_cache

# The schemathesis CLI against a real server, every check and phase, seeds 11, 1, 2 and 3
# (docs/contract-releases.md; takes minutes, so not part of `make test`).
contract-cli: $(STAMP)
	$(BIN)/python -m tests.contract.schemathesis_cli
