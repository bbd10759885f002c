"""``evaluate`` / ``kgbench evaluate`` end to end on a real loaded graph.

tests/data/cypher: graph.json ("nba_mini"), tasks.json (9 tasks on graphs "nba_mini" and
"nba_mini_b", both served by the test server) and predictions.jsonl. Expected values were
computed by hand (see the comments per task).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgbench import __version__
from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.evaluate.runner import evaluate

pytestmark = pytest.mark.neo4j

DATA = Path(__file__).parent / "data" / "cypher"

# qid: (execution_accuracy, psjs, executable)
EXPECTED = {
    "t1": (1.0, 1.0, 1.0),  # renamed variables, RETURN DISTINCT: same rows, same nodes
    "t2": (0.0, 1.0, 1.0),  # extra column: EX 0, same provenance {Alice, Carl, Celtics}
    "t3": (1.0, 1.0, 1.0),  # identical string
    "t4": (0.0, 1.0, 1.0),  # ORDER BY reversed and the gold has ORDER BY: EX 0
    "t5": (0.0, 0.0, 0.0),  # syntax error
    "t6": (0.0, 0.0, 0.0),  # write query: never executed
    "t7": (0.0, 2 / 3, 1.0),  # gold {Carl, MVP}, pred {Alice, Carl, MVP}; <end_of_turn> stripped
    "t8": (0.0, 0.0, 0.0),  # no prediction
    "t9": (0.0, 0.0, 0.0),  # blank prediction
}

AGGREGATED = {
    "overall": {"execution_accuracy": 0.2222, "psjs": 0.5185, "executable": 0.5556},
    "by_graph": {"nba_mini": 0.2857, "nba_mini_b": 0.0},
    "by_match": {"basic_(n)-(m0*)": 0.3333, "basic_(n)": 0.2, "special_union": 0.0},
    "by_return": {
        "n_name": 0.5,
        "n_prop_combined": 0.3333,
        "n_order_by": 0.0,
        "n_agg": 0.0,
        "n_where": 0.0,
    },
}


@pytest.fixture(scope="module")
def uri(neo4j_server: Any, neo4j_driver: Any) -> Iterator[str]:
    from kgbench.neo4j import load_graph

    load_graph(str(DATA / "graph.json"), neo4j_driver, wipe=True, progress=False)
    yield neo4j_server.uri


def test_evaluate_api(uri: str, tmp_path: Path) -> None:
    result = evaluate(
        DATA / "tasks.json",
        DATA / "predictions.jsonl",
        graph_uris={"nba_mini": uri, "nba_mini_b": uri},
        workers=2,
        timeout_s=30,
        cache_dir=tmp_path / "cache",
    )
    got = {
        r["qid"]: tuple(r["metrics"][m] for m in ("execution_accuracy", "psjs", "executable"))
        for r in result.records
    }
    assert got == EXPECTED
    assert result.aggregated == AGGREGATED
    assert list(result.aggregated["by_return"]) == list(AGGREGATED["by_return"])
    errors = {r["qid"]: r["errors"] for r in result.records}
    assert errors["t1"] == {} and errors["t3"] == {}
    assert errors["t5"]["psjs"]["error_class"] == "parse"
    assert errors["t5"]["executable"]["error_class"]
    assert {e["error_class"] for e in errors["t6"].values()} == {"write"}
    assert {e["error_class"] for e in errors["t8"].values()} == {"missing"}
    assert {e["error_class"] for e in errors["t9"].values()} == {"empty"}
    assert result.error_counts == {"syntax": 1, "parse": 1, "write": 1, "missing": 1, "empty": 1}
    # The prediction was cleaned as CypherBench does.
    assert result.records[6]["pred_cypher"].endswith("RETURN n.name")
    rerun = evaluate(
        DATA / "tasks.json",
        DATA / "predictions.jsonl",
        uri=uri,
        metrics="ex",
        workers=1,
        gold_cache_dir=tmp_path / "cache",  # the former name of cache_dir
    )
    assert rerun.aggregated["overall"] == {"execution_accuracy": 0.2222}
    assert any((tmp_path / "cache").iterdir())


def test_cli_writes_cypherbench_files(uri: str, tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "out"
    code = main(
        [
            "evaluate",
            "--tasks",
            str(DATA / "tasks.json"),
            "--predictions",
            str(DATA / "predictions.jsonl"),
            "--uri",
            uri,
            "--workers",
            "2",
            "--timeout",
            "30",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    aggregated = json.loads((out / "aggregated_metrics.json").read_text())
    # kgbench's additions after CypherBench's keys (formats.md §6)
    assert aggregated.pop("counts") == {
        "tasks": 9,
        "scored": 9,
        "excluded_gold_failed": 0,
        "connection_errors": 0,
    }
    assert aggregated.pop("excluded") == []
    ci95 = aggregated.pop("ci95")
    assert list(ci95) == ["execution_accuracy", "psjs", "executable"]
    for metric, (low, high) in ci95.items():
        assert 0.0 <= low <= AGGREGATED["overall"][metric] <= high <= 1.0
    # every gold result of the nine tasks is informative (metrics.md §1)
    assert aggregated.pop("informative") == {
        "overall": AGGREGATED["overall"],
        "tasks": 9,
        "uninformative": 0,
        "by_reason": {},
    }
    # the family and the version that wrote the file (issue 40)
    assert aggregated.pop("family") == "cypherbench"
    assert aggregated.pop("kgbench_version") == __version__
    assert aggregated == AGGREGATED
    records = json.loads((out / "result_with_metrics.json").read_text())
    assert [r["qid"] for r in records] == [f"t{i}" for i in range(1, 10)]
    assert list(records[0])[:10] == [
        "qid",
        "graph",
        "gold_cypher",
        "gold_match_cypher",
        "nl_question",
        "nl_question_raw",
        "answer_json",
        "from_template",
        "pred_cypher",
        "metrics",
    ]
    assert records[6]["metrics"]["psjs"] == 2 / 3
    printed = capsys.readouterr().out
    assert "execution_accuracy" in printed and "0.2222" in printed and "n_prop_combined" in printed


def test_unknown_graph_is_an_error_naming_the_record(uri: str) -> None:
    with pytest.raises(InputError, match=r"qid 't8'.*unknown graph 'nba_mini_b'"):
        evaluate(DATA / "tasks.json", DATA / "predictions.jsonl", graph_uris={"nba_mini": uri})


def test_predictions_inside_the_task_records(uri: str) -> None:
    tasks = json.loads((DATA / "tasks.json").read_text())[:2]
    tasks[0]["pred_cypher"] = tasks[0]["gold_cypher"]
    tasks[1]["pred_cypher"] = "MATCH (n:Player) RETURN n.name"
    result = evaluate(tasks, uri=uri, metrics="psjs,exec", workers=1)
    assert [r["metrics"] for r in result.records] == [
        {"psjs": 1.0, "executable": 1.0},
        # gold {Alice, Carl, Celtics} vs all 4 players: 2/5
        {"psjs": 0.4, "executable": 1.0},
    ]
    # The aggregation metric falls back to the first computed one (psjs).
    assert result.aggregated["by_graph"] == {"nba_mini": 0.7}


def test_returned_nodes_are_compared_as_maps(uri: str) -> None:
    """metrics.md §1: a returned node is the map of its element id, labels and properties. It
    equals the same node returned by another query, and not its name: EX 0 with no error."""
    gold_nodes = "MATCH (n:Team) RETURN n"
    gold_names = "MATCH (n:Team) RETURN n.name"
    tasks = [
        {"qid": "nodes", "graph": "nba_mini", "nl_question": "?", "gold_cypher": gold_nodes},
        {"qid": "names", "graph": "nba_mini", "nl_question": "?", "gold_cypher": gold_names},
    ]
    preds = {"nodes": "MATCH (team:Team) RETURN team", "names": "MATCH (t:Team) RETURN t"}
    result = evaluate(tasks, preds, uri=uri, metrics="ex,exec", workers=1)
    by_qid = {r["qid"]: r for r in result.records}
    assert by_qid["nodes"]["metrics"] == {"execution_accuracy": 1.0, "executable": 1.0}
    assert by_qid["names"]["metrics"] == {"execution_accuracy": 0.0, "executable": 1.0}
    assert by_qid["names"]["errors"] == {}
