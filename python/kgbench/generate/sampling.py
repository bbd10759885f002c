"""The graph-sampling layer shared by kgbench's benchmark generators.

Every query a generator sends goes through :class:`kgbench.neo4j.GraphReader`, the executor
(:class:`kgbench.neo4j.QueryExecutor`) under the generators' defaults: the read-only gate,
READ-mode sessions, a per-query timeout, one-line errors and the counters.

- :func:`read_snapshot` — an in-memory snapshot of the graph (``kgbench._core.sample``, Rust):
  each node's first label, each relationship's type and ends, and the values of the named
  node and relationship properties, interned as value ids.
- :func:`java_text` — a value as ``apoc.util.md5`` hashes it (Java's ``String.valueOf``), so
  rankings computed here equal those CypherBench's queries compute with APOC (spec
  ``cypherbench-taskgen.md`` §6.9).
- :func:`cypher_sort_key` — Cypher's ``ORDER BY`` order for the values of one property.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from kgbench.errors import KgbenchError
from kgbench.neo4j.executor import GraphReader


def java_double(x: float) -> str:
    """Java's ``Double.toString(x)``: shortest round-trip digits, ``215.0``, ``0.001``,
    ``1.0E7``, ``1.5E-5`` (plain notation for 1e-3 ≤ |x| < 1e7)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    _, digit_tuple, exp = Decimal(repr(abs(x))).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    assert isinstance(exp, int)
    # scientific exponent of the first digit
    sci = len("".join(map(str, digit_tuple))) - 1 + exp
    ax = abs(x)
    if 1e-3 <= ax < 1e7:
        if sci >= 0:
            whole = (digits[: sci + 1]).ljust(sci + 1, "0")
            frac = digits[sci + 1 :] or "0"
        else:
            whole, frac = "0", "0" * (-sci - 1) + digits
        return f"{sign}{whole}.{frac}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{sci}"


def java_text(value: Any) -> str:
    """``value`` as ``apoc.util.md5`` concatenates it (Java ``String.valueOf``): null → ``""``,
    booleans ``true``/``false``, integers in decimal, floats by :func:`java_double`, dates
    ISO ``YYYY-MM-DD``, lists ``[a, b]``, strings as they are."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join("null" if v is None else java_text(v) for v in value) + "]"
    iso = getattr(value, "iso_format", None)
    if callable(iso):
        return str(iso())
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return str(value)


def cypher_sort_key(value: Any) -> tuple[Any, ...]:
    """A sort key giving Cypher's ``ORDER BY`` order for values of one property: numbers
    numerically, strings by UTF-16 code units (Java ``String.compareTo``), dates and times
    chronologically, booleans false first; values of different kinds by kind."""
    if isinstance(value, bool):
        return (3, value)
    if isinstance(value, (int, float)):
        return (2, value)
    if isinstance(value, str):
        return (1, value.encode("utf-16-be"))
    to_native = getattr(value, "to_native", None)
    if callable(to_native):
        return (0, to_native())
    return (0, value)


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return ("list", tuple(_hashable(v) for v in value))
    return (type(value).__name__, value)


@dataclass
class Snapshot:
    """An in-memory snapshot of a graph (see :func:`read_snapshot`).

    ``graph`` is the native ``kgbench._core.sample.SampleGraph``; ``labels`` / ``types`` the
    names of its label and type ids; ``values`` the Python value of each value id (index 0 is
    None); ``node_props`` / ``rel_props`` the property names of the slots, in slot order.
    """

    graph: Any
    labels: list[str]
    types: list[str]
    values: list[Any]
    node_props: list[str]
    rel_props: list[str]
    nodes: int = 0
    relationships: int = 0
    read_s: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)


class _Interner:
    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}
        self.values: list[Any] = [None]
        self.texts: list[bytes] = [b""]

    def __call__(self, value: Any) -> int:
        if value is None:
            return 0
        key = _hashable(value)
        i = self.ids.get(key)
        if i is None:
            i = self.ids[key] = len(self.values)
            self.values.append(value)
            self.texts.append(java_text(value).encode("utf-8"))
        return i


def _name_ids(names: Iterable[str | None], table: dict[str, int], out: list[str]) -> list[int]:
    ids = []
    for name in names:
        key = name or ""
        i = table.get(key)
        if i is None:
            i = table[key] = len(out)
            out.append(key)
        ids.append(i)
    return ids


def _prop_list(var: str, props: Sequence[str]) -> str:
    return "".join(f", {var}[$p{i}] AS p{i}" for i in range(len(props)))


def read_snapshot(
    reader: GraphReader,
    node_props: Sequence[str] = ("name",),
    rel_props: Sequence[str] = (),
    *,
    salt: int = 0,
) -> Snapshot:
    """Read the whole graph behind ``reader`` into a :class:`Snapshot`: two queries, one over
    all nodes (first label and ``node_props``) and one over all relationships (type, ends and
    ``rel_props``). ``salt`` seeds the order of relationships inside each adjacency class.

    Raises :class:`kgbench.errors.KgbenchError` when the graph has no node.
    """
    t0 = time.perf_counter()
    params = {f"p{i}": p for i, p in enumerate(node_props)}
    nodes = reader.run(
        "MATCH (n) RETURN id(n) AS id, head(labels(n)) AS label, "
        f"coalesce(n.eid, elementId(n)) AS key{_prop_list('n', node_props)}",
        params,
        timeout_s=0,
    )
    if not nodes:
        raise KgbenchError("the graph has no entities (MATCH (n) found no node)")
    intern = _Interner()
    index: dict[int, int] = {}
    label_ids: dict[str, int] = {}
    labels: list[str] = []
    node_labels = _name_ids((r[1] for r in nodes), label_ids, labels)
    node_values: list[list[int]] = [[] for _ in node_props]
    node_keys: list[int] = []
    for i, rec in enumerate(nodes):
        index[rec[0]] = i
        # a stable key: the seeded sampling order must not depend on Neo4j's node ids
        digest = hashlib.blake2b(str(rec[2]).encode(), digest_size=8).digest()
        node_keys.append(int.from_bytes(digest, "little"))
        for s in range(len(node_props)):
            node_values[s].append(intern(rec[3 + s]))
    del nodes
    rparams = {f"p{i}": p for i, p in enumerate(rel_props)}
    rels = reader.run(
        "MATCH (a)-[r]->(b) RETURN id(a) AS a, type(r) AS type, id(b) AS b"
        + _prop_list("r", rel_props),
        rparams,
        timeout_s=0,
    )
    type_ids: dict[str, int] = {}
    types: list[str] = []
    edge_types = _name_ids((r[1] for r in rels), type_ids, types)
    edge_src = [index[r[0]] for r in rels]
    edge_dst = [index[r[2]] for r in rels]
    edge_values: list[list[int]] = [[intern(r[3 + s]) for r in rels] for s in range(len(rel_props))]
    from kgbench._core.sample import SampleGraph

    graph = SampleGraph(
        node_labels,
        node_values,
        edge_src,
        edge_dst,
        edge_types,
        edge_values,
        intern.texts,
        labels,
        types,
        salt=salt,
        node_keys=node_keys,
    )
    return Snapshot(
        graph=graph,
        labels=labels,
        types=types,
        values=intern.values,
        node_props=list(node_props),
        rel_props=list(rel_props),
        nodes=len(node_labels),
        relationships=len(edge_types),
        read_s=time.perf_counter() - t0,
    )
