"""``evaluate``: score text-to-Cypher predictions against gold queries on Neo4j.

Reproduces CypherBench's evaluation (SPEC.md §3–§4): for each task, execution
accuracy (``execution_accuracy``), provenance subgraph Jaccard similarity (``psjs``)
and executability (``executable``), then ``result_with_metrics.json`` and
``aggregated_metrics.json``.

Execution plan, per graph: the distinct gold queries run once (through an executor
with an optional on-disk cache keyed by the database's content, so re-runs on the same
data do not execute them again), the distinct runnable predictions once, then the
provenance queries of both. Identical gold and predicted strings score 1 for EX and
PSJS without running the prediction. Predictions that are missing, empty or write
queries are never sent to Neo4j and score 0 on every metric; every zero caused by an
error is recorded in the record's ``errors`` field as ``{metric: {"error_class",
"error"}}``.

Nothing is scored 0 for a fault that is not the prediction's:

- a task whose gold query (or, for PSJS, the gold's provenance query) fails is
  *excluded*: left out of every average and listed with its error;
- a lost or unreachable server stops the evaluation with :class:`ConnectionLostError`
  (the executor's error class ``connection``), unless ``keep_going``: then the tasks
  hit by a connection failure are left out of the averages and listed too.

Not defaults: PIPE-Cypher's ``ex_set``, BIRD Mini-Dev's Soft-F1 (``soft_f1``,
:func:`kgbench.query.compare.soft_f1`) and the efficiency scores of ``ves`` (``r_ves``,
``ves``, ``ves_db_hits``: :mod:`kgbench.evaluate.efficiency`, measured after a graph's other
queries for the tasks through BIRD's gate, :func:`_measure_ves`).

``aggregated_metrics.json`` adds to CypherBench's keys ``counts`` ``{tasks, scored,
excluded_gold_failed, connection_errors}`` and ``excluded`` (those tasks).

Deliberate differences from CypherBench: records keep input order (CypherBench
writes them in completion order); the gold query runs under the same timeout as
predictions unless ``gold_timeout_s`` is given; write queries score 0 instead of
being executed; a failing gold query excludes its task (CypherBench's run crashes).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.aggregate import (
    aggregate_metrics,
    bootstrap_ci95,
    format_ci95,
    format_informative,
    format_table,
    informative_metrics,
)
from kgbench.evaluate.efficiency import (
    DEFAULT_REPS,
    VES_METRICS_CYPHER,
    format_ves,
    ves_summary,
)
from kgbench.evaluate.outputs import Evaluation
from kgbench.evaluate.provenance import (
    ExecutorLike,
    Failure,
    QueryResultLike,
    dialect_of,
    element_ids,
    jaccard,
    prediction_failure,
    provenance_of,
    run_queries,
)
from kgbench.neo4j.executor import CONNECTION, ConnectionLostError
from kgbench.neo4j.targets import GraphTarget, load_graph_targets, neo4j_executor_factory
from kgbench.tasks import (
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

#: Every metric ``evaluate`` can compute: also BIRD Mini-Dev's Soft-F1 (``--metrics
#: soft_f1``) and the efficiency scores of ``--metrics ves`` (metrics.md, "VES").
ALL_METRICS = (*METRICS, "ex_set", "soft_f1", *VES_METRICS_CYPHER)

#: The metrics that compare the gold's rows with the prediction's (the gold must run).
ROW_METRICS = ("execution_accuracy", "ex_set", "soft_f1", *VES_METRICS_CYPHER)

#: Error class of a result the EX comparison cannot read (nested deeper than 256 levels;
#: nodes, relationships and paths are compared as maps, metrics.md §1).
UNSUPPORTED_VALUE = "unsupported-value"

#: The error class of an EX comparison whose column-bijection search stopped at its bound
#: (metrics.md §1): scored 0, reported as such.
UNDECIDED = "undecided"

#: ``excluded[].reason`` of a task whose gold query (or gold provenance query) failed.
GOLD_FAILED = "gold_failed"


#: Short names accepted by ``--metrics`` and ``evaluate(metrics=...)``.
METRIC_ALIASES = {
    "ex": "execution_accuracy",
    "execution_accuracy": "execution_accuracy",
    "psjs": "psjs",
    "exec": "executable",
    "executable": "executable",
    "ex_set": "ex_set",
    "soft_f1": "soft_f1",
    "r_ves": "r_ves",
    "ves": "ves",
    "ves_db_hits": "ves_db_hits",
}

#: ``--metrics`` names that stand for several metrics: ``ves`` is BIRD's R-VES, the original
#: VES and the db-hit VES (:mod:`kgbench.evaluate.efficiency`; ``--metric-for-agg ves`` is
#: the original VES alone).
METRIC_GROUPS = {"ves": VES_METRICS_CYPHER}


@dataclass
class EvaluationResult(Evaluation):
    """The scored records (``result_with_metrics.json``: the tasks that were scored, in input
    order), CypherBench's aggregated metrics over them, the number of scored tasks with an
    error of each class (a task with several metrics failing for the same class counts once
    per class), ``counts`` ``{tasks, scored, excluded_gold_failed, connection_errors}``, the
    ``excluded`` tasks (``{qid, graph, reason, error_class, error}``, reason ``gold_failed``
    or ``connection``) and, per graph, what the result cache held (``cache``: ``{path,
    status, entries, discarded, change, corrupt, hits}``), and the queries sent to the servers
    (``queries_sent``: not refused before sending, not answered by a cache)."""

    metrics: tuple[str, ...]
    metric_for_agg: str
    error_counts: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    excluded: list[dict[str, Any]] = field(default_factory=list)
    cache: dict[str, dict[str, Any]] = field(default_factory=dict)
    informative: dict[str, Any] = field(default_factory=dict)
    ci95: dict[str, list[float]] = field(default_factory=dict)
    #: With ``--metrics ves``: :func:`kgbench.evaluate.efficiency.ves_summary`.
    ves: dict[str, Any] = field(default_factory=dict)
    #: With ``--test-suite``: :func:`kgbench.evaluate.suites.core.ts_aggregate` plus
    #: ``ex_not_ts`` (the tasks with EX 1 and TS-EX 0 and their separating delta).
    test_suite: dict[str, Any] = field(default_factory=dict)
    queries_sent: int = 0

    family: str = field(default="cypherbench", kw_only=True)

    #: CypherBench's ``json.dump(..., indent=2)``: its files byte for byte.
    JSON_STYLE = "cypherbench"

    def aggregated_output(self) -> dict[str, Any]:
        """CypherBench's keys, then ``ci95``, ``informative``, the test-suite keys,
        ``counts`` and ``excluded`` (those the run has); :meth:`write` writes it."""
        aggregated: dict[str, Any] = dict(self.aggregated)
        if self.ci95:
            aggregated["ci95"] = self.ci95
        if self.informative:
            aggregated["informative"] = self.informative
        if self.ves:
            aggregated["ves"] = self.ves
        if self.test_suite:
            aggregated["ts_execution_accuracy"] = self.test_suite["ts_execution_accuracy"]
            aggregated["test_suite"] = self.test_suite
        if self.counts:
            aggregated["counts"] = self.counts
            aggregated["excluded"] = self.excluded
        return aggregated

    def summary(self) -> str:
        """``"9 tasks: 7 scored, 1 excluded (gold query failed), 1 not scored (connection
        error)"``."""
        c = self.counts
        if not c:
            return f"{len(self.records)} tasks scored"
        text = f"{c['tasks']} tasks: {c['scored']} scored"
        text += f", {c['excluded_gold_failed']} excluded (gold query failed)"
        text += f", {c['connection_errors']} not scored (connection error)"
        return text

    def table(self) -> str:
        """The summary line, aggregated metrics, error counts and the tasks left out."""
        text = self.summary() + "\n" + format_table(self.aggregated, self.metric_for_agg)
        if self.ci95:
            text += "\n" + format_ci95(self.ci95)
        if self.informative:
            text += "\n" + format_informative(self.informative)
        if self.ves:
            text += "\n" + format_ves(self.ves)
        if self.test_suite:
            ts = self.test_suite
            text += (
                f"\ntest-suite EX (suites of up to {ts.get('max_size', '?')} neighbour graphs)"
                f"\n  {'ts_execution_accuracy':<32} {ts['ts_execution_accuracy']:>8.4f}"
                f"\n  {'execution_accuracy':<32} {ts['execution_accuracy']:>8.4f}"
                f"\n  {'EX 1 but TS-EX 0':<32} {ts['ex_not_ts']:>8d}"
            )
            suites = ts.get("suites")
            if suites:
                text += (
                    f"\n  suites: {suites['distilled']} distilled ({suites['rebuilt']} rebuilt "
                    f"for another graph content), {suites['reused']} reused from the cache"
                )
        if self.error_counts:
            text += "\nscored tasks with a 0 from an error, by error class"
            for name, count in sorted(self.error_counts.items()):
                text += f"\n  {name:<32} {count:>8d}"
        if self.excluded:
            reasons = Counter(f"{e['reason']}: {e['error_class']}" for e in self.excluded)
            text += "\ntasks left out of every average, by reason and error class"
            for name, count in sorted(reasons.items()):
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
                f"unknown metric {item!r}; choose from ex, psjs, exec, ex_set, soft_f1, ves "
                "(or execution_accuracy, psjs, executable, r_ves, ves_db_hits)"
            )
        group = METRIC_GROUPS[name] if name in METRIC_GROUPS else (METRIC_ALIASES[name],)
        for full in group:
            if full not in out:
                out.append(full)
    if not out:
        raise InputError("no metric selected")
    return tuple(out)


#: Factory of executors: ``(graph, target, timeout_s, workers, cache_path) -> executor``
#: (:func:`kgbench.neo4j.targets.neo4j_executor_factory` makes the Neo4j one).
ExecutorFactory = Callable[[str, GraphTarget, float, int, Path | None], ExecutorLike]


def as_task_list(tasks: str | Path | Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``tasks`` as normalised task records: a task file read (:func:`load_tasks`) or a
    sequence of records normalised (named ``task i`` in errors).

    Raises:
        InputError: a file or record that is not a task (naming it)."""
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


class _LostConnection(Exception):
    """Internal: a batch of queries had connection failures (``keep_going`` is off)."""

    def __init__(self, what: str, failed: list[QueryResultLike]) -> None:
        super().__init__(what)
        self.what = what
        self.failed = failed


def _lost(results: Iterable[QueryResultLike | None]) -> Failure | None:
    """The first connection failure among ``results``, if any."""
    for res in results:
        if res is not None and res.error_class == CONNECTION:
            return _failure_of(res)
    return None


@dataclass
class ScoringPlan:
    """The queries scoring one graph's tasks needs, per phase, and what they derive from:
    each task's prediction (``pred_of``), why it cannot run (``blocked``), the gold and
    predicted queries to run, the gold queries Exec needs for predictions identical to their
    gold (``identical_gold``), and the provenance of the gold and predicted queries (PSJS)."""

    pred_of: dict[str, str | None]
    blocked: dict[str, Failure | None]
    gold: list[str]
    predictions: list[str]
    identical_gold: list[str]
    gold_prov: dict[str, Any]
    pred_prov: dict[str, Any]

    @property
    def gold_provenance(self) -> list[str]:
        """The provenance queries of the gold queries (PSJS), in first-seen order."""
        return [q for p in self.gold_prov.values() for q in p.queries]

    @property
    def prediction_provenance(self) -> list[str]:
        """The provenance queries of the predictions (PSJS), in first-seen order."""
        return [q for p in self.pred_prov.values() for q in p.queries]


def plan_scoring(
    tasks: Sequence[Mapping[str, Any]],
    preds: Mapping[str, str | None],
    metrics: tuple[str, ...],
    pred_dialect: str,
    gold_dialect: str,
) -> ScoringPlan:
    """What :func:`_score_graph` runs for ``tasks`` (one graph) and cleaned ``preds``."""
    want_ex = any(m in ROW_METRICS for m in metrics)
    pred_of = {t["qid"]: preds.get(t["qid"]) for t in tasks}
    blocked = {qid: prediction_failure(p, pred_dialect) for qid, p in pred_of.items()}
    runnable = [
        p
        for t in tasks
        if blocked[t["qid"]] is None
        and (p := pred_of[t["qid"]]) is not None
        and p != t["gold_cypher"]
    ]
    gold_prov: dict[str, Any] = {}
    pred_prov: dict[str, Any] = {}
    if "psjs" in metrics:
        for t in tasks:
            pred = pred_of[t["qid"]]
            if pred == t["gold_cypher"]:
                continue
            if t["gold_cypher"] not in gold_prov:
                gold_prov[t["gold_cypher"]] = provenance_of(t["gold_cypher"], gold_dialect)
            if blocked[t["qid"]] is None and pred is not None and pred not in pred_prov:
                pred_prov[pred] = provenance_of(pred, pred_dialect)
    return ScoringPlan(
        pred_of=pred_of,
        blocked=blocked,
        gold=[t["gold_cypher"] for t in tasks] if want_ex else [],
        predictions=runnable if want_ex or "executable" in metrics else [],
        identical_gold=[t["gold_cypher"] for t in tasks if pred_of[t["qid"]] == t["gold_cypher"]]
        if "executable" in metrics
        else [],
        gold_prov=gold_prov,
        pred_prov=pred_prov,
    )


def _score_graph(
    tasks: list[dict[str, Any]],
    preds: dict[str, str | None],
    metrics: tuple[str, ...],
    gold_exec: ExecutorLike,
    pred_exec: ExecutorLike,
    progress: bool = False,
    keep_going: bool = False,
    ves_reps: int = DEFAULT_REPS,
) -> list[dict[str, Any]]:
    """Fill ``metrics`` and ``errors`` of the tasks of one graph (in place); return the tasks
    left out (``{qid, graph, reason, error_class, error}``, in task order): those whose gold
    query or gold provenance fails (``gold_failed``) and, with ``keep_going``, those hit by a
    connection failure (``connection``). The gold queries run first, then the predictions,
    then the provenance queries (one progress bar per phase with ``progress``); with VES
    metrics, the tasks through BIRD's gate are then measured one by one (:func:`_measure_ves`,
    ``ves_reps`` repetitions).

    Raises:
        _LostConnection: a batch had a connection failure and ``keep_going`` is off (raised
            right after that batch, before the next one is sent).
        ConnectionLostError: the connection was lost while measuring VES and ``keep_going``
            is off.
    """
    from kgbench._core.evaluate import ex_set  # EX_set core (Rust)
    from kgbench.evaluate import (  # EX core (Rust)
        execution_accuracy,
        order_matters,
        uninformative_reason,
    )
    from kgbench.query.compare import set_equal, soft_f1

    def run(
        executor: ExecutorLike, queries: Iterable[str], what: str, phase: str | None
    ) -> dict[str, QueryResultLike]:
        results = run_queries(executor, queries, phase if progress and phase else False)
        if not keep_going:
            failed = [r for r in results.values() if r.error_class == CONNECTION]
            if failed:
                raise _LostConnection(what, failed)
        return results

    compared: dict[str, Callable[[QueryResultLike, QueryResultLike, str], float]] = {}
    if "execution_accuracy" in metrics:
        compared["execution_accuracy"] = lambda g, p, gold: float(
            execution_accuracy(g.rows, p.rows, order_matters(gold))
        )
    if "ex_set" in metrics:
        compared["ex_set"] = lambda g, p, _gold: float(
            ex_set(g.rows, p.rows, list(g.columns), list(p.columns))
        )
    if "soft_f1" in metrics:
        compared["soft_f1"] = lambda g, p, _gold: soft_f1(g.rows, p.rows)
    want_ves = [m for m in metrics if m in VES_METRICS_CYPHER]
    for name in want_ves:
        # placeholder: 1 when BIRD's gate holds (set of rows equal), measured after the loop
        compared[name] = lambda g, p, _gold: float(set_equal(g.rows, p.rows))
    ves_pending: list[tuple[dict[str, Any], str, str]] = []
    want_exec = "executable" in metrics
    want_psjs = "psjs" in metrics
    plan = plan_scoring(tasks, preds, metrics, dialect_of(pred_exec), dialect_of(gold_exec))
    pred_of, blocked = plan.pred_of, plan.blocked

    gold_results = run(gold_exec, plan.gold, "gold queries", "gold")
    pred_results = run(pred_exec, plan.predictions, "predicted queries", "predictions")
    if want_exec:
        # Identical predictions reuse the gold result for Exec.
        missing_gold = [q for q in plan.identical_gold if q not in gold_results]
        gold_results.update(run(gold_exec, missing_gold, "predicted queries", None))

    gold_prov, pred_prov = plan.gold_prov, plan.pred_prov
    prov_results_gold: dict[str, QueryResultLike] = {}
    prov_results_pred: dict[str, QueryResultLike] = {}
    if want_psjs:
        prov_results_gold = run(
            gold_exec,
            plan.gold_provenance,
            "provenance queries of the gold queries",
            "provenance (gold)",
        )
        prov_results_pred = run(
            pred_exec,
            plan.prediction_provenance,
            "provenance queries of the predictions",
            "provenance (predictions)",
        )

    excluded: list[dict[str, Any]] = []
    for t in tasks:
        qid, gold = t["qid"], t["gold_cypher"]
        pred = pred_of[qid]
        identical = pred == gold
        block = blocked[qid]
        pred_res = pred_results.get(pred) if pred is not None else None
        gres = gold_results.get(gold)

        # The gold side first: a failure there is the task's, never the prediction's.
        gold_side: list[QueryResultLike | None] = [gres] if compared else []
        gold_fail: Failure | None = None
        if want_psjs and not identical:
            gp = gold_prov[gold]
            if gp.failure is not None:
                gold_fail = Failure(
                    gp.failure.error_class,
                    f"kgbench cannot find the MATCH part of the gold query: {gp.failure.error}",
                )
            else:
                gold_side += [prov_results_gold.get(q) for q in gp.queries]
        for res in gold_side:
            if gold_fail is None and res is not None and res.error_class not in (None, CONNECTION):
                gold_fail = _failure_of(res)
        lost = _lost(gold_side)
        if gold_fail is None and lost is None:
            pred_side: list[QueryResultLike | None] = []
            if identical and want_exec:
                pred_side.append(gres)
            elif block is None and not identical:
                pred_side.append(pred_res)
                if want_psjs and pred is not None and pred_prov[pred].failure is None:
                    pred_side += [prov_results_pred.get(q) for q in pred_prov[pred].queries]
            lost = _lost(pred_side)
        if gold_fail is not None or lost is not None:
            failure = gold_fail if gold_fail is not None else lost
            assert failure is not None
            t["pred_cypher"] = pred
            excluded.append(
                {
                    "qid": qid,
                    "graph": t["graph"],
                    "reason": GOLD_FAILED if gold_fail is not None else CONNECTION,
                    "error_class": failure.error_class,
                    "error": " ".join(failure.error.split()),
                }
            )
            continue

        errors: dict[str, dict[str, str]] = {}
        scores: dict[str, float] = {}
        for name, compare in compared.items():
            if identical:
                scores[name] = 1.0
            elif block is not None:
                scores[name] = 0.0
                errors[name] = block.as_dict()
            elif pred_res is None or not pred_res.ok:
                scores[name] = 0.0
                if pred_res is not None:
                    errors[name] = _failure_of(pred_res).as_dict()
            else:
                assert gres is not None
                try:
                    scores[name] = compare(gres, pred_res, gold)
                except (TypeError, ValueError) as exc:
                    # A value the comparison cannot read (nested too deep): 0, as the
                    # reference; or a comparison the EX search could not decide
                    text = " ".join(str(exc).split())
                    kind = UNDECIDED if text.startswith("EX undecided") else UNSUPPORTED_VALUE
                    scores[name] = 0.0
                    errors[name] = Failure(kind, text).as_dict()

        if want_psjs:
            if identical:
                scores["psjs"] = 1.0
            elif block is not None:
                scores["psjs"] = 0.0
                errors["psjs"] = block.as_dict()
            else:
                assert pred is not None
                gold_ids, _ = element_ids(gold_prov[gold].queries, prov_results_gold)
                pp = pred_prov[pred]
                failure = pp.failure
                if failure is None:
                    pred_ids, failure = element_ids(pp.queries, prov_results_pred)
                if failure is None:
                    scores["psjs"] = jaccard(gold_ids, pred_ids)
                else:
                    scores["psjs"] = 0.0
                    errors["psjs"] = failure.as_dict()

        if want_exec:
            res = gres if identical else pred_res
            if block is not None:
                scores["executable"] = 0.0
                errors["executable"] = block.as_dict()
            elif res is not None and res.ok:
                scores["executable"] = 1.0
            else:
                scores["executable"] = 0.0
                if res is not None:
                    errors["executable"] = _failure_of(res).as_dict()

        if want_ves:
            gated = all(scores[m] == 1.0 for m in want_ves)
            t["ves"] = {"gated": gated}
            if gated:
                assert pred is not None
                ves_pending.append((t, gold, pred))
                for m in want_ves:
                    scores[m] = 0.0
        t["pred_cypher"] = pred
        t["metrics"] = {**t.get("metrics", {}), **{m: scores[m] for m in metrics}}
        t["errors"] = errors
        t["uninformative"] = (
            uninformative_reason(gres.rows) if gres is not None and gres.ok else None
        )
    for t, gold, pred in ves_pending:
        lost_in = _measure_ves(t, gold, pred, want_ves, gold_exec, pred_exec, ves_reps)
        if lost_in is None:
            continue
        if not keep_going:
            raise ConnectionLostError(
                f"lost the connection to Neo4j while measuring the VES of task qid "
                f"{t['qid']!r} (graph {t['graph']!r}): {lost_in.error}. The evaluation stopped; "
                "run again once the server answers, or use --keep-going"
            )
        excluded.append(
            {
                "qid": t["qid"],
                "graph": t["graph"],
                "reason": CONNECTION,
                "error_class": CONNECTION,
                "error": " ".join(lost_in.error.split()),
            }
        )
    return excluded


def _measure_ves(
    t: dict[str, Any],
    gold: str,
    pred: str,
    names: Sequence[str],
    gold_exec: Any,
    pred_exec: Any,
    reps: int,
) -> Failure | None:
    """Measure one gated task's efficiency (metrics.md, "VES") into ``t["metrics"]`` and
    ``t["ves"]``: wall times through the executors' ``time_query`` (``reps`` repetitions,
    prediction then gold) for ``r_ves`` / ``ves``, ``PROFILE`` through ``profile`` for
    ``ves_db_hits``. A failure (the prediction timing out on a repetition, a lost
    connection) leaves the scores 0 and records ``{"error_class", "error"}`` under
    ``t["ves"]["error"]`` and ``t["errors"][metric]``; a lost connection is returned (the
    caller stops or, with ``keep_going``, leaves the task out), else None."""
    import math

    from kgbench.errors import KgbenchError
    from kgbench.evaluate.efficiency import db_hits_ratio, measure_wall, wall_scores
    from kgbench.neo4j.executor import QueryFailed

    detail = t["ves"]
    if not all(hasattr(e, "time_query") and hasattr(e, "profile") for e in (gold_exec, pred_exec)):
        refused = Failure("client", "this executor cannot time or profile queries").as_dict()
        detail["error"] = refused
        for m in names:
            t["errors"][m] = refused
        return None
    try:
        if "r_ves" in names or "ves" in names:
            pred_t, gold_t = measure_wall(
                lambda: float(pred_exec.time_query(pred)),
                lambda: float(gold_exec.time_query(gold)),
                reps,
            )
            wall = wall_scores(pred_t, gold_t)
            detail.update(wall["detail"])
            for m in ("r_ves", "ves"):
                if m in names:
                    t["metrics"][m] = wall[m]
        if "ves_db_hits" in names:
            pred_hits, pred_rows = pred_exec.profile(pred)
            gold_hits, gold_rows = gold_exec.profile(gold)
            ratio = db_hits_ratio(gold_hits, pred_hits)
            detail.update(
                gold_db_hits=gold_hits,
                pred_db_hits=pred_hits,
                gold_rows=gold_rows,
                pred_rows=pred_rows,
                db_hits_ratio=ratio,
            )
            t["metrics"]["ves_db_hits"] = math.sqrt(ratio)
    except QueryFailed as exc:
        failed = Failure(exc.error_class, " ".join(str(exc).split())).as_dict()
        detail["error"] = failed
        for m in names:
            t["metrics"][m] = 0.0
            t["errors"][m] = failed
    except KgbenchError as exc:  # the connection was lost (QueryExecutor.time_query/profile)
        return Failure(CONNECTION, str(exc))
    return None


def cache_file(cache_dir: str | Path, graph: str) -> Path:
    """The result cache of ``graph`` in ``cache_dir``: ``<graph>.cache.jsonl`` (characters
    other than letters, digits, ``-``, ``_`` and ``.`` replaced by ``_``)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in graph)
    return Path(cache_dir) / f"{safe}.cache.jsonl"


def graph_executors(
    factory: ExecutorFactory,
    graph: str,
    target: GraphTarget,
    workers: int,
    timeout_s: float,
    gold_timeout_s: float,
    cache_dir: str | Path | None,
) -> tuple[ExecutorLike, ExecutorLike]:
    """The executors of ``graph``'s gold and predicted queries: one executor when both
    timeouts are equal, each with the graph's result cache (:func:`cache_file`; the
    directory is made) when ``cache_dir`` is given.

    Raises:
        ConnectionLostError: the graph's server cannot be reached (from ``factory``).
    """
    cache = None
    if cache_dir is not None:
        Path(cache_dir).mkdir(parents=True, exist_ok=True)
        cache = cache_file(cache_dir, graph)
    gold = factory(graph, target, gold_timeout_s, workers, cache)
    if gold_timeout_s == timeout_s:
        return gold, gold
    return gold, factory(graph, target, timeout_s, workers, cache)


def _sent(*executors: Any) -> int:
    """The queries the distinct ``executors`` sent (``sent``; 0 without)."""
    return sum(int(getattr(e, "sent", 0)) for e in {id(e): e for e in executors}.values())


def _hits(*executors: Any) -> int:
    """The cache hits of the distinct ``executors`` (``cache_hits``; 0 without)."""
    return sum(int(getattr(e, "cache_hits", 0)) for e in {id(e): e for e in executors}.values())


def _cache_notes(graph: str, report: Any, fingerprint: Any) -> list[str]:
    """The lines saying what the result cache of ``graph`` held (a ``CacheReport``): a
    warning first when damaged lines were dropped."""
    notes = []
    if getattr(report, "corrupt", 0):
        notes.append(
            f"warning: result cache {report.path}: {report.corrupt} damaged line(s) dropped "
            f"({report.damage}); the file was rebuilt without them"
        )
    return [*notes, _cache_note(graph, report, fingerprint)]


def _cache_note(graph: str, report: Any, fingerprint: Any) -> str:
    """One line saying what the result cache of ``graph`` held (a ``CacheReport``)."""
    where = f"result cache {report.path} (graph {graph!r})"
    content = f": {fingerprint.summary()}" if fingerprint is not None else ""
    if report.status == "reused":
        return f"{where}: {report.entries} cached results reused (database unchanged{content})"
    if report.status == "invalidated":
        return (
            f"{where}: the database changed since the cache was written ({report.change}); "
            f"{report.discarded} stale results discarded, their queries run again"
        )
    if report.status == "disabled":
        return f"warning: {where} not used: {report.change}"
    if report.status == "unchecked":
        return f"{where}: {report.entries} cached results (not checked against the content)"
    return f"{where}: new (for the database's current content{content})"


def tasks_by_graph(
    task_list: Sequence[dict[str, Any]],
    graph_uris: str | Path | Mapping[str, Any] | None,
    uri: str | None,
    database: str | None,
    user: str | None,
    password: str | None,
) -> dict[str, tuple[GraphTarget, list[dict[str, Any]]]]:
    """The tasks grouped by graph (in first-seen order) with each graph's target.

    Raises:
        InputError: a task's graph has no target (names the task).
    """
    targets = load_graph_targets(graph_uris, user, password) if graph_uris is not None else {}
    default = GraphTarget(uri, database, user, password) if uri else None
    out: dict[str, tuple[GraphTarget, list[dict[str, Any]]]] = {}
    for t in task_list:
        target = targets.get(t["graph"], default)
        if target is None:
            known = ", ".join(sorted(targets)) or "none"
            raise InputError(
                f"task qid {t['qid']!r}: unknown graph {t['graph']!r} "
                f"(no --uri given; graphs in the map: {known})"
            )
        out.setdefault(t["graph"], (target, []))[1].append(t)
    return out


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
    cache_dir: str | Path | None = None,
    gold_cache_dir: str | Path | None = None,
    executor_factory: ExecutorFactory | None = None,
    log: Callable[[str], None] | None = None,
    progress: bool = False,
    keep_going: bool = False,
    servers: Any = None,
    ves_reps: int = DEFAULT_REPS,
) -> EvaluationResult:
    """Score predictions against gold queries (CypherBench semantics, SPEC.md §3–§4).

    Args:
        tasks: ``Nl2CypherSample`` records, or a JSON / JSON Lines file of them.
        predictions: qid -> predicted Cypher, records with ``qid`` and ``pred_cypher``,
            or a file of them; ``None`` takes ``pred_cypher`` from the tasks. Tasks
            without a prediction score 0 (error class ``missing``).
        uri: the Bolt URI of the Neo4j server for every graph, unless ``graph_uris`` maps
            the task's ``graph`` elsewhere.
        user: its user name (None: no authentication).
        password: its password.
        database: its database (None: the server's default).
        graph_uris: graph -> Bolt URI / target (see :func:`load_graph_targets`).
        metrics: names or aliases (``ex``, ``psjs``, ``exec``), or ``"ex,psjs"``.
        metric_for_agg: metric of ``by_graph`` / ``by_match`` / ``by_return``.
        workers: parallel queries per executor.
        timeout_s: per-query timeout in seconds (predictions and provenance queries).
        gold_timeout_s: timeout of gold queries (default: ``timeout_s``).
        cache_dir: directory of the per-graph result caches (:func:`cache_file`): every
            query's result (gold, predicted, provenance) keyed by the database's content
            (its fingerprint), the query text and the timeout, reused by later runs while
            the content is unchanged and discarded when it changed (``log`` is told which);
            timeouts and connection failures are not kept. None: no cache.
        gold_cache_dir: the former name of ``cache_dir`` (used when ``cache_dir`` is None).
        executor_factory: builds executors (default: ``kgbench.neo4j.QueryExecutor``).
        log: receives warnings and the result cache's state (default: stderr).
        progress: progress bars of the query runs on stderr (terminals only).
        keep_going: on a connection failure, go on instead of raising
            :class:`ConnectionLostError`; the tasks hit are left out of the averages and
            counted (``counts.connection_errors``, ``excluded`` with reason ``connection``).
        servers: ``--bench``'s :class:`kgbench.neo4j.bench.BenchServers`: each graph's server
            is started for its tasks (graph by graph) and stopped when another needs the room;
            ``graph_uris`` should be its :meth:`~kgbench.neo4j.bench.BenchServers.graph_map`.
        ves_reps: repetitions of the wall-time measurement of ``--metrics ves`` (BIRD: 100).

    Returns:
        :class:`EvaluationResult` with the scored records in input order. A task whose gold
        query fails is excluded (``counts.excluded_gold_failed``), not scored 0.

    Raises:
        InputError: malformed task/prediction data, no task, an empty predictions file or
            mapping, a task whose graph has no target (names the record), or an unknown
            metric.
        ConnectionLostError: a server cannot be reached or the connection is lost, unless
            ``keep_going`` (nothing is returned).
    """
    emit = log or (lambda msg: print(msg, file=sys.stderr))
    metric_names = parse_metrics(metrics)
    if ves_reps < 1:
        raise InputError(f"--ves-reps must be >= 1, not {ves_reps}")
    if metric_for_agg not in metric_names:
        metric_for_agg = metric_names[0]
    task_list = as_task_list(tasks)
    if not task_list:
        where = f"{tasks}: " if isinstance(tasks, (str, Path)) else ""
        raise InputError(f"{where}no task records: nothing to score")
    preds = _as_predictions(predictions, task_list)
    if predictions is not None and not preds:
        where = f"{predictions}: " if isinstance(predictions, (str, Path)) else ""
        raise InputError(
            f"{where}no prediction records: nothing to score (without --predictions, the "
            "pred_cypher of the task records is scored)"
        )
    preds = {qid: (clean_prediction(p) if p is not None else None) for qid, p in preds.items()}
    task_qids = {t["qid"] for t in task_list}
    unknown = [qid for qid in preds if qid not in task_qids]
    if unknown:
        emit(f"warning: {len(unknown)} prediction(s) for unknown qids ignored, e.g. {unknown[0]!r}")

    by_graph = tasks_by_graph(task_list, graph_uris, uri, database, user, password)

    close: Callable[[], None] = lambda: None  # noqa: E731
    factory = executor_factory
    if factory is None:
        factory, close = neo4j_executor_factory(servers)
    if cache_dir is None:
        cache_dir = gold_cache_dir
    excluded: dict[str, dict[str, Any]] = {}
    caches: dict[str, dict[str, Any]] = {}
    done = queries_sent = 0
    kept = " (the results computed so far stay in the result cache)" if cache_dir else ""
    hint = (
        f"run again once the server answers{kept}, or use --keep-going (keep_going=True) to "
        "score the other tasks and report the ones hit by connection errors separately"
    )
    gold_timeout = timeout_s if gold_timeout_s is None else gold_timeout_s
    try:
        for graph, (target, graph_tasks) in by_graph.items():
            try:
                gold_exec, pred_exec = graph_executors(
                    factory, graph, target, workers, timeout_s, gold_timeout, cache_dir
                )
            except ConnectionLostError as exc:
                what = f"cannot reach Neo4j at {target.uri} for graph {graph!r}: {exc}"
                if not keep_going:
                    raise ConnectionLostError(
                        f"{what}. The evaluation stopped ({done} of {len(task_list)} tasks "
                        f"scored before); {hint}"
                    ) from exc
                emit(f"warning: {what}; its {len(graph_tasks)} task(s) are not scored")
                for t in graph_tasks:
                    excluded[t["qid"]] = {
                        "qid": t["qid"],
                        "graph": graph,
                        "reason": CONNECTION,
                        "error_class": CONNECTION,
                        "error": " ".join(str(exc).split()),
                    }
                continue
            report = getattr(gold_exec, "cache_report", None)
            if report is not None:
                for note in _cache_notes(graph, report, getattr(gold_exec, "fingerprint", None)):
                    emit(note)
            hits_before = _hits(gold_exec, pred_exec)
            sent_before = _sent(gold_exec, pred_exec)
            try:
                left_out = _score_graph(
                    graph_tasks,
                    preds,
                    metric_names,
                    gold_exec,
                    pred_exec,
                    progress,
                    keep_going,
                    ves_reps,
                )
            except _LostConnection as lost:
                first = lost.failed[0]
                message = " ".join(str(first.error or "").split())
                raise ConnectionLostError(
                    f"lost the connection to Neo4j at {target.uri} (graph {graph!r}) while "
                    f"running the {lost.what}: {len(lost.failed)} queries failed, e.g. "
                    f"{message}. The evaluation stopped ({done} of {len(task_list)} tasks "
                    f"scored before); {hint}"
                ) from None
            excluded.update((e["qid"], e) for e in left_out)
            done += len(graph_tasks) - len(left_out)
            queries_sent += _sent(gold_exec, pred_exec) - sent_before
            if report is not None:
                caches[graph] = {
                    "path": str(report.path),
                    "status": report.status,
                    "entries": report.entries,
                    "discarded": report.discarded,
                    "change": report.change,
                    "corrupt": getattr(report, "corrupt", 0),
                    "hits": _hits(gold_exec, pred_exec) - hits_before,
                }
    finally:
        close()

    records = [t for t in task_list if t["qid"] not in excluded]
    left = [excluded[t["qid"]] for t in task_list if t["qid"] in excluded]
    gold_failed = [e for e in left if e["reason"] == GOLD_FAILED]
    lost_tasks = [e for e in left if e["reason"] == CONNECTION]
    if gold_failed:
        e = gold_failed[0]
        timeouts = sum(1 for x in gold_failed if x["error_class"] == "timeout")
        emit(
            f"warning: {len(gold_failed)} task(s) excluded because their gold query failed "
            f"(e.g. qid {e['qid']!r}: {e['error_class']}: {e['error'][:200]}); they are left "
            "out of every average and listed under 'excluded'"
            + (f" ({timeouts} timed out: see --gold-timeout)" if timeouts else "")
        )
    if lost_tasks:
        emit(
            f"warning: {len(lost_tasks)} task(s) not scored because of connection errors; "
            "they are left out of every average and listed under 'excluded'"
        )
    counts: Counter[str] = Counter()
    for t in records:
        counts.update({err["error_class"] for err in t["errors"].values()})
    aggregated = aggregate_metrics(records, metric_names, metric_for_agg)
    # the gold results exist (and tasks carry their `uninformative` reason) when EX or EX_set
    # is computed
    want_gold_rows = any(m in ("execution_accuracy", "ex_set") for m in metric_names)
    informative = informative_metrics(records, metric_names) if want_gold_rows else {}
    ci95 = bootstrap_ci95(records, metric_names)
    return EvaluationResult(
        records,
        aggregated,
        metric_names,
        metric_for_agg,
        dict(counts),
        counts={
            "tasks": len(task_list),
            "scored": len(records),
            "excluded_gold_failed": len(gold_failed),
            "connection_errors": len(lost_tasks),
        },
        excluded=left,
        cache=caches,
        queries_sent=queries_sent,
        informative=informative,
        ci95=ci95,
        ves=ves_summary(records, ves_reps, sparql=False)
        if any(m in VES_METRICS_CYPHER for m in metric_names)
        else {},
    )


__all__ = [
    "METRICS",
    "ConnectionLostError",
    "EvaluationResult",
    "GraphTarget",
    "evaluate",
    "load_graph_targets",
    "parse_metrics",
    "read_records",
]
