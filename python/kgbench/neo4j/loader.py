"""Load a CypherBench property graph (SPEC.md §2, "SimpleKG") into Neo4j.

Storage follows CypherBench's graphs: each entity is a node with its entity label and the
properties ``eid``, ``name``, ``aliases`` (list of strings), ``description``, ``provenance``
(list of Wikipedia URLs) plus its typed schema properties; each relation is a relationship of
its relation label with ``rid``, ``provenance`` and its typed properties. ``date`` values become
Neo4j ``Date`` values, ``list[...]`` values Neo4j lists; JSON ``null`` values are not stored
(Neo4j has no null properties).

The graph is validated before anything is written (:func:`validate_graph`); a uniqueness
constraint on ``eid`` and an index on ``name`` are created for every entity label; nodes and then
relationships are written in batched ``UNWIND`` transactions. Loading is idempotent: entities
are merged on ``eid`` and relations on ``rid`` (a plain ``CREATE`` is used when the label or type
has no data yet, which is faster and gives the same result). Counts per label and per
relationship type are verified at the end.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kgbench.errors import InputError, KgbenchError

#: Datatypes of SPEC.md §1/§2.
DATATYPES = frozenset(
    ["str", "int", "float", "bool", "date", "list[str]", "list[int]", "list[float]", "list[date]"]
)
#: Node properties the loader sets itself (not allowed among an entity's schema properties).
ENTITY_META = ("eid", "name", "aliases", "description", "provenance")
#: Relationship properties the loader sets itself.
RELATION_META = ("rid", "provenance")

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LABEL = re.compile(r"^[A-Za-z0-9_]+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
DEFAULT_BATCH_SIZE = 10_000
MAX_PROBLEMS = 20


class GraphValidationError(InputError):
    """The graph does not satisfy SPEC.md §2; ``problems`` lists the first problems found."""

    def __init__(self, source: str, problems: list[str], total: int) -> None:
        self.problems = problems
        self.total = total
        more = f" (showing the first {len(problems)} of {total})" if total > len(problems) else ""
        super().__init__(
            f"{source}: invalid graph, nothing was written{more}: " + "; ".join(problems)
        )


class LoadVerificationError(KgbenchError):
    """After loading, the database's counts differ from the graph's."""


@dataclass(frozen=True)
class LoadReport:
    """What :func:`load_graph` wrote: counts per label/type as verified in the database."""

    nodes_by_label: dict[str, int]
    relationships_by_type: dict[str, int]
    nodes: int
    relationships: int
    node_seconds: float
    relationship_seconds: float
    wiped: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def nodes_per_s(self) -> float:
        """Nodes written per second (node phase only)."""
        return self.nodes / self.node_seconds if self.node_seconds > 0 else float("inf")

    @property
    def relationships_per_s(self) -> float:
        """Relationships written per second (relationship phase only)."""
        if self.relationship_seconds <= 0:
            return float("inf")
        return self.relationships / self.relationship_seconds


# ---------------------------------------------------------------------------------------------
# Reading and validation
# ---------------------------------------------------------------------------------------------
def read_graph_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a graph from ``graph.json``, a ``kgbench convert`` output directory, or the
    Parquet pair: :func:`kgbench.convert.read_graph`. Raises :class:`InputError` on
    unreadable or malformed input (naming the file, line and column)."""
    from kgbench.convert import read_graph

    return read_graph(path)


def _check_value(value: Any, datatype: str) -> bool:
    if datatype.startswith("list["):
        inner = datatype[5:-1]
        return isinstance(value, list) and all(_check_value(v, inner) for v in value)
    if datatype == "str":
        return isinstance(value, str)
    if datatype == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if datatype == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if datatype == "bool":
        return isinstance(value, bool)
    if datatype == "date":
        if not isinstance(value, str) or not _DATE.match(value):
            return False
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            return False
        return True
    return False


class _Problems:
    def __init__(self) -> None:
        self.items: list[str] = []
        self.total = 0

    def add(self, msg: str) -> None:
        self.total += 1
        if len(self.items) < MAX_PROBLEMS:
            self.items.append(msg)


def validate_graph(graph: Mapping[str, Any]) -> list[str]:
    """Check ``graph`` against SPEC.md §2; return the problems found (empty when valid).

    Checks: the ``schema`` / ``entities`` / ``relations`` shapes; labels and property names are
    identifiers; datatypes are known; ``eid`` and ``rid`` unique; every entity's label is a schema
    entity; every relation's (label, subject label, object label) is in the schema and both ends
    exist; every property is declared for its label and its value matches the datatype
    (``null`` is allowed and not stored); loader-owned keys are not reused as properties.
    At most 20 problems are listed (:data:`MAX_PROBLEMS`); the count of all is in the message
    of :class:`GraphValidationError` raised by :func:`load_graph`.
    """
    return _validate(graph).items


def _validate(graph: Mapping[str, Any]) -> _Problems:
    pr = _Problems()
    schema = graph.get("schema")
    entities = graph.get("entities")
    relations = graph.get("relations")
    if not isinstance(schema, dict):
        pr.add("schema: missing or not an object")
        schema = {}
    if not isinstance(entities, list):
        pr.add("entities: missing or not a list")
        entities = []
    if not isinstance(relations, list):
        pr.add("relations: missing or not a list")
        relations = []

    ent_props: dict[str, dict[str, str]] = {}
    for i, ent in enumerate(schema.get("entities") or []):
        where = f"schema.entities[{i}]"
        label = ent.get("label") if isinstance(ent, dict) else None
        if not isinstance(label, str) or not _LABEL.match(label):
            pr.add(f"{where}.label: {label!r} is not a label ([A-Za-z0-9_]+)")
            continue
        if label in ent_props:
            pr.add(f"{where}.label: duplicate entity label {label!r}")
        ent_props[label] = _schema_props(ent.get("properties"), where, ENTITY_META, pr)
    rel_props: dict[tuple[str, str, str], dict[str, str]] = {}
    for i, rel in enumerate(schema.get("relations") or []):
        where = f"schema.relations[{i}]"
        if not isinstance(rel, dict):
            pr.add(f"{where}: not an object")
            continue
        key = (rel.get("label"), rel.get("subj_label"), rel.get("obj_label"))
        if not all(isinstance(k, str) and _LABEL.match(k) for k in key):
            pr.add(f"{where}: label/subj_label/obj_label {key!r} are not labels ([A-Za-z0-9_]+)")
            continue
        if key[1] not in ent_props or key[2] not in ent_props:
            pr.add(f"{where}: {key[1]!r} or {key[2]!r} is not a schema entity label")
        if key in rel_props:
            pr.add(f"{where}: duplicate relation {key!r}")
        rel_props[key] = _schema_props(rel.get("properties"), where, RELATION_META, pr)  # type: ignore[index]

    eid_label: dict[str, str] = {}
    for i, ent in enumerate(entities):
        where = f"entities[{i}]"
        if not isinstance(ent, dict):
            pr.add(f"{where}: not an object")
            continue
        eid = ent.get("eid")
        label = ent.get("label")
        if not isinstance(eid, str) or not eid:
            pr.add(f"{where}.eid: {eid!r} is not a non-empty string")
            continue
        where = f"entities[{i}] ({eid})"
        if eid in eid_label:
            pr.add(f"{where}.eid: duplicate eid {eid!r}")
        if label not in ent_props:
            pr.add(f"{where}.label: {label!r} is not a schema entity label")
            eid_label.setdefault(eid, "")
            continue
        eid_label.setdefault(eid, label)
        if not isinstance(ent.get("name"), str):
            pr.add(f"{where}.name: {ent.get('name')!r} is not a string")
        for meta in ("aliases", "provenance"):
            val = ent.get(meta, [])
            if val is not None and not _check_value(val, "list[str]"):
                pr.add(f"{where}.{meta}: not a list of strings")
        desc = ent.get("description")
        if desc is not None and not isinstance(desc, str):
            pr.add(f"{where}.description: {desc!r} is not a string")
        _check_props(ent.get("properties"), ent_props[label], where, f"entity label {label}", pr)

    seen_rid: set[str] = set()
    for i, rel in enumerate(relations):
        where = f"relations[{i}]"
        if not isinstance(rel, dict):
            pr.add(f"{where}: not an object")
            continue
        rid = rel.get("rid")
        if not isinstance(rid, str) or not rid:
            pr.add(f"{where}.rid: {rid!r} is not a non-empty string")
            continue
        where = f"relations[{i}] (rid {rid})"
        if rid in seen_rid:
            pr.add(f"{where}.rid: duplicate rid {rid!r}")
        seen_rid.add(rid)
        s, o = rel.get("subj_id"), rel.get("obj_id")
        if s not in eid_label:
            pr.add(f"{where}.subj_id: no entity with eid {s!r}")
        if o not in eid_label:
            pr.add(f"{where}.obj_id: no entity with eid {o!r}")
        if s not in eid_label or o not in eid_label:
            continue
        key = (rel.get("label"), eid_label[s], eid_label[o])
        if key not in rel_props:
            pr.add(
                f"{where}: relation {key[0]!r} from {key[1]!r} to {key[2]!r} is not in the schema"
            )
            continue
        prov = rel.get("provenance", [])
        if prov is not None and not _check_value(prov, "list[str]"):
            pr.add(f"{where}.provenance: not a list of strings")
        _check_props(rel.get("properties"), rel_props[key], where, f"relation {key[0]}", pr)
    return pr


def _schema_props(
    props: Any, where: str, reserved: tuple[str, ...], pr: _Problems
) -> dict[str, str]:
    out: dict[str, str] = {}
    if props is None:
        return out
    if not isinstance(props, dict):
        pr.add(f"{where}.properties: not an object of name -> datatype")
        return out
    for name, dtype in props.items():
        if not _IDENT.match(name):
            pr.add(f"{where}.properties: {name!r} is not an identifier")
        elif dtype not in DATATYPES:
            pr.add(f"{where}.properties.{name}: unknown datatype {dtype!r}")
        elif name in reserved and name != "name":
            pr.add(f"{where}.properties.{name}: {name!r} is set by the loader itself")
        elif name != "name":  # CypherBench schemas may list `name`; it is the entity's name
            out[name] = dtype
    return out


def read_valid_graph(
    graph: Mapping[str, Any] | str | os.PathLike[str],
) -> tuple[Mapping[str, Any], str]:
    """The SimpleKG graph (SPEC.md §2) given as a dict or a path (``graph.json`` or a directory
    of :func:`kgbench.convert.read_graph`), after validation, and its source for messages
    (the path, or ``"graph"``).

    Raises :class:`GraphValidationError` listing the first problems (with the file as its
    source) when the graph is invalid, and :class:`kgbench.errors.InputError` when the file
    cannot be read.
    """
    source = "graph"
    if not isinstance(graph, Mapping):
        source = str(graph)
        graph = read_graph_file(graph)
    problems = _validate(graph)
    if problems.total:
        raise GraphValidationError(source, problems.items, problems.total)
    return graph, source


def declared_properties(
    graph: Mapping[str, Any],
) -> tuple[dict[str, dict[str, str]], dict[tuple[str, str, str], dict[str, str]]]:
    """The declared properties of a validated graph's schema (SPEC.md §2).

    Returns ``(entity_props, relation_props)``: ``{label: {property: datatype}}`` and
    ``{(label, subj_label, obj_label): {property: datatype}}``, without the CypherBench
    metadata fields (``eid``/``rid``, ``name``, ``aliases``, ``description``, ``provenance``).
    """
    ent_props = {
        e["label"]: _schema_props(e.get("properties"), "", ENTITY_META, _Problems())
        for e in graph["schema"].get("entities") or []
    }
    rel_props = {
        (r["label"], r["subj_label"], r["obj_label"]): _schema_props(
            r.get("properties"), "", RELATION_META, _Problems()
        )
        for r in graph["schema"].get("relations") or []
    }
    return ent_props, rel_props


def _check_props(
    props: Any, declared: dict[str, str], where: str, owner: str, pr: _Problems
) -> None:
    if props is None:
        return
    if not isinstance(props, dict):
        pr.add(f"{where}.properties: not an object")
        return
    for name, value in props.items():
        dtype = declared.get(name)
        if dtype is None:
            pr.add(f"{where}.properties.{name}: not declared for {owner} in the schema")
        elif value is not None and not _check_value(value, dtype):
            pr.add(f"{where}.properties.{name}: {value!r} is not a {dtype}")


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------
def _typed(value: Any, dtype: str) -> Any:
    if dtype == "date":
        return _dt.date.fromisoformat(value)
    if dtype == "list[date]":
        return [_dt.date.fromisoformat(v) for v in value]
    if dtype == "float":
        return float(value)
    if dtype == "list[float]":
        return [float(v) for v in value]
    return value


def _node_row(ent: Mapping[str, Any], declared: dict[str, str]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "eid": ent["eid"],
        "name": ent["name"],
        "aliases": list(ent.get("aliases") or []),
        "provenance": list(ent.get("provenance") or []),
    }
    if ent.get("description") is not None:
        row["description"] = ent["description"]
    for key, value in (ent.get("properties") or {}).items():
        if value is not None:
            row[key] = _typed(value, declared[key])
    return row


def _rel_row(rel: Mapping[str, Any], declared: dict[str, str]) -> dict[str, Any]:
    props: dict[str, Any] = {"rid": rel["rid"], "provenance": list(rel.get("provenance") or [])}
    for key, value in (rel.get("properties") or {}).items():
        if value is not None:
            props[key] = _typed(value, declared[key])
    return {"s": rel["subj_id"], "o": rel["obj_id"], "rid": rel["rid"], "p": props}


def _batches(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _q(name: str) -> str:
    """Backtick-quote a label / type / property name (validated as [A-Za-z0-9_]+)."""
    return f"`{name}`"


def _open_driver(driver_or_uri: Any, user: str | None, password: str | None) -> tuple[Any, bool]:
    if isinstance(driver_or_uri, str):
        import neo4j

        auth = (user or "neo4j", password or "") if (user or password) else None
        drv = neo4j.GraphDatabase.driver(driver_or_uri, auth=auth)
        return drv, True
    return driver_or_uri, False


def wipe_database(driver: Any, database: str | None = None) -> None:
    """Delete every node and relationship, and drop every constraint and non-lookup index."""
    with driver.session(database=database, notifications_min_severity="OFF") as session:
        session.run(
            "MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
        ).consume()
        for rec in list(session.run("SHOW CONSTRAINTS YIELD name RETURN name")):
            session.run(f"DROP CONSTRAINT {_q(rec['name'])} IF EXISTS").consume()
        for rec in list(
            session.run("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name")
        ):
            session.run(f"DROP INDEX {_q(rec['name'])} IF EXISTS").consume()


def _progress(total: int, desc: str, enabled: bool | None) -> Any:
    from tqdm import tqdm

    # disable=None: shown only when stderr is a terminal.
    return tqdm(
        total=total,
        desc=desc,
        unit="row",
        unit_scale=True,
        disable=None if enabled is None else not enabled,
    )


def load_graph(
    graph: Mapping[str, Any] | str | os.PathLike[str],
    driver_or_uri: Any,
    *,
    database: str | None = None,
    user: str | None = None,
    password: str | None = None,
    wipe: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool | None = None,
    verify: bool = True,
    log: Callable[[str], None] | None = None,
) -> LoadReport:
    """Load a graph (SPEC.md §2) into Neo4j and return the verified counts.

    ``graph`` is the graph dict, a ``graph.json`` path, or a converter output directory / Parquet
    file (read by ``kgbench.convert.read_graph``). ``driver_or_uri`` is a ``neo4j.Driver`` or a
    Bolt URI (``user``/``password`` then authenticate; none = no authentication, as the local
    server uses). ``batch_size`` rows go in one ``UNWIND`` transaction. ``wipe=True`` first
    deletes all data, constraints and indexes of ``database`` (default: the server's default).
    ``progress=None`` shows a bar on stderr only when it is a terminal.

    Raises :class:`GraphValidationError` (nothing written) when the graph is invalid, and
    :class:`LoadVerificationError` when the database's counts per label / relationship type
    differ from the graph's afterwards.
    """
    graph, _ = read_valid_graph(graph)
    if batch_size < 1:
        raise InputError(f"batch_size must be >= 1, got {batch_size}")

    ent_props, rel_props = declared_properties(graph)

    driver, owned = _open_driver(driver_or_uri, user, password)
    try:
        return _load(
            graph, driver, database, wipe, batch_size, progress, verify, ent_props, rel_props, log
        )
    finally:
        if owned:
            driver.close()


def _load(
    graph: Mapping[str, Any],
    driver: Any,
    database: str | None,
    wipe: bool,
    batch_size: int,
    progress: bool | None,
    verify: bool,
    ent_props: dict[str, dict[str, str]],
    rel_props: dict[tuple[str, str, str], dict[str, str]],
    log: Callable[[str], None] | None,
) -> LoadReport:
    if wipe:
        wipe_database(driver, database)

    nodes_by_label: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    eid_label: dict[str, str] = {}
    for ent in graph["entities"]:
        nodes_by_label[ent["label"]].append(ent)
        eid_label[ent["eid"]] = ent["label"]
    rels_by_key: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for rel in graph["relations"]:
        rels_by_key[(rel["label"], eid_label[rel["subj_id"]], eid_label[rel["obj_id"]])].append(rel)

    with driver.session(database=database, notifications_min_severity="OFF") as session:
        _create_schema(session, ent_props)

        def count_nodes(label: str) -> int:
            return int(session.run(f"MATCH (n:{_q(label)}) RETURN count(n) AS c").single()["c"])

        def count_rels(rtype: str) -> int:
            q = f"MATCH ()-[r:{_q(rtype)}]->() RETURN count(r) AS c"
            return int(session.run(q).single()["c"])

        n_nodes = len(graph["entities"])
        t0 = time.perf_counter()
        with _progress(n_nodes, "nodes", progress) as bar:
            for label in sorted(nodes_by_label):
                declared = ent_props[label]
                empty = count_nodes(label) == 0
                verb = "CREATE (n:{l})" if empty else "MERGE (n:{l} {{eid: row.eid}})"
                query = f"UNWIND $rows AS row {verb.format(l=_q(label))} SET n = row"
                for chunk in _batches(nodes_by_label[label], batch_size):
                    rows = [_node_row(e, declared) for e in chunk]
                    session.execute_write(_run_write, query, rows)
                    bar.update(len(rows))
        t1 = time.perf_counter()

        n_rels = len(graph["relations"])
        types_before = {rtype: count_rels(rtype) for rtype in {k[0] for k in rels_by_key}}
        with _progress(n_rels, "relationships", progress) as bar:
            for key in sorted(rels_by_key):
                rtype, subj, obj = key
                declared = rel_props[key]
                match = f"MATCH (s:{_q(subj)} {{eid: row.s}}) MATCH (o:{_q(obj)} {{eid: row.o}}) "
                if types_before[rtype] == 0:
                    query = (
                        f"UNWIND $rows AS row {match}CREATE (s)-[r:{_q(rtype)}]->(o) SET r = row.p"
                    )
                else:
                    query = (
                        f"UNWIND $rows AS row {match}"
                        f"MERGE (s)-[r:{_q(rtype)} {{rid: row.rid}}]->(o) SET r = row.p"
                    )
                for chunk in _batches(rels_by_key[key], batch_size):
                    rows = [_rel_row(r, declared) for r in chunk]
                    session.execute_write(_run_write, query, rows)
                    bar.update(len(rows))
        t2 = time.perf_counter()

        got_nodes, got_rels = _verify_counts(session, graph, ent_props, rel_props, verify)

    report = LoadReport(
        nodes_by_label=got_nodes,
        relationships_by_type=got_rels,
        nodes=n_nodes,
        relationships=n_rels,
        node_seconds=t1 - t0,
        relationship_seconds=t2 - t1,
        wiped=wipe,
    )
    if log is not None:
        log(
            f"loaded {n_nodes} nodes in {t1 - t0:.2f} s and {n_rels} relationships in "
            f"{t2 - t1:.2f} s"
        )
    return report


def _run_write(tx: Any, query: str, rows: list[dict[str, Any]]) -> None:
    tx.run(query, rows=rows).consume()


def _create_schema(session: Any, ent_props: Mapping[str, Any]) -> None:
    """The uniqueness constraint on ``eid`` and the index on ``name`` of every entity label."""
    for label in sorted(ent_props):
        session.run(
            f"CREATE CONSTRAINT {_q('kgbench_eid_' + label)} IF NOT EXISTS "
            f"FOR (n:{_q(label)}) REQUIRE n.eid IS UNIQUE"
        ).consume()
        session.run(
            f"CREATE INDEX {_q('kgbench_name_' + label)} IF NOT EXISTS "
            f"FOR (n:{_q(label)}) ON (n.name)"
        ).consume()
    session.run("CALL db.awaitIndexes(600)").consume()


def _verify_counts(
    session: Any,
    graph: Mapping[str, Any],
    ent_props: Mapping[str, Any],
    rel_props: Mapping[tuple[str, str, str], Any],
    verify: bool,
) -> tuple[dict[str, int], dict[str, int]]:
    """Counts per label / relationship type in the database; with ``verify``, raise
    :class:`LoadVerificationError` when they differ from the graph's."""
    got_nodes = {
        label: int(session.run(f"MATCH (n:{_q(label)}) RETURN count(n) AS c").single()["c"])
        for label in sorted(ent_props)
    }
    got_rels = {
        rtype: int(session.run(f"MATCH ()-[r:{_q(rtype)}]->() RETURN count(r) AS c").single()["c"])
        for rtype in sorted({k[0] for k in rel_props})
    }
    if verify:
        want_nodes: dict[str, int] = defaultdict(int)
        for ent in graph["entities"]:
            want_nodes[ent["label"]] += 1
        want_rels: dict[str, int] = defaultdict(int)
        for rel in graph["relations"]:
            want_rels[rel["label"]] += 1
        diffs = [
            f"label {label}: expected {want_nodes.get(label, 0)} nodes, found {got}"
            for label, got in got_nodes.items()
            if got != want_nodes.get(label, 0)
        ] + [
            f"type {rtype}: expected {want_rels.get(rtype, 0)} relationships, found {got}"
            for rtype, got in got_rels.items()
            if got != want_rels.get(rtype, 0)
        ]
        if diffs:
            raise LoadVerificationError(
                "counts in the database differ from the graph (was it loaded over other data? "
                "use wipe / --wipe): " + "; ".join(diffs)
            )
    return got_nodes, got_rels
