"""``kgbench evaluate --language sparql``: text-to-SPARQL predictions scored by execution
accuracy on embedded RDF stores (spec ``spider4sparql.md`` §2, §5).

Tasks: JSON array or JSON Lines records, either kgbench's
``{qid, graph, nl_question, gold_sparql, gold_sql?, hardness?, pred_sparql?}`` or the
published Spider4SPARQL pairs ``{kg_name, question, query}`` (loaded unchanged: no PREFIX,
``\\#`` escapes; the ``:`` prefix is added when a query lacks it). ``qid`` defaults to the
record's position. Predictions: ``{qid, pred_sparql}`` records, or records aligned with the
tasks by position holding ``predicted_sparql`` (the published GPT-3.5 files), ``pred_sparql``
or ``query``; without a prediction file, ``pred_sparql`` of the tasks.

Per task: the gold runs once on its graph (``RDF_DIR/<graph>.nt`` or
``RDF_DIR/<graph>/*.nt``); a gold that fails (error or timeout) excludes the task, which is
listed and counted, never scored. A prediction that is missing, fails or times out scores 0
with its error class. ``execution_accuracy`` is
:func:`kgbench.query.sparql.sparql_execution_accuracy` (``compat`` as there);
``executable`` is 1 when the prediction ran. Hardness is the task's ``hardness`` field, else
Spider's hardness of ``gold_sql`` (:mod:`kgbench.rdb.hardness`), else ``unknown``.

Outputs: ``result_with_metrics.json`` (the task records with ``metrics``, ``error`` and
``uninformative``: ``null`` or why the gold result cannot tell right from wrong,
:func:`kgbench.evaluate.uninformative_reason`) and ``aggregated_metrics.json`` ``{overall,
by_graph, by_hardness, ci95, informative, excluded}`` (``ci95``:
:func:`kgbench.evaluate.aggregate.bootstrap_ci95`) (``informative``:
:func:`kgbench.evaluate.aggregate.informative_metrics`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.aggregate import (
    bootstrap_ci95,
    format_ci95,
    format_informative,
    group_means,
    informative_metrics,
    mean4,
)
from kgbench.evaluate.efficiency import format_ves
from kgbench.evaluate.outputs import Evaluation
from kgbench.evaluate.suites.core import SuiteCache, format_test_suite

#: Spider's hardness levels, in order.
HARDNESS = ("easy", "medium", "hard", "extra")


def _hardness_of(sql: str | None) -> str:
    if not sql:
        return "unknown"
    from kgbench.rdb.hardness import hardness_from_sql

    try:
        return hardness_from_sql(sql)
    except Exception:  # SQL that does not parse: no level
        return "unknown"


def normalise_tasks(records: Sequence[tuple[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Task records in kgbench's shape (module docstring).

    Raises:
        InputError: a record without a graph (``graph`` / ``kg_name`` / ``db_id``) or a gold
            query (``gold_sparql`` / ``query``); the message names the record."""
    from kgbench.query.sparql import with_s4s_prefix

    out = []
    for i, (where, rec) in enumerate(records):
        graph = rec.get("graph") or rec.get("kg_name") or rec.get("db_id")
        gold = rec.get("gold_sparql") or rec.get("query")
        if not isinstance(graph, str) or not graph:
            raise InputError(f"{where}: no graph (graph, kg_name or db_id)")
        if not isinstance(gold, str) or not gold.strip():
            raise InputError(f"{where}: no gold query (gold_sparql or query)")
        task = dict(rec)
        task["qid"] = str(rec.get("qid", i))
        task["graph"] = graph
        task["nl_question"] = rec.get("nl_question") or rec.get("question")
        task["gold_sparql"] = with_s4s_prefix(gold)
        task["hardness"] = rec.get("hardness") or _hardness_of(rec.get("gold_sql"))
        out.append(task)
    return out


def attach_predictions(
    tasks: list[dict[str, Any]], records: Sequence[tuple[str, Mapping[str, Any]]] | None
) -> None:
    """Set each task's ``pred_sparql`` from prediction records (module docstring): by
    ``qid`` when every record has one, else by position.

    Raises:
        InputError: positional predictions whose count differs from the tasks'."""
    if records is None:
        return
    keyed = all("qid" in r and "pred_sparql" in r for _w, r in records)
    if keyed:
        by_qid = {str(r["qid"]): r["pred_sparql"] for _w, r in records}
        for t in tasks:
            t["pred_sparql"] = by_qid.get(t["qid"])
        return
    if len(records) != len(tasks):
        raise InputError(
            f"{len(records)} predictions without qid for {len(tasks)} tasks: positional "
            "predictions must align one to one"
        )
    for t, (_w, r) in zip(tasks, records, strict=True):
        t["pred_sparql"] = r.get("predicted_sparql", r.get("pred_sparql", r.get("query")))


@dataclass
class SparqlEvaluation(Evaluation):
    """Scored records, the aggregated metrics and the excluded tasks (failing golds)."""

    family: str = field(default="spider4sparql", kw_only=True)
    excluded: list[dict[str, Any]] = field(default_factory=list)
    error_counts: dict[str, int] = field(default_factory=dict)

    def table(self) -> str:
        """The aggregated metrics as a printable table."""
        agg = self.aggregated
        lines = [f"overall ({agg['scored']} tasks scored, {len(self.excluded)} excluded)"]
        for name, value in agg["overall"].items():
            lines.append(f"  {name:<32} {value:>8.4f}")
        if agg.get("ci95"):
            lines.append(format_ci95(agg["ci95"]))
        if "informative" in agg:
            lines.append(format_informative(agg["informative"]))
        if "test_suite" in agg:
            lines.append(format_test_suite(agg["test_suite"], agg.get("ex_not_ts", [])))
        if "ves" in agg:
            lines.append(format_ves(agg["ves"]))
        for section in ("by_hardness", "by_graph"):
            lines.append(f"{section} (execution_accuracy)")
            for key, value in agg[section].items():
                lines.append(f"  {key:<32} {value:>8.4f}")
        if self.error_counts:
            lines.append("predictions scored 0 with an error, by error class")
            for name, count in sorted(self.error_counts.items()):
                lines.append(f"  {name:<32} {count:>8d}")
        return "\n".join(lines)


def evaluate_sparql(
    tasks: str | Path,
    predictions: str | Path | None,
    rdf_dir: str | Path,
    *,
    timeout_s: float = 30.0,
    compat: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    test_suite: int | None = None,
    suite_cache: SuiteCache | None = None,
    seed: int = 0,
    suite_timeout_s: float = 5.0,
    metrics: Sequence[str] = (),
    ves_reps: int = 100,
) -> SparqlEvaluation:
    """Score the predictions of a task file (module docstring).

    ``test_suite``: the largest suite per task for test-suite EX (``None``: not scored);
    suites come from / go to ``suite_cache`` (an empty in-memory cache when ``None``) and are
    distilled with ``seed`` (:mod:`kgbench.evaluate.suites.sparql`), each query of the
    distillation under ``min(timeout_s, suite_timeout_s)`` (the gold and the prediction are
    scored on the suite under ``timeout_s``).

    ``metrics``: what to add to EX and Exec: ``soft_f1`` (BIRD Mini-Dev's Soft-F1,
    :func:`kgbench.query.compare.soft_f1`), ``r_ves`` / ``ves`` (BIRD's wall-time R-VES and
    original VES, :mod:`kgbench.evaluate.efficiency`, ``ves_reps`` repetitions of prediction
    then gold, each time the store's execution and transfer of the whole result; SPARQL has
    no hardware-independent VES). They follow the others in ``overall``, ``ci95`` and
    ``informative``; with a VES score each record gets ``ves`` (``{gated, reps, time_ratio,
    kept, reward, pred_time_s, gold_time_s}``) and the aggregate ``ves``
    (:func:`kgbench.evaluate.efficiency.ves_summary`).

    Raises:
        InputError: unreadable or malformed task / prediction files, a graph without RDF
            in ``rdf_dir``, RDF that does not parse."""
    from kgbench.evaluate.suites.core import ex_not_ts, ts_aggregate, ts_task_record, ts_verdict
    from kgbench.evaluate.suites.sparql import SparqlSuiteBackend
    from kgbench.query.compare import uninformative_reason
    from kgbench.query.sparql import (
        SparqlExecutor,
        rdf_files_of,
        sparql_execution_accuracy,
        sparql_order_matters,
        with_s4s_prefix,
    )
    from kgbench.tasks import read_records

    extra = tuple(metrics)
    unknown = [m for m in extra if m not in ("soft_f1", "r_ves", "ves")]
    if unknown:
        raise InputError(f"--language sparql cannot score {', '.join(unknown)}")
    want_ves = [m for m in extra if m in ("r_ves", "ves")]
    if ves_reps < 1:
        raise InputError(f"--ves-reps must be >= 1, not {ves_reps}")
    if compat not in (None, "s4s"):
        raise InputError(f"compat must be 's4s' or none, not {compat!r}")
    items = normalise_tasks(read_records(tasks))
    attach_predictions(items, read_records(predictions) if predictions is not None else None)
    by_graph: dict[str, list[dict[str, Any]]] = {}
    for t in items:
        by_graph.setdefault(t["graph"], []).append(t)
    scored: list[dict[str, Any]] = []
    excluded: list[dict[str, Any]] = []
    errors: dict[str, int] = {}
    done = 0
    if test_suite is not None and test_suite < 1:
        raise InputError(f"--test-suite N must be >= 1, not {test_suite}")
    if test_suite is not None and suite_cache is None:
        suite_cache = SuiteCache()
    for graph, group in by_graph.items():
        with SparqlExecutor(rdf_files_of(rdf_dir, graph), timeout_s=timeout_s) as ex:
            backend = SparqlSuiteBackend(ex, compat=compat) if test_suite is not None else None
            for t in group:
                done += 1
                gold = ex.run(t["gold_sparql"])
                if not gold.ok:
                    excluded.append(
                        {
                            "qid": t["qid"],
                            "graph": graph,
                            "error": gold.error,
                            "message": gold.message,
                        }
                    )
                    continue
                pred_text = t.get("pred_sparql")
                rec = dict(t)
                pred = None
                if not isinstance(pred_text, str) or not pred_text.strip():
                    ex_value, executable, error = 0.0, 0.0, "missing"
                else:
                    pred = ex.run(with_s4s_prefix(pred_text))
                    if not pred.ok:
                        ex_value, executable, error = 0.0, 0.0, str(pred.error)
                    else:
                        executable, error = 1.0, None
                        ex_value = sparql_execution_accuracy(
                            gold.rows,
                            pred.rows,
                            sparql_order_matters(t["gold_sparql"]),
                            compat=compat,
                        )
                if error is not None:
                    errors[error] = errors.get(error, 0) + 1
                rec["metrics"] = {"execution_accuracy": ex_value, "executable": executable}
                if extra:
                    ran = pred if error is None else None
                    rec["metrics"].update(
                        _extra_scores(ex, t["gold_sparql"], gold, ran, rec, extra, ves_reps)
                    )
                if backend is not None and suite_cache is not None and test_suite is not None:
                    # neighbours are near-misses, some of them cross products: distil under a
                    # short timeout (a neighbour that times out is told apart already)
                    ex.timeout_s = min(timeout_s, suite_timeout_s)
                    try:
                        suite = suite_cache.suite_for(
                            backend, t["gold_sparql"], scope=graph, max_size=test_suite, seed=seed
                        )
                    finally:
                        ex.timeout_s = timeout_s
                    verdict = None
                    if error is None and isinstance(pred_text, str):  # failed: never rerun
                        verdict = ts_verdict(
                            backend,
                            suite,
                            t["gold_sparql"],
                            with_s4s_prefix(pred_text),
                            original_same=ex_value == 1,
                        )
                    rec["metrics"]["ts_execution_accuracy"] = (
                        verdict.score if verdict is not None else 0.0
                    )
                    rec["test_suite"] = ts_task_record(suite, verdict)
                rec["error"] = error
                rec["uninformative"] = uninformative_reason([list(r) for r in gold.rows])
                scored.append(rec)
                if progress is not None:
                    progress(done, len(items))
    hard = {
        h: mean4([r["metrics"]["execution_accuracy"] for r in scored if r["hardness"] == h])
        for h in (*HARDNESS, "unknown")
        if any(r["hardness"] == h for r in scored)
    }
    base = ("execution_accuracy", "executable", *extra)
    aggregated = {
        "overall": {m: mean4([r["metrics"][m] for r in scored]) for m in base},
        "by_graph": group_means((r["graph"], r["metrics"]["execution_accuracy"]) for r in scored),
        "by_hardness": hard,
        "ci95": bootstrap_ci95(scored, base),
        "informative": informative_metrics(scored, base),
        "scored": len(scored),
        "excluded": excluded,
        "compat": compat or "kgbench",
    }
    if test_suite is not None:
        ts_metrics = ("execution_accuracy", "ts_execution_accuracy", "executable", *extra)
        aggregated["overall"] = {m: mean4([r["metrics"][m] for r in scored]) for m in ts_metrics}
        aggregated["ci95"] = bootstrap_ci95(scored, ts_metrics)
        aggregated["informative"] = informative_metrics(scored, ts_metrics)
        summary = ts_aggregate(scored, suite_cache.counts() if suite_cache is not None else None)
        summary["max_size"] = test_suite
        summary["seed"] = seed
        aggregated["test_suite"] = summary
        aggregated["ex_not_ts"] = ex_not_ts(scored)
    if want_ves:
        from kgbench.evaluate.efficiency import ves_summary

        aggregated["ves"] = ves_summary(scored, ves_reps, sparql=True)
    return SparqlEvaluation(scored, aggregated, excluded, errors)


def _extra_scores(
    ex: Any,
    gold_query: str,
    gold: Any,
    pred: Any,
    rec: dict[str, Any],
    extra: Sequence[str],
    reps: int,
) -> dict[str, float]:
    """Soft-F1 and the wall-time VES scores of one task (``pred``: the prediction's result,
    None when it is missing or failed: every score 0). The VES measuring re-runs the
    prediction (``rec["pred_sparql"]``, prefixed) and ``gold_query`` on ``ex``."""
    from kgbench.evaluate.efficiency import measure_wall, wall_scores
    from kgbench.query.compare import set_equal, soft_f1
    from kgbench.query.sparql import with_s4s_prefix

    out = dict.fromkeys(extra, 0.0)
    want_ves = [m for m in extra if m in ("r_ves", "ves")]
    if want_ves:
        rec["ves"] = {"gated": False}
    if pred is None:
        return out
    gold_rows = [list(r) for r in gold.rows]
    pred_rows = [list(r) for r in pred.rows]
    try:
        if "soft_f1" in extra:
            out["soft_f1"] = soft_f1(gold_rows, pred_rows)
        gated = bool(want_ves) and set_equal(gold_rows, pred_rows)
    except TypeError as exc:  # a value outside the value model: 0, as EX
        if want_ves:
            rec["ves"]["error"] = {"error_class": "unsupported-value", "error": str(exc)}
        return out
    if not gated:
        return out
    rec["ves"]["gated"] = True
    pred_query = with_s4s_prefix(rec["pred_sparql"])

    def timed(query: str) -> float:
        res = ex.run(query)
        if not res.ok:
            raise _MeasureFailed(f"{res.error}: {res.message}")
        return float(res.seconds)

    try:
        pred_t, gold_t = measure_wall(lambda: timed(pred_query), lambda: timed(gold_query), reps)
    except _MeasureFailed as exc:
        rec["ves"]["error"] = {"error_class": "measure", "error": str(exc)}
        return out
    wall = wall_scores(pred_t, gold_t)
    rec["ves"].update(wall["detail"])
    for m in want_ves:
        out[m] = wall[m]
    return out


class _MeasureFailed(Exception):
    """Internal: a repetition of the VES measurement failed (its error and message)."""
