"""The databases whose ``kgbench rdb`` outputs are checked in under tests/data/rdb/ (see the
NOTICE there), and the option sets they are converted with: shared by
tests/test_rdb_convert.py and tests/data/rdb/make_expected.py."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
SPIDER_FIXTURES = DATA / "spider"
EXPECTED = DATA / "rdb"
SPIDER = Path(__file__).resolve().parents[2] / "shared" / "data" / "spider"

#: The option sets (name -> ``convert_rdb`` keywords).
OPTIONS: dict[str, dict[str, Any]] = {
    "default": {},
    "w3c-s4s": {"naming": "w3c", "pk_less": "s4s"},
    "repairs": {"trim": True, "promote_numeric_text": True},
    "all": {"naming": "w3c", "pk_less": "s4s", "trim": True, "promote_numeric_text": True},
}

#: Built from tests/data/spider (always present).
FIXTURE_CASES = ("concert_singer", "rdb_handmade", "edge", "clash")

#: Small Spider dev databases, read in place from the shared data (absent: skipped).
SPIDER_CASES = (
    "battle_death",
    "employee_hire_evaluation",
    "orchestra",
    "poker_player",
    "singer",
)

CASE_IDS = FIXTURE_CASES + SPIDER_CASES


def expected_dir(case: str, option: str) -> Path:
    """Where the expected outputs of ``case`` with option set ``option`` are."""
    return EXPECTED / case / option


def make_case(case: str, tmp: Path) -> tuple[Path, Path | None, str] | None:
    """(database, tables.json or None, db_id) of ``case``, building fixture databases in
    ``tmp``; None when a Spider database is absent."""
    if case == "concert_singer":
        return (
            SPIDER_FIXTURES / "concert_singer.sqlite",
            SPIDER_FIXTURES / "concert_singer.tables.json",
            case,
        )
    if case == "rdb_handmade":
        path = tmp / "rdb_handmade.sqlite"
        if not path.exists():
            conn = sqlite3.connect(path)
            conn.executescript((SPIDER_FIXTURES / "rdb_handmade.sql").read_text("utf-8"))
            conn.commit()
            conn.close()
        return path, SPIDER_FIXTURES / "rdb_handmade.tables.json", case
    if case == "edge":
        path = tmp / "edge.sqlite"
        if not path.exists():
            edge_database(path)
        return path, None, case
    if case == "clash":
        path = tmp / "clash.sqlite"
        if not path.exists():
            conn = sqlite3.connect(path)
            conn.executescript(
                "CREATE TABLE p (id INTEGER PRIMARY KEY); INSERT INTO p VALUES (1), (2);"
                "CREATE TABLE t (id INTEGER PRIMARY KEY, src INTEGER REFERENCES p (id), "
                '"ref-src" TEXT);'
                "INSERT INTO t VALUES (1, 1, 'x'), (2, 1, NULL), (3, 2, '<http://x>');"
            )
            conn.close()
        return path, None, case
    db = SPIDER / "database" / case / f"{case}.sqlite"
    tables = SPIDER / "tables.json"
    if not db.exists() or not tables.exists():
        return None
    assert case in {e["db_id"] for e in json.loads(tables.read_text("utf-8"))}
    return db, tables, case


def edge_database(path: Path) -> None:
    """Values that stress the lexical forms: float ties and exponents, infinities, blobs,
    big numerals, invalid UTF-8, line separators in a key-less table, NULL and repeated keys,
    a WITHOUT ROWID table, mixed untyped columns."""
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE f (id INTEGER PRIMARY KEY, x REAL, d DECIMAL(10,2), u, b BOOL, "
        "dt DATE, ts DATETIME, tm TIME, name TEXT);"
        "CREATE TABLE k (code TEXT, n INTEGER, v TEXT, f_id INTEGER REFERENCES f(id), "
        "PRIMARY KEY (code, n));"
        "CREATE TABLE w (a TEXT PRIMARY KEY, b BLOB) WITHOUT ROWID;"
        "CREATE TABLE bag (x TEXT, y INTEGER, z REAL);"
        "CREATE TABLE dup (id INTEGER, v TEXT, PRIMARY KEY (id));"
        "CREATE TABLE num (t TEXT, u);"
    )
    floats = [19.111099243164062, 95.33560180664062, 1e16, 1.5e-5, -0.0, 0.1, 1e300, 2.5]
    rows = [
        (i + 1, x, x, x, b, dt, ts, tm, nm)
        for i, (x, b, dt, ts, tm, nm) in enumerate(
            zip(
                floats,
                [1, 0, "T", "false", "yes", 2, None, "TRUE"],
                [
                    "2010-01-05",
                    "2010-1-5",
                    "2000-02-29",
                    "1900-02-29",
                    None,
                    "x",
                    "0000-01-01",
                    "9999-12-31",
                ],
                [
                    "2010-01-05 10:00:00",
                    "2010-01-05T10:00:00.5",
                    "2010-01-05",
                    None,
                    "a",
                    "",
                    "2010-13-01 00:00:00",
                    "2010-01-05 24:00:00",
                ],
                [
                    "24:00:00",
                    "23:59:59.123",
                    "24:00:01",
                    "1:00:00",
                    None,
                    "12:00",
                    "00:00:00.",
                    "10:00:00",
                ],
                ["a\u2028b", 'q"uote\\', None, "tab\there", "é", "\x01\x7f", "", "名前"],
                strict=True,
            )
        )
    ]
    conn.executemany("INSERT INTO f VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.execute("INSERT INTO f VALUES (9, 1e999, -1e999, X'00FF', 1, NULL, NULL, NULL, NULL)")
    conn.execute("INSERT INTO f VALUES (10, 3, 7, 'text', 1.0, 20100105, NULL, NULL, X'41')")
    conn.executemany(
        "INSERT INTO k VALUES (?, ?, ?, ?)",
        [(" a/b ", 1, "x", 1), ("a;b", 2, None, 2), ("é ü", 3, "\n", 99), (" a/b ", 4, "y", 1)],
    )
    conn.executemany("INSERT INTO w VALUES (?, ?)", [("z", b"\x00'\""), ("a b", None), ("m", b"'")])
    conn.executemany(
        "INSERT INTO bag VALUES (?, ?, ?)",
        [
            ("x\u2028y", 1, 1.5),
            ("x\u2028y", 1, 1.5),
            (None, None, None),
            ("NULL", 0, 0.0),
            ("\u0085", 2, None),
        ],
    )
    conn.executemany("INSERT INTO dup VALUES (?, ?)", [(1, "a"), (2, "b")])
    conn.executemany(
        "INSERT INTO num VALUES (?, ?)",
        [
            ("12345678901234567890123", "0.1"),
            ("-0", "-0.0"),
            (" 7 ", "10000000000000000.0"),
            (None, None),
        ],
    )
    conn.commit()
    conn.close()
    conn = sqlite3.connect(path)
    # invalid UTF-8 in a text column (read with errors="replace")
    conn.execute("INSERT INTO bag VALUES (CAST(X'61FF62C3' AS TEXT), 3, 2.0)")
    conn.commit()
    conn.close()
