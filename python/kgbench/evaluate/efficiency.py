"""Efficiency scores of EX-correct predictions (``--metrics ves``; metrics.md, "VES").

Pure functions from measurements to scores; the measuring is in
:func:`kgbench.evaluate.efficiency.measure_wall` (any two timing callables) and the
runners. Three per-task scores, each 0 for a task whose results fail BIRD's gate
(:func:`kgbench.query.compare.set_equal`) or whose prediction fails:

- ``r_ves``: BIRD Mini-Dev's R-VES (bird-bench/mini_dev at 4d970a9a,
  ``evaluation/evaluation_ves.py``: ``clean_abnormal``, ``iterated_execute_sql``,
  ``compute_ves``): ``reps`` repetitions, each timing the prediction then the gold; the
  ratios ``gold_time / pred_time``; the ratios strictly inside ``mean ± 3·std`` (population
  std) kept; their mean is the time ratio; the reward step of :func:`bird_reward`; the score
  is ``sqrt(reward)`` (BIRD multiplies by 100; kgbench keeps 0..1, at most ``sqrt(1.25)``).
  When every ratio is equal the std is 0, no ratio is kept and BIRD's mean divides by zero,
  which its run catches as an error: reward 0. kgbench reproduces that (:func:`time_ratio`).
- ``ves``: the original VES (AlibabaResearch/DAMO-ConvAI at 483554ea,
  ``bird/llm/src/evaluation_ves.py``): the same cleaned time ratio, score ``sqrt(ratio)``.
- ``ves_db_hits`` (Cypher only): ``sqrt(gold_db_hits / pred_db_hits)`` from Neo4j
  ``PROFILE`` (:func:`db_hits_ratio`), the same on any machine for the same plan and graph.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: Repetitions of the wall-time measurement (BIRD's ``iterate_num``; ``--ves-reps``).
DEFAULT_REPS = 100

#: The per-task metric names ``--metrics ves`` adds, for Cypher and for SPARQL (no PROFILE).
VES_METRICS_CYPHER = ("r_ves", "ves", "ves_db_hits")
VES_METRICS_SPARQL = ("r_ves", "ves")


def clean_abnormal(values: Sequence[float]) -> list[float]:
    """The values strictly inside ``mean ± 3·std`` (``np.mean`` and ``np.std``, the
    population std), in order: BIRD's ``clean_abnormal``. Equal values whose mean numpy
    computes exactly (``[2.0, 2.0, 2.0]``) -> ``[]`` (std 0, nothing strictly inside); when
    rounding makes the mean differ from the value (``[0.1] * 3``: mean
    0.10000000000000002, std 1.4e-17) they are all kept, as in BIRD."""
    import numpy as np  # numpy's mean and std, as BIRD: the same bounds to the last bit

    if not values:
        return []
    array = np.asarray(values, dtype=float)
    mean = float(np.mean(array))
    std = float(np.std(array))
    return [float(x) for x in values if mean - 3 * std < x < mean + 3 * std]


def time_ratio(pred_times: Sequence[float], gold_times: Sequence[float]) -> tuple[float, int]:
    """``(ratio, kept)``: the mean of the cleaned ratios ``gold / pred`` of each repetition
    (:func:`clean_abnormal`) and how many were kept. Nothing kept (every ratio equal, or no
    repetition) -> ``(0.0, 0)``, BIRD's division by zero caught as an error. A predicted
    time of 0 (a clock that did not move) makes its ratio infinite, as Python's division
    would raise in BIRD: ``(0.0, 0)`` too.

    Raises:
        ValueError: the two sequences differ in length."""
    if len(pred_times) != len(gold_times):
        raise ValueError(f"{len(pred_times)} predicted times for {len(gold_times)} gold times")
    if any(p <= 0 for p in pred_times):
        return 0.0, 0
    kept = clean_abnormal([g / p for p, g in zip(pred_times, gold_times, strict=True)])
    if not kept:
        return 0.0, 0
    return sum(kept) / len(kept), len(kept)


def bird_reward(ratio: float) -> float:
    """BIRD Mini-Dev's reward of a time ratio: 0 -> 0, ``>= 2`` -> 1.25, ``[1, 2)`` -> 1,
    ``[0.5, 1)`` -> 0.75, ``[0.25, 0.5)`` -> 0.5, otherwise 0.25."""
    if ratio == 0:
        return 0.0
    if ratio >= 2:
        return 1.25
    if ratio >= 1:
        return 1.0
    if ratio >= 0.5:
        return 0.75
    if ratio >= 0.25:
        return 0.5
    return 0.25


def wall_scores(pred_times: Sequence[float], gold_times: Sequence[float]) -> dict[str, Any]:
    """The wall-time scores of one gated task: ``{"r_ves", "ves"}`` and the detail
    ``{"reps", "time_ratio", "kept", "reward", "pred_time_s", "gold_time_s"}`` (the last two
    the mean times, seconds). Raises like :func:`time_ratio`."""
    ratio, kept = time_ratio(pred_times, gold_times)
    reward = bird_reward(ratio)
    n = len(pred_times)
    return {
        "r_ves": math.sqrt(reward),
        "ves": math.sqrt(ratio),
        "detail": {
            "reps": n,
            "time_ratio": ratio,
            "kept": kept,
            "reward": reward,
            "pred_time_s": sum(pred_times) / n if n else 0.0,
            "gold_time_s": sum(gold_times) / n if n else 0.0,
        },
    }


def db_hits_ratio(gold_db_hits: int, pred_db_hits: int) -> float:
    """``gold_db_hits / pred_db_hits``, each side at least 1 (a query reading nothing, e.g.
    ``RETURN 1``, counts as 1 hit, so two such queries have ratio 1)."""
    return max(gold_db_hits, 1) / max(pred_db_hits, 1)


def measure_wall(
    run_pred: Callable[[], float], run_gold: Callable[[], float], reps: int
) -> tuple[list[float], list[float]]:
    """``reps`` repetitions of ``run_pred()`` then ``run_gold()`` (each returns the seconds
    of one execution and fetch): the predicted and the gold times, in order (BIRD's loop).

    Raises:
        ValueError: ``reps`` < 1; what the callables raise."""
    if reps < 1:
        raise ValueError(f"--ves-reps must be >= 1, not {reps}")
    pred: list[float] = []
    gold: list[float] = []
    for _ in range(reps):
        pred.append(run_pred())
        gold.append(run_gold())
    return pred, gold


def zero_scores(names: Sequence[str]) -> dict[str, float]:
    """Every score of ``names`` 0 (a task outside the gate or whose measuring failed)."""
    return dict.fromkeys(names, 0.0)


def ves_summary(records: Sequence[Mapping[str, Any]], reps: int, sparql: bool) -> dict[str, Any]:
    """The ``ves`` object of ``aggregated_metrics.json``: ``{reps, gated, measured, basis}``
    (tasks through the gate, tasks measured without error; ``basis`` says what each score
    measures)."""
    gated = [r for r in records if (r.get("ves") or {}).get("gated")]
    basis = {
        "r_ves": "wall time (BIRD Mini-Dev R-VES, 0..1.118; BIRD reports x100)",
        "ves": "wall time (BIRD original VES, sqrt of the time ratio; BIRD reports x100)",
    }
    if not sparql:
        basis["ves_db_hits"] = "Neo4j PROFILE database hits (hardware-independent)"
    else:
        basis["note"] = "SPARQL: wall-time VES only (no hardware-independent count)"
    return {
        "reps": reps,
        "gated": len(gated),
        "measured": sum(1 for r in gated if not r["ves"].get("error")),
        "basis": basis,
    }


def format_ves(summary: Mapping[str, Any]) -> str:
    """The lines of the evaluation table about VES (a :func:`ves_summary`): the tasks gated
    and measured, and what each score measures."""
    lines = [
        f"VES: {summary['gated']} tasks through BIRD's gate (rows equal as sets), "
        f"{summary['measured']} measured ({summary['reps']} repetitions each)"
    ]
    for name, what in summary.get("basis", {}).items():
        lines.append(f"  {name:<12} {what}")
    return "\n".join(lines)
