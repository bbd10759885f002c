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
from typing import Any, Protocol

from kgbench.errors import InputError, KgbenchError


class PredictError(KgbenchError):
    """The run stopped before every reply was received (the endpoint stayed down, refused
    the request, sent something other than chat-completions JSON, or a replay-only run met a
    prompt not in the cache). The message is one line and names the task; the replies
    received are kept in the replay cache and ``run.json`` says ``complete: false``.
    ``hint`` is the rerun advice when the endpoint refused one request parameter (else
    None)."""

    hint: str | None = None


#: The option that omits or changes each request parameter an endpoint may refuse.
_PARAMETER_HINTS = {
    "temperature": "rerun with --temperature none",
    "stop": "rerun with --no-stop",
    "max_tokens": "rerun with --max-tokens-field max_completion_tokens",
    "max_completion_tokens": "rerun with --max-tokens-field max_tokens",
    "seed": "rerun without --seed",
    "tools": "the endpoint takes no tools (no tool calling): rerun without --agent, or with "
    "--repair N",
}


def refused_parameter_hint(param: str, code: str | None) -> str:
    """The rerun advice for an endpoint that refused the request parameter ``param`` with
    error ``code`` (``unsupported_parameter``, ``unsupported_value`` or None), e.g. ``"rerun
    with --no-stop"`` for ``stop``; ``reasoning_effort``: another value or none."""
    if param == "reasoning_effort":
        if code == "unsupported_value":
            return "rerun with another --reasoning-effort value, or without it"
        return "rerun without --reasoning-effort"
    if param == "temperature" and code == "unsupported_value":
        return "rerun with --temperature none (or a value the model accepts)"
    return _PARAMETER_HINTS.get(param, f"rerun without the option that sets {param!r}")


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


@dataclass(frozen=True)
class _Repaired:
    """A job's final reply after ``--repair`` and its trace (:class:`kgbench.predict.repair.
    RepairTrace`)."""

    reply: Any
    trace: Any


@dataclass(frozen=True)
class GraphSources:
    """Where a run's graphs are described: ``rdf_dir`` (``kgbench rdb`` outputs),
    ``schema_dir`` (``<graph>_schema.json`` files), the server ``uri`` / ``database`` or a
    ``graph_uris`` map (:func:`kgbench.neo4j.targets.load_graph_targets`) with ``user`` /
    ``password``, ``kg`` (RDF dump files) and ``schema`` (a ``.wd2neo4j.json`` conversion
    schema); ``schema_omit_rid`` leaves the relationships' ``rid`` out of a schema fetched
    from a server (:func:`kgbench.neo4j.schema.fetch_schema` ``omit_rid``). A family reads
    the ones it needs."""

    rdf_dir: str | Path | None = None
    schema_dir: str | Path | None = None
    uri: str | None = None
    graph_uris: str | Path | Mapping[str, Any] | None = None
    user: str | None = None
    password: str | None = None
    database: str | None = None
    kg: Any = None
    schema: str | Path | None = None
    schema_omit_rid: bool = False


@dataclass(frozen=True)
class PromptSetting:
    """The prompt a run uses by default (a shipped prompt name), the placeholders every
    prompt must have, and the graph handle the family's contexts and records read (``None``,
    or e.g. GTSQA's knowledge graph; closed after the run when it has ``close()``)."""

    default_prompt: str
    placeholders: tuple[str, ...]
    graph: Any = None


class PredictFamily(Protocol):
    """What :func:`predict` needs of a benchmark family (``kgbench.families.base.Family``
    implements it; the families sit above this package)."""

    @property
    def name(self) -> str:
        """The family's name (``run.json`` ``family``)."""
        ...

    @property
    def prediction_file(self) -> str:
        """The prediction file written in the output directory."""
        ...

    @property
    def stop(self) -> str | None:
        """The stop sequence sent with every request (``None``: none)."""
        ...

    def read_tasks(self, path: str | Path) -> list[dict[str, Any]]:
        """The task records (each with ``qid`` and ``graph``); InputError on bad input."""
        ...

    def prompt_setting(self, sources: GraphSources) -> PromptSetting:
        """The default prompt, its placeholders and the graph handle for ``sources``."""
        ...

    def graph_contexts(
        self, tasks: Sequence[Mapping[str, Any]], sources: GraphSources, graph: Any
    ) -> dict[str, str]:
        """Graph name -> the text the prompt needs for it (schema, ontology, relations)."""
        ...

    def prompt_values(self, task: Mapping[str, Any], context: str) -> dict[str, str]:
        """Placeholder -> text for one task (``context``: its graph's context text)."""
        ...

    def postprocess(self, task: Mapping[str, Any]) -> Callable[[str], str]:
        """The post-processing of a reply to ``task`` (reply text -> prediction text)."""
        ...

    def records(
        self,
        tasks: Sequence[Mapping[str, Any]],
        prompts: Sequence[str],
        preds: Sequence[Sequence[str]],
        graph: Any,
    ) -> list[dict[str, Any]]:
        """The prediction records, in task order (``preds``: each task's samples)."""
        ...


def schema_contexts(graphs: Sequence[str], sources: GraphSources) -> dict[str, str]:
    """Graph -> CypherBench's schema text, from ``sources.schema_dir`` or fetched from the
    graph's server (``graph_uris`` / ``uri``, with the relationships' ``rid`` unless
    ``sources.schema_omit_rid``; :func:`kgbench.predict.cypherbench.load_schema_texts`).

    Raises:
        InputError: a graph with neither a schema file nor a reachable server."""
    from kgbench.predict.cypherbench import load_schema_texts

    targets: dict[str, Any] = {}
    if sources.graph_uris is not None or sources.uri is not None:
        from kgbench.neo4j.targets import GraphTarget, load_graph_targets

        if sources.graph_uris is not None:
            targets = dict(load_graph_targets(sources.graph_uris, sources.user, sources.password))
        if sources.uri is not None:
            for g in graphs:
                targets.setdefault(
                    g, GraphTarget(sources.uri, sources.database, sources.user, sources.password)
                )
    omit_rid = sources.schema_omit_rid

    def fetch(graph: str, target: Any) -> dict[str, Any]:
        return _fetch_schema(graph, target, omit_rid=omit_rid)

    return load_schema_texts(graphs, schema_dir=sources.schema_dir, targets=targets, fetch=fetch)


def _fetch_schema(graph: str, target: Any, *, omit_rid: bool = False) -> dict[str, Any]:
    """The schema JSON of ``graph`` from its server (CypherBench's queries; ``omit_rid``:
    without the relationships' ``rid``)."""
    import neo4j

    from kgbench.neo4j.executor import connect
    from kgbench.neo4j.schema import fetch_schema

    try:
        with connect(target.uri, target.user, target.password) as driver:
            return fetch_schema(driver, name=graph, database=target.database, omit_rid=omit_rid)
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, OSError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(
            f"graph {graph!r}: could not fetch its schema from {target.uri}: {reason}"
        ) from exc


def _agent_loop(
    family: PredictFamily,
    checker: Any,
    tasks: Sequence[Mapping[str, Any]],
    contexts: Mapping[str, str],
    system_prompt: str | Path | None,
    limits: Any,
    cache: Path,
) -> tuple[Any, dict[str, str]]:
    """The :class:`kgbench.predict.agent.AgentLoop` of an ``agent`` run (its ``complete``
    set later) and the graphs' content keys, checked against those kept beside ``cache``.

    Raises:
        InputError: a bad system prompt; a graph changed since the cached run."""
    from kgbench.predict.agent import AgentLoop, check_graphs, load_system_prompt, task_texts

    system = load_system_prompt(system_prompt)
    texts = [task_texts(family, t, contexts[str(t["graph"])]) for t in tasks]
    keys = checker.fingerprints()
    check_graphs(cache, keys)
    loop = AgentLoop(
        family,
        checker,
        tasks,
        [schema for _, schema in texts],
        [question for question, _ in texts],
        system,
        limits,
        complete=lambda job, messages, tools: None,
    )
    return loop, keys


def build_prompts(
    family: PredictFamily,
    tasks: Sequence[Mapping[str, Any]],
    contexts: Mapping[str, str],
    prompt: Any,
) -> list[str]:
    """The prompt text of every task (``prompt`` a :class:`~kgbench.predict.prompt.
    PromptTemplate`, ``contexts`` graph -> schema or ontology text), in task order."""
    return [prompt.fill(family.prompt_values(t, contexts[str(t["graph"])])) for t in tasks]


def predict(
    family: PredictFamily,
    tasks: str | Path,
    *,
    base_url: str,
    model: str,
    out_dir: str | Path,
    prompt: str | Path | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    concurrency: int = 4,
    temperature: float | None = 0.0,
    max_tokens: int | None = None,
    send_stop: bool = True,
    reasoning_effort: str | None = None,
    max_tokens_field: str | None = None,
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
    schema_omit_rid: bool = False,
    price_in: float | None = None,
    price_out: float | None = None,
    max_retries: int = 4,
    timeout_s: float = 120.0,
    backoff_s: float = 1.0,
    max_backoff_s: float = 60.0,
    progress: bool = False,
    repair: int = 0,
    agent: bool = False,
    max_turns: int = 10,
    max_queries: int | None = None,
    max_rows: int = 50,
    agent_prompt: str | Path | None = None,
) -> PredictResult:
    """Run a model on a family's tasks; write ``OUT/<predictions>`` and ``OUT/run.json``.

    ``family``: the benchmark family (a :class:`PredictFamily`: ``kgbench.families.get(name)``;
    ``kgbench.families.predict`` takes the name): ``cypherbench`` (needs ``schema_dir`` with
    ``<graph>_schema.json`` or a server per graph: ``uri`` / ``graph_uris``), ``spider4sparql``
    (needs ``rdf_dir``, the outputs of ``kgbench rdb``) or ``text2cypher`` (Neo4j's Text2Cypher
    records, each with its own schema), ``gtsqa`` (GTSQA records; needs ``kg``, the Wikidata RDF
    dump(s) the predicted SPARQL runs on: :mod:`kgbench.predict.gtsqa`) or ``ngdbench``
    (NGDBench tasks; schema as ``cypherbench``: :mod:`kgbench.predict.ngdbench`). ``prompt``: a
    shipped prompt name or a template file (default: the family's published prompt); ``kg``:
    ``gtsqa``'s dump file(s); without ``kg``, ``gtsqa`` with ``uri`` asks for Cypher on the KG's
    Neo4j conversion (default prompt ``gtsqa_cypher``) with ``schema`` the conversion schema
    (``.wd2neo4j.json``, types back to PIDs): :class:`kgbench.predict.gtsqa.CypherGraph`.
    ``schema_omit_rid``: a ``cypherbench`` / ``ngdbench`` schema fetched from a server leaves
    the relationships' ``rid`` out (default: listed, as CypherBench's
    ``--load_schema_from neo4j``; a ``schema_dir`` file is used as it is). The
    API key is read from the environment variable ``api_key_env`` and never written. ``samples``
    replies per task (each its own cache entry); ``limit`` the first N tasks; ``replay_only``
    answers from the cache only; ``seed`` is sent to the endpoint; ``price_in`` / ``price_out``
    in currency per million prompt / completion tokens give ``run.json`` ``cost``.
    ``timeout_s``, ``backoff_s`` and ``max_backoff_s`` are seconds.

    Request parameters (for endpoints that refuse some, as OpenAI's reasoning models refuse
    ``temperature`` 0 and ``stop``): ``temperature=None`` sends no temperature;
    ``send_stop=False`` sends no ``stop`` even when the family has one (CypherBench's);
    ``reasoning_effort`` is sent as ``reasoning_effort``; ``max_tokens_field`` names the field
    that carries ``max_tokens`` (``"max_tokens"`` or ``"max_completion_tokens"``; default
    ``"max_completion_tokens"`` with ``reasoning_effort``, else ``"max_tokens"``).
    ``run.json`` ``request_parameters`` holds exactly the fields each request carried besides
    model and messages. With none of these options the requests are the seed's, as before.

    ``repair`` N > 0 (the corrector baseline, :mod:`kgbench.predict.repair`): while a task's
    query fails on its graph (syntax error, read-only-gate refusal, execution error, empty),
    up to N more requests in the same conversation carry the failure (never result rows) and
    the new reply replaces the prediction; the family's ``repair_checker(tasks, sources)``
    runs the queries (a family without one: InputError before any request). Writes
    ``OUT/repairs.jsonl`` (one line per repaired task sample: ``qid``, ``sample``, ``rounds``,
    ``status``, ``steps``) and ``run.json`` ``repair`` (totals); tokens count every reply,
    ``failures`` and ``finish_reasons`` the final ones.

    ``agent`` (:mod:`kgbench.predict.agent`): each task sample is a tool-calling
    conversation (``get_schema``, ``run_query`` on the task's graph through the family's
    ``repair_checker``, ``final_answer``) of at most ``max_turns`` requests and
    ``max_queries`` queries (None: no limit but the turns), tool results cut to ``max_rows``
    rows; ``agent_prompt`` a system prompt file (default the shipped ``agent/system``).
    Writes ``OUT/trajectories.jsonl`` (one line per conversation) and ``run.json`` ``agent``
    (totals, distributions, ending reasons, the graphs' content keys); a conversation that
    ends without ``final_answer`` is an empty prediction counted in ``failures`` as
    ``agent_<ending>``. No ``stop`` is sent (the family's stop sequence would cut tool-call
    arguments). Not with ``repair``.

    Raises:
        InputError: bad arguments or input, caught before any request (a
            graph without schema / ontology / server, a prompt lacking a placeholder; with
            ``agent``, a graph changed since the cached conversations ran on it).
        PredictError: the run stopped early (the endpoint stayed down, refused, or answered
            with something other than chat-completions JSON; a replay-only miss); names the
            task, and, when the endpoint refused one parameter, that parameter and the option
            that omits or changes it (e.g. ``rerun with --no-stop``); ``run.json`` is written
            with ``complete: false``.
    """
    from kgbench import __version__
    from kgbench.fileio import write_json_atomic
    from kgbench.llm import LLMClient, LLMError, RefusedParameterError, RequestRefusedError
    from kgbench.predict.prompt import load_prompt

    if samples < 1:
        raise InputError(f"--samples must be at least 1, got {samples}")
    if repair < 0:
        raise InputError(f"--repair must be at least 0, got {repair}")
    if agent and repair:
        raise InputError("--agent and --repair are two modes: choose one")
    from kgbench.predict.agent import AgentLimits

    limits = AgentLimits(max_turns, max_queries, max_rows)
    if agent:
        limits.check()
    if concurrency < 1:
        raise InputError(f"--concurrency must be at least 1, got {concurrency}")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")
    for name, price in (("--price-in", price_in), ("--price-out", price_out)):
        if price is not None and price < 0:
            raise InputError(f"{name} must be >= 0")
    out = Path(out_dir)
    task_list = family.read_tasks(tasks)
    if limit is not None:
        task_list = task_list[:limit]
    if not task_list:
        raise InputError(f"{tasks}: no tasks")
    sources = GraphSources(
        rdf_dir=rdf_dir,
        schema_dir=schema_dir,
        uri=uri,
        graph_uris=graph_uris,
        user=user,
        password=password,
        database=database,
        kg=kg,
        schema=schema,
        schema_omit_rid=schema_omit_rid,
    )
    setting = family.prompt_setting(sources)
    graph_kg = setting.graph
    template = load_prompt(prompt or setting.default_prompt, setting.placeholders)
    contexts = family.graph_contexts(task_list, sources, graph_kg)
    prompts = build_prompts(family, task_list, contexts, template)
    # an agent's replies are tool calls: a family's stop sequence (CypherBench's "\n```")
    # would cut a final_answer whose query argument holds a code fence
    stop = family.stop if send_stop and not agent else None
    if max_tokens_field is None:
        max_tokens_field = "max_completion_tokens" if reasoning_effort else "max_tokens"
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
        reasoning_effort=reasoning_effort,
        max_tokens_field=max_tokens_field,
        max_concurrency=concurrency,
        max_retries=max_retries,
        timeout_s=timeout_s,
        replay_only=replay_only,
        backoff_s=backoff_s,
        max_backoff_s=max_backoff_s,
    )
    request_parameters = client.request_parameters(stop=stop, max_tokens=max_tokens, seed=seed)
    checker: Any = None
    feedback: Any = None
    loop: Any = None
    graph_keys: dict[str, str] = {}
    if repair or agent:
        mode = "--agent" if agent else "--repair"
        make_checker = getattr(family, "repair_checker", None)
        if make_checker is None:
            raise InputError(f"{mode}: the {family.name} family has no graph to run queries on")
        try:
            try:
                checker = make_checker(task_list, sources)
            except InputError as exc:
                text = str(exc)
                raise InputError(
                    mode + text[len("--repair") :] if text.startswith("--repair") else text
                ) from exc
            if agent:
                loop, graph_keys = _agent_loop(
                    family, checker, task_list, contexts, agent_prompt, limits, cache
                )
            else:
                from kgbench.predict.repair import load_feedback

                feedback = load_feedback(checker.language)
        except BaseException:
            if checker is not None:
                checker.close()
            client.close()
            raise
    replies: list[Any] = [None] * len(jobs)
    error: str | None = None
    hint: str | None = None
    interrupted = False
    t0 = time.monotonic()

    def complete(job: _Prompted, messages: list[dict[str, Any]], tools: Any = None) -> Any:
        try:
            return client.complete_full(
                messages,
                stop=stop,
                max_tokens=max_tokens,
                seed=seed,
                sample=job.sample,
                tools=tools,
            )
        except LLMError as exc:
            if tools is not None and isinstance(exc, RequestRefusedError):
                raise  # the agent loop ends the conversation (turns after the first)
            raise _predict_error(job, exc) from exc

    if loop is not None:
        loop.complete = complete

    def _predict_error(job: _Prompted, exc: BaseException) -> PredictError:
        qid = task_list[job.task].get("qid", job.task)
        which = f" sample {job.sample}" if samples > 1 else ""
        err = PredictError(f"task {qid}{which}: {exc}")
        if isinstance(exc, RefusedParameterError):
            err.hint = refused_parameter_hint(exc.param, exc.code)
        return err

    def ask(job: _Prompted, first: bool = False) -> Any:
        if loop is not None:
            try:
                return loop.run(job, first=first)
            except PredictError:
                raise
            except KgbenchError as exc:  # the endpoint's first turn, no tools, a lost graph
                raise _predict_error(job, exc) from exc
        reply = complete(job, job.messages)
        if checker is None or not checker.applies(task_list[job.task]):
            return reply
        return _repaired(job, reply)

    def _repaired(job: _Prompted, reply: Any) -> Any:
        """The final reply of ``job`` after up to ``repair`` rounds, with its trace."""
        from kgbench.predict.repair import RepairTrace, cut_error, feedback_text

        task = task_list[job.task]
        post = family.postprocess(task)
        trace = RepairTrace(replies=[reply])
        messages = list(job.messages)
        for rnd in range(repair + 1):
            query = post(reply.text)
            try:
                failure = checker.check(task, query)
            except KgbenchError as exc:
                raise PredictError(f"task {task.get('qid', job.task)}: {exc}") from exc
            step: dict[str, Any] = {"round": rnd, "query": query, "error_class": None}
            trace.steps.append(step)
            if failure is None:
                break
            step["error_class"], step["error"] = failure[0], cut_error(failure[1])
            if rnd == repair:
                break
            messages = [
                *messages,
                {"role": "assistant", "content": reply.text},
                {
                    "role": "user",
                    "content": feedback_text(feedback, query, failure[0], step["error"]),
                },
            ]
            reply = complete(job, messages)
            trace.replies.append(reply)
        return _Repaired(reply, trace)

    from tqdm import tqdm

    with (
        client,
        ThreadPoolExecutor(max_workers=concurrency) as pool,
        tqdm(
            total=len(jobs),
            desc=f"predict {family.name}",
            unit="req",
            disable=None if progress else True,
        ) as bar,
    ):
        futures: dict[Future[Any], int] = {}
        try:
            start = 0
            if loop is not None:  # the first conversation alone: does the endpoint call tools?
                replies[0] = ask(jobs[0], first=True)
                bar.update(1)
                start = 1
            futures = {pool.submit(ask, jobs[n]): n for n in range(start, len(jobs))}
            for fut in as_completed(futures):
                replies[futures[fut]] = fut.result()
                bar.update(1)
        except PredictError as exc:
            error, hint = str(exc), exc.hint
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
        finally:
            if checker is not None:
                checker.close()
    wall = time.monotonic() - t0
    failures: Counter[str] = Counter()
    finish: Counter[str] = Counter()
    preds: list[list[str]] = [[] for _ in task_list]
    prompt_tokens = completion_tokens = 0
    received = 0
    traces: list[tuple[_Prompted, Any]] = []
    trajectories: list[Any] = []
    for job, got in zip(jobs, replies, strict=True):
        if got is None:
            continue
        received += 1
        reply = got
        every = [got]
        if loop is not None:
            trajectories.append(got)
            every = got.replies
            text = got.answer
            if got.ending != "answered":
                failures[f"agent_{got.ending}"] += 1
            elif not text:
                failures["empty"] += 1
            if every and every[-1].finish_reason:
                finish[every[-1].finish_reason] += 1
            for one in every:
                prompt_tokens += one.prompt_tokens or 0
                completion_tokens += one.completion_tokens or 0
            preds[job.task].append(text)
            continue
        if isinstance(got, _Repaired):
            reply, every = got.reply, got.trace.replies
            traces.append((job, got.trace))
        text = family.postprocess(task_list[job.task])(reply.text)
        if reply.unusable:
            failures[reply.unusable] += 1
        elif not text:
            failures["empty"] += 1
        if reply.finish_reason:
            finish[reply.finish_reason] += 1
        for one in every:
            prompt_tokens += one.prompt_tokens or 0
            completion_tokens += one.completion_tokens or 0
        preds[job.task].append(text)
    out_name = family.prediction_file
    run: dict[str, Any] = {
        "family": family.name,
        "model": model,
        "base_url": client.base_url,
        "api_key_env": api_key_env,
        "prompt": {"name": template.name, "sha256": template.sha256},
        "kgbench_version": __version__,
        "temperature": None if temperature is None else float(temperature),
        "max_tokens": max_tokens,
        "stop": stop,
        "seed": seed,
        "request_parameters": request_parameters,
        "schema_omit_rid": schema_omit_rid,
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
    if repair:
        from kgbench.fileio import write_jsonl_atomic
        from kgbench.predict.repair import repair_totals

        run["repair"] = {
            "feedback": {"name": feedback.name, "sha256": feedback.sha256},
            **repair_totals([t for _, t in traces], repair),
            "trace": "repairs.jsonl",
        }
        write_jsonl_atomic(
            out / "repairs.jsonl",
            [
                {
                    "qid": task_list[job.task].get("qid", job.task),
                    "sample": job.sample,
                    "rounds": t.rounds,
                    "status": t.status,
                    "steps": t.steps,
                }
                for job, t in traces
            ],
        )
    if loop is not None:
        from kgbench.fileio import write_jsonl_atomic
        from kgbench.predict.agent import agent_totals

        run["agent"] = {
            "system_prompt": {"name": loop.system.name, "sha256": loop.system.sha256},
            "tools": [t["function"]["name"] for t in loop.tools],
            "language": loop.language,
            **agent_totals(trajectories, limits),
            "graphs": graph_keys,
            "trajectories": "trajectories.jsonl",
        }
        write_jsonl_atomic(out / "trajectories.jsonl", [t.to_json() for t in trajectories])
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
    if error is not None and hint is not None:
        raise PredictError(
            f"{error}; {received} of {len(jobs)} replies received, kept in {cache}: {hint}"
        )
    if error is not None:
        raise PredictError(
            f"{error} ({received} of {len(jobs)} replies received, all kept in {cache}; rerun "
            "the same command to resume)"
        )
    if loop is not None:
        prompts = list(loop.questions)
    try:
        records = family.records(task_list, prompts, preds, graph_kg)
    finally:
        if hasattr(graph_kg, "close"):
            graph_kg.close()
    pred_path = write_json_atomic(out / out_name, records)
    return PredictResult(out, pred_path, run_path, records, run)
