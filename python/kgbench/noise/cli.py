"""``kgbench noise GRAPH --out DIR``: NGDBench noise injection (:mod:`kgbench.noise`; spec
ngdbench.md §3)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``noise`` command."""
    p = subparsers.add_parser(
        "noise",
        help="NGDBench noise injection: a noisy graph and its noise log",
        description="Inject NGDBench noise (seed ngdbench.txt §3; files: "
        "kgbench/docs/formats.md §9) into a clean graph.json: "
        "incomplete and false edges, relation-type and node-type swaps, name typos and "
        "attribute noise, in profile order on the current graph. Writes DIR/graph.json (the "
        "noisy graph, same format, no noise markers) and DIR/noise_log.json (records, seed, "
        "profile, order, SHA-256 of both graphs); with --opaque-ids also DIR/clean_graph.json, "
        "the clean graph with the same opaque ids. The same seed gives byte-identical files.",
    )
    p.add_argument(
        "graph", type=Path, metavar="GRAPH", help="graph.json or a directory holding one"
    )
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="output directory")
    p.add_argument(
        "--profile",
        default=None,
        metavar="FILE|NAME",
        help="a profile JSON file ({noise_types, default_profile}) or a shipped profile: "
        "general_guid_new (default; rates .05/.10/.10/.20/.10/.10) or general_guid_original "
        "(.02/.03/.02/.20/.05/.05)",
    )
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    p.add_argument(
        "--opaque-ids",
        action="store_true",
        help="replace eids and rids by keyed hashes in both graphs (and write the clean graph "
        "with them to DIR/clean_graph.json)",
    )
    p.add_argument("--json", action="store_true", help="print the run report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench noise``."""
    from kgbench.noise import format_report, inject_noise

    report = inject_noise(
        args.graph, args.out, profile=args.profile, seed=args.seed, opaque_ids=args.opaque_ids
    )
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_report(report))
    return 0
