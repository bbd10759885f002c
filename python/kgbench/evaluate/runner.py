"""``evaluate``: score text-to-Cypher predictions against gold queries on Neo4j.

Reproduces CypherBench's evaluation (SPEC.md §3–§4): for each task, execution
accuracy (``execution_accuracy``), provenance subgraph Jaccard similarity (``psjs``)
and executability (``executable``), then ``result_with_metrics.json`` and
``aggregated_metrics.json``.

Execution plan, per graph: the distinct gold queries run once (through an executor
with an optional on-disk cache, so re-runs do not execute them again), the distinct
runnable predictions once, then the provenance queries of both. Identical gold and
predicted strings score 1 for EX and PSJS without running the prediction.
Predictions that are missing, empty or write queries are never sent to Neo4j and
score 0 on every metric; every zero caused by an error is recorded in the record's
``errors`` field as ``{metric: {"error_class", "error"}}``.

Deliberate differences from CypherBench: records keep input order (CypherBench
writes them in completion order); the gold query runs under the same timeout as
predictions unless ``gold_timeout_s`` is given; write queries score 0 instead of
being executed.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.aggregate import aggregate_metrics, format_table
from kgbench.evaluate.provenance import (
    GOLD_QUERY_ERROR,
    ExecutorLike,
    Failure,
    QueryResultLike,
    element_ids,
    jaccard,
    prediction_failure,
    provenance_of,
    run_queries,
)
from kgbench.evaluate.tasks import (
    clean_prediction,
    load_predictions,
    load_tasks,
    normalize_predictions,
    normalize_tasks,
    read_records,
)

#: CypherBench's metric names, in its default order, then PIPE-Cypher's EX_set (not a
#: default: ``--metrics ex_set``).
METRICS = ("execution_accuracy", "psjs", "executable")

#: Every metric ``evaluate`` can compute.
ALL_METRICS = (*METRICS, "ex_set")

#: Error class of a result the EX comparison cannot handle (e.g. a returned node).
UNSUPPORTED_VALUE = "unsupported-value"

#: Short names accepted by ``--metrics`` and ``evaluate(metrics=...)``.
METRIC_ALIASES = {
    "ex": "execution_accuracy",
    "execution_accuracy": "execution_accuracy",
    "psjs": "psjs",
    "exec": "executable",
    "executable": "executable",
    "ex_set": "ex_set",
}


@dataclass(frozen=True)
class GraphTarget:
    """Where one graph lives: Bolt URI, database (``None`` = server default), auth."""

    uri: str
    database: str | None = None
    user: str | None = None
    password: str | None = None


@dataclass
class EvaluationResult:
    """Scored records (``result_with_metrics.json``), ``aggregated_metrics.json``
    and the number of tasks with an error of each class (a task with several metrics
    failing for the same class counts once per class)."""

    records: list[dict[str, Any]]
    aggregated: dict[str, dict[str, float]]
    metrics: tuple[str, ...]
    metric_for_agg: str
    error_counts: dict[str, int] = field(default_factory=dict)

    def write(self, out_dir: str | Path) -> tuple[Path, Path]:
        """Write ``result_with_metrics.json`` and ``aggregated_metrics.json``
        (``json.dump(..., indent=2)``, as CypherBench) into ``out_dir``; return paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        results_path = out / "result_with_metrics.json"
        agg_path = out / "aggregated_metrics.json"
        with results_path.open("w", encoding="utf-8") as fout:
            json.dump(self.records, fout, indent=2)
        with agg_path.open("w", encoding="utf-8") as fout:
            json.dump(self.aggregated, fout, indent=2)
        return results_path, agg_path

    def table(self) -> str:
        """Aggregated metrics and error counts as a printable table."""
        text = format_table(self.aggregated, self.metric_for_agg)
        if self.error_counts:
            text += "\ntasks scored 0 with an error, by error class"
            for name, count in sorted(self.error_counts.items()):
                text += f"\n  {name:<32} {count:>8d}"
        return text


def parse_metrics(spec: str | Iterable[str]) -> tuple[str, ...]:
    """Metric names from ``"ex,psjs,exec"`` or an iterable; CypherBench names out.

    Raises:
        InputError: an unknown metric name, or none given.
    """
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out: list[str] = []
    for item in items:
        name = item.strip().lower()
        if not name:
            continue
        if name not in METRIC_ALIASES:
            raise InputError(
                f"unknown metric {item!r}; choose from ex, psjs, exec, ex_set "
                "(or execution_accuracy, psjs, executable)"
            )
        if METRIC_ALIASES[name] not in out:
            out.append(METRIC_ALIASES[name])
    if not out:
        raise InputError("no metric selected")
    return tuple(out)


def load_graph_targets(
    source: str | Path | Mapping[str, Any],
    user: str | None = None,
    password: str | None = None,
) -> dict[str, GraphTarget]:
    """Graph name -> :class:`GraphTarget` from a mapping or a JSON file.

    Accepted values per graph: a Bolt URI string; an object ``{"uri", "database"?,
    "user"?, "password"?}``; or CypherBench's ``neo4j_info.json`` form
    ``{"full": {graph: {"host", "port", "username"?, "password"?, "database"?}}}``.
    ``user``/``password`` fill in missing credentials.

    Raises:
        InputError: unreadable file or an entry without a URI (names the graph).
    """
    where = "graph map"
    if isinstance(source, Mapping):
        data: Any = source
    else:
        where = str(source)
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(f"{source}: cannot read: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise InputError(f"{source}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected a JSON object mapping graph names to Bolt URIs")
    if isinstance(data.get("full"), Mapping):
        data = data["full"]
    out: dict[str, GraphTarget] = {}
    for graph, value in data.items():
        if isinstance(value, str):
            out[graph] = GraphTarget(value, None, user, password)
            continue
        if not isinstance(value, Mapping):
            raise InputError(f"{where}: graph {graph!r}: expected a URI string or an object")
        uri = value.get("uri")
        if uri is None and "host" in value:
            uri = f"bolt://{value['host']}:{value.get('port', 7687)}"
        if not isinstance(uri, str) or not uri:
            raise InputError(f"{where}: graph {graph!r}: no 'uri' (or 'host'/'port') given")
        out[graph] = GraphTarget(
            uri,
            value.get("database"),
            value.get("user", value.get("username", user)),
            value.get("password", password),
        )
    return out


#: Factory of executors: ``(graph, target, timeout_s, workers, cache_path) -> executor``.
ExecutorFactory = Callable[[str, GraphTarget, float, int, Path | None], ExecutorLike]


def _neo4j_executor_factory() -> tuple[ExecutorFactory, Callable[[], None]]:
    """Executors of ``kgbench.neo4j.QueryExecutor`` over shared drivers, and a closer."""
    import neo4j

    from kgbench.neo4j import QueryExecutor

    drivers: dict[tuple[str, str | None, str | None], Any] = {}

    def make(
        graph: str, target: GraphTarget, timeout_s: float, workers: int, cache: Path | None
    ) -> ExecutorLike:
        key = (target.uri, target.user, target.password)
        if key not in drivers:
            auth = (target.user, target.password or "") if target.user else None
            drivers[key] = neo4j.GraphDatabase.driver(target.uri, auth=auth)
        executor: ExecutorLike = QueryExecutor(
            drivers[key],
            database=target.database,
            timeout_s=timeout_s,
            workers=workers,
            cache_path=cache,
            graph=graph,
        )
        return executor

    def close() -> None:
        for driver in drivers.values():
            driver.close()

    return make, close


def _as_tasks(tasks: str | Path | Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(tasks, (str, Path)):
        return load_tasks(tasks)
    return normalize_tasks((f"task {i}", t) for i, t in enumerate(tasks))


def _as_predictions(
    predictions: str | Path | Mapping[str, str | None] | Sequence[Mapping[str, Any]] | None,
    tasks: Sequence[Mapping[str, Any]],
) -> dict[str, str | None]:
    if predictions is None:
        return {t["qid"]: t.get("pred_cypher") for t in tasks if "pred_cypher" in t}
    if isinstance(predictions, (str, Path)):
        return load_predictions(predictions)
    if isinstance(predictions, Mapping):
        return {str(k): v for k, v in predictions.items()}
    return normalize_predictions((f"prediction {i}", p) for i, p in enumerate(predictions))


def _failure_of(res: QueryResultLike) -> Failure:
    return Failure(res.error_class or "QueryError", res.error or "query failed")


def _score_graph(
    tasks: list[dict[str, Any]],
    preds: dict[str, str | None],
    metrics: tuple[str, ...],
    gold_exec: ExecutorLike,
    pred_exec: ExecutorLike,
    progress: bool = False,
) -> None:
    """Fill ``metrics`` and ``errors`` of the tasks of one graph (in place)."""
    from kgbench._core.evaluate import ex_set  # EX_set core (Rust)
    from kgbench.evaluate import execution_accuracy, order_matters  # EX core (Rust)

    compared: dict[str, Callable[[QueryResultLike, QueryResultLike, str], float]] = {}
    if "execution_accuracy" in metrics:
        compared["execution_accuracy"] = lambda g, p, gold: float(
            execution_accuracy(g.rows, p.rows, order_matters(gold))
        )
    if "ex_set" in metrics:
        compared["ex_set"] = lambda g, p, _gold: float(
            ex_set(g.rows, p.rows, list(g.columns), list(p.columns))
        )
    want_ex = bool(compared)
    want_exec = "executable" in metrics
    want_psjs = "psjs" in metrics
    pred_of = {t["qid"]: preds.get(t["qid"]) for t in tasks}
    blocked = {qid: prediction_failure(p) for qid, p in pred_of.items()}

    gold_results = (
        run_queries(gold_exec, (t["gold_cypher"] for t in tasks), progress) if want_ex else {}
    )
    runnable = [
        pred_of[t["qid"]]
        for t in tasks
        if blocked[t["qid"]] is None and pred_of[t["qid"]] != t["gold_cypher"]
    ]
    pred_results = (
        run_queries(pred_exec, (p for p in runnable if p is not None), progress)
        if (want_ex or want_exec)
        else {}
    )
    if want_exec:
        # Identical predictions reuse the gold result for Exec.
        missing_gold = [
            t["gold_cypher"]
            for t in tasks
            if pred_of[t["qid"]] == t["gold_cypher"] and t["gold_cypher"] not in gold_results
        ]
        gold_results.update(run_queries(gold_exec, missing_gold))

    gold_prov: dict[str, Any] = {}
    pred_prov: dict[str, Any] = {}
    prov_results_gold: dict[str, QueryResultLike] = {}
    prov_results_pred: dict[str, QueryResultLike] = {}
    if want_psjs:
        need = [t for t in tasks if pred_of[t["qid"]] != t["gold_cypher"]]
        for t in need:
            gold_prov.setdefault(t["gold_cypher"], provenance_of(t["gold_cypher"]))
            pred = pred_of[t["qid"]]
            if blocked[t["qid"]] is None and pred is not None:
                pred_prov.setdefault(pred, provenance_of(pred))
        prov_results_gold = run_queries(
            gold_exec, (q for p in gold_prov.values() for q in p.queries), progress
        )
        prov_results_pred = run_queries(
            pred_exec, (q for p in pred_prov.values() for q in p.queries), progress
        )

    for t in tasks:
        qid, gold = t["qid"], t["gold_cypher"]
        pred = pred_of[qid]
        identical = pred == gold
        block = blocked[qid]
        errors: dict[str, dict[str, str]] = {}
        scores: dict[str, float] = {}
        pred_res = pred_results.get(pred) if pred is not None else None

        gres = gold_results.get(gold)
        for name, compare in compared.items():
            if identical:
                scores[name] = 1.0
            elif block is not None:
                scores[name] = 0.0
                errors[name] = block.as_dict()
            elif gres is None or not gres.ok:
                scores[name] = 0.0
                msg = f"{gres.error_class}: {gres.error}" if gres else "not run"
                errors[name] = Failure(GOLD_QUERY_ERROR, msg).as_dict()
            elif pred_res is None or not pred_res.ok:
                scores[name] = 0.0
                if pred_res is not None:
                    errors[name] = _failure_of(pred_res).as_dict()
            else:
                try:
                    scores[name] = compare(gres, pred_res, gold)
                except (TypeError, ValueError) as exc:
                    # A value outside the result model (e.g. a node): 0, as the reference.
                    scores[name] = 0.0
                    errors[name] = Failure(UNSUPPORTED_VALUE, " ".join(str(exc).split())).as_dict()

        if want_psjs:
            if identical:
                scores["psjs"] = 1.0
            elif block is not None:
                scores["psjs"] = 0.0
                errors["psjs"] = block.as_dict()
            else:
                assert pred is not None
                gp, pp = gold_prov[gold], pred_prov[pred]
                failure: Failure | None = None
                if gp.failure is not None:
                    failure = Failure(GOLD_QUERY_ERROR, gp.failure.error)
                elif pp.failure is not None:
                    failure = pp.failure
                if failure is None:
                    gold_ids, gfail = element_ids(gp.queries, prov_results_gold)
                    if gfail is not None:
                        failure = Failure(GOLD_QUERY_ERROR, f"{gfail.error_class}: {gfail.error}")
                if failure is None:
                    pred_ids, failure = element_ids(pp.queries, prov_results_pred)
                if failure is None:
                    scores["psjs"] = jaccard(gold_ids, pred_ids)
                else:
                    scores["psjs"] = 0.0
                    errors["psjs"] = failure.as_dict()

        if want_exec:
            res = gold_results.get(gold) if identical else pred_res
            if block is not None:
                scores["executable"] = 0.0
                errors["executable"] = block.as_dict()
            elif res is not None and res.ok:
                scores["executable"] = 1.0
            else:
                scores["executable"] = 0.0
                if res is not None:
                    errors["executable"] = _failure_of(res).as_dict()

        t["pred_cypher"] = pred
        t["metrics"] = {**t.get("metrics", {}), **{m: scores[m] for m in metrics}}
        t["errors"] = errors


def evaluate(
    tasks: str | Path | Sequence[Mapping[str, Any]],
    predictions: str | Path | Mapping[str, str | None] | Sequence[Mapping[str, Any]] | None = None,
    *,
    uri: str | None = None,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
    graph_uris: str | Path | Mapping[str, Any] | None = None,
    metrics: str | Iterable[str] = METRICS,
    metric_for_agg: str = "execution_accuracy",
    workers: int = 8,
    timeout_s: float = 120.0,
    gold_timeout_s: float | None = None,
    gold_cache_dir: str | Path | None = None,
    executor_factory: ExecutorFactory | None = None,
    log: Callable[[str], None] | None = None,
    progress: bool = False,
) -> EvaluationResult:
    """Score predictions against gold queries (CypherBench semantics, SPEC.md §3–§4).

    Args:
        tasks: ``Nl2CypherSample`` records, or a JSON / JSON Lines file of them.
        predictions: qid -> predicted Cypher, records with ``qid`` and ``pred_cypher``,
            or a file of them; ``None`` takes ``pred_cypher`` from the tasks. Tasks
            without a prediction score 0 (error class ``missing``).
        uri, user, password, database: the Neo4j server for every graph, unless
            ``graph_uris`` maps the task's ``graph`` elsewhere.
        graph_uris: graph -> Bolt URI / target (see :func:`load_graph_targets`).
        metrics: names or aliases (``ex``, ``psjs``, ``exec``), or ``"ex,psjs"``.
        metric_for_agg: metric of ``by_graph`` / ``by_match`` / ``by_return``.
        workers: parallel queries per executor.
        timeout_s: per-query timeout in seconds (predictions and provenance queries).
        gold_timeout_s: timeout of gold queries (default: ``timeout_s``).
        gold_cache_dir: directory of per-graph caches of gold results
            (``<graph>.gold-cache``), reused by later runs.
        executor_factory: builds executors (default: ``kgbench.neo4j.QueryExecutor``).
        log: receives warnings (default: stderr).
        progress: progress bars of the query runs on stderr (terminals only).

    Returns:
        :class:`EvaluationResult` with records in input order.

    Raises:
        InputError: malformed task/prediction data, a task whose graph has no
            target (names the record), or an unknown metric.
    """
    emit = log or (lambda msg: print(msg, file=sys.stderr))
    metric_names = parse_metrics(metrics)
    if metric_for_agg not in metric_names:
        metric_for_agg = metric_names[0]
    task_list = _as_tasks(tasks)
    preds = _as_predictions(predictions, task_list)
    preds = {qid: (clean_prediction(p) if p is not None else None) for qid, p in preds.items()}
    task_qids = {t["qid"] for t in task_list}
    unknown = [qid for qid in preds if qid not in task_qids]
    if unknown:
        emit(f"warning: {len(unknown)} prediction(s) for unknown qids ignored, e.g. {unknown[0]!r}")

    targets = load_graph_targets(graph_uris, user, password) if graph_uris is not None else {}
    default = GraphTarget(uri, database, user, password) if uri else None
    by_graph: dict[str, list[dict[str, Any]]] = {}
    for t in task_list:
        if t["graph"] not in targets and default is None:
            known = ", ".join(sorted(targets)) or "none"
            raise InputError(
                f"task qid {t['qid']!r}: unknown graph {t['graph']!r} "
                f"(no --uri given; graphs in the map: {known})"
            )
        by_graph.setdefault(t["graph"], []).append(t)

    close: Callable[[], None] = lambda: None  # noqa: E731
    factory = executor_factory
    if factory is None:
        factory, close = _neo4j_executor_factory()
    try:
        for graph, graph_tasks in by_graph.items():
            target = targets.get(graph, default)
            assert target is not None
            cache = None
            if gold_cache_dir is not None:
                Path(gold_cache_dir).mkdir(parents=True, exist_ok=True)
                safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in graph)
                cache = Path(gold_cache_dir) / f"{safe}.gold-cache"
            gold_timeout = timeout_s if gold_timeout_s is None else gold_timeout_s
            gold_exec = factory(graph, target, gold_timeout, workers, cache)
            pred_exec = factory(graph, target, timeout_s, workers, None)
            _score_graph(graph_tasks, preds, metric_names, gold_exec, pred_exec, progress)
    finally:
        close()

    counts: Counter[str] = Counter()
    for t in task_list:
        counts.update({err["error_class"] for err in t["errors"].values()})
    gold_failures = sum(
        1
        for t in task_list
        if any(e["error_class"] == GOLD_QUERY_ERROR for e in t["errors"].values())
    )
    if gold_failures:
        emit(f"warning: {gold_failures} task(s) have a gold query that failed; scored 0")
    aggregated = aggregate_metrics(task_list, metric_names, metric_for_agg)
    return EvaluationResult(task_list, aggregated, metric_names, metric_for_agg, dict(counts))


__all__ = [
    "METRICS",
    "EvaluationResult",
    "GraphTarget",
    "evaluate",
    "load_graph_targets",
    "parse_metrics",
    "read_records",
]
