"""The Neo4j back end of SynthKGQA generation (spec ``synthkgqa.md`` §6 "Neo4j"): a kgbench
(or CypherBench) property graph in Neo4j, read once into the Rust adjacency the sampler works
on, with every validation query in Cypher on the same server (read access mode and
kgbench's read-only gate, :class:`kgbench.neo4j.GraphReader`).

- Entities are the nodes with an ``eid`` and a ``name`` (GTSQA dropped unlabelled nodes);
  an entity is spelt ``"name (eid)"`` and its id in answers and subgraphs is its ``eid``.
- Relations are relationship types; ``answer_subgraph`` triples are
  ``["name (eid)", TYPE, "name (eid)"]`` and the full answer subgraph
  ``[subject eid, TYPE, object eid]`` (spec §2, "property-graph ids").
- Queries use one ``MATCH`` per triple (SPARQL may bind two patterns to one edge; one
  Cypher MATCH never does, separate ones may), seeds matched as ``(:Label {eid: '…'})``
  (the loader's unique eid constraint makes that an index seek), answers
  ``RETURN DISTINCT answer.eid AS answer``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgbench.errors import InputError

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|[A-Z]")
_STRING = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")


def relation_words(rel_type: str) -> str:
    """A relationship type as lower-case words: ``hasCastMember`` -> ``has cast member``,
    ``DIRECTED_BY`` -> ``directed by``."""
    words = [w.lower() for part in re.split(r"[_\-\s]+", rel_type) for w in _WORD.findall(part)]
    return " ".join(words) or rel_type


def cypher_string(value: str) -> str:
    """A single-quoted Cypher string literal (``\\`` and ``'`` escaped)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


@dataclass
class PropertyGraphKG:
    """Entity–entity relationships of a Neo4j graph (module docstring), with the same
    back-end interface as :class:`kgbench.generate.synth.kg.WikidataKG`.

    ``eids[i]`` is node ``i``, ``node_labels[i]`` its first label; ``triples[j]`` is
    ``(head, relation index, tail)`` with ``relations[r]`` a relationship type; ``names``
    maps eids to names. ``skipped`` counts what was not read (nodes without eid or name,
    relationships touching them, self-loops, parallel duplicates)."""

    reader: Any
    eids: list[str]
    node_labels: list[str]
    relations: list[str]
    triples: list[tuple[int, int, int]]
    names: dict[str, str]
    skipped: dict[str, int] = field(default_factory=dict)
    index: dict[str, int] = field(default_factory=dict)
    graph: Any = None

    kg_name = "neo4j"
    query_field = "cypher_query"

    @classmethod
    def from_reader(
        cls, reader: Any, excluded: Iterable[str] = (), keep: Iterable[str] | None = None
    ) -> PropertyGraphKG:
        """Read nodes and relationships through ``reader`` (a
        :class:`~kgbench.neo4j.GraphReader`) and index them. ``excluded`` /
        ``keep``: relationship types to leave out / to keep only.

        Raises:
            InputError: two nodes share an eid, or no relationship joins two named
                entities.
        """
        from kgbench.generate.synth.kg import index_triples

        excluded = set(excluded)
        kept = None if keep is None else set(keep)
        skipped = {"nodes_without_eid_or_name": 0, "relationships": 0, "duplicates": 0}
        names: dict[str, str] = {}
        label_of: dict[str, str] = {}
        for rec in reader.run(
            "MATCH (n) RETURN n.eid AS eid, head(labels(n)) AS label, n.name AS name",
            timeout_s=0,
        ):
            eid, name = rec["eid"], rec["name"]
            if not isinstance(eid, str) or not isinstance(name, str) or not name:
                skipped["nodes_without_eid_or_name"] += 1
                continue
            if eid in names:
                raise InputError(
                    f"two nodes share the eid {eid!r} (labels {label_of[eid]!r} and "
                    f"{rec['label']!r}); SynthKGQA generation needs unique eids"
                )
            names[eid] = name
            label_of[eid] = str(rec["label"] or "")
        found: set[tuple[str, str, str]] = set()
        total = 0
        for rec in reader.run(
            "MATCH (a)-[r]->(b) RETURN a.eid AS h, type(r) AS r, b.eid AS t", timeout_s=0
        ):
            total += 1
            h, r, t = rec["h"], rec["r"], rec["t"]
            if r in excluded or (kept is not None and r not in kept):
                continue
            if h not in names or t not in names or h == t:
                skipped["relationships"] += 1
                continue
            found.add((h, r, t))
        skipped["duplicates"] = total - skipped["relationships"] - len(found)
        if not found:
            raise InputError(
                f"the graph holds no relationship between two entities with an eid and a "
                f"name ({len(names):,} such entities, {total:,} relationships read); "
                "nothing to sample"
            )
        used, rels, triples, graph = index_triples(found)
        kg = cls(
            reader,
            used,
            [label_of[e] for e in used],
            rels,
            triples,
            {e: names[e] for e in used},
            skipped,
        )
        kg.index = {e: i for i, e in enumerate(used)}
        kg.graph = graph
        return kg

    @property
    def node_ids(self) -> list[str]:
        """Node index -> eid."""
        return self.eids

    def label(self, wid: str) -> str:
        """The name of an eid; a relationship type as words; else the id itself."""
        if wid in self.names:
            return self.names[wid]
        return relation_words(wid) if wid in self.relations else wid

    def named(self, wid: str) -> str:
        """``"name (eid)"``, GTSQA's entity spelling."""
        return f"{self.label(wid)} ({wid})"

    def relation_named(self, rel_type: str) -> str:
        """A relation as it appears in ``answer_subgraph``: its type."""
        return rel_type

    def edge_phrase(self, rel_type: str, answer_is_head: bool, other: str) -> str:
        """The template wording of one edge seen from the answer side: "{r words} X" when
        the answer side is the head ("directed by X"), "is what X {r words}" when it is
        the tail ("is what Inception has cast member")."""
        words = relation_words(rel_type)
        return f"{words} {other}" if answer_is_head else f"is what {other} {words}"

    def triple(self, j: int) -> tuple[str, str, str]:
        """Triple ``j`` as (head eid, type, tail eid)."""
        h, r, t = self.triples[j]
        return self.eids[h], self.relations[r], self.eids[t]

    def _body(
        self, tree: Any, edge_ids: Iterable[int], params: dict[str, str] | None
    ) -> tuple[str, list[str]]:
        """The MATCH clauses of the tree's edges ``edge_ids`` and their relationship
        variables. Seed eids are literals, or ``$s<i>`` parameters collected into ``params``
        when given (one plan per query shape, not per seed: Neo4j plans each distinct text
        once, and planning costs more than running these queries)."""

        def node(i: int) -> str:
            if i == 0:
                return "(answer)"
            if i in tree.seeds:
                eid = tree.nodes[i]
                label = _ident(self.node_labels[self.index[eid]])
                if params is None:
                    return f"(n{i}:{label} {{eid: {cypher_string(eid)}}})"
                params[f"s{i}"] = eid
                return f"(n{i}:{label} {{eid: $s{i}}})"
            return f"(n{i})"

        matches, rels = [], []
        for j in edge_ids:
            p, c = tree.edges[j]
            h, r, _t = tree.triples[j]
            a, b = (p, c) if h == tree.nodes[p] else (c, p)
            matches.append(f"MATCH {node(a)}-[r{j}:{_ident(r)}]->{node(b)}")
            rels.append(f"r{j}")
        return " ".join(matches), rels

    def select_query(self, tree: Any, edge_ids: Iterable[int]) -> str:
        """The answers query over the tree's edges ``edge_ids``: one ``MATCH`` per edge,
        seeds as literals, ``RETURN DISTINCT answer.eid AS answer``."""
        body, _ = self._body(tree, edge_ids, None)
        return f"{body} RETURN DISTINCT answer.eid AS answer"

    def tree_answers(
        self, tree: Any, edge_ids: Sequence[int], limit: int | None = None
    ) -> tuple[str, set[str]]:
        """(:meth:`select_query`, its answers), executed with the seeds as parameters and
        at most ``limit`` answers fetched (None: all)."""
        params: dict[str, str] = {}
        body, _ = self._body(tree, edge_ids, params)
        cap = "" if limit is None else f" LIMIT {int(limit)}"
        return self.select_query(tree, edge_ids), self.answers(
            f"{body} RETURN DISTINCT answer.eid AS answer{cap}", params
        )

    def answers(self, query: str, params: dict[str, Any] | None = None) -> set[str]:
        """The ``answer`` column of a read query (eids).

        Raises:
            InputError: the query fails or is refused by the read-only gate (the server's
                message), or has no ``answer`` column.
        """
        from kgbench.neo4j.executor import QueryFailed

        try:
            records = self.reader.run(query, params)
        except QueryFailed as exc:
            raise InputError(f"Cypher failed: {exc}") from exc
        out = set()
        for rec in records:
            if "answer" not in rec.keys():  # noqa: SIM118 (a Record's `in` tests values)
                raise InputError("the Cypher query returns no column named 'answer'")
            value = rec["answer"]
            if value is not None:
                out.add(value if isinstance(value, str) else str(value))
        return out

    def full_subgraph(self, tree: Any) -> list[tuple[str, str, str]]:
        """The full answer subgraph: every relationship bound by the tree's pattern, as
        sorted (eid, TYPE, eid) triples."""
        params: dict[str, str] = {}
        body, rels = self._body(tree, range(len(tree.edges)), params)
        query = (
            f"{body} UNWIND [{', '.join(rels)}] AS r RETURN DISTINCT startNode(r).eid AS head, "
            "type(r) AS type, endNode(r).eid AS tail"
        )
        return sorted((r["head"], r["type"], r["tail"]) for r in self.reader.run(query, params))

    def query_constants(self, query: str) -> set[str]:
        """The entity eids a Cypher query names as string literals."""
        found = set()
        for m in _STRING.finditer(query):
            text = _unescape(m.group(1) if m.group(1) is not None else m.group(2))
            if text in self.names:
                found.add(text)
        return found
