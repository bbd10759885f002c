"""``kgbench predict``: run an OpenAI-compatible model on a benchmark family's tasks
(:func:`kgbench.predict.predict`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

_EPILOG = """\
Families and their default prompts (the seeds' published settings; prompt files ship in
kgbench/predict/prompts/ with their source and licence):
  cypherbench    CypherBench's zero-shot baseline: one user message, temperature 0, stop
                 "\\n```"; the schema of each task's graph from --schema-dir
                 (<graph>_schema.json) or fetched from its server (--uri / --graph-uris).
                 Writes OUT/result.json (tasks with pred_cypher).
  spider4sparql  Spider4SPARQL's GPT-3.5 zero-shot prompt with each database's ontology from
                 --rdf-dir (outputs of `kgbench rdb`). Writes OUT/predictions.json
                 ({db_id, natural_language_question, prompt, predicted_sparql}).
  text2cypher    Neo4j's Text2Cypher (2024) records (question, schema, cypher, ...; CSV,
                 Parquet, JSON or JSON Lines) with the instruction of Neo4j's fine-tuned
                 Text2Cypher models and each record's own schema. Writes OUT/predictions.json
                 (the records with pred_cypher).
  gtsqa          GTSQA records -> SPARQL (kgbench's prompt: question, seed entities, the KG's
                 relations), run on the --kg dump; writes OUT/predictions.json ({id, question,
                 pred_sparql, pred_answers, retrieved_triples, error}: the answers and the
                 triples the query's pattern matched).
  ngdbench       NGDBench tasks -> Cypher (kgbench's prompt with the graph's schema, as
                 cypherbench): analytic and Boolean tasks get pred_cypher, management batches
                 steps_cypher. Writes OUT/predictions.json, read by evaluate --family ngdbench.

Every reply is kept in the replay cache (OUT/cache.jsonl or --cache): rerunning an
interrupted run sends no request for a reply already received; --replay-only never contacts
the endpoint. 429 and 5xx are retried with backoff honouring Retry-After. An empty or
unusable reply becomes an empty prediction (counted in run.json). OUT/run.json records the
model, base URL, prompt and its SHA-256, tokens, requests, retries and failures; the API key
is never written. Files: kgbench/docs/formats.md §15.
"""


def add_predict_args(p: argparse.ArgumentParser) -> None:
    """The options shared by ``kgbench predict`` and ``kgbench run``."""
    p.add_argument(
        "--family",
        required=True,
        choices=("cypherbench", "spider4sparql", "text2cypher", "gtsqa", "ngdbench"),
        help="benchmark family (its tasks, prompt and output format)",
    )
    p.add_argument("--tasks", required=True, type=Path, help="task file (.json or .jsonl)")
    p.add_argument(
        "--base-url",
        help="API root of the OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 "
        "(needed unless --replay-only)",
    )
    p.add_argument("--model", required=True, help="model name sent in every request")
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.add_argument(
        "--prompt",
        help="a shipped prompt name or a template file with {placeholders} (default: the "
        "family's published prompt)",
    )
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        metavar="VAR",
        help="environment variable holding the API key (default: OPENAI_API_KEY; never "
        "written anywhere)",
    )
    p.add_argument("--concurrency", type=int, default=4, help="requests in flight (default 4)")
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (0)")
    p.add_argument("--max-tokens", type=int, help="max_tokens of each request (default: none)")
    p.add_argument("--seed", type=int, help="sampling seed sent to the endpoint (default: none)")
    p.add_argument(
        "--samples", type=int, default=1, metavar="K", help="replies per task (default 1)"
    )
    p.add_argument("--limit", type=int, metavar="N", help="only the first N tasks")
    p.add_argument(
        "--replay-only",
        action="store_true",
        help="offline: every reply from the cache; a miss is an error naming the task",
    )
    p.add_argument("--cache", type=Path, help="replay cache file (default: OUT/cache.jsonl)")
    p.add_argument("--rdf-dir", type=Path, help="spider4sparql: outputs of `kgbench rdb`")
    p.add_argument(
        "--schema-dir",
        type=Path,
        help="cypherbench, ngdbench: directory of <graph>_schema.json files",
    )
    p.add_argument(
        "--kg",
        type=Path,
        action="append",
        metavar="FILE",
        help="gtsqa: the Wikidata RDF dump the predicted SPARQL runs on (N-Triples or Turtle, "
        ".gz/.bz2 too; repeat for several files)",
    )
    p.add_argument(
        "--schema",
        type=Path,
        metavar="FILE",
        help="gtsqa with --uri (and no --kg): the .wd2neo4j.json conversion schema of the "
        "KG loaded on --uri (relationship types back to PIDs)",
    )
    p.add_argument(
        "--uri",
        default=os.environ.get("KGBENCH_NEO4J_URI") or None,
        help="cypherbench, ngdbench: Bolt URI of the server of graphs without a schema file "
        "(ngdbench: the noisy graph, where `kgbench run` also runs the predicted queries)",
    )
    p.add_argument(
        "--graph-uris",
        type=Path,
        help="cypherbench, ngdbench: JSON map graph -> Bolt URI; text2cypher (kgbench run): "
        "database_reference_alias -> Bolt URI, for the execution metrics",
    )
    p.add_argument("--user", help="Neo4j user (default: $NEO4J_USER)")
    p.add_argument("--password", help="Neo4j password (default: $NEO4J_PASSWORD)")
    p.add_argument("--database", help="database on --uri")
    p.add_argument("--price-in", type=float, help="price per million prompt tokens (cost)")
    p.add_argument("--price-out", type=float, help="price per million completion tokens")
    p.add_argument("--retries", type=int, default=4, help="retries per request (default 4)")
    p.add_argument("--request-timeout", type=float, default=120.0, help="seconds per request (120)")


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
§11). Rerunning the same command sends no request already answered.
"""


def register(subparsers: Any) -> None:
    """Add ``kgbench predict`` and ``kgbench run`` to the kgbench parser."""
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
    p = subparsers.add_parser(
        "predict",
        help="run an OpenAI-compatible model on a benchmark family's tasks",
        description="Build each task's prompt (the family's published setting), ask the "
        "model and write the predictions, read unchanged by `kgbench evaluate`, and run.json.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_predict_args(p)
    p.set_defaults(func=run)


def predict_from_args(args: argparse.Namespace, out: Path) -> Any:
    """:func:`kgbench.predict.predict` with the options of :func:`add_predict_args`."""
    from kgbench.errors import InputError
    from kgbench.predict import predict

    base_url = args.base_url
    if base_url is None:
        if not args.replay_only:
            raise InputError("--base-url is needed unless --replay-only")
        base_url = "http://replay.invalid/v1"
    return predict(
        args.family,
        args.tasks,
        base_url=base_url,
        model=args.model,
        out_dir=out,
        prompt=args.prompt,
        api_key_env=args.api_key_env,
        concurrency=args.concurrency,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        samples=args.samples,
        limit=args.limit,
        replay_only=args.replay_only,
        cache_path=args.cache,
        seed=args.seed,
        rdf_dir=args.rdf_dir,
        schema_dir=args.schema_dir,
        uri=args.uri,
        graph_uris=args.graph_uris,
        user=args.user or os.environ.get("NEO4J_USER"),
        password=args.password or os.environ.get("NEO4J_PASSWORD"),
        database=args.database,
        kg=args.kg,
        schema=args.schema,
        price_in=args.price_in,
        price_out=args.price_out,
        max_retries=args.retries,
        timeout_s=args.request_timeout,
        progress=True,
    )


def summary(result: Any) -> str:
    """The lines ``kgbench predict`` prints: counts, failures, tokens, requests."""
    run = result.run
    c = run["counts"]
    lines = [
        f"tasks\t{c['tasks']}",
        f"replies\t{c['replies']}",
        f"empty_predictions\t{c['empty_predictions']}",
    ]
    lines += [f"failure\t{k}\t{v}" for k, v in run["failures"].items()]
    lines += [
        f"prompt_tokens\t{run['prompt_tokens']}",
        f"completion_tokens\t{run['completion_tokens']}",
        f"requests\t{run['requests']}",
        f"retries\t{run['retries']}",
        f"cache_hits\t{run['cache_hits']}",
        f"wall_time_s\t{run['wall_time_s']}",
    ]
    if "cost" in run:
        lines.append(f"cost\t{run['cost']['total']}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench predict``."""
    result = predict_from_args(args, args.out)
    sys.stdout.write(summary(result))
    print(f"wrote {result.predictions_path} and {result.run_path}", file=sys.stderr)
    return 0


def run_all(args: argparse.Namespace) -> int:
    """Handler of ``kgbench run``: predict into OUT/predict, evaluate into OUT/evaluation,
    report into OUT/report.html."""
    from kgbench.fileio import write_json_atomic

    out: Path = args.out
    if args.family == "text2cypher" and args.samples > 1:
        from kgbench.errors import InputError

        raise InputError(
            "--samples with --family text2cypher: kgbench run has no pass@k for it; "
            "use kgbench predict --samples K"
        )
    result = predict_from_args(args, out / "predict")
    sys.stdout.write(summary(result))
    eval_dir = out / "evaluation"
    samples = args.samples if args.samples > 1 else None
    if args.family == "gtsqa":
        from kgbench.evaluate.gtsqa import evaluate_gtsqa

        tasks_path = _predicted_tasks(args, out)
        scored = evaluate_gtsqa(tasks_path, result.predictions_path)
        if samples:
            from kgbench.evaluate.passk import gtsqa_pass_at_k

            gtsqa_pass_at_k(scored, result.predictions_path, samples)
        scored.write(eval_dir)
        print(scored.table())
        return _write_report(args, out, eval_dir)
    if args.family == "ngdbench":
        from kgbench.evaluate.evaluate_cli import _run_ngdbench

        tasks_path = _predicted_tasks(args, out)
        ngd_args = argparse.Namespace(
            tasks=tasks_path,
            predictions=result.predictions_path,
            gold=args.gold,
            uri=args.uri,
            user=args.user,
            password=args.password,
            database=args.database,
            timeout=args.eval_timeout,
            clean_graph=args.clean_graph,
            neo4j_version=_resolved_version(args.neo4j_version),
            language="cypher",
            samples=samples,
            out=eval_dir,
        )
        _run_ngdbench(ngd_args)
        return _write_report(args, out, eval_dir)
    if args.family == "text2cypher":
        from kgbench.evaluate.translation import evaluate_translation

        evaluation: Any = evaluate_translation(
            result.predictions_path,
            graph_uris=args.graph_uris,
            user=args.user or os.environ.get("NEO4J_USER"),
            password=args.password or os.environ.get("NEO4J_PASSWORD"),
            timeout_s=30.0 if args.eval_timeout is None else args.eval_timeout,
        )
        evaluation.write(eval_dir)
        print(evaluation.table())
        return _write_report(args, out, eval_dir)
    if args.family == "spider4sparql":
        from kgbench.evaluate.sparql_runner import evaluate_sparql
        from kgbench.predict.spider4sparql import read_tasks

        tasks_path = args.tasks
        if args.limit is not None:  # the tasks predicted, so positions align
            tasks = [
                {k: v for k, v in t.items() if k not in ("nl_question",)}
                for t in read_tasks(args.tasks)[: args.limit]
            ]
            tasks_path = write_json_atomic(out / "predict" / "tasks.json", tasks)
        timeout = 30.0 if args.eval_timeout is None else args.eval_timeout
        evaluation = evaluate_sparql(
            tasks_path, result.predictions_path, args.rdf_dir, timeout_s=timeout
        )
        if samples:
            from kgbench.evaluate.passk import sparql_pass_at_k

            sparql_pass_at_k(
                evaluation, tasks_path, result.predictions_path, args.rdf_dir, samples, timeout
            )
    else:
        from kgbench.evaluate.runner import evaluate

        uri = args.uri
        if uri is None and args.graph_uris is None:
            from kgbench.errors import InputError
            from kgbench.neo4j.cli import local_server_uri, no_server_advice

            uri = local_server_uri()
            if uri is None:
                raise InputError(
                    "no Neo4j server to score on: give --uri or --graph-uris; " + no_server_advice()
                )
        common: dict[str, Any] = {
            "uri": uri,
            "user": args.user or os.environ.get("NEO4J_USER"),
            "password": args.password or os.environ.get("NEO4J_PASSWORD"),
            "database": args.database,
            "graph_uris": args.graph_uris,
            "timeout_s": 120.0 if args.eval_timeout is None else args.eval_timeout,
            "cache_dir": eval_dir / "cache",
            "progress": True,
        }
        evaluation = evaluate(result.predictions_path, None, **common)
        if samples:
            from kgbench.evaluate.passk import cypher_pass_at_k

            cypher_pass_at_k(evaluation, result.predictions_path, samples, common)
    evaluation.write(eval_dir)
    print(evaluation.table())
    return _write_report(args, out, eval_dir)


def _resolved_version(version: str | None) -> str | None:
    """The Neo4j release named by ``--neo4j-version`` (None: the default LTS).

    Raises:
        UnknownNeo4jVersionError: the release is not one kgbench offers (one line listing them).
    """
    if version is None:
        return None
    from kgbench.neo4j.versions import resolve_version

    return resolve_version(version)


def _predicted_tasks(args: argparse.Namespace, out: Path) -> Path:
    """The task file the run predicted: ``--tasks``, or with ``--limit`` its first records
    written to ``OUT/predict/tasks.json`` (so the evaluation scores the same tasks)."""
    if args.limit is None:
        return Path(args.tasks)
    from kgbench.fileio import write_json_atomic
    from kgbench.tasks import read_records

    return write_json_atomic(
        out / "predict" / "tasks.json", [r for _, r in read_records(args.tasks)[: args.limit]]
    )


def _write_report(args: argparse.Namespace, out: Path, eval_dir: Path) -> int:
    """Write ``OUT/report.html`` of the evaluation in ``eval_dir`` (every family) and say
    what the run wrote."""
    from kgbench.report import write_report

    html = write_report([eval_dir], out / "report.html", title=f"kgbench run: {args.model}")
    print(f"wrote {out / 'predict'}, {eval_dir} and {html}", file=sys.stderr)
    return 0
