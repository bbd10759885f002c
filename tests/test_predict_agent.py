"""``kgbench predict --agent`` (issue 39): tool-calling conversations on a real Neo4j.

The model is the chat-completions test double (a real local HTTP server) scripted by the
conversation it receives; the graph is ``mini_company`` on the session Neo4j; ``run_query``
goes through the evaluation's read-only path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chat_completions_double import FAST, ChatCompletionsTestDouble, Messages
from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.families import predict
from kgbench.predict.agent import (
    SYSTEM_PLACEHOLDERS,
    AgentLimits,
    load_system_prompt,
    query_result_text,
    tool_definitions,
)
from kgbench.predict.run import PredictError

pytestmark = pytest.mark.usefixtures("no_api_key_env")

REPO = Path(__file__).resolve().parents[1]
MINI = REPO / "tests" / "data" / "graphs" / "mini_company.json"
GOLD = "MATCH (c:Company) RETURN count(c) AS n"


def _tasks(tmp_path: Path, n: int) -> Path:
    records = [
        {"qid": f"q{i}", "graph": "mini_company", "gold_cypher": GOLD, "nl_question": f"ask {i}"}
        for i in range(n)
    ]
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(records))
    return path


def call(name: str, arguments: Any, ident: str) -> dict[str, Any]:
    """One tool call as an OpenAI reply carries it (``arguments`` a JSON text)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": text}}


def calls(*items: dict[str, Any]) -> dict[str, Any]:
    return {"content": None, "tool_calls": list(items)}


def question(messages: Messages) -> str:
    return next(m["content"] for m in messages if m["role"] == "user")


def turn(messages: Messages) -> int:
    """The assistant replies so far (0 at the first request)."""
    return sum(1 for m in messages if m["role"] == "assistant")


def model(messages: Messages) -> Any:
    """ask 0 explores with two queries and answers; ask 1 tries a CREATE, then answers;
    ask 2 queries until the turns run out; ask 3 sends malformed calls, then answers; ask 4
    answers in plain text (no tool call)."""
    q, t = question(messages), turn(messages)
    if q == "ask 0":
        script = [
            calls(call("get_schema", {}, "a")),
            calls(call("run_query", {"query": "MATCH (c:Company) RETURN c.name AS name"}, "b")),
            calls(call("run_query", {"query": GOLD}, "c")),
            calls(call("final_answer", {"query": f"```cypher\n{GOLD}\n```"}, "d")),
        ]
        return script[t]
    if q == "ask 1":
        if t == 0:
            return calls(call("run_query", {"query": "CREATE (n:Made) RETURN n"}, "w"))
        return calls(call("final_answer", {"query": "MATCH (c:Company) RETURN c.name"}, "x"))
    if q == "ask 2":
        return calls(call("run_query", {"query": f"RETURN {t} AS t"}, f"r{t}"))
    if q == "ask 3":
        if t == 0:
            return calls(
                call("run_query", "{not json", "m1"),
                call("run_sparql", {"query": "SELECT * WHERE { ?s ?p ?o }"}, "m2"),
                call("run_query", {"text": "no query"}, "m3"),
            )
        return calls(call("final_answer", {"query": GOLD}, "m4"))
    return "I think the answer is 5."


def _count_nodes(driver: Any) -> int:
    return int(driver.execute_query("MATCH (n) RETURN count(n) AS c")[0][0]["c"])


def test_tools_limits_and_prompt() -> None:
    names = [t["function"]["name"] for t in tool_definitions("cypher")]
    assert names == ["get_schema", "run_query", "final_answer"]
    assert "SPARQL" in tool_definitions("sparql")[1]["function"]["description"]
    system = load_system_prompt()
    assert system.name == "agent/system" and set(SYSTEM_PLACEHOLDERS) <= system.placeholders()
    text = query_result_text(None, ["n"], [[1], [2], [3]], 2)
    assert json.loads(text) == {
        "columns": ["n"],
        "rows": [[1], [2]],
        "row_count": 3,
        "truncated": True,
    }
    assert json.loads(query_result_text(("syntax", "bad"), [], [], 2)) == {"error": "syntax: bad"}
    with pytest.raises(InputError, match="--max-turns"):
        AgentLimits(max_turns=0).check()


@pytest.fixture
def mini(neo4j_load: Any) -> None:
    neo4j_load(MINI)


@pytest.mark.neo4j
@pytest.mark.usefixtures("mini")
def test_agent_run_explores_refuses_writes_and_resumes(
    tmp_path: Path, neo4j_server: Any, neo4j_driver: Any
) -> None:
    tasks = _tasks(tmp_path, 5)
    uri = str(neo4j_server.uri)
    out = tmp_path / "out"
    before = _count_nodes(neo4j_driver)
    with ChatCompletionsTestDouble(reply=model) as double:
        args: dict[str, Any] = {"base_url": double.url, "model": "m", "out_dir": out, **FAST}
        # interrupted after two tasks (the first two conversations), then resumed
        first = predict("cypherbench", tasks, uri=uri, agent=True, max_turns=4, limit=2, **args)
        sent_first = len(double.requests)
        assert sent_first == 4 + 2
        result = predict("cypherbench", tasks, uri=uri, agent=True, max_turns=4, **args)
        bodies = [json.dumps(r, sort_keys=True) for r in double.requests]
        assert len(bodies) == len(set(bodies)), "a request was sent twice"
        assert len(double.requests) == 4 + 2 + 4 + 2 + 1
        assert first.records == result.records[:2]

        req = double.requests[0]
        assert [t["function"]["name"] for t in req["tools"]] == [
            "get_schema",
            "run_query",
            "final_answer",
        ]
        assert [m["role"] for m in req["messages"]] == ["system", "user"]
        assert "stop" not in req and result.run["request_parameters"] == {"temperature": 0.0}
        convo = next(
            r["messages"]
            for r in double.requests
            if question(r["messages"]) == "ask 0" and turn(r["messages"]) == 3
        )
        tool_results = [m for m in convo if m["role"] == "tool"]
        assert "Company" in tool_results[0]["content"]  # the schema
        listed = json.loads(tool_results[1]["content"])
        assert listed["columns"] == ["name"] and listed["row_count"] == 5
        assert json.loads(tool_results[2]["content"])["rows"] == [[5]]

        preds = {r["qid"]: r["pred_cypher"] for r in result.records}
        assert preds == {
            "q0": GOLD,
            "q1": "MATCH (c:Company) RETURN c.name",
            "q2": "",
            "q3": GOLD,
            "q4": "",
        }
        lines = [json.loads(x) for x in (out / "trajectories.jsonl").read_text().splitlines()]
        traj = {t["qid"]: t for t in lines}
        assert {q: t["ending"] for q, t in traj.items()} == {
            "q0": "answered",
            "q1": "answered",
            "q2": "turns",
            "q3": "answered",
            "q4": "stopped",
        }
        refusal = traj["q1"]["steps"][0]["tool_calls"][0]
        assert refusal["error"] == "write" and "CREATE" in json.loads(refusal["result"])["error"]
        assert traj["q1"]["refused_writes"] == 1 and traj["q1"]["queries"] == 0
        bad = traj["q3"]["steps"][0]["tool_calls"]
        assert [c["error"] for c in bad] == ["malformed"] * 3
        results = [json.loads(c["result"])["error"] for c in bad]
        assert "not a JSON object" in results[0]
        assert "runs Cypher, not SPARQL" in results[1]
        assert "needs a string argument 'query'" in results[2]
        agent = result.run["agent"]
        assert agent["endings"] == {"answered": 3, "turns": 1, "stopped": 1}
        assert agent["malformed_tool_calls"] == 3 and agent["refused_writes"] == 1
        assert agent["queries_executed"] == 2 + 4
        assert agent["turns_per_conversation"] == {"1": 1, "2": 2, "4": 2}
        assert set(agent["graphs"]) == {"mini_company"}
        assert result.run["failures"] == {"agent_stopped": 1, "agent_turns": 1}
        assert json.loads((out / "run.json").read_text())["agent"] == agent

        # offline replay reproduces the run
        replay = predict(
            "cypherbench",
            tasks,
            uri=uri,
            agent=True,
            max_turns=4,
            replay_only=True,
            **{**args, "base_url": "http://replay.invalid/v1"},
        )
        assert replay.records == result.records
    assert _count_nodes(neo4j_driver) == before

    # kgbench evaluate scores the agent's result.json unchanged
    argv = ["evaluate", "--tasks", str(result.predictions_path), "--uri", uri]
    assert main([*argv, "--out", str(tmp_path / "e")]) == 0
    scored = json.loads((tmp_path / "e" / "result_with_metrics.json").read_text())
    ex = {r["qid"]: r["metrics"]["execution_accuracy"] for r in scored}
    assert ex == {"q0": 1.0, "q1": 0.0, "q2": 0.0, "q3": 1.0, "q4": 0.0}
    # ... and breaks EX down by the conversations beside it (q0 4 turns, q1 2, q2 4, q3 2,
    # q4 1): consistent with trajectories.jsonl
    agg = json.loads((tmp_path / "e" / "aggregated_metrics.json").read_text())
    by_turns: dict[str, list[float]] = {}
    by_ending: dict[str, list[float]] = {}
    for t in lines:
        by_turns.setdefault(str(t["turns"]), []).append(ex[t["qid"]])
        by_ending.setdefault(t["ending"], []).append(ex[t["qid"]])
    expect = {
        k: {"n": len(v), "execution_accuracy": round(sum(v) / len(v), 4)}
        for k, v in by_turns.items()
    }
    assert agg["by_turns"] == dict(sorted(expect.items(), key=lambda kv: int(kv[0])))
    assert agg["by_turns"] == {
        "1": {"n": 1, "execution_accuracy": 0.0},
        "2": {"n": 2, "execution_accuracy": 0.5},
        "4": {"n": 2, "execution_accuracy": 0.5},
    }
    assert agg["by_ending"] == {
        "answered": {"n": 3, "execution_accuracy": 0.6667},
        "turns": {"n": 1, "execution_accuracy": 0.0},
        "stopped": {"n": 1, "execution_accuracy": 0.0},
    }
    assert {k: v["n"] for k, v in agg["by_ending"].items()} == {
        k: len(v) for k, v in by_ending.items()
    }
    assert agg["trajectories"] == "../out/trajectories.jsonl"
    # the same predictions without trajectories beside them: no key of the agent
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "result.json").write_bytes(result.predictions_path.read_bytes())
    base = ["evaluate", "--tasks", str(alone / "result.json"), "--uri", uri]
    assert main([*base, "--out", str(tmp_path / "e1")]) == 0
    plain = json.loads((tmp_path / "e1" / "aggregated_metrics.json").read_text())
    assert not {"by_turns", "by_ending", "trajectories"} & set(plain)
    assert plain["overall"] == agg["overall"]
    # ... or with them named
    traj_file = str(out / "trajectories.jsonl")
    assert main([*base, "--trajectories", traj_file, "--out", str(tmp_path / "e2")]) == 0
    named = json.loads((tmp_path / "e2" / "aggregated_metrics.json").read_text())
    assert named["by_turns"] == agg["by_turns"] and named["by_ending"] == agg["by_ending"]

    # the report shows the agent statistics and each task's trajectory beside its verdict
    page = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "e"), "--out", str(page)]) == 0
    html = page.read_text()
    assert '<section id="agent"><h2>Agent runs</h2>' in html
    table = html.split('id="agent-table"')[1].split("</table>")[0]
    cells = [c.split(">", 1)[1].split("</td>")[0] for c in table.split("<td")[1:]]
    assert cells[:8] == [
        "e",
        "5",
        str(agent["turns"]),
        str(agent["tool_calls"]),
        "6",
        "3",
        "1",
        "4",
    ]
    assert "answered 3, turns 1, stopped 1" in table
    turns_table = html.split('id="agent-by-turns"')[1].split("</table>")[0]
    assert "0.5000" in turns_table and "execution_accuracy" in turns_table
    row = next(r for r in html.split("<tr>") if "<td>q1</td>" in r and "traj" in r)
    assert 'class="v-wrong"' in row
    assert "2 turns, 0 queries · answered</summary>" in row
    assert "CREATE (n:Made) RETURN n</code>" in row and "<b>[write]</b>" in row
    assert '<b>final_answer</b> <code class="code">MATCH (c:Company) RETURN c.name</code>' in row
    assert "ending <b>answered</b></div></details>" in row  # the answer as the call gave it
    q0 = next(r for r in html.split("<tr>") if "<td>q0</td>" in r and "traj" in r)
    assert "<b>get_schema</b>" in q0 and "(+" in q0  # the schema result cut short
    # the fenced final_answer, then the prediction as post-processed
    assert f'ending <b>answered</b>: <code class="code">{GOLD}</code></div></details>' in q0

    # and beside a one-shot run of the same tasks, in one multi-run leaderboard
    with ChatCompletionsTestDouble(reply=lambda m: f"```cypher\n{GOLD}\n```") as double:
        one = predict(
            "cypherbench",
            tasks,
            uri=uri,
            base_url=double.url,
            model="m",
            out_dir=tmp_path / "one",
            **FAST,
        )
    argv = ["evaluate", "--tasks", str(tasks), "--uri", uri, "--out", str(tmp_path / "lb")]
    argv += ["--predictions", f"agent={result.predictions_path}"]
    assert main([*argv, "--predictions", f"one-shot={one.predictions_path}"]) == 0
    board = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    overall = {r["name"]: r["overall"]["execution_accuracy"] for r in board["runs"]}
    assert overall == {"agent": pytest.approx(2 / 5), "one-shot": 1.0}
    (pair,) = board["pairs"]
    assert pair["tasks"] == 5

    # a changed graph: the cached tool results no longer hold, named before any request
    neo4j_driver.execute_query("CREATE (:Company {name: 'New'})")
    with pytest.raises(InputError, match="graph 'mini_company' changed since"):
        predict(
            "cypherbench",
            tasks,
            uri=uri,
            agent=True,
            max_turns=4,
            replay_only=True,
            **{**args, "base_url": "http://replay.invalid/v1"},
        )


@pytest.mark.neo4j
@pytest.mark.usefixtures("mini")
def test_endpoint_without_tool_calling_is_one_line(
    tmp_path: Path, neo4j_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Plain text at the first task's first turn, or a 400 naming `tools`: one line
    suggesting --repair."""
    tasks = _tasks(tmp_path, 2)
    with ChatCompletionsTestDouble(reply=lambda m: GOLD) as double:
        args: dict[str, Any] = {"base_url": double.url, "model": "m", **FAST}
        with pytest.raises(PredictError, match=r"may not support tool calling.*--repair"):
            predict(
                "cypherbench",
                tasks,
                uri=str(neo4j_server.uri),
                agent=True,
                out_dir=tmp_path / "a",
                **args,
            )
        assert len(double.requests) == 1
        error = {"error": {"message": "tools are not supported", "param": "tools"}}
        double.fail_next(1, status=400, body=json.dumps(error))
        argv = ["predict", "--family", "cypherbench", "--tasks", str(tasks), "--agent"]
        argv += ["--uri", str(neo4j_server.uri), "--base-url", double.url, "--model", "m"]
        assert main([*argv, "--out", str(tmp_path / "b")]) != 0
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0
    assert "refused 'tools'" in err and "--repair N" in err


def test_agent_and_repair_together_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--agent and --repair"):
        predict(
            "cypherbench",
            _tasks(tmp_path, 1),
            base_url="http://127.0.0.1:9/v1",
            model="m",
            out_dir=tmp_path / "o",
            agent=True,
            repair=1,
        )


def test_run_agent_sparql_gives_ex_by_turns_and_the_report(tmp_path: Path) -> None:
    """``kgbench run --agent`` (spider4sparql, offline: the demo's shipped agent cache
    replayed on concert_singer's RDF): the evaluation has by_turns / by_ending consistent
    with the trajectories, and report.html the agent table and each task's conversation."""
    import shutil

    from kgbench.demo import demo_files
    from kgbench.demo.run import AGENT_CACHE, AGENT_MAX_TURNS, AGENT_MODEL, AGENT_TASKS
    from kgbench.rdb.convert import convert_rdb

    files = demo_files()
    rdf = tmp_path / "spider"
    convert_rdb(files.spider_db, files.spider_tables, "concert_singer", rdf)
    cache = tmp_path / "cache.jsonl"
    shutil.copyfile(AGENT_CACHE, cache)
    out = tmp_path / "run"
    argv = ["run", "--family", "spider4sparql", "--tasks", str(files.s4s_gold), "--agent"]
    argv += ["--rdf-dir", str(rdf), "--max-turns", str(AGENT_MAX_TURNS)]
    argv += ["--limit", str(AGENT_TASKS), "--replay-only", "--cache", str(cache)]
    argv += ["--base-url", "http://replay.invalid/v1", "--model", AGENT_MODEL, "--out", str(out)]
    assert main(argv) == 0
    agg = json.loads((out / "evaluation" / "aggregated_metrics.json").read_text())
    scored = json.loads((out / "evaluation" / "result_with_metrics.json").read_text())
    ex = {str(r["qid"]): r["metrics"]["execution_accuracy"] for r in scored}
    lines = (out / "predict" / "trajectories.jsonl").read_text().splitlines()
    traj = [json.loads(x) for x in lines]
    groups: dict[str, list[float]] = {}
    for t in traj:
        groups.setdefault(str(t["turns"]), []).append(ex[str(t["qid"])])
    assert agg["by_turns"] == {
        k: {"n": len(v), "execution_accuracy": round(sum(v) / len(v), 4)}
        for k, v in sorted(groups.items(), key=lambda kv: int(kv[0]))
    }
    assert agg["by_ending"] == {
        "answered": {"n": 3, "execution_accuracy": 0.6667},
        "turns": {"n": 1, "execution_accuracy": 0.0},
    }
    assert agg["trajectories"] == "../predict/trajectories.jsonl"
    html = (out / "report.html").read_text()
    assert '<section id="agent"><h2>Agent runs</h2>' in html
    assert "answered 3, turns 1" in html.split('id="agent-table"')[1].split("</table>")[0]
    q2 = next(r for r in html.split("<tr>") if "<td>2</td>" in r and "traj" in r)
    assert "4 turns, 2 queries · answered</summary>" in q2
    assert "<b>get_schema</b>" in q2 and "<b>final_answer</b>" in q2
    assert "?singer :name ?name" in q2 and "&quot;row_count&quot;:0" in q2  # the guess: no rows


def test_trajectory_reader_and_where_evaluate_finds_it(tmp_path: Path) -> None:
    """``kgbench.tasks.read_trajectories`` keeps the summary (and the steps when asked),
    never the messages, and names a malformed line; ``trajectories_beside`` finds the file
    beside a prediction file unless that directory's run.json is a one-shot run's."""
    from kgbench.tasks import read_trajectories, trajectories_beside

    path = tmp_path / "trajectories.jsonl"
    line = {"qid": 7, "sample": 0, "ending": "answered", "turns": 2, "steps": [{"turn": 1}]}
    path.write_text(json.dumps({**line, "messages": [{"role": "user"}]}) + "\n")
    (got,) = read_trajectories(path)
    assert got["qid"] == "7" and got["turns"] == 2 and "messages" not in got and "steps" not in got
    assert read_trajectories(path, steps=True)[0]["steps"] == [{"turn": 1}]
    preds = tmp_path / "result.json"
    assert trajectories_beside(preds) == path  # no run.json: the file is taken
    (tmp_path / "run.json").write_text(json.dumps({"agent": {}}))
    assert trajectories_beside(preds) == path
    (tmp_path / "run.json").write_text(json.dumps({"family": "cypherbench"}))
    assert trajectories_beside(preds) is None  # a one-shot run over an agent run's directory
    assert trajectories_beside(tmp_path / "elsewhere" / "result.json") is None
    path.write_text(json.dumps({"qid": 1, "turns": "2", "ending": "answered"}) + "\n")
    with pytest.raises(InputError, match=r"trajectories.jsonl line 1: not a trajectory line"):
        read_trajectories(path)
