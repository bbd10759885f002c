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
    "kgbench.demo.cli",
)


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every stage's subcommands registered."""
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
    for name in _STAGES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the process exit code (also used by ``sys.exit``)."""
    parser = build_parser()
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
