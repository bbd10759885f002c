"""Scoring of query results and answers (SPEC.md §4).

* :mod:`kgbench.query.compare` — execution accuracy (EX) of one pair, a batch, or two
  JSONL result files (``kgbench score``), exact and deterministic, in Rust.
* :mod:`kgbench.evaluate.metrics` — answer-set precision / recall / F1 / Jaccard, GTSQA
  (strict or lenient EM Hits / Recall, ground-truth triples, answer nodes) and NGDBench
  (Jaccard, F1, Boolean accuracy, MdRE, MSLE, sMAPE, MLRE, L_step) metrics.
* :mod:`kgbench.evaluate.runner` — ``kgbench evaluate``: gold and predicted Cypher executed on
  Neo4j, EX / PSJS / Exec per task and CypherBench's aggregated metrics (SPEC.md §3–§4).
* :mod:`kgbench.evaluate.provenance` — provenance subgraph Jaccard similarity and executability.
* :mod:`kgbench.evaluate.aggregate`, :mod:`kgbench.tasks` — CypherBench's
  aggregation and task / prediction files.

Every public name is imported on first use (PEP 562), so ``kgbench score`` starts with
only the native module, and the pure comparison functions without the Neo4j driver.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "METRICS",
    "RETURN_PATTERN_MAPPING",
    "ConnectionLostError",
    "EvaluationResult",
    "Failure",
    "GraphTarget",
    "LenientMatch",
    "ScoreResult",
    "SetScores",
    "aggregate_metrics",
    "answer_set_scores",
    "boolean_accuracy",
    "canonical_key",
    "evaluate",
    "executable",
    "execution_accuracy",
    "execution_accuracy_batch",
    "gtsqa_scores",
    "jaccard",
    "lenient_match",
    "load_graph_targets",
    "load_predictions",
    "load_tasks",
    "mdre",
    "mlre",
    "msle",
    "ngdbench_f1",
    "ngdbench_jaccard",
    "order_matters",
    "parse_metrics",
    "provenance_subgraph",
    "psjs",
    "score_files",
    "smape",
    "step_accuracy",
    "uninformative_reason",
    "values_equal",
]

if TYPE_CHECKING:
    from kgbench.evaluate.aggregate import RETURN_PATTERN_MAPPING, aggregate_metrics
    from kgbench.evaluate.metrics import (
        LenientMatch,
        SetScores,
        answer_set_scores,
        boolean_accuracy,
        gtsqa_scores,
        lenient_match,
        mdre,
        mlre,
        msle,
        ngdbench_f1,
        ngdbench_jaccard,
        smape,
        step_accuracy,
    )
    from kgbench.evaluate.provenance import Failure, executable, jaccard, provenance_subgraph, psjs
    from kgbench.evaluate.runner import (
        METRICS,
        ConnectionLostError,
        EvaluationResult,
        GraphTarget,
        evaluate,
        load_graph_targets,
        parse_metrics,
    )
    from kgbench.query.compare import (
        ScoreResult,
        canonical_key,
        execution_accuracy,
        execution_accuracy_batch,
        order_matters,
        score_files,
        uninformative_reason,
        values_equal,
    )
    from kgbench.tasks import load_predictions, load_tasks

#: Lazily imported names -> the module that defines them.
_LAZY = {
    **dict.fromkeys(
        (
            "ScoreResult",
            "canonical_key",
            "execution_accuracy",
            "execution_accuracy_batch",
            "order_matters",
            "score_files",
            "uninformative_reason",
            "values_equal",
        ),
        "kgbench.query.compare",
    ),
    **dict.fromkeys(
        (
            "LenientMatch",
            "SetScores",
            "answer_set_scores",
            "boolean_accuracy",
            "gtsqa_scores",
            "lenient_match",
            "mdre",
            "mlre",
            "msle",
            "ngdbench_f1",
            "ngdbench_jaccard",
            "smape",
            "step_accuracy",
        ),
        "kgbench.evaluate.metrics",
    ),
    **dict.fromkeys(("RETURN_PATTERN_MAPPING", "aggregate_metrics"), "kgbench.evaluate.aggregate"),
    **dict.fromkeys(
        ("Failure", "executable", "jaccard", "provenance_subgraph", "psjs"),
        "kgbench.evaluate.provenance",
    ),
    **dict.fromkeys(
        (
            "METRICS",
            "ConnectionLostError",
            "EvaluationResult",
            "GraphTarget",
            "evaluate",
            "load_graph_targets",
            "parse_metrics",
        ),
        "kgbench.evaluate.runner",
    ),
    **dict.fromkeys(("load_predictions", "load_tasks"), "kgbench.tasks"),
}


def __getattr__(name: str) -> Any:
    """Import the public names on first access (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kgbench.evaluate' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
