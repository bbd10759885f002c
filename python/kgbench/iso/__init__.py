"""Answer-subgraph isomorphism: AHU canonical forms and the GTSQA notation.

Source of the definitions: seed *synthkgqa-gtsqa.txt* (SynthKGQA / GTSQA),
Appendix A.2 and Table 5; SPEC.md §5. The work is done in Rust
(``kgbench._core.iso``); this module is the typed public API.

An *answer subgraph* is a list of edges, each a ``(head, tail)`` pair or a
``(head, relation, tail)`` triple of hashable node ids (compared like dict
keys); relation and direction are ignored. It is a valid *answer tree* when,
taken as an undirected multigraph, it is a tree containing the answer node and
every seed entity, the answer is not a seed, and the leaves other than the
answer are exactly the seeds (GTSQA's data-quality filters).

Identifiers (``isomorphism_type``) root the tree at the answer node: a branch
that is a path of ``n`` edges ending at a seed is ``(n)``; branches meeting at a
node are juxtaposed, ``(n)(m)``; ``k`` edges leading to a branching point are
``(k(n)(m))``, ``k`` omitted when 1. **Canonical order** of juxtaposed terms (at
the answer and at every branching point): decreasing number of edges of the
term, then decreasing depth (edges on its longest path to a seed), then
decreasing leading path length ``k``, then the sub-terms compared
lexicographically by the same order. This reproduces every identifier of
Table 5 (:data:`TABLE5_IDENTIFIERS`) as the original code spells it, e.g.
``(2)(1)``, ``(2)(2)(1)``, ``((2)(1))``, ``((1)(1))(1)``, ``((1)(1))(2)``.

Example::

    >>> from kgbench.iso import isomorphism_type
    >>> isomorphism_type([("film", "P57", "ans"), ("film", "P495", "Italy"),
    ...                   ("film", "P364", "French")], "ans", ["Italy", "French"])
    '((1)(1))'
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kgbench._core import iso as _iso
from kgbench.iso.errors import InvalidAnswerSubgraph, InvalidIsomorphismType, NotATreeError

__all__ = [
    "DEFECTS",
    "GRAILQA_NAMES",
    "TABLE5_IDENTIFIERS",
    "AnswerSubgraphAnalysis",
    "GtsqaFileTypes",
    "InvalidAnswerSubgraph",
    "InvalidIsomorphismType",
    "InvalidRecord",
    "NotATreeError",
    "analyze_answer_subgraph",
    "canonical_form",
    "canonical_isomorphism_type",
    "classify_gtsqa_jsonl",
    "grailqa_name",
    "isomorphism_type",
    "isomorphism_types",
    "isomorphism_types_jsonl",
    "parse_isomorphism_type",
]

#: An edge: ``(head, tail)`` or ``(head, relation, tail)``.
Edge = Sequence[Any]

#: ``(name, description)`` of every defect flag, in reporting order.
DEFECTS: tuple[tuple[str, str], ...] = _iso.DEFECTS

#: Canonical identifier -> GrailQA++ name (Dutt et al., 2023) as given by Table 5.
#: The table's text extraction garbled several rows (it prints ``((1)(1)(1))`` for
#: both Iso-9 and Iso-12); the names follow spec synthkgqa.md §6 (the original
#: code, whose type allow-list kgbench spells identically, and its notebook):
#: Iso-9 ``((1)(1))(1)``, Iso-12 ``((1)(1)(1))``, Iso-17 ``((1)(1))(2)``, Iso-22
#: ``((1)(1))(1)(1)``, Iso-25 ``((1)(1)(1))(1)``, Iso-26 ``((1)(1)(1))(2)``.
#: Iso-19 and Iso-23 are ``((2)(1)(1))`` and ``((2)(1))(1)`` in an unknown order,
#: so neither gets a name.
GRAILQA_NAMES: Mapping[str, str] = dict(_iso.GRAILQA_NAMES)

#: The 27 types of Table 5 (SPEC.md §5), in canonical spelling: the original code's
#: allow-list of 29 without ``((3)(1)(1))`` and ``((3)(1))(1)`` (spec synthkgqa.md §3.3).
#: SPEC.md §5's ``((1)(1)(1)(1))`` is an extraction artefact and is not listed.
TABLE5_IDENTIFIERS: tuple[str, ...] = tuple(_iso.TABLE5_IDENTIFIERS)


@dataclass(frozen=True, slots=True)
class AnswerSubgraphAnalysis:
    """Structure and data-quality flags of an answer subgraph (seed Appendix A.1-A.2).

    ``identifier`` is the GTSQA isomorphism type, ``None`` when ``defects`` is
    non-empty. Graph flags consider the undirected multigraph formed by the
    edges plus the answer and the seed entities (so a seed outside the edges
    makes it disconnected); parallel edges and self-loops are cycles.
    """

    identifier: str | None
    #: Largest shortest-path distance (edges) from the answer to a seed it reaches;
    #: ``None`` when the answer is not in the subgraph or reaches no seed.
    n_hops: int | None
    #: Distinct seed entities given.
    n_seeds: int
    #: Edges (triples), parallel ones included.
    n_edges: int
    #: Distinct nodes that are endpoints of an edge.
    n_nodes: int
    is_tree: bool
    is_connected: bool
    has_cycle: bool
    #: A leaf that is neither a seed entity nor the answer exists.
    hanging_branches: bool
    answer_is_seed: bool
    #: A seed entity is not a leaf (degree >= 2).
    internal_seeds: bool
    #: The answer node is not an endpoint of any edge.
    answer_missing: bool
    #: A seed entity is not an endpoint of any edge.
    missing_seeds: bool
    #: Names of the defects found (see :data:`DEFECTS`); empty for a valid answer tree.
    defects: tuple[str, ...]

    @property
    def is_valid(self) -> bool:
        """Whether the subgraph is a valid GTSQA answer tree."""
        return not self.defects


def canonical_form(
    edges: Iterable[Edge], root: Hashable, labels: Mapping[Hashable, str] | None = None
) -> str:
    """AHU canonical string of the undirected tree ``edges`` rooted at ``root``.

    Each node is written ``(`` + its label + its children's codes + ``)``
    (labels' ``(``, ``)``, ``\\`` escaped with ``\\``; unlabeled nodes have the
    empty label); children are ordered by label, then by their own children,
    level by level as in Aho, Hopcroft & Ullman (1974). Two inputs give the same
    string iff they are isomorphic as rooted labeled trees. O(n log n).

    Args:
        edges: pairs or ``(head, relation, tail)`` triples of hashable node ids;
            may be empty (a single-node tree ``root``).
        root: the root node.
        labels: optional node -> label (e.g. ``"seed"``, ``"answer"``,
            ``"intermediate"``); nodes not in the mapping are unlabeled.

    Raises:
        NotATreeError: the graph is disconnected or has a cycle / parallel edge.
        InputError: a labeled node is not in the tree.
        TypeError: malformed edges or labels.
    """
    return _iso.canonical_form(_as_sequence(edges), root, labels)


def isomorphism_type(edges: Iterable[Edge], answer: Hashable, seeds: Iterable[Hashable]) -> str:
    """GTSQA isomorphism identifier of an answer subgraph, e.g. ``"(2)(1)"``.

    Invariant under node renaming, edge order and edge direction. See the
    module docstring for the notation and the canonical order.

    Raises:
        InvalidAnswerSubgraph: the subgraph is not a valid answer tree; its
            ``defects`` name every problem found.
        TypeError: malformed edges, or an unhashable node id.
    """
    return _iso.isomorphism_type(_as_sequence(edges), answer, _as_sequence(seeds))


def analyze_answer_subgraph(
    edges: Iterable[Edge], answer: Hashable, seeds: Iterable[Hashable]
) -> AnswerSubgraphAnalysis:
    """Identifier (or ``None``), hop count, sizes and defect flags of an answer
    subgraph; never raises for a well-formed but invalid subgraph.

    Raises:
        TypeError: malformed edges, or an unhashable node id.
    """
    fields = _iso.analyze_answer_subgraph(_as_sequence(edges), answer, _as_sequence(seeds))
    return AnswerSubgraphAnalysis(**fields)


def isomorphism_types(
    subgraphs: Iterable[Any], *, on_invalid: Literal["none", "raise"] = "none"
) -> list[str | None]:
    """Identifiers of many answer subgraphs, computed in parallel in Rust (rayon).

    When ``subgraphs`` is a list or tuple, items that are ``(edges, answer,
    seeds)`` tuples/lists of lists/tuples with exact ``str`` / ``int`` node ids
    are read and classified on all cores in chunks of 4,096, with read-only
    C-API access while the calling thread holds the GIL (CPython 3.10-3.14; the
    soundness argument is in ``rust/kgbench-py/src/iso.rs``, ``read_parallel``).
    Every other item (records, other id types, subclasses, malformed items)
    then goes through the general reader, with dict semantics for node ids,
    while a worker thread classifies; results do not depend on the reader.
    ``benches/bench_iso.py`` measures it.

    Args:
        subgraphs: items that are either ``(edges, answer, seeds)`` tuples/lists
            or GTSQA records (dicts with ``answer_subgraph``, ``answer_node`` and
            ``seed_entities``; other keys are ignored).
        on_invalid: ``"none"`` (default) puts ``None`` for a subgraph that is not
            a valid answer tree (use :func:`analyze_answer_subgraph` to see why);
            ``"raise"`` raises :class:`InvalidAnswerSubgraph` for the first one
            (its ``index`` is the item's position).

    Returns:
        One identifier or ``None`` per item, in input order; equal identifiers
        are the same ``str`` object.

    Raises:
        InputError: a record lacks one of the three fields.
        TypeError: a malformed item, edge, or an unhashable node id (the message
            names the item and edge position).
    """
    if on_invalid not in ("none", "raise"):
        raise ValueError(f"on_invalid must be 'none' or 'raise', not {on_invalid!r}")
    return _iso.isomorphism_types(_as_sequence(subgraphs), on_invalid == "raise")


@dataclass(frozen=True, slots=True)
class InvalidRecord:
    """A record of a GTSQA file whose answer subgraph is not a valid answer tree."""

    #: Position among the records (blank lines are not records), from 0.
    index: int
    #: Line number in the file, from 1.
    line: int
    #: Names of the defects found (see :data:`DEFECTS`).
    defects: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GtsqaFileTypes:
    """Isomorphism types of every record of a GTSQA JSONL file
    (:func:`classify_gtsqa_jsonl`)."""

    #: One identifier per record in file order; ``None`` for an invalid answer subgraph.
    types: list[str | None]
    #: Identifier -> number of records (valid records only), in order of first appearance.
    counts: dict[str, int]
    #: The invalid records, in file order.
    invalid: list[InvalidRecord]
    #: Records that already carry ``graph_isomorphism``: ``(identical, reordered,
    #: different)`` counts against the computed identifier (``reordered``: the same
    #: type written with juxtaposed terms in another order; ``null`` for an invalid
    #: record counts as identical).
    given: tuple[int, int, int]
    #: Lines read, blank ones included.
    lines: int


def classify_gtsqa_jsonl(path: str | os.PathLike[str]) -> GtsqaFileTypes:
    """Isomorphism types of all records of a GTSQA JSON Lines file, parsed and
    classified in Rust without creating a Python object per record.

    Each non-blank line is a JSON object with ``answer_subgraph`` (a list of
    ``[head, relation, tail]`` triples or ``[head, tail]`` pairs), ``answer_node``
    and ``seed_entities`` (a list); node ids are JSON strings, numbers, booleans
    or null, compared as :func:`json.loads` + :func:`isomorphism_types` would
    (``1``, ``1.0`` and ``true`` are one node, ``"1"`` another). Other fields are
    skipped; an existing ``graph_isomorphism`` is compared (see
    :attr:`GtsqaFileTypes.given`). Field names: seed Appendix A.3; SPEC.md §5.
    Gzip input is detected by its magic bytes. A reader thread reads (and
    decompresses) 8 MiB blocks while the previous block is parsed and
    classified in parallel (rayon); the output order is the file order. Memory:
    a few blocks plus 4 bytes per record, and the returned list.
    ``benches/bench_iso.py`` measures it against ``json.loads`` + pure-Python AHU.

    Raises:
        InputError: the file cannot be opened, read or decompressed, or a line
            is malformed: invalid JSON, not an object, a missing or duplicated
            field, ``answer_subgraph`` / ``seed_entities`` not a list, an edge
            that is not a pair or triple, a node id that is a list or object.
            The message starts with ``FILE:LINE:`` for a bad line and gives
            the column.
    """
    r = _iso.classify_gtsqa_jsonl(os.fspath(path))
    return GtsqaFileTypes(
        types=r["types"],
        counts=r["counts"],
        invalid=[InvalidRecord(i, line, defects) for i, line, defects in r["invalid"]],
        given=r["given"],
        lines=r["lines"],
    )


def isomorphism_types_jsonl(
    path: str | os.PathLike[str], *, on_invalid: Literal["none", "raise"] = "none"
) -> list[str | None]:
    """Identifiers of all records of a GTSQA JSONL file (plain or gzip), one per
    non-blank line, computed in Rust (parse + classify in parallel); see
    :func:`classify_gtsqa_jsonl` for the accepted shapes.

    Args:
        path: the file.
        on_invalid: ``"none"`` (default) puts ``None`` for a record whose answer
            subgraph is not a valid answer tree; ``"raise"`` raises
            :class:`InvalidAnswerSubgraph` for the first one (message
            ``FILE:LINE: ...``, ``index`` the record's position).

    Returns:
        One identifier or ``None`` per record, in file order; equal identifiers
        are the same ``str`` object.

    Raises:
        InputError: unreadable file or malformed line (``FILE:LINE:`` message).
        InvalidAnswerSubgraph: with ``on_invalid="raise"``.
    """
    if on_invalid not in ("none", "raise"):
        raise ValueError(f"on_invalid must be 'none' or 'raise', not {on_invalid!r}")
    result = classify_gtsqa_jsonl(path)
    if on_invalid == "raise" and result.invalid:
        first = result.invalid[0]
        raise InvalidAnswerSubgraph(
            f"{os.fspath(path)}:{first.line}: invalid answer subgraph: {', '.join(first.defects)}",
            first.defects,
            first.index,
        )
    return result.types


def parse_isomorphism_type(identifier: str) -> tuple[list[tuple[int, int]], int, list[int]]:
    """A representative answer tree of a GTSQA identifier: ``(edges, answer, seeds)``.

    Nodes are ``0..n-1`` with the answer ``0``; edges are ``(parent, child)``
    pairs. Juxtaposed terms may come in any order and ``k = 1`` may be written,
    so ``isomorphism_type(*parse_isomorphism_type(s))`` is the canonical
    spelling of ``s`` (equal to ``s`` when ``s`` is canonical).

    Raises:
        InvalidIsomorphismType: malformed identifier (``offset`` says where), e.g.
            an unclosed bracket, a zero length, or a "branching" term with a
            single sub-term such as ``(2(1))``.
    """
    return _iso.parse_isomorphism_type(identifier)


def canonical_isomorphism_type(identifier: str) -> str:
    """The canonical spelling of an identifier, e.g. ``"((1)(1)(2))"`` ->
    ``"((2)(1)(1))"``.

    Raises:
        InvalidIsomorphismType: malformed identifier.
    """
    return _iso.canonical_isomorphism_type(identifier)


def grailqa_name(identifier: str) -> str | None:
    """GrailQA++ name (``"Iso-0"`` ... ``"Iso-26"``, Dutt et al., 2023) of a canonical
    identifier as given by Table 5, or ``None`` when the table gives none or the
    name is ambiguous (Iso-19 / Iso-23; see :data:`GRAILQA_NAMES`)."""
    return _iso.grailqa_name(identifier)


def _as_sequence(items: Iterable[Any]) -> Any:
    """Lists and tuples pass through; other iterables (not str) are materialized."""
    if isinstance(items, (list, tuple, str, bytes, dict)):
        return items
    return list(items)
