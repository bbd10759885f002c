"""PIPE-Cypher's EX_set (spec pipe-cypher.md §6): the Rust core through ``kgbench score
--metrics ex_set`` (result files) and ``kgbench evaluate --metrics ex_set`` (a real graph)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgbench._core.evaluate import ex_set
from kgbench.cli import main
from kgbench.errors import InputError

DATA = Path(__file__).parent / "data" / "cypher"


def test_ex_set_rules() -> None:
    # sets: order and duplicates do not matter
    assert ex_set([["a"], ["b"]], [["b"], ["a"], ["a"]], ["x"], ["y"]) == 1.0
    # one column: its name does not matter; several: keyed by name, any column order
    gold = [["Ann", 1], ["Bob", 2]]
    assert ex_set(gold, [[1, "Ann"], [2, "Bob"]], ["name", "n"], ["n", "name"]) == 1.0
    assert ex_set(gold, [[1, "Ann"], [2, "Bob"]], ["name", "n"], ["count", "name"]) == 0.0
    # two empty results score 1; empty vs non-empty 0
    assert ex_set([], [], [], []) == 1.0
    assert ex_set([["a"]], [], ["x"], []) == 0.0
    # numbers compare as numbers, never as strings
    assert ex_set([[1]], [[1.0]], ["x"], ["x"]) == 1.0
    assert ex_set([[1]], [["1"]], ["x"], ["x"]) == 0.0


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_score_cli_ex_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = _jsonl(
        tmp_path / "gold.jsonl",
        [
            {"qid": "a", "columns": ["n", "x"], "rows": [["Ann", 1], ["Bob", 2]]},
            {"qid": "b", "columns": ["v"], "rows": [[1], [1], [2]]},
            {"qid": "c", "rows": [{"name": "Z", "k": 1}]},
            {"qid": "d", "columns": ["v"], "rows": [[1]]},
        ],
    )
    pred = _jsonl(
        tmp_path / "pred.jsonl",
        [
            {"qid": "a", "columns": ["x", "n"], "rows": [[2, "Bob"], [1, "Ann"]]},
            {"qid": "b", "columns": ["w"], "rows": [[2], [1]]},
            {"qid": "c", "rows": [{"k": 1, "label": "Z"}]},
        ],
    )
    out = tmp_path / "scores.jsonl"
    args = ["score", "--gold", str(gold), "--pred", str(pred), "--metrics", "ex,ex_set"]
    assert main([*args, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "EX_set            0.5000" in printed
    assert "EX                0.5000" in printed
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(x["qid"], x["ex"], x["ex_set"], x["status"]) for x in lines] == [
        ("a", 1.0, 1.0, "match"),  # same rows, columns permuted by name
        ("b", 0.0, 1.0, "mismatch"),  # duplicates: a multiset for EX, a set for EX_set
        ("c", 1.0, 0.0, "match"),  # a renamed column: EX matches values, EX_set names
        ("d", 0.0, 0.0, "missing"),
    ]


def test_score_cli_rejects_unknown_metric(tmp_path: Path) -> None:
    gold = _jsonl(tmp_path / "g.jsonl", [{"qid": "a", "rows": []}])
    with pytest.raises(InputError, match="ex_set"):
        from kgbench.evaluate.score_cli import run

        run(
            type(
                "A",
                (),
                {"gold": gold, "pred": gold, "out": None, "rel_tol": None, "metrics": "ex,psjs"},
            )()
        )


@pytest.fixture(scope="module")
def uri(neo4j_server: Any, neo4j_driver: Any) -> Iterator[str]:
    from kgbench.neo4j import load_graph

    load_graph(str(DATA / "graph.json"), neo4j_driver, wipe=True, progress=False)
    yield neo4j_server.uri


@pytest.mark.neo4j
def test_evaluate_ex_set_on_a_real_graph(uri: str, tmp_path: Path) -> None:
    from kgbench.evaluate.runner import evaluate

    result = evaluate(
        DATA / "tasks.json",
        DATA / "predictions.jsonl",
        graph_uris={"nba_mini": uri, "nba_mini_b": uri},
        metrics="ex,ex_set",
        workers=1,
    )
    got = {
        r["qid"]: (r["metrics"]["execution_accuracy"], r["metrics"]["ex_set"])
        for r in result.records
    }
    assert got["t1"] == (1.0, 1.0)  # one column under another name
    assert got["t2"] == (0.0, 0.0)  # an extra column
    assert got["t3"] == (1.0, 1.0)  # identical query
    assert got["t4"] == (0.0, 1.0)  # ORDER BY reversed: EX 0, the sets are equal
    assert got["t6"] == (0.0, 0.0)  # write query, never executed
    assert got["t7"] == (0.0, 0.0)  # {Carl} vs {Alice, Carl}
    assert "ex_set" in result.aggregated["overall"]
