"""Draft a CypherBench relation-traits file (``graph_info.json``) from a live Neo4j graph.

CypherBench's task generator prunes unrealistic questions with per-relation traits
(``/work/shared/spec/cypherbench-taskgen.md`` §2–3; shipped for its 11 graphs as
``graph_info.json``, read by its ``GraphInfo`` / ``RelationInfo`` pydantic models, which ignore
unknown keys). :func:`draft_traits` measures every trait on the data with a handful of aggregate
Cypher queries and returns::

    {graph: {"relations": [
        {"label": str,                        # relationship type
         "variants": ["label#Subj#Obj", ...], # (type(r), head(labels(start)), head(labels(end)))
         "is_symmetric": bool, "is_time_sensitive": bool,
         "is_mandatory_subj": bool, "is_mandatory_obj": bool,
         "subj_cardinality": "one" | "many", "obj_cardinality": "one" | "many",
         "implied_relations": [str, ...],
         "measured": {...}},                  # kgbench's evidence; CypherBench ignores it
        ...]}}

Definitions (the spec's §2; "entity of label L" = a node whose first label is L, as the loader
gives every entity exactly one label). Each boolean is decided by a measured fraction and a
tolerance, because real data is noisy:

- ``obj_cardinality`` ``"one"`` — a subject has at most one object of the relation (hasFather):
  the share of subjects (distinct start nodes) that have exactly one distinct object is
  ``>= tolerance``. ``subj_cardinality`` ``"one"`` is the mirror: the share of objects with
  exactly one distinct subject.
- ``is_mandatory_subj`` — every entity of the subject label has the relation (Movie
  directedBy): for *each* subject label of the variants, the share of its entities that start
  such a relationship is ``>= tolerance`` (the weakest label decides). ``is_mandatory_obj``
  mirrors it on the object labels.
- ``is_symmetric`` — ``(a)-[r]->(b)`` implies ``(b)-[r]->(a)``: the share of distinct
  ``(a, b)`` pairs with ``a <> b`` whose reverse pair is also linked by the same type is
  ``>= symmetric_tolerance`` (default 0.9; relations with only self-loops are not symmetric).
- ``is_time_sensitive`` — the relation carries start/end properties: the share of its
  relationships that have at least one key of ``time_properties`` is ``> 0`` and
  ``>= time_min_fraction`` (default 0: a single carrier suffices, because Neo4j stores no
  nulls and a relation such as citizenOf is time-sensitive even when most of its start years
  are unknown).
- ``implied_relations`` — ``r`` implies ``r'`` (``r' <> r``) when every distinct
  ``(subject, object)`` pair of ``r`` is also linked by ``r'`` in the same direction: the
  share is ``>= implied_tolerance`` (default 0.95) and ``r`` has at least ``implied_min_pairs``
  (default 5) pairs. Sorted by label.

``measured`` holds, per relation: ``relationships`` (count), ``pairs`` (distinct node pairs),
``subjects`` / ``objects`` (distinct nodes), ``obj_one_fraction`` /
``max_objects_per_subject``, ``subj_one_fraction`` / ``max_subjects_per_object``,
``subj_coverage`` / ``obj_coverage`` ({label: share of the label's entities}),
``symmetric_fraction`` (null without non-loop pairs), ``time_fraction`` and
``time_properties`` ({key: relationships carrying it}), ``implied_fractions`` ({other type:
share of this relation's pairs also linked by it}, only types sharing at least one pair).
Fractions are rounded to 4 decimals. The graph entry also gets ``draft_settings`` (the
tolerances used), likewise ignored by CypherBench.

Output order is deterministic: relations sorted by label, variants sorted, dict keys in a
fixed order. Six read-only aggregate queries (one over the nodes, five over all relationships;
2.9 s for 100k nodes / 217k relationships on the project's 2-core machine) run through
:class:`kgbench.neo4j.QueryExecutor`, i.e. behind the parser-based read-only gate in READ
sessions with a timeout. Raises
:class:`kgbench.errors.KgbenchError` when the graph has no relationships or a query fails, and
:class:`ValueError` for a tolerance outside (0, 1].
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from kgbench.errors import KgbenchError

__all__ = [
    "DEFAULT_TIME_PROPERTIES",
    "draft_traits",
    "write_traits",
]

#: The trait keys of a relation in CypherBench's graph_info.json, after ``label``, in order.
TRAIT_KEYS = (
    "variants",
    "is_symmetric",
    "is_time_sensitive",
    "is_mandatory_subj",
    "is_mandatory_obj",
    "subj_cardinality",
    "obj_cardinality",
    "implied_relations",
)

#: Relationship property keys that make a relation time-sensitive (CypherBench's graphs use
#: start_year / end_year; converted Wikidata qualifiers often give dates or times).
DEFAULT_TIME_PROPERTIES = (
    "start_year",
    "end_year",
    "start_date",
    "end_date",
    "start_time",
    "end_time",
)

_LABELS_QUERY = "MATCH (n) RETURN head(labels(n)) AS label, count(*) AS n"

# One scan: variants, relationship counts and time-property keys.
_RELS_QUERY = """
MATCH (s)-[r]->(o)
WITH type(r) AS rel, head(labels(s)) AS subj, head(labels(o)) AS obj,
     [k IN keys(r) WHERE k IN ${time_keys}] AS tk
RETURN rel, subj, obj, tk, count(*) AS n
""".strip()

# Per (type, subject label): subjects, subjects with exactly one object, max objects.
_SUBJECTS_QUERY = """
MATCH (s)-[r]->(o)
WITH type(r) AS rel, s, count(DISTINCT o) AS k
RETURN rel, head(labels(s)) AS label, count(*) AS nodes,
       sum(CASE WHEN k = 1 THEN 1 ELSE 0 END) AS single, max(k) AS max_k
""".strip()

_OBJECTS_QUERY = """
MATCH (s)-[r]->(o)
WITH type(r) AS rel, o, count(DISTINCT s) AS k
RETURN rel, head(labels(o)) AS label, count(*) AS nodes,
       sum(CASE WHEN k = 1 THEN 1 ELSE 0 END) AS single, max(k) AS max_k
""".strip()

# Distinct pairs per type, non-loop pairs, and those whose reverse is linked by the same type.
_PAIRS_QUERY = """
MATCH (s)-[r]->(o)
WITH DISTINCT type(r) AS rel, s, o
RETURN rel, count(*) AS pairs,
       sum(CASE WHEN s <> o THEN 1 ELSE 0 END) AS proper,
       sum(CASE WHEN s <> o AND EXISTS { MATCH (o)-[x]->(s) WHERE type(x) = rel }
           THEN 1 ELSE 0 END) AS reciprocated
""".strip()

# For each type, the other types that link the same (subject, object) pairs, same direction.
_IMPLIED_QUERY = """
MATCH (s)-[r]->(o)
WITH DISTINCT type(r) AS rel, s, o
MATCH (s)-[x]->(o) WHERE type(x) <> rel
WITH DISTINCT rel, type(x) AS other, s, o
RETURN rel, other, count(*) AS shared
""".strip()


def _cypher_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _frac(num: int, den: int) -> float:
    return round(num / den, 4) if den else 0.0


def _check_tolerance(name: str, value: float) -> None:
    if not 0.0 < value <= 1.0:
        raise ValueError(f"{name} must be in (0, 1], got {value}")


def _run(
    driver: Any, database: str | None, timeout_s: float | None, queries: dict[str, str]
) -> dict[str, list[list[Any]]]:
    from kgbench.neo4j.executor import QueryExecutor

    executor = QueryExecutor(
        driver, database=database, timeout_s=timeout_s, workers=min(3, len(queries))
    )
    names = list(queries)
    results = executor.run_many([queries[n] for n in names])
    out: dict[str, list[list[Any]]] = {}
    for name, res in zip(names, results, strict=True):
        if not res.ok:
            message = " ".join(str(res.error).split())
            raise KgbenchError(
                f"relation-traits query '{name}' failed ({res.error_class}): {message}"
            )
        out[name] = res.rows
    return out


def draft_traits(
    driver: Any,
    *,
    database: str | None = None,
    graph: str = "graph",
    tolerance: float = 0.95,
    symmetric_tolerance: float = 0.9,
    implied_tolerance: float = 0.95,
    implied_min_pairs: int = 5,
    time_properties: Sequence[str] = DEFAULT_TIME_PROPERTIES,
    time_min_fraction: float = 0.0,
    timeout_s: float | None = 600.0,
) -> dict[str, Any]:
    """Measure the relation traits of the graph behind ``driver`` (see the module docstring).

    Args:
        driver: a ``neo4j.Driver``.
        database: database name (None: the server's default).
        graph: the key of the returned dict (CypherBench keys graph_info.json by graph name).
        tolerance: minimum share for the cardinality "one" and mandatory traits.
        symmetric_tolerance: minimum share of reciprocated pairs for ``is_symmetric``.
        implied_tolerance: minimum share of ``r``'s pairs linked by ``r'`` for ``r'`` to be
            listed in ``implied_relations``.
        implied_min_pairs: minimum number of ``r`` pairs for that.
        time_properties: relationship keys that mark a relation as time-sensitive.
        time_min_fraction: minimum share of relationships carrying one of them (0: any).
        timeout_s: per-query server-side timeout in seconds (None: the server's limit).

    Returns:
        ``{graph: {"relations": [...], "draft_settings": {...}}}`` in CypherBench's
        graph_info.json shape plus the ``measured`` evidence per relation.

    Raises:
        KgbenchError: the graph has no relationships, or a query failed (message has the
            error class and the server's message).
        ValueError: a tolerance is outside (0, 1], ``implied_min_pairs`` < 1,
            ``time_min_fraction`` outside [0, 1] or ``time_properties`` is not a sequence of
            strings.
    """
    _check_tolerance("tolerance", tolerance)
    _check_tolerance("symmetric_tolerance", symmetric_tolerance)
    _check_tolerance("implied_tolerance", implied_tolerance)
    if implied_min_pairs < 1:
        raise ValueError(f"implied_min_pairs must be >= 1, got {implied_min_pairs}")
    if not 0.0 <= time_min_fraction <= 1.0:
        raise ValueError(f"time_min_fraction must be in [0, 1], got {time_min_fraction}")
    if isinstance(time_properties, str) or not all(isinstance(k, str) for k in time_properties):
        raise ValueError("time_properties must be a sequence of property names (strings)")
    time_keys = "[" + ", ".join(_cypher_string(k) for k in sorted(set(time_properties))) + "]"

    rows = _run(
        driver,
        database,
        timeout_s,
        {
            "labels": _LABELS_QUERY,
            "relationships": _RELS_QUERY.replace("${time_keys}", time_keys),
            "subjects": _SUBJECTS_QUERY,
            "objects": _OBJECTS_QUERY,
            "pairs": _PAIRS_QUERY,
            "implied": _IMPLIED_QUERY,
        },
    )

    label_size = {str(label): int(n) for label, n in rows["labels"] if label is not None}
    variants: dict[str, set[str]] = defaultdict(set)
    rel_count: dict[str, int] = defaultdict(int)
    timed: dict[str, int] = defaultdict(int)
    time_keys_seen: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for rel, subj, obj, tk, n in rows["relationships"]:
        variants[rel].add(f"{rel}#{subj}#{obj}")
        rel_count[rel] += int(n)
        if tk:
            timed[rel] += int(n)
            for key in tk:
                time_keys_seen[rel][key] += int(n)
    if not rel_count:
        where = f"database '{database}'" if database else "the default database"
        raise KgbenchError(
            f"cannot draft relation traits: {where} has no relationships "
            f"({sum(label_size.values())} nodes)"
        )

    def side(name: str) -> dict[str, dict[str, Any]]:
        acc: dict[str, dict[str, Any]] = defaultdict(
            lambda: {"nodes": 0, "single": 0, "max_k": 0, "coverage": {}}
        )
        for rel, label, nodes, single, max_k in rows[name]:
            a = acc[rel]
            a["nodes"] += int(nodes)
            a["single"] += int(single)
            a["max_k"] = max(a["max_k"], int(max_k))
            a["coverage"][label] = _frac(int(nodes), label_size.get(label, 0))
        return acc

    subj_side = side("subjects")
    obj_side = side("objects")
    pairs = {rel: (int(p), int(proper), int(recip)) for rel, p, proper, recip in rows["pairs"]}
    shared: dict[str, dict[str, int]] = defaultdict(dict)
    for rel, other, count in rows["implied"]:
        shared[rel][other] = int(count)

    relations: list[dict[str, Any]] = []
    for rel in sorted(rel_count):
        s, o = subj_side[rel], obj_side[rel]
        n_pairs, proper, recip = pairs.get(rel, (0, 0, 0))
        obj_one = _frac(s["single"], s["nodes"])
        subj_one = _frac(o["single"], o["nodes"])
        sym = _frac(recip, proper) if proper else None
        time_frac = _frac(timed[rel], rel_count[rel])
        implied_fracs = {
            other: _frac(k, n_pairs) for other, k in sorted(shared[rel].items()) if n_pairs
        }
        implied = sorted(
            other
            for other, f in implied_fracs.items()
            if n_pairs >= implied_min_pairs and f >= implied_tolerance
        )
        relations.append(
            {
                "label": rel,
                "variants": sorted(variants[rel]),
                "is_symmetric": sym is not None and sym >= symmetric_tolerance,
                "is_time_sensitive": timed[rel] > 0 and time_frac >= time_min_fraction,
                "is_mandatory_subj": all(f >= tolerance for f in s["coverage"].values()),
                "is_mandatory_obj": all(f >= tolerance for f in o["coverage"].values()),
                "subj_cardinality": "one" if subj_one >= tolerance else "many",
                "obj_cardinality": "one" if obj_one >= tolerance else "many",
                "implied_relations": implied,
                "measured": {
                    "relationships": rel_count[rel],
                    "pairs": n_pairs,
                    "subjects": s["nodes"],
                    "objects": o["nodes"],
                    "obj_one_fraction": obj_one,
                    "max_objects_per_subject": s["max_k"],
                    "subj_one_fraction": subj_one,
                    "max_subjects_per_object": o["max_k"],
                    "subj_coverage": dict(sorted(s["coverage"].items())),
                    "obj_coverage": dict(sorted(o["coverage"].items())),
                    "symmetric_fraction": sym,
                    "time_fraction": time_frac,
                    "time_properties": dict(sorted(time_keys_seen[rel].items())),
                    "implied_fractions": implied_fracs,
                },
            }
        )
    settings = {
        "tolerance": tolerance,
        "symmetric_tolerance": symmetric_tolerance,
        "implied_tolerance": implied_tolerance,
        "implied_min_pairs": implied_min_pairs,
        "time_properties": sorted(set(time_properties)),
        "time_min_fraction": time_min_fraction,
    }
    return {graph: {"relations": relations, "draft_settings": settings}}


def write_traits(traits: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write ``traits`` as graph_info.json does: UTF-8 JSON, 2-space indent, final newline."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(traits, f, indent=2, ensure_ascii=False)
        f.write("\n")
