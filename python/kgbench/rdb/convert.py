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

Engines (:func:`convert_rdb`'s ``engine``). ``rust`` (default): this module plans (schema,
handle columns, the SELECT and join SQL, column kinds, predicates, property names) and writes
the ontology and the report; :func:`kgbench._core.rdb.convert` runs the SQL on the system
SQLite library, applies the repairs, names the rows and writes ``<db_id>.nt`` and
``graph.json`` on all cores. ``python``: this module's functions do everything; it is the
reference. Both write the same bytes (tests/test_rdb_convert.py checks every Spider database).

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

Property graph (spec §3; SPEC.md §2): label = table name as declared; ``eid`` =
:func:`kgbench.rdb.naming.eid` of the key (``_row=<rowid>`` for a bag row, ``_bnode=<label>``
for a merged ``s4s`` row); properties = the non-NULL cells, typed ``int`` (xsd:integer),
``float`` (double, decimal), ``bool``, ``date``, else ``str`` (dateTime and time values keep
SQLite's text); a column whose cells do not all fit gets ``str`` for all of its values
(SQLite's text of each value) and is listed under ``pg_widened``. Property names are the
column names as declared, made identifiers (:func:`property_names`): characters outside
``[A-Za-z0-9_]`` become ``_``, a leading digit gets a ``_`` prefix, names the loader owns
(``eid``, ``aliases``, ``description``, ``provenance``) and clashes get a trailing ``_``; a
column called exactly ``name`` is the node's ``name`` and no property. ``name`` = the text
of the first column named ``name`` in any case when not NULL, else the key values joined by
``;`` (a bag row: ``_row=<rowid>``). Relationship type = :func:`kgbench.rdb.naming.ref_type`
of the child's columns made a label (``ref_Stadium_ID``); ``rid`` = running index.
"""

from __future__ import annotations

import datetime as _dt
import functools
import gc
import hashlib
import itertools
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.fileio import write_json_atomic, write_text_atomic
from kgbench.rdb.naming import ROW_KEY, Naming, eid, literal_text, ref_type
from kgbench.rdb.schema import DatabaseSchema, ForeignKey, Table, load_schema

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"

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

#: Property-graph datatype of each kind (SPEC.md §2); ``untyped`` is decided by the values.
KIND_PG = {
    "integer": "int",
    "double": "float",
    "decimal": "float",
    "boolean": "bool",
    "date": "date",
    "dateTime": "str",
    "time": "str",
    "string": "str",
}

#: The output files (``DIR/...``; ``{db}`` = the db_id).
NT_FILE = "{db}.nt"
ONTOLOGY_TTL = "{db}.ontology.ttl"
ONTOLOGY_JSON = "{db}.ontology.json"
GRAPH_FILE = "graph.json"
REPORT_FILE = "report.json"

#: What ``trim`` removes from both ends of text values (SQL: ``trim(x, <these>)``).
TRIM_CHARS = " \t\r\n"

#: Node properties the loader owns besides ``name`` (SPEC.md §2); columns so named are renamed.
_LOADER_OWNED = frozenset(["eid", "aliases", "description", "provenance"])

#: Examples of mismatched values kept per column in the report.
_EXAMPLES = 3

_PK_LESS = ("bag", "s4s")

#: The conversion engines (:func:`convert_rdb`).
ENGINES = ("rust", "python")

_DT_INTEGER = f"^^<{XSD}integer>"
_DT_DOUBLE = f"^^<{XSD}double>"
_DT_DECIMAL = f"^^<{XSD}decimal>"
_DT_BOOLEAN = f"^^<{XSD}boolean>"
_DT_DATE = f"^^<{XSD}date>"
_DT_DATETIME = f"^^<{XSD}dateTime>"
_DT_TIME = f"^^<{XSD}time>"
_DT_HEX = f"^^<{XSD}hexBinary>"
_TRUE = f'"true"{_DT_BOOLEAN}'
_FALSE = f'"false"{_DT_BOOLEAN}'

# N-Triples string escapes: the four the grammar requires, the usual short forms, and UCHAR
# for the other control characters (canonical N-Triples).
_NT_ESCAPES: dict[int, str] = {c: f"\\u{c:04X}" for c in [*range(0x20), 0x7F]}
_NT_ESCAPES.update(
    {
        ord("\\"): "\\\\",
        ord('"'): '\\"',
        ord("\n"): "\\n",
        ord("\r"): "\\r",
        ord("\t"): "\\t",
        ord("\b"): "\\b",
        ord("\f"): "\\f",
    }
)


def nt_string(text: str) -> str:
    """``text`` as an N-Triples string literal (quoted, escaped; RDF 1.1 N-Triples)."""
    return '"' + text.translate(_NT_ESCAPES) + '"'


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


@functools.lru_cache(maxsize=1 << 16)
def _date_ok(s: str) -> bool:
    if not (
        len(s) == 10
        and s[4] == "-"
        and s[7] == "-"
        and s.isascii()
        and s[:4].isdigit()
        and s[5:7].isdigit()
        and s[8:].isdigit()
    ):
        return False
    try:
        _dt.date(int(s[:4]), int(s[5:7]), int(s[8:]))
    except ValueError:
        return False
    return True


@functools.lru_cache(maxsize=1 << 16)
def _time_ok(s: str) -> bool:
    """``hh:mm:ss`` with an optional fraction ``.d+`` (xsd:time without a timezone)."""
    if len(s) < 8 or s[2] != ":" or s[5] != ":" or not s.isascii():
        return False
    hh, mm, ss, rest = s[:2], s[3:5], s[6:8], s[8:]
    if not (hh.isdigit() and mm.isdigit() and ss.isdigit()):
        return False
    if rest and not (rest[0] == "." and len(rest) > 1 and rest[1:].isdigit()):
        return False
    if hh == "24":
        return mm == "00" and ss == "00" and not rest.strip(".0")
    return int(hh) < 24 and int(mm) < 60 and int(ss) < 60


def _double_lex(v: float) -> str:
    r = repr(v)
    if r == "inf":
        return "INF"
    if r == "-inf":
        return "-INF"
    if r == "nan":
        return "NaN"
    return r


def _decimal_lex(v: float) -> str:
    r = repr(v)
    return format(Decimal(r), "f") if "e" in r else r


def _finite(v: float) -> bool:
    return v == v and v not in (float("inf"), float("-inf"))


# RDF object terms per kind: the term, or None when the value does not fit the kind.
def _nt_integer(v: Any) -> str | None:
    return f'"{v}"{_DT_INTEGER}' if type(v) is int else None


def _nt_double(v: Any) -> str | None:
    if type(v) is float:
        return f'"{_double_lex(v)}"{_DT_DOUBLE}'
    if type(v) is int:
        return f'"{_double_lex(float(v))}"{_DT_DOUBLE}'
    return None


def _nt_decimal(v: Any) -> str | None:
    if type(v) is int:
        return f'"{v}"{_DT_DECIMAL}'
    if type(v) is float and _finite(v):
        return f'"{_decimal_lex(v)}"{_DT_DECIMAL}'
    return None


_BOOL_TEXT = {"t": True, "true": True, "f": False, "false": False}


def _bool_of(v: Any) -> bool | None:
    if type(v) is int:
        return True if v == 1 else False if v == 0 else None
    if type(v) is str:
        return _BOOL_TEXT.get(v.lower())
    return None


def _nt_boolean(v: Any) -> str | None:
    b = _bool_of(v)
    return None if b is None else _TRUE if b else _FALSE


def _nt_date(v: Any) -> str | None:
    return f'"{v}"{_DT_DATE}' if type(v) is str and _date_ok(v) else None


def _datetime_lex(v: Any) -> str | None:
    if type(v) is not str:
        return None
    return _datetime_text(v)


@functools.lru_cache(maxsize=1 << 16)
def _datetime_text(v: str) -> str | None:
    """``v`` as an xsd:dateTime lexical form (``YYYY-MM-DD[ T]hh:mm:ss[.f]``, no zone), or
    None when it is not one."""
    if len(v) < 19 or v[10] not in " T":
        return None
    if not (_date_ok(v[:10]) and _time_ok(v[11:])):
        return None
    return v[:10] + "T" + v[11:]


def _nt_datetime(v: Any) -> str | None:
    lex = _datetime_lex(v)
    return None if lex is None else f'"{lex}"{_DT_DATETIME}'


def _nt_time(v: Any) -> str | None:
    return f'"{v}"{_DT_TIME}' if type(v) is str and _time_ok(v) else None


def _nt_string(v: Any) -> str | None:
    return nt_string(v) if type(v) is str else None


def nt_storage(v: Any) -> str:
    """The literal of a value's SQLite storage class: integer -> ``xsd:integer``, real ->
    ``xsd:double``, text -> plain literal, blob -> ``xsd:hexBinary`` (upper-case hex)."""
    t = type(v)
    if t is str:
        return nt_string(v)
    if t is int:
        return f'"{v}"{_DT_INTEGER}'
    if t is float:
        return f'"{_double_lex(v)}"{_DT_DOUBLE}'
    if t is bytes:
        return f'"{v.hex().upper()}"{_DT_HEX}'
    raise TypeError(f"not an SQLite value: {v!r}")


_NT_BY_KIND: dict[str, Callable[[Any], str | None]] = {
    "integer": _nt_integer,
    "double": _nt_double,
    "decimal": _nt_decimal,
    "boolean": _nt_boolean,
    "date": _nt_date,
    "dateTime": _nt_datetime,
    "time": _nt_time,
    "string": _nt_string,
    "untyped": nt_storage,
}


#: Marks a cell whose value does not fit its kind in the property-graph functions.
class _Miss:
    pass


_MISS = _Miss()


def _pg_integer(v: Any) -> Any:
    return v if type(v) is int else _MISS


def _pg_number(v: Any) -> Any:
    if type(v) is int or (type(v) is float and _finite(v)):
        return v
    return _MISS


def _pg_boolean(v: Any) -> Any:
    b = _bool_of(v)
    return _MISS if b is None else b


def _pg_date(v: Any) -> Any:
    return v if type(v) is str and _date_ok(v) else _MISS


def _pg_datetime(v: Any) -> Any:
    return v if _datetime_lex(v) is not None else _MISS


def _pg_time(v: Any) -> Any:
    return v if type(v) is str and _time_ok(v) else _MISS


def _pg_string(v: Any) -> Any:
    return v if type(v) is str else _MISS


def _pg_untyped(v: Any) -> Any:
    if type(v) is bytes:
        return v.hex().upper()
    if type(v) is float and not _finite(v):
        return _MISS
    return v


_PG_BY_KIND: dict[str, Callable[[Any], Any]] = {
    "integer": _pg_integer,
    "double": _pg_number,
    "decimal": _pg_number,
    "boolean": _pg_boolean,
    "date": _pg_date,
    "dateTime": _pg_datetime,
    "time": _pg_time,
    "string": _pg_string,
    "untyped": _pg_untyped,
}


def sqlite_text(v: Any) -> str:
    """A value's text as SQLite's ``CAST(v AS TEXT)`` would mostly give it (reals by
    ``repr``, blobs as upper-case hex): the property-graph value of a widened column."""
    if type(v) is bytes:
        return v.hex().upper()
    if type(v) is float:
        return _double_lex(v)
    return str(v)


# ---------------------------------------------------------------------------------------------
# Plans
# ---------------------------------------------------------------------------------------------
def _identifier(name: str) -> str:
    out = "".join(ch if (ch.isascii() and (ch.isalnum() or ch == "_")) else "_" for ch in name)
    if not out or out[0].isdigit():
        out = "_" + out
    return out


def _label(name: str) -> str:
    out = "".join(ch if (ch.isascii() and (ch.isalnum() or ch == "_")) else "_" for ch in name)
    return out or "_"


def property_names(table: Table) -> dict[str, str | None]:
    """The property-graph property of each column of ``table`` (module docstring):
    ``{column: property}``, None for a column called exactly ``name`` (the node's ``name``).
    Deterministic in the table's column order."""
    used: set[str] = set()
    out: dict[str, str | None] = {}
    for col in table.columns:
        if col.name == "name":
            out[col.name] = None
            continue
        prop = _identifier(col.name)
        while prop in used or prop in _LOADER_OWNED or prop == "name":
            prop += "_"
        used.add(prop)
        out[col.name] = prop
    return out


def relation_label(columns: Sequence[str]) -> str:
    """The relationship type of a foreign key from ``columns`` (:func:`ref_type` made a
    SPEC.md §2 label, ``[A-Za-z0-9_]+``)."""
    return _label(ref_type(columns))


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
    """One table's rows as read (after repairs): ``handles`` (rowid, or key tuple for a
    WITHOUT ROWID table) and ``rows`` (the column values, plan order) in rowid order,
    ``subjects`` (the N-Triples subject term of each row) and ``eids`` (the node id of each
    row), and ``row_naming`` (``key``, ``rowid`` or ``blank``)."""

    table: Table
    columns: list[ColumnPlan]
    class_iri: str
    handles: list[Any]
    rows: list[tuple[Any, ...]]
    subjects: list[str] = field(default_factory=list)
    eids: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
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


def _is_numeral(s: str) -> int:
    """0: not a plain numeral; 1: an integer numeral; 2: a decimal numeral. Plain: ASCII, an
    optional ``-``, no leading zeros (``007`` is a code, not a number), no exponent, digits
    on both sides of a ``.``, and a value a float holds exactly (so nothing is lost)."""
    if not s or not s.isascii():
        return 0
    body = s[1:] if s[0] == "-" else s
    head, dot, tail = body.partition(".")
    if not head.isdigit() or (len(head) > 1 and head[0] == "0"):
        return 0
    if not dot:
        return 1
    if not tail.isdigit() or Decimal(repr(float(s))) != Decimal(s):
        return 0
    return 2


def _int_or_float(s: str) -> int | float:
    return float(s) if "." in s else int(s)


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


def _read_table(
    conn: sqlite3.Connection,
    table: Table,
    naming: Naming,
    trim: bool,
    promote: bool,
) -> TableData:
    """Read ``table``'s rows in rowid order and apply the repairs (module docstring)."""
    handle_cols = _handle_columns(conn, table)
    nh = len(handle_cols)
    raw = conn.execute(_select_sql(table, handle_cols)).fetchall()
    handles: list[Any] = [r[0] if nh == 1 else tuple(r[:nh]) for r in raw]
    columns_values: list[list[Any]] = [[r[nh + j] for r in raw] for j in range(len(table.columns))]
    plans = _column_plans(table, naming)
    for j, plan in enumerate(plans):
        values = columns_values[j]
        if trim:
            changed = 0
            for i, v in enumerate(values):
                if type(v) is str:
                    s = v.strip(TRIM_CHARS)
                    if s != v:
                        values[i] = s
                        changed += 1
            plan.trimmed = changed
        if promote and plan.kind in ("string", "untyped"):
            seen = 0
            worst = 1
            for v in values:
                if v is None:
                    continue
                k = _is_numeral(v) if type(v) is str else 0
                if k == 0:
                    worst = 0
                    break
                worst = max(worst, k)
                seen += 1
            if seen and worst:
                conv: Callable[[str], Any] = _int_or_float
                plan.kind = "integer" if worst == 1 else "decimal"
                plan.promoted = plan.kind
                columns_values[j] = [None if v is None else conv(v) for v in values]
    rows = list(zip(*columns_values, strict=True)) if columns_values else [() for _ in raw]
    return TableData(
        table=table,
        columns=plans,
        class_iri=f"<{naming.class_iri(table.name)}>",
        handles=handles,
        rows=rows,
    )


def _name_single(
    naming: Naming,
    table: str,
    column: str,
    values: list[Any],
    subjects: list[str],
    eids: list[str],
) -> bool:
    """Append the subject terms and eids of rows keyed by one column (``values``); False
    (and stop) at a NULL. Integers take a fast path with the same result as
    :meth:`Naming.row_iri` and :func:`eid` (digits and ``-`` need no percent-encoding)."""
    iri_prefix = "<" + naming.row_iri(table, [(column, "")])
    eid_prefix = eid(table, [(column, "")])
    for v in values:
        if type(v) is int:
            text = str(v)
            subjects.append(f"{iri_prefix}{text}>")
            eids.append(eid_prefix + text)
        elif v is None:
            return False
        else:
            subjects.append(f"<{naming.row_iri(table, [(column, v)])}>")
            eids.append(eid(table, [(column, v)]))
    return True


def _name_rows(data: TableData, naming: Naming, pk_less: str) -> int:
    """Set ``subjects``, ``eids`` and ``names`` of ``data``'s rows (module docstring);
    returns how many rows share their subject with an earlier row (``s4s`` merges)."""
    table = data.table
    col_index = {c.name: j for j, c in enumerate(data.columns)}
    key_idx = [col_index[k] for k in table.primary_key]
    name_idx = next((j for j, c in enumerate(data.columns) if c.name.lower() == "name"), None)
    rows = data.rows
    subjects: list[str] = []
    eids: list[str] = []
    keytexts: list[str] = []
    if key_idx:
        keys = table.primary_key
        ok = True
        if len(key_idx) == 1:
            j = key_idx[0]
            ok = _name_single(naming, table.name, keys[0], [r[j] for r in rows], subjects, eids)
            keytexts = [literal_text(r[j]) for r in rows] if ok else []
        else:
            for row in rows:
                pairs = [(k, row[j]) for k, j in zip(keys, key_idx, strict=True)]
                if any(v is None for _, v in pairs):
                    ok = False
                    break
                subjects.append(f"<{naming.row_iri(table.name, pairs)}>")
                eids.append(eid(table.name, pairs))
                keytexts.append(";".join(literal_text(v) for _, v in pairs))
        if ok and len(set(subjects)) == len(subjects) and len(set(eids)) == len(eids):
            data.row_naming = "key"
        else:
            subjects, eids, keytexts = [], [], []
            data.row_naming = "rowid"
    else:
        data.row_naming = "rowid" if pk_less == "bag" else "blank"
    merged = 0
    if data.row_naming == "rowid":
        rids = [
            h if not isinstance(h, tuple) else ",".join(map(literal_text, h)) for h in data.handles
        ]
        _name_single(naming, table.name, ROW_KEY, rids, subjects, eids)
        keytexts = [f"{ROW_KEY}={literal_text(rid)}" for rid in rids]
    elif data.row_naming == "blank":
        nulls = [
            "0" if c.affinity in ("INTEGER", "REAL", "NUMERIC") else "NULL" for c in data.columns
        ]
        seen: set[str] = set()
        prefix = table.name + "\x1f"
        for row in rows:
            text = prefix + "\x1f".join(
                n if v is None else literal_text(v) for v, n in zip(row, nulls, strict=True)
            )
            label = "b" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]
            if label in seen:
                merged += 1
            seen.add(label)
            subjects.append(f"_:{label}")
            eids.append(eid(table.name, [("_bnode", label)]))
            keytexts.append(f"_bnode={label}")
    names: list[str] = keytexts
    if name_idx is not None:
        names = [
            kt if row[name_idx] is None else literal_text(row[name_idx])
            for row, kt in zip(rows, keytexts, strict=True)
        ]
    data.subjects, data.eids, data.names = subjects, eids, names
    return merged


# ---------------------------------------------------------------------------------------------
# Row -> output (one function per output; the hot loops a native port replaces)
# ---------------------------------------------------------------------------------------------
@dataclass
class Mismatch:
    """Cells of one column that do not fit its kind (kept as their storage-class literal)."""

    table: str
    column: str
    declared_type: str
    kind: str
    count: int = 0
    examples: list[str] = field(default_factory=list)


@dataclass
class Ref:
    """The matches of one foreign key from a child table: ``predicate`` (the N-Triples
    term of ``t#ref-c``), ``parent`` and (child row index, parent row index) ``matches``."""

    predicate: str
    parent: TableData
    matches: list[tuple[int, int]]


@dataclass
class NtBlock:
    """The N-Triples of one table (:func:`rows_to_ntriples`): ``lines`` (each item one or
    more whole lines), the counts of distinct type, data and reference triples, and the
    mismatched cells per column."""

    lines: list[str]
    type_triples: int
    data_triples: int
    ref_triples: int
    mismatches: list[Mismatch]


def _cell_terms(data: TableData, j: int, mismatches: list[Mismatch]) -> list[str | None]:
    """Column ``j``'s object terms, aligned with the rows (None: NULL); a value that does
    not fit the column's kind gets its storage-class literal and is counted."""
    col = data.columns[j]
    fit = _NT_BY_KIND[col.kind]
    out: list[str | None] = []
    append = out.append
    miss: Mismatch | None = None
    for row in data.rows:
        v = row[j]
        if v is None:
            append(None)
            continue
        term = fit(v)
        if term is None:
            term = nt_storage(v)
            if miss is None:
                miss = Mismatch(data.table.name, col.name, col.declared_type, col.kind)
                mismatches.append(miss)
            miss.count += 1
            if len(miss.examples) < _EXAMPLES:
                miss.examples.append(repr(v))
        append(term)
    return out


def rows_to_ntriples(data: TableData, refs: Sequence[Ref] = ()) -> NtBlock:
    """The N-Triples of ``data``'s rows: an ``rdf:type`` per row, a data triple per non-NULL
    cell, and the reference triples ``refs`` (foreign keys from this table).

    The lines come out in code-point order without repeats when the rows are named by key
    or rowid (subjects sorted once, predicates in IRI order within a subject; the objects
    of one reference predicate sorted), so the file needs no global sort: the blocks of the
    tables only need ordering by their subject prefix ``<base>t/``. Rows merged into one
    blank node (``s4s``) repeat lines: those blocks are split into lines and sorted and
    de-duplicated by the caller."""
    n = len(data.rows)
    subjects = data.subjects
    mismatches: list[Mismatch] = []
    # one slot per predicate: the remainder " <p> o .\n" of each row's line (None: no line)
    slots: list[tuple[str, list[str | None]]] = [
        (RDF_TYPE, [f" {RDF_TYPE} {data.class_iri} .\n"] * n)
    ]
    n_data = 0
    for j, col in enumerate(data.columns):
        pred = f" {col.predicate} "
        rems = [None if t is None else f"{pred}{t} .\n" for t in _cell_terms(data, j, mismatches)]
        n_data += n - rems.count(None)
        slots.append((col.predicate, rems))
    by_pred: dict[str, dict[int, set[str]]] = {}
    for ref in refs:
        objs = by_pred.setdefault(ref.predicate, {})
        ps = ref.parent.subjects
        for i, k in ref.matches:
            objs.setdefault(i, set()).add(ps[k])
    n_ref = 0
    for pred, objs in by_pred.items():
        rems = [None] * n
        for i, targets in objs.items():
            n_ref += len(targets)
            rems[i] = subjects[i].join(f" {pred} {o} .\n" for o in sorted(targets))
        slots.append((pred, rems))
    slots.sort(key=lambda slot: slot[0])
    columns = [rems for _, rems in slots]
    order = sorted(range(n), key=subjects.__getitem__)
    lines: list[str] = []
    append = lines.append
    for i in order:
        s = subjects[i]
        for rems in columns:
            r = rems[i]
            if r is not None:
                append(s + r)
    return NtBlock(lines, n, n_data, n_ref, mismatches)


@dataclass
class PgColumn:
    """A column's property in the property graph: name, datatype and whether it was widened
    to ``str`` (cells that do not fit the column's kind)."""

    column: str
    prop: str
    dtype: str
    widened_from: str | None = None


def rows_to_entities(data: TableData) -> tuple[list[dict[str, Any]], list[PgColumn]]:
    """The SimpleKG entities (SPEC.md §2) of ``data``'s rows, one per distinct ``eid`` (rows
    merged by ``s4s`` blank nodes are united, first value per property), and the declared
    properties of the label. Module docstring for names and types."""
    label = _label(data.table.name)
    pg_cols: list[PgColumn] = []
    col_values: list[list[Any]] = []
    for j, col in enumerate(data.columns):
        if col.prop is None:
            continue
        fit = _PG_BY_KIND[col.kind]
        values = [None if row[j] is None else fit(row[j]) for row in data.rows]
        if col.kind == "untyped":
            kinds = {type(v) for v in values if v is not None}
            dtype = (
                "int" if kinds == {int} else "float" if kinds and kinds <= {int, float} else "str"
            )
            if dtype == "str" and kinds - {str}:
                values = [
                    None if v is None else sqlite_text(row[j])
                    for v, row in zip(values, data.rows, strict=True)
                ]
        else:
            dtype = KIND_PG[col.kind]
        widened = None
        if any(v is _MISS for v in values):
            widened, dtype = (dtype if dtype != "str" else None), "str"
            values = [None if row[j] is None else sqlite_text(row[j]) for row in data.rows]
        pg_cols.append(PgColumn(col.name, col.prop, dtype, widened))
        col_values.append(values)
    props = [c.prop for c in pg_cols]
    entities: list[dict[str, Any]] = []
    by_eid: dict[str, dict[str, Any]] = {}
    for i, e in enumerate(data.eids):
        p = {k: vals[i] for k, vals in zip(props, col_values, strict=True) if vals[i] is not None}
        prev = by_eid.get(e)
        if prev is not None:
            for k, v in p.items():
                prev["properties"].setdefault(k, v)
            continue
        ent: dict[str, Any] = {
            "eid": e,
            "label": label,
            "name": data.names[i],
            "aliases": [],
            "description": None,
            "properties": p,
            "provenance": [],
        }
        by_eid[e] = ent
        entities.append(ent)
    return entities, pg_cols


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


def foreign_key_matches(
    conn: sqlite3.Connection,
    fk: ForeignKey,
    child: TableData,
    parent: TableData,
    trim: bool,
) -> list[tuple[int, int]]:
    """The (child row index, parent row index) pairs of a foreign key, computed by SQLite:
    ``child.fk = parent.ref`` for every column pair (its affinity and collation rules), in
    child then parent rowid order. With ``trim``, TEXT-affinity and untyped columns are
    compared trimmed (module docstring)."""
    ch = _handle_columns(conn, child.table)
    ph = _handle_columns(conn, parent.table)
    sql = _join_sql(fk, child.table, parent.table, ch, ph, trim)
    cpos = {h: i for i, h in enumerate(child.handles)}
    ppos = {h: i for i, h in enumerate(parent.handles)}
    nc = len(ch)
    out = []
    for r in conn.execute(sql):
        hc = r[0] if nc == 1 else tuple(r[:nc])
        hp = r[nc] if len(ph) == 1 else tuple(r[nc:])
        out.append((cpos[hc], ppos[hp]))
    return out


def fk_to_relations(
    label: str, child: TableData, parent: TableData, matches: Iterable[tuple[int, int]]
) -> list[tuple[str, str, str]]:
    """The (type, subject eid, object eid) relationships of the matches."""
    ce, pe = child.eids, parent.eids
    return [(label, ce[i], pe[k]) for i, k in matches]


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


def _split_lines(parts: Iterable[str]) -> list[str]:
    """The lines (each with its ``\\n``) of N-Triples text given in ``parts``. Only ``\\n``
    ends a line: ``str.splitlines`` would also split inside literals holding U+0085, U+2028
    or U+2029, which N-Triples leaves unescaped."""
    text = "".join(parts)
    return [line + "\n" for line in text.split("\n")[:-1]]


def _count_lines(lines: Iterable[str]) -> tuple[int, int, int]:
    """(type, data, reference) triples among N-Triples ``lines``: data triples have a
    literal object, type triples the ``rdf:type`` predicate, the rest are references."""
    n_type = n_data = n_ref = 0
    for line in lines:
        _, pred, obj = line.split(" ", 2)
        if obj[0] == '"':
            n_data += 1
        elif pred == RDF_TYPE:
            n_type += 1
        else:
            n_ref += 1
    return n_type, n_data, n_ref


def _graph_text(
    schema_name: str,
    entity_schema: list[dict[str, Any]],
    relation_schema: list[dict[str, Any]],
    entities: list[dict[str, Any]],
    relations: list[tuple[str, str, str]],
) -> str:
    """graph.json (SPEC.md §2): schema, entities and relations, one line each (compact JSON
    from one ``json.dumps`` call per part, the C encoder)."""
    schema = {"name": schema_name, "entities": entity_schema, "relations": relation_schema}
    rels = [
        {"rid": str(i), "label": lab, "subj_id": s, "obj_id": o, "properties": {}, "provenance": []}
        for i, (lab, s, o) in enumerate(relations)
    ]
    return (
        '{"schema": '
        + json.dumps(schema, ensure_ascii=False)
        + ',\n"entities": '
        + json.dumps(entities, ensure_ascii=False, allow_nan=False)
        + ',\n"relations": '
        + json.dumps(rels, ensure_ascii=False)
        + "}\n"
    )


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
    """The report of :func:`convert_rdb` without ``seconds`` (shared by both engines)."""
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
    engine: str = "rust",
) -> dict[str, Any]:
    """Convert SQLite database ``db`` (schema: ``tables_json``'s ``db_id`` entry checked
    against the file, or the file alone when ``tables_json`` is None) into ``out_dir``
    (module docstring; spec §2 outputs, §3): ``<db_id>.nt``, ``<db_id>.ontology.ttl``,
    ``<db_id>.ontology.json``, ``graph.json`` and, last, ``report.json``.

    ``naming``: ``s4s`` (Spider4SPARQL, base ``http://valuenet/ontop/``) or ``w3c`` (names as
    declared; ``base`` overrides the base IRI for either). ``pk_less``: ``bag`` (default) or
    ``s4s``. ``trim`` and ``promote_numeric_text``: the repairs. ``progress`` receives one
    line per table. ``engine``: ``rust`` (default; the row work in
    :mod:`kgbench._core.rdb`, which reads the file with the system SQLite library and uses
    all cores) or ``python`` (the pure-Python reference, this module's functions); both
    write byte-identical files and the same report (``seconds`` aside).

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
    if engine not in ENGINES:
        raise InputError(f"engine must be 'rust' or 'python', not {engine!r}")
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
        run = _convert_rust if engine == "rust" else _convert
        return run(
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
    conn = schema.connect()
    try:
        tables: dict[str, TableData] = {}
        for t in schema.tables.values():
            try:
                tables[t.name] = _read_table(conn, t, nm, trim, promote_numeric_text)
            except sqlite3.DatabaseError as exc:
                raise InputError(f"{db}: table {t.name}: cannot read: {exc}") from exc
        merged = sum(_name_rows(d, nm, pk_less) for d in tables.values())

        refs: dict[str, list[Ref]] = {name: [] for name in tables}
        relations: list[tuple[str, str, str]] = []
        rel_schema: dict[tuple[str, str, str], dict[str, Any]] = {}
        fk_report: list[dict[str, Any]] = []
        for fk in schema.foreign_keys:
            child, parent = tables.get(fk.table), tables.get(fk.ref_table)
            if child is None or parent is None:
                continue
            try:
                matches = foreign_key_matches(conn, fk, child, parent, trim)
            except sqlite3.DatabaseError as exc:
                raise InputError(
                    f"{db}: foreign key {fk.table}({', '.join(fk.columns)}) -> "
                    f"{fk.ref_table}: join failed: {exc}"
                ) from exc
            refs[fk.table].append(Ref(f"<{nm.ref_iri(fk.table, fk.columns)}>", parent, matches))
            label = relation_label(fk.columns)
            relations.extend(fk_to_relations(label, child, parent, matches))
            key = (label, _label(fk.table), _label(fk.ref_table))
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
                    "matches": len(matches),
                    "predicate": nm.ref_local(fk.table, fk.columns),
                    "relationship": label,
                }
            )
    finally:
        conn.close()

    blocks: list[tuple[str, list[str]]] = []
    blank_lines: list[str] = []
    n_type = n_data = n_ref = 0
    mismatches: list[Mismatch] = []
    entities: list[dict[str, Any]] = []
    entity_schema: list[dict[str, Any]] = []
    pg_widened: list[dict[str, Any]] = []
    per_table: dict[str, dict[str, Any]] = {}
    for name, data in tables.items():
        block = rows_to_ntriples(data, refs[name])
        mismatches.extend(block.mismatches)
        preds = [c.predicate for c in data.columns] + [r.predicate for r in refs[name]]
        if data.row_naming == "blank":
            blank_lines.extend(block.lines)
        elif len(set(preds)) < len(data.columns) + len({r.predicate for r in refs[name]}):
            # a column predicate equals a reference predicate (a column named "ref-c"):
            # lines may repeat, so this block is sorted and de-duplicated line by line
            distinct = sorted(set(_split_lines(block.lines)))
            blocks.append((f"<{nm.class_iri(name)}/", distinct))
            counts = _count_lines(distinct)
            n_type, n_data, n_ref = n_type + counts[0], n_data + counts[1], n_ref + counts[2]
        else:
            blocks.append((f"<{nm.class_iri(name)}/", block.lines))
            n_type, n_data = n_type + block.type_triples, n_data + block.data_triples
            n_ref += block.ref_triples
        ents, pg_cols = rows_to_entities(data)
        entities.extend(ents)
        entity_schema.append(
            {"label": _label(name), "properties": {c.prop: c.dtype for c in pg_cols}}
        )
        pg_widened.extend(
            {"table": name, "column": c.column, "dtype": c.widened_from}
            for c in pg_cols
            if c.widened_from
        )
        cells = sum(1 for row in data.rows for v in row if v is not None)
        per_table[name] = {
            "rows": len(data.rows),
            "cells": cells,
            "nulls": len(data.rows) * len(data.columns) - cells,
            "nodes": len(ents),
            "key": list(data.table.primary_key),
            "row_naming": data.row_naming,
        }
        if progress is not None:
            progress(f"{name}: {len(data.rows)} rows, {cells} cells, {len(ents)} nodes")
    blocks.sort(key=lambda b: b[0])
    nt_parts = list(itertools.chain.from_iterable(lines for _, lines in blocks))
    if blank_lines:
        # blank nodes ("_:b...") sort after IRIs ("<..."); merged rows repeat lines
        distinct = sorted(set(_split_lines(blank_lines)))
        counts = _count_lines(distinct)
        n_type, n_data, n_ref = n_type + counts[0], n_data + counts[1], n_ref + counts[2]
        nt_parts.extend(distinct)
    rel_distinct = list(dict.fromkeys(relations))
    ttl, prompt = _ontology(schema, tables, nm)
    graph_text = _graph_text(
        db_id, entity_schema, list(rel_schema.values()), entities, rel_distinct
    )

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
        counts=(n_type, n_data, n_ref),
        nodes=len(entities),
        relationships=len(rel_distinct),
        merged=merged,
        mismatches=mismatches,
        promoted_cells={
            (n, j): sum(1 for r in d.rows if r[j] is not None)
            for n, d in tables.items()
            for j, c in enumerate(d.columns)
            if c.promoted
        },
        pg_widened=pg_widened,
        fk_report=fk_report,
    )
    write_text_atomic(paths["nt"], "".join(nt_parts))
    write_text_atomic(paths["ontology_ttl"], ttl)
    write_json_atomic(paths["ontology_json"], prompt)
    write_text_atomic(paths["graph"], graph_text)
    report["seconds"] = round(time.perf_counter() - t0, 4)
    write_json_atomic(paths["report"], report)
    return report


def _convert_rust(
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
    """:func:`_convert` with the row work in Rust (:func:`kgbench._core.rdb.convert`): this
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
        tables[t.name] = TableData(
            table=t, columns=plans, class_iri=f"<{nm.class_iri(t.name)}>", handles=[], rows=[]
        )
        col_index = {c.name: j for j, c in enumerate(plans)}
        iri_base = nm.row_iri(t.name, [])
        table_jobs.append(
            {
                "name": t.name,
                "label": _label(t.name),
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
        key = (label, _label(fk.table), _label(fk.ref_table))
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
