"""``kgbench gate`` and ``kgbench generate pipe`` argument and input errors
(kgbench.generate.pipe.cli), without a Neo4j server.

Exit codes follow ``kgbench.cli.main``: 0 success, 1 a failure reported on one stderr line
(``kgbench COMMAND: error: ...``), 2 an argparse usage error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kgbench.cli import main

#: No server listens here.
DOWN = "bolt://127.0.0.1:1"

#: A graph profile by hand (schema.json, spec §2).
PROFILE: dict[str, Any] = {
    "graph_name": "mini",
    "node_properties": [
        {"label": "Company", "property": "name", "type": "STRING"},
        {"label": "Company", "property": "launch_year", "type": "INTEGER"},
        {"label": "Person", "property": "name", "type": "STRING"},
    ],
    "relationship_properties": [],
    "relationships": [
        {"start_label": "Company", "type": "foundedBy", "end_label": "Person", "count": 4},
    ],
    "categorical_properties": {"Company.name": ["Google", "Siemens"]},
}

TASKS = [
    {
        "question": "Who founded 'Google'?",
        "cypher": "MATCH (c:Company {name: 'Google'})-[:foundedBy]->(p:Person) "
        "RETURN p.name AS name",
    },
    {"question": "Which startups exist?", "cypher": "MATCH (s:Startup) RETURN s.name AS name"},
    {"question": "Who founded 'Google'?", "cypher": "MATCH (p:Person) RETURN p.name AS name"},
    {"question": "Delete!", "cypher": "MATCH (c:Company) DETACH DELETE c"},
    {
        "question": "Who founded 'Nokia'?",
        "cypher": "MATCH (c:Company {name: 'Nokia'})-[:foundedBy]->(p:Person) "
        "RETURN p.name AS name",
    },
    {"question": "Which companies?", "cypher": "MATCH (c:Company RETURN c"},
]


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def one_line_error(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    prefix = f"kgbench {command}: error: "
    assert err.startswith(prefix), err
    return err[len(prefix) :]


def test_static_gate_needs_no_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(PROFILE), encoding="utf-8")
    tasks = write_jsonl(tmp_path / "tasks.jsonl", TASKS)
    out = tmp_path / "out"
    argv = ["gate", "--tasks", str(tasks), "--schema", str(schema), "--static"]
    assert main([*argv, "--out", str(out), "--uri", DOWN]) == 0
    stdout = capsys.readouterr().out
    assert "candidates              6" in stdout
    assert "accepted                1  (16.7%)" in stdout
    ledger = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert [r["rejected_at"] for r in ledger] == [
        None,
        "schema",  # unknown label
        "diversity",  # the first question again
        "read_only",
        "schema",  # 'Nokia' is no Company.name value
        "syntax",
    ]
    assert all(r["execution"] is None and r["judge"] is None for r in ledger)
    report = json.loads((out / "gate_report.json").read_text())
    assert report["static"] is True
    assert report["funnel"]["candidates"] == 6 and report["funnel"]["schema"] == 2
    assert report["issues"]["unknown_label"] == 1
    assert report["issues"]["unknown_categorical_value"] == 1
    # --static without --schema profiles the graph: that needs the server
    assert main([*argv[:-3], "--static", "--out", str(tmp_path / "o2"), "--uri", DOWN]) == 1
    assert one_line_error(capsys, "gate").startswith(f"cannot reach Neo4j at {DOWN}")


def test_static_gate_dialect_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--dialect 25`` parses Cypher 25 forms (``FILTER``) that the default Cypher 5 refuses
    as syntax errors (G2); a bad value is a usage error."""
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(PROFILE), encoding="utf-8")
    tasks = write_jsonl(
        tmp_path / "tasks.jsonl",
        [
            {
                "question": "Which company is 'Google'?",
                "cypher": "MATCH (c:Company) FILTER c.name = 'Google' RETURN c.name AS name",
            }
        ],
    )
    argv = ["gate", "--tasks", str(tasks), "--schema", str(schema), "--static", "--uri", DOWN]
    rows = {}
    for dialect in (None, "25"):
        out = tmp_path / f"out-{dialect}"
        extra = [] if dialect is None else ["--dialect", dialect]
        assert main([*argv, "--out", str(out), *extra]) == 0
        (rows[dialect],) = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    capsys.readouterr()
    assert rows[None]["rejected_at"] == "syntax"
    assert not rows[None]["validation"]["syntax_valid"]
    assert rows["25"]["validation"]["syntax_valid"] and rows["25"]["validation"]["read_only"]
    assert rows["25"]["rejected_at"] is None
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--out", str(tmp_path / "bad"), "--dialect", "4"])
    assert exc.value.code == 2


def test_missing_task_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "absent.jsonl"
    argv = ["gate", "--tasks", str(missing), "--out", str(tmp_path / "o"), "--uri", DOWN]
    assert main(argv) == 1
    assert one_line_error(capsys, "gate") == f"{missing}: cannot read: No such file or directory"
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            json.dumps(TASKS[0]) + "\n{not json\n",
            r"{path} line 2: invalid JSON at column 2: Expecting property name",
        ),
        (
            json.dumps(TASKS[0]) + "\n\n" + json.dumps({"question": "q", "cypher": 3}) + "\n",
            r"{path} line 3: needs nl_question/gold_cypher or question/cypher strings",
        ),
        (json.dumps(TASKS[0]) + "\n[1, 2]\n", r"{path} line 2: expected a JSON object"),
        ("[" + json.dumps(TASKS[0]) + ", 7]", r"{path} record 1: expected a JSON object"),
        ("", r"{path}: no records"),
    ],
    ids=["bad-json-line", "cypher-not-a-string", "not-an-object", "array-record", "empty"],
)
def test_bad_task_files_name_the_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(text, encoding="utf-8")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(PROFILE), encoding="utf-8")
    argv = ["gate", "--tasks", str(tasks), "--schema", str(schema), "--static"]
    assert main([*argv, "--out", str(tmp_path / "o"), "--uri", DOWN]) == 1
    assert one_line_error(capsys, "gate").startswith(message.format(path=tasks))
    assert not (tmp_path / "o").exists()


def test_bad_schema_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = write_jsonl(tmp_path / "tasks.jsonl", TASKS[:1])
    schema = tmp_path / "schema.json"
    schema.write_text("{", encoding="utf-8")
    argv = ["gate", "--tasks", str(tasks), "--schema", str(schema), "--static"]
    assert main([*argv, "--out", str(tmp_path / "o"), "--uri", DOWN]) == 1
    assert str(schema) in one_line_error(capsys, "gate")


@pytest.mark.parametrize(
    ("weight", "message"),
    [
        ("foo", "--weight 'foo': expected NAME=NUMBER"),
        ("query_signature=high", "--weight 'query_signature=high': expected NAME=NUMBER"),
        ("foo=0.3", 'unknown selection weight "foo"'),
    ],
)
def test_bad_weight_fails_before_connecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], weight: str, message: str
) -> None:
    out = tmp_path / "out"
    argv = ["generate", "pipe", "--uri", DOWN, "--out", str(out), "--weight", weight]
    assert main(argv) == 1
    assert one_line_error(capsys, "generate") == message
    assert not out.exists()


def test_good_weight_reaches_the_connection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["generate", "pipe", "--uri", DOWN, "--out", str(out)]
    assert main([*argv, "--weight", "query_signature=0.3", "--weight", "value_atom=0"]) == 1
    assert one_line_error(capsys, "generate").startswith(f"cannot reach Neo4j at {DOWN}")
    assert not out.exists()


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["gate", "--out", str(tmp_path)],  # --tasks is required
        ["gate", "--tasks", "t.json", "--out", str(tmp_path), "--target", "many"],
        ["generate", "pipe", "--out", str(tmp_path), "--split-mode", "random"],
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert "usage:" in capsys.readouterr().err
