"""A relational database as RDF and as a kgbench property graph (``kgbench rdb``; spec
``spider4sparql.md`` §2 outputs, §3).

One SQLite database (schema checked by :func:`kgbench.rdb.schema.load_schema`) becomes, in
one output directory:

- ``<db_id>.nt``: the W3C Direct Mapping with Spider4SPARQL's naming
  (:mod:`kgbench.rdb.naming`): an ``rdf:type`` triple per row, a data triple per non-NULL
  cell (key columns included), a ``t#ref-c`` triple per foreign-key match, child to parent.
  Sorted, distinct lines of N-Triples (an RDF graph is a set).
- ``<db_id>.ontology.ttl``: ``owl:Class`` per table, ``owl:DatatypeProperty`` per column and
  ``owl:ObjectProperty`` per foreign key, with ``rdfs:domain`` / ``rdfs:range`` (Ontop's
  bootstrapper, spec §3).
- ``<db_id>.ontology.json``: ``{"classes", "object_properties", "data_properties"}`` of
  local names (``singer``, ``concert#ref-stadium_id``, ``singer#age``), sorted: the format of
  Spider4SPARQL's prompts (spec §2).
- ``graph.json``: the same rows as a SPEC.md §2 property graph (spec §3 last paragraph),
  one node per RDF row subject and one relationship per foreign-key triple.
- ``report.json``: counts, type mismatches, repairs, property-graph renamings and the schema
  notes. It is removed when a run starts and written last, so a directory with a
  ``report.json`` holds a complete conversion; every file is written atomically.

One engine: this module plans (schema, handle columns, the SELECT and join SQL, column kinds,
predicates, property names) and writes the ontology and the report;
:func:`kgbench._core.rdb.convert` (Rust) runs the SQL on the system SQLite library, applies
the repairs, names the rows and writes ``<db_id>.nt`` and ``graph.json`` on all cores.
tests/test_rdb_convert.py compares its outputs with the checked-in expected outputs of real
databases (tests/data/rdb/; kgbench's former pure-Python engine wrote the same bytes).

Rows and keys. A table's rows are read in rowid order. A keyed row's subject is
``<base>t/k1=v1;k2=v2`` (key columns in key order). A table without a primary key is a bag by
default (``pk_less="bag"``): row ``n`` is ``<base>t/_row=<rowid>``, so duplicate rows stay
distinct. ``pk_less="s4s"`` follows Spider4SPARQL (spec §3 item 6): one blank node per distinct
row, labelled by all of its values (NULL read as ``'NULL'`` in TEXT/untyped columns and as
``0`` in numeric ones, spec §3 item 6), so duplicate rows merge (and a NULL row merges with
its ``0`` twin, as in Spider4SPARQL); the label is ``b`` + the first 24 hex digits of the
SHA-1 of the table name and those values' texts. Merged rows become one node whose
properties are the union (first value wins). A keyed
table whose key values are NULL or repeat in the data (possible in SQLite) is named like a
bag (``_row=<rowid>``) and listed in the report (``row_naming``); none of the Spider
databases needs this.

Types (spec §3 item 3, R2RML's natural mapping; :func:`column_kind`). The declared SQL type
decides (SQLite's affinity rules first, so ``*INT*`` wins): ``*INT*`` and ``YEAR`` (a
kgbench choice; R2RML has no YEAR) -> ``xsd:integer``; ``REAL``/``FLOA*``/``DOUB*`` ->
``xsd:double``; ``NUMERIC``/``DECIMAL``/``NUMBER`` -> ``xsd:decimal``; ``BOOL*``/``BIT`` ->
``xsd:boolean``; ``DATE`` -> ``xsd:date``; ``DATETIME``/``TIMESTAMP`` -> ``xsd:dateTime``
(the space replaced by ``T``); ``TIME`` -> ``xsd:time``; ``*CHAR*``/``*CLOB*``/``*TEXT*`` ->
a plain literal; ``BLOB``, no type or an unknown type -> by the value's storage class
(``untyped``). Booleans: SQLite has none; the integers 0 and 1 and the texts ``T``/``F``
(Spider's convention, e.g. concert_singer ``singer.Is_male``) and ``true``/``false`` (any
case) are ``false``/``true`` (so SQL's ``Is_male = 'T'`` is SPARQL's ``= true``). SQLite is
dynamically typed: a value that does not fit its column's type (text ``'nil'`` in an INTEGER
column, ``'2010-1-5'`` in a DATE column, a stadium name in a BOOL column) keeps the literal
of its storage class (integer -> ``xsd:integer``, real -> ``xsd:double``, text -> plain,
blob -> ``xsd:hexBinary``) and is counted under ``type_mismatches`` with the column and
examples. Nothing is dropped.

Foreign keys (spec §3 item 4): ``tables.json`` ∪ ``PRAGMA foreign_key_list``. The matches are
computed by SQLite itself, ``child.fk = parent.ref`` (its affinity and collation rules decide,
so the TEXT ``concert.Stadium_ID`` finds the INT ``stadium.Stadium_ID``): a dangling value
gives no triple, a non-unique target one triple per match.

Repairs are off by default; each is counted per column in the report:

- ``trim``: leading and trailing spaces, tabs, CR and LF are removed from every text value
  (keys included, so IRIs change: flight_2 ``' APG'``), and the foreign-key join compares
  the trimmed text of TEXT-affinity and untyped columns.
- ``promote_numeric_text``: a text or untyped column whose non-NULL values are all plain
  decimal numerals (at least one; ASCII, optional ``-``, no spaces, exponents or leading
  zeros, so codes such as ``'007'`` keep the column text; a value a float holds exactly)
  becomes ``xsd:integer`` (all integral) or ``xsd:decimal``; the values become numbers in
  both outputs. Joins keep SQLite's own comparison.

Property graph (spec §3; SPEC.md §2): label = table name as declared
(:func:`kgbench.rdb.naming.pg_label`); ``eid`` = :func:`kgbench.rdb.naming.eid` of the key
(``_row=<rowid>`` for a bag row, ``_bnode=<label>`` for a merged ``s4s`` row); properties =
the non-NULL cells, typed ``int`` (xsd:integer), ``float`` (double, decimal), ``bool``,
``date``, else ``str`` (dateTime and time values keep SQLite's text); a column whose cells do
not all fit gets ``str`` for all of its values (SQLite's text of each value) and is listed
under ``pg_widened``. Property names are the column names as declared, made identifiers
(:func:`kgbench.rdb.naming.property_names`): characters outside ``[A-Za-z0-9_]`` become
``_``, a leading digit gets a ``_`` prefix, names the loader owns (``eid``, ``aliases``,
``description``, ``provenance``) and clashes get a trailing ``_``; a column called exactly
``name`` is the node's ``name`` and no property. ``name`` = the text of the first column
named ``name`` in any case when not NULL, else the key values joined by ``;`` (a bag row:
``_row=<rowid>``). Relationship type = :func:`kgbench.rdb.naming.relation_label` of the
child's columns (``ref_Stadium_ID``); ``rid`` = running index.
"""

from __future__ import annotations

import gc
import json
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.fileio import write_json_atomic, write_text_atomic
from kgbench.rdb.naming import Naming, pg_label, property_names, relation_label
from kgbench.rdb.schema import DatabaseSchema, ForeignKey, Table, load_schema

XSD = "http://www.w3.org/2001/XMLSchema#"

#: Column kinds (:func:`column_kind`) and their RDF datatype; ``string`` is a plain literal
#: (``xsd:string``), ``untyped`` follows each value's storage class (``rdfs:Literal``).
KIND_XSD = {
    "integer": XSD + "integer",
    "double": XSD + "double",
    "decimal": XSD + "decimal",
    "boolean": XSD + "boolean",
    "date": XSD + "date",
    "dateTime": XSD + "dateTime",
    "time": XSD + "time",
    "string": XSD + "string",
    "untyped": "http://www.w3.org/2000/01/rdf-schema#Literal",
}

#: The output files (``DIR/...``; ``{db}`` = the db_id).
NT_FILE = "{db}.nt"
ONTOLOGY_TTL = "{db}.ontology.ttl"
ONTOLOGY_JSON = "{db}.ontology.json"
GRAPH_FILE = "graph.json"
REPORT_FILE = "report.json"

#: Node properties the loader owns besides ``name`` (SPEC.md §2); columns so named are renamed.
_PK_LESS = ("bag", "s4s")


# ---------------------------------------------------------------------------------------------
# Column types
# ---------------------------------------------------------------------------------------------
def sqlite_affinity(declared: str) -> str:
    """SQLite's column affinity of a declared type (``INTEGER``, ``TEXT``, ``BLOB``, ``REAL``
    or ``NUMERIC``), by the rules of SQLite's "Datatypes In SQLite" §3.1, in order."""
    t = declared.upper()
    if "INT" in t:
        return "INTEGER"
    if "CHAR" in t or "CLOB" in t or "TEXT" in t:
        return "TEXT"
    if "BLOB" in t or not t:
        return "BLOB"
    if "REAL" in t or "FLOA" in t or "DOUB" in t:
        return "REAL"
    return "NUMERIC"


def column_kind(declared: str) -> str:
    """The RDF kind of a declared SQL type (module docstring; spec §3 item 3): one of
    ``integer``, ``double``, ``decimal``, ``boolean``, ``date``, ``dateTime``, ``time``,
    ``string``, ``untyped`` (keys of :data:`KIND_XSD`)."""
    t = declared.upper()
    if "BOOL" in t or t == "BIT" or t.startswith("BIT("):
        return "boolean"
    affinity = sqlite_affinity(t)
    if affinity == "INTEGER":
        return "integer"
    if affinity == "TEXT":
        return "string"
    if affinity == "BLOB":
        return "untyped"
    if affinity == "REAL":
        return "double"
    if "DATETIME" in t or "TIMESTAMP" in t:
        return "dateTime"
    if "DATE" in t:
        return "date"
    if "TIME" in t:
        return "time"
    if "YEAR" in t:
        return "integer"
    if "NUM" in t or "DEC" in t:
        return "decimal"
    return "untyped"


# ---------------------------------------------------------------------------------------------
# Plans
# ---------------------------------------------------------------------------------------------
@dataclass
class ColumnPlan:
    """How one column is written: its ``kind`` (:func:`column_kind`, after promotion), the
    predicate IRI, the property-graph property (None: the node's ``name``), and the
    repairs made to it."""

    name: str
    declared_type: str
    affinity: str
    kind: str
    predicate: str
    prop: str | None
    promoted: str | None = None
    trimmed: int = 0


@dataclass
class TableData:
    """One table's plan: its schema, its column plans (completed from the conversion's
    results: kinds after promotion, trimmed cells) and how its rows were named
    (``row_naming``: ``key``, ``rowid`` or ``blank``)."""

    table: Table
    columns: list[ColumnPlan]
    row_naming: str = "key"


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _handle_columns(conn: sqlite3.Connection, table: Table) -> list[str]:
    """SQL expressions identifying a row: a rowid alias not shadowed by a column, or the key
    columns of a WITHOUT ROWID table."""
    names = {c.name.lower() for c in table.columns}
    for alias in ("rowid", "_rowid_", "oid"):
        if alias in names:
            continue
        try:
            conn.execute(f"SELECT {alias} FROM {_q(table.name)} LIMIT 0")
        except sqlite3.OperationalError:
            break
        return [alias]
    if not table.primary_key:
        raise InputError(f"table {table.name}: no rowid and no primary key to name its rows")
    return [_q(k) for k in table.primary_key]


def _column_plans(table: Table, naming: Naming) -> list[ColumnPlan]:
    """The plan of each column of ``table`` before repairs (kind, predicate, property)."""
    props = property_names(table)
    return [
        ColumnPlan(
            name=col.name,
            declared_type=col.declared_type,
            affinity=sqlite_affinity(col.declared_type),
            kind=column_kind(col.declared_type),
            predicate=f"<{naming.column_iri(table.name, col.name)}>",
            prop=props[col.name],
        )
        for col in table.columns
    ]


def _select_sql(table: Table, handle_cols: Sequence[str]) -> str:
    """``SELECT handles..., columns... FROM t ORDER BY handles`` (rowid order)."""
    cols_sql = ", ".join([*handle_cols, *(_q(c.name) for c in table.columns)])
    order = ", ".join(handle_cols)
    return f"SELECT {cols_sql} FROM {_q(table.name)} ORDER BY {order}"


@dataclass
class Mismatch:
    """Cells of one column that do not fit its kind (kept as their storage-class literal)."""

    table: str
    column: str
    declared_type: str
    kind: str
    count: int = 0
    examples: list[str] = field(default_factory=list)


def _trimmed(expr: str, affinity: str) -> str:
    chars = "' ' || char(9) || char(13) || char(10)"
    if affinity == "TEXT":
        return f"CAST(trim({expr}, {chars}) AS TEXT)"
    if affinity == "BLOB":
        return f"(CASE WHEN typeof({expr}) = 'text' THEN trim({expr}, {chars}) ELSE {expr} END)"
    return expr


def _join_sql(
    fk: ForeignKey,
    child: Table,
    parent: Table,
    ch: Sequence[str],
    ph: Sequence[str],
    trim: bool,
) -> str:
    """The SQL of a foreign key's matches: child then parent handles (``ch``, ``ph``) of
    the rows where ``child.fk = parent.ref``, in child then parent rowid order."""
    aff_c = {c.name: sqlite_affinity(c.declared_type) for c in child.columns}
    aff_p = {c.name: sqlite_affinity(c.declared_type) for c in parent.columns}
    conds = []
    for a, b in zip(fk.columns, fk.ref_columns, strict=True):
        left, right = f"c.{_q(a)}", f"p.{_q(b)}"
        if trim:
            left, right = _trimmed(left, aff_c[a]), _trimmed(right, aff_p[b])
        conds.append(f"{left} = {right}")
    sel = ", ".join([*(f"c.{h}" for h in ch), *(f"p.{h}" for h in ph)])
    order = ", ".join([*(f"c.{h}" for h in ch), *(f"p.{h}" for h in ph)])
    return (
        f"SELECT {sel} FROM {_q(child.name)} AS c JOIN {_q(parent.name)} AS p "
        f"ON {' AND '.join(conds)} ORDER BY {order}"
    )


# ---------------------------------------------------------------------------------------------
# Ontology
# ---------------------------------------------------------------------------------------------
def _ontology(
    schema: DatabaseSchema, tables: dict[str, TableData], naming: Naming
) -> tuple[str, dict[str, list[str]]]:
    lines = [
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        "",
    ]
    classes: set[str] = set()
    data_props: set[str] = set()
    obj_props: dict[str, tuple[str, set[str]]] = {}
    for name, data in tables.items():
        cls = naming.class_iri(name)
        classes.add(naming.table_local(name))
        lines.append(f"<{cls}> a owl:Class .")
        for col in data.columns:
            data_props.add(naming.column_local(name, col.name))
            rng = KIND_XSD[col.kind].replace(XSD, "xsd:")
            if rng.startswith("http"):
                rng = "rdfs:Literal"
            lines.append(
                f"<{naming.column_iri(name, col.name)}> a owl:DatatypeProperty ;\n"
                f"    rdfs:domain <{cls}> ;\n    rdfs:range {rng} ."
            )
    for fk in schema.foreign_keys:
        if fk.table not in tables or fk.ref_table not in tables:
            continue
        local = naming.ref_local(fk.table, fk.columns)
        entry = obj_props.setdefault(local, (naming.class_iri(fk.table), set()))
        entry[1].add(naming.class_iri(fk.ref_table))
    for local in sorted(obj_props):
        domain, ranges = obj_props[local]
        rng = " , ".join(f"<{r}>" for r in sorted(ranges))
        lines.append(
            f"<{naming.base}{local}> a owl:ObjectProperty ;\n"
            f"    rdfs:domain <{domain}> ;\n    rdfs:range {rng} ."
        )
    prompt = {
        "classes": sorted(classes),
        "object_properties": sorted(obj_props),
        "data_properties": sorted(data_props),
    }
    return "\n".join(lines) + "\n", prompt


# ---------------------------------------------------------------------------------------------
# The conversion
# ---------------------------------------------------------------------------------------------
def output_paths(out_dir: str | os.PathLike[str], db_id: str) -> dict[str, Path]:
    """The files :func:`convert_rdb` writes: keys ``nt``, ``ontology_ttl``,
    ``ontology_json``, ``graph``, ``report``."""
    d = Path(out_dir)
    return {
        "nt": d / NT_FILE.format(db=db_id),
        "ontology_ttl": d / ONTOLOGY_TTL.format(db=db_id),
        "ontology_json": d / ONTOLOGY_JSON.format(db=db_id),
        "graph": d / GRAPH_FILE,
        "report": d / REPORT_FILE,
    }


def _report(
    schema: DatabaseSchema,
    db: str | os.PathLike[str],
    tables_json: str | os.PathLike[str] | None,
    db_id: str,
    nm: Naming,
    paths: dict[str, Path],
    *,
    pk_less: str,
    trim: bool,
    promote_numeric_text: bool,
    tables: dict[str, TableData],
    per_table: dict[str, dict[str, Any]],
    counts: tuple[int, int, int],
    nodes: int,
    relationships: int,
    merged: int,
    mismatches: list[Mismatch],
    promoted_cells: dict[tuple[str, int], int],
    pg_widened: list[dict[str, Any]],
    fk_report: list[dict[str, Any]],
) -> dict[str, Any]:
    """The report of :func:`convert_rdb` without ``seconds``."""
    n_type, n_data, n_ref = counts
    rows = sum(p["rows"] for p in per_table.values())
    cells = sum(p["cells"] for p in per_table.values())
    report: dict[str, Any] = {
        "db_id": db_id,
        "database": str(db),
        "tables_json": None if tables_json is None else str(tables_json),
        "naming": nm.style,
        "base": nm.base,
        "pk_less": pk_less,
        "trim": trim,
        "promote_numeric_text": promote_numeric_text,
        "tables": len(tables),
        "rows": rows,
        "cells": cells,
        "nulls_skipped": sum(p["nulls"] for p in per_table.values()),
        "triples": n_type + n_data + n_ref,
        "type_triples": n_type,
        "data_triples": n_data,
        "fk_triples": n_ref,
        "nodes": nodes,
        "relationships": relationships,
        "merged_rows": merged,
        "type_mismatches": sum(m.count for m in mismatches),
        "mismatches": [vars(m) for m in mismatches],
        "repairs": {
            "trimmed_cells": sum(c.trimmed for d in tables.values() for c in d.columns),
            "trimmed": [
                {"table": n, "column": c.name, "cells": c.trimmed}
                for n, d in tables.items()
                for c in d.columns
                if c.trimmed
            ],
            "promoted": [
                {
                    "table": n,
                    "column": c.name,
                    "declared_type": c.declared_type,
                    "to": c.promoted,
                    "cells": promoted_cells[(n, j)],
                }
                for n, d in tables.items()
                for j, c in enumerate(d.columns)
                if c.promoted
            ],
        },
        "pg_widened": pg_widened,
        "pg_renamed": [
            {"table": n, "column": c.name, "property": c.prop}
            for n, d in tables.items()
            for c in d.columns
            if c.prop != c.name
        ],
        "row_naming": {n: d.row_naming for n, d in tables.items() if d.row_naming != "key"},
        "foreign_keys": fk_report,
        "per_table": per_table,
        "schema_notes": list(schema.notes),
        "files": {k: str(p) for k, p in paths.items()},
    }
    return report


def convert_rdb(
    db: str | os.PathLike[str],
    tables_json: str | os.PathLike[str] | None,
    db_id: str,
    out_dir: str | os.PathLike[str],
    *,
    naming: str = "s4s",
    base: str | None = None,
    pk_less: str = "bag",
    trim: bool = False,
    promote_numeric_text: bool = False,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Convert SQLite database ``db`` (schema: ``tables_json``'s ``db_id`` entry checked
    against the file, or the file alone when ``tables_json`` is None) into ``out_dir``
    (module docstring; spec §2 outputs, §3): ``<db_id>.nt``, ``<db_id>.ontology.ttl``,
    ``<db_id>.ontology.json``, ``graph.json`` and, last, ``report.json``.

    ``naming``: ``s4s`` (Spider4SPARQL, base ``http://valuenet/ontop/``) or ``w3c`` (names as
    declared; ``base`` overrides the base IRI for either). ``pk_less``: ``bag`` (default) or
    ``s4s``. ``trim`` and ``promote_numeric_text``: the repairs. ``progress`` receives one
    line per table. The row work runs in :mod:`kgbench._core.rdb` (Rust), which reads the
    file with the system SQLite library and uses all cores.

    Returns the report (also ``report.json``): ``db_id``, options, ``tables``, ``rows``,
    ``cells`` (non-NULL), ``nulls_skipped``, ``triples`` (distinct lines written),
    ``type_triples``, ``data_triples``, ``fk_triples`` (distinct), ``nodes``,
    ``relationships``, ``merged_rows``, ``type_mismatches`` (cells) and ``mismatches``
    (per column, with examples), ``repairs`` (``trimmed_cells``, ``trimmed`` and
    ``promoted`` per column), ``pg_widened``, ``pg_renamed``, ``row_naming`` (tables not
    named by key), ``foreign_keys`` (with their triples), ``per_table``, ``schema_notes``,
    ``seconds``, ``files``.

    Raises:
        InputError: not an SQLite file, unknown ``db_id``, a ``tables.json`` table or
            column missing from the database, a key disagreement (from
            :func:`kgbench.rdb.schema.load_schema`; the message names table and column),
            a bad option, or an output file that cannot be written.
    """
    t0 = time.perf_counter()
    if pk_less not in _PK_LESS:
        raise InputError(f"pk_less must be 'bag' or 's4s', not {pk_less!r}")
    try:
        nm = Naming(naming) if base is None else Naming(naming, base)
    except ValueError as exc:
        raise InputError(str(exc)) from exc
    paths = output_paths(out_dir, db_id)
    if paths["report"].exists():
        paths["report"].unlink()
    schema = load_schema(db, tables_json, db_id)
    # millions of small objects and no cycles: the cyclic collector only costs time here
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _convert(
            schema,
            db,
            tables_json,
            db_id,
            nm,
            paths,
            t0,
            pk_less=pk_less,
            trim=trim,
            promote_numeric_text=promote_numeric_text,
            progress=progress,
        )
    finally:
        if gc_was_enabled:
            gc.enable()


def _convert(
    schema: DatabaseSchema,
    db: str | os.PathLike[str],
    tables_json: str | os.PathLike[str] | None,
    db_id: str,
    nm: Naming,
    paths: dict[str, Path],
    t0: float,
    *,
    pk_less: str,
    trim: bool,
    promote_numeric_text: bool,
    progress: Callable[[str], None] | None,
) -> dict[str, Any]:
    """The conversion, with the row work in Rust (:func:`kgbench._core.rdb.convert`): this
    function plans (handle columns, SELECT and join SQL, column kinds, predicates, property
    names, naming prefixes), Rust reads, names and writes ``<db_id>.nt`` and ``graph.json``,
    and this function writes the ontology and the report from the counts it returns."""
    from kgbench._core import rdb as _rdb

    tables: dict[str, TableData] = {}
    handles: dict[str, list[str]] = {}
    table_jobs: list[dict[str, Any]] = []
    conn = schema.connect()
    try:
        for t in schema.tables.values():
            try:
                handles[t.name] = _handle_columns(conn, t)
            except sqlite3.DatabaseError as exc:
                raise InputError(f"{db}: table {t.name}: cannot read: {exc}") from exc
    finally:
        conn.close()
    for t in schema.tables.values():
        plans = _column_plans(t, nm)
        tables[t.name] = TableData(table=t, columns=plans)
        col_index = {c.name: j for j, c in enumerate(plans)}
        iri_base = nm.row_iri(t.name, [])
        table_jobs.append(
            {
                "name": t.name,
                "label": pg_label(t.name),
                "class_iri": f"<{nm.class_iri(t.name)}>",
                "iri_base": iri_base,
                "select_sql": _select_sql(t, handles[t.name]),
                "nh": len(handles[t.name]),
                "columns": [
                    {
                        "affinity": c.affinity,
                        "kind": c.kind,
                        "predicate": c.predicate,
                        "prop": c.prop,
                    }
                    for c in plans
                ],
                "key": [col_index[k] for k in t.primary_key],
                "key_names": list(t.primary_key),
                "key_locals": [
                    nm.row_iri(t.name, [(k, "")])[len(iri_base) : -1] for k in t.primary_key
                ],
                "name_idx": next(
                    (j for j, c in enumerate(plans) if c.name.lower() == "name"), None
                ),
            }
        )
    index = {name: i for i, name in enumerate(tables)}
    fk_jobs: list[dict[str, Any]] = []
    fk_report: list[dict[str, Any]] = []
    rel_schema: dict[tuple[str, str, str], dict[str, Any]] = {}
    for fk in schema.foreign_keys:
        if fk.table not in tables or fk.ref_table not in tables:
            continue
        child, parent = tables[fk.table].table, tables[fk.ref_table].table
        label = relation_label(fk.columns)
        fk_jobs.append(
            {
                "child": index[fk.table],
                "parent": index[fk.ref_table],
                "sql": _join_sql(fk, child, parent, handles[fk.table], handles[fk.ref_table], trim),
                "nc": len(handles[fk.table]),
                "np": len(handles[fk.ref_table]),
                "predicate": f"<{nm.ref_iri(fk.table, fk.columns)}>",
                "label": label,
                "describe": f"{fk.table}({', '.join(fk.columns)}) -> {fk.ref_table}",
            }
        )
        key = (label, pg_label(fk.table), pg_label(fk.ref_table))
        rel_schema.setdefault(
            key, {"label": key[0], "subj_label": key[1], "obj_label": key[2], "properties": {}}
        )
        fk_report.append(
            {
                "table": fk.table,
                "columns": list(fk.columns),
                "ref_table": fk.ref_table,
                "ref_columns": list(fk.ref_columns),
                "source": fk.source,
                "matches": 0,
                "predicate": nm.ref_local(fk.table, fk.columns),
                "relationship": label,
            }
        )
    job = {
        "db": os.fspath(Path(db).resolve()),
        "db_id": db_id,
        "nt_path": os.fspath(paths["nt"]),
        "graph_path": os.fspath(paths["graph"]),
        "pk_less_blank": pk_less == "s4s",
        "trim": trim,
        "promote": promote_numeric_text,
        "tables": table_jobs,
        "fks": fk_jobs,
        "relation_schema_json": json.dumps(list(rel_schema.values()), ensure_ascii=False),
    }
    out = _rdb.convert(json.dumps(job, ensure_ascii=False))
    for entry, n in zip(fk_report, out["fk_matches"], strict=True):
        entry["matches"] = n
    mismatches: list[Mismatch] = []
    pg_widened: list[dict[str, Any]] = []
    per_table: dict[str, dict[str, Any]] = {}
    promoted_cells: dict[tuple[str, int], int] = {}
    merged = 0
    nodes = 0
    for (name, data), res in zip(tables.items(), out["tables"], strict=True):
        for j, (plan, col) in enumerate(zip(data.columns, res["columns"], strict=True)):
            plan.kind = col["kind"]
            plan.trimmed = col["trimmed"]
            if col["promoted"]:
                plan.promoted = plan.kind
                promoted_cells[(name, j)] = col["cells"]
        for m in res["mismatches"]:
            plan = data.columns[m["column"]]
            mismatches.append(
                Mismatch(
                    name,
                    plan.name,
                    plan.declared_type,
                    plan.kind,
                    m["count"],
                    [repr(v) for v in m["examples"]],
                )
            )
        pg_widened.extend(
            {"table": name, "column": data.columns[p["column"]].name, "dtype": p["widened_from"]}
            for p in res["pg_columns"]
            if p["widened_from"]
        )
        data.row_naming = res["row_naming"]
        merged += res["merged"]
        nodes += res["nodes"]
        rows = res["rows"]
        cells = sum(c["cells"] for c in res["columns"])
        per_table[name] = {
            "rows": rows,
            "cells": cells,
            "nulls": rows * len(data.columns) - cells,
            "nodes": res["nodes"],
            "key": list(data.table.primary_key),
            "row_naming": data.row_naming,
        }
        if progress is not None:
            progress(f"{name}: {rows} rows, {cells} cells, {res['nodes']} nodes")
    ttl, prompt = _ontology(schema, tables, nm)
    report = _report(
        schema,
        db,
        tables_json,
        db_id,
        nm,
        paths,
        pk_less=pk_less,
        trim=trim,
        promote_numeric_text=promote_numeric_text,
        tables=tables,
        per_table=per_table,
        counts=(out["type_triples"], out["data_triples"], out["ref_triples"]),
        nodes=nodes,
        relationships=out["relationships"],
        merged=merged,
        mismatches=mismatches,
        promoted_cells=promoted_cells,
        pg_widened=pg_widened,
        fk_report=fk_report,
    )
    write_text_atomic(paths["ontology_ttl"], ttl)
    write_json_atomic(paths["ontology_json"], prompt)
    report["seconds"] = round(time.perf_counter() - t0, 4)
    write_json_atomic(paths["report"], report)
    return report
