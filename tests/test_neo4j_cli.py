"""`kgbench neo4j start|stop|status`, `kgbench load` and their errors, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from convert_helpers import run_kgbench

pytestmark = pytest.mark.neo4j


kgbench = run_kgbench


def test_load_cli_reports_verified_counts(
    neo4j_server: Any,
    neo4j_driver: Any,
    mini_company_graph: Any,
    mini_company_count_lines: list[str],
    tmp_path: Path,
) -> None:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(mini_company_graph), encoding="utf-8")
    proc = kgbench("load", str(path), "--uri", neo4j_server.uri, "--wipe", "--batch-size", "4")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == mini_company_count_lines
    assert "14 nodes" in proc.stderr and "16 relationships" in proc.stderr
    assert "counts verified" in proc.stderr
    assert neo4j_driver.execute_query("MATCH (n) RETURN count(n) AS c")[0][0]["c"] == 14


def test_load_cli_refuses_invalid_graph(
    neo4j_server: Any, neo4j_driver: Any, mini_company_graph: Any, tmp_path: Path
) -> None:
    mini_company_graph["relations"][3]["subj_id"] = "Company#Q1"
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(mini_company_graph), encoding="utf-8")
    before = neo4j_driver.execute_query("MATCH (n) RETURN count(n) AS c")[0][0]["c"]
    proc = kgbench("load", str(path), "--uri", neo4j_server.uri, "--wipe")
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        f"kgbench load: error: {path}: invalid graph, nothing was written: "
        "relations[3] (rid 3).subj_id: no entity with eid 'Company#Q1'"
    )
    assert neo4j_driver.execute_query("MATCH (n) RETURN count(n) AS c")[0][0]["c"] == before


def test_load_cli_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    path.write_text('{"schema": {}, "entities": [\n  {"eid": }\n]}', encoding="utf-8")
    proc = kgbench("load", str(path), "--uri", "bolt://127.0.0.1:1")
    assert proc.returncode == 1
    assert f"{path}: not JSON: line 2 column 11: Expecting value" in proc.stderr


@pytest.mark.slow
def test_start_status_stop(tmp_path: Path, mini_company_graph: Any) -> None:
    data = tmp_path / "srv"
    status = kgbench("neo4j", "status", "--data", str(data))
    assert (status.returncode, status.stdout.strip()) == (3, "stopped")
    start = kgbench("neo4j", "start", "--data", str(data), "--heap", "512m", "--pagecache", "64m")
    try:
        assert start.returncode == 0, start.stderr
        uri = start.stdout.strip()
        assert uri.startswith("bolt://127.0.0.1:")
        state = json.loads((data / "kgbench-neo4j.json").read_text())
        assert state["uri"] == uri
        status = kgbench("neo4j", "status", "--data", str(data))
        assert (status.returncode, status.stdout.strip()) == (0, uri)
        again = kgbench("neo4j", "start", "--data", str(data))
        assert (again.returncode, again.stdout.strip()) == (0, uri)
        assert "already running" in again.stderr
        graph = tmp_path / "graph.json"
        graph.write_text(json.dumps(mini_company_graph), encoding="utf-8")
        load = kgbench("load", str(graph), "--uri", uri)
        assert load.returncode == 0, load.stderr
    finally:
        stop = kgbench("neo4j", "stop", "--data", str(data))
    assert stop.returncode == 0
    assert "stopped the server" in stop.stderr
    assert not (data / "kgbench-neo4j.json").exists()
    assert "kgbench-neo4j stopped" in (data / "kgbench-neo4j.log").read_text()
    status = kgbench("neo4j", "status", "--data", str(data))
    assert status.returncode == 3
