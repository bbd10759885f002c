"""Fetch a graph schema from Neo4j the way CypherBench does (seed Appendix B.4, SPEC.md §4).

CypherBench enumerates, over *all* nodes and relationships, the distinct (label, property, type)
and (relationship type, property, type) triples and the distinct (start label, type, end label)
triples — ``db.schema.visualization`` and ``apoc.meta.data`` are inaccurate on large graphs.
Its queries call ``apoc.meta.cypher.type`` and ``apoc.coll.sortMaps``; here Cypher's own
``valueType()`` replaces the first and sorting happens in Python, so no plugin is needed. The
queries also drop CypherBench's ``ORDER BY``: with it, Neo4j 5 plans a sort of every
(node, label) row below the ``DISTINCT`` (``Sort`` then ``OrderedDistinct``), which holds the
whole graph in transaction memory and fails on a full-scale graph (885k nodes with a 4 GB heap:
"dbms.memory.transaction.total.max threshold reached", issue 38); without it the ``DISTINCT``
keeps only the distinct rows. The rows are sorted here, so the schema is the same.

Handling as CypherBench's ``Neo4jConnector.get_schema``: the properties ``eid``,
``description``, ``aliases`` and ``provenance`` are left out (``name`` stays); every
(type, start, end) variant of a relationship type gets all properties seen on that type; entities
and relations are sorted by label (relations by (label, subj_label, obj_label)) and properties by
name. The relation id ``rid`` that kgbench's loader stores on every relationship is therefore
listed, as ``get_schema`` lists it (CypherBench's ``--load_schema_from neo4j`` prompts);
``omit_rid=True`` leaves it out (kgbench before issue 39; the schema files CypherBench
publishes have no ``rid``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

#: Properties omitted from the prompt schema: the default ``exclude_properties`` of
#: CypherBench's ``Neo4jConnector.get_schema`` (``cypherbench/neo4j_connector.py``).
DEFAULT_EXCLUDED = ("eid", "description", "aliases", "provenance")

#: The relation id kgbench's loader stores on every relationship (``fetch_schema(omit_rid=True)``
#: leaves it out too).
RID = "rid"

#: CypherBench's entity-property query with ``valueType`` in place of ``apoc.meta.cypher.type``
#: (and without its ORDER BY: module docstring).
NODE_PROPERTIES_QUERY = """
MATCH (n)
UNWIND labels(n) AS label
WITH label, keys(n) AS propertyKeys, n
UNWIND propertyKeys AS property
WITH DISTINCT label, property, valueType(n[property]) AS type
RETURN label, property, type
""".strip()

#: CypherBench's relation-property query (same substitution).
REL_PROPERTIES_QUERY = """
MATCH ()-[r]-()
WITH type(r) AS type, keys(r) AS propertyKeys, r
UNWIND propertyKeys AS property
WITH DISTINCT type, property, valueType(r[property]) AS propType
RETURN type, property, propType
""".strip()

#: CypherBench's relation-schema query (without its ORDER BY: module docstring).
REL_QUERY = """
MATCH (n)-[r]->(m)
UNWIND labels(n) AS start UNWIND labels(m) AS end
RETURN DISTINCT start, type(r) AS type, end
""".strip()

_SCALARS = {
    "STRING": "str",
    "INTEGER": "int",
    "FLOAT": "float",
    "BOOLEAN": "bool",
    "DATE": "date",
}


def datatype_of(value_type: str) -> str:
    """Map a Cypher ``valueType()`` string to a SPEC.md datatype.

    ``"STRING NOT NULL"`` → ``str``; ``INTEGER`` → ``int``; ``FLOAT`` → ``float``; ``BOOLEAN`` →
    ``bool``; ``DATE`` → ``date``; ``LIST<T NOT NULL> NOT NULL`` → ``list[t]``. An empty list
    (``LIST<NOTHING>``) is ``list[str]``, as CypherBench maps APOC's bare ``LIST``. Other types
    (e.g. ``DATETIME``) map to their lower-case name.
    """
    t = value_type.strip()
    if t.endswith(" NOT NULL"):
        t = t[: -len(" NOT NULL")]
    if t.startswith("LIST<") and t.endswith(">"):
        inner = datatype_of(t[5:-1])
        return "list[str]" if inner in ("nothing", "any") else f"list[{inner}]"
    if t.startswith("LIST"):
        return "list[str]"
    return _SCALARS.get(t, t.lower())


def pick_datatype(types: set[str]) -> str:
    """One datatype name for a property seen with the datatypes ``types`` (a non-empty set of
    :func:`datatype_of` names): the loader gives one type per property; if several occur
    (data from elsewhere), ``float`` over ``int`` (a numeric column), else the first in
    sorted order (deterministic)."""
    if types == {"int", "float"}:
        return "float"
    return sorted(types)[0]


def fetch_schema(
    driver: Any,
    *,
    name: str = "",
    database: str | None = None,
    exclude_properties: tuple[str, ...] | list[str] = DEFAULT_EXCLUDED,
    omit_rid: bool = False,
) -> dict[str, Any]:
    """Return the schema JSON of the graph in ``database`` (SPEC.md §2 ``schema`` shape).

    Shape: ``{"name": name, "entities": [{"label", "properties": {prop: datatype}}],
    "relations": [{"label", "subj_label", "obj_label", "properties": {...}}]}``, sorted as
    CypherBench's ``PropertyGraphSchema.to_sorted`` and without entity descriptions (as in its
    text-to-Cypher prompt, seed Table 13). ``exclude_properties`` are left out of entities
    and relations (default: CypherBench's ``eid``, ``description``, ``aliases``,
    ``provenance``, so a relationship's ``rid`` is listed as CypherBench lists it);
    ``omit_rid=True`` leaves ``rid`` out as well. Runs three full scans of the graph. Raises
    the driver's ``neo4j.exceptions`` errors on connection or query failure.
    """
    excluded = set(exclude_properties)
    if omit_rid:
        excluded.add(RID)
    ent_types: dict[str, dict[str, set[str]]] = {}
    rel_types: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    triples: list[tuple[str, str, str]] = []
    with driver.session(database=database, notifications_min_severity="OFF") as session:
        for rec in session.run(NODE_PROPERTIES_QUERY):
            props = ent_types.setdefault(rec["label"], defaultdict(set))
            if rec["property"] not in excluded:
                props[rec["property"]].add(datatype_of(rec["type"]))
        for rec in session.run(REL_QUERY):
            triples.append((rec["type"], rec["start"], rec["end"]))
        for rec in session.run(REL_PROPERTIES_QUERY):
            if rec["property"] not in excluded:
                rel_types[rec["type"]][rec["property"]].add(datatype_of(rec["propType"]))

    entities = [
        {"label": label, "properties": {p: pick_datatype(t) for p, t in sorted(props.items())}}
        for label, props in sorted(ent_types.items())
    ]
    relations = [
        {
            "label": rtype,
            "subj_label": start,
            "obj_label": end,
            "properties": {
                p: pick_datatype(t) for p, t in sorted(rel_types.get(rtype, {}).items())
            },
        }
        for rtype, start, end in sorted(set(triples))
    ]
    return {"name": name, "entities": entities, "relations": relations}
