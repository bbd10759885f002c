"""Answer-set, GTSQA and NGDBench metric families (computed in Rust over the same value
model as EX: ``1 == 1.0``, lists unordered, maps by key — see :mod:`kgbench.query.compare`).

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
from typing import Any, Literal

from kgbench._core import evaluate as _core

__all__ = [
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


@dataclass(frozen=True)
class LenientMatch:
    """GTSQA's lenient answer matching of one response (spec synthkgqa.md §5 EM): the
    normalised final answer ``final_answer`` (f), which gold labels it ``matched`` (in the
    order given), ``hits`` (1.0 if any), ``recall`` (fraction of the labels as listed, 0.0
    without labels) and ``empty_answer`` (f is empty)."""

    hits: float
    recall: float
    matched: tuple[bool, ...]
    empty_answer: bool
    final_answer: str


def lenient_match(
    response: str, gold_labels: Iterable[str], *, empty_matches_all: bool = False
) -> LenientMatch:
    """GTSQA's lenient EM of a free-text ``response`` against the gold answer labels (spec
    synthkgqa.md §5; the original's ``exact_match`` in ``synth_kgqa/eval.py`` and the
    analysis notebook).

    * s = the response with leading/trailing whitespace stripped, every space removed,
      lowercased; f = the content of the last ``{…}`` of s (no newline inside), unless that
      is ``yes`` or ``no`` or there is none, in which case f = s;
    * each gold label a is normalised the same way and matches if ``f == a``, a is a
      substring of f, or f is a substring of a;
    * ``hits``: some label matched; ``recall``: the fraction of labels matched, counting
      labels as listed (one per gold answer, as the original does).

    The original lets an empty f (an empty response, ``{}``) — and an empty gold label —
    match everything. By default kgbench matches neither and sets ``empty_answer``;
    ``empty_matches_all=True`` restores the original behaviour (``empty_answer`` is still
    reported). Computed in Rust (``kgbench_core::evaluate::metrics::lenient_match``).
    """
    if not isinstance(response, str):
        raise TypeError(f"response must be a str, got {type(response).__name__}")
    d = _core.lenient_match(response, _labels(gold_labels), empty_matches_all)
    return LenientMatch(
        hits=d["hits"],
        recall=d["recall"],
        matched=tuple(d["matched"]),
        empty_answer=d["empty_answer"],
        final_answer=d["final_answer"],
    )


def gtsqa_scores(
    gold_answers: Iterable[Any],
    pred_answers: Iterable[Any] | str,
    gold_triples: Iterable[Sequence[str]] = (),
    retrieved_triples: Iterable[Sequence[str]] = (),
    answer_nodes: Iterable[str] = (),
    *,
    mode: Literal["strict", "lenient"] = "strict",
    empty_matches_all: bool = False,
    count_duplicates: bool = False,
) -> dict[str, Any]:
    """GTSQA metrics of one question (seed synthkgqa-gtsqa.txt §5.1 and Table 2; spec
    synthkgqa.md §5).

    * ``hits`` (EM Hits) and ``recall`` (EM Recall), by ``mode``:

      - ``"strict"`` (default): set EM. ``pred_answers`` are answer values; ``hits`` is 1.0
        if at least one gold answer is exactly among them, ``recall`` the fraction of
        distinct gold answers predicted. Exact match uses the EX value model (strings
        compare byte for byte — no case folding).
      - ``"lenient"``: the original's lenient matching (:func:`lenient_match`).
        ``pred_answers`` is the model's free-text response (a ``str``) and ``gold_answers``
        the gold answer labels (labels of ``all_answers_<retrieval kg>``).
        ``empty_matches_all=True`` lets an empty final answer match everything, as the
        original does; by default it matches nothing.

    * ``empty_answer``: no answer was given (strict: ``pred_answers`` is empty; lenient:
      the final answer f is empty). Sum it over questions to count them.
    * ``triple_recall`` = ``|T∩R|/|T|``, ``triple_precision`` = ``|T∩R|/|R|`` (0 when R is
      empty), ``triple_f1``: T = ``gold_triples`` (the gold *full* answer subgraph
      ``full_answer_subgraph_<kg>``, not G) against R = ``retrieved_triples``,
      ``(head, relation, tail)``, exact and directed. R is deduplicated; with
      ``count_duplicates=True`` repeated retrieved triples count in ``|R|`` (precision's
      denominator and ``n_triples``), as the original code does.
    * ``answer_node_hits`` / ``answer_node_recall``: whether / which fraction of the gold
      answer node ids (``answer_nodes``) are a head or tail of a retrieved triple.
    * ``n_triples``: ``|R|`` (Table 2 "# triples").

    Average over questions (and tries, runs), ×100 for the paper's figures; the original
    skips the triple and answer-node scores of items without retrieval records. Empty-set
    conventions: module docstring (with T and R both empty precision and recall are 1).
    """
    golds = [_triple(t) for t in gold_triples]
    retrieved = [_triple(t) for t in retrieved_triples]
    nodes = [str(n) for n in answer_nodes]
    if mode == "strict":
        if isinstance(pred_answers, str):
            raise TypeError(
                "mode='strict' takes a collection of predicted answers, got a str "
                "(use mode='lenient' to score a free-text response)"
            )
        return dict(
            _core.gtsqa_scores(
                list(gold_answers), list(pred_answers), golds, retrieved, nodes, count_duplicates
            )
        )
    if mode == "lenient":
        if not isinstance(pred_answers, str):
            raise TypeError(
                "mode='lenient' scores the free-text response: pred_answers must be a str, "
                f"got {type(pred_answers).__name__}"
            )
        return dict(
            _core.gtsqa_scores_lenient(
                _labels(gold_answers),
                pred_answers,
                golds,
                retrieved,
                nodes,
                empty_matches_all,
                count_duplicates,
            )
        )
    raise ValueError(f"mode must be 'strict' or 'lenient', got {mode!r}")


def _labels(labels: Iterable[str]) -> list[str]:
    if isinstance(labels, str):
        raise TypeError("gold labels must be a collection of str, got a single str")
    out = []
    for label in labels:
        if not isinstance(label, str):
            raise TypeError(f"gold labels must be str, got {type(label).__name__}")
        out.append(label)
    return out


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
