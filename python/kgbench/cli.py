"""The ``kgbench`` command line.

Each pipeline stage registers its subcommands from ``kgbench.<stage>.cli``, and the
commands that dispatch on a benchmark family from ``kgbench.commands.<command>``, through a
``register(subparsers)`` function. Exit codes: 0 success, 2 usage
error (argparse), 1 failure with a one-line message on stderr (the Python
traceback only with ``--debug``).

Libraries' own log lines (the Neo4j driver's "Unable to retrieve routing information",
"Failed to read from defunct connection", ...) stay off stderr: a failure reaches the user as
kgbench's one-line error. ``-v`` / ``--verbose``, ``--debug`` or ``$KGBENCH_LOG_LEVEL``
(``DEBUG``, ``INFO``, ``WARNING``, ...) show them.

:class:`kgbench.progress.Activity` (re-exported here as ``Activity``) shows what a long step
is doing; stage CLIs import it from :mod:`kgbench.progress`, below every stage.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import TracebackType
from typing import Any

from kgbench import __version__
from kgbench.progress import Activity as Activity  # kgbench.cli.Activity still works

#: Modules whose ``register(subparsers)`` adds subcommands, in help order.
_STAGES = (
    "kgbench.convert.cli",
    "kgbench.neo4j.cli",
    "kgbench.neo4j.deploy_cli",
    "kgbench.evaluate.score_cli",
    "kgbench.commands.evaluate",
    "kgbench.commands.audit",
    "kgbench.iso.cli",
    "kgbench.generate.cli",
    "kgbench.generate.pipe.cli",
    "kgbench.generate.pipe.diversity_cli",
    "kgbench.generate.synth.stats_cli",
    "kgbench.noise.cli",
    "kgbench.rdb.cli",
    "kgbench.rdb.translate_cli",
    "kgbench.rdb.validate_cli",
    "kgbench.report.cli",
    "kgbench.commands.run",
    "kgbench.commands.predict",
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
    "deploy": "kgbench.neo4j.deploy_cli",
    "score": "kgbench.evaluate.score_cli",
    "evaluate": "kgbench.commands.evaluate",
    "audit": "kgbench.commands.audit",
    "iso": "kgbench.iso.cli",
    "generate": "kgbench.generate.cli",
    "gate": "kgbench.generate.pipe.cli",
    "diversity": "kgbench.generate.pipe.diversity_cli",
    "synth": "kgbench.generate.synth.stats_cli",
    "noise": "kgbench.noise.cli",
    "rdb": "kgbench.rdb.cli",
    "sql2sparql": "kgbench.rdb.translate_cli",
    "validate-translation": "kgbench.rdb.validate_cli",
    "report": "kgbench.report.cli",
    "predict": "kgbench.commands.predict",
    "run": "kgbench.commands.run",
    "demo": "kgbench.demo.cli",
}

#: Top-level options (none takes a value, so the first other argument is the command).
_TOP_OPTIONS = ("--debug", "-v", "--verbose")

#: Loggers of the Neo4j driver's connection machinery, silent unless asked for (-v).
QUIET_LOGGERS = ("neo4j.io", "neo4j.pool", "neo4j.session", "neo4j.auth_management")
#: Commands that never use the Neo4j driver: they skip importing ``logging`` (start-up time).
_NO_DRIVER_COMMANDS = frozenset({"score", "iso", "convert"})
#: Environment variable: a logging level name that shows library log lines at that level.
LOG_LEVEL_ENV = "KGBENCH_LOG_LEVEL"


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
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show libraries' log lines (e.g. the Neo4j driver's connection errors) on stderr; "
        f"${LOG_LEVEL_ENV}=DEBUG shows more",
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
        with _logging(
            verbose=args.verbose or args.debug, quiet=args.command not in _NO_DRIVER_COMMANDS
        ):
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


class _logging:
    """Logging while a command runs: with ``verbose`` or ``$KGBENCH_LOG_LEVEL``, library log
    lines go to stderr (level WARNING, or the variable's); otherwise, with ``quiet``, the
    :data:`QUIET_LOGGERS` are silenced (a handler that drops them, no propagation to Python's
    last-resort stderr handler). The previous configuration is restored at exit (``main`` may
    run in-process)."""

    def __init__(self, *, verbose: bool, quiet: bool = True) -> None:
        self.name = os.environ.get(LOG_LEVEL_ENV, "").strip().upper()
        self.verbose = verbose
        self.quiet = quiet
        self._undo: list[tuple[Any, Any, bool, int]] = []

    def __enter__(self) -> None:
        if not (self.verbose or self.name or self.quiet):
            return
        import logging

        level = logging.getLevelName(self.name) if self.name else None
        if not isinstance(level, int):
            level = logging.WARNING if self.verbose else None
        if level is not None:
            handler: logging.Handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("kgbench: %(name)s: %(levelname)s: %(message)s"))
            logger = logging.getLogger()
            self._undo.append((logger, handler, logger.propagate, logger.level))
            logger.addHandler(handler)
            logger.setLevel(level)
            return
        for name in QUIET_LOGGERS:
            logger = logging.getLogger(name)
            handler = logging.NullHandler()
            self._undo.append((logger, handler, logger.propagate, logger.level))
            logger.addHandler(handler)
            logger.propagate = False

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for logger, handler, propagate, level in reversed(self._undo):
            logger.removeHandler(handler)
            logger.propagate = propagate
            logger.setLevel(level)
        self._undo.clear()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
