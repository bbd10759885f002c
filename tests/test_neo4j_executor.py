"""The read-only query executor (kgbench.neo4j.QueryExecutor) on the real local Neo4j."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest

from kgbench.neo4j import ERROR_CLASSES, LocalNeo4j, QueryExecutor, QueryResult
from kgbench.neo4j.executor import write_clauses_of
from kgbench.neo4j.server import free_port

pytestmark = pytest.mark.neo4j


@pytest.fixture
def loaded(neo4j_load: Any, mini_company_graph: Any) -> None:
    neo4j_load(mini_company_graph)


def test_rows_are_plain_python(loaded: None, neo4j_driver: Any) -> None:
    ex = QueryExecutor(neo4j_driver, timeout_s=30, workers=2)
    res = ex.run(
        "MATCH (p:Person {name: 'Werner von Siemens'}) "
        "RETURN p.name AS name, p.date_of_birth AS born, p.country_of_citizenship AS cit, "
        "{d: p.date_of_death, n: [1, 2.5, null]} AS m"
    )
    assert res.ok and res.error_class is None and res.error is None
    assert res.columns == ["name", "born", "cit", "m"]
    assert res.rows == [
        ["Werner von Siemens", "1816-12-13", ["Germany"], {"d": "1892-12-06", "n": [1, 2.5, None]}]
    ]
    assert res.elapsed_s > 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.rows = []  # type: ignore[misc]


def test_nodes_relationships_paths(loaded: None, neo4j_driver: Any) -> None:
    ex = QueryExecutor(neo4j_driver)
    res = ex.run(
        "MATCH p = (c:Company {name: 'Google'})-[r:subsidiaryOf]->(a:Company) "
        "RETURN c, r, p, elementId(c) AS cid, elementId(a) AS aid"
    )
    assert res.ok, res.error
    (node, rel, path, cid, aid) = res.rows[0]
    assert node["element_id"] == cid and node["labels"] == ["Company"]
    assert node["properties"]["eid"] == "Company#Q95"
    assert node["properties"]["launch_year"] == 1998
    assert rel["type"] == "subsidiaryOf" and (rel["start"], rel["end"]) == (cid, aid)
    assert rel["properties"] == {"rid": "4", "provenance": []}
    assert [n["element_id"] for n in path["nodes"]] == [cid, aid]
    assert [r["element_id"] for r in path["relationships"]] == [rel["element_id"]]
    json.dumps(res.rows)  # plain values serialise


def test_run_many_keeps_order_and_mixes_outcomes(loaded: None, neo4j_driver: Any) -> None:
    ex = QueryExecutor(neo4j_driver, timeout_s=30, workers=4)
    queries = [f"RETURN {i} AS i" for i in range(20)] + ["MATCH (n RETURN n"]
    results = ex.run_many(queries)
    assert [r.query for r in results] == queries
    assert [r.rows for r in results[:20]] == [[[i]] for i in range(20)]
    assert results[20].error_class == "syntax"


@pytest.mark.parametrize(
    ("query", "error_class", "fragment"),
    [
        ("MATCH (n RETURN n", "syntax", "Invalid input"),
        ("MATC (n) RETURN n", "syntax", "Invalid input"),
        ("MATCH (n) RETURN n.name +", "syntax", ""),
        ("MATCH (n) RETURN m", "semantic/type", "Variable `m` not defined"),
        ("RETURN [1, 2]['x']", "semantic/type", "Type mismatch"),
        ("RETURN toInteger([1])", "semantic/type", "toInteger"),
        ("RETURN 1 / 0", "semantic/type", "/ by zero"),
        (
            "MATCH (p:Person) WHERE p.date_of_birth > date('2020-13-01') RETURN p",
            "semantic/type",
            "",
        ),
        ("CALL db.index.fulltext.queryNodes('nope', 'x')", "client", "queryNodes"),
        ("MATCH (n) RETURN n SKIP -1", "semantic/type", "not a valid value"),
        ("RETURN nosuch.fn(1)", "semantic/type", "Unknown function"),
        ("RETURN 'a\ud800'", "client", "not valid Unicode"),
        ("RETURN $missing", "semantic/type", "missing"),
    ],
)
def test_error_classes(
    loaded: None, neo4j_driver: Any, query: str, error_class: str, fragment: str
) -> None:
    res = QueryExecutor(neo4j_driver, timeout_s=30).run(query)
    assert not res.ok
    assert res.error_class == error_class, res.error
    assert res.rows == [] and res.columns == []
    assert fragment in (res.error or "")


def test_timeout(neo4j_driver: Any) -> None:
    ex = QueryExecutor(neo4j_driver, timeout_s=1.0)
    t0 = time.perf_counter()
    res = ex.run("UNWIND range(1, 1000000000) AS x WITH x WHERE x % 7 = 123 RETURN count(*)")
    assert res.error_class == "timeout", res.error
    assert time.perf_counter() - t0 < 30


def test_database_error_on_memory_limit(neo4j_driver: Any) -> None:
    # The session server limits a transaction to 256 MiB (conftest); exceeding it is a
    # Neo.TransientError.General.MemoryPoolOutOfMemoryError: class "database".
    res = QueryExecutor(neo4j_driver, timeout_s=60).run(
        "UNWIND range(1, 40000000) AS x RETURN size(collect(x)) AS n"
    )
    assert res.error_class == "database", res.error


def test_connection_error_without_server() -> None:
    import neo4j

    port = free_port()
    with neo4j.GraphDatabase.driver(f"bolt://127.0.0.1:{port}", auth=None) as drv:
        res = QueryExecutor(drv, timeout_s=5).run("RETURN 1")
    assert res.error_class == "connection"
    assert res.error


WRITES = [
    "CREATE (n:Injected {name: 'x'}) RETURN n",
    "MATCH (n:Company) SET n.name = 'hacked'",
    "MATCH (n:Company {name: 'Google'}) DETACH DELETE n",
    "MATCH (n:Company) REMOVE n.launch_year",
    "MERGE (n:Company {name: 'Google'}) ON MATCH SET n.x = 1",
    "CALL db.createLabel('Injected')",
    "MATCH (n:Company) WITH n CALL { WITH n SET n.flag = true } RETURN count(*)",
    "CALL no.such.procedure()",
    "LOAD CSV FROM 'https://example.org/x.csv' AS line RETURN line",
]


@pytest.mark.parametrize("query", WRITES)
def test_writes_never_change_the_database(loaded: None, neo4j_driver: Any, query: str) -> None:
    dump = "MATCH (n) RETURN n.eid AS e, properties(n) AS p ORDER BY e"
    before = neo4j_driver.execute_query(dump)[0]
    labels_before = neo4j_driver.execute_query("CALL db.labels()")[0]
    res = QueryExecutor(neo4j_driver, timeout_s=30).run(query)
    assert res.error_class == "write", res.error
    assert neo4j_driver.execute_query(dump)[0] == before
    assert neo4j_driver.execute_query("CALL db.labels()")[0] == labels_before


def test_load_csv_cannot_read_local_files(neo4j_driver: Any) -> None:
    res = QueryExecutor(neo4j_driver, timeout_s=30).run(
        "LOAD CSV FROM 'file:///etc/hostname' AS line RETURN line"
    )
    assert not res.ok
    assert res.error_class in ("write", "client")


def test_parser_gate_refuses_before_sending(neo4j_driver: Any) -> None:
    assert write_clauses_of("MATCH (n) RETURN n") == []
    res = QueryExecutor(neo4j_driver).run("MATCH (n) SET n.x = 1")
    assert res.error_class == "write"
    assert (res.error or "").startswith("refused before sending")
    assert res.elapsed_s == 0.0


def test_cache_round_trip(loaded: None, neo4j_driver: Any, tmp_path: Path) -> None:
    cache = tmp_path / "cache.jsonl"
    queries = [
        "MATCH (p:Person) WHERE p.date_of_birth < date('1900-01-01') "
        "RETURN p.name, p.date_of_birth",
        "MATCH (n RETURN n",
    ]
    first = QueryExecutor(neo4j_driver, cache_path=cache, graph="mini_company").run_many(queries)
    lines = [json.loads(x) for x in cache.read_text().splitlines()]
    assert sorted((d["graph"], d["query"]) for d in lines) == sorted(
        ("mini_company", q) for q in queries
    )
    assert first[0].rows == [["Werner von Siemens", "1816-12-13"]]
    # A new executor answers from the cache without touching the server (closed driver here).
    import neo4j

    dead = neo4j.GraphDatabase.driver(f"bolt://127.0.0.1:{free_port()}", auth=None)
    dead.close()
    again = QueryExecutor(dead, cache_path=cache, graph="mini_company").run_many(queries)
    assert again == first
    # the graph name is part of the key
    other = QueryExecutor(dead, cache_path=cache, graph="other").run(queries[0])
    assert other.error_class == "connection"
    assert len(cache.read_text().splitlines()) == 2  # connection failures are not cached


def test_result_fields() -> None:
    r = QueryResult(query="q", columns=[], rows=[], error_class="timeout", error="e", elapsed_s=1)
    assert not r.ok
    assert set(ERROR_CLASSES) == {
        "syntax", "semantic/type", "timeout", "client", "database", "connection", "write"
    }  # fmt: skip


@pytest.mark.slow
def test_dead_server_mid_run(tmp_path: Path) -> None:
    import threading

    import neo4j

    # a server of its own: the test kills it (the session's must stay up for the others)
    with LocalNeo4j(data_dir=tmp_path / "db", heap="512m", pagecache="64m") as server:
        drv = neo4j.GraphDatabase.driver(server.uri, auth=None)
        ex = QueryExecutor(drv, timeout_s=60, workers=2)
        assert ex.run("RETURN 1").rows == [[1]]
        slow = "UNWIND range(1, 3000000000) AS x WITH x WHERE x % 7 = 123 RETURN count(*)"
        killer = threading.Timer(3.0, server.kill)
        killer.start()
        t0 = time.perf_counter()
        results = ex.run_many(["RETURN 2", slow, slow, slow])
        killer.join()
        elapsed = time.perf_counter() - t0
        after = ex.run("RETURN 3")
        drv.close()
    assert [r.query for r in results] == ["RETURN 2", slow, slow, slow]
    assert results[0].rows == [[2]]  # ran before the kill
    assert {r.error_class for r in results[1:]} == {"connection"}
    assert after.error_class == "connection"
    assert elapsed < 60  # nobody waited for the timeout
