"""``kgbench demo``: the main job end to end on the shipped real Wikidata data."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Run kgbench's main job in ten stages on real data shipped with kgbench (Wikidata
content is CC0; see kgbench/demo/data/NOTICE): convert Wikidata RDF to a property
graph with a CypherBench conversion schema, start the local Neo4j (or use --uri),
load the graph, evaluate a shipped text-to-Cypher prediction file (EX, PSJS,
Exec), generate CypherBench, PIPE-Cypher and SynthKGQA items, answer one Spider
question in SQL, SPARQL and Cypher, run NGDBench (noise, tasks, the oracle row)
on Spider's concert_singer graph and replay GPT-3.5's published Spider4SPARQL run
offline; print a summary of every stage and write OUT/report.html. The local
server is stopped at the end."""


def register(subparsers: Any) -> None:
    """Add the ``demo`` subcommand to the kgbench parser."""
    p = subparsers.add_parser(
        "demo",
        help="convert, load and evaluate the shipped real Wikidata demo end to end",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--uri",
        default=os.environ.get("KGBENCH_NEO4J_URI") or None,
        help="Neo4j to use instead of starting the local one (bolt://host:port; default: "
        "$KGBENCH_NEO4J_URI when set); ITS DATABASE IS REPLACED by the demo graph",
    )
    p.add_argument("--user", default="neo4j", help="user for --uri (default: neo4j)")
    p.add_argument(
        "--password",
        default=None,
        help="password for --uri (default: $NEO4J_PASSWORD; none: no authentication)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("demo-out"),
        help="output directory (default: ./demo-out)",
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from kgbench.demo.run import format_summary, run_demo

    password = args.password if args.password is not None else os.environ.get("NEO4J_PASSWORD")
    user = args.user if (args.uri and password) else None
    if not args.uri:
        password = None

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    result = run_demo(args.out, args.uri, user=user, password=password, log=log)
    print(format_summary(result))
    return 0
