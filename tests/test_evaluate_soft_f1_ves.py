"""``--metrics soft_f1`` and ``--metrics ves`` (issue 37): BIRD Mini-Dev's Soft-F1 on its
documented worked example and cases by hand, BIRD's R-VES / original VES from given times
(outlier removal, the all-equal quirk, the reward steps), the db-hit VES repeated on the same
Neo4j, and both metrics end to end for Cypher (single run and leaderboard) and SPARQL."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgbench.errors import InputError
from kgbench.evaluate.efficiency import (
    bird_reward,
    clean_abnormal,
    db_hits_ratio,
    measure_wall,
    time_ratio,
    wall_scores,
)
from kgbench.evaluate.runner import parse_metrics
from kgbench.query.compare import set_equal, soft_f1

DATA = Path(__file__).parent / "data" / "cypher"


# --- Soft-F1 ------------------------------------------------------------------------------


def test_soft_f1_bird_readme_example_follows_the_code() -> None:
    """BIRD Mini-Dev README's table (gold Apple/Orange/Banana, prediction with columns swapped
    and NULLs): the README says 0.8; BIRD's code counts the NULLs (row 2: 191 pred-only and
    NULL gold-only, each 1/2; row 3 likewise), so tp = 1 + 1/2 + 1/2 = 2, fp = fn = 1, and
    P = R = F1 = 2/3."""
    gold = [["Apple", 325], ["Orange", None], ["Banana", 119]]
    pred = [[325, "Apple"], [191, "Orange"], [None, "Banana"]]
    assert soft_f1(gold, pred) == pytest.approx(2 / 3)


def test_soft_f1_cases_by_hand() -> None:
    # both empty: 1; one side empty: 0
    assert soft_f1([], []) == 1.0
    assert soft_f1([[1]], []) == 0.0 and soft_f1([], [[1]]) == 0.0
    # identical tables, and column order free
    assert soft_f1([[1, "a"], [2, "b"]], [["a", 1], ["b", 2]]) == 1.0
    # duplicates dropped, first occurrence kept: pred rows [1], [2] vs gold [1]
    # -> row 1 matches (tp 1), the extra predicted row adds fp 1: P 1/2, R 1, F1 2/3
    assert soft_f1([[1], [1]], [[1], [1], [2]]) == pytest.approx(2 / 3)
    # an extra gold row adds fn 1: tp 1, fn 1 -> P 1, R 1/2, F1 2/3
    assert soft_f1([[1], [2]], [[1]]) == pytest.approx(2 / 3)
    # rows paired by position, not by content: gold [1],[2] vs pred [2],[1] -> 0
    assert soft_f1([[1], [2]], [[2], [1]]) == 0.0
    # a wider predicted row: pred (1, 2, 3) vs gold (1, 2): matched 2/2, pred-only 1/2
    # -> tp 1, fp 0.5, fn 0: P 2/3, R 1, F1 0.8
    assert soft_f1([[1, 2]], [[1, 2, 3]]) == pytest.approx(0.8)
    # kgbench's value model: 1 == 1.0; a boolean is not a number
    assert soft_f1([[1]], [[1.0]]) == 1.0
    assert soft_f1([[1]], [[True]]) == 0.0


def test_set_equal_is_birds_gate() -> None:
    assert set_equal([[1, "a"], [1, "a"], [2, "b"]], [[2, "b"], [1, "a"]])
    assert not set_equal([[1, "a"]], [["a", 1]])  # column order counts
    assert set_equal([], [])


# --- VES from given times ------------------------------------------------------------------


def test_reward_steps() -> None:
    steps = [(0, 0), (2, 1.25), (5, 1.25), (1, 1), (1.99, 1), (0.5, 0.75), (0.99, 0.75)]
    steps += [(0.25, 0.5), (0.49, 0.5), (0.2, 0.25), (1e-9, 0.25)]
    for ratio, reward in steps:
        assert bird_reward(ratio) == reward, ratio


def test_outlier_removal_and_the_all_equal_quirk() -> None:
    # ratios 1 (x8) and 100: mean 12, population std sqrt(968) = 31.1, so 100 < 12 + 93.3 is
    # kept; with 19 ratios of 1 and one of 100, mean 5.95, std 21.6: 100 > 5.95 + 64.7, dropped
    assert clean_abnormal([1.0] * 8 + [100.0]) == [1.0] * 8 + [100.0]
    assert clean_abnormal([1.0] * 19 + [100.0]) == [1.0] * 19
    # every ratio equal: std 0, nothing strictly inside (mean, mean): nothing kept -> 0
    assert clean_abnormal([2.0, 2.0, 2.0]) == []
    # ... unless rounding moves numpy's mean off the value (as in BIRD): all kept
    assert clean_abnormal([0.1, 0.1, 0.1]) == [0.1, 0.1, 0.1]
    assert time_ratio([0.1, 0.1, 0.1], [0.2, 0.2, 0.2]) == (0.0, 0)
    equal = wall_scores([0.1] * 3, [0.2] * 3)
    assert equal["r_ves"] == 0.0 and equal["ves"] == 0.0 and equal["detail"]["kept"] == 0


def test_worked_example_by_hand() -> None:
    """Four repetitions: predicted times 1, 1, 1, 2 s, gold times 2, 2, 2, 2 s -> ratios
    2, 2, 2, 1; mean 1.75, std sqrt(3/16) = 0.433, band (0.451, 3.049): all kept; time
    ratio 1.75 -> reward 1 (R-VES sqrt(1) = 1), original VES sqrt(1.75)."""
    pred = [1.0, 1.0, 1.0, 2.0]
    gold = [2.0, 2.0, 2.0, 2.0]
    assert time_ratio(pred, gold) == (1.75, 4)
    scores = wall_scores(pred, gold)
    assert scores["r_ves"] == 1.0
    assert scores["ves"] == pytest.approx(math.sqrt(1.75))
    assert scores["detail"]["reward"] == 1.0 and scores["detail"]["time_ratio"] == 1.75
    assert scores["detail"]["pred_time_s"] == 1.25 and scores["detail"]["gold_time_s"] == 2.0
    # a faster prediction: ratios 3, 3, 3, 1 -> mean 2.5, kept, reward 1.25
    assert wall_scores([1, 1, 1, 3], [3, 3, 3, 3])["r_ves"] == pytest.approx(math.sqrt(1.25))


def test_measure_wall_order_and_db_hits_ratio() -> None:
    calls: list[str] = []

    def pred() -> float:
        calls.append("p")
        return 1.0

    def gold() -> float:
        calls.append("g")
        return 2.0

    assert measure_wall(pred, gold, 2) == ([1.0, 1.0], [2.0, 2.0])
    assert calls == ["p", "g", "p", "g"]
    with pytest.raises(ValueError, match="ves-reps"):
        measure_wall(pred, gold, 0)
    assert db_hits_ratio(10, 5) == 2.0 and db_hits_ratio(0, 0) == 1.0


def test_parse_metrics_groups() -> None:
    assert parse_metrics("ex,soft_f1,ves") == (
        "execution_accuracy",
        "soft_f1",
        "r_ves",
        "ves",
        "ves_db_hits",
    )
    assert parse_metrics(parse_metrics("ves")) == ("r_ves", "ves", "ves_db_hits")
    with pytest.raises(InputError, match="soft_f1, ves"):
        parse_metrics("bleu")


# --- Cypher on Neo4j ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def uri(neo4j_server: Any, neo4j_driver: Any) -> Iterator[str]:
    from kgbench.neo4j import load_graph

    load_graph(str(DATA / "graph.json"), neo4j_driver, wipe=True, progress=False)
    yield neo4j_server.uri


@pytest.mark.neo4j
def test_db_hits_are_the_same_on_two_runs(uri: str, neo4j_driver: Any) -> None:
    """PROFILE's db hits and rows of the same queries, twice on the same server (different
    executors, so nothing is reused), are equal; a write is refused before sending."""
    from kgbench.neo4j.executor import QueryExecutor, QueryFailed

    tasks = json.loads((DATA / "tasks.json").read_text(encoding="utf-8"))
    queries = [t["gold_cypher"] for t in tasks]
    first = [QueryExecutor(neo4j_driver, workers=1).profile(q) for q in queries]
    second = [QueryExecutor(neo4j_driver, workers=1).profile(q) for q in queries]
    assert first == second
    assert all(hits > 0 for hits, _rows in first)
    executor = QueryExecutor(neo4j_driver, workers=1)
    rows = [len(executor.run(q).rows) for q in queries]
    assert [r for _h, r in first] == rows
    with pytest.raises(QueryFailed) as err:
        executor.profile("CREATE (:X)")
    assert err.value.error_class == "write"
    assert executor.time_query(queries[0]) > 0


def _cypher_files(tmp_path: Path) -> tuple[Path, Path]:
    tasks = json.loads((DATA / "tasks.json").read_text(encoding="utf-8"))[:3]
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    preds = tmp_path / "preds.jsonl"
    lines = [line for line in (DATA / "predictions.jsonl").read_text().splitlines() if line]
    preds.write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    return path, preds


@pytest.mark.neo4j
def test_evaluate_cli_soft_f1_and_ves_cypher(
    uri: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``kgbench evaluate --metrics ex,soft_f1,ves --ves-reps 3`` on three tasks: t1 (same
    rows, another query) and t3 (the gold itself) pass BIRD's gate and are measured; t2
    returns an extra column, so Soft-F1 is partial and VES 0. The db-hit VES of the gold
    itself is exactly 1, and two runs give the same db hits."""
    from kgbench.cli import main

    tasks, preds = _cypher_files(tmp_path)
    argv = ["evaluate", "--tasks", str(tasks), "--predictions", str(preds), "--uri", uri]
    argv += ["--metrics", "ex,soft_f1,ves", "--ves-reps", "3", "--no-cache"]
    outs = []
    for run in ("a", "b"):
        out = tmp_path / run
        assert main([*argv, "--out", str(out)]) == 0
        outs.append(out)
    printed = capsys.readouterr().out
    assert "soft_f1" in printed and "ves_db_hits" in printed
    assert "2 tasks through BIRD's gate (rows equal as sets), 2 measured (3 repetitions" in printed
    agg = json.loads((outs[0] / "aggregated_metrics.json").read_text(encoding="utf-8"))
    assert list(agg["overall"]) == ["execution_accuracy", "soft_f1", "r_ves", "ves", "ves_db_hits"]
    assert set(agg["ci95"]) == set(agg["overall"])
    assert agg["ves"]["reps"] == 3 and agg["ves"]["gated"] == 2 and agg["ves"]["measured"] == 2
    assert "hardware-independent" in agg["ves"]["basis"]["ves_db_hits"]
    recs = [
        {r["qid"]: r for r in json.loads((o / "result_with_metrics.json").read_text())}
        for o in outs
    ]
    t1, t2, t3 = (recs[0][q] for q in ("t1", "t2", "t3"))
    assert t1["metrics"]["soft_f1"] == 1.0 and t3["metrics"]["soft_f1"] == 1.0
    assert 0 < t2["metrics"]["soft_f1"] < 1
    assert t2["ves"] == {"gated": False} and t2["metrics"]["r_ves"] == 0.0
    assert t3["metrics"]["ves_db_hits"] == 1.0
    assert t3["ves"]["gold_db_hits"] == t3["ves"]["pred_db_hits"] > 0
    for rec in (t1, t3):
        rewards = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25)
        assert rec["ves"]["reps"] == 3
        assert rec["metrics"]["r_ves"] in {math.sqrt(w) for w in rewards}
        hits = {k: rec["ves"][k] for k in ("gold_db_hits", "pred_db_hits", "gold_rows")}
        again = recs[1][rec["qid"]]["ves"]
        assert hits == {k: again[k] for k in hits}
        assert rec["metrics"]["ves_db_hits"] == recs[1][rec["qid"]]["metrics"]["ves_db_hits"]


@pytest.mark.neo4j
def test_default_output_has_no_new_keys(uri: str, tmp_path: Path) -> None:
    from kgbench.cli import main

    tasks, preds = _cypher_files(tmp_path)
    out = tmp_path / "out"
    argv = ["evaluate", "--tasks", str(tasks), "--predictions", str(preds), "--uri", uri]
    assert main([*argv, "--no-cache", "--out", str(out)]) == 0
    agg = json.loads((out / "aggregated_metrics.json").read_text(encoding="utf-8"))
    assert "ves" not in agg and list(agg["overall"]) == [
        "execution_accuracy",
        "psjs",
        "executable",
    ]
    recs = json.loads((out / "result_with_metrics.json").read_text(encoding="utf-8"))
    assert all("ves" not in r for r in recs)


@pytest.mark.neo4j
def test_leaderboard_has_the_new_columns(uri: str, tmp_path: Path) -> None:
    from kgbench.evaluate.multirun import evaluate_runs

    tasks, preds = _cypher_files(tmp_path)
    gold = tmp_path / "gold.jsonl"
    records = json.loads(tasks.read_text(encoding="utf-8"))
    lines = [json.dumps({"qid": t["qid"], "pred_cypher": t["gold_cypher"]}) for t in records]
    gold.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = evaluate_runs(
        tasks,
        [("model", preds), ("gold", gold)],
        uri=uri,
        metrics="ex,soft_f1,ves",
        ves_reps=2,
        log=lambda _m: None,
    )
    board = result.leaderboard
    assert board["metrics"] == ["execution_accuracy", "soft_f1", "r_ves", "ves", "ves_db_hits"]
    by_name = {r["name"]: r for r in board["runs"]}
    assert by_name["gold"]["overall"]["soft_f1"] == 1.0
    assert by_name["gold"]["overall"]["ves_db_hits"] == 1.0
    assert set(by_name["model"]["ci95"]) >= {"soft_f1", "r_ves", "ves", "ves_db_hits"}
    assert set(board["pairs"][0]["metrics"]) == set(board["metrics"])
    table = result.table()
    assert "soft_f1" in table and "ves_db_hits" in table


# --- SPARQL -------------------------------------------------------------------------------


def test_evaluate_cli_soft_f1_and_ves_sparql(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--language sparql --metrics soft_f1,ves --ves-reps 3``: Soft-F1 on a right, a
    partial and a missing prediction; wall-time VES for the gated task only, said to be
    wall time; ``ves_db_hits`` refused for SPARQL."""
    from kgbench.cli import main

    b = "http://valuenet/ontop/"
    lines = []
    for sid, name, age in ((1, "Joe", 52), (2, "Tim", 32), (3, "Ann", 29)):
        s = f"<{b}singer/singer_id={sid}>"
        lines += [
            f"{s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{b}singer> .",
            f'{s} <{b}singer#name> "{name}" .',
            f'{s} <{b}singer#age> "{age}"^^<http://www.w3.org/2001/XMLSchema#integer> .',
        ]
    rdf = tmp_path / "rdf"
    rdf.mkdir()
    (rdf / "concert.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    names = "SELECT ?n WHERE { ?s :singer\\#name ?n } ORDER BY ?n"
    both = "SELECT ?n ?a WHERE { ?s :singer\\#name ?n . ?s :singer\\#age ?a } ORDER BY ?n"
    tasks = [{"kg_name": "concert", "question": f"q{i}", "query": names} for i in range(3)]
    preds = [{"predicted_sparql": names}, {"predicted_sparql": both}, {"predicted_sparql": ""}]
    (tmp_path / "tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    (tmp_path / "preds.json").write_text(json.dumps(preds), encoding="utf-8")
    out = tmp_path / "out"
    argv = ["evaluate", "--language", "sparql", "--tasks", str(tmp_path / "tasks.json")]
    argv += ["--predictions", str(tmp_path / "preds.json"), "--rdf-dir", str(rdf)]
    assert main([*argv, "--out", str(out), "--metrics", "soft_f1,ves", "--ves-reps", "3"]) == 0
    printed = capsys.readouterr().out
    assert "soft_f1" in printed and "wall-time VES only" in printed
    agg = json.loads((out / "aggregated_metrics.json").read_text(encoding="utf-8"))
    assert list(agg["overall"]) == ["execution_accuracy", "executable", "soft_f1", "r_ves", "ves"]
    assert set(agg["ci95"]) == set(agg["overall"])
    assert agg["ves"]["gated"] == 1 and "wall-time VES only" in agg["ves"]["basis"]["note"]
    recs = json.loads((out / "result_with_metrics.json").read_text(encoding="utf-8"))
    # prediction 2: (name, age) against (name): each row matched 1/1, pred-only 1/1
    # -> tp 3, fp 3, fn 0: P 1/2, R 1, F1 2/3
    assert [r["metrics"]["soft_f1"] for r in recs] == pytest.approx([1.0, 2 / 3, 0.0])
    assert recs[0]["ves"]["gated"] and recs[0]["ves"]["reps"] == 3
    assert recs[1]["ves"] == {"gated": False} and recs[2]["metrics"]["ves"] == 0.0
    # the default SPARQL output is unchanged (no new key)
    plain = tmp_path / "plain"
    assert main([*argv, "--out", str(plain)]) == 0
    agg = json.loads((plain / "aggregated_metrics.json").read_text(encoding="utf-8"))
    assert list(agg["overall"]) == ["execution_accuracy", "executable"] and "ves" not in agg
    capsys.readouterr()
    assert main([*argv, "--out", str(out), "--metrics", "ves_db_hits"]) == 1
    assert "wall-time VES only" in capsys.readouterr().err
