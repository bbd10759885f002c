"""Issue 18: ``kgbench evaluate`` / ``kgbench score`` never turn a failure that is not the
prediction's into a silent zero.

- an unreachable server, or a server killed or stopped mid-run, stops the evaluation with a
  message and exit code 1 (nothing written); ``--keep-going`` goes on, leaves the tasks hit out
  of the averages, counts them and exits 3;
- a task whose gold query fails is excluded and counted, not scored 0;
- the result cache is keyed by the database's content: a rerun after loading other data (even
  with the same node and relationship counts) recomputes the results and says so;
- empty task / prediction / result files are an error ("nothing to score"), not "EX 0.0000".

Real parts: the session Neo4j (tests/conftest.py), tests/data/cypher (graph.json, tasks.json,
predictions.jsonl), tests/data/graphs/mini_company.json, and a private LocalNeo4j that is killed.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.evaluate.runner import evaluate
from kgbench.neo4j.server import free_port

DATA = Path(__file__).parent / "data" / "cypher"
MINI_COMPANY = Path(__file__).parent / "data" / "graphs" / "mini_company.json"

#: The aggregated metrics of tasks.json + predictions.jsonl (computed by hand in
#: tests/test_evaluate_neo4j.py); excluded tasks must leave them unchanged.
OVERALL = {"execution_accuracy": 0.2222, "psjs": 0.5185, "executable": 0.5556}

#: A read query that runs for minutes (it is never allowed to finish).
SLOW = "UNWIND range(1, 3000000000) AS x WITH x WHERE x % 7 = 123 RETURN count(*) AS n"


def _cli(*args: str) -> list[str]:
    return [
        "evaluate",
        "--tasks",
        args[0],
        "--predictions",
        args[1],
        "--workers",
        "2",
        "--timeout",
        "120",
        *args[2:],
    ]


def _aggregated(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "aggregated_metrics.json").read_text("utf-8"))
    return data


# -- a server that is not there ---------------------------------------------------------------


def test_unreachable_server_stops_with_a_message_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = f"bolt://127.0.0.1:{free_port()}"
    out = tmp_path / "out"
    tasks, preds = str(DATA / "tasks.json"), str(DATA / "predictions.jsonl")
    assert main(_cli(tasks, preds, "--uri", dead, "--out", str(out))) == 1
    err = capsys.readouterr().err
    assert f"cannot reach Neo4j at {dead} for graph 'nba_mini'" in err
    assert "--keep-going" in err and "No result files were written" in err
    assert not (out / "aggregated_metrics.json").exists()
    assert not (out / "result_with_metrics.json").exists()

    # --keep-going: the files are written, nothing is averaged, every task is counted, exit 3
    assert main(_cli(tasks, preds, "--uri", dead, "--out", str(out), "--keep-going")) == 3
    captured = capsys.readouterr()
    assert "9 tasks: 0 scored, 0 excluded (gold query failed), 9 not scored" in captured.out
    assert "not scored because of connection errors" in captured.err
    agg = _aggregated(out)
    assert agg["counts"] == {
        "tasks": 9,
        "scored": 0,
        "excluded_gold_failed": 0,
        "connection_errors": 9,
    }
    assert {(e["qid"], e["reason"]) for e in agg["excluded"]} == {
        (f"t{i}", "connection") for i in range(1, 10)
    }
    assert json.loads((out / "result_with_metrics.json").read_text("utf-8")) == []


# -- gold failures ----------------------------------------------------------------------------


def _with_broken_gold(tmp_path: Path) -> tuple[Path, Path]:
    """tasks.json plus a task whose gold query fails at run time (an integer division by zero),
    with a valid prediction; predictions.jsonl plus that prediction."""
    tasks = json.loads((DATA / "tasks.json").read_text("utf-8"))
    broken = copy.deepcopy(tasks[0])
    broken.update(
        qid="broken",
        gold_cypher="MATCH (n:Player) WITH DISTINCT n RETURN size(n.name) / 0 AS x",
    )
    tasks.insert(3, broken)
    tasks_path = tmp_path / "tasks.json"
    tasks_path.write_text(json.dumps(tasks), encoding="utf-8")
    preds_path = tmp_path / "predictions.jsonl"
    preds_path.write_text(
        (DATA / "predictions.jsonl").read_text("utf-8")
        + json.dumps({"qid": "broken", "pred_cypher": "MATCH (n:Player) RETURN n.height_cm"})
        + "\n",
        encoding="utf-8",
    )
    return tasks_path, preds_path


@pytest.mark.neo4j
def test_a_failing_gold_query_excludes_the_task_instead_of_scoring_0(
    neo4j_server: Any,
    neo4j_load: Callable[[Any], Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    neo4j_load(DATA / "graph.json")
    tasks, preds = _with_broken_gold(tmp_path)
    logged: list[str] = []
    result = evaluate(
        tasks, preds, uri=neo4j_server.uri, workers=2, timeout_s=30, log=logged.append
    )
    # the nine good tasks give exactly the numbers they give alone: the broken one is not a 0
    assert result.aggregated["overall"] == OVERALL
    assert result.counts == {
        "tasks": 10,
        "scored": 9,
        "excluded_gold_failed": 1,
        "connection_errors": 0,
    }
    assert [r["qid"] for r in result.records] == [f"t{i}" for i in range(1, 10)]
    (excluded,) = result.excluded
    assert excluded["qid"] == "broken" and excluded["reason"] == "gold_failed"
    assert excluded["error_class"] == "semantic/type" and "by zero" in excluded["error"]
    assert any("1 task(s) excluded because their gold query failed" in m for m in logged)
    assert "gold" not in result.error_counts

    # PSJS alone runs only the gold's MATCH part (fine above); a gold whose MATCH part cannot
    # be found (it does not parse) excludes the task from PSJS too
    tasks_data = json.loads(tasks.read_text("utf-8"))
    tasks_data[3]["gold_cypher"] = "MATCH (n:Player RETURN n.name"
    unparsable = tmp_path / "unparsable.json"
    unparsable.write_text(json.dumps(tasks_data), encoding="utf-8")
    psjs = evaluate(unparsable, preds, uri=neo4j_server.uri, metrics="psjs", workers=2)
    assert psjs.aggregated["overall"] == {"psjs": OVERALL["psjs"]}
    assert psjs.counts["excluded_gold_failed"] == 1
    assert (psjs.excluded[0]["qid"], psjs.excluded[0]["error_class"]) == ("broken", "parse")

    # the CLI: exit 0 (the run is complete), the counts and the excluded task in the file
    out = tmp_path / "out"
    code = main(_cli(str(tasks), str(preds), "--uri", neo4j_server.uri, "--out", str(out)))
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.startswith("10 tasks: 9 scored, 1 excluded (gold query failed), 0 not scored")
    assert "gold_failed: semantic/type" in printed
    agg = _aggregated(out)
    assert agg["overall"] == OVERALL
    assert list(agg)[:4] == ["overall", "by_graph", "by_match", "by_return"]
    assert agg["counts"]["excluded_gold_failed"] == 1
    assert [e["qid"] for e in agg["excluded"]] == ["broken"]
    records = json.loads((out / "result_with_metrics.json").read_text("utf-8"))
    assert "broken" not in {r["qid"] for r in records}


# -- the result cache follows the database's content -------------------------------------------

#: Predictions equivalent to the gold queries (never the same strings): EX 1 on any graph, as
#: long as gold and prediction run on the same data.
EQUIVALENT = {
    "t1": "MATCH (p:Player)-[:playsFor]->(t:Team {name: 'Toronto Raptors'}) RETURN DISTINCT p.name",
    "t3": "MATCH (t:Team {name: 'Chicago Bulls'}) RETURN t.name, t.inception_year",
    "t4": "MATCH (p:Player) RETURN p.name ORDER BY p.height_cm DESC",
    "t8": "MATCH (t:Team) RETURN DISTINCT t.inception_year",
    "t9": "MATCH (t:Team) RETURN t.name",
}


def _renamed_graph(tmp_path: Path) -> Path:
    """graph.json with the same nodes and relationships (the same counts per label and type)
    but other values: a player and a team renamed, a founding year changed."""
    graph = json.loads((DATA / "graph.json").read_text("utf-8"))
    for ent in graph["entities"]:
        if ent["name"] == "Alice Archer":
            ent["name"] = "Alicia Archer"
        elif ent["name"] == "Boston Celtics":
            ent["name"] = "Boston Greens"
        elif ent["name"] == "Chicago Bulls":
            ent["properties"]["inception_year"] = 1967
    path = tmp_path / "graph_b.json"
    path.write_text(json.dumps(graph), encoding="utf-8")
    return path


@pytest.mark.neo4j
def test_result_cache_is_discarded_when_the_database_changes(
    neo4j_server: Any,
    neo4j_load: Callable[[Any], Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tasks = [
        t for t in json.loads((DATA / "tasks.json").read_text("utf-8")) if t["qid"] in EQUIVALENT
    ]
    tasks_path = tmp_path / "tasks.json"
    tasks_path.write_text(json.dumps(tasks), encoding="utf-8")
    preds_path = tmp_path / "preds.jsonl"
    preds_path.write_text(
        "".join(json.dumps({"qid": q, "pred_cypher": p}) + "\n" for q, p in EQUIVALENT.items()),
        encoding="utf-8",
    )
    out = tmp_path / "out"  # the same --out, so the same OUT/cache, in every run
    argv = _cli(str(tasks_path), str(preds_path), "--uri", neo4j_server.uri, "--out", str(out))

    def run() -> tuple[float, str]:
        assert main(argv) == 0
        err = capsys.readouterr().err
        return _aggregated(out)["overall"]["execution_accuracy"], err

    # graph A: a new cache
    neo4j_load(DATA / "graph.json")
    ex, err = run()
    assert ex == 1.0
    assert "nba_mini.cache.jsonl (graph 'nba_mini'): new" in err
    # same data again: the cache is used
    ex, err = run()
    assert ex == 1.0
    assert "nba_mini.cache.jsonl (graph 'nba_mini'): " in err
    assert "cached results reused (database unchanged: 11 nodes, 11 relationships)" in err
    again = evaluate(
        tasks_path,
        preds_path,
        uri=neo4j_server.uri,
        metrics="ex",
        cache_dir=out / "cache",
    )
    assert again.cache["nba_mini"]["status"] == "reused"
    # no query of nba_mini was run: its 3 gold and 3 predicted queries came from the cache
    assert again.cache["nba_mini"]["hits"] == 6

    # graph B: same counts per label and type, other values -> the stale results are dropped
    neo4j_load(_renamed_graph(tmp_path))
    ex, err = run()
    assert ex == 1.0  # with the stale gold results of A it would be 0.0
    assert "the database changed since the cache was written (same counts" in err
    assert "stale results discarded" in err

    # another graph with other counts: the message says what changed
    neo4j_load(MINI_COMPANY)
    ex, err = run()
    assert ex == 1.0  # gold and predictions all empty here
    assert "nodes 11 -> 14, relationships 11 -> 16" in err
    lines = [
        json.loads(x)
        for x in (out / "cache" / "nba_mini.cache.jsonl").read_text("utf-8").splitlines()
    ]
    assert lines and all(d["db"]["nodes"] == 14 for d in lines)  # only the current content


# -- a server that dies during the run ---------------------------------------------------------


def _stop_when_running(
    server: Any, stop: Callable[[], None]
) -> tuple[threading.Thread, dict[str, Any]]:
    """A thread that waits until :data:`SLOW` runs on ``server`` (SHOW TRANSACTIONS), then
    calls ``stop`` — so the server dies while that query runs, never before."""
    import neo4j

    state: dict[str, Any] = {"stopped": False}
    uri = server.uri

    def watch() -> None:
        deadline = time.monotonic() + 120
        with neo4j.GraphDatabase.driver(uri, auth=None) as driver:
            while time.monotonic() < deadline:
                rows, _, _ = driver.execute_query(
                    "SHOW TRANSACTIONS YIELD currentQuery RETURN currentQuery"
                )
                if any("range(1, 3000000000)" in (r[0] or "") for r in rows):
                    time.sleep(0.3)
                    stop()
                    state["stopped"] = True
                    return
                time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread, state


@pytest.mark.neo4j
@pytest.mark.slow
def test_server_lost_mid_run_stops_or_with_keep_going_is_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kgbench.neo4j import LocalNeo4j, load_graph

    # the nine tasks first (graphs nba_mini, nba_mini_b), then one on graph "slow" whose gold
    # query runs until the server dies
    tasks = json.loads((DATA / "tasks.json").read_text("utf-8"))
    tasks.append({"qid": "slow", "graph": "slow", "gold_cypher": SLOW})
    tasks_path = tmp_path / "tasks.json"
    tasks_path.write_text(json.dumps(tasks), encoding="utf-8")
    preds_path = tmp_path / "preds.jsonl"
    preds_path.write_text(
        (DATA / "predictions.jsonl").read_text("utf-8")
        + json.dumps({"qid": "slow", "pred_cypher": "RETURN 1 AS n"})
        + "\n",
        encoding="utf-8",
    )
    # a server of its own: the test kills and stops it mid-run (the session's must stay up)
    server = LocalNeo4j(data_dir=tmp_path / "db", heap="512m", pagecache="64m")
    try:
        server.start()
        with server.driver() as driver:
            load_graph(str(DATA / "graph.json"), driver, wipe=True, progress=False)

        # killed (SIGKILL) while the slow gold query runs: exit 1, a message, nothing written
        out = tmp_path / "out"
        uri = server.uri
        argv = _cli(str(tasks_path), str(preds_path), "--uri", uri, "--out", str(out))
        thread, state = _stop_when_running(server, server.kill)
        code = main(argv)
        thread.join(timeout=60)
        assert state["stopped"]
        err = capsys.readouterr().err
        assert code == 1
        assert f"lost the connection to Neo4j at {uri} (graph 'slow')" in err
        assert "while running the gold queries" in err
        assert "(9 of 10 tasks scored before)" in err and "--keep-going" in err
        assert not (out / "aggregated_metrics.json").exists()

        # stopped cleanly (SIGTERM) with --keep-going: the nine are scored as before, the
        # tenth is counted as a connection error, exit 3
        server.start()
        argv = _cli(
            str(tasks_path), str(preds_path), "--uri", server.uri, "--out", str(out), "--keep-going"
        )
        thread, state = _stop_when_running(server, server.stop)
        code = main(argv)
        thread.join(timeout=150)
        assert state["stopped"]
        captured = capsys.readouterr()
        assert code == 3
        assert "1 of 10 tasks were not scored because of connection errors" in captured.err
        assert "cached results reused (database unchanged" in captured.err
        agg = _aggregated(out)
        assert agg["overall"] == OVERALL
        assert agg["counts"] == {
            "tasks": 10,
            "scored": 9,
            "excluded_gold_failed": 0,
            "connection_errors": 1,
        }
        (lost,) = agg["excluded"]
        assert (lost["qid"], lost["reason"], lost["error_class"]) == (
            "slow",
            "connection",
            "connection",
        )
    finally:
        server.stop()


# -- nothing to score -------------------------------------------------------------------------


def test_empty_task_or_prediction_file_is_nothing_to_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n  \n", encoding="utf-8")
    out = tmp_path / "out"
    uri = f"bolt://127.0.0.1:{free_port()}"  # never contacted: the files are checked first
    argv = _cli(str(empty), str(DATA / "predictions.jsonl"), "--uri", uri, "--out", str(out))
    assert main(argv) == 1
    assert f"{empty}: no task records: nothing to score" in capsys.readouterr().err
    assert main(_cli(str(DATA / "tasks.json"), str(empty), "--uri", uri, "--out", str(out))) == 1
    assert f"{empty}: no prediction records: nothing to score" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(InputError, match="no task records"):
        evaluate([], uri=uri)

    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"qid": "a", "rows": [[1]]}\n', encoding="utf-8")
    scores = tmp_path / "scores.jsonl"
    assert main(["score", "--gold", str(empty), "--pred", str(gold)]) == 1
    captured = capsys.readouterr()
    assert f"--gold {empty}: no result lines: nothing to score" in captured.err
    assert "EX" not in captured.out
    assert main(["score", "--gold", str(gold), "--pred", str(empty), "--out", str(scores)]) == 1
    assert "no result lines: nothing to score" in capsys.readouterr().err
    assert not scores.exists()
    assert main(["score", "--gold", str(gold), "--pred", str(gold)]) == 0
    assert "EX                1.0000  (1 / 1)" in capsys.readouterr().out
