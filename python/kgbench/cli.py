"""The ``kgbench`` command line.

Each pipeline stage registers its subcommands from ``kgbench.<stage>.cli``
through a ``register(subparsers)`` function. Exit codes: 0 success, 2 usage
error (argparse), 1 failure with a one-line message on stderr (the Python
traceback only with ``--debug``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from kgbench import __version__

#: Modules whose ``register(subparsers)`` adds subcommands, in help order.
_STAGES = (
    "kgbench.convert.cli",
    "kgbench.neo4j.cli",
    "kgbench.evaluate.score_cli",
    "kgbench.evaluate.evaluate_cli",
    "kgbench.iso.cli",
    "kgbench.generate.cli",
    "kgbench.generate.pipe.cli",
    "kgbench.generate.pipe.diversity_cli",
    "kgbench.generate.synth.stats_cli",
    "kgbench.noise.cli",
    "kgbench.rdb.cli",
    "kgbench.rdb.translate_cli",
    "kgbench.rdb.validate_cli",
    "kgbench.demo.cli",
)

#: The module registering each subcommand: running one command imports only its module
#: (``kgbench score`` then starts without the Neo4j driver, Parquet or RDF libraries).
#: ``tests/test_cli.py`` checks this table against what the modules register.
_COMMAND_MODULES = {
    "convert": "kgbench.convert.cli",
    "neo4j": "kgbench.neo4j.cli",
    "load": "kgbench.neo4j.cli",
    "schema": "kgbench.neo4j.cli",
    "score": "kgbench.evaluate.score_cli",
    "evaluate": "kgbench.evaluate.evaluate_cli",
    "iso": "kgbench.iso.cli",
    "generate": "kgbench.generate.cli",
    "gate": "kgbench.generate.pipe.cli",
    "diversity": "kgbench.generate.pipe.diversity_cli",
    "synth": "kgbench.generate.synth.stats_cli",
    "noise": "kgbench.noise.cli",
    "rdb": "kgbench.rdb.cli",
    "sql2sparql": "kgbench.rdb.translate_cli",
    "validate-translation": "kgbench.rdb.validate_cli",
    "demo": "kgbench.demo.cli",
}

#: Top-level options (none takes a value, so the first other argument is the command).
_TOP_OPTIONS = ("--debug",)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Return the top-level parser with every stage's subcommands registered, or, given a
    known ``command``, only the stage defining it (faster start-up; same parsing of that
    command's arguments)."""
    stages = _STAGES if command not in _COMMAND_MODULES else (_COMMAND_MODULES[command],)
    parser = argparse.ArgumentParser(
        prog="kgbench",
        description="Precise retrieval over knowledge graphs: convert Wikidata RDF to "
        "property graphs, load them into Neo4j, and score text-to-Cypher / KGQA predictions.",
    )
    parser.add_argument("--version", action="version", version=f"kgbench {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show the Python traceback when a command fails"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in stages:
        importlib.import_module(name).register(sub)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv``, if it comes after top-level options only."""
    for arg in argv:
        if arg not in _TOP_OPTIONS:
            return arg if arg in _COMMAND_MODULES else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the process exit code (also used by ``sys.exit``)."""
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(_command_of(argv))
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except KeyboardInterrupt:
        print("kgbench: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # one-line message unless --debug
        if args.debug:
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"kgbench {args.command}: error: {message}", file=sys.stderr)
        return 1
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
