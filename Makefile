# kgbench — `make demo` and `make test` set up everything on a fresh machine:
# a .venv/ at the root with kgbench built in release mode, and the local Neo4j
# (built with Maven from Maven Central). Nothing else needs installing by hand.

SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)

PYTHON ?= python3
VENV   := $(CURDIR)/.venv
PY     := $(VENV)/bin/python
RUST_SOURCES := $(shell find rust -name '*.rs' -o -name 'Cargo.toml') Cargo.toml Cargo.lock pyproject.toml

.PHONY: setup build neo4j demo test lint test-rust test-python bench clean

setup: build neo4j

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

# The local Neo4j launcher (neo4j-local/), built with Maven.
neo4j:
	@if [ -f neo4j-local/pom.xml ]; then $(MAKE) -C neo4j-local build; fi

demo: setup
	$(VENV)/bin/kgbench demo

lint: build
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --release -- -D warnings
	$(VENV)/bin/ruff check python tests benches
	$(VENV)/bin/ruff format --check python tests benches
	$(VENV)/bin/mypy

test-rust:
	cargo test --release -p kgbench-core

test-python: setup
	$(PY) -m pytest -q

test: setup lint test-rust test-python

bench: setup
	$(PY) benches/run_all.py

clean:
	rm -rf $(VENV) target neo4j-local/target
