"""Task / prediction files, metric names, graph maps and aggregation (no Neo4j needed)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from kgbench.errors import InputError
from kgbench.evaluate.aggregate import RETURN_PATTERN_MAPPING, aggregate_metrics, mean4
from kgbench.evaluate.provenance import jaccard, prediction_failure
from kgbench.evaluate.runner import load_graph_targets, parse_metrics
from kgbench.tasks import (
    TASK_FIELDS,
    clean_prediction,
    load_predictions,
    load_tasks,
)

DATA = Path(__file__).parent / "data" / "cypher"


def test_load_tasks_json_array_keeps_cypherbench_field_order() -> None:
    tasks = load_tasks(DATA / "tasks.json")
    assert [t["qid"] for t in tasks] == [f"t{i}" for i in range(1, 10)]
    assert tuple(tasks[0])[: len(TASK_FIELDS)] == TASK_FIELDS
    assert tasks[4]["from_template"]["match_category"] == "special_union"


def test_load_tasks_jsonl_and_question_alias(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        json.dumps({"qid": 7, "graph": "g", "gold_cypher": "RETURN 1", "question": "q?"})
        + "\n\n"
        + json.dumps({"qid": "8", "graph": "g", "gold_cypher": "RETURN 2", "extra": 1})
        + "\n"
    )
    tasks = load_tasks(path)
    assert [t["qid"] for t in tasks] == ["7", "8"]
    assert tasks[0]["nl_question"] == "q?"
    assert tasks[1]["extra"] == 1
    assert tasks[0]["metrics"] == {}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"qid": "a", "graph": "g"}]', "record 0 (qid a): field 'gold_cypher'"),
        ('{"qid": "a", "gold_cypher": "RETURN 1"}\n', "line 1 (qid a): field 'graph'"),
        ('{"graph": "g", "gold_cypher": "RETURN 1"}\n', "line 1: field 'qid'"),
        (
            '{"qid": "a", "graph": "g", "gold_cypher": "x"}\n{"qid": "a", "graph": "g", '
            '"gold_cypher": "y"}\n',
            "line 2: duplicate qid 'a'",
        ),
        (
            '{"qid": "a", "graph": "g", "gold_cypher": "x", '
            '"from_template": {"match_category": 1}}',
            "from_template.match_category",
        ),
        ("[1, 2]", "record 0: expected a JSON object"),
        ('{"qid": "a",\n', "line 1: invalid JSON"),
        ('[{"qid": "a"', "invalid JSON at line 1"),
    ],
)
def test_malformed_task_files_name_the_record(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text(content)
    with pytest.raises(InputError) as info:
        load_tasks(path)
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_predictions_file_and_cleaning() -> None:
    preds = load_predictions(DATA / "predictions.jsonl")
    assert "t8" not in preds
    assert preds["t7"] is not None and preds["t7"].endswith("<end_of_turn>")
    assert clean_prediction(preds["t7"]).endswith("RETURN n.name")
    assert clean_prediction(None) == ""
    # Full Nl2CypherSample records work as predictions too.
    records = load_predictions(DATA / "tasks.json")
    assert records["t1"] is None


def test_duplicate_prediction_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"qid": "a", "pred_cypher": "x"}\n{"qid": "a", "pred_cypher": "y"}\n')
    with pytest.raises(InputError, match="line 2: duplicate prediction for qid 'a'"):
        load_predictions(path)


def test_prediction_failures() -> None:
    assert prediction_failure(None).error_class == "missing"  # type: ignore[union-attr]
    assert prediction_failure(" \n").error_class == "empty"  # type: ignore[union-attr]
    failure = prediction_failure("MATCH (n) SET n.x = 1 RETURN n")
    assert failure is not None and failure.error_class == "write"
    assert "SET" in failure.error
    assert prediction_failure("MATCH (n) RETURN n") is None
    # Not Cypher, but not a write either: Neo4j decides (syntax error at execution).
    assert prediction_failure("The answer is 42.") is None


def test_jaccard() -> None:
    assert jaccard(set(), set()) == 0.0
    assert jaccard({"a"}, {"a"}) == 1.0
    assert jaccard({"a", "b", "c"}, {"b", "c", "d"}) == 0.5


def test_parse_metrics() -> None:
    assert parse_metrics("ex,psjs,exec") == ("execution_accuracy", "psjs", "executable")
    assert parse_metrics("PSJS, ex") == ("psjs", "execution_accuracy")
    assert parse_metrics(["executable", "exec"]) == ("executable",)
    with pytest.raises(InputError, match="unknown metric 'bleu'"):
        parse_metrics("ex,bleu")
    with pytest.raises(InputError):
        parse_metrics("")


def test_graph_targets(tmp_path: Path) -> None:
    targets = load_graph_targets(
        {"a": "bolt://h:1", "b": {"uri": "bolt://h:2", "database": "db", "user": "u"}},
        user="x",
        password="p",
    )
    assert targets["a"].uri == "bolt://h:1" and targets["a"].user == "x"
    assert targets["b"].database == "db" and targets["b"].user == "u"
    info = tmp_path / "neo4j_info.json"
    info.write_text(
        json.dumps(
            {
                "full": {
                    "nba": {
                        "host": "localhost",
                        "port": 15095,
                        "username": "neo4j",
                        "password": "pw",
                    }
                }
            }
        )
    )
    nba = load_graph_targets(info)["nba"]
    assert (nba.uri, nba.user, nba.password) == ("bolt://localhost:15095", "neo4j", "pw")
    with pytest.raises(InputError, match="graph 'c'"):
        load_graph_targets({"c": {"database": "x"}})


def _rec(graph: str, cat: str, ret: str, ex: float, psjs: float) -> dict[str, object]:
    return {
        "graph": graph,
        "from_template": {"match_category": cat, "return_pattern_id": ret},
        "metrics": {"execution_accuracy": ex, "psjs": psjs},
    }


def test_aggregation_matches_cypherbench_rules() -> None:
    records = [
        _rec("nba", "basic_(n)", "n_prop", 1.0, 1.0),
        _rec("nba", "basic_(n)", "n_name_prop", 0.0, 0.5),
        _rec("movie", "special_union", "special_union", 1.0, 0.25),
        _rec("nba", "basic_(n)-(m0)", "n_prop_array_distinct", 1.0, 1.0),
        _rec("movie", "basic_(n)", "n_name", 0.0, 1 / 3),
    ]
    agg = aggregate_metrics(records, ["execution_accuracy", "psjs"])
    assert agg["overall"] == {"execution_accuracy": 0.6, "psjs": round(3.0833333 / 5, 4)}
    assert list(agg["by_graph"].items()) == [("nba", 0.6667), ("movie", 0.5)]
    assert agg["by_match"] == {"basic_(n)": 0.3333, "special_union": 1.0, "basic_(n)-(m0)": 1.0}
    # n_prop, n_name_prop and n_prop_array_distinct merge; special templates are left out.
    assert agg["by_return"] == {"n_prop_combined": 0.6667, "n_name": 0.0}
    agg_psjs = aggregate_metrics(records, ["execution_accuracy", "psjs"], "psjs")
    assert agg_psjs["by_graph"]["movie"] == round((0.25 + 1 / 3) / 2, 4)
    with pytest.raises(ValueError):
        aggregate_metrics(records, ["psjs"], "execution_accuracy")
    assert set(RETURN_PATTERN_MAPPING.values()) >= {"n_prop_combined", "n_group_by"}
    assert math.isnan(mean4([]))


def test_cli_argument_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgbench.cli import build_parser, main

    monkeypatch.delenv("KGBENCH_NEO4J_URI", raising=False)
    base = ["evaluate", "--tasks", str(DATA / "tasks.json"), "--out", str(tmp_path)]
    assert main(base) == 1
    assert "give --uri (or set KGBENCH_NEO4J_URI), --graph-uris, or both" in (
        capsys.readouterr().err
    )
    # the environment variable stands for --uri, in evaluate as in demo
    monkeypatch.setenv("KGBENCH_NEO4J_URI", "bolt://127.0.0.1:7999")
    for argv in (base, ["demo"]):
        assert build_parser(argv[0]).parse_args(argv).uri == "bolt://127.0.0.1:7999"
    monkeypatch.delenv("KGBENCH_NEO4J_URI")
    assert main([*base, "--uri", "bolt://127.0.0.1:1", "--metrics", "ex,bleu"]) == 1
    assert "unknown metric 'bleu'" in capsys.readouterr().err
    args = [*base, "--uri", "bolt://127.0.0.1:1", "--metrics", "psjs", "--metric-for-agg", "ex"]
    assert main(args) == 1
    assert "--metric-for-agg 'ex' must be one of the selected metrics" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"qid": "x", "graph": "g"}\n')
    assert (
        main(["evaluate", "--tasks", str(bad), "--uri", "bolt://x:1", "--out", str(tmp_path)]) == 1
    )
    assert f"{bad} line 1 (qid x): field 'gold_cypher'" in capsys.readouterr().err


def test_table_without_from_template_says_there_is_no_category_breakdown() -> None:
    """Tasks without CypherBench's ``from_template``: the JSON keeps ``{}`` for by_match and
    by_return, and the printed table says why they are empty."""
    from kgbench.evaluate.aggregate import aggregate_metrics, format_table

    records = [
        {"graph": "g", "metrics": {"execution_accuracy": 1.0}},
        {"graph": "g", "metrics": {"execution_accuracy": 0.0}},
    ]
    agg = aggregate_metrics(records, ["execution_accuracy"])
    assert agg["by_match"] == {} and agg["by_return"] == {}
    table = format_table(agg, "execution_accuracy")
    assert "no category breakdown (no task has from_template)" in table
    assert "  g " in table and "0.5000" in table
