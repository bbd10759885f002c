"""``kgbench rdb``: a relational database as RDF and as a property graph (spec
spider4sparql.md §3; :mod:`kgbench.rdb.convert`).

Fixtures (tests/data/spider/, see NOTICE there): Spider's concert_singer (composite key
``singer_in_concert`` from the database, the TEXT ``concert.Stadium_ID`` referencing an INT
key, ``'T'``/``'F'`` booleans) and ``rdb_handmade.sql`` (a key-less table with duplicate rows,
NULLs, a composite key declared out of column order, a mistyped and a dangling foreign key,
a non-unique foreign-key target, padded codes, values that do not fit their column type).
One test converts every Spider database in ../shared/data/spider/; the outputs of the
fixtures and of small Spider databases are compared with checked-in expected outputs
(tests/data/rdb/, tests/rdb_fixtures.py).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pyoxigraph
import pytest

from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.rdb.convert import convert_rdb, output_paths
from kgbench.rdb.naming import S4S_PREFIX, Naming
from kgbench.rdb.schema import load_schema
from rdb_fixtures import CASE_IDS, FIXTURE_CASES, OPTIONS, SPIDER_CASES, expected_dir, make_case

DATA = Path(__file__).parent / "data" / "spider"
CONCERT = DATA / "concert_singer.sqlite"
CONCERT_TABLES = DATA / "concert_singer.tables.json"
HANDMADE_SQL = DATA / "rdb_handmade.sql"
HANDMADE_TABLES = DATA / "rdb_handmade.tables.json"
SPIDER = Path(__file__).resolve().parents[2] / "shared" / "data" / "spider"
XSD = "http://www.w3.org/2001/XMLSchema#"


@pytest.fixture(scope="module")
def handmade(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("handmade") / "rdb_handmade.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(HANDMADE_SQL.read_text(encoding="utf-8"))
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="module")
def concert(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("concert")
    report = convert_rdb(CONCERT, CONCERT_TABLES, "concert_singer", out)
    return out, report


def _store(nt: Path) -> Any:
    store = pyoxigraph.Store()
    store.bulk_load(path=str(nt), format=pyoxigraph.RdfFormat.N_TRIPLES)
    return store


def _lines(nt: Path) -> list[str]:
    return nt.read_text(encoding="utf-8").splitlines(keepends=True)


def _term_value(term: Any) -> Any:
    """A SPARQL result literal as a Python value (numbers numeric, others lexical)."""
    dt = term.datatype.value
    if dt == XSD + "integer":
        return int(term.value)
    if dt in (XSD + "double", XSD + "decimal"):
        return float(term.value)
    if dt == XSD + "boolean":
        return term.value == "true"
    return term.value


def _sql_value(v: Any, declared: str, dt: str) -> Any:
    """The SQL value as the RDF literal of datatype ``dt`` should hold it."""
    if dt == XSD + "boolean":
        return {"T": True, "F": False, 1: True, 0: False}[v]
    if dt == XSD + "dateTime":
        return v.replace(" ", "T")
    if isinstance(v, (int, float)) and dt in (XSD + "double", XSD + "decimal"):
        return float(v)
    return v


def _check_roundtrip(db: Path, tables_json: Path | None, db_id: str, out: Path) -> int:
    """Every non-NULL SQL cell of every row is found again by SPARQL (S4S query style),
    on the row's subject; returns the number of cells checked."""
    schema = load_schema(db, tables_json, db_id)
    store = _store(out / f"{db_id}.nt")
    naming = Naming()
    conn = sqlite3.connect(db)
    checked = 0
    for table in schema.tables.values():
        t = naming.table_local(table.name)
        rows = conn.execute(
            "SELECT rowid, "
            + ", ".join(f'"{c.name}"' for c in table.columns)
            + f' FROM "{table.name}"'
        ).fetchall()
        for j, col in enumerate(table.columns):
            c = naming.sparql_term(naming.column_local(table.name, col.name))
            query = S4S_PREFIX + f"SELECT ?r ?v WHERE {{ ?r a :{t} ; {c} ?v }}"
            got = {str(s["r"].value): s["v"] for s in store.query(query)}
            want = {}
            for row in rows:
                if row[1 + j] is None:
                    continue
                if table.primary_key:
                    key = [
                        (k, row[1 + table.columns.index(table.column(k))])
                        for k in table.primary_key
                    ]
                else:
                    key = [("_row", row[0])]
                want[naming.row_iri(table.name, key)] = row[1 + j]
            assert set(got) == set(want), (table.name, col.name)
            for subject, v in want.items():
                term = got[subject]
                expected = _sql_value(v, col.declared_type, term.datatype.value)
                assert _term_value(term) == expected, (table.name, col.name, subject)
                checked += 1
    conn.close()
    return checked


# ------------------------------------------------------------------------------------------
# concert_singer (real Spider data)
# ------------------------------------------------------------------------------------------
def test_concert_singer_counts_and_notes(concert: tuple[Path, dict[str, Any]]) -> None:
    out, report = concert
    assert report["tables"] == 4
    assert report["rows"] == 31 == report["type_triples"] == report["nodes"]
    # 3 foreign keys: concert -> stadium (6), singer_in_concert -> singer and -> concert (10 each)
    assert report["fk_triples"] == 26 == report["relationships"]
    assert report["triples"] == report["rows"] + report["cells"] + report["fk_triples"]
    assert report["nulls_skipped"] == 0
    assert report["type_mismatches"] == 0
    assert any("singer_in_concert: composite key" in n for n in report["schema_notes"])
    by_fk = {(f["table"], f["ref_table"]): f["matches"] for f in report["foreign_keys"]}
    assert by_fk == {
        ("concert", "stadium"): 6,
        ("singer_in_concert", "singer"): 10,
        ("singer_in_concert", "concert"): 10,
    }
    assert sorted(p.name for p in out.iterdir()) == [
        "concert_singer.nt",
        "concert_singer.ontology.json",
        "concert_singer.ontology.ttl",
        "graph.json",
        "report.json",
    ]
    assert json.loads((out / "report.json").read_text())["triples"] == report["triples"]


def test_concert_singer_ntriples_shape(concert: tuple[Path, dict[str, Any]]) -> None:
    out, report = concert
    lines = _lines(out / "concert_singer.nt")
    assert lines == sorted(set(lines)) and len(lines) == report["triples"]
    assert all(line.endswith(" .\n") for line in lines)
    text = "".join(lines)
    base = "http://valuenet/ontop/"
    # composite key from the database, in key order; S4S naming (lower-cased)
    assert (
        f"<{base}singer_in_concert/concert_id=1;singer_id=2> "
        f"<{base}singer_in_concert#ref-singer_id> <{base}singer/singer_id=2> .\n" in text
    )
    # the TEXT Stadium_ID: a plain literal, and still joined to the INT key by SQLite
    assert f'<{base}concert/concert_id=1> <{base}concert#stadium_id> "1" .\n' in text
    assert (
        f"<{base}concert/concert_id=1> <{base}concert#ref-stadium_id> "
        f"<{base}stadium/stadium_id=1> .\n" in text
    )
    # Spider's 'T'/'F' booleans become xsd:boolean
    assert f'<{base}singer/singer_id=1> <{base}singer#is_male> "false"^^<{XSD}boolean> .\n' in text
    assert f'<{base}singer/singer_id=2> <{base}singer#is_male> "true"^^<{XSD}boolean> .\n' in text
    assert f'<{base}singer/singer_id=1> <{base}singer#age> "52"^^<{XSD}integer> .\n' in text


def test_concert_singer_sparql_finds_every_value(concert: tuple[Path, dict[str, Any]]) -> None:
    out, report = concert
    assert _check_roundtrip(CONCERT, CONCERT_TABLES, "concert_singer", out) == report["cells"]
    store = _store(out / "concert_singer.nt")
    # the published S4S query style: no PREFIX in the query, `\#` in local names
    q = "SELECT ?name ?age WHERE { ?s a :singer ; :singer\\#name ?name ; :singer\\#age ?age } "
    rows = {(r["name"].value, int(r["age"].value)) for r in store.query(S4S_PREFIX + q)}
    sql = sqlite3.connect(CONCERT).execute("SELECT Name, Age FROM singer").fetchall()
    assert rows == set(sql)
    q = (
        "SELECT (count(*) AS ?n) WHERE { ?c a :concert ; :concert\\#ref-stadium_id ?s . "
        "?s :stadium\\#name ?x }"
    )
    assert int(next(iter(store.query(S4S_PREFIX + q)))["n"].value) == 6
    q = "SELECT ?n WHERE { ?s :singer\\#is_male true ; :singer\\#name ?n }"
    males = {r["n"].value for r in store.query(S4S_PREFIX + q)}
    sql_males = sqlite3.connect(CONCERT).execute("SELECT Name FROM singer WHERE Is_male = 'T'")
    assert males == {r[0] for r in sql_males}


def test_concert_singer_ontology(concert: tuple[Path, dict[str, Any]]) -> None:
    out, _ = concert
    prompt = json.loads((out / "concert_singer.ontology.json").read_text())
    assert prompt["classes"] == ["concert", "singer", "singer_in_concert", "stadium"]
    assert prompt["object_properties"] == [
        "concert#ref-stadium_id",
        "singer_in_concert#ref-concert_id",
        "singer_in_concert#ref-singer_id",
    ]
    assert len(prompt["data_properties"]) == 21
    assert prompt["data_properties"] == sorted(prompt["data_properties"])
    assert "singer#is_male" in prompt["data_properties"]
    store = pyoxigraph.Store()
    store.load(path=str(out / "concert_singer.ontology.ttl"), format=pyoxigraph.RdfFormat.TURTLE)
    q = (
        "PREFIX owl: <http://www.w3.org/2002/07/owl#> "
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
        "SELECT ?d ?r WHERE { :concert\\#ref-stadium_id a owl:ObjectProperty ; "
        "rdfs:domain ?d ; rdfs:range ?r }"
    )
    (row,) = list(store.query(S4S_PREFIX + q))
    assert (row["d"].value, row["r"].value) == (
        "http://valuenet/ontop/concert",
        "http://valuenet/ontop/stadium",
    )
    q = (
        "PREFIX owl: <http://www.w3.org/2002/07/owl#> "
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
        "SELECT ?r WHERE { :singer\\#is_male a owl:DatatypeProperty ; rdfs:range ?r }"
    )
    assert [r["r"].value for r in store.query(S4S_PREFIX + q)] == [XSD + "boolean"]
    classes = "PREFIX owl: <http://www.w3.org/2002/07/owl#> SELECT ?c WHERE { ?c a owl:Class }"
    assert len(list(store.query(classes))) == 4


def test_concert_singer_graph_validates(concert: tuple[Path, dict[str, Any]]) -> None:
    from kgbench._core import neo4j as core

    out, _ = concert
    check = core.validate(str(out / "graph.json"))
    assert check.total == 0, check.problems
    assert dict(check.nodes_by_label) == {
        "stadium": 9,
        "singer": 6,
        "concert": 6,
        "singer_in_concert": 10,
    }
    assert dict(check.relationships_by_type) == {
        "ref_Stadium_ID": 6,
        "ref_Singer_ID": 10,
        "ref_concert_ID": 10,
    }
    graph = json.loads((out / "graph.json").read_text())
    ents = {e["eid"]: e for e in graph["entities"]}
    singer = ents["singer#Singer_ID=1"]
    assert singer["name"] == "Joe Sharp"
    assert singer["properties"]["Is_male"] is False and singer["properties"]["Age"] == 52
    sic = ents["singer_in_concert#concert_ID=1;Singer_ID=2"]
    assert sic["name"] == "1;2"
    assert sic["properties"] == {"concert_ID": 1, "Singer_ID": "2"}


@pytest.mark.neo4j
def test_concert_singer_loads_into_neo4j(
    concert: tuple[Path, dict[str, Any]], neo4j_load: Any, neo4j_driver: Any
) -> None:
    out, report = concert
    load = neo4j_load(out / "graph.json")
    assert load.nodes == report["rows"] and load.relationships == report["fk_triples"]
    with neo4j_driver.session() as s:
        n = s.run("MATCH (c:concert)-[:ref_Stadium_ID]->(s:stadium) RETURN count(*) AS n").single()[
            "n"
        ]
        assert n == 6
        rec = s.run(
            "MATCH (s:singer) WHERE s.Is_male = true RETURN collect(s.Name) AS names"
        ).single()
        sql = sqlite3.connect(CONCERT).execute("SELECT Name FROM singer WHERE Is_male = 'T'")
        assert sorted(rec["names"]) == sorted(r[0] for r in sql)


# ------------------------------------------------------------------------------------------
# the hand-made database
# ------------------------------------------------------------------------------------------
def _convert(handmade: Path, out: Path, **kw: Any) -> tuple[dict[str, Any], str]:
    report = convert_rdb(handmade, HANDMADE_TABLES, "rdb_handmade", out, **kw)
    return report, (out / "rdb_handmade.nt").read_text(encoding="utf-8")


def test_handmade_bag_keeps_duplicate_rows(handmade: Path, tmp_path: Path) -> None:
    report, text = _convert(handmade, tmp_path)
    base = "http://valuenet/ontop/"
    assert report["row_naming"] == {"visit": "rowid"}
    assert report["per_table"]["visit"]["nodes"] == 5 and report["merged_rows"] == 0
    for n in range(1, 6):
        assert f"<{base}visit/_row={n}> a" not in text  # N-Triples has no `a`
        assert f"<{base}visit/_row={n}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type>" in text
    # both Paris rows keep their reference; the NULL person_id gives no triple at all
    assert text.count(f"<{base}visit#ref-person_id> <{base}person/id=1> .") == 2
    assert f"<{base}visit/_row=3> <{base}visit#person_id>" not in text
    assert report["triples"] == report["rows"] + report["cells"] + report["fk_triples"]
    assert report["nodes"] == report["rows"] == 23


def test_handmade_s4s_blank_nodes_merge(handmade: Path, tmp_path: Path) -> None:
    report, text = _convert(handmade, tmp_path, pk_less="s4s")
    assert report["row_naming"] == {"visit": "blank"}
    # the two Paris rows merge; (NULL, 'Rome') merges with (0, 'Rome'): NULL is read as 0
    assert report["merged_rows"] == 2 and report["per_table"]["visit"]["nodes"] == 3
    blank_types = [ln for ln in text.splitlines() if ln.startswith("_:") and "#type>" in ln]
    assert len(blank_types) == 3
    ref = "<http://valuenet/ontop/visit#ref-person_id> <http://valuenet/ontop/person/id=1> ."
    assert text.count(ref) == 1
    lines = _lines(tmp_path / "rdb_handmade.nt")
    assert lines == sorted(set(lines)) and len(lines) == report["triples"]
    assert report["nodes"] == 21 and len(_store(tmp_path / "rdb_handmade.nt")) == report["triples"]
    from kgbench._core import neo4j as core

    assert core.validate(str(tmp_path / "graph.json")).total == 0


def test_handmade_keys_foreign_keys_and_names(handmade: Path, tmp_path: Path) -> None:
    report, text = _convert(handmade, tmp_path)
    base = "http://valuenet/ontop/"
    # composite key in key order (club, person_id), not column order
    assert f"<{base}membership/club=go;person_id=1> <{base}membership#since>" in text
    # mistyped FK (TEXT -> INTEGER) joined by SQLite; '9' dangles
    fks = {(f["table"], tuple(f["columns"])): f for f in report["foreign_keys"]}
    assert fks[("membership", ("person_id",))]["matches"] == 3
    assert fks[("membership", ("person_id",))]["source"] == "both"
    assert fks[("visit", ("person_id",))]["source"] == "database"
    # a non-unique target: one triple per match
    assert fks[("trip", ("city",))]["matches"] == 3
    assert f"<{base}trip/tid=1> <{base}trip#ref-city> <{base}airports/code=ABZ> .\n" in text
    assert f"<{base}trip/tid=1> <{base}trip#ref-city> <{base}airports/code=APG> .\n" in text
    # percent-encoded column names
    assert f'<{base}person/id=1> <{base}person#home%20town> "Creole English" .\n' in text
    graph = json.loads((tmp_path / "graph.json").read_text())
    ents = {e["eid"]: e for e in graph["entities"]}
    assert ents["person#id=1"]["name"] == "Ann" and ents["person#id=2"]["name"] == "2"
    assert ents["visit#_row=1"]["name"] == "_row=1"
    props = graph["schema"]["entities"][0]["properties"]
    assert "Home_Town" in props and "description_" in props and "name" not in props
    renamed = {(r["column"], r["property"]) for r in report["pg_renamed"]}
    assert renamed == {("name", None), ("Home Town", "Home_Town"), ("description", "description_")}
    assert ents["person#id=1"]["properties"]["description_"] == 'says "hi"\nback\\slash'
    assert ents["membership#club=go;person_id=1"]["properties"]["person_id"] == "1"


def test_handmade_types_and_mismatches(handmade: Path, tmp_path: Path) -> None:
    report, text = _convert(handmade, tmp_path)
    base = "http://valuenet/ontop/"
    p1, p3, p4 = (f"<{base}person/id={i}>" for i in (1, 3, 4))
    assert f'{p1} <{base}person#height> "1.75"^^<{XSD}double> .\n' in text
    assert f'{p1} <{base}person#score> "12.5"^^<{XSD}decimal> .\n' in text
    assert f'{p3} <{base}person#score> "0.0000001"^^<{XSD}decimal> .\n' in text
    assert f'{p1} <{base}person#born> "1990-01-02"^^<{XSD}date> .\n' in text
    assert f'{p1} <{base}person#seen> "2020-03-04T05:06:07"^^<{XSD}dateTime> .\n' in text
    assert f'{p3} <{base}person#active> "true"^^<{XSD}boolean> .\n' in text  # integer 1
    # untyped column: by storage class
    assert f'{p3} <{base}person#misc> "2.5"^^<{XSD}double> .\n' in text
    # escapes
    assert f'{p1} <{base}person#description> "says \\"hi\\"\\nback\\\\slash" .\n' in text
    assert f'{p3} <{base}person#description> "tab\\té" .\n' in text
    # values that do not fit: kept as their storage class and counted, never dropped
    assert f'{p3} <{base}person#height> "tall" .\n' in text
    assert f'{p3} <{base}person#born> "1990-1-2" .\n' in text
    assert f'{p3} <{base}person#seen> "2020-03-04" .\n' in text
    assert f'{p4} <{base}person#active> "St. Mirren Park" .\n' in text
    mm = {(m["column"], m["count"], tuple(m["examples"])) for m in report["mismatches"]}
    assert mm == {
        ("height", 1, ("'tall'",)),
        ("active", 1, ("'St. Mirren Park'",)),
        ("born", 1, ("'1990-1-2'",)),
        ("seen", 1, ("'2020-03-04'",)),
    }
    assert report["type_mismatches"] == 4
    # the property graph cannot mix types in one property: those columns become str
    widened = {(w["column"], w["dtype"]) for w in report["pg_widened"]}
    assert widened == {("height", "float"), ("active", "bool"), ("born", "date")}
    graph = json.loads((tmp_path / "graph.json").read_text())
    props = graph["schema"]["entities"][0]["properties"]
    assert props["height"] == "str" and props["score"] == "float" and props["misc"] == "str"
    assert props["id"] == "int" and props["seen"] == "str"
    ents = {e["eid"]: e for e in graph["entities"]}
    assert ents["person#id=1"]["properties"]["height"] == "1.75"
    assert ents["person#id=1"]["properties"]["active"] == "T"
    # every cell is found again by SPARQL
    assert _check_roundtrip(handmade, HANDMADE_TABLES, "rdb_handmade", tmp_path) == report["cells"]


def test_handmade_trim_only_when_asked(handmade: Path, tmp_path: Path) -> None:
    base = "http://valuenet/ontop/"
    plain, text = _convert(handmade, tmp_path / "plain")
    assert plain["repairs"] == {"trimmed_cells": 0, "trimmed": [], "promoted": []}
    assert f'<{base}flights/fno=1> <{base}flights#src> " APG" .\n' in text
    assert f"<{base}flights/fno=1> <{base}flights#ref-src>" not in text
    trimmed, text = _convert(handmade, tmp_path / "trim", trim=True)
    assert trimmed["repairs"]["trimmed"] == [{"table": "flights", "column": "src", "cells": 2}]
    assert f'<{base}flights/fno=1> <{base}flights#src> "APG" .\n' in text
    for fno in (1, 3):
        assert (
            f"<{base}flights/fno={fno}> <{base}flights#ref-src> <{base}airports/code=APG> .\n"
            in text
        )
    assert trimmed["fk_triples"] == plain["fk_triples"] + 2


def test_handmade_promote_numeric_text(handmade: Path, tmp_path: Path) -> None:
    base = "http://valuenet/ontop/"
    report, text = _convert(handmade, tmp_path, promote_numeric_text=True)
    promoted = {
        (p["table"], p["column"], p["to"], p["cells"]) for p in report["repairs"]["promoted"]
    }
    assert promoted == {
        ("person", "rank", "integer", 3),
        ("person", "fee", "decimal", 3),
        ("membership", "person_id", "integer", 4),
    }
    assert f'<{base}person/id=4> <{base}person#rank> "-2"^^<{XSD}integer> .\n' in text
    assert f'<{base}person/id=1> <{base}person#fee> "1.5"^^<{XSD}decimal> .\n' in text
    assert f'<{base}person/id=2> <{base}person#fee> "2"^^<{XSD}decimal> .\n' in text
    # codes with leading zeros stay text
    assert f'<{base}person/id=4> <{base}person#zip> "00042" .\n' in text
    graph = json.loads((tmp_path / "graph.json").read_text())
    props = graph["schema"]["entities"][0]["properties"]
    assert (props["rank"], props["fee"], props["zip"]) == ("int", "float", "str")
    # the joins keep SQLite's comparison: the same matches
    assert (
        report["fk_triples"]
        == convert_rdb(handmade, HANDMADE_TABLES, "rdb_handmade", tmp_path / "plain")["fk_triples"]
    )


def test_w3c_naming(tmp_path: Path) -> None:
    base = "http://example.org/db/"
    convert_rdb(CONCERT, CONCERT_TABLES, "concert_singer", tmp_path, naming="w3c", base=base)
    text = (tmp_path / "concert_singer.nt").read_text()
    assert (
        f"<{base}singer_in_concert/concert_ID=1;Singer_ID=2> "
        f"<{base}singer_in_concert#ref-Singer_ID> <{base}singer/Singer_ID=2> .\n" in text
    )


@pytest.mark.neo4j
def test_handmade_loads_into_neo4j(
    handmade: Path, tmp_path: Path, neo4j_load: Any, neo4j_driver: Any
) -> None:
    report, _ = _convert(handmade, tmp_path, trim=True)
    load = neo4j_load(tmp_path / "graph.json")
    assert load.nodes == report["nodes"] == report["rows"]
    assert load.relationships == report["fk_triples"]
    with neo4j_driver.session() as s:
        rec = s.run("MATCH (p:person {id: 1}) RETURN p.name AS n, p.born AS b").single()
        assert rec["n"] == "Ann" and rec["b"] == "1990-01-02"  # widened column: text
        n = s.run("MATCH (:trip {tid: 1})-[:ref_city]->(a:airports) RETURN count(a) AS n")
        assert n.single()["n"] == 2


# ------------------------------------------------------------------------------------------
# errors and the command line
# ------------------------------------------------------------------------------------------
def test_errors_are_one_line(tmp_path: Path, handmade: Path) -> None:
    bad = tmp_path / "not.sqlite"
    bad.write_text("hello")
    with pytest.raises(InputError, match="not an SQLite database"):
        convert_rdb(bad, None, "x", tmp_path / "o")
    with pytest.raises(InputError, match="unknown db_id 'nope'"):
        convert_rdb(CONCERT, CONCERT_TABLES, "nope", tmp_path / "o")
    entry = json.loads(CONCERT_TABLES.read_text())
    entry[0]["column_names_original"][4] = [0, "Seats"]
    wrong = tmp_path / "tables.json"
    wrong.write_text(json.dumps(entry))
    with pytest.raises(InputError, match=r"column stadium\.Seats of tables\.json"):
        convert_rdb(CONCERT, wrong, "concert_singer", tmp_path / "o")
    with pytest.raises(InputError, match="pk_less"):
        convert_rdb(CONCERT, CONCERT_TABLES, "concert_singer", tmp_path / "o", pk_less="set")


def test_failed_run_leaves_no_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    convert_rdb(CONCERT, CONCERT_TABLES, "concert_singer", out)
    assert output_paths(out, "concert_singer")["report"].exists()
    with pytest.raises(InputError):
        convert_rdb(CONCERT, CONCERT_TABLES, "nope", out)
    assert not (out / "report.json").exists()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary files


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code = main(["rdb", str(CONCERT), "--tables", str(CONCERT_TABLES), "--out", str(out)])
    assert code == 0
    stdout = capsys.readouterr().out
    assert "db_id\tconcert_singer\n" in stdout and "triples\t212\n" in stdout
    assert (out / "concert_singer.nt").exists()  # db_id defaults to the file stem
    code = main(["rdb", str(CONCERT), "--out", str(out / "j"), "--json", "--pk-less", "s4s"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pk_less"] == "s4s" and report["tables_json"] is None
    assert report["fk_triples"] == 26  # the database declares all three foreign keys
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"\0" * 100)
    assert main(["rdb", str(bad), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "kgbench rdb: error:" in err and "not an SQLite" in err
    code = main(
        ["rdb", str(CONCERT), "--tables", str(CONCERT_TABLES), "--db-id", "x", "--out", str(out)]
    )
    assert code == 1 and "unknown db_id 'x'" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------
# every Spider database at hand
# ------------------------------------------------------------------------------------------
def _sql_counts(db: Path, tables_json: Path | None, db_id: str) -> tuple[int, int, int]:
    """Rows, non-NULL cells and distinct foreign-key (child row, predicate, parent row)
    matches, counted by SQLite directly."""
    schema = load_schema(db, tables_json, db_id)
    conn = sqlite3.connect(db)
    rows = cells = 0
    for t in schema.tables.values():
        counts = ", ".join(f'count("{c.name}")' for c in t.columns)
        r = conn.execute(f'SELECT count(*), {counts} FROM "{t.name}"').fetchone()
        rows += r[0]
        cells += sum(r[1:])
    pairs: set[tuple[str, tuple[str, ...], str, int, int]] = set()
    for fk in schema.foreign_keys:
        on = " AND ".join(
            f'c."{a}" = p."{b}"' for a, b in zip(fk.columns, fk.ref_columns, strict=True)
        )
        q = f'SELECT c.rowid, p.rowid FROM "{fk.table}" c JOIN "{fk.ref_table}" p ON {on}'
        for c, p in conn.execute(q):
            pairs.add((fk.table, tuple(fk.columns), fk.ref_table, c, p))
    conn.close()
    return rows, cells, len(pairs)


@pytest.mark.realdata
@pytest.mark.slow
def test_all_spider_databases(tmp_path: Path) -> None:
    from kgbench._core import neo4j as core

    if not (SPIDER / "tables.json").exists():
        pytest.skip(f"Spider data not at {SPIDER}")
    ids = {e["db_id"] for e in json.loads((SPIDER / "tables.json").read_text())}
    dbs = sorted((SPIDER / "database").glob("*/*.sqlite"))
    dbs += sorted((SPIDER / "train-databases").glob("*/*.sqlite"))
    assert len(dbs) == 153
    totals: Counter[str] = Counter()
    for db in dbs:
        db_id = db.parent.name
        tables = SPIDER / "tables.json" if db_id in ids else None
        out = tmp_path / db_id
        t0 = time.perf_counter()
        report = convert_rdb(db, tables, db_id, out)
        totals["seconds"] += time.perf_counter() - t0
        rows, cells, fks = _sql_counts(db, tables, db_id)
        assert (report["rows"], report["cells"], report["fk_triples"]) == (rows, cells, fks), db_id
        assert report["triples"] == rows + cells + fks, db_id
        assert report["nodes"] == rows and report["relationships"] == fks, db_id
        check = core.validate(str(out / "graph.json"))
        assert check.total == 0, (db_id, check.problems)
        assert len(_store(out / f"{db_id}.nt")) == report["triples"], db_id
        totals["rows"] += rows
        totals["triples"] += report["triples"]
        totals["mismatches"] += report["type_mismatches"]
    assert totals["rows"] == 288_320
    assert totals["triples"] == 3_116_217


def test_column_named_like_a_reference(tmp_path: Path) -> None:
    """A column ``ref-src`` and the foreign key on ``src`` share the predicate ``t#ref-src``
    (a known clash of the Direct Mapping): both kinds of triple are kept and counted apart."""
    db = tmp_path / "clash.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript(
        "CREATE TABLE p (id INTEGER PRIMARY KEY); INSERT INTO p VALUES (1);"
        'CREATE TABLE t (id INTEGER PRIMARY KEY, src INTEGER REFERENCES p (id), "ref-src" TEXT);'
        "INSERT INTO t VALUES (1, 1, 'x'), (2, 1, NULL);"
    )
    conn.close()
    report = convert_rdb(db, None, "clash", tmp_path / "out")
    assert (report["type_triples"], report["data_triples"], report["fk_triples"]) == (3, 6, 2)
    lines = _lines(tmp_path / "out" / "clash.nt")
    assert lines == sorted(set(lines)) and len(lines) == report["triples"] == 11


# ------------------------------------------------------------------------------------------
# the outputs against the checked-in expected outputs of real databases (tests/data/rdb/)
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.realdata) if c in SPIDER_CASES else c for c in CASE_IDS],
)
def test_outputs_equal_the_expected_files(case: str, option: str, tmp_path: Path) -> None:
    """Every file byte for byte and the same report (the time and the paths aside) as the
    expected outputs, generated once when kgbench's former pure-Python engine and the Rust
    engine agreed on them (tests/data/rdb/NOTICE): the fixtures (concert_singer, the
    handmade database, values that stress the lexical forms, a column named like a
    reference) and small Spider databases read in place, each with every option set."""
    made = make_case(case, tmp_path)
    if made is None:
        pytest.skip(f"Spider database {case!r} not at {SPIDER}")
    db, tables_json, db_id = made
    expected = expected_dir(case, option)
    assert expected.is_dir(), f"no expected outputs at {expected} (make_expected.py)"
    report = convert_rdb(db, tables_json, db_id, tmp_path / "out", **OPTIONS[option])
    assert report.pop("database") == str(db)
    assert report.pop("tables_json") == (None if tables_json is None else str(tables_json))
    report.pop("seconds")
    paths = {k: Path(v) for k, v in report.pop("files").items()}
    assert paths == output_paths(tmp_path / "out", db_id)
    want = json.loads((expected / "report.json").read_text("utf-8"))
    assert json.loads(json.dumps(report)) == want
    for key in ("nt", "ontology_ttl", "ontology_json", "graph"):
        assert paths[key].read_bytes() == (expected / paths[key].name).read_bytes(), key


RDF_TYPE = pyoxigraph.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("case", FIXTURE_CASES)
def test_expected_files_agree_with_an_independent_count(
    case: str, option: str, tmp_path: Path
) -> None:
    """The checked-in expected outputs of the shipped fixtures (written by ``convert_rdb``,
    make_expected.py) recounted without kgbench's converter: pyoxigraph parses the N-Triples
    and the ontology's Turtle; the N-Triples' type, literal and reference triples are the
    graph.json's nodes and relationships (and bound its properties); with the default options
    they are SQLite's own count of rows, non-NULL cells and foreign-key matches (the direct
    mapping, spider4sparql.md §3). The other option sets merge rows (``pk_less=s4s``) or
    promote text to numbers (new matches), so there only the files' agreement is checked."""
    made = make_case(case, tmp_path)
    assert made is not None  # a fixture, always built
    db, tables_json, db_id = made
    expected = expected_dir(case, option)
    triples = list(
        pyoxigraph.parse(path=str(expected / f"{db_id}.nt"), format=pyoxigraph.RdfFormat.N_TRIPLES)
    )
    types = sum(t.predicate == RDF_TYPE for t in triples)
    literals = sum(isinstance(t.object, pyoxigraph.Literal) for t in triples)
    references = len(triples) - types - literals
    ontology = pyoxigraph.parse(
        path=str(expected / f"{db_id}.ontology.ttl"), format=pyoxigraph.RdfFormat.TURTLE
    )
    assert any(True for _ in ontology), "empty ontology"
    graph = json.loads((expected / "graph.json").read_text("utf-8"))
    props = sum(len(e.get("properties", {})) for e in graph["entities"])
    assert (len(graph["entities"]), len(graph["relations"])) == (types, references)
    assert 0 < props <= literals  # a property is a data triple (not every one is a property)
    if option == "default":
        assert (types, literals, references) == _sql_counts(db, tables_json, db_id)


def test_one_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--engine`` (and ``engine=``) are gone: the Rust converter is the only one."""
    with pytest.raises(TypeError, match="engine"):
        convert_rdb(CONCERT, CONCERT_TABLES, "concert_singer", tmp_path / "o", engine="rust")  # type: ignore[call-arg]
    out = tmp_path / "cli"
    with pytest.raises(SystemExit):
        main(["rdb", str(CONCERT), "--out", str(out), "--engine", "rust"])
    assert "--engine" in capsys.readouterr().err
    assert main(["rdb", str(CONCERT), "--out", str(out)]) == 0
    assert "triples\t212\n" in capsys.readouterr().out
