"""``kgbench predict``: tasks → prompts → an OpenAI-compatible model → predictions.

:func:`predict` reads a family's tasks, checks everything it needs before the first request
(every graph's schema or ontology, the prompt's placeholders), sends one chat-completions
request per task and sample through :class:`kgbench.llm.LLMClient` (bounded concurrency,
retries of 429 / 5xx honouring ``Retry-After``, the JSONL replay cache), post-processes the
replies as the family's seed does and writes the family's prediction file and ``run.json``
(formats: ``kgbench/docs/formats.md`` §15).

Every reply goes through the replay cache (``OUT/cache.jsonl`` unless ``cache_path`` is
given): a run interrupted or stopped by an endpoint that stays down, rerun with the same
arguments, sends no request for a reply already received. A reply without usable text (null
content, a refusal, nothing left after post-processing) becomes an empty prediction, counted
in ``run.json`` ``failures``; it scores 0.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgbench.errors import InputError, KgbenchError

#: Families :func:`predict` runs.
FAMILIES = ("cypherbench", "spider4sparql", "text2cypher", "gtsqa", "ngdbench")

#: The shipped prompt each family uses by default (the seed's published setting).
DEFAULT_PROMPTS = {
    "cypherbench": "cypherbench_zero_shot",
    "spider4sparql": "spider4sparql_zero_shot",
    "text2cypher": "text2cypher_neo4j_2024",
    "gtsqa": "gtsqa_sparql",
    "ngdbench": "ngdbench_cypher",
}

#: The prediction file each family writes in the output directory.
OUTPUT_FILES = {
    "cypherbench": "result.json",
    "spider4sparql": "predictions.json",
    "text2cypher": "predictions.json",
    "gtsqa": "predictions.json",
    "ngdbench": "predictions.json",
}


class PredictError(KgbenchError):
    """The run stopped before every reply was received (the endpoint stayed down, refused
    the request, sent something other than chat-completions JSON, or a replay-only run met a
    prompt not in the cache). The message is one line and names the task; the replies
    received are kept in the replay cache and ``run.json`` says ``complete: false``."""


@dataclass
class PredictResult:
    """What :func:`predict` wrote: the prediction file, ``run.json`` and their contents."""

    out_dir: Path
    predictions_path: Path
    run_path: Path
    records: list[dict[str, Any]]
    run: dict[str, Any]


@dataclass(frozen=True)
class _Prompted:
    task: int
    sample: int
    messages: list[dict[str, str]]


def _graph_contexts(
    family: str,
    tasks: Sequence[Mapping[str, Any]],
    *,
    rdf_dir: str | Path | None,
    schema_dir: str | Path | None,
    uri: str | None,
    graph_uris: str | Path | Mapping[str, Any] | None,
    user: str | None,
    password: str | None,
    database: str | None,
    kg: Any = None,
) -> dict[str, str]:
    """Graph -> the text the family's prompt needs for it (schema, ontology or relations)."""
    graphs = sorted({str(t["graph"]) for t in tasks})
    if family == "text2cypher":  # each record carries its own schema
        return {g: "" for g in graphs}
    if family == "gtsqa":
        text = kg.schema_text() if hasattr(kg, "schema_text") else kg.relations_text()
        return {g: text for g in graphs}
    if family == "spider4sparql":
        from kgbench.predict.spider4sparql import load_ontologies

        if rdf_dir is None:
            raise InputError("--family spider4sparql needs --rdf-dir (outputs of `kgbench rdb`)")
        return load_ontologies(rdf_dir, graphs)
    from kgbench.predict.cypherbench import load_schema_texts

    targets: dict[str, Any] = {}
    if graph_uris is not None or uri is not None:
        from kgbench.evaluate.runner import GraphTarget, load_graph_targets

        if graph_uris is not None:
            targets = dict(load_graph_targets(graph_uris, user, password))
        if uri is not None:
            for g in graphs:
                targets.setdefault(g, GraphTarget(uri, database, user, password))
    return load_schema_texts(graphs, schema_dir=schema_dir, targets=targets, fetch=_fetch_schema)


def kg_paths_given(kg: Any) -> bool:
    """True when ``--kg`` names at least one file."""
    from kgbench.predict.gtsqa import kg_paths

    return bool(kg_paths(kg))


def _fetch_schema(graph: str, target: Any) -> dict[str, Any]:
    """The schema JSON of ``graph`` from its server (CypherBench's queries)."""
    import neo4j

    from kgbench.neo4j.executor import connect
    from kgbench.neo4j.schema import fetch_schema

    try:
        with connect(target.uri, target.user, target.password) as driver:
            return fetch_schema(driver, name=graph, database=target.database)
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, OSError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(
            f"graph {graph!r}: could not fetch its schema from {target.uri}: {reason}"
        ) from exc


def _read_tasks(family: str, path: str | Path) -> list[dict[str, Any]]:
    if family == "gtsqa":
        from kgbench.predict.gtsqa import read_tasks as read_gtsqa

        return read_gtsqa(path)
    if family == "ngdbench":
        from kgbench.predict.ngdbench import read_tasks as read_ngd

        return read_ngd(path)
    if family == "text2cypher":
        from kgbench.predict.text2cypher import read_tasks as read_t2c

        return read_t2c(path)
    if family == "cypherbench":
        from kgbench.predict.cypherbench import read_tasks

        return read_tasks(path)
    from kgbench.predict.spider4sparql import read_tasks as read_s4s

    return read_s4s(path)


def _prompt_values(family: str, task: Mapping[str, Any], context: str) -> dict[str, str]:
    if family == "gtsqa":
        from kgbench.predict.gtsqa import prompt_values

        return prompt_values(task, context)
    if family == "ngdbench":
        from kgbench.predict.ngdbench import task_text

        return {"schema": context, "task": task_text(task)}
    if family == "text2cypher":
        return {"schema": str(task["schema"]), "question": str(task["question"])}
    if family == "cypherbench":
        from kgbench.predict.cypherbench import question_of

        return {"schema": context, "question": question_of(task)}
    return {"question": str(task["nl_question"]), "ontology": context}


def _placeholders(family: str) -> tuple[str, ...]:
    if family == "gtsqa":
        from kgbench.predict.gtsqa import PLACEHOLDERS as GT

        return GT
    if family == "ngdbench":
        from kgbench.predict.ngdbench import PLACEHOLDERS as NGD

        return NGD
    if family == "text2cypher":
        from kgbench.predict.text2cypher import PLACEHOLDERS as T2C

        return T2C
    if family == "cypherbench":
        from kgbench.predict.cypherbench import PLACEHOLDERS

        return PLACEHOLDERS
    from kgbench.predict.spider4sparql import PLACEHOLDERS as S4S

    return S4S


def _postprocess(family: str, task: Mapping[str, Any]) -> Callable[[str], str]:
    if family == "gtsqa":
        from kgbench.predict.gtsqa import postprocess as gt_post

        return gt_post
    if family == "ngdbench":
        from kgbench.predict import ngdbench as ngd

        if task["family"] == "management":
            return ngd.management_postprocess
        return ngd.postprocess
    if family == "text2cypher":
        from kgbench.predict.text2cypher import postprocess as t2c_post

        return t2c_post
    if family == "cypherbench":
        from kgbench.predict.cypherbench import postprocess

        return postprocess
    from kgbench.predict.spider4sparql import postprocess as s4s_post

    return s4s_post


def build_prompts(
    family: str,
    tasks: Sequence[Mapping[str, Any]],
    contexts: Mapping[str, str],
    prompt: Any,
) -> list[str]:
    """The prompt text of every task (``prompt`` a :class:`~kgbench.predict.prompt.
    PromptTemplate`, ``contexts`` graph -> schema or ontology text), in task order."""
    return [prompt.fill(_prompt_values(family, t, contexts[str(t["graph"])])) for t in tasks]


def _records(
    family: str,
    tasks: Sequence[Mapping[str, Any]],
    prompts: Sequence[str],
    preds: Sequence[Sequence[str]],
    kg: Any = None,
) -> list[dict[str, Any]]:
    if family == "gtsqa":
        from kgbench.predict.gtsqa import records as gtsqa_records

        return gtsqa_records(tasks, preds, kg)
    out = []
    for task, text, samples in zip(tasks, prompts, preds, strict=True):
        if family == "ngdbench":
            from kgbench.predict.ngdbench import record as ngd_record

            out.append(ngd_record(task, list(samples)))
            continue
        if family == "text2cypher":
            rec = dict(task["record"])
            rec["pred_cypher"] = samples[0]
            if len(samples) > 1:
                rec["pred_cypher_samples"] = list(samples)
        elif family == "cypherbench":
            rec = dict(task)
            rec["pred_cypher"] = samples[0]
            if len(samples) > 1:
                rec["pred_cypher_samples"] = list(samples)
        else:
            rec = {
                "db_id": task["graph"],
                "natural_language_question": task["nl_question"],
                "prompt": text,
                "predicted_sparql": samples[0],
            }
            if len(samples) > 1:
                rec["predicted_sparql_samples"] = list(samples)
            rec["qid"] = task["qid"]
        out.append(rec)
    return out


def predict(
    family: str,
    tasks: str | Path,
    *,
    base_url: str,
    model: str,
    out_dir: str | Path,
    prompt: str | Path | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    concurrency: int = 4,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    samples: int = 1,
    limit: int | None = None,
    replay_only: bool = False,
    cache_path: str | Path | None = None,
    seed: int | None = None,
    rdf_dir: str | Path | None = None,
    schema_dir: str | Path | None = None,
    uri: str | None = None,
    graph_uris: str | Path | Mapping[str, Any] | None = None,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
    kg: str | Path | Sequence[str | Path] | None = None,
    schema: str | Path | None = None,
    price_in: float | None = None,
    price_out: float | None = None,
    max_retries: int = 4,
    timeout_s: float = 120.0,
    backoff_s: float = 1.0,
    max_backoff_s: float = 60.0,
    progress: bool = False,
) -> PredictResult:
    """Run a model on a family's tasks; write ``OUT/<predictions>`` and ``OUT/run.json``.

    ``family``: ``cypherbench`` (needs ``schema_dir`` with ``<graph>_schema.json`` or a
    server per graph: ``uri`` / ``graph_uris``), ``spider4sparql`` (needs ``rdf_dir``, the
    outputs of ``kgbench rdb``) or ``text2cypher`` (Neo4j's Text2Cypher records, each with its
    own schema), ``gtsqa`` (GTSQA records; needs ``kg``, the Wikidata RDF dump(s) the
    predicted SPARQL runs on: :mod:`kgbench.predict.gtsqa`) or ``ngdbench`` (NGDBench tasks;
    schema as ``cypherbench``: :mod:`kgbench.predict.ngdbench`). ``prompt``: a shipped prompt
    name or a template file (default: the family's published prompt); ``kg``: ``gtsqa``'s
    dump file(s); without ``kg``, ``gtsqa`` with ``uri`` asks for Cypher on the KG's Neo4j
    conversion (default prompt ``gtsqa_cypher``) with ``schema`` the conversion schema
    (``.wd2neo4j.json``, types back to PIDs): :class:`kgbench.predict.gtsqa.CypherGraph`.
    The API key is read from the environment variable
    ``api_key_env`` and never written. ``samples`` replies per task (each its own cache
    entry); ``limit`` the first N tasks; ``replay_only`` answers from the cache only;
    ``seed`` is sent to the endpoint; ``price_in`` / ``price_out`` in currency per million
    prompt / completion tokens give ``run.json`` ``cost``. ``timeout_s``, ``backoff_s`` and
    ``max_backoff_s`` are seconds.

    Raises:
        InputError: bad arguments or input, caught before any request (unknown family, a
            graph without schema / ontology / server, a prompt lacking a placeholder).
        PredictError: the run stopped early (the endpoint stayed down, refused, or answered
            with something other than chat-completions JSON; a replay-only miss); names the
            task; ``run.json`` is written with ``complete: false``.
    """
    from kgbench import __version__
    from kgbench.fileio import write_json_atomic
    from kgbench.llm import LLMClient, LLMError
    from kgbench.predict.prompt import load_prompt

    if family not in FAMILIES:
        raise InputError(f"unknown family {family!r} (one of {', '.join(FAMILIES)})")
    if samples < 1:
        raise InputError(f"--samples must be at least 1, got {samples}")
    if concurrency < 1:
        raise InputError(f"--concurrency must be at least 1, got {concurrency}")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")
    for name, price in (("--price-in", price_in), ("--price-out", price_out)):
        if price is not None and price < 0:
            raise InputError(f"{name} must be >= 0")
    out = Path(out_dir)
    task_list = _read_tasks(family, tasks)
    if limit is not None:
        task_list = task_list[:limit]
    if not task_list:
        raise InputError(f"{tasks}: no tasks")
    graph_kg: Any = None
    placeholders, default_prompt = _placeholders(family), DEFAULT_PROMPTS[family]
    if family == "gtsqa":
        from kgbench.predict import gtsqa as gt

        if not kg_paths_given(kg) and uri is not None:
            if schema is None:
                raise InputError(
                    "--family gtsqa with --uri needs --schema FILE (the .wd2neo4j.json "
                    "conversion schema, to map relationship types back to PIDs)"
                )
            placeholders, default_prompt = gt.CYPHER_PLACEHOLDERS, "gtsqa_cypher"
            graph_kg = gt.CypherGraph(uri, schema, user=user, password=password, database=database)
        else:
            graph_kg = gt.KnowledgeGraph(gt.kg_paths(kg))
    template = load_prompt(prompt or default_prompt, placeholders)
    contexts = _graph_contexts(
        family,
        task_list,
        rdf_dir=rdf_dir,
        schema_dir=schema_dir,
        uri=uri,
        graph_uris=graph_uris,
        user=user,
        password=password,
        database=database,
        kg=graph_kg,
    )
    prompts = build_prompts(family, task_list, contexts, template)
    stop = None
    if family == "cypherbench":
        from kgbench.predict.cypherbench import STOP

        stop = STOP
    jobs = [
        _Prompted(i, s, [{"role": "user", "content": text}])
        for i, text in enumerate(prompts)
        for s in range(samples)
    ]
    cache = Path(cache_path) if cache_path is not None else out / "cache.jsonl"
    client = LLMClient(
        base_url,
        model,
        api_key=os.environ.get(api_key_env, ""),
        cache_path=cache,
        temperature=temperature,
        max_concurrency=concurrency,
        max_retries=max_retries,
        timeout_s=timeout_s,
        replay_only=replay_only,
        backoff_s=backoff_s,
        max_backoff_s=max_backoff_s,
    )
    replies: list[Any] = [None] * len(jobs)
    error: str | None = None
    interrupted = False
    t0 = time.monotonic()

    def ask(job: _Prompted) -> Any:
        try:
            return client.complete_full(
                job.messages, stop=stop, max_tokens=max_tokens, seed=seed, sample=job.sample
            )
        except LLMError as exc:
            qid = task_list[job.task].get("qid", job.task)
            which = f" sample {job.sample}" if samples > 1 else ""
            raise PredictError(f"task {qid}{which}: {exc}") from exc

    from tqdm import tqdm

    with (
        client,
        ThreadPoolExecutor(max_workers=concurrency) as pool,
        tqdm(
            total=len(jobs),
            desc=f"predict {family}",
            unit="req",
            disable=None if progress else True,
        ) as bar,
    ):
        futures: dict[Future[Any], int] = {pool.submit(ask, job): n for n, job in enumerate(jobs)}
        try:
            for fut in as_completed(futures):
                replies[futures[fut]] = fut.result()
                bar.update(1)
        except PredictError as exc:
            error = str(exc)
            for f in futures:
                f.cancel()
        except KeyboardInterrupt:
            error, interrupted = "interrupted (Ctrl-C)", True
            for f in futures:
                f.cancel()
        except BaseException:
            for f in futures:
                f.cancel()
            raise
    wall = time.monotonic() - t0
    failures: Counter[str] = Counter()
    finish: Counter[str] = Counter()
    preds: list[list[str]] = [[] for _ in task_list]
    prompt_tokens = completion_tokens = 0
    received = 0
    for job, reply in zip(jobs, replies, strict=True):
        if reply is None:
            continue
        received += 1
        text = _postprocess(family, task_list[job.task])(reply.text)
        if reply.unusable:
            failures[reply.unusable] += 1
        elif not text:
            failures["empty"] += 1
        if reply.finish_reason:
            finish[reply.finish_reason] += 1
        prompt_tokens += reply.prompt_tokens or 0
        completion_tokens += reply.completion_tokens or 0
        preds[job.task].append(text)
    out_name = OUTPUT_FILES[family]
    run: dict[str, Any] = {
        "family": family,
        "model": model,
        "base_url": client.base_url,
        "api_key_env": api_key_env,
        "prompt": {"name": template.name, "sha256": template.sha256},
        "kgbench_version": __version__,
        "temperature": float(temperature),
        "max_tokens": max_tokens,
        "stop": stop,
        "seed": seed,
        "samples": samples,
        "limit": limit,
        "replay_only": replay_only,
        "complete": error is None,
        "error": error,
        "counts": {
            "tasks": len(task_list),
            "replies_expected": len(jobs),
            "replies": received,
            "empty_predictions": sum(failures.values()),
        },
        "failures": dict(sorted(failures.items())),
        "finish_reasons": dict(sorted(finish.items())),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "requests": client.stats["requests"],
        "retries": client.stats["retries"],
        "cache_hits": client.stats["cache_hits"],
        "sent_tokens": {
            "prompt_tokens": client.usage["prompt_tokens"],
            "completion_tokens": client.usage["completion_tokens"],
        },
        "wall_time_s": round(wall, 3),
        "cache": str(cache),
        "predictions": out_name if error is None else None,
    }
    if price_in is not None or price_out is not None:
        run["cost"] = {
            "price_in_per_million": price_in,
            "price_out_per_million": price_out,
            "total": round(
                prompt_tokens * (price_in or 0.0) / 1e6
                + completion_tokens * (price_out or 0.0) / 1e6,
                6,
            ),
        }
    run_path = write_json_atomic(out / "run.json", run)
    if interrupted:
        raise KeyboardInterrupt
    if error is not None:
        raise PredictError(
            f"{error} ({received} of {len(jobs)} replies received, all kept in {cache}; rerun "
            "the same command to resume)"
        )
    try:
        records = _records(family, task_list, prompts, preds, graph_kg)
    finally:
        if hasattr(graph_kg, "close"):
            graph_kg.close()
    pred_path = write_json_atomic(out / out_name, records)
    return PredictResult(out, pred_path, run_path, records, run)
