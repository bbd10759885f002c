"""The relational schema reader (kgbench.rdb.schema; spec spider4sparql.md §2): keys in key
order from the database, composite keys beside tables.json's first column, foreign keys from
both sources, and schemas read from a database without a tables.json entry."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from kgbench.errors import InputError
from kgbench.rdb.schema import load_schema

SPIDER = Path(__file__).resolve().parents[2] / "shared" / "data" / "spider"
DATA = Path(__file__).parent / "data" / "spider"


def test_key_order_and_foreign_keys_without_tables_json(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript(
        "CREATE TABLE club (id INTEGER PRIMARY KEY, name TEXT);"
        "CREATE TABLE member (a TEXT, b INTEGER, club INTEGER REFERENCES club(id),"
        " PRIMARY KEY (b, a));"
    )
    conn.close()
    schema = load_schema(db, None, "m")
    # the key is (b, a): key order, not column order
    assert schema.table("member").primary_key == ("b", "a")
    assert schema.table("CLUB").primary_key == ("id",)
    [fk] = schema.foreign_keys
    assert (fk.table, fk.columns, fk.ref_table, fk.ref_columns, fk.source) == (
        "member",
        ("club",),
        "club",
        ("id",),
        "database",
    )
    assert schema.notes == []


def test_concert_singer_against_tables_json() -> None:
    schema = load_schema(
        DATA / "concert_singer.sqlite", DATA / "concert_singer.tables.json", "concert_singer"
    )
    assert list(schema.tables) == ["stadium", "singer", "concert", "singer_in_concert"]
    # tables.json lists only concert_ID; the database's composite key is kept
    assert schema.table("singer_in_concert").primary_key == ("concert_ID", "Singer_ID")
    assert any("composite key" in n for n in schema.notes)
    assert {(f.table, f.columns, f.source) for f in schema.foreign_keys} == {
        ("concert", ("Stadium_ID",), "both"),
        ("singer_in_concert", ("Singer_ID",), "both"),
        ("singer_in_concert", ("concert_ID",), "both"),
    }
    assert schema.table("singer").column("is_male").declared_type == "BOOL"


def test_schema_errors(tmp_path: Path) -> None:
    entry = json.loads((DATA / "concert_singer.tables.json").read_text(encoding="utf-8"))
    entry = entry[0] if isinstance(entry, list) else entry
    entry["column_names_original"].append([1, "Nickname"])
    entry["column_types"].append("text")
    bad = tmp_path / "tables.json"
    bad.write_text(json.dumps([entry]), encoding="utf-8")
    with pytest.raises(InputError, match=r"column singer\.Nickname .* not in the database"):
        load_schema(DATA / "concert_singer.sqlite", bad, "concert_singer")
    with pytest.raises(InputError, match="unknown db_id 'pets_1'"):
        load_schema(DATA / "concert_singer.sqlite", bad, "pets_1")
    text = tmp_path / "x.sqlite"
    text.write_text("not a database", encoding="utf-8")
    with pytest.raises(InputError, match="not an SQLite database"):
        load_schema(text, None, "x")


@pytest.mark.realdata
def test_every_shared_spider_database_loads() -> None:
    if not SPIDER.exists():
        pytest.skip(f"the shared Spider data is absent ({SPIDER})")
    dbs = sorted((SPIDER / "database").glob("*/*.sqlite"))
    assert len(dbs) == 10
    for db in dbs:
        schema = load_schema(db, SPIDER / "tables.json", db.stem)
        assert schema.tables and all(t.columns for t in schema.tables.values())
    for db in sorted((SPIDER / "train-databases").glob("*/*.sqlite")):
        assert load_schema(db, None, db.stem).tables
