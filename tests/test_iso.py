"""kgbench.iso: Table 5 identifiers, the notation, defect flags, canonical forms, batch API."""

from __future__ import annotations

import re

import pytest

from kgbench.errors import InputError
from kgbench.iso import (
    DEFECTS,
    GRAILQA_NAMES,
    TABLE5_IDENTIFIERS,
    InvalidAnswerSubgraph,
    InvalidIsomorphismType,
    NotATreeError,
    analyze_answer_subgraph,
    canonical_form,
    canonical_isomorphism_type,
    grailqa_name,
    isomorphism_type,
    isomorphism_types,
    parse_isomorphism_type,
)

FIELDS = ("answer_subgraph", "answer_node", "seed_entities")

# Hand-built trees for identifiers of Table 5 (seed Appendix A.2): (edges, answer, seeds).
HAND_BUILT = {
    "(1)": ([("s", "r", "a")], "a", ["s"]),
    "(3)": ([("a", "r", "x"), ("y", "r", "x"), ("y", "r", "s")], "a", ["s"]),
    "(2)(1)": (
        [("s1", "child", "x"), ("x", "instrument", "a"), ("s2", "instrument", "a")],
        "a",
        ["s1", "s2"],
    ),
    "((1)(1))": ([("x", "r", "a"), ("x", "r", "s1"), ("s2", "r", "x")], "a", ["s1", "s2"]),
    "(2(1)(1))": (
        [("a", "r", "y"), ("y", "r", "x"), ("x", "r", "s1"), ("x", "r", "s2")],
        "a",
        ["s1", "s2"],
    ),
    "((1)(1))(1)": (
        [("a", "r", "x"), ("x", "r", "s1"), ("x", "r", "s2"), ("a", "r", "s3")],
        "a",
        ["s1", "s2", "s3"],
    ),
    "((2)(1))": (
        [("a", "r", "x"), ("x", "r", "y"), ("y", "r", "s1"), ("x", "r", "s2")],
        "a",
        ["s1", "s2"],
    ),
    "(2)(2)(1)": (
        [("a", 1, "x"), ("x", 1, "s1"), ("a", 1, "y"), ("y", 1, "s2"), ("a", 1, "s3")],
        "a",
        ["s1", "s2", "s3"],
    ),
    "((1)(1)(1)(1))": (
        [("a", 0, "x")] + [("x", 0, f"s{i}") for i in range(4)],
        "a",
        [f"s{i}" for i in range(4)],
    ),
}


@pytest.mark.parametrize("identifier", sorted(HAND_BUILT))
def test_hand_built_trees(identifier: str) -> None:
    edges, answer, seeds = HAND_BUILT[identifier]
    assert isomorphism_type(edges, answer, seeds) == identifier


def test_appendix_a3_example() -> None:
    """The GTSQA train record of Appendix A.3 has graph_isomorphism ((1)(1)(1)), n_hops 2."""
    film = "Le Vicomte de Bragelonne (Q3228085)"
    edges = [
        [film, "country of origin (P495)", "Italy (Q38)"],
        [film, "original language of film or TV show (P364)", "French (Q150)"],
        [film, "based on (P144)", "The Vicomte of Bragelonne: Ten Years Later (Q769001)"],
        [film, "director (P57)", "Fernando Cerchio (Q503508)"],
    ]
    seeds = ["Italy (Q38)", "French (Q150)", "The Vicomte of Bragelonne: Ten Years Later (Q769001)"]
    analysis = analyze_answer_subgraph(edges, "Fernando Cerchio (Q503508)", seeds)
    assert analysis.identifier == "((1)(1)(1))"
    assert (analysis.n_hops, analysis.n_seeds, analysis.n_edges, analysis.n_nodes) == (2, 3, 4, 5)
    assert analysis.is_valid and analysis.defects == ()
    assert grailqa_name(analysis.identifier) == "Iso-12"


@pytest.mark.parametrize("identifier", TABLE5_IDENTIFIERS)
def test_table5_identifiers_round_trip(identifier: str) -> None:
    edges, answer, seeds = parse_isomorphism_type(identifier)
    assert isomorphism_type(edges, answer, seeds) == identifier
    # The representative has one seed per leaf term "(n)", the answer is node 0.
    assert len(seeds) == len(re.findall(r"\(\d+\)", identifier))
    assert answer == 0
    assert len({v for e in edges for v in e}) == len(edges) + 1


def test_table5_hops_and_sizes() -> None:
    expected = {  # identifier: (n_hops, n_edges, n_seeds), read off the notation
        "(5)": (5, 5, 1),
        "(4)(1)": (4, 5, 2),
        "(1)(1)(1)(1)(1)": (1, 5, 5),
        "((3)(1))": (4, 5, 2),
        "(2(1)(1))": (3, 4, 2),
        "((1)(1))(1)": (2, 4, 3),
    }
    for identifier, (hops, n_edges, n_seeds) in expected.items():
        a = analyze_answer_subgraph(*parse_isomorphism_type(identifier))
        assert (a.n_hops, a.n_edges, a.n_seeds) == (hops, n_edges, n_seeds), identifier


def test_canonical_order_of_juxtaposed_terms() -> None:
    # More edges first, then deeper, then longer leading path, then sub-terms.
    assert canonical_isomorphism_type("(1)(2)") == "(2)(1)"
    assert canonical_isomorphism_type("(1)((1)(1))") == "((1)(1))(1)"
    assert canonical_isomorphism_type("((1)(1))(3)") == "(3)((1)(1))"
    assert canonical_isomorphism_type("((1)(1)(2))") == "((2)(1)(1))"
    assert canonical_isomorphism_type("((2)(1))(2(1)(1))") == "(2(1)(1))((2)(1))"
    assert canonical_isomorphism_type("(1(1)(1))") == "((1)(1))"
    for identifier in TABLE5_IDENTIFIERS:
        assert canonical_isomorphism_type(identifier) == identifier


def test_grailqa_names() -> None:
    assert grailqa_name("(1)") == "Iso-0"
    assert grailqa_name("(2)(1)") == "Iso-3"
    assert grailqa_name("((1)(1))(1)") == "Iso-9"
    assert grailqa_name("(4)") == "Iso-16"
    assert grailqa_name("(5)") is None  # N/A in Table 5
    # Names settled by the original code and notebook (spec synthkgqa.md §6).
    assert grailqa_name("((1)(1)(1))") == "Iso-12"
    assert grailqa_name("((1)(1))(2)") == "Iso-17"
    assert grailqa_name("((1)(1))(1)(1)") == "Iso-22"
    assert grailqa_name("((1)(1)(1))(1)") == "Iso-25"
    assert grailqa_name("((1)(1)(1))(2)") == "Iso-26"
    # Iso-19 / Iso-23 in an unknown order: no name.
    assert grailqa_name("((2)(1)(1))") is None
    assert grailqa_name("((2)(1))(1)") is None
    assert grailqa_name("((1)(1)(1)(1))") is None  # not a Table 5 type (extraction artefact)
    assert len(set(GRAILQA_NAMES.values())) == len(GRAILQA_NAMES) == 22
    assert len(TABLE5_IDENTIFIERS) == len(set(TABLE5_IDENTIFIERS)) == 27
    assert "((1)(1)(1)(1))" not in TABLE5_IDENTIFIERS
    assert set(GRAILQA_NAMES) <= set(TABLE5_IDENTIFIERS)
    for identifier in GRAILQA_NAMES:
        assert canonical_isomorphism_type(identifier) == identifier


@pytest.mark.parametrize(
    ("bad", "offset"),
    [("", 0), ("(", 1), ("()", 1), ("(0)", 1), ("(2(1))", 0), ("(1) (1)", 3), ("(1", 2), ("x", 0)],
)
def test_parse_errors(bad: str, offset: int) -> None:
    with pytest.raises(InvalidIsomorphismType) as info:
        parse_isomorphism_type(bad)
    assert info.value.offset == offset
    assert info.value.identifier == bad
    assert isinstance(info.value, InputError)


# --- defect flags on purpose-built bad inputs ---------------------------------------


def defects_of(edges: list[tuple[object, ...]], answer: object, seeds: list[object]) -> set[str]:
    analysis = analyze_answer_subgraph(edges, answer, seeds)
    assert analysis.identifier is None
    with pytest.raises(InvalidAnswerSubgraph) as info:
        isomorphism_type(edges, answer, seeds)
    assert set(info.value.defects) == set(analysis.defects)
    assert isinstance(info.value, InputError) and isinstance(info.value, ValueError)
    for name in analysis.defects:
        assert name in str(info.value)
    return set(analysis.defects)


def test_defect_cycle() -> None:
    a = analyze_answer_subgraph([("a", "x"), ("x", "y"), ("y", "a"), ("y", "s")], "a", ["s"])
    assert a.has_cycle and a.is_connected and not a.is_tree
    assert defects_of([("a", "x"), ("x", "y"), ("y", "a"), ("y", "s")], "a", ["s"]) == {"cycle"}


def test_defect_parallel_edges_and_self_loop() -> None:
    assert defects_of([("a", "p", "x"), ("x", "q", "a"), ("x", "r", "s")], "a", ["s"]) == {"cycle"}
    assert defects_of([("a", "a"), ("a", "s")], "a", ["s"]) == {"cycle"}


def test_defect_disconnected() -> None:
    a = analyze_answer_subgraph([("a", "s1"), ("x", "s2"), ("x", "s3")], "a", ["s1", "s2", "s3"])
    assert not a.is_connected and not a.is_tree and not a.has_cycle
    assert a.defects == ("disconnected",)


def test_defect_hanging_branch() -> None:
    a = analyze_answer_subgraph([("a", "x"), ("x", "s"), ("x", "dangling")], "a", ["s"])
    assert a.hanging_branches and a.is_tree
    assert defects_of([("a", "x"), ("x", "s"), ("x", "dangling")], "a", ["s"]) == {
        "hanging_branches"
    }


def test_defect_answer_is_seed() -> None:
    a = analyze_answer_subgraph([("a", "s")], "a", ["a", "s"])
    assert a.answer_is_seed
    assert a.defects == ("answer_is_seed",)


def test_defect_internal_seed() -> None:
    a = analyze_answer_subgraph([("a", "s1"), ("s1", "s2")], "a", ["s1", "s2"])
    assert a.internal_seeds and a.is_tree
    assert defects_of([("a", "s1"), ("s1", "s2")], "a", ["s1", "s2"]) == {"internal_seeds"}


def test_defect_missing_nodes_and_empty() -> None:
    assert defects_of([("s", "x"), ("x", "a")], "elsewhere", ["s"]) >= {
        "answer_missing",
        "disconnected",
    }
    assert defects_of([("a", "s")], "a", ["s", "t"]) == {"missing_seeds", "disconnected"}
    assert defects_of([], "a", ["s"]) >= {"empty", "answer_missing"}
    assert defects_of([("a", "s")], "a", []) == {"no_seeds", "hanging_branches"}
    a = analyze_answer_subgraph([("s", "x"), ("x", "a")], "elsewhere", ["s"])
    assert a.answer_missing and a.n_hops is None


def test_defect_names_are_documented() -> None:
    names = [name for name, _ in DEFECTS]
    assert names == [
        "empty",
        "no_seeds",
        "answer_missing",
        "missing_seeds",
        "answer_is_seed",
        "disconnected",
        "cycle",
        "hanging_branches",
        "internal_seeds",
    ]


def test_n_hops_is_max_seed_distance() -> None:
    a = analyze_answer_subgraph(*parse_isomorphism_type("(3)(1)"))
    assert a.n_hops == 3


def test_node_ids_compare_like_dict_keys() -> None:
    # 1 == 1.0 == True are one node, as in a dict; tuples are fine as ids.
    assert isomorphism_type([(1, "r", (0, 0)), (1.0, "r", "s")], True, ["s", (0, 0)]) == "(1)(1)"
    with pytest.raises(TypeError, match="unhashable"):
        isomorphism_type([(["x"], "a")], "a", ["x"])
    with pytest.raises(TypeError, match="edge 1"):
        isomorphism_type([("a", "s"), ("a", "b", "c", "d")], "a", ["s"])
    with pytest.raises(TypeError, match="not a single str"):
        isomorphism_type([("a", "s")], "a", "s")


def test_iterables_are_accepted() -> None:
    edges = (e for e in [("a", "x"), ("x", "s")])
    assert isomorphism_type(edges, "a", {"s"}) == "(2)"


# --- canonical_form -----------------------------------------------------------------


def test_canonical_form_unlabeled_and_labeled() -> None:
    assert canonical_form([], "r") == "()"
    assert canonical_form([(1, 2), (2, 3)], 1) == "((()))"
    assert canonical_form([(1, 2), (2, 3)], 2) == "(()())"
    labels = {"a": "answer", "s": "seed", "t": "seed"}
    assert canonical_form([("s", "p", "a"), ("a", "q", "t")], "a", labels) == "(answer(seed)(seed))"
    assert canonical_form([("a", "s"), ("a", "t")], "a", {"a": "x(y)"}) == "(x\\(y\\)()())"


def test_canonical_form_errors() -> None:
    with pytest.raises(NotATreeError, match="cycle"):
        canonical_form([(1, 2), (2, 3), (3, 1)], 1)
    with pytest.raises(NotATreeError, match="not connected"):
        canonical_form([(1, 2), (3, 4)], 1)
    with pytest.raises(NotATreeError, match="not connected"):
        canonical_form([(1, 2)], 9)
    with pytest.raises(InputError, match="not in the tree"):
        canonical_form([(1, 2)], 1, {7: "seed"})
    with pytest.raises(TypeError, match="must be str"):
        canonical_form([(1, 2)], 1, {2: 5})  # type: ignore[dict-item]


# --- batch ------------------------------------------------------------------------------


def test_batch_matches_single_calls_and_accepts_records() -> None:
    items: list[object] = []
    expected: list[str | None] = []
    for identifier in TABLE5_IDENTIFIERS:
        edges, answer, seeds = parse_isomorphism_type(identifier)
        items.append((edges, answer, seeds))
        expected.append(identifier)
        items.append({"answer_subgraph": edges, "answer_node": answer, "seed_entities": seeds})
        expected.append(identifier)
    items.append(([("a", "b"), ("b", "a")], "a", ["b"]))
    expected.append(None)
    items.append([[("a", "r", "s")], "a", ["s"]])
    expected.append("(1)")
    out = isomorphism_types(items)
    assert out == expected
    # Equal identifiers are shared string objects.
    assert out[0] is out[1]
    assert isomorphism_types([]) == []
    assert isomorphism_types(iter(items[:2])) == expected[:2]


def test_batch_on_invalid_raise() -> None:
    items = [([("a", "s")], "a", ["s"]), ([("a", "s")], "a", ["a", "s"])]
    assert isomorphism_types(items) == ["(1)", None]
    with pytest.raises(InvalidAnswerSubgraph) as info:
        isomorphism_types(items, on_invalid="raise")
    assert info.value.index == 1
    assert info.value.defects == ("answer_is_seed",)
    assert "subgraph 1" in str(info.value)
    with pytest.raises(ValueError, match="on_invalid"):
        isomorphism_types(items, on_invalid="skip")  # type: ignore[arg-type]


def test_batch_shape_errors_name_the_item() -> None:
    with pytest.raises(InputError, match=r"subgraph 1: missing field 'answer_node'"):
        isomorphism_types(
            [([("a", "s")], "a", ["s"]), {"answer_subgraph": [], "seed_entities": []}]
        )
    with pytest.raises(TypeError, match=r"subgraph 0: .*got int"):
        isomorphism_types([5])
    with pytest.raises(TypeError, match=r"subgraph 2: edge 0: unhashable"):
        isomorphism_types([([("a", "s")], "a", ["s"])] * 2 + [([({}, "s")], "a", ["s"])])


def test_many_nodes_use_the_hashed_interner() -> None:
    # A star with 40 seeds and a long path: more nodes than the linear-scan interner holds.
    edges = [("a", f"s{i}") for i in range(40)] + [(f"p{i}", f"p{i + 1}") for i in range(30)]
    edges.append(("a", "p0"))
    seeds = [f"s{i}" for i in range(40)] + ["p30"]
    identifier = isomorphism_type(edges, "a", seeds)
    assert identifier == "(31)" + "(1)" * 40
    assert isomorphism_types([(list(reversed(edges)), "a", seeds)]) == [identifier]


def test_batch_node_ids_compare_like_dict_keys() -> None:
    # Exact str/int ids take the raw reader; anything else the general one.
    a, s = "".join(["an", "swer"]), "".join(["se", "ed"])  # equal, distinct objects
    items = [
        ([("answer", "r", "seed")], a, [s]),  # content equality of distinct str objects
        ([(-1, -2)], -1, [-2]),  # hash(-1) == hash(-2) but -1 != -2
        ([(2**70, 1), (2**70, 2)], 1, [2]),  # big ints
        ([(1, "r", (0, 0)), (1.0, "r", "s")], True, ["s", (0, 0)]),  # 1 == 1.0 == True
        ([(1, "x"), ("1", "y")], 1, ["x", "y"]),  # 1 != "1": two components
    ]
    assert isomorphism_types(items) == ["(1)", "(1)", "(2)", "(1)(1)", None]
    assert analyze_answer_subgraph(*items[4]).defects == ("disconnected", "hanging_branches")


def test_batch_pipeline_with_many_items() -> None:
    """More items than one pipeline chunk (16,384): results, strict index, error index."""
    base = [parse_isomorphism_type(identifier) for identifier in TABLE5_IDENTIFIERS]
    bad = ([("a", "b"), ("b", "c"), ("c", "a")], "a", ["b"])
    items: list[object] = []
    expected: list[str | None] = []
    for i in range(40_000):
        if i % 997 == 5:
            items.append(bad)
            expected.append(None)
        else:
            j = i % len(base)
            items.append(base[j] if i % 2 else dict(zip(FIELDS, base[j], strict=True)))
            expected.append(TABLE5_IDENTIFIERS[j])
    assert isomorphism_types(items) == expected
    valid = [x for x in items if x is not bad][:30_000]
    with pytest.raises(InvalidAnswerSubgraph) as info:
        isomorphism_types([*valid, bad], on_invalid="raise")
    assert info.value.index == 30_000
    assert info.value.defects == ("cycle", "internal_seeds")
    broken = [*([base[0]] * 20_000), ([("a",)], "a", [])]
    with pytest.raises(TypeError, match=r"^subgraph 20000: edge 0: expected"):
        isomorphism_types(broken)
    assert isomorphism_types(iter(items[:20_000])) == expected[:20_000]
