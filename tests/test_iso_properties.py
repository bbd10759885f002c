"""Property tests of kgbench.iso against independent references.

- Exhaustive: every answer tree up to 7 edges (one per rooted unlabeled tree with
  <= 8 nodes; OEIS A000081 gives 1, 2, 4, 9, 20, 48, 115 for 1..7 edges), built
  here from nested sorted tuples, gets a distinct identifier, and parse <-> encode
  round-trips to an isomorphic tree.
- Hypothesis: invariance under relabeling, edge reversal and edge order; on small
  random trees, equal identifiers / canonical forms iff a brute-force search over
  all bijections finds an isomorphism.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Hashable
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from kgbench.iso import (
    analyze_answer_subgraph,
    canonical_form,
    isomorphism_type,
    isomorphism_types,
    parse_isomorphism_type,
)

Tree = tuple["Tree", ...]  # a rooted unlabeled tree: the sorted tuple of its subtrees


@cache
def rooted_trees(n_nodes: int) -> frozenset[Tree]:
    """All rooted unlabeled trees with ``n_nodes`` nodes (independent reference)."""
    if n_nodes == 1:
        return frozenset({()})
    return frozenset(tuple(sorted(forest)) for forest in forests(n_nodes - 1))


@cache
def forests(n_nodes: int) -> frozenset[tuple[Tree, ...]]:
    """All multisets (as sorted tuples) of rooted trees with ``n_nodes`` nodes in total."""
    if n_nodes == 0:
        return frozenset({()})
    out = set()
    for first in range(1, n_nodes + 1):
        for tree in rooted_trees(first):
            for rest in forests(n_nodes - first):
                out.add(tuple(sorted((tree, *rest))))
    return frozenset(out)


def to_answer_subgraph(tree: Tree) -> tuple[list[tuple[int, int]], int, list[int]]:
    """Edges (parent, child) with the root 0 as answer and the leaves as seeds."""
    edges: list[tuple[int, int]] = []
    seeds: list[int] = []
    counter = itertools.count(1)

    def build(node: int, subtree: Tree) -> None:
        if not subtree and node != 0:
            seeds.append(node)
        for child in subtree:
            c = next(counter)
            edges.append((node, c))
            build(c, child)

    build(0, tree)
    return edges, 0, seeds


def to_nested(edges: list[tuple[int, int]], root: int) -> Tree:
    """Nested sorted-tuple form of an undirected tree rooted at ``root``."""
    adjacency: dict[int, list[int]] = {}
    for a, b in edges:
        adjacency.setdefault(a, []).append(b)
        adjacency.setdefault(b, []).append(a)

    def nest(v: int, parent: int | None) -> Tree:
        return tuple(sorted(nest(w, v) for w in adjacency.get(v, []) if w != parent))

    return nest(root, None)


def test_all_answer_trees_up_to_7_edges() -> None:
    seen: dict[str, Tree] = {}
    per_size = []
    for n_edges in range(1, 8):
        trees = rooted_trees(n_edges + 1)
        per_size.append(len(trees))
        items = [to_answer_subgraph(t) for t in trees]
        batch = isomorphism_types(items)
        for tree, item, identifier in zip(trees, items, batch, strict=True):
            assert identifier is not None
            assert isomorphism_type(*item) == identifier
            assert identifier not in seen, f"{identifier} for two non-isomorphic trees"
            seen[identifier] = tree
            edges, answer, seeds = parse_isomorphism_type(identifier)
            assert isomorphism_type(edges, answer, seeds) == identifier
            assert to_nested(edges, answer) == tree
            assert sorted(seeds) == sorted(
                v
                for v in {x for e in edges for x in e}
                if v != answer and sum(v in e for e in edges) == 1
            )
            analysis = analyze_answer_subgraph(edges, answer, seeds)
            assert analysis.n_edges == n_edges
            assert analysis.n_hops == max_depth(tree)
    assert per_size == [1, 2, 4, 9, 20, 48, 115]
    assert len(seen) == 199


def max_depth(tree: Tree) -> int:
    return 0 if not tree else 1 + max(max_depth(t) for t in tree)


# --- hypothesis -------------------------------------------------------------------------


@st.composite
def answer_trees(
    draw: st.DrawFn, max_edges: int = 7
) -> tuple[list[tuple[int, int]], int, list[int]]:
    """A random answer tree: random recursive tree, random answer node, seeds = other leaves."""
    n_edges = draw(st.integers(1, max_edges))
    parent = [draw(st.integers(0, i - 1)) for i in range(1, n_edges + 1)]
    edges = [(parent[i - 1], i) for i in range(1, n_edges + 1)]
    degree = [0] * (n_edges + 1)
    for a, b in edges:
        degree[a] += 1
        degree[b] += 1
    answer = draw(st.integers(0, n_edges))
    seeds = [v for v in range(n_edges + 1) if degree[v] == 1 and v != answer]
    return edges, answer, seeds


def relabel(
    item: tuple[list[tuple[int, int]], int, list[int]], rng: random.Random
) -> tuple[list[tuple[Hashable, str, Hashable]], Hashable, list[Hashable]]:
    edges, answer, seeds = item
    nodes = sorted({v for e in edges for v in e})
    names: list[Hashable] = [f"Q{rng.randrange(10**9)}" for _ in nodes]
    names[rng.randrange(len(names))] = rng.randrange(-(10**12), 10**12)  # mixed id types
    if len(set(names)) != len(names):
        names = [f"node{i}" for i in nodes]
    mapping = dict(zip(nodes, names, strict=True))
    out = []
    for a, b in edges:
        if rng.random() < 0.5:
            a, b = b, a
        out.append((mapping[a], f"P{rng.randrange(100)}", mapping[b]))
    rng.shuffle(out)
    new_seeds = [mapping[s] for s in seeds]
    rng.shuffle(new_seeds)
    return out, mapping[answer], new_seeds


@settings(max_examples=300, deadline=None)
@given(answer_trees(), st.randoms(use_true_random=False))
def test_invariant_under_relabeling_reversal_and_order(
    item: tuple[list[tuple[int, int]], int, list[int]], rng: random.Random
) -> None:
    identifier = isomorphism_type(*item)
    relabeled = relabel(item, rng)
    assert isomorphism_type(*relabeled) == identifier
    assert isomorphism_types([relabeled, item]) == [identifier, identifier]
    labels = {item[1]: "answer", **{s: "seed" for s in item[2]}}
    new_labels = {relabeled[1]: "answer", **{s: "seed" for s in relabeled[2]}}
    assert canonical_form(item[0], item[1], labels) == canonical_form(
        relabeled[0], relabeled[1], new_labels
    )


def brute_force_isomorphic(
    a: tuple[list[tuple[int, int]], int, list[int]], b: tuple[list[tuple[int, int]], int, list[int]]
) -> bool:
    """Search all bijections answer->answer preserving seeds and (undirected) edges."""
    (ea, ra, sa), (eb, rb, sb) = a, b
    na = sorted({v for e in ea for v in e})
    nb = sorted({v for e in eb for v in e})
    if len(na) != len(nb) or len(ea) != len(eb) or len(sa) != len(sb):
        return False
    edges_b = {frozenset(e) for e in eb}
    seeds_b = set(sb)
    rest_a = [v for v in na if v != ra]
    rest_b = [v for v in nb if v != rb]
    for perm in itertools.permutations(rest_b):
        f = dict(zip(rest_a, perm, strict=True))
        f[ra] = rb
        if {f[s] for s in sa} == seeds_b and {frozenset((f[x], f[y])) for x, y in ea} == edges_b:
            return True
    return False


@settings(max_examples=300, deadline=None)
@given(answer_trees(max_edges=6), answer_trees(max_edges=6))
def test_same_type_iff_brute_force_isomorphic(
    a: tuple[list[tuple[int, int]], int, list[int]], b: tuple[list[tuple[int, int]], int, list[int]]
) -> None:
    same = isomorphism_type(*a) == isomorphism_type(*b)
    assert same == brute_force_isomorphic(a, b)


@st.composite
def labeled_trees(draw: st.DrawFn) -> tuple[list[tuple[int, int]], int, dict[int, str]]:
    n_edges = draw(st.integers(0, 6))
    edges = [(draw(st.integers(0, i - 1)), i) for i in range(1, n_edges + 1)]
    root = draw(st.integers(0, n_edges))
    labels = {v: draw(st.sampled_from(["", "seed", "x"])) for v in range(n_edges + 1)}
    return edges, root, labels


def brute_force_labeled(
    a: tuple[list[tuple[int, int]], int, dict[int, str]],
    b: tuple[list[tuple[int, int]], int, dict[int, str]],
) -> bool:
    (ea, ra, la), (eb, rb, lb) = a, b
    if len(la) != len(lb):
        return False
    edges_b = {frozenset(e) for e in eb}
    rest_a = [v for v in la if v != ra]
    rest_b = [v for v in lb if v != rb]
    for perm in itertools.permutations(rest_b):
        f = dict(zip(rest_a, perm, strict=True))
        f[ra] = rb
        if (
            all(la[v] == lb[f[v]] for v in la)
            and {frozenset((f[x], f[y])) for x, y in ea} == edges_b
        ):
            return True
    return False


@settings(max_examples=300, deadline=None)
@given(labeled_trees(), labeled_trees())
def test_canonical_form_iff_brute_force_isomorphic(
    a: tuple[list[tuple[int, int]], int, dict[int, str]],
    b: tuple[list[tuple[int, int]], int, dict[int, str]],
) -> None:
    fa = canonical_form(a[0], a[1], a[2])
    fb = canonical_form(b[0], b[1], b[2])
    assert (fa == fb) == brute_force_labeled(a, b)
