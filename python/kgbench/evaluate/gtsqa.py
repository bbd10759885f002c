"""Scoring of GTSQA predictions (``kgbench evaluate --family gtsqa``; spec ``synthkgqa.md`` §5,
seed synthkgqa-gtsqa.txt §5.1 and Table 2) with :func:`kgbench.evaluate.metrics.gtsqa_scores`
in strict mode (set EM on answer ids).

**Tasks**: GTSQA records (``id``, ``all_answers_<kg>``, ``full_answer_subgraph_<kg>``); the
KG suffix is ``kg`` or, when not given, the first of ``wikidata``, ``wikikg2``, ``neo4j`` whose
``all_answers_<kg>`` the first record has. **Predictions** (JSON array or JSON Lines), matched
by ``id``: ``{id, pred_answers: [id], retrieved_triples: [[h, r, t]]}`` (as ``kgbench predict
--family gtsqa`` writes them; other fields are kept). A task without a prediction scores 0
with no retrieval (counted as ``missing_predictions``).

Per task (the record with ``metrics``): ``hits``, ``recall``, ``empty_answer``,
``triple_recall``, ``triple_precision``, ``triple_f1``, ``answer_node_hits``,
``answer_node_recall``, ``n_triples`` (gold T = ``full_answer_subgraph_<kg>``, R =
``retrieved_triples``, answer nodes = ``all_answers_<kg>``). ``aggregated_metrics.json``:
``{kg, overall: {metric: mean over tasks}, counts: {tasks, missing_predictions,
execution_errors}}``; the means are fractions (×100 for the paper's figures). With sampled
predictions (``kgbench evaluate --samples K``), :func:`kgbench.evaluate.passk.gtsqa_pass_at_k`
adds ``pass@k`` (k ≤ K) to each record's metrics and to ``overall``; a sample passes when its
answer set equals the gold one (metrics.md §11).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from kgbench.errors import InputError
from kgbench.evaluate.outputs import Evaluation

#: Metrics averaged in ``overall``, in report order.
METRICS = (
    "hits",
    "recall",
    "empty_answer",
    "triple_recall",
    "triple_precision",
    "triple_f1",
    "answer_node_hits",
    "answer_node_recall",
    "n_triples",
)

_KGS = ("wikidata", "wikikg2", "neo4j")


@dataclass
class GtsqaEvaluation(Evaluation):
    """Per-task records with ``metrics`` and the aggregate."""

    family: str = field(default="gtsqa", kw_only=True)
    TURN_METRIC: ClassVar[str | None] = "hits"

    def table(self) -> str:
        """The overall means as a two-column table (×100 but ``n_triples``)."""
        o = self.aggregated["overall"]
        lines = [f"GTSQA ({self.aggregated['counts']['tasks']} tasks, kg {self.aggregated['kg']})"]
        for m in METRICS:
            v = o[m]
            lines.append(f"{m:<20}{v:.2f}" if m == "n_triples" else f"{m:<20}{100 * v:.2f}")
        for k, v in o.items():
            if k.startswith("pass@"):
                lines.append(f"{k:<20}{100 * v:.2f}")
        return "\n".join(lines)


def _kg_of(where: str, rec: Mapping[str, Any], kg: str | None) -> str:
    if kg is not None:
        return kg
    for name in _KGS:
        if f"all_answers_{name}" in rec:
            return name
    raise InputError(f"{where}: no all_answers_<kg> field (wikidata, wikikg2 or neo4j)")


def evaluate_gtsqa(
    tasks: str | Path, predictions: str | Path, *, kg: str | None = None
) -> GtsqaEvaluation:
    """Score GTSQA predictions (module docstring).

    Raises:
        InputError: unreadable files, a task without ``all_answers_<kg>`` /
            ``full_answer_subgraph_<kg>``, a prediction without ``id``, for an unknown id or
            duplicated, or with ``pred_answers`` / ``retrieved_triples`` of the wrong shape
            (file and record named)."""
    from kgbench.evaluate.metrics import gtsqa_scores
    from kgbench.tasks import read_records

    task_recs = read_records(tasks)
    if not task_recs:
        raise InputError(f"{tasks}: no tasks")
    name = _kg_of(task_recs[0][0], task_recs[0][1], kg)
    ids: dict[str, str] = {}
    for i, (where, rec) in enumerate(task_recs):
        tid = str(rec.get("id", i))
        if tid in ids:
            raise InputError(f"{where}: duplicate id {tid!r} (first at {ids[tid]})")
        ids[tid] = where
        for key in (f"all_answers_{name}", f"full_answer_subgraph_{name}"):
            if not isinstance(rec.get(key), list):
                raise InputError(f"{where}: field {key!r} must be a list")
    preds: dict[str, tuple[str, dict[str, Any]]] = {}
    for where, rec in read_records(predictions):
        pid = rec.get("id")
        if isinstance(pid, bool) or not isinstance(pid, (str, int)):
            raise InputError(f"{where}: a prediction needs 'id', got {pid!r}")
        key = str(pid)
        if key not in ids:
            raise InputError(f"{where}: prediction for unknown task id {key!r}")
        if key in preds:
            raise InputError(f"{where}: duplicate prediction for id {key!r}")
        answers = rec.get("pred_answers", [])
        triples = rec.get("retrieved_triples", [])
        if not isinstance(answers, list):
            raise InputError(f"{where}: field 'pred_answers' must be a list")
        if not isinstance(triples, list) or not all(
            isinstance(t, list) and len(t) == 3 for t in triples
        ):
            raise InputError(f"{where}: field 'retrieved_triples' must be a list of [h, r, t]")
        preds[key] = (where, rec)
    out: list[dict[str, Any]] = []
    missing = errors = 0
    for i, (_, task) in enumerate(task_recs):
        tid = str(task.get("id", i))
        pred = preds.get(tid, (None, None))[1]
        if pred is None:
            missing += 1
            pred = {}
        if pred.get("error"):
            errors += 1
        gold = task[f"all_answers_{name}"]
        scores = gtsqa_scores(
            gold,
            [str(a) for a in pred.get("pred_answers", [])],
            task[f"full_answer_subgraph_{name}"],
            pred.get("retrieved_triples", []),
            [str(a) for a in gold],
        )
        out.append(
            {
                "id": tid,
                "question": task.get("question"),
                "gold_answers": gold,
                "prediction": pred or None,
                "metrics": {m: scores[m] for m in METRICS},
            }
        )
    overall = {m: _mean([float(r["metrics"][m]) for r in out]) for m in METRICS}
    agg = {
        "kg": name,
        "overall": overall,
        "counts": {"tasks": len(out), "missing_predictions": missing, "execution_errors": errors},
    }
    return GtsqaEvaluation(out, agg)


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0
