"""``kgbench validate-translation`` (spec spider4sparql.md §4 "Validation") on the real
concert_singer database and its 45 Spider dev questions: SQL on SQLite against the SPARQL
translation on the converted RDF and the Cypher translation on the property graph loaded
into the local Neo4j; and the CLI on a Spider-layout directory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data" / "spider"
DB = DATA / "concert_singer.sqlite"
TABLES = DATA / "concert_singer.tables.json"
QUESTIONS = DATA / "concert_singer.dev.json"


@pytest.mark.neo4j
def test_sql_sparql_and_cypher_agree_on_concert_singer(
    tmp_path: Path, neo4j_server: Any, neo4j_load: Any
) -> None:
    from kgbench.neo4j.executor import GraphReader
    from kgbench.rdb.convert import convert_rdb
    from kgbench.rdb.schema import load_schema
    from kgbench.rdb.validate import validate_translations

    convert_rdb(DB, TABLES, "concert_singer", tmp_path)
    neo4j_load(tmp_path / "graph.json")
    schema = load_schema(DB, TABLES, "concert_singer")
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    assert len(questions) == 45
    reader = GraphReader.connect(neo4j_server.uri)
    try:
        report = validate_translations(
            questions,
            {"concert_singer": (schema, DB, [tmp_path / "concert_singer.nt"])},
            cypher_reader=reader,
        )
    finally:
        reader.close()
    counts = report.counts["concert_singer"]
    # one question selects a column beside a lone MAX: declined, never mistranslated
    assert counts["sparql"] == {"equal": 44, "unsupported": 1}
    assert counts["cypher"]["unsupported"] == 1 and counts["cypher"]["equal"] >= 42
    for rec in report.records:
        if rec["cypher_verdict"] == "differs":
            # shown side by side, never fixed
            assert rec["sql_rows"] != rec["cypher_rows"]
    assert "SQL vs SPARQL" in report.table() and "97.8%" in report.table()


def test_cli_without_cypher(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kgbench.cli import main

    dbs = tmp_path / "database" / "concert_singer"
    dbs.mkdir(parents=True)
    shutil.copy(DB, dbs / "concert_singer.sqlite")
    out = tmp_path / "out"
    argv = ["validate-translation", "--tables", str(TABLES), "--questions", str(QUESTIONS)]
    assert main([*argv, "--db-dir", str(tmp_path / "database"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "concert_singer" in printed and "SQL vs CYPHER" not in printed
    records = [json.loads(x) for x in (out / "validation.jsonl").read_text().splitlines()]
    assert len(records) == 45 and all(r["sparql"] or r["sparql_reason"] for r in records)
    summary = json.loads((out / "validation_summary.json").read_text())
    assert summary == {"concert_singer": {"sparql": {"equal": 44, "unsupported": 1}}}
    assert (out / "rdf" / "concert_singer" / "concert_singer.nt").is_file()
    # an unknown database is a one-line error
    assert main([*argv, "--db-dir", str(tmp_path), "--db-id", "pets_1", "--out", str(out)]) == 1
