"""CLI subcommands of kgbench.neo4j: ``neo4j start|stop|status``, ``load``, ``schema``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from kgbench.errors import KgbenchError

#: Data directory of ``kgbench neo4j start`` when ``--data`` is not given (git-ignored).
DEFAULT_DATA = ".neo4j"


def register(subparsers: Any) -> None:
    """Add ``neo4j``, ``load`` and ``schema`` to the kgbench parser."""
    neo = subparsers.add_parser(
        "neo4j",
        help="run the local Neo4j server (Community 5.26, Bolt on 127.0.0.1, no authentication)",
        description="Start, stop or query the project's local Neo4j server (built with Maven from "
        "Maven Central on first use). It listens on 127.0.0.1 only and has authentication "
        "disabled: connect without user/password.",
    )
    sub = neo.add_subparsers(dest="neo4j_command", metavar="ACTION")
    sub.required = True
    for name, func, text in (
        ("start", _start, "start in the background; prints the Bolt URI"),
        ("stop", _stop, "stop the background server cleanly"),
        ("status", _status, "print the Bolt URI if running (exit 3 when stopped)"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument(
            "--data",
            default=DEFAULT_DATA,
            metavar="DIR",
            help=f"data directory (default: {DEFAULT_DATA}); holds the database, logs and the "
            "pid/URI file kgbench-neo4j.json",
        )
        if name == "start":
            p.add_argument("--port", type=int, default=None, help="Bolt port (default: a free one)")
            p.add_argument("--heap", default=None, help="JVM heap, e.g. 2g (default 2g)")
            p.add_argument("--pagecache", default=None, help="page cache, e.g. 2g (default 2g)")
        p.set_defaults(func=func)

    load = subparsers.add_parser(
        "load",
        help="load a graph (graph.json or a convert output) into Neo4j",
        description="Validate a CypherBench graph (SPEC.md §2) and load it into Neo4j in batched "
        "UNWIND transactions: a uniqueness constraint on eid and an index on name per label, "
        "dates as Neo4j Date, idempotent (entities merged on eid, relations on rid). Nothing "
        "is written when the graph is invalid; node and relationship counts are verified.",
    )
    load.add_argument("graph", help="graph.json, or a kgbench convert output directory / Parquet")
    _connection_args(load)
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
        default=DEFAULT_DATA,
        metavar="DIR",
        help=f"the local server's data directory for --offline (default: {DEFAULT_DATA})",
    )
    offline.add_argument("--heap", default=None, help="JVM heap for --offline, e.g. 2g")
    offline.add_argument("--pagecache", default=None, help="page cache for --offline, e.g. 2g")
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
        "CypherBench's exact schema queries (seed Appendix B.4, SPEC.md §4) without APOC.",
    )
    _connection_args(schema)
    schema.add_argument("--name", default="", help="graph name written in the schema JSON")
    schema.add_argument("-o", "--output", default=None, help="write to this file, not stdout")
    schema.set_defaults(func=_schema)


def _connection_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--uri",
        default=None,
        help="Bolt URI (default: $KGBENCH_NEO4J_URI, else the server started by "
        f"`kgbench neo4j start` in {DEFAULT_DATA}/)",
    )
    p.add_argument("--user", default=os.environ.get("NEO4J_USER"), help="user (default: none)")
    p.add_argument(
        "--password", default=os.environ.get("NEO4J_PASSWORD"), help="password (default: none)"
    )
    p.add_argument("--database", default=None, help="database name (default: server default)")


def _resolve_uri(args: argparse.Namespace) -> str:
    from kgbench.neo4j.server import background_status

    if args.uri:
        return str(args.uri)
    if os.environ.get("KGBENCH_NEO4J_URI"):
        return os.environ["KGBENCH_NEO4J_URI"]
    state = background_status(DEFAULT_DATA)
    if state is None:
        raise KgbenchError(
            "no --uri given, KGBENCH_NEO4J_URI is not set and no server runs in "
            f"{DEFAULT_DATA}/ (start one with: kgbench neo4j start)"
        )
    return str(state["uri"])


def _driver(args: argparse.Namespace) -> Any:
    import neo4j

    auth = (args.user or "neo4j", args.password or "") if (args.user or args.password) else None
    return neo4j.GraphDatabase.driver(_resolve_uri(args), auth=auth)


def _start(args: argparse.Namespace) -> int:
    from kgbench.neo4j.server import LocalNeo4j, background_status

    state = background_status(args.data)
    if state is not None:
        print(state["uri"])
        print(f"kgbench: already running (pid {state['pid']})", file=sys.stderr)
        return 0
    server = LocalNeo4j(args.data, args.port, heap=args.heap, pagecache=args.pagecache)
    server.start(detach=True)
    print(server.uri)
    return 0


def _stop(args: argparse.Namespace) -> int:
    from kgbench.neo4j.server import stop_background

    if stop_background(args.data):
        print(f"stopped the server in {args.data}", file=sys.stderr)
    else:
        print(f"no server was running in {args.data}", file=sys.stderr)
    return 0


def _status(args: argparse.Namespace) -> int:
    from kgbench.neo4j.server import background_status

    state = background_status(args.data)
    if state is None:
        print("stopped")
        return 3
    print(state["uri"])
    return 0


def _load(args: argparse.Namespace) -> int:
    from kgbench.neo4j.loader import load_graph
    from kgbench.neo4j.offline import import_graph

    if args.offline:
        if args.uri:
            raise KgbenchError("--offline imports into --data DIR, not into a server at --uri")
        report = import_graph(
            args.graph,
            args.data,
            database=args.database or "neo4j",
            wipe=args.wipe,
            heap=args.heap,
            pagecache=args.pagecache,
            id_type=args.id_type,
        )
    else:
        with _driver(args) as driver:
            report = load_graph(
                args.graph,
                driver,
                database=args.database,
                wipe=args.wipe,
                batch_size=args.batch_size,
            )
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

    with _driver(args) as driver:
        schema = fetch_schema(driver, name=args.name, database=args.database)
    text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
