"""``kgbench evaluate``: CypherBench-compatible scoring of text-to-Cypher predictions."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
starts with how many tasks were scored. Bad predictions (missing, empty, write queries,
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
        choices=("cypherbench", "ngdbench", "text2cypher", "gtsqa"),
        default="cypherbench",
        help="task family: cypherbench (default; Nl2CypherSample tasks, EX/PSJS/Exec), "
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
    p.add_argument(
        "--metrics",
        default="ex,psjs,exec",
        help="comma-separated: ex, psjs, exec, ex_set (default: ex,psjs,exec; ex_set is "
        "PIPE-Cypher's row-key set accuracy: result rows as sets, keyed by column name "
        "when there are several columns)",
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
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench evaluate``."""
    from kgbench.errors import InputError

    specs: list[str] = args.predictions or []
    several = len(specs) > 1 or any("=" in Path(v).name for v in specs)
    if several and (args.family != "cypherbench" or args.language != "cypher"):
        raise InputError("several --predictions files are for Cypher tasks (--family cypherbench)")
    if several and args.samples is not None:
        raise InputError("--samples scores one prediction file; give --predictions once")
    args.predictions = None if not specs or several else Path(specs[0])
    from kgbench.evaluate.runner import (
        METRIC_ALIASES,
        ConnectionLostError,
        evaluate,
        parse_metrics,
    )

    if args.test_suite is None and (args.suite_cache is not None or args.suite_graph is not None):
        raise InputError("--suite-cache and --suite-graph need --test-suite")
    if args.neo4j_version is not None:
        if args.suite_graph is None and args.clean_graph is None:
            raise InputError(
                "--neo4j-version is the release of the disposable Neo4j kgbench starts: it "
                "needs --suite-graph or --clean-graph"
            )
        from kgbench.neo4j.versions import resolve_version

        args.neo4j_version = resolve_version(args.neo4j_version)  # one line when unknown
    if args.test_suite is not None and args.family != "cypherbench":
        raise InputError(
            "--test-suite scores execution accuracy of query tasks (--family cypherbench, "
            "Cypher on Neo4j or --language sparql)"
        )
    if args.samples is not None and (args.samples < 1 or args.family == "text2cypher"):
        raise InputError(
            "--samples must be >= 1 and is for --family cypherbench, gtsqa and ngdbench tasks"
        )
    if args.test_suite is not None and args.test_suite < 1:
        # one rule for Cypher and SPARQL: a suite of 0 neighbour graphs is plain EX
        raise InputError(
            f"--test-suite N: N is the largest suite per task and must be >= 1, not "
            f"{args.test_suite} (without --test-suite, only EX is scored)"
        )
    if args.family == "text2cypher":
        from kgbench.evaluate.translation import evaluate_translation

        scored = evaluate_translation(
            args.tasks,
            args.predictions,
            graph_uris=args.graph_uris,
            user=args.user or os.environ.get("NEO4J_USER"),
            password=args.password or os.environ.get("NEO4J_PASSWORD"),
            timeout_s=30.0 if args.timeout is None else args.timeout,
        )
        results_path, agg_path = scored.write(args.out)
        print(scored.table())
        print(f"wrote {results_path} and {agg_path}", file=sys.stderr)
        return 0
    if args.family == "gtsqa":
        from kgbench.evaluate.gtsqa import evaluate_gtsqa

        if args.predictions is None:
            raise InputError("--family gtsqa needs --predictions (kgbench predict's output)")
        gtsqa = evaluate_gtsqa(args.tasks, args.predictions)
        if args.samples is not None:
            from kgbench.evaluate.passk import gtsqa_pass_at_k

            gtsqa_pass_at_k(gtsqa, args.predictions, args.samples)
        agg_path = gtsqa.write(args.out)
        print(gtsqa.table())
        print(f"wrote {args.out / 'result_with_metrics.json'} and {agg_path}", file=sys.stderr)
        return 0
    if args.keep_going and (args.family != "cypherbench" or args.language != "cypher"):
        raise InputError("--keep-going is for Cypher tasks on Neo4j (--family cypherbench)")
    if args.family == "ngdbench":
        return _run_ngdbench(args)
    if args.clean_graph is not None:
        raise InputError("--clean-graph is for --family ngdbench (management predictions)")
    if args.language == "sparql":
        return _run_sparql(args)
    if args.test_suite is not None and args.suite_graph is None:
        raise InputError(
            "--test-suite for Cypher needs --suite-graph (the graph.json or convert "
            "directory of the graph under test, loaded into a disposable Neo4j)"
        )
    if args.timeout is None:
        args.timeout = 120.0
    if args.uri is None and args.graph_uris is None:
        from kgbench.neo4j.cli import local_server_uri, no_server_advice

        args.uri = local_server_uri()
        if args.uri is None:
            raise InputError(
                "no Neo4j server: give --uri (or set KGBENCH_NEO4J_URI), --graph-uris, or both; "
                + no_server_advice()
            )
    if args.workers < 1:
        raise InputError("--workers must be at least 1")
    if args.no_cache and (args.cache or args.gold_cache):
        raise InputError("--no-cache and --cache (or --gold-cache) contradict each other")
    if args.timeout <= 0:
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
    common: dict[str, Any] = {
        "uri": args.uri,
        "user": args.user or os.environ.get("NEO4J_USER"),
        "password": args.password or os.environ.get("NEO4J_PASSWORD"),
        "database": args.database,
        "graph_uris": args.graph_uris,
        "workers": args.workers,
        "timeout_s": args.timeout,
        "gold_timeout_s": args.gold_timeout,
        "cache_dir": None
        if args.no_cache
        else (args.cache or args.gold_cache or args.out / "cache"),
        "keep_going": args.keep_going,
    }
    suite_db = None
    if args.test_suite is not None:
        if "execution_accuracy" not in metrics:
            raise InputError("--test-suite needs the ex metric (--metrics ...,ex)")
        from kgbench.evaluate.suites.cypher import open_suite_graph

        # started before anything is scored: no server, one line and nothing written
        suite_db, suite_data, suite_fp = open_suite_graph(
            args.suite_graph, version=args.neo4j_version
        )
    if several:
        try:
            suite = None if suite_db is None else (suite_db, suite_data, suite_fp)
            return _run_leaderboard(args, specs, metrics, agg_name, common, suite)
        finally:
            if suite_db is not None:
                suite_db.stop()
    try:
        result = evaluate(
            args.tasks,
            args.predictions,
            metrics=metrics,
            metric_for_agg=agg_name,
            progress=True,
            **common,
        )
        if args.samples is not None and args.samples > 1:
            from kgbench.evaluate.passk import cypher_pass_at_k

            cypher_pass_at_k(result, args.predictions or args.tasks, args.samples, common)
        if suite_db is not None:
            _score_suites(args, result, suite_db, suite_data, suite_fp)
    except ConnectionLostError as exc:
        earlier = (args.out / "aggregated_metrics.json").exists()
        raise ConnectionLostError(
            f"{exc}. No result files were written to {args.out}"
            + (" (the ones there are from an earlier run)" if earlier else "")
        ) from exc
    finally:
        if suite_db is not None:
            suite_db.stop()
    results_path, agg_path = result.write(args.out)
    print(result.table())
    print(f"wrote {results_path} and {agg_path}", file=sys.stderr)
    counts = result.counts
    if counts["connection_errors"]:
        print(
            f"kgbench evaluate: {counts['connection_errors']} of {counts['tasks']} tasks were "
            "not scored because of connection errors (--keep-going); the results are "
            "incomplete (exit code 3)",
            file=sys.stderr,
        )
        return 3
    if counts["scored"] == 0:
        print(
            f"kgbench evaluate: no task could be scored (all {counts['tasks']} excluded, see "
            f"'excluded' in {agg_path}) (exit code 3)",
            file=sys.stderr,
        )
        return 3
    return 0


def _score_suites(
    args: argparse.Namespace,
    result: Any,
    db: Any,
    data: Any,
    fingerprint: str,
    runs: Sequence[tuple[str, Any]] = (),
) -> None:
    """``--test-suite`` for Cypher: test-suite EX on the disposable database ``db``, of
    ``result`` or, with several prediction files, of each ``(name, result)`` of ``runs``:
    each gold's suite is distilled once (the first run) and reused by the others from the
    one cache; each run's counters are its own."""
    from kgbench.evaluate.suites.core import SuiteCache
    from kgbench.evaluate.suites.cypher import CypherSuiteBackend, score_test_suite
    from kgbench.neo4j.executor import cypher_dialect

    cache_path = args.suite_cache or (args.out / "test_suite_cache.json")
    cache = SuiteCache.load(cache_path)
    backend = CypherSuiteBackend(
        db, data, fingerprint, dialect=cypher_dialect(db.driver), timeout_s=args.timeout
    )
    for name, one in runs or [("", result)]:
        cache.reset_counts()
        score_test_suite(
            one,
            backend,
            max_size=args.test_suite,
            seed=args.seed,
            cache=cache,
            scope=str(Path(args.suite_graph).resolve()),
            workers=min(args.workers, 4),
        )
        c = cache.counts()
        print(
            f"{f'[{name}] ' if name else ''}test-suite cache {cache_path}: {c['reused']} "
            f"suites reused, {c['distilled']} distilled ({c['rebuilt']} rebuilt: made for "
            "another graph content or version)"
            + (
                f"; {backend.reconnects} reads run again after a lost connection"
                if backend.reconnects
                else ""
            ),
            file=sys.stderr,
        )
    cache.save(cache_path)


def _run_sparql(args: argparse.Namespace) -> int:
    """``kgbench evaluate --language sparql``."""
    from kgbench.errors import InputError
    from kgbench.evaluate.sparql_runner import evaluate_sparql

    if args.rdf_dir is None:
        raise InputError("--language sparql needs --rdf-dir (the graphs' RDF files)")
    timeout = 30.0 if args.timeout is None else args.timeout
    if timeout <= 0:
        raise InputError("--timeout must be positive")

    def progress(done: int, total: int) -> None:
        if done % 50 == 0 or done == total:
            print(f"  {done}/{total} tasks", file=sys.stderr)

    cache = None
    if args.test_suite is not None:
        from kgbench.evaluate.suites.core import SuiteCache

        if args.suite_graph is not None:
            raise InputError("--suite-graph is for --language cypher; SPARQL uses --rdf-dir")
        cache = SuiteCache.load(args.suite_cache or args.out / "test_suite_cache.json")
    result = evaluate_sparql(
        args.tasks,
        args.predictions,
        args.rdf_dir,
        timeout_s=timeout,
        compat=args.compat,
        progress=progress,
        test_suite=args.test_suite,
        suite_cache=cache,
        seed=args.seed,
    )
    if cache is not None:
        path = cache.save()
        counts = cache.counts()
        print(
            f"test suites: {counts['distilled']} distilled ({counts['rebuilt']} rebuilt: the "
            f"cached suite was made for another graph content), {counts['reused']} reused; "
            f"cache {path}",
            file=sys.stderr,
        )
    if args.samples is not None and args.samples > 1:
        from kgbench.evaluate.passk import sparql_pass_at_k

        if args.predictions is None:
            raise InputError("--samples with --language sparql needs --predictions")
        sparql_pass_at_k(result, args.tasks, args.predictions, args.rdf_dir, args.samples, timeout)
    results_path, agg_path = result.write(args.out)
    print(result.table())
    print(f"wrote {results_path} and {agg_path}", file=sys.stderr)
    return 0


def _run_ngdbench(args: argparse.Namespace) -> int:
    """``kgbench evaluate --family ngdbench``."""
    from kgbench.errors import InputError
    from kgbench.evaluate.ngdbench import evaluate_ngdbench

    if args.language != "cypher":
        raise InputError("--family ngdbench scores Cypher tasks; drop --language sparql")
    timeout = 120.0 if args.timeout is None else args.timeout
    if timeout <= 0:
        raise InputError("--timeout must be positive")
    if args.clean_graph is not None and not args.clean_graph.exists():
        raise InputError(f"--clean-graph {args.clean_graph}: no such file or directory")
    reader = None
    disposable = None
    if args.uri is not None:
        from kgbench.neo4j.executor import GraphReader

        reader = GraphReader.connect(
            args.uri,
            user=args.user or os.environ.get("NEO4J_USER"),
            password=args.password or os.environ.get("NEO4J_PASSWORD"),
            database=args.database,
            timeout_s=timeout,
        )

    def progress(done: int, total: int) -> None:
        if done % 500 == 0 or done == total:
            print(f"  {done}/{total} tasks", file=sys.stderr)

    try:
        if args.clean_graph is not None:
            from kgbench.neo4j.disposable import DisposableNeo4j

            print(
                f"starting a disposable Neo4j with the clean graph {args.clean_graph}",
                file=sys.stderr,
            )
            disposable = DisposableNeo4j(args.clean_graph, version=args.neo4j_version).start()
        kwargs: dict[str, Any] = {
            "gold": args.gold,
            "reader": reader,
            "timeout_s": timeout if reader is not None or disposable is not None else None,
            "disposable": disposable,
        }
        result = evaluate_ngdbench(args.tasks, args.predictions, progress=progress, **kwargs)
        samples = getattr(args, "samples", None)
        if samples is not None:
            from kgbench.evaluate.passk import ngdbench_pass_at_k

            if args.predictions is None:
                raise InputError("--samples with --family ngdbench needs --predictions")
            ngdbench_pass_at_k(result, args.tasks, args.predictions, samples, kwargs)
    finally:
        if reader is not None:
            reader.close()
        if disposable is not None:
            disposable.stop()
    results_path, agg_path = result.write(args.out)
    print(result.table())
    print(f"wrote {results_path} and {agg_path}", file=sys.stderr)
    return 0


def _run_leaderboard(
    args: argparse.Namespace,
    specs: list[str],
    metrics: tuple[str, ...],
    agg_name: str,
    common: dict[str, Any],
    suite: tuple[Any, Any, str] | None = None,
) -> int:
    """``kgbench evaluate`` with several ``--predictions``: one pass, one leaderboard
    (:mod:`kgbench.evaluate.multirun`). With ``--test-suite`` (``suite``: the disposable
    database, graph and fingerprint of :func:`open_suite_graph`), every run gets test-suite
    EX from suites distilled once per gold, and the leaderboard adds TS-EX."""
    from kgbench.evaluate.multirun import evaluate_runs, leaderboard, parse_run_specs
    from kgbench.evaluate.runner import ConnectionLostError

    runs = parse_run_specs(specs)
    try:
        result = evaluate_runs(
            args.tasks, runs, metrics=metrics, metric_for_agg=agg_name, progress=True, **common
        )
        if suite is not None:
            _score_suites(args, None, *suite, runs=list(result.runs.items()))
            result.leaderboard = leaderboard(
                result.runs, dict(runs), result.queries_sent, result.unmatched
            )
    except ConnectionLostError as exc:
        raise ConnectionLostError(f"{exc}. No result files were written to {args.out}") from exc
    board = result.write(args.out)
    for name, run in result.runs.items():
        print(f"== {name}\n{run.table()}")
    print(result.table())
    print(f"wrote {args.out}/<run>/ for {len(runs)} runs and {board}", file=sys.stderr)
    incomplete = [n for n, r in result.runs.items() if r.counts["connection_errors"]]
    return 3 if incomplete else 0
