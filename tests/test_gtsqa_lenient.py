"""GTSQA lenient EM and triple metrics (spec synthkgqa.md §5), with the worked example's
numbers: R = {t1, t2, t3, x} against T = full = {t1, t2, t5} scores P 0.5, R 0.667,
F1 0.571, answer-node Hits 1; "It is {Guitar}" scores lenient EM 1 against {guitar}."""

from __future__ import annotations

import re

import pytest

from kgbench.evaluate import LenientMatch, gtsqa_scores, lenient_match

YEHONATAN, LICKERISH = "Q2911403", "Q3720616"
T1 = (YEHONATAN, "P40", "Aviv")  # Yehonatan Geffen, child, Aviv Geffen
T2 = ("Aviv", "P1303", "guitar")  # Aviv, instrument, guitar
T3 = ("Aviv", "P1303", "piano")
T5 = (LICKERISH, "P1303", "guitar")  # Francis Lickerish, instrument, guitar
X = (YEHONATAN, "P27", "Q801")  # a retrieved triple outside the KG example
FULL = [T1, T2, T5]


def test_worked_example() -> None:
    s = gtsqa_scores(
        ["guitar"],
        "It is {Guitar}",
        FULL,
        [T1, T2, T3, X],
        ["guitar"],
        mode="lenient",
    )
    assert (s["hits"], s["recall"], s["empty_answer"]) == (1.0, 1.0, False)
    assert s["triple_precision"] == pytest.approx(0.5)
    assert s["triple_recall"] == pytest.approx(2 / 3)
    assert s["triple_f1"] == pytest.approx(4 / 7)
    assert [round(s[k], 3) for k in ("triple_precision", "triple_recall", "triple_f1")] == [
        0.5,
        0.667,
        0.571,
    ]
    assert (s["answer_node_hits"], s["answer_node_recall"], s["n_triples"]) == (1.0, 1.0, 4)
    # Strict set EM on the same response: the text is not the label.
    strict = gtsqa_scores(["guitar"], ["It is {Guitar}"], FULL, [T1, T2, T3, X], ["guitar"])
    assert (strict["hits"], strict["recall"]) == (0.0, 0.0)
    assert strict["triple_f1"] == s["triple_f1"]
    assert gtsqa_scores(["guitar"], ["guitar"])["hits"] == 1.0


def test_lenient_match_rules() -> None:
    m = lenient_match("It is {Guitar}", ["guitar", "Electric Guitar", "piano"])
    assert isinstance(m, LenientMatch)
    assert m.final_answer == "guitar"
    assert m.matched == (True, True, False)  # equal; f inside a; no match
    assert (m.hits, m.recall, m.empty_answer) == (1.0, pytest.approx(2 / 3), False)
    assert lenient_match("{the guitar}", ["Guitar"]).hits == 1.0  # a inside f
    # The last {...} counts; no newline inside braces; no braces: the whole response.
    assert lenient_match("{piano} or rather {Guitar}", ["guitar"]).final_answer == "guitar"
    assert lenient_match("{a\nb} {C}", ["c"]).final_answer == "c"
    assert lenient_match("  Guitar, I think ", ["guitar"]).final_answer == "guitar,ithink"
    # Recall counts the labels as listed (one per gold answer).
    assert lenient_match("{a}", ["A", "a", "b"]).recall == pytest.approx(2 / 3)


def test_yes_no() -> None:
    # A {yes} / {no} final answer is not extracted: f is the whole normalised response.
    y = lenient_match("The answer is {Yes}", ["yes"])
    assert (y.final_answer, y.hits) == ("theansweris{yes}", 1.0)
    n = lenient_match("{No}", ["yes"])
    assert (n.final_answer, n.hits) == ("{no}", 0.0)
    assert lenient_match("{No}", ["no"]).hits == 1.0


@pytest.mark.parametrize("response", ["", "   ", "{}", "It is { }"])
def test_empty_final_answer(response: str) -> None:
    default = lenient_match(response, ["guitar", "piano"])
    assert (default.hits, default.recall, default.empty_answer) == (0.0, 0.0, True)
    original = lenient_match(response, ["guitar", "piano"], empty_matches_all=True)
    assert (original.hits, original.recall, original.empty_answer) == (1.0, 1.0, True)
    s = gtsqa_scores(["guitar"], response, mode="lenient")
    assert (s["hits"], s["empty_answer"]) == (0.0, True)
    s = gtsqa_scores(["guitar"], response, mode="lenient", empty_matches_all=True)
    assert (s["hits"], s["empty_answer"]) == (1.0, True)


def test_empty_gold_label_and_no_labels() -> None:
    assert lenient_match("{piano}", [" "]).hits == 0.0
    assert lenient_match("{piano}", [" "], empty_matches_all=True).hits == 1.0
    none = lenient_match("{piano}", [])
    assert (none.hits, none.recall) == (0.0, 0.0)


def test_count_duplicates() -> None:
    retrieved = [T1, T1, ("Aviv", "P1303", "voice")]
    dedup = gtsqa_scores(["guitar"], ["guitar"], FULL, retrieved, ["guitar"])
    assert (dedup["n_triples"], dedup["triple_precision"]) == (2, 0.5)
    assert dedup["answer_node_hits"] == 0.0
    dup = gtsqa_scores(["guitar"], ["guitar"], FULL, retrieved, ["guitar"], count_duplicates=True)
    assert dup["n_triples"] == 3
    assert dup["triple_precision"] == pytest.approx(1 / 3)
    assert dup["triple_recall"] == dedup["triple_recall"] == pytest.approx(1 / 3)
    # No retrieved triples: precision 0; direction counts.
    assert gtsqa_scores(["g"], ["g"], FULL, [])["triple_precision"] == 0.0
    rev = gtsqa_scores(["g"], ["g"], FULL, [("guitar", "P1303", "Aviv")], ["guitar"])
    assert (rev["triple_precision"], rev["answer_node_hits"]) == (0.0, 1.0)


def test_argument_errors() -> None:
    with pytest.raises(TypeError, match="must be a str"):
        gtsqa_scores(["guitar"], ["guitar"], mode="lenient")
    with pytest.raises(TypeError, match="mode='lenient'"):
        gtsqa_scores(["guitar"], "guitar")
    with pytest.raises(ValueError, match=re.escape("mode must be 'strict' or 'lenient'")):
        gtsqa_scores(["guitar"], "guitar", mode="loose")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="gold labels must be str"):
        lenient_match("{x}", [1])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="single str"):
        lenient_match("{x}", "x")
