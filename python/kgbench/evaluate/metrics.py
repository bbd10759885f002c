"""Answer-set, GTSQA and NGDBench metric families (computed in Rust over the same value
model as EX: ``1 == 1.0``, lists unordered, maps by key — see :mod:`kgbench.evaluate.compare`).

Conventions where the papers are silent (SPEC.md §4 asks kgbench to document them):

* empty collections: precision is 1 when nothing is predicted and nothing is expected, 0
  when nothing is predicted but something is expected; recall likewise with roles swapped;
  F1 is 0 when precision + recall is 0; the Jaccard similarity of two empty sets is 1;
* MdRE uses ``|ŷ−y| / |y|`` (absolute value, so negative ``y`` works) and ``ε = 1e-6`` as the
  denominator when ``y = 0`` (the paper: "a small ε is typically added");
* MSLE and MLRE use the odd extensions ``sign(v)·ln(1+|v|)`` and ``sign(v)·ln(1+|v|/ε)``,
  equal to the paper's formulas for non-negative values and defined for negative ones;
* sMAPE is a fraction in [0, 2] (SPEC.md §4), a term with ``ŷ = y = 0`` is 0;
* the numeric metrics raise ``InputError`` for empty input, unequal lengths or non-finite
  values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kgbench._core import evaluate as _core

__all__ = [
    "SetScores",
    "answer_set_scores",
    "boolean_accuracy",
    "gtsqa_scores",
    "mdre",
    "mlre",
    "msle",
    "ngdbench_f1",
    "ngdbench_jaccard",
    "smape",
    "step_accuracy",
]

Triple = tuple[str, str, str]


@dataclass(frozen=True)
class SetScores:
    """Precision, recall, F1 and Jaccard of a predicted answer collection, with the sizes
    used (``n_common``: intersection; sizes count distinct values for sets, all values for
    bags)."""

    precision: float
    recall: float
    f1: float
    jaccard: float
    n_common: int
    n_gold: int
    n_pred: int


def answer_set_scores(gold: Iterable[Any], pred: Iterable[Any], *, bag: bool = False) -> SetScores:
    """Precision / recall / F1 / Jaccard of predicted answers against gold answers.

    ``bag=False`` (set semantics; duplicates ignored) is NGDBench Appendix C.1 eqs. 5–7;
    ``bag=True`` counts duplicates (intersection = sum of minimum counts, union = sum of
    maximum counts). Values follow the EX value model. Empty-set conventions: module
    docstring. Raises ``TypeError`` for values outside the model.
    """
    d = _core.set_scores(list(gold), list(pred), bag)
    return SetScores(**d)


def ngdbench_jaccard(gold: Iterable[Any], pred: Iterable[Any]) -> float:
    """NGDBench Jaccard similarity ``|y ∩ ŷ| / |y ∪ ŷ|`` of answer sets (seed ngdbench.txt,
    Appendix C.1 eq. 5); 1.0 for two empty sets."""
    return answer_set_scores(gold, pred).jaccard


def ngdbench_f1(gold: Iterable[Any], pred: Iterable[Any]) -> float:
    """NGDBench F1 of answer sets (seed ngdbench.txt, Appendix C.1 eqs. 6–7)."""
    return answer_set_scores(gold, pred).f1


def gtsqa_scores(
    gold_answers: Iterable[Any],
    pred_answers: Iterable[Any],
    gold_triples: Iterable[Sequence[str]] = (),
    retrieved_triples: Iterable[Sequence[str]] = (),
    answer_nodes: Iterable[str] = (),
) -> dict[str, float]:
    """GTSQA metrics of one question (seed synthkgqa-gtsqa.txt §5.1 and Table 2).

    * ``hits`` (EM Hits): 1.0 if at least one gold answer label is exactly among the
      predicted answers; ``recall`` (EM Recall): fraction of distinct gold answers predicted.
      Exact match uses the EX value model (strings compare byte for byte — no case folding).
    * ``triple_recall`` / ``triple_precision`` / ``triple_f1``: ground-truth triples
      ``(head, relation, tail)`` against the distinct retrieved triples (sets).
    * ``answer_node_hits`` / ``answer_node_recall``: whether / which fraction of the gold
      answer node ids are nodes (head or tail) of the retrieved triples.
    * ``n_triples``: number of distinct retrieved triples (Table 2 "# triples").

    Average over questions for the dataset figures. Empty-set conventions: module
    docstring (without retrieved triples precision is 0).
    """
    return dict(
        _core.gtsqa_scores(
            list(gold_answers),
            list(pred_answers),
            [_triple(t) for t in gold_triples],
            [_triple(t) for t in retrieved_triples],
            [str(n) for n in answer_nodes],
        )
    )


def _triple(t: Sequence[str]) -> Triple:
    if len(t) != 3:
        raise ValueError(f"a triple has 3 elements (head, relation, tail), got {t!r}")
    return (str(t[0]), str(t[1]), str(t[2]))


def _floats(v: Iterable[float]) -> list[float]:
    return [float(x) for x in v]


def mdre(y: Iterable[float], yhat: Iterable[float]) -> float:
    """Median relative error ``median(|ŷ−y| / |y|)`` (seed ngdbench.txt Appendix C.3 eq. 9);
    ``ε = 1e-6`` replaces ``|y|`` when ``y = 0``. Raises ``InputError`` for empty input,
    unequal lengths or non-finite values."""
    return _core.mdre(_floats(y), _floats(yhat))


def msle(y: Iterable[float], yhat: Iterable[float]) -> float:
    """Mean squared logarithmic error ``mean((ln(1+ŷ) − ln(1+y))²)`` (Appendix C.3 eq. 10),
    with ``sign(v)·ln(1+|v|)`` for negative values. Raises like :func:`mdre`."""
    return _core.msle(_floats(y), _floats(yhat))


def smape(y: Iterable[float], yhat: Iterable[float]) -> float:
    """Symmetric mean absolute percentage error as a fraction in [0, 2]:
    ``mean(|ŷ−y| / ((|ŷ|+|y|)/2))`` (Appendix C.3 eq. 11 without the 100 % factor, SPEC.md
    §4); a term with ``ŷ = y = 0`` is 0. Raises like :func:`mdre`."""
    return _core.smape(_floats(y), _floats(yhat))


def mlre(y: Iterable[float], yhat: Iterable[float]) -> float:
    """Mean log relative error ``mean(|ln((ŷ+ε)/(y+ε))|)``, ``ε = 1e-6`` (Appendix C.3
    eq. 12), computed as ``|g(ŷ) − g(y)|`` with ``g(v) = sign(v)·ln(1+|v|/ε)`` — identical
    for non-negative values, defined for negative ones. Raises like :func:`mdre`."""
    return _core.mlre(_floats(y), _floats(yhat))


def boolean_accuracy(gold: Iterable[Any], pred: Iterable[Any]) -> float:
    """NGDBench Boolean-query accuracy ``mean(1[ŷ_i = y_i])`` (Appendix C.2 eq. 8). Values
    follow the EX value model (``True != 1``; a missing answer ``None`` is wrong). Raises
    ``InputError`` for empty input or unequal lengths."""
    return _core.exact_match_rate(list(gold), list(pred))


def step_accuracy(gold_steps: Iterable[Any], pred_steps: Iterable[Any]) -> float:
    """NGDBench step-wise exact match ``L_step = (1/T) Σ_t 1[â_t = a_t]`` over the validation
    answers of a management trajectory (seed ngdbench.txt §4, eq. 4). Answers follow the EX
    value model (lists unordered, ``1 == 1.0``). Raises like :func:`boolean_accuracy`."""
    return _core.exact_match_rate(list(gold_steps), list(pred_steps))
