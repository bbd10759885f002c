"""``kgbench evaluate`` with several prediction files: one pass over a real Neo4j, the same
per-run results as single runs, each distinct query sent once, a leaderboard with intervals
and paired tests (issue 32)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgbench.errors import InputError
from kgbench.evaluate.multirun import (
    evaluate_runs,
    mcnemar_exact,
    paired_comparison,
    parse_run_specs,
)
from kgbench.evaluate.runner import evaluate

DATA = Path(__file__).parent / "data" / "cypher"


def test_run_names_and_duplicates(tmp_path: Path) -> None:
    assert parse_run_specs(["a=x/p.json", "out/gpt4/result.json", "q.jsonl"]) == [
        ("a", Path("x/p.json")),
        ("gpt4", Path("out/gpt4/result.json")),
        ("q", Path("q.jsonl")),
    ]
    with pytest.raises(InputError, match=r"named 'p'.*x/p\.json and y/p\.json"):
        parse_run_specs(["x/p.json", "y/p.json"])


def test_mcnemar_and_paired_comparison() -> None:
    """McNemar's exact test by hand: 0 vs 6 discordant tasks gives 2 / 2**6; identical runs
    give a zero difference with p 1; non-binary scores take the paired bootstrap."""
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)
    assert mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(0, 0) == 1.0
    same = paired_comparison([1, 0, 1, 1], [1, 0, 1, 1])
    assert same["difference"] == 0.0 and same["p_value"] == 1.0 and same["test"] == "mcnemar"
    better = paired_comparison([1.0] * 30, [0.0] * 30)
    assert better["difference"] == 1.0 and better["a_only"] == 30 and better["p_value"] < 1e-8
    graded = paired_comparison([0.5, 0.7, 0.9, 0.6] * 10, [0.1, 0.2, 0.3, 0.2] * 10)
    assert graded["test"] == "paired_bootstrap" and graded["p_value"] == 0.0
    assert graded["ci95"][0] < graded["difference"] < graded["ci95"][1]
    assert paired_comparison([], [])["p_value"] is None


@pytest.fixture(scope="module")
def uri(neo4j_server: Any, neo4j_driver: Any) -> Iterator[str]:
    from kgbench.neo4j import load_graph

    load_graph(str(DATA / "graph.json"), neo4j_driver, wipe=True, progress=False)
    yield neo4j_server.uri


def _gold_predictions(tmp_path: Path) -> tuple[list[dict[str, Any]], Path]:
    """The test tasks and ``tmp_path/gold.jsonl``: a prediction file answering every task with
    its gold query."""
    tasks = json.loads((DATA / "tasks.json").read_text(encoding="utf-8"))
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "".join(
            json.dumps({"qid": t["qid"], "pred_cypher": t["gold_cypher"]}) + "\n" for t in tasks
        ),
        encoding="utf-8",
    )
    return tasks, gold


@pytest.mark.neo4j
def test_one_pass_equals_single_runs_and_sends_each_query_once(uri: str, tmp_path: Path) -> None:
    graphs = {"nba_mini": uri, "nba_mini_b": uri}
    _tasks, gold = _gold_predictions(tmp_path)
    extra = tmp_path / "extra.jsonl"
    extra.write_text(
        (DATA / "predictions.jsonl").read_text(encoding="utf-8")
        + json.dumps({"qid": "zz", "pred_cypher": "RETURN 1"})
        + "\n",
        encoding="utf-8",
    )
    runs = [("model", DATA / "predictions.jsonl"), ("oracle", gold), ("same", extra)]

    single = {
        name: evaluate(DATA / "tasks.json", path, graph_uris=graphs, workers=2)
        for name, path in runs
    }
    single_sent = sum(r.queries_sent for r in single.values())
    multi = evaluate_runs(DATA / "tasks.json", runs, graph_uris=graphs, workers=2)
    for name, _ in runs:
        assert multi.runs[name].records == single[name].records
        assert multi.runs[name].aggregated == single[name].aggregated
    # counted by the executors (QueryExecutor.sent): each distinct query once in the pass
    assert 0 < multi.queries_sent < single_sent
    assert multi.unmatched == {"model": 0, "oracle": 0, "same": 1}

    board = multi.leaderboard
    assert [r["name"] for r in board["runs"]] == ["model", "oracle", "same"]
    assert board["runs"][1]["overall"]["execution_accuracy"] == 1.0
    pairs = {(p["a"], p["b"]): p for p in board["pairs"]}
    assert set(pairs) == {("model", "oracle"), ("model", "same"), ("oracle", "same")}
    same = pairs[("model", "same")]["metrics"]["execution_accuracy"]
    assert same["difference"] == 0.0 and same["p_value"] == 1.0
    worse = pairs[("model", "oracle")]["metrics"]["execution_accuracy"]
    assert worse["difference"] < 0 and worse["test"] == "mcnemar" and worse["b_only"] == 7

    out = tmp_path / "out"
    board_path = multi.write(out)
    assert json.loads(board_path.read_text(encoding="utf-8")) == json.loads(json.dumps(board))
    for name, _ in runs:
        assert (out / name / "result_with_metrics.json").exists()
        assert (out / name / "aggregated_metrics.json").exists()
    assert "leaderboard (9 tasks" in multi.table()


@pytest.mark.neo4j
def test_cli_several_predictions(uri: str, tmp_path: Path, capsys: Any) -> None:
    from kgbench.cli import main

    graphs = tmp_path / "graphs.json"
    graphs.write_text(json.dumps({"nba_mini": uri, "nba_mini_b": uri}), encoding="utf-8")
    out = tmp_path / "out"
    argv = ["evaluate", "--tasks", str(DATA / "tasks.json"), "--graph-uris", str(graphs)]
    # two different runs: a, the shipped predictions (some wrong), and b, every gold query
    tasks, gold = _gold_predictions(tmp_path)
    argv += ["--predictions", f"a={DATA / 'predictions.jsonl'}"]
    argv += ["--predictions", f"b={gold}", "--out", str(out)]
    assert main(argv) == 0
    board = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert [r["name"] for r in board["runs"]] == ["a", "b"]
    a_agg = json.loads((out / "a" / "aggregated_metrics.json").read_text(encoding="utf-8"))
    a_ex, b_ex = (r["overall"]["execution_accuracy"] for r in board["runs"])
    assert a_ex == a_agg["overall"]["execution_accuracy"] < 1.0 and b_ex == 1.0
    (pair,) = board["pairs"]
    assert (pair["a"], pair["b"], pair["tasks"]) == ("a", "b", len(tasks))
    assert pair["metrics"]["execution_accuracy"]["difference"] == pytest.approx(a_ex - b_ex)
    # the printed ranking: b (every task right) above a
    table = capsys.readouterr().out.split("leaderboard (")[1].splitlines()
    ranked = [line.split()[0] for line in table[2:4]]
    assert ranked == ["b", "a"], table
    same = ["--predictions", str(DATA / "predictions.jsonl")] * 2
    bad = ["evaluate", "--tasks", str(DATA / "tasks.json"), "--uri", uri, *same, "--out", str(out)]
    assert main(bad) == 1
    assert "two prediction files are named 'predictions'" in capsys.readouterr().err
