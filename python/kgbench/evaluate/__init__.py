"""Scoring of query results and answers (SPEC.md §4).

* :mod:`kgbench.evaluate.compare` — execution accuracy (EX) of one pair, a batch, or two
  JSONL result files (``kgbench score``), exact and deterministic, in Rust.
* :mod:`kgbench.evaluate.metrics` — answer-set precision / recall / F1 / Jaccard, GTSQA
  (EM Hits / Recall, ground-truth triples, answer nodes) and NGDBench (Jaccard, F1, Boolean
  accuracy, MdRE, MSLE, sMAPE, MLRE, L_step) metrics.
"""

from kgbench.evaluate.compare import (
    ScoreResult,
    canonical_key,
    execution_accuracy,
    execution_accuracy_batch,
    order_matters,
    score_files,
    values_equal,
)
from kgbench.evaluate.metrics import (
    SetScores,
    answer_set_scores,
    boolean_accuracy,
    gtsqa_scores,
    mdre,
    mlre,
    msle,
    ngdbench_f1,
    ngdbench_jaccard,
    smape,
    step_accuracy,
)

__all__ = [
    "ScoreResult",
    "SetScores",
    "answer_set_scores",
    "boolean_accuracy",
    "canonical_key",
    "execution_accuracy",
    "execution_accuracy_batch",
    "gtsqa_scores",
    "mdre",
    "mlre",
    "msle",
    "ngdbench_f1",
    "ngdbench_jaccard",
    "order_matters",
    "score_files",
    "smape",
    "step_accuracy",
    "values_equal",
]
