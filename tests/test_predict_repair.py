"""``kgbench predict --repair N`` (issue 39): the corrector baseline on a real Neo4j.

The model is the chat-completions test double (a real local HTTP server) scripted by the
conversation it receives; the graph is ``mini_company`` on the session Neo4j; the queries go
through the evaluation's read-only path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chat_completions_double import FAST, ChatCompletionsTestDouble, Messages
from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.families import get, predict
from kgbench.families.base import Family
from kgbench.predict.prompt import PromptTemplate
from kgbench.predict.repair import (
    ERROR_CHARS,
    FEEDBACK_PLACEHOLDERS,
    REPAIR_DIR,
    cut_error,
    load_feedback,
)
from kgbench.predict.run import GraphSources

pytestmark = pytest.mark.usefixtures("no_api_key_env")

REPO = Path(__file__).resolve().parents[1]
MINI = REPO / "tests" / "data" / "graphs" / "mini_company.json"
GOLD = "MATCH (c:Company) RETURN count(c) AS n"


@pytest.fixture
def tasks(tmp_path: Path) -> Path:
    """Three CypherBench tasks on mini_company (all with the same gold query)."""
    records = [
        {"qid": f"q{i}", "graph": "mini_company", "gold_cypher": GOLD, "nl_question": f"ask {i}"}
        for i in range(3)
    ]
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(records))
    return path


def question(messages: Messages) -> str:
    return messages[0]["content"].split("Question: ", 1)[1].split("\n", 1)[0]


def feedback_turns(messages: Messages) -> int:
    """The repair rounds the conversation has had (assistant replies so far)."""
    return sum(1 for m in messages if m["role"] == "assistant")


def test_feedback_templates_have_their_placeholders() -> None:
    for language in ("cypher", "sparql"):
        template = load_feedback(language)
        assert template.name == f"repair/{language}"
        assert set(FEEDBACK_PLACEHOLDERS) <= template.placeholders()
    assert cut_error("x" * (ERROR_CHARS + 5)) == "x" * ERROR_CHARS + "..."
    assert cut_error("short") == "short"
    with pytest.raises(InputError, match="no feedback template"):
        load_feedback("gql")
    bad = PromptTemplate.from_text("t", (REPAIR_DIR / "cypher.txt").read_text())
    with pytest.raises(InputError, match=r"\{nope\} is missing"):
        bad.check(["nope"])


def test_repair_without_a_server_is_one_line(
    tasks: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --uri / --graph-uris there is nothing to run the queries on: one line, no
    request sent."""
    schema_dir = tmp_path / "schemas"
    schema_dir.mkdir()
    schema = json.loads(MINI.read_text())["schema"]
    (schema_dir / "mini_company_schema.json").write_text(json.dumps(schema))
    with ChatCompletionsTestDouble(reply=lambda m: GOLD) as double:
        argv = ["predict", "--family", "cypherbench", "--tasks", str(tasks)]
        argv += ["--schema-dir", str(schema_dir), "--base-url", double.url, "--model", "m"]
        code = main([*argv, "--out", str(tmp_path / "out"), "--repair", "2"])
        assert code != 0
        assert double.requests == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--repair needs a Neo4j server" in err and "--uri or --graph-uris" in err


def _text2cypher_records(tmp_path: Path) -> Path:
    records = [
        {"question": f"how many {i}?", "schema": "(:Company)", "cypher": GOLD} for i in range(2)
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize(
    ("family", "needs"),
    [("text2cypher", "--uri or --graph-uris"), ("ngdbench", "needs --uri")],
)
def test_repair_of_other_families_without_a_server_is_one_line(
    family: str, needs: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if family == "text2cypher":
        path = _text2cypher_records(tmp_path)
        extra: list[str] = []
    else:
        path = tmp_path / "ngd.json"
        path.write_text(json.dumps([{"qid": "a", "family": "noagg", "query": GOLD, "answer": []}]))
        schema_dir = tmp_path / "schemas"
        schema_dir.mkdir()
        schema = json.loads(MINI.read_text())["schema"]
        (schema_dir / "ngdbench_schema.json").write_text(json.dumps(schema))
        extra = ["--schema-dir", str(schema_dir)]
    with ChatCompletionsTestDouble(reply=lambda m: "RETURN 1") as double:
        argv = ["predict", "--family", family, "--tasks", str(path), "--repair", "1", *extra]
        argv += ["--base-url", double.url, "--model", "m", "--out", str(tmp_path / "o")]
        assert main(argv) != 0 and double.requests == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--repair" in err and needs in err


def test_repair_of_a_family_without_a_graph_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """gtsqa's queries need its KG (--kg, or --uri with --schema); a family without a graph
    names the mode; a negative --repair is refused."""
    with pytest.raises(InputError, match="--agent with --family gtsqa needs --kg"):
        get("gtsqa").query_checker([], GraphSources(), mode="--agent")
    with pytest.raises(InputError, match="--repair: the gtsqa family has no graph"):
        Family.query_checker(get("gtsqa"), [], GraphSources())  # the default: none
    args: dict[str, Any] = {"base_url": "http://x.invalid/v1", "model": "m", "out_dir": tmp_path}
    with pytest.raises(InputError, match="--repair must be at least 0"):
        predict("cypherbench", tmp_path / "none.json", repair=-1, **args)


@pytest.fixture
def mini(neo4j_load: Any) -> None:
    neo4j_load(MINI)


def _count_nodes(driver: Any) -> int:
    return int(driver.execute_query("MATCH (n) RETURN count(n) AS c")[0][0]["c"])


@pytest.mark.neo4j
@pytest.mark.usefixtures("mini")
def test_syntax_error_is_fed_back_and_the_repaired_query_is_scored(
    tasks: Path, tmp_path: Path, neo4j_server: Any, neo4j_driver: Any
) -> None:
    """ask 0: a syntax error, then the gold query after the feedback (repaired, EX 1);
    ask 1: `CREATE (n)` every time (refused by the gate, never sent: the node count stays;
    rounds exhausted, the last query kept); ask 2: a query with an empty result on the first
    reply (it runs: no repair). A rerun with the same arguments sends no request."""

    def model(messages: Messages) -> str:
        q, turns = question(messages), feedback_turns(messages)
        if q == "ask 0":
            return "MATCH (c:Company RETURN c" if turns == 0 else f"```cypher\n{GOLD}\n```"
        if q == "ask 1":
            return f"CREATE (n:Made {{round: {turns}}})"
        return "MATCH (c:Company) WHERE c.name = 'nobody' RETURN c.name"

    before = _count_nodes(neo4j_driver)
    out = tmp_path / "out"
    uri = str(neo4j_server.uri)
    with ChatCompletionsTestDouble(reply=model) as double:
        args: dict[str, Any] = {"base_url": double.url, "model": "m", "out_dir": out, **FAST}
        result = predict("cypherbench", tasks, uri=uri, repair=2, **args)
        # q0: 2 requests, q1: 3 (exhausted), q2: 1
        assert len(double.requests) == 6
        convo = next(
            r["messages"]
            for r in double.requests
            if question(r["messages"]) == "ask 0" and len(r["messages"]) == 3
        )
        assert [m["role"] for m in convo] == ["user", "assistant", "user"]
        assert convo[1]["content"] == "MATCH (c:Company RETURN c"
        feedback = convo[2]["content"]
        assert "MATCH (c:Company RETURN c" in feedback and "(syntax)" in feedback
        refused = [
            r["messages"][-1]["content"]
            for r in double.requests
            if question(r["messages"]) == "ask 1" and len(r["messages"]) > 1
        ]
        assert len(refused) == 2 and all("(write)" in f and "CREATE" in f for f in refused)
        assert all("nobody" not in r["messages"][-1]["content"] for r in double.requests[1:])
        assert _count_nodes(neo4j_driver) == before

        preds = {r["qid"]: r["pred_cypher"] for r in result.records}
        assert preds == {
            "q0": GOLD,
            "q1": "CREATE (n:Made {round: 2})",
            "q2": "MATCH (c:Company) WHERE c.name = 'nobody' RETURN c.name",
        }
        traces = {
            t["qid"]: t for t in map(json.loads, (out / "repairs.jsonl").read_text().splitlines())
        }
        assert {q: (t["rounds"], t["status"]) for q, t in traces.items()} == {
            "q0": (1, "repaired"),
            "q1": (2, "failing"),
            "q2": (0, "ok"),
        }
        assert [s["error_class"] for s in traces["q0"]["steps"]] == ["syntax", None]
        assert [s["error_class"] for s in traces["q1"]["steps"]] == ["write"] * 3
        assert traces["q0"]["steps"][0]["error"] in feedback
        assert all(len(s.get("error", "")) <= ERROR_CHARS + 3 for s in traces["q0"]["steps"])
        repair = result.run["repair"]
        assert {k: repair[k] for k in ("max_rounds", "initially_failing", "repaired")} == {
            "max_rounds": 2,
            "initially_failing": 2,
            "repaired": 1,
        }
        assert repair["still_failing"] == 1 and repair["rounds_used"] == 3
        assert repair["rounds"] == {"0": 1, "1": 1, "2": 1}
        assert repair["feedback"]["name"] == "repair/cypher"
        run_json = json.loads((out / "run.json").read_text())
        assert run_json["repair"] == repair
        assert result.run["requests"] == 6

        # the same arguments again: every conversation is in the replay cache
        again = predict("cypherbench", tasks, uri=uri, repair=2, **args)
        assert len(double.requests) == 6
        assert again.records == result.records and again.run["cache_hits"] == 6
    assert _count_nodes(neo4j_driver) == before

    # kgbench evaluate scores result.json unchanged: q0 is now correct
    argv = ["evaluate", "--tasks", str(result.predictions_path), "--uri", uri]
    assert main([*argv, "--out", str(tmp_path / "e")]) == 0
    scored = json.loads((tmp_path / "e" / "result_with_metrics.json").read_text())
    ex = {r["qid"]: r["metrics"]["execution_accuracy"] for r in scored}
    assert ex == {"q0": 1.0, "q1": 0.0, "q2": 0.0}


@pytest.mark.neo4j
@pytest.mark.usefixtures("mini")
def test_run_with_repair_and_graph_uris(
    tasks: Path, tmp_path: Path, neo4j_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`kgbench run --repair 1` with --graph-uris: a query naming an unknown function is an
    execution error fed back; the repaired prediction is scored by the run's evaluation."""

    def model(messages: Messages) -> str:
        return "RETURN nosuchfn(1) AS n" if feedback_turns(messages) == 0 else GOLD

    uris = tmp_path / "uris.json"
    uris.write_text(json.dumps({"mini_company": str(neo4j_server.uri)}))
    out = tmp_path / "run"
    with ChatCompletionsTestDouble(reply=model) as double:
        argv = ["run", "--family", "cypherbench", "--tasks", str(tasks), "--limit", "2"]
        argv += ["--graph-uris", str(uris), "--base-url", double.url, "--model", "m"]
        assert main([*argv, "--out", str(out), "--repair", "1"]) == 0
        assert len(double.requests) == 4
    printed = capsys.readouterr().out
    assert "repaired\t2\n" in printed and "still_failing\t0\n" in printed
    traces = [json.loads(x) for x in (out / "predict" / "repairs.jsonl").read_text().splitlines()]
    assert [t["steps"][0]["error_class"] for t in traces] == ["semantic/type"] * 2
    agg = json.loads((out / "evaluation" / "aggregated_metrics.json").read_text())
    assert agg["overall"]["execution_accuracy"] == 1.0


@pytest.mark.neo4j
@pytest.mark.usefixtures("mini")
def test_text2cypher_and_ngdbench_repair_on_uri(
    tmp_path: Path, neo4j_server: Any, neo4j_driver: Any
) -> None:
    """text2cypher with --uri: every record's query runs there. ngdbench with --uri (the
    noisy graph): the analytic task is repaired, the management batch is not (its steps
    write on a disposable copy at evaluation; here nothing is run)."""

    def model(messages: Messages) -> str:
        if feedback_turns(messages):
            return GOLD
        if "Cypher: " in messages[0]["content"] or "how many" in messages[0]["content"]:
            return "MATCH (c:Company RETURN count(c)"
        return "```json\n[]\n```"

    uri = str(neo4j_server.uri)
    before = _count_nodes(neo4j_driver)
    with ChatCompletionsTestDouble(reply=model) as double:
        args: dict[str, Any] = {"base_url": double.url, "model": "m", "uri": uri, **FAST}
        t2c = predict(
            "text2cypher",
            _text2cypher_records(tmp_path),
            out_dir=tmp_path / "t2c",
            repair=1,
            **args,
        )
        assert [r["pred_cypher"] for r in t2c.records] == [GOLD, GOLD]
        assert t2c.run["repair"]["repaired"] == 2 and len(double.requests) == 4

        ngd_tasks = tmp_path / "ngd.json"
        ngd_tasks.write_text(
            json.dumps(
                [
                    {"qid": "a", "family": "noagg", "query": GOLD, "answer": [[5]]},
                    {
                        "qid": "m",
                        "steps": [
                            {
                                "step": 1,
                                "operate_query": "CREATE (n:X)",
                                "valid_query": "MATCH (n:X) RETURN count(n)",
                                "answer": [[1]],
                            }
                        ],
                    },
                ]
            )
        )
        double.requests.clear()
        ngd = predict("ngdbench", ngd_tasks, out_dir=tmp_path / "ngd", repair=3, **args)
        assert len(double.requests) == 3  # analytic: 2, management: 1
    by_qid = {r["qid"]: r for r in ngd.records}
    assert by_qid["a"]["pred_cypher"] == GOLD
    traces = [json.loads(x) for x in (tmp_path / "ngd" / "repairs.jsonl").read_text().splitlines()]
    assert [(t["qid"], t["status"]) for t in traces] == [("a", "repaired")]
    assert ngd.run["repair"]["rounds"] == {"1": 1}
    assert _count_nodes(neo4j_driver) == before


def _concert_singer_rdf(tmp_path: Path) -> Path:
    """Spider's concert_singer converted by `kgbench rdb` into ``tmp_path/rdf``."""
    spider = REPO / "tests" / "data" / "spider"
    rdf = tmp_path / "rdf"
    argv = ["rdb", str(spider / "concert_singer.sqlite")]
    argv += ["--tables", str(spider / "concert_singer.tables.json")]
    assert main([*argv, "--out", str(rdf / "concert_singer")]) == 0
    return rdf


def test_samples_are_repaired_each_in_its_own_conversation(tmp_path: Path) -> None:
    """With --samples 2 each sample is repaired on its own (its own cache entries)."""
    rdf = _concert_singer_rdf(tmp_path)
    tasks_path = tmp_path / "tasks.json"
    tasks_path.write_text(json.dumps([{"qid": "s0", "graph": "concert_singer", "question": "q"}]))
    good = "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"
    with ChatCompletionsTestDouble(
        reply=lambda m: good if feedback_turns(m) else "SELECT ?x WHERE {"
    ) as double:
        args: dict[str, Any] = {"base_url": double.url, "model": "m", **FAST}
        args.update(rdf_dir=rdf, repair=2, samples=2, out_dir=tmp_path / "o")
        result = predict("spider4sparql", tasks_path, **args)
        assert len(double.requests) == 4  # two samples, one repair round each
    assert result.records[0]["predicted_sparql_samples"] == [good, good]
    traces = (tmp_path / "o" / "repairs.jsonl").read_text().splitlines()
    assert [(json.loads(t)["sample"], json.loads(t)["rounds"]) for t in traces] == [(0, 1), (1, 1)]
    assert result.run["repair"]["rounds_used"] == 2


def test_spider4sparql_repair_on_the_rdf_graph(tmp_path: Path) -> None:
    """spider4sparql with --rdf-dir: a SPARQL syntax error is fed back and the repaired query
    is scored EX 1 by `kgbench evaluate`; an update (`INSERT DATA`) does not parse and is fed
    back until the rounds run out (kept); a query with an empty result is not repaired."""
    rdf = _concert_singer_rdf(tmp_path)
    gold = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    questions = ["count everything", "change something", "find nothing"]
    records = [
        {"qid": f"s{i}", "graph": "concert_singer", "nl_question": q, "gold_sparql": gold}
        for i, q in enumerate(questions)
    ]
    tasks_path = tmp_path / "tasks.json"
    tasks_path.write_text(json.dumps(records))

    def model(messages: Messages) -> str:
        first = messages[0]["content"]
        if "count everything" in first:
            return "SELECT ?x WHERE { ?x" if feedback_turns(messages) == 0 else gold
        if "change something" in first:
            return "INSERT DATA { <urn:a> <urn:b> <urn:c> }"
        return "SELECT ?s WHERE { ?s <urn:nosuch> ?o }"

    out = tmp_path / "out"
    with ChatCompletionsTestDouble(reply=model) as double:
        args: dict[str, Any] = {"base_url": double.url, "model": "m", "out_dir": out, **FAST}
        result = predict("spider4sparql", tasks_path, rdf_dir=rdf, repair=1, **args)
        assert len(double.requests) == 5
        again = predict("spider4sparql", tasks_path, rdf_dir=rdf, repair=1, **args)
        assert len(double.requests) == 5 and again.records == result.records
    assert [r["predicted_sparql"] for r in result.records] == [
        gold,
        "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
        "SELECT ?s WHERE { ?s <urn:nosuch> ?o }",
    ]
    traces = [json.loads(x) for x in (out / "repairs.jsonl").read_text().splitlines()]
    assert [(t["status"], [s["error_class"] for s in t["steps"]]) for t in traces] == [
        ("repaired", ["syntax", None]),
        ("failing", ["syntax", "syntax"]),
        ("ok", [None]),
    ]
    assert result.run["repair"]["feedback"]["name"] == "repair/sparql"
    argv = ["evaluate", "--language", "sparql", "--tasks", str(tasks_path)]
    argv += ["--predictions", str(result.predictions_path), "--rdf-dir", str(rdf)]
    assert main([*argv, "--out", str(tmp_path / "e")]) == 0
    scored = json.loads((tmp_path / "e" / "result_with_metrics.json").read_text())
    assert [r["metrics"]["execution_accuracy"] for r in scored] == [1.0, 0.0, 0.0]
