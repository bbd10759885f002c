"""The schema of one relational database as kgbench's RDB views use it (spec
``spider4sparql.md`` §2-§3): Spider's ``tables.json`` entry checked against the SQLite file.

- Tables and columns come from ``tables.json`` (``table_names_original``,
  ``column_names_original``), in its order; each must exist in the database (names compared
  case-insensitively, as SQLite does). ``sqlite_sequence``, which ``tables.json`` lists for
  some databases, is skipped when the file has none (recorded in :attr:`notes`).
- Declared column types come from the database (``PRAGMA table_info``); Spider's coarse
  types (text, number, time, boolean, others) are kept beside them.
- Primary keys come from the database, in key order: this Spider release lists only the
  first column of a composite key, and keys from ``tables.json`` alone would merge rows
  (spec §2, world_1 ``countrylanguage``). A ``tables.json`` key that is a leading part of the
  database's key agrees with it; any other disagreement is an error naming the table.
- Foreign keys are the union of ``tables.json`` and ``PRAGMA foreign_key_list``, each with
  its ``source``.

Errors (:class:`kgbench.errors.InputError`, one line): a file that is not SQLite, an unknown
``db_id``, a ``tables.json`` that is not Spider's format, and a table or column of
``tables.json`` missing from the database (named).
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError

#: The SQLite header of every database file.
SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True)
class Column:
    """One column: its original name, SQLite declared type (upper-case, may be empty),
    Spider's coarse type, and its index in ``tables.json``'s ``column_names_original``."""

    table: str
    name: str
    declared_type: str
    spider_type: str
    index: int
    not_null: bool = False


@dataclass(frozen=True)
class Table:
    """One table: original name, columns in ``tables.json`` order, primary key column names
    in key order (empty: a table without a key)."""

    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]

    def column(self, name: str) -> Column:
        """The column called ``name`` (case-insensitive).

        Raises:
            KeyError: no such column."""
        low = name.lower()
        for c in self.columns:
            if c.name.lower() == low:
                return c
        raise KeyError(f"{self.name}.{name}")


@dataclass(frozen=True)
class ForeignKey:
    """``table(columns) -> ref_table(ref_columns)``; ``source`` is ``tables.json``,
    ``database`` or ``both``."""

    table: str
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]
    source: str


@dataclass
class DatabaseSchema:
    """A checked database schema (module docstring). ``tables`` keeps ``tables.json``'s
    order; ``notes`` lists what was reconciled (composite keys taken from the database,
    skipped ``sqlite_sequence``...)."""

    db_id: str
    path: Path
    tables: dict[str, Table]
    foreign_keys: list[ForeignKey]
    notes: list[str] = field(default_factory=list)

    def table(self, name: str) -> Table:
        """The table called ``name`` (case-insensitive).

        Raises:
            KeyError: no such table."""
        low = name.lower()
        for t in self.tables.values():
            if t.name.lower() == low:
                return t
        raise KeyError(name)

    def connect(self) -> sqlite3.Connection:
        """A read-only connection to the database file."""
        return connect_readonly(self.path)


def connect_readonly(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A read-only ``sqlite3`` connection to ``path``.

    Raises:
        InputError: the file is missing or not an SQLite database."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            head = fh.read(16)
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror or exc}") from exc
    if head != SQLITE_MAGIC:
        raise InputError(f"{p}: not an SQLite database (no 'SQLite format 3' header)")
    conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True)
    # Spider's databases hold some text that is not valid UTF-8
    conn.text_factory = lambda b: b.decode("utf-8", errors="replace")
    return conn


def read_tables_json(path: str | os.PathLike[str], db_id: str) -> dict[str, Any]:
    """The ``tables.json`` entry of ``db_id``.

    Raises:
        InputError: unreadable or not a JSON list of Spider schema entries, or no entry
            for ``db_id`` (the message lists a few known ids)."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{p}: not JSON (line {exc.lineno}, column {exc.colno})") from exc
    if not isinstance(data, list):
        raise InputError(f"{p}: not Spider's tables.json (a JSON list of schema entries)")
    for entry in data:
        if isinstance(entry, dict) and entry.get("db_id") == db_id:
            for key in ("table_names_original", "column_names_original", "column_types"):
                if not isinstance(entry.get(key), list):
                    raise InputError(f"{p}: entry {db_id!r} has no list {key!r}")
            return entry
    known = sorted(str(e.get("db_id")) for e in data if isinstance(e, dict))
    hint = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
    raise InputError(f"{p}: unknown db_id {db_id!r} ({len(known)} known: {hint})")


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _flat_keys(entry: dict[str, Any]) -> list[int]:
    out: list[int] = []
    for k in entry.get("primary_keys", []):
        out.extend(k if isinstance(k, list) else [k])
    return out


def spider_type(declared: str) -> str:
    """Spider's coarse column type of an SQLite declared type (by SQLite's affinity rules,
    plus ``time`` for date/time names and ``boolean`` for BOOL)."""
    t = declared.upper()
    if "BOOL" in t:
        return "boolean"
    if "DATE" in t or "TIME" in t or "YEAR" in t:
        return "time"
    if "INT" in t or any(x in t for x in ("REAL", "FLOA", "DOUB", "NUM", "DEC")):
        return "number"
    if any(x in t for x in ("CHAR", "CLOB", "TEXT")) or not t:
        return "text"
    return "others"


def entry_from_database(db: str | os.PathLike[str], db_id: str) -> dict[str, Any]:
    """A ``tables.json``-style entry read from the database alone (tables in
    ``sqlite_master`` order, columns from ``PRAGMA table_info``, foreign keys from
    ``PRAGMA foreign_key_list``), for databases without a ``tables.json`` entry."""
    conn = connect_readonly(db)
    try:
        try:
            names = [
                str(r[0])
                for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
                )
            ]
        except sqlite3.DatabaseError as exc:
            raise InputError(f"{db}: not a readable SQLite database: {exc}") from exc
        cols: list[list[Any]] = [[-1, "*"]]
        types = ["text"]
        keys: list[int] = []
        for ti, name in enumerate(names):
            table_keys: list[tuple[int, int]] = []  # (key position, column index)
            for r in conn.execute(f"PRAGMA table_info({_quote(name)})"):
                if r[5]:
                    table_keys.append((int(r[5]), len(cols)))
                cols.append([ti, str(r[1])])
                types.append(spider_type(str(r[2] or "")))
            keys.extend(ci for _pos, ci in sorted(table_keys))
    finally:
        conn.close()
    return {
        "db_id": db_id,
        "table_names_original": names,
        "column_names_original": cols,
        "column_types": types,
        "primary_keys": keys,
        "foreign_keys": [],
    }


def load_schema(
    db: str | os.PathLike[str], tables_json: str | os.PathLike[str] | None, db_id: str
) -> DatabaseSchema:
    """Read and check the schema of database ``db`` against ``tables_json``'s ``db_id``
    entry (module docstring); ``tables_json`` None: the schema of the database alone
    (:func:`entry_from_database`; foreign keys from the database only).

    Raises:
        InputError: as the module docstring lists; the message names the file, table and
            column."""
    if tables_json is None:
        entry = entry_from_database(db, db_id)
    else:
        entry = read_tables_json(tables_json, db_id)
    conn = connect_readonly(db)
    notes: list[str] = []
    try:
        try:
            db_tables = {
                r[0].lower(): r[0]
                for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        except sqlite3.DatabaseError as exc:
            raise InputError(f"{db}: not a readable SQLite database: {exc}") from exc
        names: list[str] = [str(t) for t in entry["table_names_original"]]
        info: dict[int, list[Any]] = {}
        pragma_fks: dict[int, list[Any]] = {}
        kept: list[int] = []
        for ti, name in enumerate(names):
            actual = db_tables.get(name.lower())
            if actual is None:
                if name.lower() == "sqlite_sequence":
                    notes.append("tables.json lists sqlite_sequence; the database has none")
                    continue
                raise InputError(
                    f"{db}: table {name!r} of tables.json ({db_id}) is not in the database"
                )
            info[ti] = list(conn.execute(f"PRAGMA table_info({_quote(actual)})"))
            pragma_fks[ti] = list(conn.execute(f"PRAGMA foreign_key_list({_quote(actual)})"))
            kept.append(ti)
    finally:
        conn.close()

    col_entries = entry["column_names_original"]
    types = entry["column_types"]
    tables: dict[str, Table] = {}
    by_index: dict[int, Column] = {}
    for ti in kept:
        name = names[ti]
        declared = {str(r[1]).lower(): r for r in info[ti]}
        cols = []
        for ci, (tidx, cname) in enumerate(col_entries):
            if tidx != ti:
                continue
            row = declared.get(str(cname).lower())
            if row is None:
                raise InputError(
                    f"{db}: column {name}.{cname} of tables.json ({db_id}) is not in the database"
                )
            col = Column(
                table=name,
                name=str(cname),
                declared_type=str(row[2] or "").upper(),
                spider_type=str(types[ci]) if ci < len(types) else "others",
                index=ci,
                not_null=bool(row[3]),
            )
            cols.append(col)
            by_index[ci] = col
        pk_rows = sorted((r for r in info[ti] if r[5]), key=lambda r: r[5])
        db_key = tuple(str(r[1]) for r in pk_rows)
        json_key = tuple(
            by_index[ci].name
            for ci in _flat_keys(entry)
            if ci in by_index and by_index[ci].table == name
        )
        key = db_key
        if json_key and db_key:
            lead = tuple(k.lower() for k in db_key[: len(json_key)])
            if lead != tuple(k.lower() for k in json_key):
                raise InputError(
                    f"{db}: table {name}: tables.json's primary key ({', '.join(json_key)}) "
                    f"disagrees with the database's ({', '.join(db_key)})"
                )
            if len(json_key) < len(db_key):
                notes.append(
                    f"{name}: composite key ({', '.join(db_key)}) from the database; "
                    f"tables.json lists ({', '.join(json_key)})"
                )
        elif json_key and not db_key:
            key = json_key
            notes.append(f"{name}: key ({', '.join(json_key)}) from tables.json only")
        for k in key:
            if k.lower() not in {c.name.lower() for c in cols}:
                raise InputError(f"{db}: table {name}: key column {k!r} is not in tables.json")
        declared_names = {c.name.lower(): c.name for c in cols}
        tables[name] = Table(
            name=name,
            columns=tuple(cols),
            primary_key=tuple(declared_names[k.lower()] for k in key),
        )

    fks: dict[tuple[str, tuple[str, ...], str, tuple[str, ...]], str] = {}
    for child, parent in entry.get("foreign_keys", []):
        if child not in by_index or parent not in by_index:
            continue
        c, p = by_index[child], by_index[parent]
        fks[(c.table, (c.name,), p.table, (p.name,))] = "tables.json"
    for ti in kept:
        groups: dict[int, list[Any]] = {}
        for r in pragma_fks[ti]:
            groups.setdefault(int(r[0]), []).append(r)
        for rows in groups.values():
            rows.sort(key=lambda r: r[1])
            child_table = tables[names[ti]]
            try:
                ref = next(t for t in tables.values() if t.name.lower() == str(rows[0][2]).lower())
            except StopIteration:
                notes.append(
                    f"{child_table.name}: foreign key to unknown table {rows[0][2]!r} skipped"
                )
                continue
            try:
                cols_ = tuple(child_table.column(str(r[3])).name for r in rows)
                refs = tuple(
                    ref.column(str(r[4])).name if r[4] is not None else ref.primary_key[i]
                    for i, r in enumerate(rows)
                )
            except (KeyError, IndexError):
                notes.append(
                    f"{child_table.name}: foreign key to {ref.name} with unknown columns skipped"
                )
                continue
            fk = (child_table.name, cols_, ref.name, refs)
            fks[fk] = "both" if fk in fks else "database"
    foreign_keys = [ForeignKey(t, c, rt, rc, src) for (t, c, rt, rc), src in fks.items()]
    return DatabaseSchema(db_id, Path(db), tables, foreign_keys, notes)
