"""Several prediction files on the same tasks in one pass: ``kgbench evaluate --predictions
NAME=FILE --predictions NAME=FILE ...`` (a leaderboard).

Each run is scored exactly as a single-run :func:`kgbench.evaluate.evaluate` scores it (same
records, same ``aggregated_metrics.json``), but the queries are shared: every distinct query
text of a graph (gold, predicted or provenance query) is sent to the server once per pass,
and its result serves every task and every run that has it (:class:`SharedExecutor`); with
the result cache (``cache_dir``, :func:`kgbench.evaluate.evaluate`) a later pass sends only
the queries no earlier pass answered. The work is ordered in phases that suit the server
(:func:`run_phases`): the gold queries of every graph first (every run needs them), then the
distinct predictions of all runs batched per graph, then the provenance queries (PSJS), each
on the executors' bounded pool with a progress bar; the runs are then scored from the
answers.

Beside the runs' own files, ``leaderboard.json`` lists each run's overall metrics with their
95 % bootstrap intervals and, for every pair of runs, the paired difference per metric over
the tasks both scored, its 95 % paired-bootstrap interval and a paired test: McNemar's exact
test for a metric whose values are all 0 or 1 (EX, Exec), the paired bootstrap otherwise
(metrics.md §5).
"""

from __future__ import annotations

import copy
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.aggregate import BOOTSTRAP_RESAMPLES, bootstrap_means
from kgbench.evaluate.provenance import dialect_of
from kgbench.evaluate.runner import (
    CONNECTION,
    METRICS,
    ConnectionLostError,
    EvaluationResult,
    ExecutorFactory,
    ExecutorLike,
    GraphTarget,
    evaluate,
    graph_executors,
    neo4j_executor_factory,
    parse_metrics,
    plan_scoring,
    tasks_by_graph,
)
from kgbench.tasks import clean_prediction


def parse_run_specs(values: Sequence[str]) -> list[tuple[str, Path]]:
    """``NAME=FILE`` or ``FILE`` arguments as (name, file) pairs, in the given order. A name
    defaults to the file's stem, or to its directory's name when the stem is ``result``
    (``kgbench predict`` writes ``DIR/result.json``).

    Raises:
        InputError: an empty name or file, or two runs with the same name (both files named).
    """
    runs: list[tuple[str, Path]] = []
    seen: dict[str, Path] = {}
    for value in values:
        name, sep, file = value.partition("=")
        if not sep or not name or "/" in name or Path(name).suffix:
            # no NAME= prefix (a path may hold '=' only after a directory separator)
            name, file = "", value
        path = Path(file)
        if not file:
            raise InputError(f"--predictions {value!r}: no file")
        if not name:
            name = path.parent.name if path.stem == "result" and path.parent.name else path.stem
        if name in seen:
            raise InputError(
                f"two prediction files are named {name!r}: {seen[name]} and {path} "
                "(give each a name: --predictions NAME=FILE)"
            )
        seen[name] = path
        runs.append((name, path))
    return runs


class SharedExecutor:
    """An executor that sends each distinct query text once and serves its result again to
    every later request (of any run in the pass). A result whose error class is
    ``connection`` is not kept (the server did not answer it). Other attributes (the result
    cache's report, the fingerprint) are the wrapped executor's."""

    def __init__(self, inner: ExecutorLike) -> None:
        self.inner = inner
        self.results: dict[str, Any] = {}
        #: Queries sent to the server through this executor: the wrapped executor's own
        #: count (``sent``, which leaves out its cache's answers) when it keeps one, else
        #: every text passed on to it.
        self.sent = 0

    def run_many(self, queries: Sequence[str], progress: bool | str = False) -> list[Any]:
        """Results of ``queries`` in order; only the texts not answered before are passed on."""
        items = list(queries)
        new = [q for q in dict.fromkeys(items) if q not in self.results]
        fresh: dict[str, Any] = {}
        if new:
            before = getattr(self.inner, "sent", None)
            for query, result in zip(new, self.inner.run_many(new, progress=progress), strict=True):
                fresh[query] = result
                if getattr(result, "error_class", None) != CONNECTION:
                    self.results[query] = result
            after = getattr(self.inner, "sent", None)
            counted = isinstance(before, int) and isinstance(after, int)
            self.sent += after - before if counted else len(new)  # type: ignore[operator]
        return [fresh[q] if q in fresh else self.results[q] for q in items]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class MultiEvaluation:
    """The runs of one pass (name -> :class:`EvaluationResult`, in the given order), the
    leaderboard (``leaderboard.json``), the queries sent to the servers in the whole pass,
    and each run's prediction qids that match no task."""

    runs: dict[str, EvaluationResult]
    leaderboard: dict[str, Any]
    queries_sent: int
    unmatched: dict[str, int] = field(default_factory=dict)

    def write(self, out_dir: str | Path) -> Path:
        """``OUT/NAME/result_with_metrics.json`` and ``aggregated_metrics.json`` per run
        (as a single-run evaluation writes them) and ``OUT/leaderboard.json``; returns the
        leaderboard's path."""
        from kgbench.fileio import write_json_atomic

        out = Path(out_dir)
        for name, result in self.runs.items():
            result.write(out / name)
        return write_json_atomic(out / "leaderboard.json", self.leaderboard)

    def table(self) -> str:
        """The leaderboard as text: runs by the first metric (best first) with their 95 %
        intervals, then the pairs whose difference is significant at 5 %."""
        board = self.leaderboard
        metrics = board["metrics"]
        primary = metrics[0]
        rows = sorted(board["runs"], key=lambda r: -_num(r["overall"].get(primary)))
        width = max(len("run"), *(len(r["name"]) for r in rows)) + 2
        lines = [f"leaderboard ({board['tasks']} tasks, {board['queries_sent']} queries sent)"]
        lines.append(f"{'run':<{width}}" + "".join(f"{m:>30}" for m in metrics))
        for r in rows:
            cells = []
            for m in metrics:
                low, high = r["ci95"].get(m, [math.nan, math.nan])
                cells.append(f"{_num(r['overall'].get(m)):.4f} [{low:.4f}, {high:.4f}]".rjust(30))
            lines.append(f"{r['name']:<{width}}" + "".join(cells))
        real = [
            (p, m, d)
            for p in board["pairs"]
            for m, d in p["metrics"].items()
            if d["p_value"] is not None and d["p_value"] < 0.05
        ]
        lines.append(
            f"pairs with a difference significant at 5%: {len(real)} of "
            f"{len(board['pairs']) * len(metrics)}"
        )
        for p, m, d in real:
            lines.append(
                f"  {p['a']} - {p['b']}: {m} {d['difference']:+.4f} "
                f"[{d['ci95'][0]:+.4f}, {d['ci95'][1]:+.4f}], p = {d['p_value']:.4g} ({d['test']})"
            )
        return "\n".join(lines)


def _num(x: Any) -> float:
    return float(x) if isinstance(x, (int, float)) else math.nan


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided p-value of McNemar's exact test: the discordant pairs (``a_only`` tasks only
    run A got right, ``b_only`` only B) against Binomial(n, 1/2); 1.0 when there are none."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired_comparison(
    a: Sequence[float], b: Sequence[float], *, seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES
) -> dict[str, Any]:
    """The paired difference of two runs' per-task scores (same tasks, same order):
    ``{"difference": mean(a - b), "ci95": [low, high], "test", "p_value", "a_only",
    "b_only"}``. The interval is the percentile bootstrap of the mean difference (tasks
    resampled with numpy's PCG64 seeded with ``seed``). The test is McNemar's exact test when
    every score is 0 or 1 (``a_only`` / ``b_only``: the discordant tasks), else the paired
    bootstrap (p = twice the smaller share of resampled means on either side of 0, at most
    1). No task: every number is ``None``."""
    import numpy as np

    n = len(a)
    if n == 0:
        return {
            "difference": None,
            "ci95": [None, None],
            "test": None,
            "p_value": None,
            "a_only": None,
            "b_only": None,
        }
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    diff = va - vb
    means = bootstrap_means(diff, seed=seed, resamples=resamples)
    low, high = np.percentile(means, [2.5, 97.5])
    binary = bool(np.isin(va, (0.0, 1.0)).all() and np.isin(vb, (0.0, 1.0)).all())
    a_only = int(((va == 1.0) & (vb == 0.0)).sum()) if binary else None
    b_only = int(((va == 0.0) & (vb == 1.0)).sum()) if binary else None
    if binary:
        assert a_only is not None and b_only is not None
        test, p = "mcnemar", mcnemar_exact(a_only, b_only)
    else:
        below, above = float((means <= 0).mean()), float((means >= 0).mean())
        test, p = "paired_bootstrap", min(1.0, 2 * min(below, above))
    return {
        "difference": round(float(diff.mean()), 4),
        "ci95": [round(float(low), 4), round(float(high), 4)],
        "test": test,
        "p_value": round(p, 6),
        "a_only": a_only,
        "b_only": b_only,
    }


#: Metric keys the leaderboard places test-suite EX by.
EX, TS_EX = "execution_accuracy", "ts_execution_accuracy"


def leaderboard(
    runs: Mapping[str, EvaluationResult],
    files: Mapping[str, Path],
    queries_sent: int,
    unmatched: Mapping[str, int],
) -> dict[str, Any]:
    """The ``leaderboard.json`` object of a pass (module docstring): ``{"metrics", "tasks",
    "queries_sent", "runs": [{"name", "predictions", "overall", "ci95", "scored",
    "unmatched_qids"}], "pairs": [{"a", "b", "tasks", "metrics": {metric:
    paired_comparison}}]}``; pairs in the order of the runs, over the tasks both scored. When
    every run has test-suite EX (``--test-suite``), ``ts_execution_accuracy`` follows
    ``execution_accuracy`` among the metrics."""
    first = next(iter(runs.values()))
    metrics = list(first.metrics)
    if all(r.test_suite for r in runs.values()) and TS_EX not in metrics:
        metrics.insert(metrics.index(EX) + 1 if EX in metrics else len(metrics), TS_EX)

    def overall(result: EvaluationResult) -> dict[str, Any]:
        out = dict(result.aggregated["overall"])
        if TS_EX in metrics:
            out[TS_EX] = result.test_suite["ts_execution_accuracy"]
        return out

    def ci95(result: EvaluationResult) -> dict[str, Any]:
        out = dict(result.ci95)
        if TS_EX in metrics and "ci95" in result.test_suite:
            out[TS_EX] = result.test_suite["ci95"]
        return out

    board: dict[str, Any] = {
        "metrics": metrics,
        "tasks": first.counts.get("tasks", len(first.records)),
        "queries_sent": queries_sent,
        "runs": [
            {
                "name": name,
                "predictions": str(files[name]),
                "overall": overall(result),
                "ci95": ci95(result),
                "scored": len(result.records),
                "unmatched_qids": unmatched.get(name, 0),
            }
            for name, result in runs.items()
        ],
        "pairs": [],
    }
    for (na, ra), (nb, rb) in combinations(runs.items(), 2):
        sa = {r["qid"]: r["metrics"] for r in ra.records}
        sb = {r["qid"]: r["metrics"] for r in rb.records}
        common = [q for q in sa if q in sb]
        board["pairs"].append(
            {
                "a": na,
                "b": nb,
                "tasks": len(common),
                "metrics": {
                    m: paired_comparison([sa[q][m] for q in common], [sb[q][m] for q in common])
                    for m in metrics
                },
            }
        )
    return board


def run_phases(
    tasks: Sequence[dict[str, Any]],
    predictions: Sequence[Mapping[str, str | None]],
    factory: ExecutorFactory,
    *,
    progress: bool = False,
    **options: Any,
) -> None:
    """Send the queries of a pass graph by graph and, per graph, phase by phase, before its
    runs are scored: the gold queries, then the distinct predictions of all ``predictions``
    (one mapping qid -> cleaned prediction per run), then the provenance queries of both
    (PSJS). Each batch runs on the executor's bounded pool (``workers``) with a progress bar
    (``progress``). ``factory`` must keep the answers (:class:`SharedExecutor`), so scoring
    finds them; ``options`` are :func:`kgbench.evaluate.evaluate`'s (uri, graph_uris,
    metrics, timeout_s, gold_timeout_s, cache_dir, workers, ...).

    Nothing here raises for the server: a graph whose server cannot be reached is left to the
    scoring (which reports it), and the phases stop at the first connection failure.
    """
    metrics = parse_metrics(options.get("metrics", METRICS))
    by_graph = tasks_by_graph(
        tasks,
        options.get("graph_uris"),
        options.get("uri"),
        options.get("database"),
        options.get("user"),
        options.get("password"),
    )
    timeout = float(options.get("timeout_s", 120.0))
    gold_timeout = options.get("gold_timeout_s")
    gold_timeout = timeout if gold_timeout is None else float(gold_timeout)
    cache_dir = options.get("cache_dir") or options.get("gold_cache_dir")
    workers = int(options.get("workers", 8))
    work = []
    for graph, (target, graph_tasks) in by_graph.items():
        try:
            gold, pred = graph_executors(
                factory, graph, target, workers, timeout, gold_timeout, cache_dir
            )
        except ConnectionLostError:
            continue
        dialects = (dialect_of(pred), dialect_of(gold))
        plans = [plan_scoring(graph_tasks, p, metrics, *dialects) for p in predictions]
        work.append((graph, gold, pred, plans))
    Side = Callable[[Any], list[str]]
    phases: tuple[tuple[str, Side, Side], ...] = (
        ("gold", lambda p: [*p.gold, *p.identical_gold], lambda p: []),
        ("predictions", lambda p: [], lambda p: p.predictions),
        ("provenance", lambda p: p.gold_provenance, lambda p: p.prediction_provenance),
    )
    for graph, gold, pred, plans in work:  # graph by graph: a --bench server starts once
        for phase, gold_side, pred_side in phases:
            for executor, side in ((gold, gold_side), (pred, pred_side)):
                queries = list(dict.fromkeys(q for plan in plans for q in side(plan)))
                if not queries:
                    continue
                label = f"{phase} ({graph})" if progress else False
                results = executor.run_many(queries, progress=label)
                if any(getattr(r, "error_class", None) == CONNECTION for r in results):
                    return


def evaluate_runs(
    tasks: str | Path | Sequence[Mapping[str, Any]],
    runs: Sequence[tuple[str, str | Path]],
    *,
    executor_factory: ExecutorFactory | None = None,
    log: Callable[[str], None] | None = None,
    **options: Any,
) -> MultiEvaluation:
    """Score several prediction files on the same tasks in one pass (module docstring).

    Args:
        tasks: as :func:`kgbench.evaluate.evaluate`.
        runs: (name, prediction file) pairs, e.g. from :func:`parse_run_specs`; names are
            the output subdirectories.
        executor_factory: as :func:`kgbench.evaluate.evaluate` (default: Neo4j).
        log: as :func:`kgbench.evaluate.evaluate`.
        options: the other keyword arguments of :func:`kgbench.evaluate.evaluate` (uri,
            graph_uris, metrics, workers, timeout_s, cache_dir, keep_going, progress, ...).

    Returns:
        :class:`MultiEvaluation`; each run's result equals what a single-run evaluation of
        its file gives.

    Raises:
        InputError: no run, two runs with one name, or what
            :func:`kgbench.evaluate.evaluate` raises for bad input (naming the file).
        ConnectionLostError: as :func:`kgbench.evaluate.evaluate`.
    """
    from kgbench.evaluate.runner import as_task_list
    from kgbench.tasks import load_predictions

    if not runs:
        raise InputError("no prediction file to evaluate")
    names = [n for n, _ in runs]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        files = [str(f) for n, f in runs if n == dup]
        raise InputError(f"two prediction files are named {dup!r}: {' and '.join(files)}")
    emit = log or (lambda msg: print(msg, file=sys.stderr))
    task_list = as_task_list(tasks)
    qids = {t["qid"] for t in task_list}
    base, close = (
        (executor_factory, lambda: None)
        if executor_factory is not None
        else neo4j_executor_factory(options.pop("servers", None))
    )
    shared: dict[tuple[str, GraphTarget, float, str | None], SharedExecutor] = {}

    def factory(
        graph: str, target: GraphTarget, timeout_s: float, workers: int, cache: Path | None
    ) -> ExecutorLike:
        key = (graph, target, timeout_s, None if cache is None else str(cache))
        if key not in shared:
            shared[key] = SharedExecutor(base(graph, target, timeout_s, workers, cache))
        return shared[key]

    results: dict[str, EvaluationResult] = {}
    unmatched: dict[str, int] = {}
    cleaned = []
    for name, path in runs:
        preds = load_predictions(path)
        unmatched[name] = sum(1 for q in preds if q not in qids)
        if unmatched[name]:
            emit(
                f"warning: {path}: {unmatched[name]} prediction qid(s) match no task; the "
                "run is scored over the tasks (missing predictions score 0)"
            )
        cleaned.append({q: None if p is None else clean_prediction(p) for q, p in preds.items()})
    try:
        run_phases(task_list, cleaned, factory, **options)
        for name, path in runs:
            prefix = f"[{name}] "

            def run_log(msg: str, prefix: str = prefix) -> None:
                emit(prefix + msg)

            results[name] = evaluate(
                copy.deepcopy(task_list),
                path,
                executor_factory=factory,
                log=run_log,
                **options,
            )
    finally:
        close()
    sent = sum(s.sent for s in shared.values())
    paths = {name: Path(path) for name, path in runs}
    return MultiEvaluation(results, leaderboard(results, paths, sent, unmatched), sent, unmatched)
