"""pass@k of sampled predictions (``kgbench predict --samples K``), beside EX.

pass@k is the unbiased estimator of Chen et al. 2021 ("Evaluating Large Language Models
Trained on Code", §2.1): with ``n`` samples per task of which ``c`` are correct,
``pass@k = 1 - C(n-c, k) / C(n, k)``, averaged over tasks; computed as the product
``1 - prod_{i=n-c+1}^{n} (1 - k/i)`` (numerically stable). A sample is correct when its
execution accuracy is 1. Samples come from ``pred_cypher_samples`` (``cypherbench``'s
``result.json``) or ``predicted_sparql_samples`` (``spider4sparql``'s ``predictions.json``),
lists of K predictions whose first is ``pred_cypher`` / ``predicted_sparql``.

Each scored record gains ``metrics["pass@k"]`` for k = 1..K and the aggregate's ``overall``
the means (4 decimals); pass@1 equals the mean EX over the K samples.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kgbench.errors import InputError


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one task with ``n`` samples, ``c`` correct (Chen et al. 2021).

    Raises:
        ValueError: not ``0 <= c <= n`` and ``1 <= k <= n``."""
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def read_samples(
    records: Sequence[tuple[str, Mapping[str, Any]]], field: str, first: str, k: int
) -> list[list[str | None]]:
    """The ``k`` samples of every record: ``field`` (a list of at least ``k``), or with
    ``k == 1`` the single prediction ``first``.

    Raises:
        InputError: a record with fewer than ``k`` samples (file and record named)."""
    out: list[list[str | None]] = []
    for where, rec in records:
        samples = rec.get(field)
        if samples is None and k == 1:
            samples = [rec.get(first)]
        if not isinstance(samples, list) or len(samples) < k:
            have = len(samples) if isinstance(samples, list) else 0
            raise InputError(
                f"{where}: --samples {k} needs {k} predictions in {field!r}, has {have}"
            )
        out.append([s if isinstance(s, str) else None for s in samples[:k]])
    return out


def add_pass_at_k(
    records: list[dict[str, Any]],
    aggregated: dict[str, Any],
    correct: Mapping[str, int],
    n: int,
) -> None:
    """Set ``metrics["pass@k"]`` (k = 1..n) of each scored record from ``correct`` (qid ->
    correct samples) and the means in ``aggregated["overall"]``."""
    from kgbench.evaluate.aggregate import mean4

    for rec in records:
        c = correct.get(str(rec["qid"]), 0)
        for k in range(1, n + 1):
            rec["metrics"][f"pass@{k}"] = pass_at_k(n, c, k)
    for k in range(1, n + 1):
        aggregated["overall"][f"pass@{k}"] = mean4([r["metrics"][f"pass@{k}"] for r in records])


def _ex_by_qid(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    return {str(r["qid"]): float(r["metrics"].get("execution_accuracy") or 0.0) for r in records}


def cypher_pass_at_k(
    evaluation: Any, samples_file: str | Path, k: int, evaluate_kwargs: Mapping[str, Any]
) -> None:
    """pass@k of a Cypher run: ``evaluation`` scored sample 0; samples 1..k-1 of
    ``samples_file`` (``pred_cypher_samples``) are scored for EX with ``evaluate_kwargs``
    (:func:`kgbench.evaluate.runner.evaluate`'s keywords) and :func:`add_pass_at_k` fills
    ``evaluation``'s records and aggregate."""
    from kgbench.evaluate.runner import evaluate
    from kgbench.evaluate.tasks import read_records

    raw = read_records(samples_file)
    samples = read_samples(raw, "pred_cypher_samples", "pred_cypher", k)
    qids = [str(r.get("qid")) for _w, r in raw]
    correct = {q: int(v == 1.0) for q, v in _ex_by_qid(evaluation.records).items()}
    kwargs = dict(evaluate_kwargs)
    kwargs["metrics"] = ("execution_accuracy",)
    kwargs["progress"] = False
    for j in range(1, k):
        preds = {q: s[j] for q, s in zip(qids, samples, strict=True)}
        scored = evaluate(samples_file, preds, **kwargs)
        for q, v in _ex_by_qid(scored.records).items():
            correct[q] = correct.get(q, 0) + int(v == 1.0)
    add_pass_at_k(evaluation.records, evaluation.aggregated, correct, k)


def sparql_pass_at_k(
    evaluation: Any,
    tasks: str | Path,
    predictions: str | Path,
    rdf_dir: str | Path,
    k: int,
    timeout_s: float,
) -> None:
    """pass@k of a SPARQL run: as :func:`cypher_pass_at_k` with ``predicted_sparql_samples``
    of ``predictions`` (records aligned with ``tasks`` as ``evaluate --language sparql``
    aligns them)."""
    from kgbench.evaluate.sparql_runner import evaluate_sparql
    from kgbench.evaluate.tasks import read_records

    raw = read_records(predictions)
    samples = read_samples(raw, "predicted_sparql_samples", "predicted_sparql", k)
    correct = {q: int(v == 1.0) for q, v in _ex_by_qid(evaluation.records).items()}
    with tempfile.TemporaryDirectory(prefix="kgbench-passk-") as tmp:
        for j in range(1, k):
            path = Path(tmp) / f"sample_{j}.json"
            keyed = all("qid" in r for _w, r in raw)  # as attach_predictions pairs them
            recs = [
                {"qid": str(r["qid"]), "pred_sparql": s[j]} if keyed else {"predicted_sparql": s[j]}
                for (_w, r), s in zip(raw, samples, strict=True)
            ]
            path.write_text(json.dumps(recs), encoding="utf-8")
            scored = evaluate_sparql(tasks, path, rdf_dir, timeout_s=timeout_s)
            for q, v in _ex_by_qid(scored.records).items():
                correct[q] = correct.get(q, 0) + int(v == 1.0)
    add_pass_at_k(evaluation.records, evaluation.aggregated, correct, k)
