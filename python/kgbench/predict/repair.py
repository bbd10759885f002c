"""``kgbench predict --repair N``: the corrector baseline.

After the one-shot prediction of a task, its query is run on the task's graph the way the
evaluation runs it; while it fails (a syntax error, a refusal of the read-only gate, an
execution error, or an empty query) and fewer than ``N`` repair rounds were used, the failure
goes back to the model as a follow-up user message of the same conversation (the prompt, the
model's reply, the feedback, ...) and the model's new reply, post-processed as the family
does, replaces the prediction. A query that runs, even with an empty result, ends the repair;
result rows are never sent. No tool calling is needed: every round is a plain
chat-completions request (each its own replay-cache entry, its key covering the whole
conversation).

The feedback text is a shipped template (``prompts/repair/<language>.txt``) with the
placeholders ``{query}`` and ``{error}`` (checked as the family prompts are) and optionally
``{error_class}``; the error message is cut to :data:`ERROR_CHARS` characters.

SPARQL (:class:`SparqlChecker`): on the task's RDF graph as the Spider4SPARQL evaluation
runs it. Cypher (:class:`CypherChecker`): each query goes through the evaluation's path: the
prediction gate of :func:`kgbench.query.gate.prediction_failure` (empty, write
clauses per the parser), then :meth:`kgbench.neo4j.QueryExecutor.run` (parser gate again,
READ access mode, transaction timeout), so no write is ever sent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kgbench.errors import InputError
from kgbench.predict.prompt import PROMPT_DIR, PromptTemplate, load_prompt

#: Directory of the shipped feedback templates (``<language>.txt``).
REPAIR_DIR = PROMPT_DIR / "repair"

#: Placeholders every feedback template must have.
FEEDBACK_PLACEHOLDERS = ("query", "error")

#: Characters of the server's error message sent back (and kept in the trace).
ERROR_CHARS = 1000


class QueryChecker(Protocol):
    """Runs a predicted query of a task on its graph for ``--repair``."""

    #: The query language (``cypher`` or ``sparql``): picks the feedback template.
    language: str

    def applies(self, task: Mapping[str, Any]) -> bool:
        """Whether ``task``'s queries are repaired (e.g. not NGDBench's management batches,
        not a Text2Cypher record whose alias has no server): the others keep their one-shot
        prediction and have no trace."""
        ...

    def check(self, task: Mapping[str, Any], query: str) -> tuple[str, str] | None:
        """``(error_class, message)`` when ``query`` fails on the task's graph, else None.

        Raises:
            KgbenchError: the graph could not be reached (not the query's fault)."""
        ...

    def rows(
        self, task: Mapping[str, Any], query: str
    ) -> tuple[tuple[str, str] | None, list[str], list[list[Any]]]:
        """``(failure, columns, rows)`` of ``query`` on the task's graph: ``failure`` as
        :meth:`check` gives it (then no columns and rows), else the result as plain JSON
        values (the agent's ``run_query`` tool). Raises as :meth:`check`."""
        ...

    def fingerprints(self) -> dict[str, str]:
        """Graph -> a key of its content (the agent's replay check)."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


def load_feedback(language: str) -> PromptTemplate:
    """The shipped feedback template of ``language`` (``prompts/repair/<language>.txt``),
    checked for :data:`FEEDBACK_PLACEHOLDERS`.

    Raises:
        InputError: no template for ``language``, or a placeholder missing."""
    path = REPAIR_DIR / f"{language}.txt"
    if not path.is_file():
        raise InputError(f"--repair: no feedback template for {language} ({path})")
    template = load_prompt(path, FEEDBACK_PLACEHOLDERS)
    return PromptTemplate(f"repair/{language}", template.text, template.sha256)


def cut_error(message: str) -> str:
    """``message`` cut to :data:`ERROR_CHARS` characters (``...`` marks a cut)."""
    return message if len(message) <= ERROR_CHARS else message[:ERROR_CHARS] + "..."


def feedback_text(template: PromptTemplate, query: str, error_class: str, message: str) -> str:
    """The follow-up user message for a failed ``query`` (``message`` already cut)."""
    return template.fill({"query": query, "error": message, "error_class": error_class})


@dataclass
class RepairTrace:
    """The repair of one task sample: ``steps`` holds, per round (0 = the one-shot
    prediction), ``{"round", "query", "error_class", "error"}`` (``error_class`` None: the
    query ran; ``error`` as sent, cut to :data:`ERROR_CHARS`); ``replies`` every reply
    received, in order (tokens)."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    replies: list[Any] = field(default_factory=list)

    @property
    def rounds(self) -> int:
        """The repair rounds used (requests after the first)."""
        return len(self.steps) - 1

    @property
    def status(self) -> str:
        """``ok`` (the first query ran), ``repaired`` or ``failing`` (the last query fails)."""
        if self.steps[-1]["error_class"] is not None:
            return "failing"
        return "ok" if self.rounds == 0 else "repaired"


def repair_totals(traces: Sequence[RepairTrace], max_rounds: int) -> dict[str, Any]:
    """``run.json`` ``repair``: ``max_rounds``, ``initially_failing``, ``repaired``,
    ``still_failing``, ``rounds_used`` (summed) and ``rounds`` (rounds used -> task samples)."""
    dist: dict[str, int] = {}
    for t in traces:
        dist[str(t.rounds)] = dist.get(str(t.rounds), 0) + 1
    return {
        "max_rounds": max_rounds,
        "initially_failing": sum(1 for t in traces if t.steps[0]["error_class"] is not None),
        "repaired": sum(1 for t in traces if t.status == "repaired"),
        "still_failing": sum(1 for t in traces if t.status == "failing"),
        "rounds_used": sum(t.rounds for t in traces),
        "rounds": dict(sorted(dist.items(), key=lambda kv: int(kv[0]))),
    }


class Repairer:
    """The ``--repair`` rounds of a run (module docstring): ``family`` post-processes the
    replies, ``checker`` runs the queries, ``tasks`` by index, ``max_rounds`` N; the feedback
    template is the shipped one of the checker's language.

    Raises:
        InputError: no feedback template for the checker's language (at construction)."""

    def __init__(
        self,
        family: Any,
        checker: QueryChecker,
        tasks: Sequence[Mapping[str, Any]],
        max_rounds: int,
    ) -> None:
        self.family = family
        self.checker = checker
        self.tasks = tasks
        self.max_rounds = max_rounds
        self.feedback = load_feedback(checker.language)

    def applies(self, task_index: int) -> bool:
        """Whether the task's queries are repaired (:meth:`QueryChecker.applies`)."""
        return self.checker.applies(self.tasks[task_index])

    def run(
        self,
        job: Any,
        reply: Any,
        complete: Callable[[Any, list[dict[str, Any]]], Any],
    ) -> tuple[Any, RepairTrace]:
        """The final reply of ``job`` (``.task``, ``.messages``: the one-shot conversation)
        after up to :attr:`max_rounds` rounds from its one-shot ``reply``, and the trace;
        ``complete(job, messages)`` sends one request.

        Raises:
            KgbenchError: the graph could not be reached (from the checker), or from
                ``complete`` (the endpoint)."""
        task = self.tasks[job.task]
        post = self.family.postprocess(task)
        trace = RepairTrace(replies=[reply])
        messages = list(job.messages)
        for rnd in range(self.max_rounds + 1):
            query = post(reply.text)
            failure = self.checker.check(task, query)
            step: dict[str, Any] = {"round": rnd, "query": query, "error_class": None}
            trace.steps.append(step)
            if failure is None:
                break
            step["error_class"], step["error"] = failure[0], cut_error(failure[1])
            if rnd == self.max_rounds:
                break
            text = feedback_text(self.feedback, query, failure[0], step["error"])
            messages = [
                *messages,
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": text},
            ]
            reply = complete(job, messages)
            trace.replies.append(reply)
        return reply, trace

    def finish(self, out: Any, traces: Sequence[tuple[Any, RepairTrace]]) -> dict[str, Any]:
        """Write ``out/repairs.jsonl`` (one line per repaired task sample: ``qid``,
        ``sample``, ``rounds``, ``status``, ``steps``; ``traces`` pairs a job with its
        trace) and return ``run.json`` ``repair``: the feedback template, the totals of
        :func:`repair_totals` and the trace file's name."""
        from pathlib import Path

        from kgbench.fileio import write_jsonl_atomic

        write_jsonl_atomic(
            Path(out) / "repairs.jsonl",
            [
                {
                    "qid": self.tasks[job.task].get("qid", job.task),
                    "sample": job.sample,
                    "rounds": trace.rounds,
                    "status": trace.status,
                    "steps": trace.steps,
                }
                for job, trace in traces
            ],
        )
        return {
            "feedback": {"name": self.feedback.name, "sha256": self.feedback.sha256},
            **repair_totals([trace for _, trace in traces], self.max_rounds),
            "trace": "repairs.jsonl",
        }


def cypher_targets(
    tasks: Sequence[Mapping[str, Any]], sources: Any, *, every: bool = True, mode: str = "--repair"
) -> dict[str, Any]:
    """Graph -> :class:`kgbench.neo4j.targets.GraphTarget` for ``--repair``, for the graphs
    (``graph`` fields) of ``tasks``, from ``sources`` (a :class:`kgbench.predict.run.
    GraphSources`: ``graph_uris`` first, else ``uri``, with its user, password and database);
    with ``every=False`` the graphs without a server are left out.

    Raises:
        InputError: no server at all, or (``every``) a graph without one (named); the
            message starts with ``mode`` (the option that needs the server)."""
    from kgbench.neo4j.targets import GraphTarget, load_graph_targets

    graphs = sorted({str(t["graph"]) for t in tasks})
    uri, graph_uris, database = sources.uri, sources.graph_uris, sources.database
    user, password = sources.user, sources.password

    if uri is None and graph_uris is None:
        raise InputError(
            f"{mode} needs a Neo4j server to run the predicted queries on (--uri or --graph-uris)"
        )
    targets = dict(load_graph_targets(graph_uris, user, password)) if graph_uris else {}
    out: dict[str, Any] = {}
    for g in graphs:
        target = targets.get(g)
        if target is None and uri is not None:
            target = GraphTarget(uri, database, user, password)
        if target is None and not every:
            continue
        if target is None:
            raise InputError(f"{mode}: graph {g!r} has no server in --graph-uris (and no --uri)")
        out[g] = target
    return out


class CypherChecker:
    """Runs predicted Cypher on each task's Neo4j graph as the evaluation does (module
    docstring). ``targets``: graph -> target (a task of another graph is not repaired);
    ``graph_key``: the task field naming the graph; ``timeout_s``: seconds per query;
    ``repairable(task)``: whether a task of a graph with a target is repaired (default: all).
    Connects to every server at construction.

    Raises:
        ConnectionLostError: a server cannot be reached (from the executor factory)."""

    language = "cypher"

    def __init__(
        self,
        targets: Mapping[str, Any],
        *,
        graph_key: str = "graph",
        timeout_s: float = 120.0,
        repairable: Callable[[Mapping[str, Any]], bool] | None = None,
    ) -> None:
        from kgbench.neo4j.targets import neo4j_executor_factory

        self.graph_key = graph_key
        self._repairable = repairable
        make, self._close = neo4j_executor_factory()
        self._executors: dict[str, Any] = {}
        try:
            for graph, target in targets.items():
                self._executors[graph] = make(graph, target, timeout_s, 1, None)
        except BaseException:
            self._close()
            raise

    @classmethod
    def of_executors(
        cls, executors: Mapping[str, Any], *, graph_key: str = "graph"
    ) -> CypherChecker:
        """A checker over executors the caller owns (graph -> :class:`kgbench.neo4j.
        QueryExecutor`, e.g. the gtsqa family's :class:`kgbench.predict.gtsqa.CypherGraph`
        executor): :meth:`close` leaves their drivers open."""
        self = cls.__new__(cls)
        self.graph_key = graph_key
        self._repairable = None
        self._executors = dict(executors)
        self._close = lambda: None
        return self

    def applies(self, task: Mapping[str, Any]) -> bool:
        """Whether the task's graph has a server and ``repairable`` accepts it."""
        if str(task[self.graph_key]) not in self._executors:
            return False
        return self._repairable is None or self._repairable(task)

    def check(self, task: Mapping[str, Any], query: str) -> tuple[str, str] | None:
        """``(error_class, message)`` of a failing ``query`` (``empty``, ``write``, or the
        executor's class: ``syntax``, ``semantic/type``, ``timeout``, ...), else None.

        Raises:
            ConnectionLostError: the connection to the graph's server was lost (the error
                evaluation raises for the same event)."""
        return self.rows(task, query)[0]

    def rows(
        self, task: Mapping[str, Any], query: str
    ) -> tuple[tuple[str, str] | None, list[str], list[list[Any]]]:
        """``(failure, columns, rows)``: :meth:`check`'s failure, or the result's columns
        and rows (:func:`kgbench.neo4j.executor.to_plain` values).

        Raises:
            ConnectionLostError: as :meth:`check`."""
        from kgbench.neo4j.executor import CONNECTION, ConnectionLostError
        from kgbench.query.gate import prediction_failure

        executor = self._executors[str(task[self.graph_key])]
        blocked = prediction_failure(query, executor.dialect)
        if blocked is not None:
            return (blocked.error_class, blocked.error), [], []
        res = executor.run(query)
        if res.error_class == CONNECTION:
            raise ConnectionLostError(f"lost the connection to Neo4j: {res.error}")
        if res.error_class is not None:
            return (str(res.error_class), str(res.error or "")), [], []
        return None, list(res.columns), list(res.rows)

    def fingerprints(self) -> dict[str, str]:
        """Graph -> :attr:`kgbench.neo4j.executor.DatabaseFingerprint.content_key` of its
        database (read-only queries).

        Raises:
            ConnectionLostError: a server cannot be reached."""
        from kgbench.neo4j.executor import database_fingerprint

        out: dict[str, str] = {}
        for graph, executor in sorted(self._executors.items()):
            fp = database_fingerprint(executor.driver, executor.database)
            out[graph] = fp.content_key
        return out

    def close(self) -> None:
        """Close the drivers."""
        self._close()


class SparqlChecker:
    """Runs predicted SPARQL on each task's RDF graph as ``kgbench evaluate --family
    spider4sparql`` does: :class:`kgbench.query.sparql.SparqlExecutor` (pyoxigraph in a
    worker process, ``timeout_s`` per query; queries only, an update does not parse) on
    ``rdf_files_of(rdf_dir, graph)``, the Spider4SPARQL ``:`` prefix added when missing. A
    graph's worker starts at its first query and runs one query at a time.

    Raises:
        InputError: a graph of ``graphs`` without RDF files in ``rdf_dir`` (at construction).
    """

    language = "sparql"

    def __init__(self, rdf_dir: Any, graphs: Sequence[str], *, timeout_s: float = 30.0) -> None:
        import threading

        from kgbench.query.sparql import rdf_files_of

        self.timeout_s = timeout_s
        self._files = {g: rdf_files_of(rdf_dir, g) for g in graphs}
        self._locks = {g: threading.Lock() for g in graphs}
        self._executors: dict[str, Any] = {}

    def applies(self, task: Mapping[str, Any]) -> bool:
        """Every task is repaired."""
        return True

    def check(self, task: Mapping[str, Any], query: str) -> tuple[str, str] | None:
        """``(error_class, message)`` of a failing ``query`` (``empty``, ``syntax``,
        ``execution``, ``timeout``, ``not_select``), else None.

        Raises:
            InputError: the graph cannot be loaded."""
        return self.rows(task, query)[0]

    def _executor(self, graph: str) -> Any:
        """The graph's worker (started on first use; call under the graph's lock)."""
        from kgbench.query.sparql import SparqlExecutor

        executor = self._executors.get(graph)
        if executor is None:
            executor = SparqlExecutor(self._files[graph], timeout_s=self.timeout_s)
            self._executors[graph] = executor
        return executor

    def rows(
        self, task: Mapping[str, Any], query: str
    ) -> tuple[tuple[str, str] | None, list[str], list[list[Any]]]:
        """``(failure, columns, rows)``: :meth:`check`'s failure, or the SELECT's variables
        and rows (typed values, :func:`kgbench.query.sparql.typed_value`). Raises as
        :meth:`check`."""
        from kgbench.query.sparql import with_s4s_prefix

        if not query.strip():
            return ("empty", "the predicted query is empty"), [], []
        graph = str(task["graph"])
        with self._locks[graph]:
            res = self._executor(graph).run(with_s4s_prefix(query))
        if res.ok:
            return None, list(res.columns), [list(r) for r in res.rows]
        return (str(res.error), str(res.message or "")), [], []

    def fingerprints(self) -> dict[str, str]:
        """Graph -> SHA-256 of its sorted N-Triples statements
        (:meth:`kgbench.query.sparql.SparqlExecutor.fingerprint`)."""
        out: dict[str, str] = {}
        for graph in sorted(self._files):
            with self._locks[graph]:
                out[graph] = self._executor(graph).fingerprint()
        return out

    def close(self) -> None:
        """Stop the workers."""
        for executor in self._executors.values():
            executor.close()
        self._executors.clear()
