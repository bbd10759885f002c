"""``kgbench predict --agent``: a model that explores the task's graph with tools.

Each task sample is one conversation over the chat-completions ``tools`` / ``tool_calls``
protocol: a system message (the shipped template ``prompts/agent/system.txt``, placeholders
``{language}`` and optionally ``{max_rows}`` checked as the family prompts are) and the
task's question as the user message. The model has three tools (:func:`tool_definitions`):

- ``get_schema()``: the schema text the family's prompt uses for the task's graph;
- ``run_query(query)``: the query on the task's graph through the family's
  :class:`kgbench.predict.repair.QueryChecker` (Cypher: the evaluation's read-only gate, a
  READ session, the evaluation timeout; SPARQL: the family's RDF store). The result is
  ``{"columns", "rows" (the first ``max_rows``), "row_count"}`` (``"truncated": true`` when
  rows were cut) as compact JSON, or ``{"error": "<class>: <the server's message>"}`` cut to
  :data:`kgbench.predict.repair.ERROR_CHARS` characters; a write is refused by the gate and
  never sent;
- ``final_answer(query)``: the prediction (post-processed as the family does), written to the
  family's prediction file and scored by ``kgbench evaluate`` unchanged.

A turn is one request. A conversation ends (:data:`ENDINGS`) with ``answered``, or without an
answer (an empty prediction, scored 0) at ``turns`` (``max_turns`` requests without an
answer), ``queries`` (a ``run_query`` beyond ``max_queries``), ``stopped`` (a reply without
tool calls) or ``endpoint_error`` (the endpoint refused a later turn, e.g. a conversation
longer than the model's context). A malformed call (arguments that are not a JSON object, an
unknown tool, a missing ``query``) gets an error tool result and is counted; a tool of
another query language (``run_sparql`` on a Cypher family) is refused with that reason.

Every request goes through the reply cache keyed by the whole conversation so far (tools
included): tool results are recomputed from the graph, so a rerun with the same arguments
sends no request it already sent, and ``--replay-only`` reproduces a run offline. The
content key of every graph (:meth:`~kgbench.predict.repair.QueryChecker.fingerprints`) is
kept beside the cache (``<cache>.graphs.json``); a run on a graph whose content changed
since is refused before any request, naming the graph (its cached tool results no longer
hold).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError, KgbenchError
from kgbench.predict.prompt import PROMPT_DIR, PromptTemplate, load_prompt
from kgbench.predict.repair import cut_error

#: The shipped system prompt of agent runs.
SYSTEM_PROMPT = PROMPT_DIR / "agent" / "system.txt"

#: Placeholders every agent system prompt must have.
SYSTEM_PLACEHOLDERS = ("language",)

#: How a conversation ends (module docstring).
ENDINGS = ("answered", "turns", "queries", "stopped", "endpoint_error")

#: The tools, by name.
TOOL_NAMES = ("get_schema", "run_query", "final_answer")

_LANGUAGE = {"cypher": "Cypher", "sparql": "SPARQL"}


@dataclass(frozen=True)
class AgentLimits:
    """``max_turns`` requests per conversation (10), ``max_queries`` ``run_query`` calls
    (None: as many as the turns allow), ``max_rows`` rows in a tool result (50)."""

    max_turns: int = 10
    max_queries: int | None = None
    max_rows: int = 50

    def check(self) -> None:
        """Raises InputError naming the option that is out of range."""
        if self.max_turns < 1:
            raise InputError(f"--max-turns must be at least 1, got {self.max_turns}")
        if self.max_queries is not None and self.max_queries < 0:
            raise InputError(f"--max-queries must be at least 0, got {self.max_queries}")
        if self.max_rows < 0:
            raise InputError(f"--max-rows must be at least 0, got {self.max_rows}")


def tool_definitions(language: str) -> list[dict[str, Any]]:
    """The chat-completions ``tools`` of an agent run in ``language`` (``cypher`` or
    ``sparql``): ``get_schema``, ``run_query`` and ``final_answer`` (module docstring)."""
    lang = _LANGUAGE[language]
    query = {
        "type": "object",
        "properties": {"query": {"type": "string", "description": f"a {lang} query"}},
        "required": ["query"],
    }
    return [
        {
            "type": "function",
            "function": {
                "name": "get_schema",
                "description": "The graph's schema.",
                "parameters": {"type": "object", "properties": {}},
            },
        },
        {
            "type": "function",
            "function": {
                "name": "run_query",
                "description": f"Run a read-only {lang} query on the graph; returns the first "
                "rows as JSON with the total row count, or the error message.",
                "parameters": query,
            },
        },
        {
            "type": "function",
            "function": {
                "name": "final_answer",
                "description": f"Submit the final {lang} query that answers the question.",
                "parameters": query,
            },
        },
    ]


def load_system_prompt(spec: str | Path | None = None) -> PromptTemplate:
    """The agent system prompt: the shipped one, or the file ``spec``, checked for
    :data:`SYSTEM_PLACEHOLDERS`.

    Raises:
        InputError: an unreadable file or a placeholder missing."""
    template = load_prompt(spec or SYSTEM_PROMPT, SYSTEM_PLACEHOLDERS)
    if spec is None:
        return PromptTemplate("agent/system", template.text, template.sha256)
    return template


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def query_result_text(
    failure: tuple[str, str] | None, columns: list[str], rows: list[list[Any]], max_rows: int
) -> str:
    """The ``run_query`` tool result (module docstring) as compact JSON."""
    if failure is not None:
        return _json({"error": cut_error(f"{failure[0]}: {failure[1]}")})
    out: dict[str, Any] = {"columns": columns, "rows": rows[:max_rows], "row_count": len(rows)}
    if len(rows) > max_rows:
        out["truncated"] = True
    return _json(out)


@dataclass
class Trajectory:
    """One conversation of an agent run (a line of ``trajectories.jsonl``): ``messages`` as
    sent (the last reply included), ``steps`` one per turn (``latency_s``, ``cached``,
    tokens, and ``tool_calls``: ``{"name", "arguments", "result", "error"}`` each),
    ``ending`` (:data:`ENDINGS`), ``answer`` (the post-processed ``final_answer`` query, ""
    without one), counters and the last reply (``reply``, a Completion)."""

    qid: Any
    sample: int
    messages: list[dict[str, Any]]
    steps: list[dict[str, Any]] = field(default_factory=list)
    ending: str = ""
    answer: str = ""
    queries: int = 0
    tool_calls: int = 0
    malformed: int = 0
    refused_writes: int = 0
    error: str | None = None
    replies: list[Any] = field(default_factory=list)

    @property
    def turns(self) -> int:
        """Requests made (turns)."""
        return len(self.steps)

    def to_json(self) -> dict[str, Any]:
        """The ``trajectories.jsonl`` line."""
        return {
            "qid": self.qid,
            "sample": self.sample,
            "ending": self.ending,
            "answer": self.answer,
            "turns": self.turns,
            "tool_calls": self.tool_calls,
            "queries": self.queries,
            "malformed_tool_calls": self.malformed,
            "refused_writes": self.refused_writes,
            "prompt_tokens": sum(r.prompt_tokens or 0 for r in self.replies),
            "completion_tokens": sum(r.completion_tokens or 0 for r in self.replies),
            "latency_s": round(sum(s["latency_s"] for s in self.steps), 6),
            "error": self.error,
            "steps": self.steps,
            "messages": self.messages,
        }


class ToolsUnsupportedError(KgbenchError):
    """The endpoint answered the first task's first turn without a tool call: it has no tool
    calling (or ignores ``tools``)."""


def task_texts(family: Any, task: Mapping[str, Any], context: str) -> tuple[str, str]:
    """``(question, schema)`` of ``task`` from the family's prompt values (``context``: its
    graph's context text): the user message is ``{question}`` (NGDBench: ``{task}``), with
    ``{seed_entities}`` on a line of their own when the family has them (GTSQA); the schema
    is ``{schema}``, else ``{ontology}`` or ``{relations}``: what the family's prompt shows."""
    values = family.prompt_values(task, context)
    question = values.get("question") or values.get("task") or ""
    seeds = values.get("seed_entities")
    if seeds:
        question = f"{question}\nSeed entities: {', '.join(seeds.splitlines())}"
    schema = values.get("schema") or values.get("ontology") or values.get("relations") or context
    return question, schema


class AgentLoop:
    """Runs conversations (module docstring). ``family`` gives ``postprocess``; ``checker``
    runs queries (:class:`kgbench.predict.repair.QueryChecker`); ``schemas`` task index ->
    the schema text of ``get_schema``; ``questions`` task index -> the user message;
    ``complete(job, messages, tools)`` sends one request (a Completion, or raises)."""

    def __init__(
        self,
        family: Any,
        checker: Any,
        tasks: Sequence[Mapping[str, Any]],
        schemas: Sequence[str],
        questions: Sequence[str],
        system: PromptTemplate,
        limits: AgentLimits,
        complete: Callable[[Any, list[dict[str, Any]], list[dict[str, Any]]], Any],
    ) -> None:
        self.family = family
        self.checker = checker
        self.tasks = tasks
        self.schemas = schemas
        self.questions = questions
        self.limits = limits
        self.language = str(checker.language)
        self.tools = tool_definitions(self.language)
        self.system_text = system.fill(
            {"language": _LANGUAGE[self.language], "max_rows": str(limits.max_rows)}
        )
        self.complete = complete
        self.system = system
        #: Graph -> content key (:meth:`kgbench.predict.repair.QueryChecker.fingerprints`),
        #: set by :meth:`for_run`.
        self.graph_keys: dict[str, str] = {}

    @classmethod
    def for_run(
        cls,
        family: Any,
        checker: Any,
        tasks: Sequence[Mapping[str, Any]],
        contexts: Mapping[str, str],
        system_prompt: str | Path | None,
        limits: AgentLimits,
        cache: Path,
        complete: Callable[[Any, list[dict[str, Any]], list[dict[str, Any]]], Any],
    ) -> AgentLoop:
        """The loop of a ``predict --agent`` run: the system prompt ``system_prompt`` (None:
        the shipped one), each task's question and schema from its graph's context text
        (:func:`task_texts`), and the graphs' content keys (:attr:`graph_keys`) checked
        against those kept beside ``cache`` (:func:`check_graphs`).

        Raises:
            InputError: a bad system prompt; a graph changed since the cached run."""
        system = load_system_prompt(system_prompt)
        texts = [task_texts(family, t, contexts[str(t["graph"])]) for t in tasks]
        keys = checker.fingerprints()
        check_graphs(cache, keys)
        loop = cls(
            family,
            checker,
            tasks,
            [schema for _, schema in texts],
            [question for question, _ in texts],
            system,
            limits,
            complete,
        )
        loop.graph_keys = keys
        return loop

    def finish(self, out: Path, trajectories: Sequence[Trajectory]) -> dict[str, Any]:
        """Write ``out/trajectories.jsonl`` (one line per conversation, :meth:`Trajectory.
        to_json`) and return ``run.json`` ``agent``: the system prompt, tools, language,
        :func:`agent_totals`, the graphs' content keys and the trajectory file's name."""
        from kgbench.fileio import write_jsonl_atomic

        write_jsonl_atomic(Path(out) / "trajectories.jsonl", [t.to_json() for t in trajectories])
        return {
            "system_prompt": {"name": self.system.name, "sha256": self.system.sha256},
            "tools": [tool["function"]["name"] for tool in self.tools],
            "language": self.language,
            **agent_totals(trajectories, self.limits),
            "graphs": dict(self.graph_keys),
            "trajectories": "trajectories.jsonl",
        }

    def run(self, job: Any, *, first: bool = False) -> Trajectory:
        """The conversation of ``job`` (``.task``, ``.sample``); ``first``: the run's first
        conversation, whose first reply must call a tool.

        Raises:
            ToolsUnsupportedError: ``first`` and the first reply calls no tool.
            KgbenchError: from ``complete`` (the endpoint) or the graph (lost)."""
        from kgbench.llm import RequestRefusedError

        task = self.tasks[job.task]
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system_text},
            {"role": "user", "content": self.questions[job.task]},
        ]
        traj = Trajectory(task.get("qid", job.task), job.sample, messages)
        post = self.family.postprocess(task)
        while not traj.ending:
            if traj.turns == self.limits.max_turns:
                traj.ending = "turns"
                break
            t0 = time.perf_counter()
            try:
                reply = self.complete(job, list(messages), self.tools)
            except RequestRefusedError as exc:
                if traj.turns == 0:
                    raise
                traj.ending, traj.error = "endpoint_error", str(exc)
                break
            step: dict[str, Any] = {
                "turn": traj.turns + 1,
                "latency_s": round(time.perf_counter() - t0, 6),
                "cached": bool(reply.cached),
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "finish_reason": reply.finish_reason,
                "content": reply.text,
                "tool_calls": [],
            }
            traj.steps.append(step)
            traj.replies.append(reply)
            assistant: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
            if reply.tool_calls:
                assistant["tool_calls"] = [dict(c) for c in reply.tool_calls]
            messages.append(assistant)
            if not reply.tool_calls:
                if first and traj.turns == 1:
                    raise ToolsUnsupportedError(
                        "the endpoint answered without calling a tool (finish_reason "
                        f"{reply.finish_reason!r}): it may not support tool calling; "
                        "rerun without --agent, or with --repair N (no tools needed)"
                    )
                traj.ending = "stopped"
                break
            for call in reply.tool_calls:
                traj.tool_calls += 1
                result = self._tool(task, self.schemas[job.task], call, traj, post, step)
                if traj.ending:
                    break
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        return traj

    def _tool(
        self,
        task: Mapping[str, Any],
        schema: str,
        call: Mapping[str, Any],
        traj: Trajectory,
        post: Callable[[str], str],
        step: dict[str, Any],
    ) -> str:
        """Run one tool call; its result text (ends ``traj`` on an answer or the query
        budget)."""
        name = str(call["function"]["name"])
        raw = call["function"]["arguments"]
        record: dict[str, Any] = {"name": name, "arguments": raw, "result": None, "error": None}
        step["tool_calls"].append(record)
        try:
            args = json.loads(raw) if raw.strip() else {}
        except ValueError:
            args = None
        problem = None
        if name not in TOOL_NAMES:
            problem = self._unknown_tool(name)
        elif not isinstance(args, dict):
            problem = f"the arguments of {name} are not a JSON object: {raw[:200]!r}"
        elif name != "get_schema" and not isinstance(args.get("query"), str):
            problem = f"{name} needs a string argument 'query'"
        if problem is not None:
            traj.malformed += 1
            record["error"] = "malformed"
            record["result"] = _json({"error": problem})
            return str(record["result"])
        assert isinstance(args, dict)
        if name == "get_schema":
            record["result"] = schema
        elif name == "final_answer":
            traj.answer = post(str(args["query"]))
            traj.ending = "answered"
            record["result"] = None
        else:
            if self.limits.max_queries is not None and traj.queries >= self.limits.max_queries:
                traj.ending = "queries"
                record["error"] = "query_limit"
                return ""
            t0 = time.perf_counter()
            failure, columns, rows = self.checker.rows(task, str(args["query"]))
            record["elapsed_s"] = round(time.perf_counter() - t0, 6)
            if failure is not None and failure[0] == "write":
                traj.refused_writes += 1
            else:
                traj.queries += 1
            record["error"] = failure[0] if failure is not None else None
            record["result"] = query_result_text(failure, columns, rows, self.limits.max_rows)
        return str(record["result"] or "")

    def _unknown_tool(self, name: str) -> str:
        """Why a tool name is refused (another language named: that reason)."""
        lowered = name.lower()
        for language, label in _LANGUAGE.items():
            if language != self.language and language in lowered:
                mine = _LANGUAGE[self.language]
                return (
                    f"tool {name!r} refused: this task's graph runs {mine}, not {label}; "
                    f"call run_query with a {mine} query"
                )
        return f"unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}"


def agent_totals(trajectories: Sequence[Trajectory], limits: AgentLimits) -> dict[str, Any]:
    """``run.json`` ``agent``: the limits, totals (``turns``, ``tool_calls``,
    ``queries_executed``, ``malformed_tool_calls``, ``refused_writes``) and distributions
    (turns / tool calls / queries per conversation -> conversations; ``endings``)."""

    def dist(values: Sequence[int]) -> dict[str, int]:
        c = Counter(values)
        return {str(k): c[k] for k in sorted(c)}

    endings = Counter(t.ending for t in trajectories)
    return {
        "max_turns": limits.max_turns,
        "max_queries": limits.max_queries,
        "max_rows": limits.max_rows,
        "conversations": len(trajectories),
        "turns": sum(t.turns for t in trajectories),
        "tool_calls": sum(t.tool_calls for t in trajectories),
        "queries_executed": sum(t.queries for t in trajectories),
        "malformed_tool_calls": sum(t.malformed for t in trajectories),
        "refused_writes": sum(t.refused_writes for t in trajectories),
        "endings": {e: endings[e] for e in ENDINGS if endings[e]},
        "turns_per_conversation": dist([t.turns for t in trajectories]),
        "tool_calls_per_conversation": dist([t.tool_calls for t in trajectories]),
        "queries_per_conversation": dist([t.queries for t in trajectories]),
    }


def graphs_sidecar(cache: Path) -> Path:
    """Where the graphs' content keys of the cache ``cache`` are kept."""
    return cache.with_name(cache.name + ".graphs.json")


def check_graphs(cache: Path, keys: Mapping[str, str]) -> None:
    """Compare ``keys`` (graph -> content key) with those recorded beside ``cache``, then
    record the union.

    Raises:
        InputError: a graph whose content changed since the cached conversations ran on it
            (named, with the cache file)."""
    from kgbench.fileio import write_json_atomic

    path = graphs_sidecar(cache)
    old: dict[str, str] = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"{path}: not the agent cache's graph record ({exc})") from exc
        old = {str(k): str(v) for k, v in (data or {}).items()} if isinstance(data, dict) else {}
    for graph, key in sorted(keys.items()):
        if graph in old and old[graph] != key:
            raise InputError(
                f"graph {graph!r} changed since the agent conversations cached in {cache} ran "
                f"on it (content key {old[graph]} then, {key} now): their tool results no "
                "longer hold; use another --cache (or --out), or delete that cache"
            )
    if not keys.items() <= old.items():
        write_json_atomic(path, {**old, **keys})
