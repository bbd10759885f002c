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

**What "correct" means per family** (metrics.md §11): ``cypherbench`` / ``spider4sparql``: EX
is 1. ``gtsqa`` (:func:`gtsqa_passes`): the sample's answer set equals the gold answer set
(``all_answers_<kg>``; set EM, strings byte for byte), read from ``pred_answers_samples`` of
``kgbench predict --family gtsqa --samples K``. ``ngdbench`` (:func:`ngdbench_passes`): the
task's own correctness, as the report's ``correct`` verdict: NoAgg Jaccard 1 (the exact
answer set), Agg relative error 0 (the exact number), Boolean accuracy 1 (every candidate
judged right), management L_step 1 (every step's check right); samples are
``pred_cypher_samples`` (a management sample is its reply's JSON text, read as
``steps_cypher`` by :func:`kgbench.tasks.steps_of`). NGDBench tasks that are not
scored get no pass@k; its aggregate gets ``pass@k`` in each family block of ``overall`` and
``pass_at_k {samples, tasks, overall}`` over all scored tasks.
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
    *,
    key: str = "qid",
) -> None:
    """Set ``metrics["pass@k"]`` (k = 1..n) of each scored record from ``correct`` (the
    record's ``key`` field -> correct samples) and the means in ``aggregated["overall"]``."""
    from kgbench.evaluate.aggregate import mean4

    for rec in records:
        c = correct.get(str(rec[key]), 0)
        for k in range(1, n + 1):
            rec["metrics"][f"pass@{k}"] = pass_at_k(n, c, k)
    for k in range(1, n + 1):
        aggregated["overall"][f"pass@{k}"] = mean4([r["metrics"][f"pass@{k}"] for r in records])


def gtsqa_passes(gold: Sequence[Any], answers: Sequence[Any]) -> bool:
    """Whether one GTSQA sample is correct: its answer set equals the gold answer set (values
    as strings, compared byte for byte; module docstring)."""
    return {str(a) for a in answers} == {str(g) for g in gold}


def gtsqa_pass_at_k(evaluation: Any, predictions: str | Path, k: int) -> None:
    """pass@k of a GTSQA run (:class:`kgbench.evaluate.gtsqa.GtsqaEvaluation`): the answers
    of each prediction's ``k`` samples (``pred_answers_samples``, or ``pred_answers`` with
    ``k == 1``) against the record's ``gold_answers``; a task without a prediction passes
    none.

    Raises:
        InputError: a prediction with fewer than ``k`` samples or a sample that is not a list
            (file and record named)."""
    from kgbench.tasks import read_records

    samples: dict[str, list[Any]] = {}
    for where, rec in read_records(predictions):
        got = rec.get("pred_answers_samples")
        if got is None and k == 1:
            got = [rec.get("pred_answers", [])]
        if not isinstance(got, list) or len(got) < k:
            have = len(got) if isinstance(got, list) else 0
            raise InputError(
                f"{where}: --samples {k} needs {k} answer lists in 'pred_answers_samples', "
                f"has {have}"
            )
        if not all(isinstance(a, list) for a in got[:k]):
            raise InputError(f"{where}: field 'pred_answers_samples' must be a list of lists")
        samples[str(rec.get("id"))] = got[:k]
    correct = {
        str(r["id"]): sum(gtsqa_passes(r["gold_answers"], a) for a in samples.get(str(r["id"]), []))
        for r in evaluation.records
    }
    add_pass_at_k(evaluation.records, evaluation.aggregated, correct, k, key="id")


def ngdbench_passes(record: Mapping[str, Any]) -> bool | None:
    """Whether one scored NGDBench task record is correct (module docstring), None when it
    was not scored."""
    m = record.get("metrics")
    if record.get("status") != "scored" or not isinstance(m, Mapping):
        return None
    family = record.get("family")
    if family == "noagg":
        return m.get("jaccard") == 1.0
    if family == "agg":
        return m.get("y_pred") is not None and m.get("relative_error") == 0.0
    if family == "boolean":
        return m.get("accuracy") == 1.0
    return m.get("l_step") == 1.0


def ngdbench_pass_at_k(
    evaluation: Any,
    tasks: str | Path,
    predictions: str | Path,
    k: int,
    evaluate_kwargs: Mapping[str, Any],
) -> None:
    """pass@k of an NGDBench run (:class:`kgbench.evaluate.ngdbench.NgdbenchEvaluation`):
    ``evaluation`` scored sample 0; samples 1..k-1 of ``predictions``
    (``pred_cypher_samples``) are scored by :func:`kgbench.evaluate.ngdbench.evaluate_ngdbench`
    with ``evaluate_kwargs`` (the same gold, reader and management runner), then each scored
    record gets ``metrics["pass@k"]``, each family block of ``overall`` its mean and the
    aggregate ``pass_at_k`` (module docstring).

    Raises:
        InputError: a prediction with fewer than ``k`` samples (file and record named)."""
    from kgbench.evaluate.aggregate import mean4
    from kgbench.evaluate.ngdbench import evaluate_ngdbench
    from kgbench.tasks import read_records, steps_of

    raw = read_records(predictions)
    samples = read_samples(raw, "pred_cypher_samples", "pred_cypher", k)
    steps_n = {
        str(r["id"]): len(r.get("steps") or []) for r in evaluation.records if r.get("steps")
    }
    correct = {str(r["id"]): int(bool(ngdbench_passes(r))) for r in evaluation.records}
    with tempfile.TemporaryDirectory(prefix="kgbench-passk-") as tmp:
        for j in range(1, k):
            recs = []
            for (_w, r), s in zip(raw, samples, strict=True):
                qid = str(r.get("qid", r.get("index")))
                rec: dict[str, Any] = {"qid": qid, "family": r.get("family")}
                if r.get("family") == "management":
                    rec["steps_cypher"] = steps_of(s[j] or "", steps_n.get(qid, 0))
                else:
                    rec["pred_cypher"] = s[j] or ""
                recs.append(rec)
            path = Path(tmp) / f"sample_{j}.json"
            path.write_text(json.dumps(recs), encoding="utf-8")
            scored = evaluate_ngdbench(tasks, path, **evaluate_kwargs)
            for r in scored.records:
                correct[str(r["id"])] = correct.get(str(r["id"]), 0) + int(bool(ngdbench_passes(r)))
    done = [r for r in evaluation.records if r.get("status") == "scored"]
    for rec in done:
        c = correct.get(str(rec["id"]), 0)
        for i in range(1, k + 1):
            rec["metrics"][f"pass@{i}"] = pass_at_k(k, c, i)
    agg = evaluation.aggregated
    for family, block in agg["overall"].items():
        mine = [r for r in done if r.get("family") == family]
        if isinstance(block, dict):
            for i in range(1, k + 1):
                block[f"pass@{i}"] = (
                    mean4([r["metrics"][f"pass@{i}"] for r in mine]) if mine else None
                )
    agg["pass_at_k"] = {
        "samples": k,
        "tasks": len(done),
        "overall": {
            f"pass@{i}": mean4([r["metrics"][f"pass@{i}"] for r in done]) if done else None
            for i in range(1, k + 1)
        },
    }


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
    from kgbench.tasks import read_records

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
    from kgbench.tasks import read_records

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
