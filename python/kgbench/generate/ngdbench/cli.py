"""``kgbench generate ngdbench --clean GRAPH --noisy DIR --out DIR2`` (spec ngdbench.md §4)."""

from __future__ import annotations

import argparse
from typing import Any


def register_ngdbench(sub: Any) -> None:
    """Add ``generate ngdbench`` to the ``generate`` subparsers."""
    from kgbench.generate.cli_options import llm_args

    p = sub.add_parser(
        "ngdbench",
        help="NGDBench tasks around injected noise: analytic, Boolean and management batches",
        description="Build NGDBench tasks from a clean graph and the output of `kgbench noise` "
        "on it (seed ngdbench.txt §3; files: kgbench/docs/formats.md §9). kgbench starts "
        "two local Neo4j servers of its own: "
        "the clean graph G* in a disposable database and the noisy graph G~. Analytic "
        "(NoAgg, Agg) and Boolean tasks are instantiated from the template library around "
        "every perturbed node and edge of the noise log, plus clean anchors (a quarter as "
        "many); gold answers come from G*, noise_answer from G~, same_as_cleangraph is "
        "multiset equality. Management batches (CREATE, MERGE, SET, DELETE, FOREACH, mixed) "
        "run each in one explicit transaction on the disposable copy of G*, which is rolled "
        "back. Writes DIR2/tasks.json (read by `kgbench evaluate --family ngdbench`) and "
        "DIR2/report.json. Offline and deterministic unless --llm-base-url is given.",
    )
    p.add_argument(
        "--clean",
        required=True,
        metavar="GRAPH",
        help="the clean graph (graph.json or a directory holding one; after `noise "
        "--opaque-ids`, that run's clean_graph.json)",
    )
    p.add_argument(
        "--noisy", required=True, metavar="DIR", help="the output directory of `kgbench noise`"
    )
    p.add_argument("--out", required=True, metavar="DIR2", help="output directory")
    p.add_argument("--seed", type=int, default=42, help="random seed (default: 42)")
    p.add_argument(
        "--templates",
        default=None,
        metavar="FILE",
        help="analytic template library (default: kgbench's own, "
        "kgbench/generate/data/ngdbench_templates.json)",
    )
    p.add_argument(
        "--max-anchors",
        type=int,
        default=None,
        metavar="N",
        help="use a seeded sample of N noisy anchors (default: every noisy node and edge)",
    )
    p.add_argument(
        "--max-answers",
        type=int,
        default=None,
        metavar="N",
        help="drop NoAgg tasks with more distinct answers (default: 32; --compat-repo: 20)",
    )
    p.add_argument(
        "--compat-repo",
        action="store_true",
        help="the NGDBench repo's rules: 20 answers, same_as_cleangraph compares lists in order",
    )
    p.add_argument("--no-management", action="store_true", help="do not build management batches")
    p.add_argument(
        "--management-batches",
        type=int,
        default=None,
        metavar="N",
        help="management batches per operator",
    )
    p.add_argument(
        "--noisy-uri",
        default=None,
        metavar="URI",
        help="a running Neo4j that already holds the noisy graph, queried read-only (no "
        "authentication), instead of a second local server that kgbench starts and loads",
    )
    p.add_argument(
        "--timeout", type=float, default=300.0, help="per-query timeout in seconds (default 300)"
    )
    llm_args(p, "rewriting the template questions")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from kgbench.generate.cli_options import llm_client, progress_log
    from kgbench.generate.ngdbench.build import generate_ngdbench

    llm = llm_client(args, args.out)
    report = generate_ngdbench(
        args.clean,
        args.noisy,
        args.out,
        seed=args.seed,
        templates=args.templates,
        max_anchors=args.max_anchors,
        max_answers=args.max_answers,
        compat_repo=args.compat_repo,
        management=not args.no_management,
        management_batches=args.management_batches,
        timeout_s=args.timeout,
        noisy_uri=args.noisy_uri,
        llm=llm,
        progress=None if not args.quiet else False,
        log=progress_log(args),
    )
    print(format_report(report))
    print(f"wrote {args.out}/tasks.json and {args.out}/report.json")
    return 0


def format_report(report: dict[str, Any]) -> str:
    """The counts of a ``generate ngdbench`` report as a few lines: anchors, tasks per family
    with how many keep the clean answer on the noisy graph, rejections by reason."""
    a = report["anchors"]
    an = report["analytic"]
    lines = [
        f"anchors: {a['noisy_nodes']:,} noisy nodes, {a['noisy_edges']:,} noisy edges, "
        f"{a['clean_nodes']:,} clean nodes, {a['clean_edges']:,} clean edges",
        f"{'family':<12}{'tasks':>7}{'same':>7}{'differs':>9}",
    ]
    for fam, n in report["tasks"].items():
        same = an["same_as_cleangraph"].get(fam, {})
        s, d = same.get("true", "-"), same.get("false", "-")
        lines.append(f"{fam:<12}{n:>7}{s!s:>7}{d!s:>9}")
    rej = an.get("rejected") or {}
    lines.append(
        "analytic candidates rejected: "
        + (", ".join(f"{k} {v}" for k, v in rej.items()) if rej else "none")
    )
    return "\n".join(lines)
