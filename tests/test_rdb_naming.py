"""The IRI naming of kgbench's relational views (kgbench.rdb.naming, one implementation in
the Rust core, issue 40) against its definition in spec ``spider4sparql.md`` §3, written
here with Python's own functions: names lower-cased by ``str.lower`` (``s4s``),
percent-encoded by ``urllib.parse.quote(text, safe="-._~")``, key values by their ``str``
(integral floats without ``.0``, ``true``/``false``); and the converter's row IRIs and eids
against the same rule."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from kgbench.rdb.convert import convert_rdb
from kgbench.rdb.naming import ROW_KEY, S4S_BASE, Naming, eid, literal_text

SPIDER = Path(__file__).parent / "data" / "spider"
CONCERT = SPIDER / "concert_singer.sqlite"
CONCERT_TABLES = SPIDER / "concert_singer.tables.json"


def spec_name(style: str, name: str) -> str:
    return quote(name.lower() if style == "s4s" else name, safe="-._~")


def spec_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


#: Names with what the rule must get right: case, spaces, reserved and non-ASCII characters
#: (final sigma, dotted capital I, a character outside the BMP).
NAMES = [
    "Singer",
    "Song Name",
    "concert_ID",
    "a#b;c=d/e?f%",
    "ΟΔΟΣ",
    "İstanbul",
    "Straße",
    "naïve-é.~",
    "\U0001f600x",
    "",
]


def _values(rng: random.Random) -> list[Any]:
    return [
        rng.randint(-(10**6), 10**6),
        10**30 + rng.randint(0, 9),
        float(rng.randint(-1000, 1000)),
        rng.uniform(-1e6, 1e6),
        rng.choice([1e16, 1e-5, -0.0, 2.5e300, float("inf"), float("nan")]),
        rng.choice([True, False]),
        "".join(rng.choice("aZ 9/;=#%é\u00e9\n'\"") for _ in range(rng.randint(0, 8))),
        bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 5))),
        None,
    ]


@pytest.mark.parametrize("style", ["s4s", "w3c"])
def test_naming_follows_its_definition(style: str) -> None:
    rng = random.Random(40)
    base = S4S_BASE if style == "s4s" else "http://example.org/db/"
    nm = Naming(style, base)
    for table in NAMES:
        t = spec_name(style, table)
        assert nm.table_local(table) == t
        assert nm.class_iri(table) == base + t
        for column in NAMES:
            c = spec_name(style, column)
            assert nm.column_local(table, column) == f"{t}#{c}"
            assert nm.column_iri(table, column) == f"{base}{t}#{c}"
        cols = rng.sample(NAMES, 3)
        ref = f"{t}#ref-" + ";".join(spec_name(style, c) for c in cols)
        assert nm.ref_local(table, cols) == ref
        assert nm.ref_iri(table, tuple(cols)) == base + ref
        for _ in range(20):
            key = [(rng.choice(NAMES), v) for v in rng.sample(_values(rng), rng.randint(1, 3))]
            parts = [f"{spec_name(style, k)}={quote(spec_literal(v), safe='-._~')}" for k, v in key]
            assert nm.row_iri(table, key) == f"{base}{t}/" + ";".join(parts)
            assert eid(table, key) == f"{table}#" + ";".join(
                f"{k}={spec_literal(v)}" for k, v in key
            )
            for _, v in key:
                assert literal_text(v) == spec_literal(v)
    assert nm.row_iri("T", []) == f"{base}{spec_name(style, 'T')}/"
    assert ROW_KEY == "_row"


def test_sparql_term_escapes_pn_local_characters() -> None:
    local = "singer#a;b=c&d/e?f!g$h'i(j)k*l+m,n-o.p_q%41é"
    want = ":" + "".join("\\" + ch if ch in "#;=&/?!$'()*+," else ch for ch in local)
    assert Naming().sparql_term(local) == want
    assert Naming().sparql_term(Naming().column_local("Singer", "Age")) == ":singer\\#age"


def test_bad_style_is_named() -> None:
    for bad in ("S4S", "", None, 3):
        with pytest.raises(ValueError, match=f"naming must be 's4s' or 'w3c', not {bad!r}$"):
            Naming(bad)  # type: ignore[arg-type]
    assert Naming() == Naming("s4s", S4S_BASE) and hash(Naming()) == hash(Naming("s4s"))


@pytest.mark.parametrize("style", ["s4s", "w3c"])
def test_converter_names_rows_by_the_rule(style: str, tmp_path: Path) -> None:
    """Every subject of the N-Triples file and every eid of graph.json is the rule's name of a
    row read back from SQLite (key columns in key order)."""
    import sqlite3

    from kgbench.rdb.schema import load_schema

    base = S4S_BASE if style == "s4s" else "http://example.org/db/"
    convert_rdb(CONCERT, CONCERT_TABLES, "concert_singer", tmp_path, naming=style, base=base)
    nm = Naming(style, base)
    schema = load_schema(CONCERT, CONCERT_TABLES, "concert_singer")
    conn = sqlite3.connect(CONCERT)
    want_iris, want_eids = set(), set()
    for table in schema.tables.values():
        key_cols = list(table.primary_key) or [ROW_KEY]
        select = ", ".join(f'"{k}"' if k != ROW_KEY else "rowid" for k in key_cols)
        for row in conn.execute(f'SELECT {select} FROM "{table.name}"'):
            key = list(zip(key_cols, row, strict=True))
            want_iris.add(nm.row_iri(table.name, key))
            want_eids.add(eid(table.name, key))
    conn.close()
    text = (tmp_path / "concert_singer.nt").read_text(encoding="utf-8")
    subjects = {line.split(" ", 1)[0][1:-1] for line in text.splitlines() if line}
    assert subjects == want_iris and len(subjects) > 20
    graph = json.loads((tmp_path / "graph.json").read_text(encoding="utf-8"))
    assert {e["eid"] for e in graph["entities"]} == want_eids
