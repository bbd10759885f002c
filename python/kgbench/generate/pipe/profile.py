"""PIPE-Cypher stage 1: profile a live graph into ``schema.json`` (spec ``pipe-cypher.md`` §2.1).

:func:`profile_graph` returns::

    {
      "graph_name": str,
      "node_properties": [{"label", "property", "type"}],       # by (label, property)
      "relationship_properties": [{"type", "property", "value_type"}],   # by (type, property)
      "relationships": [{"start_label", "type", "end_label", "count"}],  # by the triple
      "categorical_properties": {"Label.property": [value, ...]},   # keys, values sorted
    }

Types are Cypher's ``valueType()`` names without ``NOT NULL`` (``STRING``, ``INTEGER``,
``FLOAT``, ``BOOLEAN``, ``DATE``, ``LIST<STRING>``, ...). A property seen with several types
on one label (or relationship type) gets the most frequent one (``FLOAT`` when the types are
``INTEGER`` and ``FLOAT``; ties by name). ``relationships`` counts every ``(start label, type,
end label)`` combination over all labels of both ends.

A property is **categorical** when every value on its label is a STRING (not a list), it has at
most :data:`CATEGORICAL_MAX_VALUES` (12) distinct values and each is at most
:data:`CATEGORICAL_MAX_CHARS` (80) characters long; ``address``, ``note``, ``notes`` and
``comments`` are never categorical. Like the original (``pipecypher/schema.py``) the values
are read with ``DISTINCT ... LIMIT 13`` per property, but inside one batched subquery whose
``LIMIT`` stops each scan at the 13th distinct value instead of sorting all of them.

The properties :data:`PROFILE_EXCLUDED` (``eid``, ``description``, ``aliases``,
``provenance``, ``rid``: the loader's bookkeeping) are left out unless ``exclude_properties``
says otherwise.

Queries: four, each a fixed text (Neo4j plans a new text once, ~20-30 ms): one scan of the
nodes (label, property, type), one of the relationships (end labels, type), one of the
relationship properties, one batched categorical read. All go through
:class:`kgbench.neo4j.GraphReader` (read-only gate, READ sessions).
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.generate.patterns import read_json_file
from kgbench.neo4j.executor import GraphReader
from kgbench.neo4j.schema import DEFAULT_EXCLUDED, RID

#: The properties a profile leaves out by default: CypherBench's excluded properties and the
#: relation id (the loader's bookkeeping; never a property to ask about).
PROFILE_EXCLUDED = (*DEFAULT_EXCLUDED, RID)

#: A categorical property has at most this many distinct values (spec §2.1).
CATEGORICAL_MAX_VALUES = 12
#: ... each at most this many characters long.
CATEGORICAL_MAX_CHARS = 80
#: Property names never treated as categorical (spec §2.1: ``*.address``, ``*.note(s)``,
#: ``*.comments``).
CATEGORICAL_OMITTED = frozenset({"address", "note", "notes", "comments"})

#: One row per (label, property, type) with the number of nodes; ``property`` null counts the
#: label's nodes, so a graph whose nodes carry no (kept) property still answers.
NODE_QUERY = """
MATCH (n)
UNWIND labels(n) AS label
UNWIND [k IN keys(n) WHERE NOT k IN $excluded] + [null] AS property
RETURN label, property, valueType(n[property]) AS type, count(*) AS count
""".strip()

#: One row per (start labels, type, end labels) with the number of relationships.
RELATIONSHIP_QUERY = """
MATCH (a)-[r]->(b)
RETURN labels(a) AS starts, type(r) AS type, labels(b) AS ends, count(*) AS count
""".strip()

#: One row per (relationship type, property, type) with the number of relationships.
RELATIONSHIP_PROPERTY_QUERY = """
MATCH ()-[r]->()
UNWIND [k IN keys(r) WHERE NOT k IN $excluded] AS property
RETURN type(r) AS type, property, valueType(r[property]) AS value_type, count(*) AS count
""".strip()

#: Up to ``$limit`` distinct values of each (label, property) in ``$props``; the subquery's
#: LIMIT ends each scan at the first ``$limit`` distinct values.
CATEGORICAL_QUERY = """
UNWIND $props AS p
CALL (p) {
  MATCH (n:$(p.label))
  WHERE n[p.property] IS NOT NULL
  WITH DISTINCT n[p.property] AS value
  LIMIT $limit
  RETURN collect(value) AS values
}
RETURN p.label AS label, p.property AS property, values
""".strip()


def cypher_type(value_type: str | None) -> str:
    """A ``valueType()`` string without its ``NOT NULL`` markers: ``"STRING NOT NULL"`` →
    ``"STRING"``, ``"LIST<STRING NOT NULL> NOT NULL"`` → ``"LIST<STRING>"``."""
    return (value_type or "NULL").replace(" NOT NULL", "").strip()


def _pick_type(types: Counter[str]) -> str:
    if set(types) == {"INTEGER", "FLOAT"}:
        return "FLOAT"
    return sorted(types.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def _where(reader: GraphReader) -> str:
    """``bolt://host:port (database 'x')`` for messages, from the reader's driver."""
    driver = reader.driver
    address = getattr(driver, "address", None)
    scheme = "neo4j" if type(driver).__name__.startswith("Neo4j") else "bolt"
    uri = f"{scheme}://{address}" if address is not None else "the configured Neo4j server"
    database = f"database {reader.database!r}" if reader.database else "default database"
    return f"{uri} ({database})"


def profile_graph(
    reader: GraphReader,
    *,
    graph_name: str,
    exclude_properties: Sequence[str] = PROFILE_EXCLUDED,
) -> dict[str, Any]:
    """Profile the graph behind ``reader`` into the spec §2.1 ``schema.json`` dict (shape and
    rules: module docstring). ``graph_name`` is stored as ``graph_name``;
    ``exclude_properties`` are left out of every list (and never categorical).

    Runs four read-only queries (full scans of nodes and relationships). Raises
    :class:`kgbench.errors.InputError` when the graph has no node ("the graph at URI has no
    nodes; nothing to profile"), :class:`kgbench.neo4j.QueryFailed` when a query
    fails, :class:`kgbench.errors.KgbenchError` when the server is unreachable.
    """
    excluded = list(dict.fromkeys(exclude_properties))
    node_types: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    labels: set[str] = set()
    for rec in reader.run(NODE_QUERY, {"excluded": excluded}, timeout_s=0):
        labels.add(rec["label"])
        if rec["property"] is not None:
            node_types[(rec["label"], rec["property"])][cypher_type(rec["type"])] += rec["count"]
    if not labels:
        raise InputError(f"the graph at {_where(reader)} has no nodes; nothing to profile")

    triples: Counter[tuple[str, str, str]] = Counter()
    for rec in reader.run(RELATIONSHIP_QUERY, timeout_s=0):
        for start in rec["starts"]:
            for end in rec["ends"]:
                triples[(start, rec["type"], end)] += rec["count"]

    rel_types: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for rec in reader.run(RELATIONSHIP_PROPERTY_QUERY, {"excluded": excluded}, timeout_s=0):
        rel_types[(rec["type"], rec["property"])][cypher_type(rec["value_type"])] += rec["count"]

    candidates = [
        {"label": label, "property": prop}
        for (label, prop), types in sorted(node_types.items())
        if set(types) == {"STRING"} and prop.lower() not in CATEGORICAL_OMITTED
    ]
    categorical: dict[str, list[str]] = {}
    if candidates:
        rows = reader.run(
            CATEGORICAL_QUERY,
            {"props": candidates, "limit": CATEGORICAL_MAX_VALUES + 1},
            timeout_s=0,
        )
        for rec in rows:
            values = rec["values"]
            if (
                values
                and len(values) <= CATEGORICAL_MAX_VALUES
                and all(isinstance(v, str) and len(v) <= CATEGORICAL_MAX_CHARS for v in values)
            ):
                categorical[f"{rec['label']}.{rec['property']}"] = sorted(values)

    return {
        "graph_name": graph_name,
        "node_properties": [
            {"label": label, "property": prop, "type": _pick_type(types)}
            for (label, prop), types in sorted(node_types.items())
        ],
        "relationship_properties": [
            {"type": rtype, "property": prop, "value_type": _pick_type(types)}
            for (rtype, prop), types in sorted(rel_types.items())
        ],
        "relationships": [
            {"start_label": s, "type": t, "end_label": e, "count": c}
            for (s, t, e), c in sorted(
                triples.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])
            )
        ],
        "categorical_properties": dict(sorted(categorical.items())),
    }


def write_profile(profile: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write ``profile`` to ``path`` as indented, key-sorted UTF-8 JSON, atomically (a
    temporary file in the same directory, then a rename); creates the parent directory.
    Returns the path."""
    from kgbench.fileio import write_json_atomic

    return write_json_atomic(path, profile, sort_keys=True)


_PROFILE_LISTS = {
    "node_properties": ("label", "property", "type"),
    "relationship_properties": ("type", "property", "value_type"),
    "relationships": ("start_label", "type", "end_label"),
}


def load_profile(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a ``schema.json`` written by :func:`write_profile` (or by hand) and check its
    shape. Raises :class:`kgbench.errors.InputError` naming the file and the JSON path."""
    p = Path(path)
    data = read_json_file(p, "profile", InputError)
    if not isinstance(data, dict):
        raise InputError(f"{p}: $: expected an object")
    for key, fields in _PROFILE_LISTS.items():
        items = data.get(key, [])
        if not isinstance(items, list):
            raise InputError(f"{p}: $.{key}: expected a list")
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise InputError(f"{p}: $.{key}[{i}]: expected an object")
            for field in fields:
                if not isinstance(item.get(field), str):
                    raise InputError(f"{p}: $.{key}[{i}].{field}: expected a string")
    categorical = data.get("categorical_properties", {})
    if not isinstance(categorical, dict):
        raise InputError(f"{p}: $.categorical_properties: expected an object")
    for key, values in categorical.items():
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise InputError(f"{p}: $.categorical_properties.{key}: expected a list of strings")
    data.setdefault("graph_name", "")
    for key in (*_PROFILE_LISTS, "categorical_properties"):
        data.setdefault(key, {} if key == "categorical_properties" else [])
    return data
