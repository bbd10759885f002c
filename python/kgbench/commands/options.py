"""Option handling shared by ``kgbench evaluate`` (:mod:`~kgbench.commands.evaluate`) and
``kgbench run`` (:mod:`~kgbench.commands.run`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def neo4j_version_option(requested: str | None) -> str | None:
    """The offered Neo4j release ``--neo4j-version`` names
    (:func:`kgbench.neo4j.versions.resolve_version`), or None when the option was not given
    (the disposable server then runs the default release, the 5.26 LTS). :mod:`kgbench.neo4j`
    is imported only when the option was given.

    Raises:
        UnknownNeo4jVersionError: a release kgbench does not offer (one line listing them).
    """
    if requested is None:
        return None
    from kgbench.neo4j.versions import resolve_version

    return resolve_version(requested)


def add_bench_options(p: Any, *, bench: bool = True, scoring: bool = True) -> None:
    """``--bench DIR`` (with ``bench``) and, with ``scoring``, ``--max-servers N`` and
    ``--memory SIZE`` (:mod:`kgbench.neo4j.bench`)."""
    if bench:
        _add_bench(p)
    if not scoring:
        return
    _add_scoring(p)


def _add_bench(p: Any) -> None:
    p.add_argument(
        "--bench",
        type=Path,
        metavar="DIR",
        help="a `kgbench deploy` directory (or the benchmark directory it deployed with the "
        "default --data): the graphs' local servers are started and stopped by kgbench, a "
        "graph at a time; schemas from the benchmark's graphs/schemas",
    )


def _add_scoring(p: Any) -> None:
    p.add_argument(
        "--max-servers",
        type=int,
        metavar="N",
        help="with --bench: at most N servers alive at once (default: as many as --memory "
        "holds for the largest graphs)",
    )
    p.add_argument(
        "--memory",
        metavar="SIZE",
        help="with --bench: memory for the servers, heap and page cache sized per graph from "
        "its store (e.g. 18g; default 3/4 of the machine's RAM)",
    )


def bench_servers(args: Any) -> Any:
    """The :class:`kgbench.neo4j.bench.BenchServers` of ``--bench`` (None without it).

    Raises:
        InputError: ``--max-servers`` / ``--memory`` without ``--bench``, ``--bench`` with
            ``--graph-uris``, or what :class:`~kgbench.neo4j.bench.BenchServers` raises."""
    from kgbench.errors import InputError

    bench = getattr(args, "bench", None)
    max_servers = getattr(args, "max_servers", None)
    memory = getattr(args, "memory", None)
    if bench is None:
        if max_servers is not None or memory is not None:
            raise InputError("--max-servers and --memory are for --bench DIR")
        return None
    if getattr(args, "graph_uris", None) is not None:
        raise InputError("--bench starts the graphs' servers itself: drop --graph-uris")
    from kgbench.neo4j.bench import BenchServers, parse_size

    return BenchServers(
        bench,
        max_servers=max_servers,
        memory=None if memory is None else parse_size(memory),
    )
