"""NGDBench scoring: ``kgbench evaluate --family ngdbench`` (kgbench.evaluate.ngdbench; spec
ngdbench.md §2, §5, §7). Predictions carry answers, or ``pred_cypher`` queries that run on a
real Neo4j holding the noisy graph (the session server of tests/conftest.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.evaluate.metrics import mlre
from kgbench.evaluate.ngdbench import (
    NgdbenchEvaluation,
    agg_metrics,
    clean_answer,
    detect_family,
    evaluate_ngdbench,
    management_metrics,
    noagg_scores,
)

FIN_SUM = [15958694.08, 81053359.93, 87223099.16, 94672665.77, 170208386.55]
FIN_PRED = [15958694.08, 81053359.93, 81053359.93, 94672665.77, 170208386.55]


# ----------------------------------------------------------------- worked examples (§5)


def test_worked_example_noagg_sets() -> None:
    m = noagg_scores(["A", "B", "C", "D"], ["B", "C", "E"])
    assert m["jaccard"] == pytest.approx(0.4)
    assert m["f1"] == pytest.approx(4 / 7)


def test_worked_example_agg_and_mlre() -> None:
    y, yhat = [100, 4, 0], [110, 2, 0]
    m = agg_metrics(y, yhat)
    assert m["mdre"] == pytest.approx(0.1)
    assert round(m["msle"], 4) == 0.0900
    assert round(m["smape"], 4) == 0.2540
    assert round(mlre(y, yhat), 4) == 0.2628


def test_worked_example_fin_sum_batch() -> None:
    m = management_metrics(FIN_SUM, FIN_PRED)
    assert m["l_step"] == pytest.approx(0.8)
    y = [p[0] for p in m["numeric_pairs"]]
    yhat = [p[1] for p in m["numeric_pairs"]]
    assert round(mlre(y, yhat), 4) == 0.0147
    assert m["numeric_unanswered"] == 0


def test_clean_answer_follows_clean_normal_answer() -> None:
    assert clean_answer([{"cnt": 5}]) == 5
    assert clean_answer([{"m": {"_node_id": "Company:1", "name": "x"}}]) == "Company:1"
    assert clean_answer([{"v": 1}, {"v": 2}]) == [1, 2]
    assert clean_answer([{"vals": [1, 2]}]) == [1, 2]
    assert clean_answer([{"a": {"_node_id": "P:1"}, "b": 3}]) == [{"a": "P:1", "b": 3}]
    assert clean_answer(7) == 7
    assert clean_answer([]) == []
    # idempotent on cleaned answers
    for cleaned in (5, "Company:1", [1, 2], [{"a": "P:1", "b": 3}]):
        assert clean_answer(cleaned) == cleaned


def test_noagg_rows_are_positional_tuples() -> None:
    gold = [{"a": "P:1", "b": "P:2"}, {"a": "P:3", "b": "P:4"}]
    # column names are ignored, order is not; a list of the row's width is a row
    assert noagg_scores(gold, [{"x": "P:1", "y": "P:2"}, ["P:3", "P:4"]])["jaccard"] == 1.0
    m = noagg_scores(gold, [["P:1", "P:2"], ["P:4", "P:3"]])
    assert m["jaccard"] == pytest.approx(1 / 3) and m["f1"] == pytest.approx(0.5)
    # a scalar answer is a one-element set; duplicates are ignored
    assert noagg_scores("Company:1", ["Company:1", "Company:1"])["f1"] == 1.0


def test_detect_family() -> None:
    assert detect_family("r", {"family": "agg", "answer": 1}) == "agg"
    assert detect_family("r", {"steps": []}) == "management"
    assert detect_family("r", {"template": {"query": []}, "validation": []}) == "management"
    boolean = {"template_query": "q", "clean_answer": {"valid_answer": [], "invalid_answer": []}}
    assert detect_family("r", boolean) == "boolean"
    with pytest.raises(InputError, match=r"rec 3: unknown task family 'graph'"):
        detect_family("rec 3", {"family": "graph", "answer": 1})
    with pytest.raises(InputError, match=r"rec 4: not an NGDBench task.*keys: foo"):
        detect_family("rec 4", {"foo": 1})


# ----------------------------------------------------------------- task files


def _noagg(qid: str, answer: Any, noise: Any, same: bool | None) -> dict[str, Any]:
    rec = {
        "qid": qid,
        "family": "noagg",
        "template_id": "basic_T1",
        "query": "MATCH (n:Company {companyId: 568})-[:Company_Guarantee_Company]->(m) RETURN m",
        "parameters": {"LABEL": "Company", "PROP": "companyId", "VALUE": 568},
        "answer": answer,
        "noise_answer": noise,
        "is_noise_query": True,
        "nlp": "Which companies does company 568 guarantee?",
    }
    if same is not None:
        rec["same_as_cleangraph"] = same
    return rec


def _agg(qid: str, answer: Any, noise: Any, same: bool) -> dict[str, Any]:
    return {
        "qid": qid,
        "family": "agg",
        "template_id": "basic_T7",
        "query": "MATCH (n:Account {accountId: 7})-[:Account_Transfer_Account]->(m) "
        "RETURN count(m) AS cnt",
        "parameters": {"LABEL": "Account", "PROP": "accountId", "VALUE": 7},
        "answer": answer,
        "noise_answer": noise,
        "same_as_cleangraph": same,
        "is_noise_query": not same,
        "nlp": "How many accounts does account 7 transfer to?",
    }


def _boolean(valid: list[str], invalid: list[str], noise_valid: list[str]) -> dict[str, Any]:
    def rows(ids: list[str], judge: bool) -> list[dict[str, Any]]:
        return [{"a": i, "bs": ["2022-01-02 10:01:48.087"], "judge": judge} for i in ids]

    return {
        "template_query": "MATCH (a:Medium), (b:Medium) WHERE a.mediumType = b.mediumType "
        "AND a <> b WITH a, b RETURN a, collect(b.lastLoginTime)[0..5] AS bs",
        "anti_template_query": "MATCH (a:Medium), (b:Medium) WHERE a.mediumType <> "
        "b.mediumType AND a <> b WITH a, b RETURN a, collect(b.lastLoginTime)[0..5] AS bs",
        "contains_noise": True,
        "clean_answer": {"valid_answer": rows(valid, True), "invalid_answer": rows(invalid, False)},
        "noise_answer": {"valid_answer": rows(noise_valid, True), "invalid_answer": []},
        "nlp": "Does each medium share its type with another medium?",
    }


def _batch(qid: str, answers: list[Any], operation: str = "SET") -> dict[str, Any]:
    return {
        "qid": qid,
        "operation": operation,
        "difficulty": 1,
        "steps": [
            {
                "step": i,
                "operate_query": f"MATCH (n:Loan {{loanId: {i}}}) SET n.loanAmount = {i}",
                "valid_query": "MATCH (n:Loan) RETURN sum(n.loanAmount) AS total",
                "answer": a,
                "operate_nlp": "Set a loan amount",
                "valid_nlp": "What is the total loan amount?",
            }
            for i, a in enumerate(answers, start=1)
        ],
    }


def _tasks() -> list[dict[str, Any]]:
    return [
        # NoAgg: the worked example (not the same on the noisy graph)
        _noagg("n1", ["Company:A", "Company:B", "Company:C", "Company:D"], ["Company:B"], False),
        # NoAgg: two-column rows; same_as_cleangraph computed (multiset equality)
        _noagg(
            "n2",
            [{"a": "Person:1", "b": "Person:2"}, {"a": "Person:3", "b": "Person:4"}],
            [{"a": "Person:3", "b": "Person:4"}, {"a": "Person:1", "b": "Person:2"}],
            None,
        ),
        # NoAgg: 1×1 scalar, no prediction: wrong
        _noagg("n3", "Company:X", "Company:X", True),
        # Agg: the worked example y = (100, 4, 0)
        _agg("a1", 100, 100, True),
        _agg("a2", [{"cnt": 4}], 5, False),
        _agg("a3", 0, 0, True),
        # Agg: a prediction that is not a number (unanswered)
        _agg("a4", 12, 12, True),
        # Agg: a gold that is not one number: not scored
        _agg("a5", [3, 4], [3, 4], True),
        _boolean(["Medium:1", "Medium:2"], ["Medium:3", "Medium:4"], ["Medium:1"]),
        _boolean(["Medium:5"], ["Medium:6"], ["Medium:6"]),
        _batch("m1", FIN_SUM),
        _batch("m2", [["Loan:1", "Loan:2"], "done"], operation="MIX"),
        _batch("m3", [1, 2], operation="CREATE"),
    ]


def _predictions() -> list[dict[str, Any]]:
    return [
        {"qid": "n1", "answer": ["Company:B", "Company:C", "Company:E"]},
        {"qid": "n2", "answer": [["Person:1", "Person:2"], ["Person:4", "Person:3"]]},
        {"qid": "a1", "answer": 110},
        {"qid": "a2", "answer": [{"cnt": 2}]},
        {"qid": "a3", "answer": "0"},
        {"qid": "a4", "answer": "about a dozen"},
        {"index": 8, "answer": [True, False, False, False]},
        {"qid": 9, "answer": [{"a": "Medium:5", "bs": ["2022-01-02 10:01:48.087"], "judge": 1}]},
        {"qid": "m1", "steps": FIN_PRED},
        {"qid": "m2", "steps": [{"answer": ["Loan:2", "Loan:1"]}]},
        {"qid": "m3", "pred_cypher": "MATCH (n:Loan {loanId: 1}) SET n.loanAmount = 1"},
    ]


def _write(path: Path, records: list[dict[str, Any]], jsonl: bool = False) -> Path:
    if jsonl:
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    else:
        path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return (
        _write(tmp_path / "tasks.json", _tasks()),
        _write(tmp_path / "preds.jsonl", _predictions(), jsonl=True),
    )


def _run(args: list[str]) -> int:
    return main(["evaluate", "--family", "ngdbench", *args])


def test_cli_scores_every_family(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks, preds = files
    out = tmp_path / "out"
    assert _run(["--tasks", str(tasks), "--predictions", str(preds), "--out", str(out)]) == 0
    agg = json.loads((out / "aggregated_metrics.json").read_text(encoding="utf-8"))
    records = json.loads((out / "result_with_metrics.json").read_text(encoding="utf-8"))
    by_id = {r["id"]: r for r in records}
    assert len(records) == 13 and agg["gold"] == "clean"

    # NoAgg: n1 worked example; n2 one of two tuples right; n3 missing → 0
    assert by_id["n1"]["metrics"]["jaccard"] == pytest.approx(0.4)
    assert by_id["n1"]["metrics"]["f1"] == pytest.approx(4 / 7)
    assert by_id["n2"]["metrics"]["jaccard"] == pytest.approx(1 / 3)
    assert by_id["n3"]["metrics"]["f1"] == 0.0 and by_id["n3"]["error"] == "missing"
    noagg = agg["overall"]["noagg"]
    assert noagg["n"] == 3
    assert noagg["jaccard"] == pytest.approx((0.4 + 1 / 3) / 3)
    assert noagg["f1"] == pytest.approx((4 / 7 + 0.5) / 3)

    # Agg: exactly the worked example; a4 unanswered; a5 not scored
    a = agg["overall"]["agg"]
    assert a["n"] == 3 and a["unanswered"] == 1 and a["answered_rate"] == pytest.approx(0.75)
    assert a["mdre"] == pytest.approx(0.1)
    assert round(a["msle"], 4) == 0.0900 and round(a["smape"], 4) == 0.2540
    assert by_id["a1"]["metrics"]["relative_error"] == pytest.approx(0.1)
    assert by_id["a5"]["status"] == "not_scored"

    # Boolean: 3 of 4; task 9 judges with 1 (not a verdict) and leaves Medium:6 out: 0 of 2
    b = agg["overall"]["boolean"]
    assert (b["n"], b["candidates"], b["correct"]) == (2, 6, 3)
    assert b["accuracy"] == pytest.approx(0.5)
    assert by_id["8"]["prediction"] == [True, False, False, False]
    assert by_id["9"]["prediction"] == [None, None]  # judge 1 is not a verdict

    # Management: Fin SUM batch + a non-numeric batch; m3 needs the runner
    m = agg["overall"]["management"]
    assert m["n"] == 2 and m["steps"] == 7
    assert by_id["m1"]["metrics"]["l_step"] == pytest.approx(0.8)
    assert by_id["m2"]["metrics"]["l_step"] == pytest.approx(0.5)  # step 2 missing
    assert m["l_step"] == pytest.approx((0.8 + 0.5) / 2)
    assert m["numeric_steps"] == 5  # non-numeric answers count only in L_step
    assert round(m["mlre"], 4) == 0.0147
    assert agg["management_by_operation"]["SET"]["l_step"] == pytest.approx(0.8)
    assert by_id["m3"]["status"] == "not_scored"

    counts = agg["counts"]
    assert counts["tasks"] == 13 and counts["scored"] == 11 and counts["not_scored"] == 2
    assert counts["not_scored_reasons"] == {
        "agg gold is not a single number": 1,
        "needs the management runner (pred_cypher of a management batch)": 1,
    }
    assert counts["by_family"] == {"noagg": 3, "agg": 5, "boolean": 2, "management": 3}

    table = capsys.readouterr().out
    assert "oracle (gold on G~)" in table and "needs the management runner" in table
    assert "0.1000" in table and "0.0147" in table


def test_split_by_same_as_cleangraph(files: tuple[Path, Path]) -> None:
    tasks, preds = files
    agg = evaluate_ngdbench(tasks, preds).aggregated
    split = agg["by_same_as_cleangraph"]
    # n2's flag is computed: its answer and noise_answer are equal multisets
    assert split["true"]["noagg"]["n"] == 2 and split["false"]["noagg"]["n"] == 1
    assert split["false"]["noagg"]["jaccard"] == pytest.approx(0.4)
    assert split["true"]["noagg"]["jaccard"] == pytest.approx(1 / 6)
    assert split["true"]["noagg"]["f1"] == pytest.approx(0.25)
    assert split["all"]["noagg"] == agg["overall"]["noagg"]
    # agg: a1, a3 (true) and a2 (false)
    assert split["false"]["agg"]["n"] == 1
    assert split["false"]["agg"]["mdre"] == pytest.approx(0.5)
    assert split["true"]["agg"]["n"] == 2 and split["true"]["agg"]["unanswered"] == 1
    assert split["true"]["agg"]["smape"] == pytest.approx((10 / 105) / 2)


def test_oracle_row_from_the_task_file_alone(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks, _ = files
    out = tmp_path / "o"
    assert _run(["--tasks", str(tasks), "--out", str(out)]) == 0
    agg = json.loads((out / "aggregated_metrics.json").read_text(encoding="utf-8"))
    oracle = agg["oracle"]
    # NoAgg: n1 {A,B,C,D} vs {B}: J = F1·… = 1/4, F1 = 2/5; n2, n3 perfect
    assert oracle["noagg"]["n"] == 3
    assert oracle["noagg"]["jaccard"] == pytest.approx((0.25 + 1 + 1) / 3)
    assert oracle["noagg"]["f1"] == pytest.approx((0.4 + 1 + 1) / 3)
    assert oracle["by_same_as_cleangraph"]["true"]["noagg"]["jaccard"] == 1.0
    assert oracle["by_same_as_cleangraph"]["false"]["noagg"]["jaccard"] == pytest.approx(0.25)
    # Agg (a1..a4; a5 has no single-number gold): pairs (100,100) (4,5) (0,0) (12,12)
    y, yhat = [100, 4, 0, 12], [100, 5, 0, 12]
    want = agg_metrics(y, yhat)
    assert oracle["agg"]["n"] == 4
    assert oracle["agg"]["mdre"] == pytest.approx(want["mdre"]) == pytest.approx(0.0)
    assert oracle["agg"]["msle"] == pytest.approx((math.log(6) - math.log(5)) ** 2 / 4)
    assert oracle["agg"]["smape"] == pytest.approx((1 / 4.5) / 4)
    assert oracle["boolean"] is None and oracle["management"] is None
    # without predictions nothing else is scored
    assert agg["counts"]["scored"] == 0
    assert agg["counts"]["not_scored_reasons"] == {
        "no prediction file": 12,
        "agg gold is not a single number": 1,
    }
    table = capsys.readouterr().out
    assert "oracle (gold on G~)" in table and "oracle, same=false" in table


def test_gold_noisy(files: tuple[Path, Path], tmp_path: Path) -> None:
    tasks, preds = files
    # verdict lists follow the candidates of the gold side: 4 verdicts, 1 noisy candidate
    with pytest.raises(InputError, match=r"preds.jsonl line 7: 4 verdicts for 1 candidates"):
        evaluate_ngdbench(tasks, preds, gold="noisy")
    preds = _write(tmp_path / "p2.json", [p for p in _predictions() if p.get("index") != 8])
    res = evaluate_ngdbench(tasks, preds, gold="noisy")
    by_id = {r["id"]: r for r in res.records}
    # n1 prediction {B,C,E} against noise_answer {B}
    assert by_id["n1"]["metrics"]["jaccard"] == pytest.approx(1 / 3)
    # a2: y = 5 on the noisy graph, ŷ = 2
    assert by_id["a2"]["metrics"]["relative_error"] == pytest.approx(0.6)
    # Boolean candidates come from noise_answer: task 9 has one (valid) candidate Medium:6
    assert by_id["9"]["metrics"]["candidates"] == 1
    # the oracle is always against the clean answer
    assert res.aggregated["oracle"]["noagg"]["jaccard"] == pytest.approx((0.25 + 2) / 3)
    assert res.aggregated["gold"] == "noisy"


def test_boolean_positive_set_form(tmp_path: Path) -> None:
    tasks = _write(tmp_path / "t.json", [_boolean(["M:1", "M:2"], ["M:3"], [])])
    # rows held valid (lists are positional rows), the rest judged false
    preds = _write(
        tmp_path / "p.json",
        [{"index": 0, "answer": [["M:1", ["2022-01-02 10:01:48.087"]], {"a": "M:3", "bs": []}]}],
    )
    rec = evaluate_ngdbench(tasks, preds).records[0]
    assert rec["prediction"] == [True, False, False]
    assert rec["metrics"]["correct"] == 2
    bad = _write(tmp_path / "b.json", [{"index": 0, "answer": [True, False]}])
    with pytest.raises(InputError, match=r"b.json record 0: 2 verdicts for 3 candidates"):
        evaluate_ngdbench(tasks, bad)


def test_raw_management_record_is_converted(tmp_path: Path) -> None:
    raw = {
        "template": {"query": ["CREATE (n:Loan {loanAmount: 5})", "CREATE (n:Loan)"]},
        "validation": [
            {"query": "MATCH (n:Loan) RETURN count(n) AS c", "answer": [{"c": 3}], "index": 0},
            {"query": "MATCH (n:Loan) RETURN count(n) AS c", "answer": [{"c": 4}], "index": 1},
            {"query": "MATCH (n:Loan) RETURN count(n) AS c", "answer": [{"c": 5}], "index": 2},
        ],
    }
    tasks = _write(tmp_path / "t.json", [raw])
    preds = _write(tmp_path / "p.json", [{"index": 0, "steps": [4, 6]}])
    rec = evaluate_ngdbench(tasks, preds).records[0]
    assert [s["answer"] for s in rec["steps"]] == [4, 5]
    assert rec["initial_answer"] == 3
    assert rec["metrics"]["l_step"] == 0.5
    too_many = _write(tmp_path / "q.json", [{"index": 0, "steps": [4, 5, 6]}])
    with pytest.raises(InputError, match=r"q.json record 0: 3 step answers for a batch of 2"):
        evaluate_ngdbench(tasks, too_many)


def _noisy_graph() -> dict[str, Any]:
    """A small noisy graph in the loader's format: company A guarantees B, C and E (D, in the
    clean answer, lost its edge to the noise); media 1 and 4 share a type, 2 and 3 do not."""

    def entity(eid: str, label: str, **props: Any) -> dict[str, Any]:
        return {"eid": eid, "label": label, "name": eid.lower(), "properties": props}

    login = "2022-01-02 10:01:48.087"
    return {
        "schema": {
            "name": "ngdbench_noisy",
            "entities": [
                {"label": "Company", "properties": {}},
                {"label": "Medium", "properties": {"mediumType": "str", "lastLoginTime": "str"}},
                {"label": "Loan", "properties": {"loanAmount": "float"}},
            ],
            "relations": [
                {
                    "label": "guarantees",
                    "subj_label": "Company",
                    "obj_label": "Company",
                    "properties": {},
                }
            ],
        },
        "entities": [
            *(entity(f"Company:{x}", "Company") for x in "ABCDE"),
            entity("Medium:1", "Medium", mediumType="card", lastLoginTime=login),
            entity("Medium:2", "Medium", mediumType="pos", lastLoginTime=login),
            entity("Medium:3", "Medium", mediumType="app", lastLoginTime=login),
            entity("Medium:4", "Medium", mediumType="card", lastLoginTime=login),
            entity("Loan:1", "Loan", loanAmount=10.0),
        ],
        "relations": [
            {
                "rid": str(i),
                "label": "guarantees",
                "subj_id": "Company:A",
                "obj_id": f"Company:{x}",
                "properties": {},
            }
            for i, x in enumerate("BCE")
        ],
    }


@pytest.mark.neo4j
def test_pred_cypher_runs_on_the_noisy_graph(
    tmp_path: Path, neo4j_server: Any, neo4j_load: Any, neo4j_driver: Any
) -> None:
    """``pred_cypher`` predictions run read-only on a real Neo4j holding the noisy graph
    (``--uri``): node answers become their ids, a failed query is its error class, a
    management batch is never sent, and the graph is unchanged afterwards."""
    neo4j_load(_noisy_graph())
    tasks = _write(
        tmp_path / "t.json",
        [
            _noagg("n1", ["Company:A", "Company:B", "Company:C", "Company:D"], [], False),
            _agg("a1", 4, 3, False),
            _boolean(["Medium:1", "Medium:2"], ["Medium:3"], []),
            _noagg("n4", ["Company:A"], ["Company:A"], True),
            _batch("m1", FIN_SUM),
        ],
    )
    guaranteed = "MATCH (:Company {eid: 'Company:A'})-[:guarantees]->(m)"
    preds = _write(
        tmp_path / "p.json",
        [
            {"qid": "n1", "pred_cypher": f"{guaranteed} RETURN m"},
            {"qid": "a1", "pred_cypher": f"{guaranteed} RETURN count(m) AS cnt"},
            {
                "qid": 2,
                "pred_cypher": "MATCH (a:Medium), (b:Medium) WHERE a.mediumType = b.mediumType "
                "AND a <> b RETURN a, collect(b.lastLoginTime) AS bs",
            },
            {"qid": "n4", "pred_cypher": "BROKEN"},
            {"qid": "m1", "pred_cypher": "MATCH (n:Loan) SET n.loanAmount = 1"},
        ],
    )
    # without --uri: counted, not scored
    res = evaluate_ngdbench(tasks, preds)
    assert res.aggregated["counts"]["not_scored_reasons"] == {
        "pred_cypher needs --uri (the noisy graph)": 4,
        "needs the management runner (pred_cypher of a management batch)": 1,
    }
    out = tmp_path / "out"
    code = _run(
        [
            "--tasks",
            str(tasks),
            "--predictions",
            str(preds),
            "--uri",
            str(neo4j_server.uri),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    by_id = {r["id"]: r for r in json.loads((out / "result_with_metrics.json").read_text())}
    assert sorted(by_id["n1"]["prediction"]) == ["Company:B", "Company:C", "Company:E"]
    assert by_id["n1"]["metrics"]["jaccard"] == pytest.approx(0.4)
    assert by_id["a1"]["prediction"] == 3
    assert by_id["a1"]["metrics"]["relative_error"] == pytest.approx(0.25)
    assert by_id["2"]["prediction"] == [True, False, False]
    assert by_id["n4"]["error"] == "syntax" and by_id["n4"]["metrics"]["f1"] == 0.0
    assert by_id["m1"]["status"] == "not_scored"
    amounts = neo4j_driver.execute_query("MATCH (n:Loan) RETURN n.loanAmount AS x").records
    assert [r["x"] for r in amounts] == [10.0]  # the management query was never sent


def test_bad_input_names_the_record(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks, _ = files
    bad_tasks = _write(tmp_path / "bad.jsonl", [*_tasks()[:2], {"question": "?"}], jsonl=True)
    assert _run(["--tasks", str(bad_tasks), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "bad.jsonl line 3 (id 2): not an NGDBench task" in err

    unknown_family = _write(tmp_path / "fam.json", [{"qid": "q", "family": "xyz", "answer": 1}])
    assert _run(["--tasks", str(unknown_family), "--out", str(tmp_path / "o")]) == 1
    assert "fam.json record 0 (id q): unknown task family 'xyz'" in capsys.readouterr().err

    preds = _write(tmp_path / "p.jsonl", [{"qid": "n1", "answer": []}, {"qid": "zz", "answer": 1}])
    code = _run(["--tasks", str(tasks), "--predictions", str(preds), "--out", str(tmp_path / "o")])
    assert code == 1
    assert "p.jsonl record 1: prediction for unknown task id 'zz'" in capsys.readouterr().err

    dup = _write(tmp_path / "d.json", [{"qid": "n1", "answer": []}, {"qid": "n1", "answer": []}])
    with pytest.raises(InputError, match=r"d.json record 1: duplicate prediction for task id"):
        evaluate_ngdbench(tasks, dup)
    empty = _write(tmp_path / "e.json", [{"qid": "n1"}])
    with pytest.raises(InputError, match=r"e.json record 0 \(id n1\): a prediction needs"):
        evaluate_ngdbench(tasks, empty)
    with pytest.raises(InputError, match="gold must be"):
        evaluate_ngdbench(tasks, None, gold="dirty")  # type: ignore[arg-type]


def test_mdre_above_1e4_prints_a_dash() -> None:
    block = {
        "noagg": {"n": 0, "jaccard": None, "f1": None},
        "agg": {"n": 1, "mdre": 5e6, "msle": 3.2, "smape": 2.0, "unanswered": 0},
    }
    agg = {
        "gold": "clean",
        "overall": {
            **block,
            "boolean": {"n": 0, "candidates": 0, "accuracy": None},
            "management": {"n": 0, "l_step": None, "mlre": None, "msle": None, "smape": None},
        },
        "by_same_as_cleangraph": {"true": block, "false": block, "all": block},
        "oracle": {**block, "by_same_as_cleangraph": {"true": block, "false": block}},
        "counts": {"tasks": 1, "scored": 1, "not_scored": 0, "not_scored_reasons": {}},
    }
    table = NgdbenchEvaluation([], agg).table()
    agg_line = next(
        line for line in table.splitlines() if line.strip().startswith("all") and "3.2" in line
    )
    assert "—" in agg_line and "5000000" not in table


def test_uninformative_gold_answers_are_flagged(tmp_path: Path) -> None:
    """Issue 31: every family flags uninformative gold results (metrics.md §1); NGDBench's
    analytic answers and Boolean verdicts follow the same rules as EX's gold rows."""
    tasks = [
        *_tasks(),
        _noagg("e1", [], [], True),
        _noagg("e2", [None], [None], True),
        _agg("z1", [{"cnt": 0}], 0, True),
        _boolean([], ["Medium:7"], []),
    ]
    preds = [*_predictions(), {"qid": "e1", "answer": []}, {"qid": "z1", "answer": 0}]
    ev = evaluate_ngdbench(
        _write(tmp_path / "tasks.json", tasks), _write(tmp_path / "preds.json", preds)
    )
    flags = {str(r.get("qid", r.get("id"))): r["uninformative"] for r in ev.records}
    assert flags["a3"] == "single_zero"  # the worked example's y = 0
    assert flags["z1"] == "single_zero"
    assert flags["e1"] == "empty"
    assert flags["e2"] == "all_null"
    assert flags["n1"] is None and flags["a1"] is None and flags["m1"] is None
    assert list(flags.values()).count("single_false") == 1  # one candidate, judged false
    inf = ev.aggregated["informative"]
    assert inf["uninformative"] == 5
    assert inf["by_reason"] == {"empty": 1, "all_null": 1, "single_zero": 2, "single_false": 1}
    # e1 scored Jaccard 1 (empty vs empty): it counts in overall, not among informative tasks
    assert ev.aggregated["overall"]["noagg"]["n"] == inf["overall"]["noagg"]["n"] + 2
    assert inf["overall"]["noagg"]["jaccard"] < ev.aggregated["overall"]["noagg"]["jaccard"]
    assert "uninformative gold answers left out" in ev.table()
