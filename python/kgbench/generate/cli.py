"""``kgbench generate``: benchmark generation commands.

- ``kgbench generate cypherbench --templates FILE --traits FILE --graph NAME --out DIR`` —
  CypherBench's text-to-Cypher task generator (:mod:`kgbench.generate.cypherbench`).
- ``kgbench generate pipe --out DIR`` — PIPE-Cypher's governed construction
  (:mod:`kgbench.generate.pipe`).
- ``kgbench generate synth --rdf DUMP --out DIR`` — SynthKGQA items with ground-truth answer
  subgraphs (:mod:`kgbench.generate.synth`).
- ``kgbench generate ngdbench --clean GRAPH --noisy DIR --out DIR2`` — NGDBench analytic,
  Boolean and management tasks around injected noise (:mod:`kgbench.generate.ngdbench`).
- ``kgbench generate traits --graph NAME -o FILE`` — draft a relation-traits file from the live
  graph (:mod:`kgbench.generate.traits`).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

from kgbench.generate.cli_options import llm_args, llm_client, progress_log
from kgbench.neo4j.cli import connection_args, driver_from_args, resolve_uri


def register(subparsers: Any) -> None:
    """Add ``generate`` (with ``cypherbench`` and ``traits``) to the kgbench parser."""
    gen = subparsers.add_parser(
        "generate",
        help="generate a benchmark from a Neo4j graph (CypherBench tasks, relation traits)",
        description="Generate benchmarks from a live Neo4j graph. Every query is read-only "
        "(parser gate + READ sessions).",
    )
    sub = gen.add_subparsers(dest="generate_command", metavar="GENERATOR")
    sub.required = True

    cb = sub.add_parser(
        "cypherbench",
        help="CypherBench text-to-Cypher tasks (template MATCH/RETURN patterns, realism filters)",
        description="Instantiate CypherBench's MATCH/RETURN templates on the graph, filter "
        "unrealistic questions with the relation traits, balance per MATCH category, validate "
        "every gold query on the full graph and write DIR/tasks.json (Nl2CypherSample records "
        "with the gold answer) and DIR/report.json (candidates and rejections by reason). "
        "Offline and deterministic unless --llm-base-url is given; the same graph, files and "
        "seed give byte-identical tasks.json.",
    )
    connection_args(cb)
    cb.add_argument(
        "--templates",
        default=None,
        metavar="FILE",
        help="template file (default: CypherBench's own nl2cypher_generator_config.json, "
        "shipped with kgbench)",
    )
    cb.add_argument(
        "--traits",
        required=True,
        metavar="FILE",
        help="relation-traits file "
        "(CypherBench's graph_info.json format; draft one with `generate traits`)",
    )
    cb.add_argument(
        "--graph",
        required=True,
        metavar="NAME",
        help="graph name: its key in the traits file, written into each task",
    )
    cb.add_argument("--out", required=True, metavar="DIR", help="output directory")
    cb.add_argument(
        "--split",
        choices=("test", "train"),
        default="test",
        help="caps: test 60 per MATCH category, 2 tuples per assignment; "
        "train 10000 and 10 (default: test)",
    )
    cb.add_argument("--seed", type=int, default=42, help="random seed (default: 42)")
    cb.add_argument(
        "--per-category",
        type=int,
        default=None,
        metavar="N",
        help="cap per MATCH category (default: the split's)",
    )
    cb.add_argument(
        "--compat",
        choices=("cypherbench",),
        default=None,
        help="reproduce the original generator exactly, quirks included "
        "(exact MD5 ranking; slow on graphs with hub nodes)",
    )
    cb.add_argument(
        "--pivot-cap",
        type=int,
        default=64,
        metavar="N",
        help="default mode: relationships expanded per (node, direction, type, "
        "neighbour label) when sampling (default: 64)",
    )
    cb.add_argument(
        "--allow-uninformative",
        action="store_true",
        help="keep tasks whose gold result is all null or a single 0 / false / empty list "
        "(default: rejected as 'uninformative', see metrics.md §1; compat mode keeps them)",
    )
    llm_args(cb, "the question rewrite and verify steps")
    cb.add_argument("--quiet", action="store_true", help="no progress output")
    cb.set_defaults(func=_cypherbench)

    from kgbench.generate.ngdbench.cli import register_ngdbench
    from kgbench.generate.pipe.cli import register_pipe
    from kgbench.generate.synth.cli import register_synth

    register_pipe(sub)
    register_synth(sub)
    register_ngdbench(sub)

    tr = sub.add_parser(
        "traits",
        help="draft a relation-traits file from the live graph",
        description="Measure each relation's cardinality, participation, symmetry, time "
        "sensitivity and implications with read-only queries and write a traits file in "
        "CypherBench's graph_info.json format (with the measured fractions). Review it before "
        "use.",
    )
    connection_args(tr)
    tr.add_argument("--graph", default="graph", metavar="NAME", help="key of the graph in the file")
    tr.add_argument("-o", "--output", default=None, metavar="FILE", help="write here, not stdout")
    tr.add_argument(
        "--tolerance",
        type=float,
        default=0.95,
        help="share of items for 'one' and mandatory traits (default: 0.95)",
    )
    tr.set_defaults(func=_traits)


def _cypherbench(args: argparse.Namespace) -> int:
    from kgbench.generate.cypherbench import generate_cypherbench

    llm = llm_client(args, args.out)

    log = progress_log(args)
    result = generate_cypherbench(
        resolve_uri(args),
        args.templates,
        args.traits,
        args.graph,
        args.out,
        user=args.user,
        password=args.password,
        database=args.database,
        split=args.split,
        seed=args.seed,
        per_category=args.per_category,
        compat=args.compat,
        pivot_cap=args.pivot_cap,
        allow_uninformative=args.allow_uninformative,
        llm=llm,
        progress=not args.quiet,
        log=log,
    )
    print(format_counts(result.report))
    print(f"wrote {result.tasks_path} and {result.report_path}")
    return 0


def format_counts(report: dict[str, Any]) -> str:
    """The task counts of a generation report as a table: per MATCH category, per RETURN
    template, and the rejections by reason."""
    lines = [
        f"{report['tasks']} tasks on graph {report['graph']} "
        f"(seed {report['seed']}, split {report['split']}, mode {report['mode']}, "
        f"{report['queries']} queries, {report['timing']['total_s']:.1f} s)"
    ]
    for title, key in (
        ("MATCH category", "tasks_by_match_category"),
        ("RETURN template", "tasks_by_return_template"),
    ):
        counts = Counter(report[key])
        width = max([len(title), *map(len, counts)]) + 2
        lines.append(f"{title:<{width}}tasks")
        lines += [f"{k:<{width}}{v:>5}" for k, v in sorted(counts.items())]
    rej = {k: v for k, v in report["rejections"].items() if v}
    lines.append(
        "rejected: "
        + (", ".join(f"{k} {v}" for k, v in rej.items()) if rej else "none")
        + f"; capped {report['capped']}"
    )
    return "\n".join(lines)


def _traits(args: argparse.Namespace) -> int:
    import json

    from kgbench.generate.traits import draft_traits, write_traits

    with driver_from_args(args) as driver:
        traits = draft_traits(
            driver, database=args.database, graph=args.graph, tolerance=args.tolerance
        )
    if args.output:
        write_traits(traits, args.output)
        n = len(traits[args.graph]["relations"])
        print(f"wrote {n} relations to {args.output}", file=sys.stderr)
    else:
        print(json.dumps(traits, indent=2, ensure_ascii=False))
    return 0
