"""Test-suite EX for Cypher on Neo4j: the :class:`~kgbench.evaluate.suites.core.SuiteBackend`
of a property graph loaded into a disposable Neo4j (spec ``test-suite.md``; issue 31).

- **Neighbour queries**: :func:`kgbench._core.cypher.neighbour_queries` (Rust, from the front
  end's parse of the gold): predicates dropped or negated, comparison operators changed,
  constants varied by ±1 (dates by a day or a year), ``DISTINCT`` added or dropped,
  aggregates swapped, order flipped, ``LIMIT`` dropped or varied, relationships reversed,
  labels / types / property keys swapped for others of the graph's schema (a property for
  one of the same datatype). Seeded; at most :data:`NEIGHBOURS` per gold.
- **Candidate deltas** near the gold's provenance subgraph (the nodes its MATCH part binds,
  :func:`kgbench._core.cypher.provenance_queries`; when it binds none, nodes of the labels
  the gold names), with the noise layer's kinds of operation: ``delete_relationship``,
  ``duplicate_relationship``, ``add_relationship`` (same type, between existing nodes of the
  schema's labels), ``set_property`` (a boundary value around the gold's constants, or a
  duplicate of another node's value), ``add_node`` (a copy of a matched node with its
  relationships), ``delete_node`` (``DETACH``), ``set_relationship_property`` (a property of
  a relationship at the matched nodes that the gold names: removed, or a boundary value
  around the gold's constants). Each delta's ops are parameterised Cypher write
  statements ``{"query", "params"}`` addressing nodes by ``eid`` and relationships by ``rid``
  (the loader's stable ids), so a cached suite applies to any database loaded from the same
  graph.
- **run_with**: ONE write transaction on the disposable database
  (:meth:`kgbench.neo4j.disposable.DisposableNeo4j.run_rolled_back`): the ops, then the
  queries, then a rollback. Never the user's server; write queries are never sent.
- **same**: EX's rule (:func:`kgbench.evaluate.execution_accuracy`, order from the gold).

The graph's fingerprint is the SHA-256 of its ``graph.json`` bytes (of the canonical JSON of
a graph given as a dict or a Parquet pair).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgbench.evaluate.suites.core import Delta
from kgbench.neo4j.disposable import WriteRefusedError
from kgbench.neo4j.executor import CONNECTION, ConnectionLostError, classify

#: Neighbour queries per gold (the Rust generator's budget).
NEIGHBOURS = 48
#: Nodes of the provenance subgraph the deltas are drawn from (by ``eid`` order).
MAX_NODES = 200
#: Attempts again of a rolled-back transaction that a concurrent one's locks broke.
RETRIES = 5
#: Waits (seconds) before each new attempt of a read or rolled-back transaction whose
#: connection to the server was lost (a socket timeout while the server is busy).
RECONNECT_WAITS_S = (2.0, 5.0, 10.0, 20.0, 40.0)
#: Kinds of delta, in the order candidates are drawn in turn.
DELTA_KINDS = (
    "set_property",
    "delete_relationship",
    "add_node",
    "duplicate_relationship",
    "add_relationship",
    "delete_node",
    "set_relationship_property",
)


@dataclass(frozen=True)
class Outcome:
    """One query's result on one graph: ``columns`` and plain ``rows``
    (:func:`kgbench.neo4j.executor.to_plain`), or ``error`` (one line)."""

    columns: tuple[str, ...] = ()
    rows: tuple[tuple[Any, ...], ...] = ()
    error: str | None = None


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def neighbour_schema(graph: Mapping[str, Any]) -> dict[str, Any]:
    """The schema :func:`kgbench._core.cypher.neighbour_queries` swaps from, built from a
    graph's SPEC.md §2 ``schema``: labels, relationship types, and per label / type the
    property keys with their datatypes (``name``, ``description``: ``str``; ``aliases``:
    ``list[str]``, as the loader writes them)."""
    schema = graph.get("schema") or {}
    labels: list[str] = []
    node_props: dict[str, dict[str, str]] = {}
    for e in schema.get("entities", []):
        label = str(e["label"])
        labels.append(label)
        props = {"name": "str", "description": "str", "aliases": "list[str]"}
        props.update({str(k): str(v) for k, v in (e.get("properties") or {}).items()})
        node_props[label] = props
    types: list[str] = []
    rel_props: dict[str, dict[str, str]] = {}
    for r in schema.get("relations", []):
        t = str(r["label"])
        if t not in rel_props:
            types.append(t)
            rel_props[t] = {}
        rel_props[t].update({str(k): str(v) for k, v in (r.get("properties") or {}).items()})
    return {
        "labels": sorted(set(labels)),
        "types": sorted(set(types)),
        "node_properties": node_props,
        "relationship_properties": rel_props,
    }


def graph_fingerprint(graph: Mapping[str, Any] | str | Path) -> str:
    """SHA-256 (hex) of a graph's ``graph.json`` bytes, or of the canonical JSON of a graph
    dict (or of a directory without ``graph.json``)."""
    from kgbench.neo4j.loader import graph_json_path, read_graph_file

    if not isinstance(graph, Mapping):
        path = graph_json_path(graph)
        if path is not None:
            h = hashlib.sha256()
            with Path(path).open("rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            return h.hexdigest()
        graph = read_graph_file(graph)
    text = json.dumps(graph, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: Constants of a gold query: numbers, quoted strings, ``date('...')``.
_NUMBER = re.compile(r"(?<![\w.$])-?\d+(?:\.\d+)?(?![\w.])")
_STRING = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")
_NAME = re.compile(r"[:.]\s*(`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)")
_KEY = re.compile(r"[{,]\s*(`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)\s*:")


class CypherSuiteBackend:
    """The test-suite backend of one graph loaded into a :class:`DisposableNeo4j` (module
    docstring).

    Args:
        db: a running disposable database kgbench created and loaded with ``graph``.
        graph: the graph dict (SPEC.md §2) that was loaded (for its schema).
        fingerprint: its content fingerprint (:func:`graph_fingerprint`).
        dialect: the Cypher dialect of the server (``"5"`` or ``"25"``).
        neighbours: neighbour queries per gold.
        timeout_s: timeout of one rolled-back transaction, in seconds.
    """

    def __init__(
        self,
        db: Any,
        graph: Mapping[str, Any],
        fingerprint: str,
        *,
        dialect: str = "5",
        neighbours: int = NEIGHBOURS,
        timeout_s: float = 60.0,
    ) -> None:
        from kgbench.neo4j.disposable import require_disposable

        self.db = require_disposable(db)
        self.schema = neighbour_schema(graph)
        self._schema_json = json.dumps(self.schema, sort_keys=True)
        self._fingerprint = fingerprint
        self.dialect = dialect
        self.neighbours = neighbours
        #: Reads and transactions run again after a lost connection (:meth:`_again`).
        self.reconnects = 0
        self.timeout_s = timeout_s
        self._relations = [
            (str(r["label"]), str(r["subj_label"]), str(r["obj_label"]))
            for r in (graph.get("schema") or {}).get("relations", [])
        ]

    # -- SuiteBackend -------------------------------------------------------------------
    def fingerprint(self) -> str:
        """The graph's content fingerprint (given at construction)."""
        return self._fingerprint

    def neighbour_queries(self, gold: str, seed: int) -> list[str]:
        """Up to :attr:`neighbours` seeded neighbour queries of ``gold`` (none when the gold
        does not parse)."""
        from kgbench._core import cypher

        try:
            found = cypher.neighbour_queries(
                gold, self._schema_json, seed, self.neighbours, self.dialect
            )
        except cypher.CypherSyntaxError:
            return []
        return [q for _, q in found]

    def run_with(self, delta: Delta | None, queries: Sequence[str]) -> list[Outcome]:
        """Each query's :class:`Outcome` on the graph with ``delta`` applied, in one rolled-back
        transaction (module docstring). A delta whose ops fail gives every query an error. A
        transaction that a concurrent one's locks broke (a ``TransientError``) is run again,
        up to :data:`RETRIES` times; one whose connection was lost is run again after the
        waits of :data:`RECONNECT_WAITS_S`.

        Raises:
            ConnectionLostError: the server was still unreachable after the last wait (a lost
                connection is never scored as a differing result or a failed delta).
            WriteRefusedError: the disposable database is no longer running.
        """
        from kgbench.neo4j.executor import to_plain

        ops = [
            (str(op["query"]), dict(op.get("params") or {})) for op in (delta.ops if delta else ())
        ]
        attempt = 0
        while True:
            try:
                raw = self.db.run_rolled_back(ops, list(queries), timeout_s=self.timeout_s)
            except WriteRefusedError:  # the server stopped: not a property of this delta
                raise
            except Exception as exc:  # an op failed: no query of this delta has a result
                if self._again(exc, attempt):
                    attempt += 1
                    continue
                line = " ".join(str(getattr(exc, "message", None) or exc).split())
                return [Outcome(error=f"delta failed: {line}") for _ in queries]
            broken = next((r for r in raw if isinstance(r, BaseException) and _retried(r)), None)
            if broken is not None and self._again(broken, attempt):
                attempt += 1
                continue
            break
        out = []
        for r in raw:
            if isinstance(r, BaseException):
                line = " ".join(str(getattr(r, "message", None) or r).split())
                out.append(Outcome(error=line or type(r).__name__))
            else:
                keys, rows = r
                out.append(
                    Outcome(
                        columns=tuple(keys),
                        rows=tuple(tuple(to_plain(v) for v in row) for row in rows),
                    )
                )
        return out

    def same(self, gold: str, gold_result: Any, other: Any) -> bool:
        """EX's rule on two :class:`Outcome` values (false when either failed or the
        comparison cannot decide)."""
        from kgbench.evaluate import execution_accuracy, order_matters

        if gold_result.error is not None or other.error is not None:
            return False
        try:
            return (
                execution_accuracy(
                    [list(r) for r in gold_result.rows],
                    [list(r) for r in other.rows],
                    order_matters(gold),
                )
                == 1.0
            )
        except (TypeError, ValueError):
            return False

    def candidate_deltas(self, gold: str, seed: int, count: int) -> list[Delta]:
        """At most ``count`` seeded deltas near ``gold``'s provenance subgraph (module
        docstring), drawn from the kinds in turn (:data:`DELTA_KINDS`), each kind's pool
        shuffled by ``random.Random`` seeded with ``(seed, gold, kind)``."""
        if count <= 0:
            return []
        labels, types, keys = self._names_in(gold)
        nodes = self._provenance_nodes(gold, labels, types)
        rels = self._incident(nodes, types)
        pools: dict[str, list[tuple[str, list[dict[str, Any]], str]]] = {
            "delete_relationship": [self._delete_rel(r) for r in rels],
            "duplicate_relationship": [self._duplicate_rel(r) for r in rels],
            "delete_node": [self._delete_node(n) for n in nodes],
            "add_node": [self._add_node(n, rels) for n in nodes],
            "set_property": self._set_properties(gold, nodes, keys, seed),
            "add_relationship": self._add_relationships(nodes, types, seed),
            "set_relationship_property": self._set_rel_properties(gold, rels),
        }
        for kind, pool in pools.items():
            random.Random(f"{seed}\0{gold}\0{kind}").shuffle(pool)
            # drawn from the end: the changes that use the gold's own constants first
            pool.sort(key=lambda item: item[2].startswith("set ") and "(constant)" in item[2])
        out: list[Delta] = []
        seen: set[str] = set()
        while len(out) < count and any(pools.values()):
            for kind in DELTA_KINDS:
                pool = pools[kind]
                while pool and len(out) < count:
                    ops_kind, ops, description = pool.pop()
                    key = json.dumps(ops, sort_keys=True, default=str)
                    if key in seen:
                        continue
                    seen.add(key)
                    out.append(
                        Delta(
                            id=f"d{len(out):02d}",
                            kind=ops_kind,
                            ops=tuple(ops),
                            description=description,
                        )
                    )
                    break
        return out

    # -- the neighbourhood -------------------------------------------------------------
    def _names_in(self, gold: str) -> tuple[list[str], list[str], list[str]]:
        """Labels, relationship types and property keys of the schema the gold names."""
        names = {m.group(1).strip("`") for m in _NAME.finditer(gold)}
        names |= {m.group(1).strip("`") for m in _KEY.finditer(gold)}
        labels = [x for x in self.schema["labels"] if x in names]
        types = [x for x in self.schema["types"] if x in names]
        keys = sorted(
            {k for props in self.schema["node_properties"].values() for k in props if k in names}
        )
        return labels, types, keys

    def _read(self, query: str, **params: Any) -> list[list[Any]]:
        """The rows of a read-only query, run again when its connection was lost
        (:meth:`_again`)."""
        attempt = 0
        while True:
            try:
                return self.db.read_rows(query, params)[1]
            except Exception as exc:
                if not _lost(exc) or not self._again(exc, attempt):
                    raise
                attempt += 1

    def _again(self, exc: BaseException, attempt: int) -> bool:
        """Whether the transaction that raised ``exc`` on attempt ``attempt`` (0-based) runs
        again: a ``TransientError`` up to :data:`RETRIES` times, a lost connection after each
        wait of :data:`RECONNECT_WAITS_S` (slept here; counted in :attr:`reconnects`).

        Raises:
            ConnectionLostError: a lost connection after the last wait.
        """
        if _lost(exc):
            if attempt >= len(RECONNECT_WAITS_S):
                raise ConnectionLostError(
                    f"the connection to the suite graph's Neo4j at {self.db.uri} was lost "
                    f"{attempt + 1} times in a row ({type(exc).__name__}: {exc}); is the "
                    "server out of memory? Rerun with a larger KGBENCH_NEO4J_HEAP"
                ) from exc
            self.reconnects += 1
            time.sleep(RECONNECT_WAITS_S[attempt])
            return True
        import neo4j.exceptions

        return isinstance(exc, neo4j.exceptions.TransientError) and attempt < RETRIES

    def _provenance_nodes(
        self, gold: str, labels: list[str], types: list[str]
    ) -> list[tuple[str, str]]:
        """``(eid, label)`` of the nodes the gold's MATCH part binds (at most
        :data:`MAX_NODES`, by eid), else of some nodes of the labels it names (those with a
        relationship of a type it names first)."""
        from kgbench._core import cypher

        ids: set[str] = set()
        try:
            queries = cypher.provenance_queries(gold, self.dialect)
        except cypher.CypherSyntaxError:
            queries = []
        for q in queries:
            try:
                ids.update(str(row[0]) for row in self._read(q))
            except ConnectionLostError:
                raise
            except Exception:  # the gold's provenance fails: fall back to its labels
                continue
        rows: list[list[Any]] = []
        if ids:
            rows = self._read(
                "MATCH (n) WHERE elementId(n) IN $ids AND n.eid IS NOT NULL "
                "RETURN n.eid, labels(n) ORDER BY n.eid LIMIT $k",
                ids=sorted(ids),
                k=MAX_NODES,
            )
        if not rows:
            for label in labels:
                rows += self._read(
                    f"MATCH (n:{_q(label)}) "
                    "RETURN n.eid, labels(n), EXISTS { (n)-[r]-() WHERE type(r) IN $types } AS t "
                    "ORDER BY t DESC, n.eid LIMIT 20",
                    types=types,
                )
        return [(str(r[0]), sorted(r[1])[0]) for r in rows if r[1]]

    def _incident(
        self, nodes: list[tuple[str, str]], types: list[str]
    ) -> list[tuple[str, str, str, str, str, str]]:
        """Relationships at the nodes ``(rid, type, start eid, start label, end eid, end
        label)``, those of the gold's types first, at most 400, by rid."""
        if not nodes:
            return []
        rows = self._read(
            "MATCH (n)-[r]-(m) WHERE n.eid IN $eids AND r.rid IS NOT NULL "
            "WITH DISTINCT r RETURN r.rid, type(r), startNode(r).eid, labels(startNode(r)), "
            "endNode(r).eid, labels(endNode(r)), type(r) IN $types AS wanted "
            "ORDER BY wanted DESC, r.rid LIMIT 400",
            eids=[e for e, _ in nodes],
            types=types,
        )
        return [
            (str(r[0]), str(r[1]), str(r[2]), sorted(r[3])[0], str(r[4]), sorted(r[5])[0])
            for r in rows
            if r[3] and r[5]
        ]

    # -- delta builders ------------------------------------------------------------------
    @staticmethod
    def _rel_match(r: tuple[str, str, str, str, str, str]) -> str:
        _, t, _, sl, _, ol = r
        return (
            f"MATCH (s:{_q(sl)} {{eid: $s}})-[r:{_q(t)}]->(o:{_q(ol)} {{eid: $o}}) "
            "WHERE r.rid = $rid "
        )

    def _delete_rel(self, r: Any) -> tuple[str, list[dict[str, Any]], str]:
        rid, t, s, _, o, _ = r
        ops = [{"query": self._rel_match(r) + "DELETE r", "params": {"s": s, "o": o, "rid": rid}}]
        return "delete_relationship", ops, f"delete ({s})-[:{t} rid {rid}]->({o})"

    def _duplicate_rel(self, r: Any) -> tuple[str, list[dict[str, Any]], str]:
        rid, t, s, _, o, _ = r
        q = self._rel_match(r) + f"CREATE (s)-[d:{_q(t)}]->(o) SET d = properties(r), d.rid = $new"
        ops = [{"query": q, "params": {"s": s, "o": o, "rid": rid, "new": f"{rid}~ts"}}]
        return "duplicate_relationship", ops, f"duplicate ({s})-[:{t} rid {rid}]->({o})"

    def _delete_node(self, n: tuple[str, str]) -> tuple[str, list[dict[str, Any]], str]:
        eid, label = n
        ops = [
            {"query": f"MATCH (n:{_q(label)} {{eid: $e}}) DETACH DELETE n", "params": {"e": eid}}
        ]
        return "delete_node", ops, f"delete node {eid} and its relationships"

    def _add_node(
        self, n: tuple[str, str], rels: list[Any]
    ) -> tuple[str, list[dict[str, Any]], str]:
        eid, label = n
        new = f"{eid}~ts"
        ops: list[dict[str, Any]] = [
            {
                "query": f"MATCH (a:{_q(label)} {{eid: $e}}) CREATE (b:{_q(label)}) "
                "SET b = properties(a), b.eid = $new",
                "params": {"e": eid, "new": new},
            }
        ]
        shapes = sorted({(r[1], r[2] == eid) for r in rels if eid in (r[2], r[4])})
        for t, outgoing in shapes:
            arrow = f"-[r:{_q(t)}]->(o)" if outgoing else f"<-[r:{_q(t)}]-(o)"
            copy = f"-[c:{_q(t)}]->(o)" if outgoing else f"<-[c:{_q(t)}]-(o)"
            ops.append(
                {
                    "query": f"MATCH (a:{_q(label)} {{eid: $e}}){arrow} "
                    f"MATCH (b:{_q(label)} {{eid: $new}}) "
                    f"CREATE (b){copy} SET c = properties(r), c.rid = r.rid + '~ts'",
                    "params": {"e": eid, "new": new},
                }
            )
        return "add_node", ops, f"add a copy of node {eid} ({label}) with its relationships"

    def _add_relationships(
        self, nodes: list[tuple[str, str]], types: list[str], seed: int
    ) -> list[tuple[str, list[dict[str, Any]], str]]:
        out = []
        rng = random.Random(f"{seed}\0add_relationship")
        by_label: dict[str, list[str]] = {}
        for eid, label in nodes:
            by_label.setdefault(label, []).append(eid)
        for t, sl, ol in self._relations:
            if types and t not in types:
                continue
            for end, here in (("subject", sl), ("object", ol)):
                if here not in by_label:
                    continue
                other_label = ol if end == "subject" else sl
                others = [
                    str(r[0])
                    for r in self._read(
                        f"MATCH (x:{_q(other_label)}) RETURN x.eid ORDER BY x.eid LIMIT 200"
                    )
                ]
                if not others:
                    continue
                for eid in by_label[here][:8]:
                    other = others[rng.randrange(len(others))]
                    s, o = (eid, other) if end == "subject" else (other, eid)
                    q = (
                        f"MATCH (s:{_q(sl)} {{eid: $s}}), (o:{_q(ol)} {{eid: $o}}) "
                        f"CREATE (s)-[:{_q(t)} {{rid: $rid}}]->(o)"
                    )
                    ops = [{"query": q, "params": {"s": s, "o": o, "rid": f"ts~{s}~{t}~{o}"}}]
                    out.append(("add_relationship", ops, f"add ({s})-[:{t}]->({o})"))
        return out

    def _set_rel_properties(
        self, gold: str, rels: list[tuple[str, str, str, str, str, str]]
    ) -> list[tuple[str, list[dict[str, Any]], str]]:
        """Relationship properties the gold names, on the relationships at its nodes (at most
        24, those of its types first): removed, or set to the gold's constants or ±1 around a
        number (±1 day around a date), within the property's datatype in the schema."""
        names = {m.group(1).strip("`") for m in _NAME.finditer(gold)}
        names |= {m.group(1).strip("`") for m in _KEY.finditer(gold)}
        props = self.schema["relationship_properties"]
        if not any(k in names for p in props.values() for k in p):
            return []
        constants = _GoldConstants.of(gold)
        out = []
        for r in rels[:24]:
            rid, t = r[0], r[1]
            for key, dtype in sorted(props.get(t, {}).items()):
                if key not in names:
                    continue
                for shown, v, conv in _candidate_values(constants, dtype, relationship=True):
                    if v is None:
                        q = self._rel_match(r) + f"REMOVE r.{_q(key)}"
                    else:
                        q = self._rel_match(r) + f"SET r.{_q(key)} = {conv}($v)"
                    params: dict[str, Any] = {"s": r[2], "o": r[4], "rid": rid}
                    if v is not None:
                        params["v"] = v
                    out.append(
                        (
                            "set_relationship_property",
                            [{"query": q, "params": params}],
                            f"set ({r[2]})-[:{t} rid {rid}]->({r[4]}).{key} = {shown}",
                        )
                    )
        return out

    def _set_properties(
        self, gold: str, nodes: list[tuple[str, str]], keys: list[str], seed: int
    ) -> list[tuple[str, list[dict[str, Any]], str]]:
        """Properties the gold names, on its nodes (and a few other nodes of their labels):
        set to the gold's constants, ±1 around them, null, or another node's value."""
        out = []
        constants = _GoldConstants.of(gold)
        rng = random.Random(f"{seed}\0set_property")
        targets = list(nodes[:24])
        for label in sorted({lab for _, lab in nodes}):
            targets += [
                (str(r[0]), label)
                for r in self._read(
                    f"MATCH (x:{_q(label)}) RETURN x.eid ORDER BY x.eid SKIP $k LIMIT 4",
                    k=rng.randrange(50),
                )
            ]
        for eid, label in targets:
            props = self.schema["node_properties"].get(label, {})
            for key in keys:
                dtype = props.get(key)
                if dtype is None:
                    continue
                kind = _value_kind(dtype)
                if kind == "list":
                    for text in constants.plain:
                        add = f"coalesce(n.{_q(key)}, []) + [$v]"
                        drop = f"[x IN coalesce(n.{_q(key)}, []) WHERE x <> $v]"
                        for how, expr in (("add", add), ("remove", drop)):
                            q = f"MATCH (n:{_q(label)} {{eid: $e}}) SET n.{_q(key)} = {expr}"
                            out.append(
                                (
                                    "set_property",
                                    [{"query": q, "params": {"e": eid, "v": text}}],
                                    f"set {eid}.{key}: {how} {text!r} (constant)",
                                )
                            )
                    continue
                values = _candidate_values(constants, dtype, relationship=False)
                if kind == "text":
                    dup = self._read(
                        f"MATCH (x:{_q(label)}) WHERE x.eid <> $e AND x.{_q(key)} IS NOT NULL "
                        f"RETURN x.{_q(key)} ORDER BY x.eid LIMIT 1",
                        e=eid,
                    )
                    if dup and isinstance(dup[0][0], str):
                        values.append((f"another node's {key}", dup[0][0], ""))
                for shown, v, conv in values:
                    if v is None:
                        q = f"MATCH (n:{_q(label)} {{eid: $e}}) REMOVE n.{_q(key)}"
                    elif conv:
                        q = f"MATCH (n:{_q(label)} {{eid: $e}}) SET n.{_q(key)} = {conv}($v)"
                    else:
                        q = f"MATCH (n:{_q(label)} {{eid: $e}}) SET n.{_q(key)} = $v"
                    params: dict[str, Any] = {"e": eid}
                    if v is not None:
                        params["v"] = v
                    out.append(
                        (
                            "set_property",
                            [{"query": q, "params": params}],
                            f"set {eid}.{key} = {shown}",
                        )
                    )
        return out


#: Datatypes (lower case, by prefix) whose values are numbers; ``int`` and ``long`` integers.
_NUMERIC = ("int", "float", "num", "double", "long", "quantity")


@dataclass(frozen=True)
class _GoldConstants:
    """The constants of a gold query, each sorted: its numbers, its quoted ``YYYY-MM-DD``
    strings (``dates``) and its other quoted strings (``plain``)."""

    numbers: tuple[float, ...]
    dates: tuple[str, ...]
    plain: tuple[str, ...]

    @classmethod
    def of(cls, gold: str) -> _GoldConstants:
        numbers = sorted({float(m.group(0)) for m in _NUMBER.finditer(gold)})
        strings = sorted({m.group(1) or m.group(2) or "" for m in _STRING.finditer(gold)})
        dates = [x for x in strings if re.fullmatch(r"\d{4}-\d{2}-\d{2}", x)]
        plain = [x for x in strings if x not in dates]
        return cls(tuple(numbers), tuple(dates), tuple(plain))


def _value_kind(dtype: str) -> str:
    """What a property of the schema's datatype ``dtype`` (any case) holds: ``date`` (the name
    has ``date``), ``int`` or ``float`` (it starts as one of :data:`_NUMERIC`), ``list`` (it has
    ``list``) or ``text``, tested in that order."""
    lower = dtype.lower()
    if "date" in lower:
        return "date"
    if lower.startswith(_NUMERIC):
        return "int" if lower.startswith(("int", "long")) else "float"
    return "list" if "list" in lower else "text"


def _candidate_values(
    constants: _GoldConstants, dtype: str, *, relationship: bool
) -> list[tuple[str, Any, str]]:
    """The values a set-property delta gives a property of datatype ``dtype`` (the schema's,
    :func:`_value_kind`), as ``(shown, value, conversion)``: ``shown`` the text in the
    delta's description (the gold's constants are marked ``(constant)``, which orders the
    pools in :meth:`CypherSuiteBackend.candidate_deltas`), ``value`` the query parameter
    (None: the property is removed), ``conversion`` the Cypher function applied to it
    (``date`` or empty).

    First null; then, for a date, each of the gold's dates and ±1 day around it
    (:func:`_shift`); for a number, each of the gold's numbers and ±1 around it (whole numbers
    for ``int`` and ``long``); for text, the gold's other strings; for a list, nothing more
    (node lists get their own add / remove deltas). ``relationship`` keeps the order and texts
    of relationship properties (each date, then it - 1 and + 1 day, shown ``date('d') - 1
    day``, ``date('d') + 1 day``); else those of node properties (every date, then each - 1
    and + 1 day, both shown ``date('d') ± 1 day``). The pools and their order are part of a
    suite's content, by which suites are cached."""
    kind = _value_kind(dtype)
    values: list[tuple[str, Any, str]] = [("null", None, "")]
    if kind == "date" and relationship:
        values += [
            (f"date('{d}'){how} (constant)", _shift(d, k), "date")
            for d in constants.dates
            for k, how in ((0, ""), (-1, " - 1 day"), (1, " + 1 day"))
        ]
    elif kind == "date":
        values += [(f"date('{d}') (constant)", d, "date") for d in constants.dates]
        values += [
            (f"date('{d}') ± 1 day (constant)", _shift(d, k), "date")
            for d in constants.dates
            for k in (-1, 1)
        ]
    elif kind in ("int", "float"):
        for x in constants.numbers:
            for v in (x - 1, x, x + 1):
                val: Any = int(v) if kind == "int" else v
                values.append((f"{val!r} (constant)", val, ""))
    elif kind == "text":
        values += [(f"{x!r} (constant)", x, "") for x in constants.plain]
    return values


def _shift(day: str, k: int) -> str:
    import datetime as dt

    try:
        d = dt.date.fromisoformat(day) + dt.timedelta(days=k)
    except (ValueError, OverflowError):
        return day
    return d.isoformat()


def _lost(exc: BaseException) -> bool:
    """Whether ``exc`` is a lost or unreachable server (the executor's error class
    ``connection``, :func:`kgbench.neo4j.executor.classify`)."""
    return classify(exc) == CONNECTION


def _retried(exc: BaseException) -> bool:
    """Whether a query that raised ``exc`` is run again (:meth:`CypherSuiteBackend._again`)."""
    import neo4j.exceptions

    return _lost(exc) or isinstance(exc, neo4j.exceptions.TransientError)


def open_suite_graph(
    graph: str | Path, *, heap: str | None = None, version: str | None = None
) -> tuple[Any, dict[str, Any], str]:
    """Start a :class:`~kgbench.neo4j.disposable.DisposableNeo4j` (Neo4j release ``version``,
    as ``kgbench neo4j start --version``; None: the default) loaded with ``graph`` (a
    ``graph.json`` or a ``kgbench convert`` output directory): ``(db, graph dict,
    fingerprint)``. The caller stops ``db``.

    Raises:
        InputError: one line naming the graph when it cannot be read or no disposable server
            can be started (no Java, launcher not built: ``make neo4j``), before anything is
            scored.
    """
    from kgbench.errors import InputError
    from kgbench.neo4j.disposable import DisposableNeo4j
    from kgbench.neo4j.loader import read_graph_file

    try:
        data = read_graph_file(graph)
    except InputError as exc:
        raise InputError(f"--suite-graph {graph}: {exc}") from exc
    fingerprint = graph_fingerprint(graph)
    db = DisposableNeo4j(graph, heap=heap, version=version)
    try:
        db.start()
    except Exception as exc:
        db.stop()
        line = " ".join(str(exc).split())
        raise InputError(
            f"--test-suite: cannot start a disposable Neo4j for {graph} ({line}); test-suite "
            "EX runs only on a database kgbench starts itself (build the launcher: make neo4j)"
        ) from exc
    return db, data, fingerprint


def score_test_suite(
    result: Any,
    backend: CypherSuiteBackend,
    *,
    max_size: int = 8,
    seed: int = 0,
    candidates: int = 32,
    cache: Any = None,
    scope: str = "",
    workers: int = 4,
) -> None:
    """Add test-suite EX to a Cypher :class:`~kgbench.evaluate.runner.EvaluationResult` (in
    place): per scored task ``metrics.ts_execution_accuracy`` and ``test_suite``
    (:func:`~kgbench.evaluate.suites.core.ts_task_record`), and ``result.test_suite``
    (:func:`~kgbench.evaluate.suites.core.ts_aggregate`, ``ex_not_ts``, ``max_size``, ``seed``).

    Suites come from ``cache`` (a :class:`~kgbench.evaluate.suites.core.SuiteCache`; a fresh
    in-memory one when None) or are distilled. Only a prediction with EX 1 is run on the
    suite (a prediction identical to the gold scores 1 without running; one refused by the
    read-only gate has EX 0 and is never run). The gold's results on each suite delta are
    computed once per gold (not at all for a suite distilled in this call). Missing suites are
    distilled, and predictions scored, on ``workers`` threads.
    """
    from concurrent.futures import ThreadPoolExecutor

    from kgbench._core.cypher import write_clauses
    from kgbench.evaluate.suites.core import (
        SuiteCache,
        TsVerdict,
        ex_not_ts,
        ts_aggregate,
        ts_task_record,
        ts_verdict,
    )

    cache = cache if cache is not None else SuiteCache()
    suites = cache.suites_for(
        backend,
        [(scope or str(t.get("graph", "")), t["gold_cypher"]) for t in result.records],
        max_size=max_size,
        seed=seed,
        candidates=candidates,
        workers=workers,
    )

    def gold_results(gold: str) -> list[Any]:
        suite = suites[gold]
        if suite.gold_results is not None:  # distilled in this run: already known
            return list(suite.gold_results)
        out = backend.run_with(None, [gold])
        for d in suite.deltas:
            out += backend.run_with(d, [gold])
        return out

    def verdict(t: dict[str, Any]) -> TsVerdict:
        gold, pred = t["gold_cypher"], t.get("pred_cypher")
        if t["metrics"].get("execution_accuracy") != 1.0 or pred is None:
            return TsVerdict(correct=False, on_original=False)
        if pred == gold:
            return TsVerdict(correct=True, on_original=True)
        if write_clauses(pred, backend.dialect):  # never run (EX 1 cannot have come from it)
            return TsVerdict(correct=False, on_original=False)
        return ts_verdict(backend, suites[gold], gold, pred, golds[gold], original_same=True)

    need = {
        t["gold_cypher"]
        for t in result.records
        if t["metrics"].get("execution_accuracy") == 1.0
        and t.get("pred_cypher") not in (None, t["gold_cypher"])
        and suites[t["gold_cypher"]].deltas
    }
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        golds = dict(zip(sorted(need), pool.map(gold_results, sorted(need)), strict=True))
        for g, s in suites.items():
            golds.setdefault(g, [None] * (1 + len(s.deltas)))
        verdicts = list(pool.map(verdict, result.records))
    for t, v in zip(result.records, verdicts, strict=True):
        t["metrics"]["ts_execution_accuracy"] = v.score
        t["test_suite"] = ts_task_record(suites[t["gold_cypher"]], v)
    agg = ts_aggregate(result.records, cache.counts())
    agg["max_size"] = max_size
    agg["seed"] = seed
    agg["ex_not_ts_tasks"] = ex_not_ts(result.records)
    result.test_suite = agg
