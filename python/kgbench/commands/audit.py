"""``kgbench audit``: flag the gold queries of a task file that a benchmark number should not
be trusted on (issue 37); the options are checked here, the tasks read by the family of
:func:`kgbench.families.get` and the audit run by :func:`kgbench.evaluate.audit.audit`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from kgbench.commands.predict import registry_names

_EPILOG = """\
Runs every gold query (gold_cypher) once on its graph's Neo4j server, read-only (READ
sessions, the read-only gate first: a gold with write clauses is never sent), and flags:

  gold_error          the gold fails to parse or run (reason: the error class; details.error:
                      the server's message), or has write clauses (reason write, not sent)
  nondeterministic    limit_ties: the final ORDER BY ... SKIP/LIMIT cuts through rows tied
                      on the sort keys (the query runs again without its SKIP/LIMIT; only
                      queries with one); details.tied_values names them.
                      limit_without_order: SKIP/LIMIT with no ORDER BY.
                      collect_order: a returned collect() list with no ORDER BY before it.
                      element_ids: elementId() / id() in a projection.
  slow                the gold took more than a quarter of --timeout (timed alone)
  uninformative       empty, all-null or single-zero result (the flag evaluate records)
  large               more than --max-rows rows
  duplicate_question  same graph and question text as another task, different gold result

Writes OUT/audit.json ({kgbench_version, timeout_s, max_rows, counts {tasks, flagged,
by_flag, by_reason}, tasks [{qid, graph, question, elapsed_s, rows, flags [{flag, reason,
details}]}]}, tasks in input order; kgbench/docs/formats.md) and prints a summary table.

--versions A,B --version-graph [GRAPH=]PATH: also run every gold on two Neo4j releases
kgbench offers (`kgbench neo4j start --version`; a release it does not offer is an error
listing the offered ones): per graph, a disposable local Neo4j of each release (one at a
time) is loaded from PATH (graph.json or a `kgbench convert` directory; GRAPH= may be left
out when the tasks have one graph), and a gold whose result differs between them (EX 0), or
that fails on one only, is flagged version_sensitive. --uri / --graph-uris are not written to.

--graph-uris: JSON object graph -> "bolt://host:port" or {"uri", "database", "user",
"password"} (or CypherBench's neo4j_info.json), as for `kgbench evaluate`. Graphs not in the
map use --uri.

Exit codes: 0 audit written (flags are findings, not failures); 1 an error (bad input, a
server that cannot be reached or was lost; nothing written).
"""


def register(subparsers: Any) -> None:
    """Add ``kgbench audit`` to the kgbench parser."""
    from kgbench.evaluate.audit import DEFAULT_MAX_ROWS

    p = subparsers.add_parser(
        "audit",
        help="flag gold queries that cannot be trusted (ties at a LIMIT, slow, errors, ...)",
        description="Run each gold query of a task file on Neo4j (read-only) and flag the "
        "golds a score should not be trusted on: nondeterministic (ties at ORDER BY ... LIMIT, "
        "LIMIT without ORDER BY, collect() order, element ids), slow, uninformative, large, "
        "duplicate_question and gold_error (files: kgbench/docs/formats.md).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--tasks", required=True, type=Path, help="task file (.json or .jsonl)")
    p.add_argument(
        "--family",
        choices=registry_names(),
        default="cypherbench",
        help="task family (default: cypherbench; the audit runs Cypher golds on Neo4j)",
    )
    p.add_argument(
        "--uri",
        default=os.environ.get("KGBENCH_NEO4J_URI") or None,
        help="Bolt URI of the Neo4j server for every graph not in the map (default: "
        "$KGBENCH_NEO4J_URI when set, else the local server `kgbench neo4j start` runs)",
    )
    p.add_argument("--user", help="Neo4j user (default: $NEO4J_USER, or no authentication)")
    p.add_argument("--password", help="Neo4j password (default: $NEO4J_PASSWORD)")
    p.add_argument("--database", help="database on --uri (default: the server's default)")
    p.add_argument("--graph-uris", type=Path, help="JSON map graph -> Bolt URI / target")
    p.add_argument("--workers", type=int, default=8, help="parallel queries (default: 8)")
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="per-query timeout in seconds (default: 120, CypherBench's); a gold over a "
        "quarter of it is flagged slow",
    )
    p.add_argument(
        "--max-rows",
        type=int,
        default=DEFAULT_MAX_ROWS,
        help=f"a gold with more rows is flagged large (default: {DEFAULT_MAX_ROWS})",
    )
    p.add_argument(
        "--versions",
        metavar="A,B",
        help="two offered Neo4j releases (e.g. 5.26,2026.08.1) to run the golds on as well, in "
        "disposable local servers: flag version_sensitive (needs --version-graph)",
    )
    p.add_argument(
        "--version-graph",
        action="append",
        metavar="[GRAPH=]PATH",
        help="--versions: the data of a graph (graph.json or a convert directory) to load into "
        "the disposable servers; once per graph (GRAPH= optional for tasks of one graph)",
    )
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.set_defaults(func=run)


def versions_option(text: str) -> list[str]:
    """The offered releases ``--versions A,B`` names (:func:`kgbench.neo4j.versions.
    resolve_version` each).

    Raises:
        InputError: not two distinct releases.
        UnknownNeo4jVersionError: a release kgbench does not offer (lists the offered ones).
    """
    from kgbench.commands.options import neo4j_version_option
    from kgbench.errors import InputError

    names = [v.strip() for v in text.split(",") if v.strip()]
    resolved = [neo4j_version_option(v) or "" for v in names]
    if len(resolved) != 2 or resolved[0] == resolved[1]:
        raise InputError(
            f"--versions needs two different Neo4j releases, e.g. 5.26,2026.08.1; got {text!r}"
        )
    return resolved


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench audit``."""
    from kgbench.errors import InputError
    from kgbench.evaluate.audit import audit
    from kgbench.families import get

    family = get(args.family)
    if family.language != "cypher" or not family.needs_server:
        raise InputError(
            f"kgbench audit runs Cypher gold queries on Neo4j (--family cypherbench); "
            f"--family {family.name} is not supported yet"
        )
    versions = versions_option(args.versions) if args.versions is not None else []
    if args.version_graph and not versions:
        raise InputError("--version-graph is the data of --versions' servers: give --versions")
    if args.workers < 1:
        raise InputError("--workers must be at least 1")
    uri = args.uri
    if uri is None and args.graph_uris is None:
        from kgbench.neo4j.cli import require_local_server_uri

        uri = require_local_server_uri(
            "no Neo4j server: give --uri (or set KGBENCH_NEO4J_URI), --graph-uris, or both"
        )
    from kgbench.tasks import load_tasks

    tasks = load_tasks(args.tasks)  # Nl2CypherSample records: gold_cypher required
    if not tasks:
        raise InputError(f"{args.tasks}: no task records: nothing to audit")
    graphs = list(dict.fromkeys(t["graph"] for t in tasks))
    version_graphs: dict[str, Path] = {}
    for spec in args.version_graph or []:
        name, sep, path = spec.partition("=")
        if not sep:
            if len(graphs) != 1:
                raise InputError(
                    f"--version-graph {spec}: the tasks have {len(graphs)} graphs; "
                    "name it (GRAPH=PATH)"
                )
            name, path = graphs[0], spec
        version_graphs[name] = Path(path)
    result = audit(
        tasks,
        uri=uri,
        user=args.user or os.environ.get("NEO4J_USER"),
        password=args.password or os.environ.get("NEO4J_PASSWORD"),
        database=args.database,
        graph_uris=args.graph_uris,
        timeout_s=args.timeout,
        max_rows=args.max_rows,
        workers=args.workers,
        progress=True,
        versions=versions,
        version_graphs=version_graphs,
    )
    path = result.write(args.out)
    print(result.table())
    print(f"wrote {path}", file=sys.stderr)
    return 0
