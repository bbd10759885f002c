"""``kgbench run``: predict, evaluate and report in one output directory, for any family of
:mod:`kgbench.families.registry` (:meth:`kgbench.families.base.Family.evaluate` scores what
``kgbench predict`` wrote)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

from kgbench.commands.options import add_bench_options, bench_servers, neo4j_version_option
from kgbench.commands.predict import add_predict_args, predict_from_args, summary

_RUN_EPILOG = """\
OUT/predict/ holds what `kgbench predict` writes (the predictions, run.json, the replay
cache), OUT/evaluation/ what `kgbench evaluate` writes (result_with_metrics.json,
aggregated_metrics.json), OUT/report.html the HTML report of both. cypherbench runs are
scored on Neo4j (--uri / --graph-uris, else the local server of `kgbench neo4j start`);
spider4sparql runs on the --rdf-dir graphs in memory; gtsqa is scored with GTSQA's metrics
(the queries already ran on --kg); ngdbench runs the predicted queries on --uri (the noisy
graph) and management steps on a disposable copy of --clean-graph; text2cypher gets EX and
Exec per database_reference_alias with --graph-uris. With --samples K, pass@k for k <= K
is reported beside the family's main metric (not for text2cypher; what passes: metrics.md
§11). With --agent, OUT/evaluation/aggregated_metrics.json also has by_turns and by_ending
(EX per number of turns and per ending) and report.html the agent statistics and each task's
conversation. Rerunning the same command sends no request already answered.
"""


def register(subparsers: Any) -> None:
    """Add ``kgbench run`` to the kgbench parser."""
    r = subparsers.add_parser(
        "run",
        help="predict, evaluate and report in one output directory",
        description="Run a model on a benchmark family's tasks (as `kgbench predict`), score "
        "the predictions (as `kgbench evaluate`) and write the HTML report (as `kgbench "
        "report`), all under OUT.",
        epilog=_RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_predict_args(r)
    add_bench_options(r, bench=False)
    r.add_argument(
        "--eval-timeout", type=float, help="per-query timeout of the evaluation (seconds)"
    )
    r.add_argument(
        "--clean-graph",
        type=Path,
        help="ngdbench: the clean graph (graph.json or a kgbench convert output directory) "
        "loaded into a disposable local Neo4j to run the predicted management steps",
    )
    r.add_argument(
        "--neo4j-version",
        default=None,
        metavar="V",
        help="ngdbench: the Neo4j release of the disposable local Neo4j started for "
        "--clean-graph, as `kgbench neo4j start --version` (default: the 5.26 LTS)",
    )
    r.add_argument(
        "--gold",
        choices=("clean", "noisy"),
        default="clean",
        help="ngdbench: score against the clean graph's answers (default) or the noisy graph's",
    )
    r.set_defaults(func=run_all)


def run_all(args: argparse.Namespace) -> int:
    """Handler of ``kgbench run``: predict into OUT/predict, evaluate into OUT/evaluation,
    report into OUT/report.html."""
    from kgbench.errors import InputError
    from kgbench.families import EvaluateOptions, get

    family = get(args.family)
    out: Path = args.out
    if not family.run_samples and args.samples > 1:
        raise InputError(
            f"--samples with --family {family.name}: kgbench run has no pass@k for it; "
            "use kgbench predict --samples K"
        )
    if args.bench is None and (args.max_servers is not None or args.memory is not None):
        raise InputError("--max-servers and --memory are for --bench DIR")
    result = predict_from_args(args, out / "predict")
    sys.stdout.write(summary(result))
    eval_dir = out / "evaluation"
    uri = args.uri
    if family.needs_server and uri is None and args.graph_uris is None and args.bench is None:
        from kgbench.neo4j.cli import require_local_server_uri

        uri = require_local_server_uri("no Neo4j server to score on: give --uri or --graph-uris")
    tasks, predictions = family.run_inputs(
        Path(args.tasks), result.predictions_path, args.limit, out / "predict"
    )
    options = EvaluateOptions(
        uri=uri,
        user=args.user or os.environ.get("NEO4J_USER"),
        password=args.password or os.environ.get("NEO4J_PASSWORD"),
        database=args.database,
        graph_uris=args.graph_uris,
        timeout_s=args.eval_timeout,
        cache_dir=eval_dir / "cache",
        rdf_dir=args.rdf_dir,
        gold=args.gold,
        clean_graph=args.clean_graph,
        neo4j_version=neo4j_version_option(args.neo4j_version),
        samples=args.samples if args.samples > 1 else None,
        out=eval_dir,
        progress=True,
    )
    servers = bench_servers(args)
    if servers is not None:
        options = dataclasses.replace(options, graph_uris=servers.graph_map(), servers=servers)
    try:
        evaluation = family.evaluate(tasks, predictions, options)
    finally:
        if servers is not None:
            servers.close()
    if args.agent:
        from kgbench.tasks import trajectories_beside

        trajectories = trajectories_beside(result.predictions_path)
        if trajectories is not None:
            evaluation.add_trajectories(trajectories, eval_dir)
    evaluation.write(eval_dir)
    print(evaluation.table())
    if evaluation.turns is not None:
        print(evaluation.turns_table())
    return _write_report(args, out, eval_dir)


def _write_report(args: argparse.Namespace, out: Path, eval_dir: Path) -> int:
    """Write ``OUT/report.html`` of the evaluation in ``eval_dir`` (every family) and say
    what the run wrote."""
    from kgbench.report import write_report

    html = write_report([eval_dir], out / "report.html", title=f"kgbench run: {args.model}")
    print(f"wrote {out / 'predict'}, {eval_dir} and {html}", file=sys.stderr)
    return 0
