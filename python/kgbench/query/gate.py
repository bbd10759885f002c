"""The prediction gate: why a predicted Cypher query is not sent to the server at all.

Evaluation (:mod:`kgbench.evaluate.provenance`) and the repair rounds of model runs
(:mod:`kgbench.predict.repair`) both refuse, before anything is sent: no prediction, an empty
one, and a query with write clauses (the parser-based read-only gate, SPEC.md §5: evaluation
never writes to a user's database; the session is READ mode as well).
"""

from __future__ import annotations

from dataclasses import dataclass

from kgbench._core import cypher as _cypher

__all__ = [
    "EMPTY_PREDICTION",
    "MISSING_PREDICTION",
    "WRITE_QUERY",
    "Failure",
    "prediction_failure",
]

#: No prediction for the task's qid.
MISSING_PREDICTION = "missing"
#: The prediction is empty or blank.
EMPTY_PREDICTION = "empty"
#: The prediction has write clauses (not sent to Neo4j); same class as the executor's.
WRITE_QUERY = "write"


@dataclass(frozen=True)
class Failure:
    """Why a metric scored 0: an error class and a one-line message."""

    error_class: str
    error: str

    def as_dict(self) -> dict[str, str]:
        """``{"error_class": ..., "error": ...}`` for JSON output."""
        return {"error_class": self.error_class, "error": self.error}


def prediction_failure(pred: str | None, dialect: str = "5") -> Failure | None:
    """The reason a prediction cannot be run at all, or ``None``.

    ``None``/missing -> :data:`MISSING_PREDICTION`; blank -> :data:`EMPTY_PREDICTION`;
    a write query (for a server speaking Cypher ``dialect``, ``"5"`` or ``"25"``) ->
    :data:`WRITE_QUERY` (message lists the write clauses, from the Rust Cypher front end).
    """
    if pred is None:
        return Failure(MISSING_PREDICTION, "no prediction for this qid")
    if not pred.strip():
        return Failure(EMPTY_PREDICTION, "the predicted query is empty")
    clauses = _cypher.write_clauses(pred, dialect)
    if clauses:
        return Failure(WRITE_QUERY, "write clauses not allowed: " + ", ".join(clauses))
    return None
