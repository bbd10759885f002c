"""The raw readers of ``isomorphism_types`` give exactly the general reader's results.

``kgbench._core.iso.isomorphism_types`` reads exact list/tuple items whose node ids
are exact ``str`` / ``int`` through read-only C-API access, on several threads
(``path="auto"``, the default); anything else (subclasses, floats, bools, big ints,
unhashable ids, dict records, odd shapes) falls back to the general reader, which
has Python dict semantics and reports errors with the item's index. The
single-thread pipeline (``path="pipeline"``) has its own raw fast path, and
``path="general"`` disables every fast path. Here all of them, with 1-3 threads and
inputs of several chunks (4,096 items each), must agree with one another and with
:func:`kgbench.iso.analyze_answer_subgraph` item by item.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgbench._core import iso as _iso
from kgbench.errors import InputError
from kgbench.iso import InvalidAnswerSubgraph, analyze_answer_subgraph

# Fresh string objects first: the threaded reader must not depend on cached hashes.
PATHS: list[dict[str, Any]] = [
    {"threads": 2},
    {"threads": 3},
    {"threads": 1},
    {"path": "pipeline"},
    {"path": "general"},
]
CHUNK = 4096


class Str(str):
    """A str subclass: equal to and hashed like the plain str, but not exact."""


class Int(int):
    """An int subclass."""


def fresh(text: str) -> str:
    """An equal but distinct str object whose hash is not computed yet."""
    return "".join([text[:1], text[1:]])


# How one node is written each time it occurs: a function of (node, occurrence).
Writer = Callable[[int, int], Any]
WRITERS: dict[str, Writer] = {
    "shared str": lambda v, k: SHARED[v],
    "fresh str": lambda v, k: fresh(f"Q{v}"),
    "small int": lambda v, k: v,
    "negative int": lambda v, k: -1 - v,  # hash(-1) == hash(-2)
    "big int": lambda v, k: 2**64 + v,  # does not fit in 64 bits: general path
    "int or float": lambda v, k: float(v) if k % 2 else v,  # 1 == 1.0: one node
    "int or bool": lambda v, k: bool(v) if v < 2 and k % 2 else v,  # 1 == True
    "str subclass": lambda v, k: Str(f"Q{v}") if k % 2 else f"Q{v}",
    "int subclass": lambda v, k: Int(v) if k % 2 else v,
    "str of int": lambda v, k: str(v) if v % 2 else v,  # "1" != 1: distinct nodes
}
SHARED = [f"Q{v}" for v in range(64)]


@st.composite
def subgraph_specs(draw: st.DrawFn) -> tuple[list[tuple[int, int]], int, list[int], str]:
    """A random tree (sometimes spoiled) on nodes 0..n-1 and how to write its ids."""
    n_edges = draw(st.integers(1, 9))
    parent = [draw(st.integers(0, i - 1)) for i in range(1, n_edges + 1)]
    edges = [(parent[c - 1], c) for c in range(1, n_edges + 1)]
    edges = [(b, a) if draw(st.booleans()) else (a, b) for a, b in edges]
    degree = [0] * (n_edges + 1)
    for a, b in edges:
        degree[a] += 1
        degree[b] += 1
    answer = draw(st.integers(0, n_edges))
    seeds = [v for v in range(n_edges + 1) if degree[v] == 1 and v != answer]
    spoil = draw(st.sampled_from(["none", "none", "cycle", "seed", "loop", "nodup"]))
    if spoil == "cycle":
        edges.append((draw(st.integers(0, n_edges)), draw(st.integers(0, n_edges))))
    elif spoil == "seed":
        seeds.append(answer)
    elif spoil == "loop":
        edges.append((answer, answer))
    elif spoil == "nodup" and seeds:
        seeds = seeds[:-1]
    edges = draw(st.permutations(edges))
    writer = draw(st.sampled_from(sorted(WRITERS)))
    return edges, answer, seeds, writer


def materialize(spec: tuple[list[tuple[int, int]], int, list[int], str], shape: int) -> Any:
    """Python objects for a spec; ``shape`` picks tuples/lists/triples/records."""
    edges, answer, seeds, writer_name = spec
    write = WRITERS[writer_name]
    count: dict[int, int] = {}

    def node(v: int) -> Any:
        count[v] = count.get(v, 0) + 1
        return write(v, count[v])

    py_edges: list[Any] = []
    for a, b in edges:
        if shape % 3 == 0:
            py_edges.append((node(a), node(b)))
        elif shape % 3 == 1:
            py_edges.append((node(a), "P31", node(b)))
        else:
            py_edges.append([node(a), "P31", node(b)])
    py_answer = node(answer)
    py_seeds = [node(s) for s in seeds]
    if shape % 7 == 6:
        return {"answer_subgraph": py_edges, "answer_node": py_answer, "seed_entities": py_seeds}
    if shape % 5 == 4:
        return [tuple(py_edges), py_answer, tuple(py_seeds)]
    return (py_edges, py_answer, py_seeds)


def every_path(build: Callable[[], list[Any]]) -> list[str | None]:
    """Results of all paths (each on freshly built objects); they must agree."""
    results = [_iso.isomorphism_types(build(), False, **kw) for kw in PATHS]
    for kw, r in zip(PATHS[1:], results[1:], strict=True):
        assert r == results[0], kw
    return results[0]


def test_raw_reader_is_available_here() -> None:
    # CPython 3.10-3.14 with the GIL: the threaded raw reader is in use.
    assert _iso.raw_reader_available()


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(st.lists(subgraph_specs(), min_size=1, max_size=40), st.integers(0, 2**32))
def test_all_paths_agree_with_single_analysis(specs: list[Any], seed: int) -> None:
    n = 2 * CHUNK + 123
    order = random.Random(seed).choices(range(len(specs)), k=n)

    def build() -> list[Any]:
        return [materialize(specs[j], i) for i, j in enumerate(order)]

    got = every_path(build)
    expected_by_shape: dict[tuple[int, int], str | None] = {}
    for i, j in enumerate(order):
        key = (j, i % 105)  # materialize depends on i only through these residues
        if key not in expected_by_shape:
            item = materialize(specs[j], i)
            if isinstance(item, dict):
                item = (item["answer_subgraph"], item["answer_node"], item["seed_entities"])
            expected_by_shape[key] = analyze_answer_subgraph(*item).identifier
        assert got[i] == expected_by_shape[key], (i, specs[j])


def test_equal_but_distinct_strings_and_hash_collisions() -> None:
    def build() -> list[Any]:
        items: list[Any] = []
        for i in range(3 * CHUNK):
            a, b, c = fresh(f"Q{i}"), fresh(f"Q{i}"), fresh(f"Q{i + 1}")
            # a == b: the path a - c - (seed); distinct objects, hashes not cached.
            items.append(([(a, "P", c), (c, "P", fresh(f"S{i}"))], b, [fresh(f"S{i}")]))
            items.append(([(-1, -2), (-2, -3)], -1, [-3]))  # hash(-1) == hash(-2)
        return items

    assert every_path(build) == ["(2)"] * (6 * CHUNK)


def test_mixed_int_and_str_ids_are_distinct_nodes() -> None:
    def build() -> list[Any]:
        return [([(1, "1"), ("1", 2)], 1, [2]) for _ in range(2 * CHUNK)]

    assert every_path(build) == ["(2)"] * (2 * CHUNK)


def test_subclasses_and_numeric_equality_fall_back() -> None:
    def build() -> list[Any]:
        items: list[Any] = []
        for i in range(2 * CHUNK):
            items.append(([(Str("a"), "b"), ("a", "c")], "b", ["c"]))  # Str("a") == "a"
            items.append(([(1, "b"), (1.0, "c"), (True, "d")], "b", ["c", "d"]))
            items.append(([(2**64, "b")], 2**64 + 0 * i, ["b"]))
        return items

    assert every_path(build) == ["(2)", "((1)(1))", "(1)"] * (2 * CHUNK)


@pytest.mark.parametrize("kw", PATHS)
def test_errors_name_the_item_in_large_inputs(kw: dict[str, Any]) -> None:
    good = ([("a", "P", "s")], "a", ["s"])
    items: list[Any] = [good] * (2 * CHUNK + 7)
    items[CHUNK + 5] = ([({}, "P", "s")], "a", ["s"])
    items[CHUNK + 9] = 5
    with pytest.raises(TypeError, match=rf"^subgraph {CHUNK + 5}: edge 0: unhashable"):
        _iso.isomorphism_types(items, False, **kw)
    items[CHUNK + 5] = {"answer_subgraph": [], "seed_entities": []}
    with pytest.raises(InputError, match=rf"^subgraph {CHUNK + 5}: missing field 'answer_node'"):
        _iso.isomorphism_types(items, False, **kw)
    items[CHUNK + 5] = good
    with pytest.raises(TypeError, match=rf"^subgraph {CHUNK + 9}: expected"):
        _iso.isomorphism_types(items, False, **kw)


def test_tuple_input_and_strict_mode() -> None:
    good = ([("a", "s")], "a", ["s"])
    bad = ([("a", "s")], "a", ["a", "s"])
    items = tuple([good] * (CHUNK + 1) + [bad] + [good] * 10)
    for kw in PATHS:
        out = _iso.isomorphism_types(items, False, **kw)
        assert out == ["(1)"] * (CHUNK + 1) + [None] + ["(1)"] * 10
        with pytest.raises(InvalidAnswerSubgraph, match=rf"^subgraph {CHUNK + 1}: ") as info:
            _iso.isomorphism_types(items, True, **kw)
        assert info.value.index == CHUNK + 1
        assert info.value.defects == ("answer_is_seed",)


def test_bad_path_name() -> None:
    with pytest.raises(ValueError, match="path must be"):
        _iso.isomorphism_types([], False, path="fast")
