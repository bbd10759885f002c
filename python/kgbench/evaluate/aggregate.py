"""Aggregated metrics exactly as CypherBench's evaluation script writes them (SPEC.md §3).

``aggregated_metrics.json`` holds:

- ``overall``: for each metric, the mean over all records, rounded to 4 decimals;
- ``by_graph``, ``by_match``, ``by_return``: the mean of one metric (the
  *aggregation metric*, ``execution_accuracy`` by default) per task ``graph``, per
  ``from_template.match_category`` and per ``from_template.return_pattern_id``
  mapped by :data:`RETURN_PATTERN_MAPPING` (``n_prop``, ``n_name_prop``,
  ``n_prop_distinct`` and ``n_prop_array_distinct`` merge into ``n_prop_combined``;
  return patterns not in the mapping, e.g. the special categories' own templates,
  are left out of ``by_return``).

Means are ``round(sum / count, 4)`` in record order; an empty group is NaN. Groups
appear in order of first occurrence. Records without ``from_template`` are left out
of ``by_match`` and ``by_return`` (CypherBench requires the field).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: CypherBench's RETURN template groups for ``by_return``.
RETURN_PATTERN_MAPPING: dict[str, str] = {
    "n_name": "n_name",
    "n_prop": "n_prop_combined",
    "n_name_prop": "n_prop_combined",
    "n_prop_distinct": "n_prop_combined",
    "n_prop_array_distinct": "n_prop_combined",
    "n_order_by": "n_order_by",
    "n_argmax": "n_argmax",
    "n_where": "n_where",
    "n_agg": "n_agg",
    "n_group_by": "n_group_by",
}


def mean4(values: Sequence[float]) -> float:
    """``round(mean, 4)``, or NaN for no values (CypherBench ``avg_and_round``)."""
    return round(sum(values) / len(values), 4) if values else math.nan


def group_means(pairs: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Mean (4 decimals) of the values of each key, keys in first-seen order."""
    groups: dict[str, list[float]] = {}
    for key, value in pairs:
        groups.setdefault(key, []).append(value)
    return {key: mean4(values) for key, values in groups.items()}


def aggregate_metrics(
    records: Sequence[Mapping[str, Any]],
    metrics: Sequence[str],
    metric_for_agg: str = "execution_accuracy",
) -> dict[str, dict[str, float]]:
    """The ``aggregated_metrics.json`` object for scored records.

    Args:
        records: task records whose ``metrics`` dict holds every name in ``metrics``.
        metrics: metric names for ``overall``, in output order.
        metric_for_agg: the metric averaged in ``by_graph`` / ``by_match`` /
            ``by_return``; must be one of ``metrics``.

    Raises:
        ValueError: ``metric_for_agg`` is not in ``metrics``.
        KeyError: a record lacks one of the metrics.
    """
    if metric_for_agg not in metrics:
        raise ValueError(
            f"aggregation metric {metric_for_agg!r} is not among the computed metrics "
            f"{list(metrics)}"
        )
    overall = {m: mean4([r["metrics"][m] for r in records]) for m in metrics}
    by_graph = group_means((r["graph"], r["metrics"][metric_for_agg]) for r in records)
    templated = [r for r in records if r.get("from_template")]
    by_match = group_means(
        (r["from_template"]["match_category"], r["metrics"][metric_for_agg]) for r in templated
    )
    by_return = group_means(
        (
            RETURN_PATTERN_MAPPING[r["from_template"]["return_pattern_id"]],
            r["metrics"][metric_for_agg],
        )
        for r in templated
        if r["from_template"]["return_pattern_id"] in RETURN_PATTERN_MAPPING
    )
    return {"overall": overall, "by_graph": by_graph, "by_match": by_match, "by_return": by_return}


#: Bootstrap resamples of :func:`bootstrap_ci95` (issue 32: 1,000, seeded).
BOOTSTRAP_RESAMPLES = 1000


def bootstrap_means(values: Any, *, seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES) -> Any:
    """The means of ``resamples`` bootstrap samples of the rows of ``values`` (a numpy array
    of ``n`` rows, one value or one row of values per task): ``n`` rows drawn with
    replacement per sample by numpy's PCG64 seeded with ``seed``, in blocks so that memory
    stays near 8 MB per column whatever ``n``. Returns an array of ``resamples`` means (of
    shape ``(resamples,) + values.shape[1:]``). ``n`` must be at least 1."""
    import numpy as np

    n = len(values)
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, *values.shape[1:]))
    block = max(1, min(resamples, 1_000_000 // n))
    for start in range(0, resamples, block):
        k = min(block, resamples - start)
        means[start : start + k] = values[rng.integers(0, n, size=(k, n))].mean(axis=1)
    return means


def bootstrap_ci95(
    records: Sequence[Mapping[str, Any]],
    metrics: Sequence[str],
    *,
    seed: int = 0,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> dict[str, list[float]]:
    """The ``ci95`` object of ``aggregated_metrics.json``: for each metric, the 95 %
    percentile-bootstrap confidence interval ``[low, high]`` of its mean over the tasks
    (metrics.md §5).

    ``resamples`` samples of ``len(records)`` tasks are drawn with replacement (numpy's
    PCG64 generator seeded with ``seed``; the same draws for every metric, so the intervals
    of one run are paired), each sample's mean is taken, and the 2.5th and 97.5th
    percentiles of those means (linear interpolation) are the bounds, rounded to 4
    decimals like the means. No record: ``{}``. Deterministic for the same records, order
    and seed. Memory stays near 8 MB per metric whatever the number of tasks (the samples are
    drawn in blocks).

    Raises:
        KeyError: a record lacks one of the metrics.
    """
    import numpy as np

    n = len(records)
    if n == 0:
        return {}
    values = np.array([[float(r["metrics"][m]) for m in metrics] for r in records])
    means = bootstrap_means(values, seed=seed, resamples=resamples)
    low, high = np.percentile(means, [2.5, 97.5], axis=0)
    return {
        m: [round(float(lo), 4), round(float(hi), 4)]
        for m, lo, hi in zip(metrics, low, high, strict=True)
    }


def format_ci95(ci95: Mapping[str, Sequence[float]]) -> str:
    """The ``ci95`` object of :func:`bootstrap_ci95` as table lines."""
    lines = ["95% bootstrap confidence intervals (1,000 resamples over tasks)"]
    for name, (low, high) in ci95.items():
        lines.append(f"  {name:<32} [{low:.4f}, {high:.4f}]")
    return "\n".join(lines)


def informative_metrics(
    records: Sequence[Mapping[str, Any]], metrics: Sequence[str]
) -> dict[str, Any]:
    """The ``informative`` object of ``aggregated_metrics.json``: the metrics over the tasks
    whose gold result is informative, beside ``overall`` over all tasks
    (``shared/spec/test-suite.md``, "Uninformative tasks"; metrics.md §1).

    ``records``: scored records, each with ``metrics`` and ``uninformative`` (``None`` or a
    reason of :func:`kgbench.evaluate.uninformative_reason`). Returns ``{"overall": {metric:
    mean over informative tasks, 4 decimals, NaN when none}, "tasks": number of informative
    tasks, "uninformative": number of the others, "by_reason": {reason: count}}`` (reasons in
    the order of the rules, only those that occur).
    """
    from kgbench.query.compare import UNINFORMATIVE_REASONS

    kept = [r for r in records if not r.get("uninformative")]
    reasons = [r["uninformative"] for r in records if r.get("uninformative")]
    return {
        "overall": {m: mean4([r["metrics"][m] for r in kept]) for m in metrics},
        "tasks": len(kept),
        "uninformative": len(reasons),
        "by_reason": {k: reasons.count(k) for k in UNINFORMATIVE_REASONS if k in reasons},
    }


def format_informative(informative: Mapping[str, Any]) -> str:
    """The ``informative`` object of :func:`informative_metrics` as table lines."""
    lines = [
        f"informative tasks ({informative['tasks']}; {informative['uninformative']} "
        "uninformative gold results left out)"
    ]
    for name, value in informative["overall"].items():
        lines.append(f"  {name:<32} {value:>8.4f}")
    for reason, count in informative["by_reason"].items():
        lines.append(f"  uninformative: {reason:<17} {count:>8d}")
    return "\n".join(lines)


def format_table(aggregated: Mapping[str, Mapping[str, float]], metric_for_agg: str) -> str:
    """A plain-text table of aggregated metrics for the terminal. ``by_match`` and
    ``by_return`` group the tasks that carry CypherBench's ``from_template``; when none does,
    the table says so (the JSON keeps CypherBench's empty ``{}``)."""
    lines = ["overall"]
    for name, value in aggregated["overall"].items():
        lines.append(f"  {name:<32} {value:>8.4f}")
    for section in ("by_graph", "by_match", "by_return"):
        groups = aggregated.get(section) or {}
        if not groups:
            if section == "by_match":
                lines.append(
                    "by_match, by_return: no category breakdown (no task has from_template)"
                )
            continue
        lines.append(f"{section} ({metric_for_agg})")
        for key, value in groups.items():
            lines.append(f"  {key:<32} {value:>8.4f}")
    return "\n".join(lines)
