"""PIPE-Cypher's diversity selection (spec ``pipe-cypher.md`` §4): the Rust
``kgbench._core.select.select_diverse`` (incremental) against the straightforward pure-Python
reference ``benches/reference_pipe.py`` (every score recomputed from sets at each step) on
random inputs, and the spec's rules: caps, weights by name, input errors, determinism."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgbench._core.select import select_diverse
from kgbench.errors import InputError
from kgbench.generate.pipe.pipeline import select_candidates, selection_tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benches"))
import reference_pipe

WEIGHT_NAMES = tuple(reference_pipe.DEFAULT_WEIGHTS)

# small alphabets so that signatures, families and atoms repeat (caps fire, novelty drops)
# and whole candidates coincide (exact score ties, broken by the id hash)
GROUPS = ["g::simple_retrieval", "g::ranking_topk", "h::simple_retrieval", "é::ünïcode"]
SIGS = ["s0", "s1", "s2", "s3"]
FAMS = ["f0", "f1", "f2"]
OPS = ["single_hop+plain", "aggregation+distinct", "path+limit"]
ATOMS = ["label:A", "label:B", "rel:R", "triple:A-R->B", "op:limit", "agg:COUNT", "prop:name"]
VALUES = ["ann", "bob", "o'hearn", "zoë"]
WORDS = ["which", "who", "how", "many", "ann", "bob", "posts", "owns", "the"]
QUALITIES = [0.0, 0.5, 2 / 3, 0.9, 1.0]


def _ids(n: int) -> list[str]:
    return [f"pc_{i:04d}" for i in range(n)]


@st.composite
def candidates(draw: Any, max_size: int = 24) -> list[tuple[Any, ...]]:
    n = draw(st.integers(0, max_size))
    groups = draw(st.lists(st.sampled_from(GROUPS), min_size=1, max_size=3, unique=True))
    dup_ids = draw(st.booleans()) and draw(st.booleans())  # a quarter of the time
    ids = [f"c{draw(st.integers(0, 3))}" for _ in range(n)] if dup_ids else _ids(n)
    out = []
    for i in range(n):
        out.append(
            (
                draw(st.sampled_from(groups)),
                ids[i],
                draw(st.sampled_from(SIGS)),
                draw(st.sampled_from(FAMS)),
                draw(st.sampled_from(OPS)),
                draw(st.lists(st.sampled_from(ATOMS), max_size=4)),  # may repeat atoms
                draw(st.lists(st.sampled_from(ATOMS[:3]), max_size=2)),
                draw(st.lists(st.sampled_from(VALUES), max_size=2)),
                draw(st.lists(st.sampled_from(WORDS), max_size=5)),
                draw(st.sampled_from(QUALITIES)),
            )
        )
    return out


def _picks(reports: list[dict[str, Any]]) -> list[tuple[str, list[int]]]:
    return [(r["group"], r["picked"]) for r in reports]


def test_rust_report_shape_matches_reference() -> None:
    c = [
        ("g::a", "x", "s", "f", "op", ["a"], [], [], ["w"], 1.0),
        ("g::a", "y", "s", "f", "op", ["a"], [], [], ["w"], 1.0),
        ("g::a", "z", "s", "f", "op", ["a"], [], [], ["w"], 1.0),
    ]
    # target 3, caps 2: the third pick is over both caps
    rust = select_diverse(c, 3)
    ref = reference_pipe.select_diverse(c, 3)
    assert rust == ref
    assert rust[0]["cap_events"] == {"query_signature_cap": 1, "template_family_cap": 1}


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(c=candidates(), target=st.integers(1, 12), seed=st.sampled_from(["13", "0", "seed"]))
def test_rust_matches_reference(c: list[tuple[Any, ...]], target: int, seed: str) -> None:
    rust = select_diverse(c, target, seed)
    ref = reference_pipe.select_diverse(c, target, seed)
    assert _picks(rust) == _picks(ref)
    assert rust == ref  # the whole report: counts, cap events, underfilled


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    c=candidates(),
    target=st.integers(1, 10),
    weights=st.dictionaries(
        st.sampled_from(WEIGHT_NAMES), st.sampled_from([0.0, 0.05, 0.1, 0.35, 1.0, -0.2])
    ),
    shares=st.tuples(
        st.sampled_from([0.0, 0.1, 0.2, 0.5, 1.0]), st.sampled_from([0.0, 0.25, 0.4, 1.0])
    ),
)
def test_rust_matches_reference_with_weights_and_shares(
    c: list[tuple[Any, ...]],
    target: int,
    weights: dict[str, float],
    shares: tuple[float, float],
) -> None:
    rust = select_diverse(c, target, "13", weights, shares[0], shares[1])
    ref = reference_pipe.select_diverse(c, target, "13", weights, shares[0], shares[1])
    assert rust == ref


@settings(max_examples=100, deadline=None)
@given(n=st.integers(2, 30), target=st.integers(1, 30), seed=st.integers(0, 3))
def test_all_ties_broken_by_larger_sha256(n: int, target: int, seed: int) -> None:
    """Identical candidates: the order is the id hash order, largest first."""
    c = [("g::a", i, "s", "f", "op", [], [], [], [], 1.0) for i in _ids(n)]
    # distinct signatures/families so that neither novelty nor caps separate them
    c = [(g, i, f"s{k}", f"f{k}", *rest) for k, (g, i, _, _, *rest) in enumerate(c)]
    got = select_diverse(c, target, str(seed))[0]["picked"]
    expected = sorted(
        range(n), key=lambda k: reference_pipe.tie_key(str(seed), "g::a", c[k][1]), reverse=True
    )[: min(n, target)]
    assert got == expected


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(c=candidates(), target=st.integers(1, 10), rnd=st.randoms(use_true_random=False))
def test_picks_do_not_depend_on_input_order(
    c: list[tuple[Any, ...]], target: int, rnd: random.Random
) -> None:
    c = [(g, f"u{k}", *rest) for k, (g, _, *rest) in enumerate(c)]  # unique ids
    perm = list(range(len(c)))
    rnd.shuffle(perm)
    shuffled = [c[p] for p in perm]
    a = [[c[i][1] for i in r["picked"]] for r in select_diverse(c, target)]
    b = [[shuffled[i][1] for i in r["picked"]] for r in select_diverse(shuffled, target)]
    assert a == b


def test_deterministic_and_groups_sorted() -> None:
    rnd = random.Random(5)
    c = [
        (
            rnd.choice(GROUPS),
            f"id{i}",
            rnd.choice(SIGS),
            rnd.choice(FAMS),
            rnd.choice(OPS),
            rnd.sample(ATOMS, 3),
            rnd.sample(ATOMS, 1),
            rnd.sample(VALUES, 1),
            rnd.sample(WORDS, 4),
            rnd.choice(QUALITIES),
        )
        for i in range(300)
    ]
    first = select_diverse(c, 20)
    for _ in range(5):
        assert select_diverse(c, 20) == first
    assert [r["group"] for r in first] == sorted({x[0] for x in c})
    assert select_diverse(c, 20, "14") != first  # the seed only moves ties, but some exist


# -- caps ---------------------------------------------------------------------------------


@pytest.mark.parametrize("target", [1, 2, 5, 9, 10, 11, 16, 23, 40])
def test_signature_cap_is_max_2_ceil_a_fifth(target: int) -> None:
    """All candidates share one signature (families distinct): every pick beyond the cap is
    a cap event."""
    c = [
        ("g::a", i, "same", f"f{k}", "op", [], [], [], [], 1.0)
        for k, i in enumerate(_ids(target + 5))
    ]
    r = select_diverse(c, target)[0]
    cap = max(2, math.ceil(0.2 * target))
    assert r["selected"] == target
    assert r["cap_events"].get("query_signature_cap", 0) == max(0, target - cap)
    assert "template_family_cap" not in r["cap_events"]


@pytest.mark.parametrize("target", [1, 2, 5, 8, 9, 12, 16, 23, 40])
def test_family_cap_is_max_2_ceil_a_quarter(target: int) -> None:
    c = [
        ("g::a", i, f"s{k}", "same", "op", [], [], [], [], 1.0)
        for k, i in enumerate(_ids(target + 5))
    ]
    r = select_diverse(c, target)[0]
    cap = max(2, math.ceil(0.25 * target))
    assert r["cap_events"].get("template_family_cap", 0) == max(0, target - cap)
    assert "query_signature_cap" not in r["cap_events"]


def test_caps_use_the_target_capped_by_the_group_size() -> None:
    """target_per_group 100 on a group of 20: target 20, signature cap 4 (not 20)."""
    c = [("g::a", i, "same", f"f{k}", "op", [], [], [], [], 1.0) for k, i in enumerate(_ids(20))]
    r = select_diverse(c, 100)[0]
    assert (r["target"], r["selected"], r["underfilled"]) == (20, 20, False)
    assert r["cap_events"] == {"query_signature_cap": 16}


def test_cap_penalty_prefers_other_signatures() -> None:
    """Scored on quality and the cap penalty only: two picks of signature ``s`` (cap 2 at
    target 5), then the lower-quality ``t`` beats a third ``s`` (1 − 0.35 < 0.7)."""
    weights = {k: 0.0 for k in WEIGHT_NAMES} | {"quality": 1.0, "cap_penalty": 0.35}
    c = [("g::a", i, "s", f"f{k}", "op", [], [], [], [], 1.0) for k, i in enumerate(_ids(5))]
    c.append(("g::a", "other", "t", "f9", "op", [], [], [], [], 0.7))
    r = select_diverse(c, 5, weights=weights)[0]
    assert r["picked"][2] == 5
    assert 5 not in r["picked"][:2]
    assert r["cap_events"] == {"query_signature_cap": 2}
    assert r == reference_pipe.select_diverse(c, 5, weights=weights)[0]


# -- weights and errors -------------------------------------------------------------------


def test_weights_override_by_name() -> None:
    c = [
        ("g::a", f"c{k}", f"s{k}", f"f{k}", "op", [f"a{k}"], [], [], [f"w{k}"], q)
        for k, q in enumerate([0.1, 0.9, 0.5, 0.7])
    ]
    only_quality = {k: 0.0 for k in WEIGHT_NAMES} | {"quality": 1.0}
    assert select_diverse(c, 4, weights=only_quality)[0]["picked"] == [1, 3, 2, 0]
    inverse = only_quality | {"quality": -1.0}
    assert select_diverse(c, 4, weights=inverse)[0]["picked"] == [0, 2, 3, 1]
    # a partial override keeps the other defaults, as the reference does
    for w in ({"quality": 5.0}, {"lexical_novelty": 0.0, "cap_penalty": 0.0}):
        assert select_diverse(c, 3, weights=w) == reference_pipe.select_diverse(c, 3, weights=w)


def test_unknown_weight_and_zero_target_are_input_errors() -> None:
    c = [("g::a", "x", "s", "f", "op", [], [], [], [], 1.0)]
    with pytest.raises(InputError, match="weight"):
        select_diverse(c, 1, weights={"lambda": 0.5})
    with pytest.raises(InputError):
        select_diverse(c, 0)
    with pytest.raises(InputError):
        select_diverse([], 0)
    row = {
        "graph_profile": "g",
        "category": "simple_retrieval",
        "question": "Who?",
        "cypher": "MATCH (n) RETURN n",
    }
    with pytest.raises(InputError, match="weight"):
        select_candidates([row], 1, weights={"query_sig": 1.0})
    with pytest.raises(InputError):
        select_candidates([row], 0)
    with pytest.raises(ValueError):
        reference_pipe.select_diverse(c, 1, weights={"lambda": 0.5})


def test_empty_input() -> None:
    assert select_diverse([], 5) == [] == reference_pipe.select_diverse([], 5)


# -- the pipeline entry -------------------------------------------------------------------


def _ledger_row(rnd: random.Random, k: int) -> dict[str, Any]:
    labels = rnd.sample(["Person", "Account", "Post", "Tag"], rnd.randint(0, 2))
    return {
        "graph_profile": rnd.choice(["fin", "snb"]),
        "category": rnd.choice(["simple_retrieval", "ranking_topk"]),
        "question": f"Which {rnd.choice(WORDS)} {rnd.choice(WORDS)} item {k}?",
        "cypher": f"MATCH (n) RETURN n LIMIT {k}",
        "signature": rnd.choice(SIGS),
        "template": rnd.choice([None, "Which {x} owns '{y}'?", "How many {x} are there?"]),
        "template_metadata": rnd.choice([{}, {"schema_template_kind": "count_out"}]),
        "entity_values": rnd.sample(["Ann", "Bob ", " o'Hearn", ""], rnd.randint(0, 2)),
        "validation": {
            "operator_combination": rnd.choice(OPS),
            "substructures": rnd.sample(ATOMS, rnd.randint(0, 3)),
            "structural_features": {
                "labels": labels,
                "relationship_types": [],
                "properties": rnd.sample(["name", "id"], 1),
            },
            "read_only": True,
            "syntax_valid": True,
            "schema_valid": True,
        },
        "execution": {"success": True},
        "judge": {
            "passed": rnd.random() < 0.9,
            "semantic_alignment_score": 0.85,
            "schema_use_score": 1.0,
        },
    }


def test_select_candidates_matches_reference_on_ledger_rows() -> None:
    from kgbench.generate.pipe.export import record_id

    rnd = random.Random(11)
    rows = [_ledger_row(rnd, k) for k in range(400)]
    selected, report = select_candidates(rows, 30)
    ids = [record_id(r["graph_profile"], r["category"], r["question"], r["cypher"]) for r in rows]
    tuples = [selection_tuple(r, i) for r, i in zip(rows, ids, strict=True)]
    ref = reference_pipe.select_diverse(tuples, 30)
    ref_ids = sorted(ids[i] for g in ref for i in g["picked"])
    assert [
        record_id(r["graph_profile"], r["category"], r["question"], r["cypher"]) for r in selected
    ] == ref_ids
    assert report["selected_examples"] == len(ref_ids) == 4 * 30
    assert set(report["groups"]) == {g["group"] for g in ref}
