"""NGDBench management batches on a disposable database (spec ngdbench.md §2, §4, §5, §7):
kgbench.neo4j.disposable (one rolled-back transaction per batch, the write guard),
kgbench.generate.ngdbench.management (templates, checks, gold) and the scoring of management
predictions given as Cypher (kgbench.evaluate.ngdbench, ``kgbench evaluate --clean-graph``).

Real Neo4j and real data: Spider's concert_singer database converted by ``kgbench rdb``
(tests/data/spider/) and the hand-written tests/data/graphs/mini_company.json, each in its own
module-scoped :class:`DisposableNeo4j` (Neo4j Community has one user database)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.evaluate.ngdbench import evaluate_ngdbench, load_ngdbench_tasks
from kgbench.generate.ngdbench.management import (
    OPERATIONS,
    RECORD_KEYS,
    generate_management,
    load_management_templates,
)
from kgbench.neo4j.disposable import (
    MARKER_FILE,
    DisposableNeo4j,
    WriteRefusedError,
    require_disposable,
    run_batch,
)
from kgbench.rdb.convert import convert_rdb

pytestmark = pytest.mark.neo4j

DATA = Path(__file__).parent / "data"
SPIDER = DATA / "spider"
MINI = DATA / "graphs" / "mini_company.json"
SMALL = {"heap": "512m", "pagecache": "64m"}
PER_OP = 2


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def concert_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("concert_mgmt")
    conv = convert_rdb(
        SPIDER / "concert_singer.sqlite",
        SPIDER / "concert_singer.tables.json",
        "concert_singer",
        out,
    )
    return Path(conv["files"]["graph"])


@pytest.fixture(scope="module")
def concert_graph(concert_path: Path) -> dict[str, Any]:
    graph: dict[str, Any] = json.loads(concert_path.read_text(encoding="utf-8"))
    return graph


@pytest.fixture(scope="module")
def mini_graph() -> dict[str, Any]:
    graph: dict[str, Any] = json.loads(MINI.read_text(encoding="utf-8"))
    return graph


# disposable databases (one per graph, shared by the module): management batches write, in
# rolled-back transactions, only to a database kgbench created (require_disposable)
@pytest.fixture(scope="module")
def concert_db(concert_graph: dict[str, Any]) -> Iterator[DisposableNeo4j]:
    with DisposableNeo4j(concert_graph, **SMALL) as db:
        yield db


@pytest.fixture(scope="module")
def mini_db(mini_graph: dict[str, Any]) -> Iterator[DisposableNeo4j]:
    with DisposableNeo4j(mini_graph, **SMALL) as db:
        yield db


@pytest.fixture(scope="module")
def concert_batches(
    concert_graph: dict[str, Any], concert_db: DisposableNeo4j
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return generate_management(concert_graph, concert_db, seed=42, batches_per_operation=PER_OP)


@pytest.fixture(scope="module")
def mini_batches(
    mini_graph: dict[str, Any], mini_db: DisposableNeo4j
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return generate_management(mini_graph, mini_db, seed=42, batches_per_operation=PER_OP)


def _state(db: DisposableNeo4j, label: str, eid: str, prop: str) -> tuple[Any, ...]:
    """Node and relationship counts and one property value: what a leak would change."""
    counts = db.counts()
    value = db.read(f"MATCH (n:{label} {{eid: $eid}}) RETURN n.{prop} AS v", {"eid": eid})
    return counts["nodes"], counts["relationships"], value


# --------------------------------------------------------------------------- generation


@pytest.mark.parametrize("which", ["concert", "mini"])
def test_every_operator_yields_checked_batches(
    which: str,
    request: pytest.FixtureRequest,
) -> None:
    records, report = request.getfixturevalue(f"{which}_batches")
    graph = request.getfixturevalue(f"{which}_graph")
    assert [r["operation"] for r in records] == [op for op in OPERATIONS for _ in range(PER_OP)]
    assert report["kept"] == len(records) == PER_OP * len(OPERATIONS)
    for op in OPERATIONS:
        assert report["by_operation"][op]["kept"] == PER_OP
    assert len({r["qid"] for r in records}) == len(records)
    for r in records:
        assert tuple(r) == RECORD_KEYS
        assert r["initial_answer"] not in (None, 0, [], "")
        assert r["initial_query"] == r["steps"][0]["valid_query"]
        if r["operation"] == "MIX":
            assert 5 <= len(r["steps"]) <= 10
        else:
            assert len(r["steps"]) == 5
        for i, s in enumerate(r["steps"], start=1):
            assert s["step"] == i
            # every op changes state: non-zero write counters, the expected state change
            assert s["counters"] and all(v > 0 for v in s["counters"].values())
            assert s["answer"] is not None
            assert s["operate_nlp"] and "{" not in s["operate_nlp"]
            assert s["valid_nlp"] and "$" not in s["operate_query"] + s["valid_query"]
    # the labels and relationship types come from the graph (schema triples observed in it)
    labels = {e["label"] for e in graph["entities"]}
    rel_types = {rel["label"] for rel in graph["relations"]}
    for r in records:
        p = r["parameters"]
        for key in ("LABEL", "SRC", "DST"):
            if key in p:
                assert p[key] in labels
        if "REL" in p:
            assert p["REL"] in rel_types


def test_step_values_follow_the_spec(concert_batches: Any) -> None:
    """VALUEi = base + i·U{1..10} (numbers), base_i (strings), $X1 → $Xi per step (§4)."""
    records, _ = concert_batches
    for r in records:
        p = r["parameters"]
        if r["operation"] == "MIX":
            continue
        for fam in ("NEW", "NAME", "TEXT"):
            if fam in p:
                assert [v.rsplit("_", 1)[1] for v in p[fam]] == ["1", "2", "3", "4", "5"]
                base = p[fam][0].rsplit("_", 1)[0]
                assert all(v == f"{base}_{i}" for i, v in enumerate(p[fam], start=1))
        if "VALUE" in p and "KEY" in p:
            base = r["initial_answer"]
            for i, v in enumerate(p["VALUE"], start=1):
                assert i <= v - base <= 10 * i and (v - base) % i == 0
        for i, s in enumerate(r["steps"], start=1):
            for fam in ("NEW", "NAME", "VALUE", "TEXT", "KEY"):
                if fam in p and isinstance(p[fam], list):
                    lit = p[fam][i - 1]
                    text = f"'{lit}'" if isinstance(lit, str) else str(lit)
                    assert text in s["operate_query"] + s["valid_query"]


def test_same_seed_gives_identical_records(
    concert_graph: dict[str, Any], concert_db: DisposableNeo4j, concert_batches: Any
) -> None:
    records, report = concert_batches
    again, report2 = generate_management(
        concert_graph, concert_db, seed=42, batches_per_operation=PER_OP
    )
    assert json.dumps(again) == json.dumps(records)
    assert report2 == report
    other, _ = generate_management(
        concert_graph, concert_db, seed=7, batches_per_operation=PER_OP, operations=["SET"]
    )
    assert json.dumps(other) != json.dumps([r for r in records if r["operation"] == "SET"])


def test_records_are_read_by_the_evaluator(concert_batches: Any, tmp_path: Path) -> None:
    records, _ = concert_batches
    tasks = _write(tmp_path / "mgmt.json", records)
    loaded = load_ngdbench_tasks(tasks)
    assert {t["family"] for t in loaded} == {"management"}
    preds = _write(
        tmp_path / "p.json",
        [{"qid": r["qid"], "steps": [s["answer"] for s in r["steps"]]} for r in records],
    )
    m = evaluate_ngdbench(tasks, preds).aggregated["overall"]["management"]
    assert m["n"] == len(records) and m["l_step"] == 1.0


def test_merge_rerun_changes_nothing(concert_batches: Any, concert_db: DisposableNeo4j) -> None:
    records, _ = concert_batches
    merges = [r for r in records if r["operation"] == "MERGE"]
    assert merges
    for r in merges:
        run = concert_db.run_batch(
            [s["operate_query"] for s in r["steps"]],
            [s["valid_query"] for s in r["steps"]],
            check_merge_idempotence=True,
        )
        assert run.ok
        for s, gold in zip(run.steps, r["steps"], strict=True):
            assert s.counters == gold["counters"] and s.counters
            assert "MERGE" in s.write_clauses and s.rerun_counters == {}
    # a MERGE followed by SET is not idempotent: its rerun sets the property again
    run = concert_db.run_batch(
        ["MERGE (n:singer {eid: 'x'}) SET n.Age = 1"],
        ["MATCH (n:singer) RETURN count(n) AS c"],
        check_merge_idempotence=True,
    )
    assert run.steps[0].rerun_counters == {"properties_set": 1}


def test_checks_discard_bad_batches(
    mini_graph: dict[str, Any], mini_db: DisposableNeo4j, tmp_path: Path
) -> None:
    """Each spec §4 check discards a batch, counted by reason; good templates still pass."""

    def tpl(tid: str, op: str, validation: str, params: dict[str, str], **kw: Any) -> Any:
        return {
            "id": tid,
            "difficulty": 1,
            "title": tid,
            "template": [op],
            "parameters": params,
            "validation": validation,
            "nl": {"title": tid, "operate": "do {LABEL}", "valid": "ask {LABEL}"},
            **kw,
        }

    lbl = {"LABEL": "label"}
    new = {**lbl, "NEW1": "new_key:LABEL"}
    num = {**lbl, "NPROP": "num_prop:LABEL", "KEY": "node:LABEL:NPROP", "VALUE1": "value:NPROP"}
    lib = [
        {
            "operation": "CREATE",
            "templates": [
                tpl(  # empty initial state: the node read back does not exist before op 1
                    "EMPTY",
                    "CREATE (n:$LABEL {eid: $NEW1})",
                    "MATCH (n:$LABEL {eid: $NEW1}) RETURN count(n) AS c",
                    new,
                ),
                tpl(  # a write that fails (a duplicate eid breaks the uniqueness constraint)
                    "FAILS",
                    "CREATE (n:$LABEL {eid: $KEY1})",
                    "MATCH (n:$LABEL) RETURN count(n) AS c",
                    {**lbl, "KEY1": "nodes:LABEL"},
                ),
                tpl(
                    "GOOD",
                    "CREATE (n:$LABEL {eid: $NEW1})",
                    "MATCH (n:$LABEL) RETURN count(n) AS c",
                    new,
                ),
            ],
        },
        {
            "operation": "MERGE",
            "templates": [
                tpl(  # MERGE on existing nodes: the op changes nothing
                    "NOOP",
                    "MERGE (n:$LABEL {eid: $KEY1})",
                    "MATCH (n:$LABEL) RETURN count(n) AS c",
                    {**lbl, "KEY1": "nodes:LABEL"},
                ),
                tpl(  # MERGE ... SET: its re-run sets the property again
                    "NOT_IDEMPOTENT",
                    "MERGE (n:$LABEL {eid: $NEW1}) SET n.name = $NEW1",
                    "MATCH (n:$LABEL) RETURN count(n) AS c",
                    new,
                ),
            ],
        },
        {
            "operation": "SET",
            "templates": [
                tpl(  # the validation reads another step's value: step i ≠ op i
                    "MISALIGNED",
                    "MATCH (n:$LABEL {eid: $KEY}) SET n.$NPROP = $VALUE1",
                    "MATCH (n:$LABEL {eid: $KEY}) RETURN n.$NPROP + 1 AS v",
                    num,
                    reads="VALUE1",
                ),
            ],
        },
    ]
    path = _write(tmp_path / "lib.json", lib)
    records, report = generate_management(
        mini_graph,
        mini_db,
        seed=1,
        batches_per_operation=20,
        templates=path,
        operations=["CREATE", "MERGE", "SET"],
    )
    by = report["by_template"]
    assert by["EMPTY"]["kept"] == 0 and set(by["EMPTY"]["rejected"]) == {"empty_initial_state"}
    assert by["FAILS"]["kept"] == 0 and by["FAILS"]["rejected"].get("op_failed")
    assert set(by["FAILS"]["rejected"]) <= {"op_failed", "not_enough_nodes"}
    assert by["NOOP"]["kept"] == 0 and set(by["NOOP"]["rejected"]) <= {
        "op_changed_nothing",
        "not_enough_nodes",
    }
    assert by["NOOP"]["rejected"].get("op_changed_nothing")
    assert by["NOT_IDEMPOTENT"]["kept"] == 0
    assert set(by["NOT_IDEMPOTENT"]["rejected"]) == {"merge_not_idempotent"}
    assert by["MISALIGNED"]["kept"] == 0
    assert set(by["MISALIGNED"]["rejected"]) == {"step_misaligned"}
    assert by["GOOD"]["kept"] == by["GOOD"]["candidates"] == 3  # Company, Country, Person
    assert {r["template_id"] for r in records} == {"GOOD"}
    assert report["rejected"]["op_failed"] == by["FAILS"]["tried"]
    assert mini_db.counts() == mini_db.loaded_counts


def test_template_file_errors(tmp_path: Path) -> None:
    assert len(load_management_templates()) >= 25
    base = {
        "id": "T",
        "template": ["CREATE (n:$LABEL {eid: $NEW1})"],
        "parameters": {"LABEL": "label", "NEW1": "new_key:LABEL"},
        "validation": "MATCH (n:$LABEL) RETURN count(n) AS c",
        "nl": {"title": "t", "operate": "o", "valid": "v"},
    }
    cases = [
        ([{"operation": "UPSERT", "templates": [base]}], "operation 'UPSERT' is not one of"),
        (
            [{"operation": "CREATE", "templates": [{**base, "validation": "RETURN $OTHER"}]}],
            r"slot \$OTHER is not a declared batch parameter",
        ),
        (
            [{"operation": "CREATE", "templates": [{**base, "template": ["CREATE ($NEW2)"]}]}],
            r"a uniform template writes indexed slots as \$NEW1",
        ),
        (
            [
                {
                    "operation": "CREATE",
                    "templates": [{**base, "parameters": {"NEW1": "new_key:LABEL"}}],
                }
            ],
            "refers to 'LABEL', which must be a parameter of kind",
        ),
        ([{"operation": "CREATE", "templates": [base, base]}], "duplicate template id 'T'"),
    ]
    for i, (data, message) in enumerate(cases):
        path = _write(tmp_path / f"bad{i}.json", data)
        with pytest.raises(InputError, match=message) as err:
            load_management_templates(path)
        assert f"bad{i}.json" in str(err.value)


# --------------------------------------------------------------------------- rollback


def test_rollback_leaves_the_database_unchanged(
    concert_batches: Any, concert_db: DisposableNeo4j
) -> None:
    records, _ = concert_batches
    before = _state(concert_db, "stadium", "stadium#Stadium_ID=1", "Capacity")
    assert before == (31, 26, 10104)
    for r in records:  # every kept batch again, each in its own rolled-back transaction
        run = concert_db.run_batch(
            [s["operate_query"] for s in r["steps"]],
            [s["valid_query"] for s in r["steps"]],
            initial_query=r["initial_query"],
        )
        assert run.ok
        assert run.initial is not None and run.initial.answer is not None
        assert [s.counters for s in run.steps] == [s["counters"] for s in r["steps"]]
    # a batch that deletes everything and rewrites the value sees its own writes, then rolls back
    run = concert_db.run_batch(
        [
            "MATCH (s:stadium {eid: 'stadium#Stadium_ID=1'}) SET s.Capacity = 1",
            "MATCH (n) DETACH DELETE n",
        ],
        [
            "MATCH (s:stadium {eid: 'stadium#Stadium_ID=1'}) RETURN s.Capacity AS c",
            "MATCH (n) RETURN count(n) AS c",
        ],
        initial_query="MATCH (n) RETURN count(n) AS c",
    )
    assert run.initial is not None and run.initial.answer == 31
    assert [s.answer for s in run.steps] == [1, 0]
    assert run.steps[1].counters == {"nodes_deleted": 31, "relationships_deleted": 26}
    assert _state(concert_db, "stadium", "stadium#Stadium_ID=1", "Capacity") == before


def test_failure_mid_batch(concert_db: DisposableNeo4j) -> None:
    """A failing op (or validation) at step i: step i failed, the later steps not run, the
    database unchanged (spec §4 Gold; issue "Bad input")."""
    before = _state(concert_db, "singer", "singer#Singer_ID=1", "Age")
    set_age = "MATCH (n:singer {eid: 'singer#Singer_ID=1'}) SET n.Age = AGE"
    read_age = "MATCH (n:singer {eid: 'singer#Singer_ID=1'}) RETURN n.Age AS age"
    run = concert_db.run_batch(
        [
            set_age.replace("AGE", "50"),
            "CREATE (:singer {eid: 'new'})",
            set_age.replace("AGE", "1 / 0"),
            "CREATE ()",
        ],
        [read_age, "MATCH (n:singer) RETURN count(n) AS c", read_age, read_age],
    )
    assert [s.status for s in run.steps] == ["ok", "ok", "failed", "not_run"]
    assert [s.answer for s in run.steps] == [50, 7, None, None]
    assert run.failed_step == 3 and run.steps[2].failed_in == "operate"
    assert run.steps[2].error and "zero" in run.steps[2].error
    assert run.answers == [50, 7, None, None]
    # a validation that fails, and one that would write (refused, not sent)
    run = concert_db.run_batch(
        [set_age.replace("AGE", "60"), set_age.replace("AGE", "61")],
        ["MATCH (n RETURN n", read_age],
    )
    assert [s.status for s in run.steps] == ["failed", "not_run"]
    assert run.steps[0].failed_in == "validation" and run.steps[0].error_class == "syntax"
    run = concert_db.run_batch([set_age.replace("AGE", "62")], ["CREATE (n) RETURN count(n) AS c"])
    assert run.steps[0].status == "failed" and run.steps[0].error_class == "write"
    assert _state(concert_db, "singer", "singer#Singer_ID=1", "Age") == before == (31, 26, 52)


# --------------------------------------------------------------------------- the guard


def test_writes_elsewhere_are_refused_before_sending(
    mini_db: DisposableNeo4j, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import neo4j

    before = _state(mini_db, "Company", "Company#Q95", "launch_year")
    sent: list[Any] = []
    real_driver = neo4j.GraphDatabase.driver

    def spy(uri: str, *a: Any, **k: Any) -> Any:
        sent.append(uri)
        return real_driver(uri, *a, **k)

    monkeypatch.setattr(neo4j.GraphDatabase, "driver", spy)
    wipe = (["MATCH (n) DETACH DELETE n"], ["MATCH (n) RETURN count(n) AS c"])
    # a user's URI, the plain LocalNeo4j inside the disposable database, a driver
    plain = mini_db.server
    for target in ("bolt://127.0.0.1:7687", "neo4j://db.example.com:7687", plain):
        with pytest.raises(WriteRefusedError, match=r"refusing to write to .*not a disposable"):
            run_batch(target, *wipe)
    with mini_db.server.driver() as drv, pytest.raises(WriteRefusedError):
        require_disposable(drv)
    sent.clear()  # the driver just opened above
    # a disposable database whose marker was tampered with
    marker = mini_db.marker_path
    assert marker is not None and marker.name == MARKER_FILE
    saved = marker.read_text(encoding="utf-8")
    try:
        marker.write_text(json.dumps({**json.loads(saved), "token": "x"}), encoding="utf-8")
        with pytest.raises(WriteRefusedError, match="marker file"):
            mini_db.run_batch(*wipe)
        with pytest.raises(WriteRefusedError, match="marker file"):
            run_batch(mini_db.uri, *wipe)
    finally:
        marker.write_text(saved, encoding="utf-8")
    # scoring refuses a management runner that is not a disposable database
    tasks = _write(tmp_path / "t.json", [{"qid": "m", "steps": [{"answer": 1}]}])
    with pytest.raises(WriteRefusedError):
        evaluate_ngdbench(tasks, None, disposable="bolt://127.0.0.1:7687")
    assert sent == []  # nothing was sent anywhere
    assert _state(mini_db, "Company", "Company#Q95", "launch_year") == before
    assert require_disposable(mini_db.uri) is mini_db
    # kgbench creates the directory: a non-empty one is refused
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "data.txt").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="must not exist or be empty"):
        DisposableNeo4j(data_dir=tmp_path / "full")
    stopped = DisposableNeo4j()
    with pytest.raises(WriteRefusedError, match="not running"):
        stopped.run_batch(*wipe)


# --------------------------------------------------------------------------- scoring


def _steps_cypher(r: dict[str, Any]) -> list[dict[str, str]]:
    return [
        {"operate_query": s["operate_query"], "valid_query": s["valid_query"]} for s in r["steps"]
    ]


def test_scoring_cypher_predictions_on_the_disposable_database(
    concert_batches: Any, concert_db: DisposableNeo4j, tmp_path: Path
) -> None:
    records, _ = concert_batches
    before = concert_db.counts()
    tasks = _write(tmp_path / "mgmt.json", records)
    # gold-equal Cypher (steps_cypher; pred_cypher holding the list is read the same way)
    preds = [
        {"qid": r["qid"], ("steps_cypher" if i % 2 else "pred_cypher"): _steps_cypher(r)}
        for i, r in enumerate(records)
    ]
    res = evaluate_ngdbench(tasks, _write(tmp_path / "gold.json", preds), disposable=concert_db)
    m = res.aggregated["overall"]["management"]
    assert m["n"] == len(records) and m["l_step"] == 1.0
    assert all(r["metrics"]["l_step"] == 1.0 for r in res.records)
    assert all(s["status"] == "ok" for r in res.records for s in r["prediction_run"])
    assert res.aggregated["counts"]["failed_queries"] == 0
    # wrong: a different value at step 3 of the first SET batch, and a batch whose step 2
    # fails (it and the later steps score 0; the earlier one counts)
    target = next(r for r in records if r["template_id"] in ("SET_T1", "FOREACH_T2"))
    wrong = _steps_cypher(target)
    value = target["parameters"]["VALUE"][2]
    wrong[2]["operate_query"] = wrong[2]["operate_query"].replace(f"= {value}", f"= {value + 1}")
    failing = next(r for r in records if r["operation"] == "CREATE")
    broken = _steps_cypher(failing)
    broken[1]["operate_query"] = "CREATE (n:stadium {eid: 'stadium#Stadium_ID=1'})"  # duplicate
    preds = [
        {"qid": target["qid"], "steps_cypher": wrong},
        {"qid": failing["qid"], "steps_cypher": broken},
    ]
    res = evaluate_ngdbench(tasks, _write(tmp_path / "wrong.json", preds), disposable=concert_db)
    by = {r["id"]: r for r in res.records}
    assert by[target["qid"]]["metrics"]["l_step"] == pytest.approx(0.8)
    assert by[target["qid"]]["prediction"][2] == value + 1
    rec = by[failing["qid"]]
    assert rec["metrics"]["l_step"] == pytest.approx(0.2)
    assert [s["status"] for s in rec["prediction_run"]] == ["ok", "failed", *["not_run"] * 3]
    assert rec["prediction"][1:] == [None] * 4 and rec["error"] == "client"
    assert concert_db.counts() == before
    # malformed Cypher predictions name the record
    bad = _write(tmp_path / "bad.json", [{"qid": target["qid"], "steps_cypher": "MATCH (n)"}])
    with pytest.raises(InputError, match=r"bad.json record 0: 'steps_cypher' of a management"):
        evaluate_ngdbench(tasks, bad, disposable=concert_db)
    # a plain-string pred_cypher cannot be split into steps: not scored, reason counted
    one = _write(tmp_path / "one.json", [{"qid": target["qid"], "pred_cypher": "MATCH (n)"}])
    res = evaluate_ngdbench(tasks, one, disposable=concert_db)
    assert res.aggregated["counts"]["not_scored_reasons"] == {
        "a management pred_cypher must be a list of {operate_query, valid_query} steps": 1
    }


@pytest.mark.slow
def test_cli_runs_management_cypher_only_with_clean_graph(
    mini_batches: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``kgbench evaluate --family ngdbench --clean-graph`` starts its own disposable database
    (a second server); without it the batches are not scored, and --uri is never written to."""
    records, _ = mini_batches
    records = records[:3]
    tasks = _write(tmp_path / "t.json", records)
    preds = _write(
        tmp_path / "p.json", [{"qid": r["qid"], "steps_cypher": _steps_cypher(r)} for r in records]
    )
    args = ["evaluate", "--family", "ngdbench", "--tasks", str(tasks), "--predictions", str(preds)]
    assert main([*args, "--out", str(tmp_path / "none")]) == 0
    agg = json.loads((tmp_path / "none" / "aggregated_metrics.json").read_text())
    assert agg["counts"]["not_scored_reasons"] == {
        "needs the management runner (steps_cypher of a management batch)": 3
    }
    capsys.readouterr()
    out = tmp_path / "out"
    assert main([*args, "--clean-graph", str(MINI), "--out", str(out)]) == 0
    assert "starting a disposable Neo4j" in capsys.readouterr().err
    agg = json.loads((out / "aggregated_metrics.json").read_text())
    assert agg["overall"]["management"]["n"] == 3
    assert agg["overall"]["management"]["l_step"] == 1.0
    code = main([*args, "--clean-graph", str(tmp_path / "missing.json"), "--out", str(out)])
    assert code == 1 and "--clean-graph" in capsys.readouterr().err
