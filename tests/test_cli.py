"""The CLI's contract: --version, --help per subcommand, exit codes."""

from __future__ import annotations

import subprocess
import sys

import pytest

import kgbench
from convert_helpers import run_kgbench
from kgbench.cli import build_parser, main


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_kgbench(*args)


def test_version_matches_native_module() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"kgbench {kgbench.__version__}"
    assert kgbench.__version__.count(".") == 2


def test_usage_error_exits_2() -> None:
    proc = run_cli("no-such-command")
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


def test_missing_command_exits_2() -> None:
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2


def test_every_subcommand_has_help() -> None:
    parser = build_parser()
    sub_actions = [a for a in parser._actions if a.dest == "command"]
    assert sub_actions, "no subcommands registered"
    choices = sub_actions[0].choices
    assert choices is not None
    for name in choices:
        proc = run_cli(name, "--help")
        assert proc.returncode == 0, (name, proc.stderr)
        assert "usage: kgbench" in proc.stdout


def test_command_table_matches_registered_commands() -> None:
    """Every subcommand is in the lazy-import table, under the module that registers it."""
    import argparse
    import importlib

    from kgbench import cli

    seen: dict[str, str] = {}
    for module in cli._STAGES:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        importlib.import_module(module).register(sub)
        for name in sub.choices:
            seen[name] = module
    assert seen == cli._COMMAND_MODULES
    full = build_parser()
    listed = next(a for a in full._actions if a.dest == "command").choices
    assert listed is not None and set(listed) == set(seen)


def test_help_lists_every_subcommand_with_its_help() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())  # argparse wraps help lines at the terminal width
    for name, line in [
        ("score", "execution accuracy (EX) of predicted vs gold result files"),
        ("evaluate", "score text-to-Cypher predictions on Neo4j"),
        ("convert", "convert Wikidata RDF or JSON to a CypherBench property graph"),
        ("iso", "isomorphism types of GTSQA answer subgraphs"),
        ("rdb", "a SQLite database as RDF"),
        ("validate-translation", "SQL on SQLite vs its SPARQL"),
        ("noise", "NGDBench noise injection"),
    ]:
        assert f"{name} {line}" in text, (name, proc.stdout)


def test_score_starts_without_heavy_imports() -> None:
    """``kgbench score`` imports only its own stage: no Neo4j driver, numpy, polars, rdflib."""
    code = (
        "import sys\n"
        "from kgbench.cli import main\n"
        "try:\n"
        "    main(['--debug', 'score', '--gold', 'none.jsonl', '--pred', 'none.jsonl'])\n"
        "except OSError:\n"
        "    pass\n"
        "heavy = sorted(m for m in ('neo4j', 'numpy', 'polars', 'rdflib', 'pyarrow',\n"
        "    'kgbench.neo4j', 'kgbench.convert', 'kgbench.demo') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", proc.stdout


def test_top_level_options_before_the_command() -> None:
    proc = run_cli("--debug", "score", "--help")
    assert proc.returncode == 0
    assert "usage: kgbench score" in proc.stdout
