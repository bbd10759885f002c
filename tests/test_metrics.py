"""Answer-set, GTSQA and NGDBench metrics against hand-computed values."""

from __future__ import annotations

import math

import pytest

from kgbench.errors import InputError
from kgbench.evaluate import (
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


def test_answer_sets() -> None:
    s = answer_set_scores(["Paris", "Lyon", "Nice"], ["Lyon", "Nice", "Metz", "Metz"])
    # sets: common {Lyon, Nice} = 2, gold 3, pred 3 distinct, union 4
    assert (s.n_common, s.n_gold, s.n_pred) == (2, 3, 3)
    assert s.precision == pytest.approx(2 / 3)
    assert s.recall == pytest.approx(2 / 3)
    assert s.f1 == pytest.approx(2 / 3)
    assert s.jaccard == pytest.approx(0.5)
    b = answer_set_scores(["a", "a", "b"], ["a", "b", "b", "c"], bag=True)
    # bags: common min counts a1 + b1 = 2; union max counts a2 + b2 + c1 = 5
    assert (b.n_common, b.n_gold, b.n_pred) == (2, 3, 4)
    assert b.precision == pytest.approx(0.5)
    assert b.recall == pytest.approx(2 / 3)
    assert b.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert b.jaccard == pytest.approx(0.4)
    # value model: 1 == 1.0, lists unordered
    assert answer_set_scores([1, [2, 3]], [1.0, [3, 2]]).jaccard == 1.0


def test_answer_set_edge_cases() -> None:
    e = answer_set_scores([], [])
    assert (e.precision, e.recall, e.f1, e.jaccard) == (1.0, 1.0, 1.0, 1.0)
    e = answer_set_scores(["a"], [])
    assert (e.precision, e.recall, e.f1, e.jaccard) == (0.0, 0.0, 0.0, 0.0)
    e = answer_set_scores([], ["a"])
    assert (e.precision, e.recall, e.f1, e.jaccard) == (0.0, 0.0, 0.0, 0.0)
    assert ngdbench_jaccard([1, 2], [2, 3]) == pytest.approx(1 / 3)
    assert ngdbench_f1([1, 2], [2, 3]) == pytest.approx(0.5)


def test_gtsqa() -> None:
    s = gtsqa_scores(
        gold_answers=["Germany", "Austria"],
        pred_answers=["Germany", "France"],
        gold_triples=[("Q1", "P69", "Q2"), ("Q2", "P17", "Q183")],
        retrieved_triples=[
            ("Q1", "P69", "Q2"),
            ("Q1", "P27", "Q183"),
            ("Q9", "P31", "Q5"),
            ("Q1", "P69", "Q2"),  # duplicate: counted once
        ],
        answer_nodes=["Q183", "Q40"],
    )
    assert s["hits"] == 1.0
    assert s["recall"] == pytest.approx(0.5)
    assert s["n_triples"] == 3
    assert s["triple_recall"] == pytest.approx(0.5)  # 1 of 2 ground-truth triples
    assert s["triple_precision"] == pytest.approx(1 / 3)  # 1 of 3 retrieved
    assert s["triple_f1"] == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))
    assert s["answer_node_hits"] == 1.0  # Q183 is a tail of a retrieved triple
    assert s["answer_node_recall"] == pytest.approx(0.5)
    miss = gtsqa_scores(["Germany"], ["germany"])  # exact match: case counts
    assert (miss["hits"], miss["recall"]) == (0.0, 0.0)
    assert miss["triple_precision"] == 1.0 and miss["n_triples"] == 0  # nothing either side
    with pytest.raises(ValueError, match="3 elements"):
        gtsqa_scores(["a"], ["a"], [("x", "y")])


def test_ngdbench_numeric() -> None:
    y = [10.0, 4.0, 0.0, -2.0]
    yhat = [12.0, 2.0, 0.0, -3.0]
    # relative errors 0.2, 0.5, 0 (0/eps), 0.5 -> median of [0, 0.2, 0.5, 0.5] = 0.35
    assert mdre(y, yhat) == pytest.approx(0.35)
    assert mdre([0.0], [1e-6]) == pytest.approx(1.0)  # y = 0: denominator eps
    # sMAPE terms: 2/11, 2/3, 0 (both zero), 1/2.5 -> mean
    assert smape(y, yhat) == pytest.approx((2 / 11 + 2 / 3 + 0 + 0.4) / 4)
    assert smape([1.0], [-1.0]) == pytest.approx(2.0)  # upper bound
    # MSLE: (ln 13 - ln 11)^2, (ln 3 - ln 5)^2, 0, (ln 4 - ln 3)^2 (odd extension)
    expected = (
        (math.log(13) - math.log(11)) ** 2
        + (math.log(3) - math.log(5)) ** 2
        + 0
        + (math.log(4) - math.log(3)) ** 2
    ) / 4
    assert msle(y, yhat) == pytest.approx(expected)
    eps = 1e-6
    assert mlre([1.0, 100.0], [2.0, 100.0]) == pytest.approx(
        abs(math.log((2 + eps) / (1 + eps))) / 2
    )
    # twice vs half the truth: same error
    assert mlre([4.0], [8.0]) == pytest.approx(mlre([4.0], [2.0]), rel=1e-6)
    assert mlre([0.0], [0.0]) == 0.0
    assert mlre([-3.0], [-3.0]) == 0.0


def test_numeric_errors() -> None:
    with pytest.raises(InputError, match="no values"):
        mdre([], [])
    with pytest.raises(InputError, match="gold has 1 values but predictions have 2"):
        smape([1.0], [1.0, 2.0])
    with pytest.raises(InputError, match="index 1 is not finite"):
        msle([1.0, 2.0], [1.0, float("nan")])


def test_boolean_and_steps() -> None:
    assert boolean_accuracy([True, False, True, False], [True, True, True, None]) == 0.5
    assert boolean_accuracy([True], [1]) == 0.0  # booleans are not numbers
    assert step_accuracy([3, ["a", "b"], 5, None, 2], [3.0, ["b", "a"], 4, None, 7]) == 0.6
    with pytest.raises(InputError):
        step_accuracy([1, 2], [1])
