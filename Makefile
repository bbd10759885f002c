# kgbench — `make demo` and `make test` set up everything on a fresh machine:
# a .venv/ at the root with kgbench built in release mode, and the local Neo4j
# (built with Maven from Maven Central). Nothing else needs installing by hand.

SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)

PYTHON ?= python3
VENV   := $(CURDIR)/.venv
PY     := $(VENV)/bin/python
RUST_SOURCES := $(shell find rust -name '*.rs' -o -name 'Cargo.toml') Cargo.toml Cargo.lock pyproject.toml

.PHONY: setup build neo4j neo4j-lock wheel browser demo test test-quick lint test-rust test-python bench docs clean

setup: build neo4j browser

# Python virtual environment with maturin; the runtime and development dependencies come from
# pyproject.toml (installed by `maturin develop -E dev` below).
$(VENV)/.deps-stamp:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip "maturin>=1.7,<2"
	touch $@

# Release build of the native module into the venv, with the dependencies of pyproject.toml
# (skipped when nothing changed).
$(VENV)/.build-stamp: $(VENV)/.deps-stamp $(RUST_SOURCES)
	cd $(CURDIR) && VIRTUAL_ENV=$(VENV) $(VENV)/bin/maturin develop --release --quiet --extras dev
	touch $@

build: $(VENV)/.build-stamp

# The local Neo4j launcher (neo4j-local/), built with Maven; its jar is copied into the Python
# package (git-ignored) for the wheels of pip users (kgbench.neo4j.artifacts). The jars of the
# further Neo4j releases `kgbench neo4j start --version` offers (one lock file each in
# python/kgbench/neo4j/data/, e.g. 2026.08.1 for Cypher 25) are fetched by Maven too, once (a few
# minutes, ~150 MB each), into neo4j-local/target/neo4j-VERSION/lib.
LAUNCHER_JAR := python/kgbench/neo4j/launcher/kgbench-neo4j-local.jar
NEO4J_EXTRA_VERSIONS := $(patsubst neo4j-artifacts-%.lock,%,$(notdir $(wildcard python/kgbench/neo4j/data/neo4j-artifacts-*.lock)))
neo4j:
	@if [ -f neo4j-local/pom.xml ]; then $(MAKE) -C neo4j-local build $(addprefix lib-,$(NEO4J_EXTRA_VERSIONS)) && \
	  mkdir -p $(dir $(LAUNCHER_JAR)) && \
	  { cmp -s neo4j-local/target/kgbench-neo4j-local.jar $(LAUNCHER_JAR) || \
	    cp -p neo4j-local/target/kgbench-neo4j-local.jar $(LAUNCHER_JAR); }; fi

# The lock files of Neo4j's jars that pip users download (python/kgbench/neo4j/data/), one per
# offered release: run after changing the dependencies of neo4j-local/pom.xml
# (tests/test_pip_install.py checks them). A new release V: `make -C neo4j-local lib-V`,
# `cd neo4j-local && python3 lock.py --version V`, then this target keeps it current.
neo4j-lock: neo4j
	cd neo4j-local && $(PYTHON) lock.py && \
	  for v in $(NEO4J_EXTRA_VERSIONS); do $(PYTHON) lock.py --version $$v || exit 1; done

# A wheel as pip users get it (launcher jar inside), for tests/test_pip_install.py: the same
# cargo flags and target directory as the development build above, so cargo has nothing to
# recompile and this only packages (release wheels for PyPI: .github/workflows/wheels.yml).
# `--compatibility linux`: the manylinux2014 tag of pyproject.toml needs the manylinux container.
WHEEL_DIR := $(CURDIR)/target/pip-wheel
wheel: build neo4j
	rm -rf $(WHEEL_DIR)
	VIRTUAL_ENV=$(VENV) $(VENV)/bin/maturin build --release --quiet --interpreter $(PY) \
	  $(if $(filter Linux,$(shell uname -s)),--compatibility linux) --out $(WHEEL_DIR)

# Chromium and ChromeDriver from Debian's packages, for the browser test of `kgbench report`
# (tests/test_report.py): installed with apt-get when missing, as root or with passwordless
# sudo; nothing to do when both are on PATH. Without apt-get or root, a warning: that test then
# skips saying why (under CI it fails instead), and every other test runs.
CHROMIUM_PACKAGES := chromium chromium-driver

browser:
	@if command -v chromedriver >/dev/null 2>&1 && { command -v chromium >/dev/null 2>&1 || \
	    command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; }; then \
	  exit 0; \
	fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "make browser: warning: no Chromium/ChromeDriver and no apt-get; install them by hand (the report's browser test skips)" >&2; \
	  exit 0; \
	fi; \
	if [ "$$(id -u)" = 0 ]; then SUDO=; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	else \
	  echo "make browser: warning: installing $(CHROMIUM_PACKAGES) needs root (or passwordless sudo); the report's browser test skips" >&2; \
	  exit 0; \
	fi; \
	echo "make browser: apt-get install $(CHROMIUM_PACKAGES)"; \
	$$SUDO apt-get update -qq && \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(CHROMIUM_PACKAGES) >/dev/null

demo: setup
	$(VENV)/bin/kgbench demo

lint: build
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --release -- -D warnings
	$(VENV)/bin/ruff check python tests benches docs/hooks.py
	$(VENV)/bin/ruff format --check python tests benches docs/hooks.py
	$(VENV)/bin/mypy

test-rust:
	cargo test --release -p kgbench-core

# tests/test_pip_install.py installs the wheel into a fresh virtual environment.
test-python: setup wheel
	KGBENCH_TEST_WHEEL_DIR=$(WHEEL_DIR) $(PY) -m pytest -q --durations=25

test: setup lint test-rust test-python

# The focused loop (docs/development.md, "Test loop"): no Neo4j, no browser, no slow test, no
# cargo test and no wheel; the markers come from tests/conftest.py (a test that starts a Neo4j
# without the neo4j marker fails). Under 3 minutes on the 2-core machine.
QUICK_MARKERS := not neo4j and not neo4j_cypher25 and not browser and not slow
test-quick: build
	$(PY) -m pytest -q -m "$(QUICK_MARKERS)" --durations=10

bench: setup
	$(PY) benches/run_all.py

# The documentation site (mkdocs.yml, docs/): the `docs` extra of pyproject.toml installed into
# the .venv (once, again when pyproject.toml changes), then a strict build into site/ (a broken
# link, anchor or API reference fails it). docs/hooks.py generates the CLI reference from the
# argparse parser of kgbench.cli, so the build imports the built package.
$(VENV)/.docs-stamp: $(VENV)/.build-stamp pyproject.toml
	$(PY) -c 'import sys; from pip._vendor import tomli; \
	  sys.stdout.write("\n".join(tomli.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["docs"]))' \
	  > $(VENV)/docs-requirements.txt
	$(PY) -m pip install --quiet -r $(VENV)/docs-requirements.txt
	touch $@

docs: build $(VENV)/.docs-stamp
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) target neo4j-local/target site
