"""``kgbench evaluate``: score a benchmark family's predictions (CypherBench-compatible
scoring of text-to-Cypher predictions by default); the options are checked here and the
family of :func:`kgbench.families.get` scores (:meth:`kgbench.families.base.Family.evaluate`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from kgbench.commands.options import add_bench_options, bench_servers, neo4j_version_option
from kgbench.commands.predict import registry_names

_EPILOG = """\
Tasks and predictions use CypherBench's Nl2CypherSample records (JSON array or JSON
Lines). Task records need qid (string or integer, unique), graph and gold_cypher (non-empty
strings); optional: nl_question (or question), pred_cypher, from_template {match_category,
match_cypher, return_pattern_id, return_cypher} (without it a task has no category
breakdown), gold_match_cypher, nl_question_raw, answer_json, metrics. Prediction lines need
qid; pred_cypher is a string or null. Without --predictions, pred_cypher is read from the
task file (as CypherBench's result.json).

Writes OUT/result_with_metrics.json (the scored tasks) and OUT/aggregated_metrics.json
(overall; by_graph, by_match, by_return of the --metric-for-agg metric; counts {tasks,
scored, excluded_gold_failed, connection_errors}; excluded) and prints a table that
starts with how many tasks were scored. For an agent run (a trajectories.jsonl beside the
predictions, or --trajectories FILE) aggregated_metrics.json also has by_turns and
by_ending ({n, execution_accuracy} per number of turns and per ending) and trajectories
(the file, relative to OUT). Bad predictions (missing, empty, write queries,
syntax errors, timeouts) score 0 and their error class is recorded; the run does not stop
for them. A task whose gold query fails (error or timeout; for PSJS also the gold's
provenance query) is not a 0 for the prediction: it is excluded from every average,
counted and listed under "excluded".

An unreachable server, or a connection lost during the run (server stopped or killed),
stops the evaluation with a message naming the server; nothing is written. --keep-going
goes on instead: the tasks hit by a connection error are left out of the averages,
counted (connection_errors) and listed under "excluded".

Every query's result (gold, predicted, provenance) is cached in OUT/cache (or --cache
DIR; --no-cache: none) per graph, keyed by the database's content (its id, node and
relationship counts per label and type, and a hash of a sample of its nodes and
relationships), the query text and the timeout: a rerun on the same data sends only the
queries no earlier run answered, a rerun after loading other data discards the cached
results; stderr says which. Timeouts and connection failures are not cached.

Exit codes: 0 every task scored or excluded for a failing gold query; 1 an error (bad
input, an empty task or prediction file: nothing to score, a server that cannot be
reached or was lost without --keep-going; nothing written); 3 files written but
incomplete: --keep-going had connection errors, or no task could be scored.

--metrics soft_f1 adds BIRD Mini-Dev's Soft-F1 (0..1; cells matched per row pair by
position); --metrics ves adds, for the tasks whose rows equal the gold's as sets, BIRD's
R-VES (r_ves) and original VES (ves) from wall times of --ves-reps repetitions (prediction
then gold, one task at a time) and, for Cypher, ves_db_hits from Neo4j PROFILE database hits,
which do not depend on the machine. SPARQL (--language sparql): Soft-F1 and wall-time VES
only. Rules and sources: kgbench/docs/metrics.md §13-14.

--audit FILE (the audit.json of `kgbench audit` on the same tasks): each scored record
gains gold_flags (its qid's flags as the audit wrote them, [] for a clean gold, null for a
task the audit does not cover) and aggregated_metrics.json gains, right after informative,
unflagged {overall {metric: mean over the tasks without a flag}, tasks, flagged,
not_audited} and gold_flags {flag: tasks}; `kgbench report` lists the flagged golds. An
audit with no qid of the tasks is an error; audited qids that are no task, and tasks not
audited, are counted in a warning.

--graph-uris: JSON object graph -> "bolt://host:port" or {"uri", "database", "user",
"password"}; CypherBench's neo4j_info.json ({"full": {graph: {"host", "port", ...}}})
is accepted too. Graphs not in the map use --uri.

--language sparql scores text-to-SPARQL predictions on embedded RDF stores instead
(kgbench.evaluate.sparql_runner): tasks are {qid, graph, gold_sparql, gold_sql?,
hardness?} records or Spider4SPARQL's published {kg_name, question, query} pairs,
predictions {qid, pred_sparql} or position-aligned {predicted_sparql}; each graph's RDF is
RDF_DIR/<graph>.nt (or RDF_DIR/<graph>/*.nt, a `kgbench rdb` output). Each query runs in a
worker process killed at --timeout (default 30 s). aggregated_metrics.json holds overall,
by_graph, by_hardness (Spider's levels) and the excluded tasks whose gold failed.

--family text2cypher scores Neo4j's Text2Cypher (2024) records ({question, schema, cypher,
...} with pred_cypher; CSV, Parquet, JSON or JSON Lines) by Google-BLEU (sacreBLEU 13a
tokens, n-grams 1-4, corpus score) and exact match of the query text
(kgbench.evaluate.translation); no server is needed.

--family ngdbench scores NGDBench tasks (kgbench.evaluate.ngdbench; metrics:
kgbench/docs/metrics.md §7, files: kgbench/docs/formats.md §9):
analytic {qid, family: noagg|agg, query, answer, noise_answer, same_as_cleangraph},
Boolean {template_query, anti_template_query, clean_answer{valid_answer, invalid_answer},
noise_answer} and management {steps[{step, operate_query, valid_query, answer}]} records,
detected per record. Predictions {qid|index, answer} (analytic, Boolean) or {qid|index,
steps: [...]} (management) are scored from the files alone: NoAgg Jaccard/F1, Agg
MdRE/MSLE/sMAPE, Boolean accuracy, management L_step and MLRE/MSLE/sMAPE. {qid,
pred_cypher} predictions of analytic and Boolean tasks run read-only on the noisy graph at
--uri. Management predictions given as Cypher, {qid|index, steps_cypher: [{operate_query,
valid_query}, ...]} (or pred_cypher holding that list), run only with --clean-graph GRAPH:
evaluate starts a disposable local Neo4j in a directory it creates, loads the clean graph
once, and runs each batch in one transaction that is rolled back (op i then validation i;
a failing step scores 0 with every later step; the database is left unchanged). Writes are
never sent to --uri or any other server. Without --clean-graph those batches are counted as
not scored. --gold noisy scores against noise_answer. Without --predictions only the
oracle row (the gold query on the noisy graph: noise_answer against answer) is computed.
aggregated_metrics.json holds overall per family, by_same_as_cleangraph (true/false/all),
the oracle row and the counts (scored / not scored, with reasons).
"""


def register(subparsers: Any) -> None:
    """Add ``kgbench evaluate`` to the kgbench parser."""
    p = subparsers.add_parser(
        "evaluate",
        help="score text-to-Cypher predictions on Neo4j (EX, PSJS, Exec), as CypherBench",
        description="Execute gold and predicted Cypher on Neo4j and compute execution "
        "accuracy (EX), provenance subgraph Jaccard similarity (PSJS) and executability "
        "(Exec) per task, plus CypherBench's aggregated metrics (rules: kgbench/docs/metrics.md "
        "§1-§5; files: kgbench/docs/formats.md §5-§6; the docs ship inside the kgbench "
        "package).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--tasks", required=True, type=Path, help="task file (.json or .jsonl)")
    p.add_argument(
        "--family",
        choices=registry_names(),
        default="cypherbench",
        help="task family: cypherbench (default; Nl2CypherSample tasks, EX/PSJS/Exec), "
        "spider4sparql (Spider4SPARQL tasks on RDF, the same as --language sparql), "
        "ngdbench (NGDBench analytic, Boolean and management tasks) or text2cypher (Neo4j's "
        "Text2Cypher records: Google-BLEU and exact match on the query text; EX and Exec with "
        "--graph-uris database_reference_alias -> server) or gtsqa (GTSQA records and the "
        "answers / retrieved triples of `kgbench predict --family gtsqa`: GTSQA's metrics)",
    )
    p.add_argument(
        "--gold",
        choices=("clean", "noisy"),
        default="clean",
        help="--family ngdbench: score analytic and Boolean tasks against the clean graph's "
        "answers (default) or the noisy graph's (noise_answer)",
    )
    p.add_argument(
        "--clean-graph",
        type=Path,
        help="--family ngdbench: the clean graph (graph.json or a kgbench convert output "
        "directory) to load into a disposable local Neo4j that kgbench starts, to run "
        "management predictions given as Cypher (steps_cypher) in rolled-back transactions; "
        "never --uri",
    )
    p.add_argument(
        "--language",
        choices=("cypher", "sparql"),
        default="cypher",
        help="query language of the tasks (default: cypher, on Neo4j)",
    )
    p.add_argument(
        "--rdf-dir", type=Path, help="--language sparql: directory of the graphs' RDF files"
    )
    p.add_argument(
        "--compat",
        choices=("s4s",),
        default=None,
        help="--language sparql: the 2021 Spider4SPARQL scorer's rules (positional columns, "
        "12 decimals) instead of kgbench's exact EX",
    )
    p.add_argument(
        "--predictions",
        action="append",
        metavar="[NAME=]FILE",
        help="prediction file (default: pred_cypher of the tasks). Cypher: give it several "
        "times to score several runs in one pass, each distinct query sent once: OUT/NAME/ "
        "per run and OUT/leaderboard.json with confidence intervals and paired tests (NAME "
        "defaults to the file's stem, or its directory's name for result.json)",
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
    add_bench_options(p)
    p.add_argument(
        "--metrics",
        default="ex,psjs,exec",
        help="comma-separated: ex, psjs, exec, ex_set, soft_f1, ves (default: ex,psjs,exec; "
        "ex_set is PIPE-Cypher's row-key set accuracy: result rows as sets, keyed by column "
        "name when there are several columns; soft_f1 is BIRD Mini-Dev's Soft-F1, 0..1; ves "
        "adds, for the tasks whose rows equal the gold's as sets, BIRD's R-VES (r_ves) and "
        "original VES (ves) from wall times and, for Cypher, a hardware-independent VES from "
        "Neo4j PROFILE db hits (ves_db_hits); SPARQL: wall-time VES only. "
        "kgbench/docs/metrics.md). --language sparql always scores ex and exec and takes "
        "soft_f1 and ves from this list",
    )
    p.add_argument(
        "--ves-reps",
        type=int,
        default=100,
        help="repetitions of each gated task's wall-time measurement for --metrics ves "
        "(prediction then gold, each executed and fetched; default: 100, as BIRD)",
    )
    p.add_argument(
        "--metric-for-agg",
        help="metric of by_graph/by_match/by_return (default: ex if selected, else the first)",
    )
    p.add_argument("--workers", type=int, default=8, help="parallel queries (default: 8)")
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="per-query timeout in seconds (default: 120 for Cypher, 30 for SPARQL)",
    )
    p.add_argument(
        "--gold-timeout", type=float, help="timeout of gold queries (default: --timeout)"
    )
    p.add_argument(
        "--cache",
        type=Path,
        help="directory caching every query's result across runs, per graph and database "
        "content (default: OUT/cache)",
    )
    p.add_argument(
        "--gold-cache", type=Path, help="the former name of --cache (it now caches every query)"
    )
    p.add_argument(
        "--no-cache", action="store_true", help="no result cache: send every query again"
    )
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="on a connection failure, go on: the tasks hit are not scored but counted and "
        "listed (aggregated_metrics.json counts.connection_errors, excluded), and the exit "
        "code is 3 (default: stop with exit code 1, writing nothing)",
    )
    p.add_argument(
        "--samples",
        type=int,
        metavar="K",
        help="score K sampled predictions per task (pred_cypher_samples / "
        "predicted_sparql_samples / gtsqa's pred_answers_samples, as `kgbench predict "
        "--samples K` writes them) and report pass@k for k <= K (Chen et al. 2021's unbiased "
        "estimator) beside the family's main metric; what passes: kgbench/docs/metrics.md",
    )
    p.add_argument(
        "--test-suite",
        type=int,
        nargs="?",
        const=8,
        default=None,
        metavar="N",
        help="also score test-suite EX (ts_execution_accuracy): each gold query gets a suite "
        "of up to N (default 8) neighbour graphs that tell it from its near-miss mutations; "
        "a prediction with EX 1 must also agree on every one (kgbench/docs/metrics.md). Cypher: "
        "needs --suite-graph",
    )
    p.add_argument(
        "--suite-graph",
        type=Path,
        help="--test-suite, Cypher: the graph under test (graph.json or a kgbench convert "
        "output directory), loaded into a disposable local Neo4j kgbench starts; the "
        "neighbour graphs are rolled-back transactions there, never on --uri",
    )
    p.add_argument(
        "--neo4j-version",
        default=None,
        metavar="V",
        help="the Neo4j release of the disposable local Neo4j kgbench starts for --suite-graph "
        "or --clean-graph, as `kgbench neo4j start --version` (5.26, 2026.08.1, latest, ...; "
        "default: the 5.26 LTS); the Cypher dialect follows it",
    )
    p.add_argument(
        "--suite-cache",
        type=Path,
        help="--test-suite: the JSON file of distilled suites, reused by later runs and other "
        "models while the graph content and gold are unchanged (default: "
        "OUT/test_suite_cache.json)",
    )
    p.add_argument(
        "--seed", type=int, default=0, help="--test-suite: seed of the suites (default: 0)"
    )
    p.add_argument(
        "--trajectories",
        type=Path,
        metavar="FILE",
        help="the trajectories.jsonl of a `kgbench predict --agent` run: "
        "aggregated_metrics.json gains by_turns and by_ending (n and the main metric per "
        "number of turns and per ending). Default: the trajectories.jsonl beside the "
        "prediction file (or the task file without --predictions), when there is one",
    )
    p.add_argument(
        "--audit",
        type=Path,
        metavar="FILE",
        help="the audit.json of `kgbench audit` on the same tasks: each scored record gains "
        "gold_flags (its gold's flags) and aggregated_metrics.json gains unflagged (the metrics "
        "over the tasks without a flag) and gold_flags (tasks per flag)",
    )
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench evaluate``: the options checked, then the family of
    :func:`kgbench.families.get` scores (``--language sparql``: ``spider4sparql``)."""
    from kgbench.errors import InputError
    from kgbench.families import EvaluateOptions, get

    # --language sparql names the family of CypherBench's SPARQL counterpart
    sparql = args.family == "cypherbench" and args.language == "sparql"
    family = get("spider4sparql" if sparql else args.family)
    specs: list[str] = args.predictions or []
    several = len(specs) > 1 or any("=" in Path(v).name for v in specs)
    if several and not family.several_runs:
        raise InputError("several --predictions files are for Cypher tasks (--family cypherbench)")
    if several and args.samples is not None:
        raise InputError("--samples scores one prediction file; give --predictions once")
    predictions = None if not specs or several else Path(specs[0])
    if args.test_suite is None and (args.suite_cache is not None or args.suite_graph is not None):
        raise InputError("--suite-cache and --suite-graph need --test-suite")
    if args.neo4j_version is not None and args.suite_graph is None and args.clean_graph is None:
        raise InputError(
            "--neo4j-version is the release of the disposable Neo4j kgbench starts: it "
            "needs --suite-graph or --clean-graph"
        )
    neo4j_version = neo4j_version_option(args.neo4j_version)  # one line when unknown
    if args.test_suite is not None and not family.has_test_suite:
        raise InputError(
            "--test-suite scores execution accuracy of query tasks (--family cypherbench, "
            "Cypher on Neo4j or --language sparql)"
        )
    if args.samples is not None and (args.samples < 1 or not family.run_samples):
        raise InputError(
            "--samples must be >= 1 and is for --family cypherbench, gtsqa and ngdbench tasks"
        )
    if args.test_suite is not None and args.test_suite < 1:
        # one rule for Cypher and SPARQL: a suite of 0 neighbour graphs is plain EX
        raise InputError(
            f"--test-suite N: N is the largest suite per task and must be >= 1, not "
            f"{args.test_suite} (without --test-suite, only EX is scored)"
        )
    if args.keep_going and not family.needs_server:
        raise InputError("--keep-going is for Cypher tasks on Neo4j (--family cypherbench)")
    if args.language == "sparql" and family.language != "sparql":
        raise InputError(f"--family {family.name} scores Cypher tasks; drop --language sparql")
    if args.trajectories is not None and several:
        raise InputError("--trajectories is for one prediction file; give --predictions once")
    if args.trajectories is not None and not args.trajectories.is_file():
        raise InputError(f"--trajectories {args.trajectories}: no such file")
    if args.clean_graph is not None and not family.takes_clean_graph:
        raise InputError("--clean-graph is for --family ngdbench (management predictions)")
    if args.ves_reps < 1:
        raise InputError(f"--ves-reps must be >= 1, not {args.ves_reps}")
    audit = _read_audit(family, args, several)
    options: dict[str, Any] = {
        "user": args.user or os.environ.get("NEO4J_USER"),
        "password": args.password or os.environ.get("NEO4J_PASSWORD"),
        "database": args.database,
        "graph_uris": args.graph_uris,
        "timeout_s": args.timeout,
        "uri": args.uri,
        "rdf_dir": args.rdf_dir,
        "compat": args.compat,
        "test_suite": args.test_suite,
        "suite_graph": args.suite_graph,
        "suite_cache": args.suite_cache,
        "seed": args.seed,
        "gold": args.gold,
        "clean_graph": args.clean_graph,
        "neo4j_version": neo4j_version,
        "samples": args.samples,
        "out": args.out,
        "progress": True,
        "ves_reps": args.ves_reps,
    }
    if family.needs_server:
        options.update(_server_options(args))
    elif family.language == "sparql":
        options["metrics"] = _sparql_metrics(args.metrics)
    if args.bench is not None and not family.needs_server:
        raise InputError(f"--bench is for graphs on Neo4j; --family {family.name} has none")
    servers = bench_servers(args)
    if servers is not None:
        options.update(graph_uris=servers.graph_map(), servers=servers)
    try:
        return _evaluate(
            family,
            args,
            predictions,
            specs if several else None,
            EvaluateOptions(**options),
            audit,
        )
    finally:
        if servers is not None:
            servers.close()


def _read_audit(
    family: Any, args: argparse.Namespace, several: bool
) -> dict[str, list[dict[str, Any]]] | None:
    """The flags of ``--audit FILE`` by qid (None without it), checked against the task
    file's qids before anything runs (:func:`kgbench.evaluate.gold_flags.check_audit_qids`;
    its warnings are printed).

    Raises:
        InputError: --audit for a family without gold queries or with several prediction
            files; a file that is not an audit; no qid in common with the tasks."""
    from kgbench.errors import InputError

    if args.audit is None:
        return None
    if not family.has_test_suite:
        raise InputError(
            "--audit carries the flags of `kgbench audit` into an evaluation of gold queries "
            f"(--family cypherbench or spider4sparql), not --family {family.name}"
        )
    if several:
        raise InputError("--audit is for one prediction file; give --predictions once")
    from kgbench.evaluate.gold_flags import check_audit_qids, read_audit

    flags = read_audit(args.audit)
    qids = [t.get("qid") for t in family.read_tasks(args.tasks)]
    for warning in check_audit_qids(flags, qids, args.audit, args.tasks):
        print(warning, file=sys.stderr)
    return flags


def _sparql_metrics(spec: str) -> tuple[str, ...] | None:
    """The metrics ``--language sparql`` adds to EX and Exec from ``--metrics``: ``soft_f1``,
    ``r_ves``, ``ves`` (``ves`` stands for both wall-time scores; the db-hit VES is Cypher's
    and dropped from the group); None when there is none.

    Raises:
        InputError: an unknown metric, or ``ves_db_hits`` named alone."""
    from kgbench.errors import InputError
    from kgbench.evaluate.runner import parse_metrics

    names = parse_metrics(spec)
    asked = {n.strip().lower() for n in spec.split(",")}
    if "ves_db_hits" in asked:
        raise InputError(
            "ves_db_hits counts Neo4j PROFILE db hits (Cypher); SPARQL has wall-time VES only"
        )
    extra = tuple(n for n in names if n in ("soft_f1", "r_ves", "ves"))
    return extra or None


def _server_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of an evaluation on Neo4j servers (``--family cypherbench``), checked."""
    from kgbench.errors import InputError
    from kgbench.evaluate.runner import METRIC_ALIASES, parse_metrics

    if args.test_suite is not None and args.suite_graph is None:
        raise InputError(
            "--test-suite for Cypher needs --suite-graph (the graph.json or convert "
            "directory of the graph under test, loaded into a disposable Neo4j)"
        )
    timeout = 120.0 if args.timeout is None else args.timeout
    uri = args.uri
    if uri is None and args.graph_uris is None and args.bench is None:
        from kgbench.neo4j.cli import require_local_server_uri

        uri = require_local_server_uri(
            "no Neo4j server: give --uri (or set KGBENCH_NEO4J_URI), --graph-uris, or both"
        )
    if args.workers < 1:
        raise InputError("--workers must be at least 1")
    if args.no_cache and (args.cache or args.gold_cache):
        raise InputError("--no-cache and --cache (or --gold-cache) contradict each other")
    if timeout <= 0:
        raise InputError("--timeout must be positive")
    metrics = parse_metrics(args.metrics)
    if args.metric_for_agg is None:
        agg_name: str | None = (
            "execution_accuracy" if "execution_accuracy" in metrics else metrics[0]
        )
    else:
        agg_name = METRIC_ALIASES.get(args.metric_for_agg.strip().lower())
    if agg_name is None or agg_name not in metrics:
        raise InputError(
            f"--metric-for-agg {args.metric_for_agg!r} must be one of the selected metrics"
        )
    if args.test_suite is not None and "execution_accuracy" not in metrics:
        raise InputError("--test-suite needs the ex metric (--metrics ...,ex)")
    return {
        "uri": uri,
        "timeout_s": timeout,
        "metrics": metrics,
        "metric_for_agg": agg_name,
        "workers": args.workers,
        "gold_timeout_s": args.gold_timeout,
        "cache_dir": None
        if args.no_cache
        else (args.cache or args.gold_cache or args.out / "cache"),
        "keep_going": args.keep_going,
    }


def _evaluate(
    family: Any,
    args: argparse.Namespace,
    predictions: Path | None,
    specs: list[str] | None,
    options: Any,
    audit: dict[str, list[dict[str, Any]]] | None = None,
) -> int:
    """Score with ``family`` (with the gold flags of ``audit``, when given), write, print the
    table and say what was written."""
    if specs is not None:
        code: int = family.evaluate_runs(args.tasks, specs, options)
        return code
    from kgbench.tasks import trajectories_beside

    evaluation = family.evaluate(args.tasks, predictions, options)
    trajectories = args.trajectories or trajectories_beside(predictions or args.tasks)
    if trajectories is not None:
        evaluation.add_trajectories(trajectories, args.out)
    if audit is not None:
        evaluation.add_gold_flags(audit)
    results_path, agg_path = evaluation.write(args.out)
    print(evaluation.table())
    if evaluation.gold_audit is not None:
        print(evaluation.gold_flags_table())
    if evaluation.turns is not None:
        print(evaluation.turns_table())
    print(f"wrote {results_path} and {agg_path}", file=sys.stderr)
    code = family.finish(evaluation, agg_path)
    return code
