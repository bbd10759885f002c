"""The RDF back end of SynthKGQA generation (spec ``synthkgqa.md`` §3, §6): a Wikidata RDF dump
in an embedded SPARQL store (pyoxigraph; no endpoint to install) and its entity–entity truthy
triples as the in-memory graph the Rust sampler works on.

- :func:`kgbench.query.sparql.load_store` reads N-Triples / Turtle dumps (``.gz`` and
  ``.bz2`` too) into the in-memory :class:`pyoxigraph.Store` this module works on.
- :class:`WikidataKG` holds the truthy ``wdt:`` triples between ``wd:Q`` items that have an
  English label (GTSQA dropped unlabelled nodes), minus the excluded relations (the code's
  P21, P31, P530, P735), the labels of items and properties, and the Rust
  :class:`kgbench._core.synth.KgGraph` over them; :meth:`WikidataKG.select` runs SPARQL on
  the store.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgbench.errors import InputError

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"

#: Relations the original code excludes (sex or gender, instance of, diplomatic relation,
#: given name).
EXCLUDED_RELATIONS = ("P21", "P31", "P530", "P735")

#: SPARQL prefixes of every generated query.
PREFIXES = f"PREFIX wd: <{WD}>\nPREFIX wdt: <{WDT}>\n"


_WD_CONST = re.compile(r"(?:\bwd:|<http://www\.wikidata\.org/entity/)(Q[0-9]+)\b")


def sparql_select(pattern: str) -> str:
    """``SELECT DISTINCT ?answer`` over a basic graph pattern."""
    return f"{PREFIXES}SELECT DISTINCT ?answer WHERE {{ {pattern} }}"


def sparql_construct(pattern: str) -> str:
    """``CONSTRUCT WHERE`` over a basic graph pattern (the full answer subgraph)."""
    return f"{PREFIXES}CONSTRUCT WHERE {{ {pattern} }}"


def _by_length(text: str) -> tuple[int, str]:
    return len(text), text


def index_triples(
    found: Iterable[tuple[str, str, str]],
) -> tuple[list[str], list[str], list[tuple[int, int, int]], Any]:
    """Index (head id, relation, tail id) triples deterministically, whatever order they
    were read in: nodes and relations sorted by (length, text) (``Q2`` before ``Q10``),
    triples sorted by their indices. Returns (node ids, relations, index triples, the Rust
    :class:`kgbench._core.synth.KgGraph` over them) — the adjacency both back ends sample
    on."""
    from kgbench._core.synth import KgGraph

    found = set(found)
    nodes = sorted({x for h, _r, t in found for x in (h, t)}, key=_by_length)
    rels = sorted({r for _h, r, _t in found}, key=_by_length)
    node = {e: i for i, e in enumerate(nodes)}
    rel = {r: i for i, r in enumerate(rels)}
    triples = sorted((node[h], rel[r], node[t]) for h, r, t in found)
    graph = KgGraph(
        len(nodes),
        [h for h, _, _ in triples],
        [r for _, r, _ in triples],
        [t for _, _, t in triples],
    )
    return nodes, rels, triples, graph


def qid(iri: str) -> str:
    """``Q42`` of ``http://www.wikidata.org/entity/Q42`` (any IRI: its last path segment)."""
    return iri.rsplit("/", 1)[-1]


@dataclass
class WikidataKG:
    """Truthy entity–entity triples of a Wikidata store (module docstring).

    ``qids[i]`` is node ``i``; ``triples[j]`` is ``(head, relation index, tail)`` with
    ``relations[r]`` a PID; ``labels`` maps QIDs and PIDs to their English label.

    The generators use it through the back-end interface it shares with
    :class:`kgbench.generate.synth.neo4j_kg.PropertyGraphKG`: ``kg_name`` (the suffix of
    ``all_answers_<kg>``), ``query_field``, ``node_ids``, :meth:`triple`, :meth:`label`,
    :meth:`named`, :meth:`relation_named`, :meth:`edge_phrase`, :meth:`select_query`,
    :meth:`answers`, :meth:`full_subgraph` and :meth:`query_constants`."""

    kg_name = "wikidata"
    query_field = "sparql_query"

    store: Any
    qids: list[str]
    relations: list[str]
    triples: list[tuple[int, int, int]]
    labels: dict[str, str]
    excluded: tuple[str, ...] = EXCLUDED_RELATIONS
    index: dict[str, int] = field(default_factory=dict)
    graph: Any = None

    @classmethod
    def from_store(
        cls,
        store: Any,
        excluded: Iterable[str] = EXCLUDED_RELATIONS,
        keep: Iterable[str] | None = None,
    ) -> WikidataKG:
        """Read the triples and labels from ``store`` and index them. ``keep``: only these
        relations (PIDs), e.g. those a conversion schema maps (None: all but ``excluded``).

        Raises:
            InputError: the store holds no truthy triple between labelled items.
        """
        excluded = tuple(excluded)
        kept = None if keep is None else set(keep)
        labels: dict[str, str] = {}
        for s in store.query(
            f"SELECT ?e ?l WHERE {{ ?e <{RDFS_LABEL}> ?l FILTER(LANGMATCHES(LANG(?l), 'en')) }}"
        ):
            iri = s["e"].value
            if iri.startswith(WD):
                labels.setdefault(qid(iri), s["l"].value)
        rows = store.query(
            "SELECT ?h ?p ?t WHERE { ?h ?p ?t "
            f"FILTER(STRSTARTS(STR(?p), '{WDT}') && STRSTARTS(STR(?t), '{WD}Q') "
            f"&& STRSTARTS(STR(?h), '{WD}Q')) }}"
        )
        found: set[tuple[str, str, str]] = set()
        for s in rows:
            h, p, t = qid(s["h"].value), qid(s["p"].value), qid(s["t"].value)
            if p in excluded or h not in labels or t not in labels or h == t:
                continue
            if kept is not None and p not in kept:
                continue
            found.add((h, p, t))
        if not found:
            raise InputError(
                "the dump holds no truthy wdt: triple between two items with an English "
                "label; nothing to sample"
            )
        qids, rels, triples, graph = index_triples(found)
        kg = cls(store, qids, rels, triples, labels, excluded)
        kg.index = {q: i for i, q in enumerate(qids)}
        kg.graph = graph
        return kg

    @property
    def node_ids(self) -> list[str]:
        """Node index -> QID."""
        return self.qids

    def label(self, wid: str) -> str:
        """The English label of a QID or PID (the id itself when it has none)."""
        return self.labels.get(wid, wid)

    def named(self, wid: str) -> str:
        """``"label (ID)"``, GTSQA's entity and relation spelling."""
        return f"{self.label(wid)} ({wid})"

    def relation_named(self, pid: str) -> str:
        """A relation as it appears in ``answer_subgraph``: ``"label (PID)"``."""
        return self.named(pid)

    def edge_phrase(self, pid: str, answer_is_head: bool, other: str) -> str:
        """The template wording of one edge seen from the answer side: "has {r} X" when
        the answer side is the head, "is the {r} of X" when it is the tail."""
        rel = self.label(pid)
        return f"has {rel} {other}" if answer_is_head else f"is the {rel} of {other}"

    def select_query(self, tree: Any, edge_ids: Iterable[int]) -> str:
        """``SELECT DISTINCT ?answer`` over the tree's edges ``edge_ids`` (seeds as
        constants, one variable per other node)."""
        return sparql_select(tree.pattern(edge_ids))

    def tree_answers(
        self, tree: Any, edge_ids: Sequence[int], limit: int | None = None
    ) -> tuple[str, set[str]]:
        """(:meth:`select_query`, its answers; at most ``limit`` of them, None: all)."""
        query = self.select_query(tree, edge_ids)
        cap = "" if limit is None else f" LIMIT {int(limit)}"
        return query, self.answers(query + cap)

    def answers(self, query: str) -> set[str]:
        """The ``?answer`` bindings (QIDs) of a SPARQL SELECT.

        Raises:
            InputError: the query does not parse or fails (the store's message)."""
        try:
            return {r["answer"] for r in self.select(query) if "answer" in r}
        except (SyntaxError, OSError, ValueError) as exc:
            raise InputError(f"SPARQL failed: {exc}") from exc

    def full_subgraph(self, tree: Any) -> list[tuple[str, str, str]]:
        """The full answer subgraph: ``CONSTRUCT WHERE`` on the tree's pattern, as sorted
        (QID, PID, QID) triples."""
        return self.construct(sparql_construct(tree.pattern(range(len(tree.edges)))))

    def query_constants(self, query: str) -> set[str]:
        """The item QIDs a SPARQL query names (``wd:Q…`` or ``<…/entity/Q…>``)."""
        return set(_WD_CONST.findall(query))

    def triple(self, j: int) -> tuple[str, str, str]:
        """Triple ``j`` as (head QID, PID, tail QID)."""
        h, r, t = self.triples[j]
        return self.qids[h], self.relations[r], self.qids[t]

    def select(self, query: str) -> list[dict[str, str]]:
        """Run a SPARQL SELECT; each solution as ``{variable: QID or literal value}``."""
        out = []
        solutions = self.store.query(query)
        names = [v.value for v in solutions.variables]
        for s in solutions:
            row = {}
            for n in names:
                term = s[n]
                if term is not None:
                    row[n] = qid(term.value) if term.value.startswith(WD) else term.value
            out.append(row)
        return out

    def construct(self, query: str) -> list[tuple[str, str, str]]:
        """Run a SPARQL CONSTRUCT; its triples as (QID, PID, QID), sorted."""
        return sorted(
            (qid(t.subject.value), qid(t.predicate.value), qid(t.object.value))
            for t in self.store.query(query)
        )
