"""Stub of kgbench._core.evaluate (Rust: rust/kgbench-py/src/evaluate.rs).

Public, documented wrappers live in :mod:`kgbench.evaluate`.
"""

from collections.abc import Iterable, Sequence
from typing import Any

def canonical_key(value: Any) -> bytes: ...
def execution_accuracy(
    gold_rows: Iterable[Any],
    pred_rows: Iterable[Any],
    order_matters: bool,
    rel_tol: float | None = None,
) -> float: ...
def execution_accuracy_batch(
    gold_tables: Iterable[Iterable[Any]],
    pred_tables: Iterable[Iterable[Any]],
    order_matters: bool | Sequence[bool],
    rel_tol: float | None = None,
) -> bytes: ...
def order_matters(gold_cypher: str) -> bool: ...
def uninformative_reason(gold_rows: Iterable[Any]) -> str | None: ...
def score_files(
    gold: str, pred: str, out: str | None = None, rel_tol: float | None = None
) -> tuple[dict[str, Any], bytes]: ...
def ex_set(
    gold_rows: Iterable[Any],
    pred_rows: Iterable[Any],
    gold_columns: list[str],
    pred_columns: list[str],
) -> float: ...
def score_files_ex_set(
    gold: str, pred: str, out: str | None = None, rel_tol: float | None = None
) -> tuple[dict[str, Any], list[float]]: ...
def set_scores(gold: Iterable[Any], pred: Iterable[Any], bag: bool) -> dict[str, Any]: ...
def gtsqa_scores(
    gold_answers: Iterable[Any],
    pred_answers: Iterable[Any],
    gold_triples: list[tuple[str, str, str]],
    retrieved_triples: list[tuple[str, str, str]],
    answer_nodes: list[str],
    count_duplicates: bool = False,
) -> dict[str, Any]: ...
def gtsqa_scores_lenient(
    gold_labels: list[str],
    response: str,
    gold_triples: list[tuple[str, str, str]],
    retrieved_triples: list[tuple[str, str, str]],
    answer_nodes: list[str],
    empty_matches_all: bool = False,
    count_duplicates: bool = False,
) -> dict[str, Any]: ...
def lenient_match(
    response: str, gold_labels: list[str], empty_matches_all: bool = False
) -> dict[str, Any]: ...
def mdre(y: list[float], yhat: list[float]) -> float: ...
def msle(y: list[float], yhat: list[float]) -> float: ...
def smape(y: list[float], yhat: list[float]) -> float: ...
def mlre(y: list[float], yhat: list[float]) -> float: ...
def exact_match_rate(gold: Iterable[Any], pred: Iterable[Any]) -> float: ...
