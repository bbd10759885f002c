"""SynthKGQA's dedup, circularity flag and train/test split (spec synthkgqa.md §3.4, §3.5;
:mod:`kgbench.generate.synth.split`): each rule on hand-made items, and the invariants on
real template items from the WD50K Wikidata dump."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from kgbench.errors import InputError
from kgbench.generate.synth.split import (
    HELD_OUT_TYPES,
    IN_DISTRIBUTION_TYPES,
    assign_splits,
    circular,
    dedup,
)

TEST_CATEGORIES = {"in_distribution", "unseen_graph_type", "unseen_relation_type"}


def _item(
    ident: Any,
    gtype: str = "(1)",
    rels: tuple[str, ...] = ("P1",),
    answer: str = "",
    *,
    redundant: bool = False,
    answers: list[str] | None = None,
    seeds: list[str] | None = None,
    question: str = "Which entity?",
) -> dict[str, Any]:
    """An item whose G is a star of ``rels`` edges from seeds to the answer (the type is
    given, not derived: the split only reads ``graph_isomorphism``)."""
    answer = answer or f"Qa{ident}"
    seeds = seeds or [f"Qs{ident}_{j}" for j in range(len(rels))]
    triples = [
        [f"s ({s})", f"r ({r})", f"ans ({answer})"] for s, r in zip(seeds, rels, strict=True)
    ]
    return {
        "id": ident,
        "question": question,
        "paraphrased_question": None,
        "seed_entities": [f"seed {s} ({s})" for s in seeds],
        "answer_node": f"answer {answer} ({answer})",
        "answer_subgraph": triples,
        "all_answers_wikidata": answers if answers is not None else [answer],
        "n_hops": 1,
        "graph_isomorphism": gtype,
        "redundant": redundant,
        "test_type": ["training"],
    }


def _background(n: int = 20) -> list[dict[str, Any]]:
    """Train-only filler making P1 the most frequent relation."""
    return [_item(f"bg{i:03d}", "(2)(1)(1)", ("P1",)) for i in range(n)]


def _split(items: list[dict[str, Any]], **kw: Any) -> tuple[dict[Any, list[str]], dict[str, Any]]:
    kw.setdefault("seed", 7)
    kw.setdefault("n_train_relations", 1)
    out, report = assign_splits(items, **kw)
    return {i["id"]: i["test_type"] for i in out}, report


# ---- dedup and circular (spec §3.4) ----


def test_dedup_keeps_the_lowest_id() -> None:
    a = _item("synth_10", "(1)(1)", ("P1", "P2"), "Q9", seeds=["Q1", "Q2"])
    # same seed set, answer and G, in another order and with other labels
    b = _item("synth_9", "(1)(1)", ("P2", "P1"), "Q9", seeds=["Q2", "Q1"])
    b["seed_entities"] = ["other label (Q2)", "x (Q1)"]
    c = _item("synth_11", "(1)(1)", ("P1", "P2"), "Q9", seeds=["Q1", "Q2"])
    other = _item("synth_1", "(1)(1)", ("P1", "P3"), "Q9", seeds=["Q1", "Q2"])
    kept, dropped = dedup([a, b, c, other])
    # natural order: synth_9 < synth_10 < synth_11
    assert [i["id"] for i in kept] == ["synth_9", "synth_1"]
    assert dropped == ["synth_10", "synth_11"]
    # integer ids compare as numbers
    kept, dropped = dedup(
        [_item(10, answer="Q5", seeds=["Q1"]), _item(9, answer="Q5", seeds=["Q1"])]
    )
    assert [i["id"] for i in kept] == [9] and dropped == [10]
    with pytest.raises(InputError, match="answer_node"):
        dedup([{"id": 1, "seed_entities": [], "answer_subgraph": []}])


def test_circular_flag() -> None:
    def item(question: str, answer: str, seeds: list[str], para: str | None = None) -> dict:
        return {
            "question": question,
            "paraphrased_question": para,
            "answer_node": f"{answer} (Q1)",
            "seed_entities": [f"{s} (Q{i + 2})" for i, s in enumerate(seeds)],
        }

    assert circular(item("Which city is the capital of France? Paris?", "Paris", ["France"]))
    assert circular(item("which CITY borders x?", "city", ["x"]))  # case-insensitive
    # only inside a seed label
    assert not circular(item("Who is the father of Paris Hilton?", "Paris", ["Paris Hilton"]))
    # inside a seed label and outside it
    assert circular(item("Is Paris the birthplace of Paris Hilton?", "Paris", ["Paris Hilton"]))
    # not a whole word
    assert not circular(item("Which human wrote it?", "man", ["it"]))
    # the answer label contains a seed label: the occurrence is not covered by the seed's
    assert circular(item("Who is Paris Hilton's sister, Paris Hilton?", "Paris Hilton", ["Paris"]))
    # the paraphrase counts too
    assert circular(item("Which entity?", "Oslo", ["Norway"], para="Oslo is the capital of?"))
    assert not circular(item("Which entity?", "Oslo", ["Norway"]))


# ---- split rules (spec §3.5) ----


def test_held_out_type_is_ugt_and_test_only_relation_is_urt() -> None:
    items = [
        *_background(),
        _item("ugt", "(4)", ("P1",)),
        _item("urt", "(2)(1)(1)", ("P1", "P2")),
        _item("both", "(3)(1)", ("P2", "P1")),
        _item("train", "(2)(1)(1)", ("P1",)),
    ]
    tt, report = _split(items, in_distribution_per_type=0)
    assert tt["ugt"] == ["unseen_graph_type"]
    assert tt["urt"] == ["unseen_relation_type"]
    assert tt["both"] == ["unseen_graph_type", "unseen_relation_type"]
    assert tt["train"] == ["training"]
    assert report["relations"]["train"] == ["P1"]
    assert report["relations"]["test_only"] == ["P2"]
    assert report["counts"]["test_categories"] == {
        "in_distribution": 0,
        "unseen_relation_type": 2,
        "unseen_graph_type": 2,
    }
    # the paper's tables count ugt+urt as ugt
    assert report["counts"]["test_categories_table"]["unseen_graph_type"] == 2
    assert report["counts"]["test_categories_table"]["unseen_relation_type"] == 1
    assert report["counts"]["unseen_graph_and_relation_type"] == 1


def test_relation_ranking_ties_and_share() -> None:
    items = [*_background(5)]
    items += [_item(f"p10_{i}", "(2)(1)(1)", ("P10",)) for i in range(2)]
    items += [_item(f"p9_{i}", "(2)(1)(1)", ("P9",)) for i in range(2)]
    items.append(_item("p3", "(2)(1)(1)", ("P3",)))
    _, report = _split(items, n_train_relations=2)
    # P9 and P10 tie: natural PID order puts P9 first
    assert report["relations"]["train"] == ["P1", "P9"]
    assert report["relations"]["test_only"] == ["P10", "P3"]
    assert report["relations"]["frequency"] == {"P1": 5, "P9": 2, "P10": 2, "P3": 1}
    # a share overrides the count: 0.8 * 4 relations = 3.2 -> 3
    _, report = _split(items, n_train_relations=0, train_relation_share=0.8)
    assert report["parameters"]["n_train_relations"] == 3
    # more train relations than exist: none is test-only
    tt, report = _split(items, n_train_relations=200)
    assert report["relations"]["test_only"] == []
    assert set(map(tuple, tt.values())) == {("training",)}
    with pytest.raises(InputError):
        _split(items, train_relation_share=1.5)


def test_redundant_items_never_go_to_test_nor_leak_into_train() -> None:
    items = [
        *_background(),
        _item("red_ugt", "(4)", ("P1",), redundant=True),
        _item("red_urt", "(2)(1)(1)", ("P2",), redundant=True),
        _item("red_both", "(4)", ("P2",), redundant=True),
        _item("red_id", "(1)", ("P1",), redundant=True),
        _item("ok_id", "(1)", ("P1",)),
    ]
    tt, report = _split(items, in_distribution_per_type=5)
    assert "red_ugt" not in tt and "red_urt" not in tt and "red_both" not in tt
    assert report["dropped"]["redundant_unseen_graph_type"] == ["red_both", "red_ugt"]
    assert report["dropped"]["redundant_unseen_relation_type"] == ["red_urt"]
    # a redundant in-distribution-type item trains; the minimal one is sampled for test
    assert tt["red_id"] == ["training"]
    assert tt["ok_id"] == ["in_distribution"]
    out, _ = assign_splits(items, seed=1, n_train_relations=1)
    for i in out:
        if i["redundant"]:
            assert i["test_type"] == ["training"]


def test_no_test_answer_is_a_train_answer() -> None:
    items = [
        *_background(),
        _item("t", "(4)", ("P1",), "Q100", answers=["Q100", "Q101"]),
        _item("same_node", "(2)(1)(1)", ("P1",), "Q100"),
        _item("other_answer", "(2)(1)(1)", ("P1",), "Q200", answers=["Q200", "Q101"]),
        _item("free", "(2)(1)(1)", ("P1",), "Q300"),
    ]
    tt, report = _split(items, in_distribution_per_type=0)
    assert tt["t"] == ["unseen_graph_type"]
    assert "same_node" not in tt and "other_answer" not in tt
    assert report["dropped"]["answer_in_test"] == ["other_answer", "same_node"]
    assert tt["free"] == ["training"]
    out, _ = assign_splits(items, seed=7, n_train_relations=1, in_distribution_per_type=0)
    _check_invariants(out)


def test_in_distribution_sampling_count_and_cells() -> None:
    items = [*_background()]
    items += [_item(f"one{i:02d}", "(1)", ("P1",)) for i in range(10)]
    items += [_item(f"two{i:02d}", "(2)", ("P1",)) for i in range(2)]
    tt, report = _split(items, in_distribution_per_type=3, min_cell=3)
    chosen = [k for k, v in tt.items() if v == ["in_distribution"]]
    assert len([k for k in chosen if k.startswith("one")]) == 3
    assert len([k for k in chosen if k.startswith("two")]) == 2  # fewer exist: all taken
    assert sum(1 for k, v in tt.items() if k.startswith("one") and v == ["training"]) == 7
    assert report["in_distribution"]["(1)"] == {"pool": 10, "chosen": 3}
    assert report["in_distribution"]["(2)"] == {"pool": 2, "chosen": 2}
    assert report["in_distribution"]["(3)"] == {"pool": 0, "chosen": 0}
    cells = {(c["type"], c["category"]): c["count"] for c in report["cells"]}
    assert cells[("(1)", "in_distribution")] == 3
    assert cells[("(4)", "unseen_graph_type")] == 0
    # urt cells: every input type that is not held out
    assert ("(2)(1)(1)", "unseen_relation_type") in cells
    under = {(c["type"], c["category"]) for c in report["cells_under_min_cell"]}
    assert ("(2)", "in_distribution") in under and ("(1)", "in_distribution") not in under
    assert len(under) == len(report["cells"]) - 1
    assert report["counts"]["test"] == 5
    assert report["counts"]["train"] == 20 + 7


def test_deterministic_for_a_seed_and_independent_of_input_order() -> None:
    items = [*_background()]
    items += [_item(f"one{i:02d}", "(1)", ("P1",)) for i in range(20)]
    items += [_item(f"u{i}", "(4)", ("P2",)) for i in range(3)]
    a, ra = assign_splits(items, seed=3, n_train_relations=1, in_distribution_per_type=3)
    b, rb = assign_splits(items, seed=3, n_train_relations=1, in_distribution_per_type=3)
    assert a == b and ra == rb
    shuffled = list(items)
    random.Random(0).shuffle(shuffled)
    c, rc = assign_splits(shuffled, seed=3, n_train_relations=1, in_distribution_per_type=3)
    assert {i["id"]: i["test_type"] for i in a} == {i["id"]: i["test_type"] for i in c}
    assert rc == ra
    assert [i["id"] for i in c] == [i["id"] for i in shuffled if i["id"] in {j["id"] for j in c}]
    # another seed draws other in-distribution items (for some seed)
    picks = {
        tuple(
            sorted(
                i["id"]
                for i in assign_splits(
                    items, seed=s, n_train_relations=1, in_distribution_per_type=3
                )[0]
                if i["test_type"] == ["in_distribution"]
            )
        )
        for s in range(5)
    }
    assert len(picks) > 1
    # the input is not modified
    assert all(i["test_type"] == ["training"] for i in items)


def test_bad_input() -> None:
    items = [_item("a"), _item("a", answer="Q2")]
    with pytest.raises(InputError, match="duplicate item id"):
        assign_splits(items, seed=1)
    with pytest.raises(InputError, match="both held out"):
        assign_splits([_item("a")], seed=1, held_out_types=("(1)",))
    with pytest.raises(InputError, match="held_out_types"):
        assign_splits([_item("a")], seed=1, held_out_types=("(1",))
    with pytest.raises(InputError, match="redundant"):
        assign_splits([{**_item("a"), "redundant": None}], seed=1)
    # defaults follow the spec
    assert len(HELD_OUT_TYPES) == 8 and len(IN_DISTRIBUTION_TYPES) == 6


def _check_invariants(out: list[dict[str, Any]]) -> None:
    from kgbench.iso import canonical_isomorphism_type

    held = set(HELD_OUT_TYPES)
    train = [i for i in out if i["test_type"] == ["training"]]
    test = [i for i in out if i["test_type"] != ["training"]]
    assert all(set(i["test_type"]) <= TEST_CATEGORIES and i["test_type"] for i in test)
    assert not any(i["redundant"] for i in test)

    def answers(i: dict[str, Any]) -> set[str]:
        return {*i["all_answers_wikidata"], i["answer_node"].rsplit("(", 1)[1].rstrip(")")}

    test_answers = set().union(*(answers(i) for i in test)) if test else set()
    assert not any(answers(i) & test_answers for i in train)
    for i in train:
        assert canonical_isomorphism_type(i["graph_isomorphism"]) not in held
    for i in test:
        gtype = canonical_isomorphism_type(i["graph_isomorphism"])
        assert ("unseen_graph_type" in i["test_type"]) == (gtype in held)
        if "in_distribution" in i["test_type"]:
            assert i["test_type"] == ["in_distribution"]


# ---- real items ----


@pytest.fixture(scope="module")
def wd50k_items(wd50k_store: Any) -> list[dict[str, Any]]:
    """Template items on the WD50K dump (conftest ``wd50k_store``, parsed once per session)."""
    from kgbench.generate.synth.kg import WikidataKG
    from kgbench.generate.synth.template import SynthSettings, generate_template_items

    kg = WikidataKG.from_store(wd50k_store)
    items, _ = generate_template_items(kg, SynthSettings(n=150, seed=1111), source="wd50k")
    return items


@pytest.mark.realdata
@pytest.mark.slow
def test_split_of_real_items(wd50k_items: list[dict[str, Any]]) -> None:
    kept, dropped = dedup(wd50k_items)
    assert len(kept) + len(dropped) == len(wd50k_items)
    relations = {t[1] for i in kept for t in i["answer_subgraph"]}
    n_train = len(relations) // 2
    out, report = assign_splits(
        kept, seed=1111, n_train_relations=n_train, in_distribution_per_type=3, min_cell=2
    )
    again, report2 = assign_splits(
        kept, seed=1111, n_train_relations=n_train, in_distribution_per_type=3, min_cell=2
    )
    assert out == again and report == report2
    assert report["relations"]["total"] == len(relations)
    assert len(report["relations"]["test_only"]) == len(relations) - n_train > 0
    counts = report["counts"]
    assert counts["train"] + counts["test"] + counts["dropped"] == len(kept)
    assert counts["train"] > 0 and counts["test"] > 0
    assert counts["test_categories"]["unseen_relation_type"] > 0
    for t, d in report["in_distribution"].items():
        assert d["chosen"] == min(3, d["pool"]), t
    _check_invariants(out)
    test_only = set(report["relations"]["test_only"])
    for i in out:
        ids = {t[1].rsplit("(", 1)[1].rstrip(")") for t in i["answer_subgraph"]}
        if i["test_type"] == ["training"]:
            assert not ids & test_only
        else:
            assert ("unseen_relation_type" in i["test_type"]) == bool(ids & test_only)
    assert set(report["circular"]) <= {i["id"] for i in out}


def test_atomic_outputs_get_the_usual_file_mode(tmp_path: Path) -> None:
    """Files written by kgbench.fileio are readable like files written by open() (mkstemp
    alone would leave them 0600)."""
    import os

    from kgbench.fileio import write_jsonl_atomic

    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    out = write_jsonl_atomic(tmp_path / "items.jsonl", [{"a": 1}])
    assert os.stat(out).st_mode & 0o777 == os.stat(plain).st_mode & 0o777
