"""``kgbench deploy BENCH_DIR``: the graphs of a CypherBench benchmark directory as local Neo4j
data directories and a ``neo4j_info.json`` map (:mod:`kgbench.neo4j.deploy`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add ``deploy`` to the kgbench parser."""
    p = subparsers.add_parser(
        "deploy",
        help="import a CypherBench benchmark directory's graphs into local Neo4j data "
        "directories and write their neo4j_info.json map",
        description="Read a CypherBench benchmark directory as published (the Hugging Face "
        "dataset megagonlabs/cypherbench cloned as benchmark/: graphs/simplekg/"
        "<graph>_simplekg.json, test.json) unchanged, and make one data directory of the local "
        "Neo4j server per graph by the offline bulk import (as `kgbench load --offline`; no "
        "Docker), one graph at a time, in DIR/graphs/<graph>. A graph already imported with "
        "the same file content (size and mtime, else its SHA-256) is skipped without starting "
        "a server. The map DIR/neo4j_info.json has CypherBench's neo4j_info.json form (graph "
        "-> host/port; kgbench's records under the extra key 'kgbench') and is read by "
        "`kgbench evaluate/predict --graph-uris` and by CypherBench's own scripts; start a "
        "graph's server with `kgbench neo4j start --data DIR/graphs/<graph> --port PORT`. A "
        "missing graph file stops the deploy before any import; an invalid graph file fails "
        "that graph only (exit code 3 when some graph failed).",
    )
    p.add_argument("bench_dir", metavar="BENCH_DIR", help="the CypherBench benchmark directory")
    p.add_argument(
        "--graphs",
        default=None,
        metavar="A,B",
        help="comma-separated graph names to deploy (default: every graphs/simplekg/"
        "*_simplekg.json and every graph test.json's tasks name)",
    )
    p.add_argument(
        "--data",
        default=None,
        metavar="DIR",
        help="deployment directory: the graphs' data directories and neo4j_info.json "
        "(default: BENCH_DIR/.kgbench)",
    )
    p.add_argument(
        "--force", action="store_true", help="import the graphs again even when unchanged"
    )
    p.add_argument("--heap", default=None, help="JVM heap of each import, e.g. 2g (default 2g)")
    p.add_argument(
        "--pagecache", default=None, help="page cache of each import, e.g. 2g (default 2g)"
    )
    p.set_defaults(func=_deploy)


def _deploy(args: argparse.Namespace) -> int:
    from kgbench.neo4j.deploy import deploy
    from kgbench.progress import Activity

    graphs = [g.strip() for g in args.graphs.split(",") if g.strip()] if args.graphs else None
    with Activity("deploying", prefix="kgbench deploy: ") as activity:

        def progress(line: str) -> None:
            if ": importing" in line:  # shown while it runs
                activity.update(line)
            else:  # outcomes stay on screen
                activity.note(line)

        result = deploy(
            args.bench_dir,
            graphs=graphs,
            data_dir=args.data,
            force=args.force,
            heap=args.heap,
            pagecache=args.pagecache,
            progress=progress,
        )
    for o in result.outcomes:
        print(f"{o.graph}\t{o.status}\t{o.seconds:.1f} s" + (f"\t{o.error}" if o.error else ""))
    failed = len(result.failed)
    print(
        f"kgbench deploy: {result.count('imported')} imported, {result.count('skipped')} "
        f"skipped, {failed} failed; map {result.map_path}",
        file=sys.stderr,
    )
    if failed and failed == len(result.outcomes):
        return 1
    return 3 if failed else 0
