"""``kgbench predict``: run an OpenAI-compatible model on a benchmark family's tasks
(:func:`kgbench.predict.predict` with the family of :func:`kgbench.families.get`); the
options it shares with ``kgbench run`` (:func:`add_predict_args`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from kgbench.commands.options import add_bench_options

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
model, base URL, prompt and its SHA-256, the request parameters sent (request_parameters),
tokens, requests, retries and failures; the API key is never written. Files:
kgbench/docs/formats.md §15.

Endpoints that refuse a parameter (OpenAI's o-series and gpt-5 family refuse temperature 0
and stop, and want max_completion_tokens): --temperature none, --no-stop,
--reasoning-effort LEVEL and --max-tokens-field max_completion_tokens change what is sent;
a 400 naming the refused parameter stops the run with the option to rerun with, e.g.
  kgbench predict --family cypherbench ... --model gpt-5-mini \\
      --temperature none --no-stop --reasoning-effort low --max-tokens 4096
Without them every request is the seed's setting (and its replay cache key) as before.
"""


def _temperature(text: str) -> float | None:
    """``--temperature``: a number, or ``none`` (no temperature sent)."""
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'none', got {text!r}") from None


def registry_names() -> tuple[str, ...]:
    """The ``--family`` choices: the families of :mod:`kgbench.families.registry`."""
    from kgbench.families import names

    return names()


def add_predict_args(p: argparse.ArgumentParser) -> None:
    """The options shared by ``kgbench predict`` and ``kgbench run``."""
    p.add_argument(
        "--family",
        required=True,
        choices=registry_names(),
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
    p.add_argument(
        "--temperature",
        type=_temperature,
        default=0.0,
        metavar="T|none",
        help="sampling temperature (default 0); 'none' sends no temperature (models that "
        "accept only their default, e.g. OpenAI's o-series and gpt-5 family)",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        help="token limit of each request, sent as --max-tokens-field (default: none)",
    )
    p.add_argument(
        "--max-tokens-field",
        choices=("max_tokens", "max_completion_tokens"),
        help="the request field of --max-tokens (default: max_completion_tokens with "
        "--reasoning-effort, else max_tokens)",
    )
    p.add_argument(
        "--no-stop",
        action="store_true",
        help="send no stop sequence, even for a family that has one (cypherbench's "
        '"\\n```"); the reply is still post-processed as the family\'s seed does',
    )
    p.add_argument(
        "--reasoning-effort",
        choices=("minimal", "low", "medium", "high"),
        help="send reasoning_effort (OpenAI's reasoning models; default: not sent); the "
        "token limit then goes as max_completion_tokens unless --max-tokens-field says",
    )
    p.add_argument("--seed", type=int, help="sampling seed sent to the endpoint (default: none)")
    p.add_argument(
        "--samples", type=int, default=1, metavar="K", help="replies per task (default 1)"
    )
    p.add_argument("--limit", type=int, metavar="N", help="only the first N tasks")
    p.add_argument(
        "--repair",
        type=int,
        default=0,
        metavar="N",
        help="corrector baseline: while a predicted query fails on its graph (syntax error, "
        "read-only-gate refusal, execution error), send the error back in the same "
        "conversation, up to N rounds (default 0: one-shot); needs an executable graph "
        "(cypherbench, text2cypher: --uri / --graph-uris; ngdbench: --uri, analytic and "
        "Boolean tasks; spider4sparql: --rdf-dir); trace in OUT/repairs.jsonl",
    )
    p.add_argument(
        "--agent",
        action="store_true",
        help="agent run: the model calls tools (get_schema, run_query on the task's graph, "
        "read-only, final_answer) over chat-completions tool calling; needs an executable "
        "graph as --repair does; trajectories in OUT/trajectories.jsonl",
    )
    p.add_argument(
        "--max-turns", type=int, default=10, metavar="N", help="--agent: requests per task (10)"
    )
    p.add_argument(
        "--max-queries",
        type=int,
        metavar="N",
        help="--agent: run_query calls per task (default: as many as the turns allow)",
    )
    p.add_argument(
        "--max-rows",
        type=int,
        default=50,
        metavar="N",
        help="--agent: rows of a run_query result shown to the model (50)",
    )
    p.add_argument(
        "--agent-prompt",
        type=Path,
        metavar="FILE",
        help="--agent: system prompt file (placeholder {language}; default: the shipped one)",
    )
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
        "--schema-omit-rid",
        action="store_true",
        help="cypherbench, ngdbench: leave the relationships' rid property out of a schema "
        "fetched from the server (default: listed, as CypherBench's --load_schema_from neo4j)",
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
        "(ngdbench: the noisy graph, where `kgbench run` also runs the predicted queries); "
        "with --repair, where the predicted queries run (text2cypher too)",
    )
    p.add_argument(
        "--graph-uris",
        type=Path,
        help="cypherbench, ngdbench: JSON map graph -> Bolt URI; text2cypher (kgbench run): "
        "database_reference_alias -> Bolt URI, for the execution metrics",
    )
    add_bench_options(p, scoring=False)
    p.add_argument("--user", help="Neo4j user (default: $NEO4J_USER)")
    p.add_argument("--password", help="Neo4j password (default: $NEO4J_PASSWORD)")
    p.add_argument("--database", help="database on --uri")
    p.add_argument("--price-in", type=float, help="price per million prompt tokens (cost)")
    p.add_argument("--price-out", type=float, help="price per million completion tokens")
    p.add_argument("--retries", type=int, default=4, help="retries per request (default 4)")
    p.add_argument("--request-timeout", type=float, default=120.0, help="seconds per request (120)")


def register(subparsers: Any) -> None:
    """Add ``kgbench predict`` to the kgbench parser."""
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
    from kgbench.families import get
    from kgbench.predict import predict

    family = get(args.family)
    schema_dir = args.schema_dir
    if args.bench is not None:
        from kgbench.neo4j.bench import schema_dir as bench_schemas

        if family.name != "cypherbench":
            raise InputError(f"--bench is for --family cypherbench, not {family.name}")
        if args.agent or args.repair:
            raise InputError(
                "--bench with --agent or --repair: not yet (their queries run while the "
                "conversations go on); start the servers with `kgbench neo4j start` and give "
                "the deploy map as --graph-uris"
            )
        if schema_dir is None:
            schema_dir = bench_schemas(args.bench)
        if schema_dir is None:
            raise InputError(
                f"--bench {args.bench}: the benchmark has no graphs/schemas directory; give "
                "--schema-dir"
            )
    base_url = args.base_url
    if base_url is None:
        if not args.replay_only:
            raise InputError("--base-url is needed unless --replay-only")
        base_url = "http://replay.invalid/v1"
    return predict(
        family,
        args.tasks,
        base_url=base_url,
        model=args.model,
        out_dir=out,
        prompt=args.prompt,
        api_key_env=args.api_key_env,
        concurrency=args.concurrency,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        send_stop=not args.no_stop,
        reasoning_effort=args.reasoning_effort,
        max_tokens_field=args.max_tokens_field,
        samples=args.samples,
        limit=args.limit,
        replay_only=args.replay_only,
        cache_path=args.cache,
        seed=args.seed,
        rdf_dir=args.rdf_dir,
        schema_dir=schema_dir,
        uri=args.uri,
        graph_uris=args.graph_uris,
        user=args.user or os.environ.get("NEO4J_USER"),
        password=args.password or os.environ.get("NEO4J_PASSWORD"),
        database=args.database,
        kg=args.kg,
        schema=args.schema,
        schema_omit_rid=args.schema_omit_rid,
        price_in=args.price_in,
        price_out=args.price_out,
        max_retries=args.retries,
        timeout_s=args.request_timeout,
        progress=True,
        repair=args.repair,
        agent=args.agent,
        max_turns=args.max_turns,
        max_queries=args.max_queries,
        max_rows=args.max_rows,
        agent_prompt=args.agent_prompt,
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
    if "repair" in run:
        r = run["repair"]
        lines += [
            f"repair_rounds_used\t{r['rounds_used']}",
            f"repaired\t{r['repaired']}",
            f"still_failing\t{r['still_failing']}",
        ]
    if "agent" in run:
        a = run["agent"]
        lines += [
            f"agent_turns\t{a['turns']}",
            f"agent_queries_executed\t{a['queries_executed']}",
            f"agent_malformed_tool_calls\t{a['malformed_tool_calls']}",
        ]
        lines += [f"agent_ending\t{k}\t{v}" for k, v in a["endings"].items()]
    if "cost" in run:
        lines.append(f"cost\t{run['cost']['total']}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench predict``."""
    result = predict_from_args(args, args.out)
    sys.stdout.write(summary(result))
    print(f"wrote {result.predictions_path} and {result.run_path}", file=sys.stderr)
    return 0
