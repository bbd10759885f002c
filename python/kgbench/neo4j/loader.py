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
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
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


def read_graph_json_sha256(path: str | os.PathLike[str]) -> tuple[dict[str, Any], str]:
    """Read a SimpleKG ``graph.json`` file (SPEC.md §2) once: the graph dict and the SHA-256 of
    the bytes it was parsed from (64 lowercase hex digits), for checking a file against a
    recorded sum without reading it twice (``kgbench generate ngdbench`` against the noise
    log). The file is read whole, as :func:`kgbench.convert.read_graph` does.

    Raises:
        InputError: the file cannot be read, is not UTF-8 JSON, or is not a JSON object with
            ``schema``, ``entities`` and ``relations`` (naming the file, line and column).
    """
    import hashlib

    from kgbench.convert import parse_graph_json

    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"{p}: cannot read graph: {exc.strerror or exc}") from exc
    graph = parse_graph_json(data, p)
    return graph, hashlib.sha256(data).hexdigest()


#: Key of the stand-in the graph's JSON text holds for a value that is not JSON (e.g. a
#: ``datetime.date`` object): ``{NOT_JSON_KEY: repr(value)}``; the validator reports the value
#: by its ``repr`` where its datatype is checked (kgbench_core::neo4j::value::NOT_JSON_KEY).
NOT_JSON_KEY = "\u0000kgbench:not-json"


def _not_json(value: Any) -> dict[str, str]:
    return {NOT_JSON_KEY: repr(value)}


def graph_json_bytes(graph: Mapping[str, Any]) -> bytes:
    """The graph dict as JSON text for the native validator (``json.dumps``; a value that is not
    JSON becomes a stand-in the validator reports by its ``repr``). Raises
    :class:`GraphValidationError` when a float is NaN or infinite (not JSON) or a key cannot be
    a JSON object key."""
    import json

    try:
        return json.dumps(graph, default=_not_json, allow_nan=False).encode("ascii")
    except (TypeError, ValueError) as exc:
        raise GraphValidationError(
            "graph", [f"graph: not representable as JSON (SPEC.md §2): {exc}"], 1
        ) from exc


def graph_json_path(graph: str | os.PathLike[str]) -> Path | None:
    """The ``graph.json`` file :func:`kgbench.convert.read_graph` reads for ``graph`` (the path
    itself, or ``graph.json`` inside a directory), or None for a directory without one (the
    Parquet pair)."""
    from kgbench.convert import GRAPH_FILE

    p = Path(graph)
    if p.is_dir():
        return p / GRAPH_FILE if (p / GRAPH_FILE).is_file() else None
    return p


def check_graph(graph: Mapping[str, Any] | str | os.PathLike[str]) -> Any:
    """The native validation (``kgbench._core.neo4j.validate``) of a graph dict or a
    ``graph.json`` path (read by Rust; a Parquet pair directory is read into a dict first).
    Returns its ``GraphCheck``: ``problems``, ``total``, ``entity_properties``,
    ``relation_properties``, ``nodes_by_label``, ``relationships_by_type``.
    Raises :class:`kgbench.errors.InputError` when the file cannot be read or is not JSON."""
    from kgbench._core import neo4j as core

    if isinstance(graph, Mapping):
        try:
            data = graph_json_bytes(graph)
        except GraphValidationError as exc:
            return _FailedCheck(exc.problems)
        return core.validate(data)
    path = graph_json_path(graph)
    if path is None:
        return core.validate(graph_json_bytes(read_graph_file(graph)), source=str(graph))
    return core.validate(str(path))


@dataclass(frozen=True)
class _FailedCheck:
    """A check of a graph dict that cannot even be written as JSON."""

    problems: list[str]

    @property
    def total(self) -> int:
        return len(self.problems)


def validate_graph(graph: Mapping[str, Any]) -> list[str]:
    """Check ``graph`` against SPEC.md §2; return the problems found (empty when valid).

    Checks: the ``schema`` / ``entities`` / ``relations`` shapes; labels and property names are
    identifiers; datatypes are known; ``eid`` and ``rid`` unique; every entity's label is a schema
    entity; every relation's (label, subject label, object label) is in the schema and both ends
    exist; every property is declared for its label and its value matches the datatype
    (``null`` is allowed and not stored); loader-owned keys are not reused as properties.
    At most 20 problems are listed (:data:`MAX_PROBLEMS`); the count of all is in the message
    of :class:`GraphValidationError` raised by :func:`load_graph`. The checks run natively
    (``kgbench._core.neo4j``, rust/kgbench-core/src/neo4j/validate.rs) on the graph's JSON text.
    """
    return list(check_graph(graph).problems)


def _read_checked(
    graph: Mapping[str, Any] | str | os.PathLike[str],
) -> tuple[Mapping[str, Any], str, Any]:
    """The graph as a dict (read by :func:`read_graph_file` for a path: its JSON errors), its
    source, and its native check; raises :class:`GraphValidationError` when invalid."""
    from kgbench._core import neo4j as core

    source = "graph"
    if isinstance(graph, Mapping):
        check = check_graph(graph)
    else:
        source = str(graph)
        graph_dict = read_graph_file(graph)
        path = graph_json_path(graph)
        if path is None:  # the Parquet pair
            check = core.validate(graph_json_bytes(graph_dict), source=source)
        else:  # graph.json: validated natively from the file
            check = core.validate(str(path))
        graph = graph_dict
    if check.total:
        raise GraphValidationError(source, list(check.problems), check.total)
    return graph, source, check


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
    graph, source, _ = _read_checked(graph)
    return graph, source


def declared_properties(
    graph: Mapping[str, Any],
) -> tuple[dict[str, dict[str, str]], dict[tuple[str, str, str], dict[str, str]]]:
    """The declared properties of a validated graph's schema (SPEC.md §2).

    Returns ``(entity_props, relation_props)``: ``{label: {property: datatype}}`` and
    ``{(label, subj_label, obj_label): {property: datatype}}``, without the CypherBench
    metadata fields (``eid``/``rid``, ``name``, ``aliases``, ``description``, ``provenance``).
    Computed by the native validator from the schema alone.
    """
    check = check_graph({"schema": graph["schema"], "entities": [], "relations": []})
    return dict(check.entity_properties), dict(check.relation_properties)


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
        from kgbench.neo4j.executor import connect

        return connect(driver_or_uri, user, password), True
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


#: Seconds between the progress lines of a load when stderr is not a terminal.
PROGRESS_LINE_EVERY_S = 30.0


class _LineProgress:
    """The progress of a phase as a line on stderr every :data:`PROGRESS_LINE_EVERY_S` seconds
    (``kgbench load: nodes 120,000/500,000 (24%), 31 s``), for a log file or a pipe, where a
    redrawn bar would be noise; a phase shorter than that prints nothing."""

    def __init__(self, total: int, desc: str) -> None:
        self.total, self.desc, self.n = total, desc, 0
        self.t0 = self.last = time.monotonic()

    def update(self, n: int) -> None:
        self.n += n
        now = time.monotonic()
        if now - self.last >= PROGRESS_LINE_EVERY_S:
            self.last = now
            pct = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
            print(
                f"kgbench load: {self.desc} {self.n:,}/{self.total:,}{pct}, {now - self.t0:.0f} s",
                file=sys.stderr,
                flush=True,
            )

    def __enter__(self) -> _LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _progress(total: int, desc: str, enabled: bool | None) -> Any:
    """A progress bar of ``total`` rows: tqdm on a terminal (``enabled=None``: when stderr is
    one), else periodic lines (:class:`_LineProgress`) unless ``enabled`` is False."""
    if enabled is None and not _stderr_is_tty():
        return _LineProgress(total, desc)
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit="row",
        unit_scale=True,
        disable=None if enabled is None else not enabled,
    )


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _phase(text: str, enabled: bool | None) -> None:
    """Say on a terminal's stderr which step of a load runs now (before its bar appears); the
    line is overwritten by the next phase or bar."""
    if enabled is False or (enabled is None and not _stderr_is_tty()):
        return
    sys.stderr.write(f"\r{text}…\x1b[K")
    sys.stderr.flush()


def _end_phase(enabled: bool | None) -> None:
    if enabled is False or (enabled is None and not _stderr_is_tty()):
        return
    sys.stderr.write("\r\x1b[K")
    sys.stderr.flush()


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
    ``progress=None`` shows the current step and a bar per phase (nodes, relationships) on
    stderr when it is a terminal, else a line every 30 s of a long phase; ``True`` always shows
    the bars, ``False`` nothing.

    Raises :class:`GraphValidationError` (nothing written) when the graph is invalid, and
    :class:`LoadVerificationError` when the database's counts per label / relationship type
    differ from the graph's afterwards.
    """
    _phase("reading and validating the graph", progress)
    try:
        graph, _, check = _read_checked(graph)
    finally:
        _end_phase(progress)
    if batch_size < 1:
        raise InputError(f"batch_size must be >= 1, got {batch_size}")
    ent_props, rel_props = dict(check.entity_properties), dict(check.relation_properties)

    driver, owned = _open_driver(driver_or_uri, user, password)
    try:
        return _load(
            graph,
            driver,
            database,
            wipe,
            batch_size,
            progress,
            verify,
            ent_props,
            rel_props,
            log,
            check.nodes_by_label,
            check.relationships_by_type,
        )
    finally:
        _end_phase(progress)  # a failed step leaves no status line before the error
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
    want_nodes: Mapping[str, int],
    want_rels: Mapping[str, int],
) -> LoadReport:
    if wipe:
        _phase("wiping the database", progress)
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
        _phase("creating constraints and indexes", progress)
        create_schema(session, ent_props)
        _end_phase(progress)

        def count_nodes(label: str) -> int:
            return int(session.run(f"MATCH (n:{_q(label)}) RETURN count(n) AS c").single()["c"])

        def count_rels(rtype: str) -> int:
            q = f"MATCH ()-[r:{_q(rtype)}]->() RETURN count(r) AS c"
            return int(session.run(q).single()["c"])

        n_nodes = len(graph["entities"])
        element_ids: dict[str, str] = {}  # eid -> the node's elementId
        t0 = time.perf_counter()
        with _progress(n_nodes, "nodes", progress) as bar:
            for label in sorted(nodes_by_label):
                declared = ent_props[label]
                empty = count_nodes(label) == 0
                verb = "CREATE (n:{l})" if empty else "MERGE (n:{l} {{eid: row.eid}})"
                query = (
                    f"UNWIND $rows AS row {verb.format(l=_q(label))} SET n = row "
                    "RETURN row.eid AS eid, elementId(n) AS id"
                )
                for chunk in _batches(nodes_by_label[label], batch_size):
                    rows = [_node_row(e, declared) for e in chunk]
                    element_ids.update(session.execute_write(_run_write_ids, query, rows))
                    bar.update(len(rows))
        t1 = time.perf_counter()

        n_rels = len(graph["relations"])
        types_before = {rtype: count_rels(rtype) for rtype in {k[0] for k in rels_by_key}}
        # One query per relationship type, its endpoints found by element id (the rows of its
        # (subject label, object label) pairs in their sorted order, so the relationships are
        # created in the same order as one query per pair would): Neo4j plans each query text
        # once, and planning a short write costs more than running it (a noisy graph has
        # hundreds of label pairs).
        rows_by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for key in sorted(rels_by_key):
            declared = rel_props[key]
            for rel in rels_by_key[key]:
                row = _rel_row(rel, declared)
                row["s"], row["o"] = element_ids[row["s"]], element_ids[row["o"]]
                rows_by_type[key[0]].append(row)
        with _progress(n_rels, "relationships", progress) as bar:
            for rtype, type_rows in rows_by_type.items():
                match = "MATCH (s) WHERE elementId(s) = row.s MATCH (o) WHERE elementId(o) = row.o "
                if types_before[rtype] == 0:
                    query = (
                        f"UNWIND $rows AS row {match}CREATE (s)-[r:{_q(rtype)}]->(o) SET r = row.p"
                    )
                else:
                    query = (
                        f"UNWIND $rows AS row {match}"
                        f"MERGE (s)-[r:{_q(rtype)} {{rid: row.rid}}]->(o) SET r = row.p"
                    )
                for rows in _batches(type_rows, batch_size):
                    session.execute_write(_run_write, query, rows)
                    bar.update(len(rows))
        t2 = time.perf_counter()

        _phase("verifying the counts", progress)
        got_nodes, got_rels = verify_counts(
            session, want_nodes, want_rels, ent_props, rel_props, verify
        )
        _end_phase(progress)

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


def _run_write_ids(tx: Any, query: str, rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Run a node write returning ``eid`` and ``id`` columns: (eid, elementId) pairs."""
    return [(rec["eid"], rec["id"]) for rec in tx.run(query, rows=rows)]


def create_schema(session: Any, ent_props: Mapping[str, Any]) -> None:
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


def verify_counts(
    session: Any,
    want_nodes: Mapping[str, int],
    want_rels: Mapping[str, int],
    ent_props: Mapping[str, Any],
    rel_props: Mapping[tuple[str, str, str], Any],
    verify: bool,
) -> tuple[dict[str, int], dict[str, int]]:
    """Counts per label / relationship type in the database; with ``verify``, raise
    :class:`LoadVerificationError` when they differ from the graph's (``want_nodes``: entities
    per label, ``want_rels``: relations per relation label, as the validator counted them)."""
    got_nodes = {
        label: int(session.run(f"MATCH (n:{_q(label)}) RETURN count(n) AS c").single()["c"])
        for label in sorted(ent_props)
    }
    got_rels = {
        rtype: int(session.run(f"MATCH ()-[r:{_q(rtype)}]->() RETURN count(r) AS c").single()["c"])
        for rtype in sorted({k[0] for k in rel_props})
    }
    if verify:
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
