"""kgbench predict against the chat-completions test double (a real local HTTP server).

The endpoint is the only double: prompts, the replay cache, retries and the output files are
kgbench's own. Backoff delays are made tiny through the API so the module runs in seconds.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat_completions_double import FAST, ChatCompletionsTestDouble, Messages, last_user_content
from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.families import predict
from kgbench.predict import PredictError
from kgbench.predict.cypherbench import postprocess, schema_text

pytestmark = pytest.mark.usefixtures("no_api_key_env")

REPO = Path(__file__).resolve().parents[1]
MINI = REPO / "tests" / "data" / "graphs" / "mini_company.json"


def question_of(messages: Messages) -> str:
    text = last_user_content(messages)
    return text.split("Question: ", 1)[1].split("\n", 1)[0]


def cypher_reply(messages: Messages) -> str:
    """A model that answers in a fence and ends with a chat end token, as many do."""
    q = question_of(messages)
    return f"```cypher\nMATCH (n:Company) WHERE n.name = '{q}' RETURN n.name\n```<|im_end|>"


@pytest.fixture
def server() -> Iterator[ChatCompletionsTestDouble]:
    with ChatCompletionsTestDouble(reply=cypher_reply) as double:
        yield double


@pytest.fixture
def bench(tmp_path: Path) -> dict[str, Path]:
    """Five CypherBench tasks on mini_company and its schema file (CypherBench's layout)."""
    schema = json.loads(MINI.read_text())["schema"]
    schema_dir = tmp_path / "schemas"
    schema_dir.mkdir()
    (schema_dir / "mini_company_schema.json").write_text(json.dumps(schema))
    tasks = [
        {
            "qid": f"q{i}",
            "graph": "mini_company",
            "gold_cypher": "MATCH (n:Company) RETURN n.name",
            "nl_question": f"question {i}",
            "from_template": {
                "match_category": "basic",
                "match_cypher": "MATCH (n)",
                "return_pattern_id": "n_name",
                "return_cypher": "RETURN n.name",
            },
        }
        for i in range(5)
    ]
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(tasks))
    return {"tasks": path, "schema_dir": schema_dir, "out": tmp_path / "out"}


def run_cb(server: ChatCompletionsTestDouble, bench: dict[str, Path], **kw: Any) -> Any:
    args: dict[str, Any] = {
        "base_url": server.url,
        "model": "m",
        "out_dir": bench["out"],
        "schema_dir": bench["schema_dir"],
        **FAST,
    }
    args.update(kw)
    return predict("cypherbench", bench["tasks"], **args)


# -- CypherBench's rules, written out from its code (cypherbench/schema.py) -------------------


def cypherbench_schema_str(data: dict[str, Any]) -> str:
    """PropertyGraphSchema.from_json(data, add_meta_properties={'name': STR}).to_sorted()
    .to_str(exclude_description=True), step by step as CypherBench's code does it."""
    entities = [
        {
            "label": e["label"],
            "description": e.get("description"),
            # from_json: dict(**add_meta_properties, **ent.properties)
            "properties": dict(**{"name": "str"}, **e["properties"]),
        }
        for e in data["entities"]
    ]
    relations = [
        {k: r[k] for k in ("label", "subj_label", "obj_label", "properties")}
        for r in data["relations"]
    ]
    # to_sorted
    entities = sorted(entities, key=lambda x: x["label"])
    relations = sorted(relations, key=lambda x: (x["label"], x["subj_label"], x["obj_label"]))
    for x in entities + relations:
        x["properties"] = dict(sorted(x["properties"].items()))
    # to_json(exclude_description=True): model_dump, then pop 'description'
    res = {"name": data["name"], "entities": entities, "relations": relations}
    for ent in res["entities"]:
        ent.pop("description")
    return json.dumps(res, indent=2)


CYPHERBENCH_PROMPT = (
    "Translate the question to Cypher query based on the schema of a Neo4j knowledge graph.\n"
    "- Output the Cypher query in a single line, without any additional output or "
    "explanation. Do not wrap the query with any formatting like ```.\n"
    "- Perform graph pattern matching in the `MATCH` clause if possible.\n"
    "- Avoid listing the same entity multiple times in the results. However, if multiple "
    "distinct entities share the same name, their names should be repeated as separate "
    "entries.\n"
    "- Do not return node objects. Instead, return entity names or properties.\n"
    "\n"
    "Graph Schema:\n"
    "{schema}\n"
    "\n"
    "Question: {question}\n"
    "Cypher: "
)


def test_schema_text_follows_cypherbench_rules_and_ignores_a_name_property() -> None:
    data = json.loads(MINI.read_text())["schema"]
    data["entities"][0]["description"] = "a company"
    expected = cypherbench_schema_str(data)
    assert schema_text(data, where="t") == expected
    # a file that already has `name` (as `kgbench schema` writes it) gives the same text
    with_name = json.loads(json.dumps(data))
    for e in with_name["entities"]:
        e["properties"] = {"name": "str", **e["properties"]}
    assert schema_text(with_name, where="t") == expected
    # the pinned start of the text: sorted entities, name first among sorted properties
    assert expected.startswith(
        '{\n  "name": "mini_company",\n  "entities": [\n    {\n      "label": "Company",\n'
        '      "properties": {\n        "is_public": "bool",\n        "launch_year": "int",\n'
        '        "name": "str",\n'
    )
    assert '"properties": {}' in expected  # empty objects as json.dumps writes them


def test_cypherbench_run_prompts_postprocessing_and_run_json(
    server: ChatCompletionsTestDouble, bench: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", "sk-secret-123")
    result = run_cb(server, bench, api_key_env="MY_KEY", price_in=1.0, price_out=2.0)
    schema = cypherbench_schema_str(json.loads(MINI.read_text())["schema"])
    assert len(server.requests) == 5
    for i, body in enumerate(sorted(server.requests, key=lambda b: question_of(b["messages"]))):
        assert body["messages"] == [
            {
                "role": "user",
                "content": CYPHERBENCH_PROMPT.format(schema=schema, question=f"question {i}"),
            }
        ]
        assert body["temperature"] == 0.0
        assert body["stop"] == "\n```"
    assert {h["authorization"] for h in server.headers} == {"Bearer sk-secret-123"}
    records = json.loads((bench["out"] / "result.json").read_text())
    assert [r["qid"] for r in records] == [f"q{i}" for i in range(5)]
    assert (
        records[2]["pred_cypher"] == "MATCH (n:Company) WHERE n.name = 'question 2' RETURN n.name"
    )
    assert records[2]["gold_cypher"] == "MATCH (n:Company) RETURN n.name"
    run = json.loads((bench["out"] / "run.json").read_text())
    assert run["model"] == "m" and run["base_url"] == server.url
    assert run["prompt"]["name"] == "cypherbench_zero_shot"
    import hashlib

    assert run["prompt"]["sha256"] == hashlib.sha256(CYPHERBENCH_PROMPT.encode()).hexdigest()
    assert run["counts"] == {
        "tasks": 5,
        "replies_expected": 5,
        "replies": 5,
        "empty_predictions": 0,
    }
    assert run["requests"] == 5 and run["retries"] == 0 and run["complete"] is True
    # the double counts words: prompt words of each message, reply words
    words_in = sum(len(b["messages"][0]["content"].split()) for b in server.requests)
    assert run["prompt_tokens"] == words_in
    assert run["completion_tokens"] == 5 * len(cypher_reply(server.requests[0]["messages"]).split())
    assert run["cost"]["total"] == pytest.approx(
        (words_in * 1.0 + run["completion_tokens"] * 2.0) / 1e6
    )
    assert result.run == run
    for f in bench["out"].iterdir():  # the key is never written
        assert "sk-secret-123" not in f.read_text()


def test_postprocessing_as_cypherbench_plus_end_tokens() -> None:
    assert postprocess("```cypher\nMATCH (n) RETURN n.name\n```") == "MATCH (n) RETURN n.name"
    assert postprocess("  MATCH (n) RETURN n.name<end_of_turn>") == "MATCH (n) RETURN n.name"
    assert postprocess("MATCH (n) RETURN 1<|eot_id|>\nextra") == "MATCH (n) RETURN 1"
    assert postprocess("MATCH (n) RETURN 1</s>") == "MATCH (n) RETURN 1"
    assert postprocess("```") == ""


def test_429_with_retry_after_and_500_are_retried(
    server: ChatCompletionsTestDouble, bench: dict[str, Path]
) -> None:
    server.fail_next(1, status=429, retry_after="1")
    server.fail_next(1, status=500)
    t0 = time.monotonic()
    result = run_cb(server, bench, concurrency=1, max_backoff_s=5.0, backoff_s=0.001)
    assert time.monotonic() - t0 >= 1.0  # Retry-After honoured
    assert result.run["retries"] == 2 and result.run["requests"] == 7
    assert result.run["complete"] is True
    assert all(r["pred_cypher"].startswith("MATCH") for r in result.records)


def test_refusals_and_empty_replies_become_counted_empty_predictions(
    server: ChatCompletionsTestDouble, bench: dict[str, Path]
) -> None:
    server.refuse_next(1)
    server.reply = lambda m: "```" if question_of(m) == "question 3" else cypher_reply(m)
    result = run_cb(server, bench, concurrency=1)
    preds = [r["pred_cypher"] for r in result.records]
    assert preds[0] == "" and preds[3] == ""
    assert all(p for i, p in enumerate(preds) if i not in (0, 3))
    assert result.run["failures"] == {"empty": 1, "refusal": 1}
    assert result.run["counts"]["empty_predictions"] == 2


def test_endpoint_down_stops_with_one_line_error_and_resume_sends_no_request_twice(
    server: ChatCompletionsTestDouble, bench: dict[str, Path]
) -> None:
    run_cb(server, bench, limit=2, concurrency=1)
    assert len(server.requests) == 2
    server.fail_next(50, status=503)
    with pytest.raises(PredictError) as err:
        run_cb(server, bench, concurrency=1, max_retries=2)
    msg = str(err.value)
    assert "\n" not in msg and "kept failing" in msg and "HTTP 503" in msg
    assert "task q2" in msg and "rerun the same command to resume" in msg
    run = json.loads((bench["out"] / "run.json").read_text())
    assert run["complete"] is False and run["error"] and run["predictions"] is None
    # the endpoint comes back: the rerun asks only for what was not answered
    server._script.clear()
    before = len(server.requests)
    result = run_cb(server, bench, concurrency=2)
    assert result.run["cache_hits"] == 2 and result.run["requests"] == 3
    answered = [question_of(b["messages"]) for b in server.requests[:2]]
    answered += [question_of(b["messages"]) for b in server.requests[before:]]
    assert Counter(answered) == Counter(f"question {i}" for i in range(5))


def test_unreachable_endpoint_is_one_line(bench: dict[str, Path]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(PredictError, match=r"could not reach the LLM endpoint"):
        predict(
            "cypherbench",
            bench["tasks"],
            base_url=f"http://127.0.0.1:{port}/v1",
            model="m",
            out_dir=bench["out"],
            schema_dir=bench["schema_dir"],
            max_retries=1,
            **FAST,
        )


def test_non_chat_completions_reply_names_status_and_excerpt(
    server: ChatCompletionsTestDouble, bench: dict[str, Path]
) -> None:
    server.malformed_next("<html>Welcome to nginx</html>", status=200)
    with pytest.raises(PredictError, match=r"HTTP 200.*not JSON.*Welcome to nginx"):
        run_cb(server, bench, concurrency=1)
    server.malformed_next('{"object": "list", "data": []}', status=200)
    with pytest.raises(PredictError, match=r"HTTP 200.*no choices.*\"object\": \"list\""):
        run_cb(server, bench, concurrency=1, cache_path=bench["out"] / "other.jsonl")


def test_slow_replies_run_concurrently_within_the_bound(
    server: ChatCompletionsTestDouble, bench: dict[str, Path]
) -> None:
    server.delay_s = 0.3
    result = run_cb(server, bench, concurrency=3)
    # slow replies overlap (three in flight at once), never more than the bound
    assert server.max_in_flight == 3
    assert result.run["complete"] and len(server.requests) == 5


def test_samples_are_separate_requests_and_cache_entries(
    server: ChatCompletionsTestDouble, bench: dict[str, Path]
) -> None:
    counter = iter(range(1000))
    lock = threading.Lock()

    def varied(messages: Messages) -> str:
        with lock:
            n = next(counter)
        return f"MATCH (n) RETURN {n}"

    server.reply = varied
    result = run_cb(server, bench, samples=3, temperature=0.7, limit=2)
    assert len(server.requests) == 6
    assert all(b["temperature"] == 0.7 for b in server.requests)
    for rec in result.records:
        assert len(rec["pred_cypher_samples"]) == 3
        assert len(set(rec["pred_cypher_samples"])) == 3
        assert rec["pred_cypher"] == rec["pred_cypher_samples"][0]
    again = run_cb(server, bench, samples=3, temperature=0.7, limit=2)
    assert again.records == result.records and len(server.requests) == 6


def test_replay_only_miss_names_the_task(
    server: ChatCompletionsTestDouble, bench: dict[str, Path]
) -> None:
    run_cb(server, bench, limit=3)
    again = run_cb(server, bench, limit=3, replay_only=True)
    assert again.run["requests"] == 0 and again.run["cache_hits"] == 3
    with pytest.raises(PredictError, match=r"task q3: no cached response"):
        run_cb(server, bench, replay_only=True, concurrency=1)


def test_bad_input_is_caught_before_any_request(
    server: ChatCompletionsTestDouble, bench: dict[str, Path], tmp_path: Path
) -> None:
    tasks = json.loads(bench["tasks"].read_text())
    tasks[4]["graph"] = "nowhere"
    bench["tasks"].write_text(json.dumps(tasks))
    with pytest.raises(InputError, match=r"graph 'nowhere' has no schema .*nowhere_schema\.json"):
        run_cb(server, bench)
    tasks[4]["graph"] = "mini_company"
    bench["tasks"].write_text(json.dumps(tasks))
    prompt = tmp_path / "p.txt"
    prompt.write_text("Schema: {schema}\nQ: {quest}\n")
    with pytest.raises(InputError, match=r"placeholder \{question\} is missing"):
        run_cb(server, bench, prompt=prompt)
    assert server.requests == []
    # a user prompt with both placeholders and JSON braces is filled in one pass
    prompt.write_text('{"example": 1}\n{schema}\nQuestion: {question}\n')
    run_cb(server, bench, prompt=prompt, limit=1)
    sent = server.requests[0]["messages"][0]["content"]
    assert sent.startswith('{"example": 1}\n{\n  "name": "mini_company"')


def test_cli_predict(
    server: ChatCompletionsTestDouble,
    bench: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = cli_predict(server, bench)
    out = capsys.readouterr()
    assert code == 0
    assert "tasks\t5\n" in out.out and "empty_predictions\t0\n" in out.out
    assert (bench["out"] / "result.json").is_file()
    # a graph without schema or server: one line, exit 1
    code = cli_predict(server, bench, schema_dir=False)
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1 and "graph 'mini_company' has no schema" in err


@pytest.mark.neo4j
def test_cypherbench_schema_from_server_and_result_json_read_by_evaluate(
    server: ChatCompletionsTestDouble,
    bench: dict[str, Path],
    neo4j_load: Any,
    neo4j_server: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The demo-style graph on a real Neo4j: the prompt's schema fetched from the server
    equals CypherBench's rules applied to the file `kgbench schema` writes (which has `name`)
    and to the same file without `name` (CypherBench's published layout); both list the
    relationships' `rid`, as CypherBench's `--load_schema_from neo4j` does, and
    `--schema-omit-rid` gives the text of the published schema file (no `rid`; issue 39); the
    result.json written is scored by `kgbench evaluate` unchanged."""
    neo4j_load(MINI)
    uri = str(neo4j_server.uri)
    assert (
        main(["schema", "--uri", uri, "--name", "mini_company", "-o", str(tmp_path / "s.json")])
        == 0
    )
    fetched = json.loads((tmp_path / "s.json").read_text())
    assert all("name" in e["properties"] for e in fetched["entities"])
    assert all(r["properties"].get("rid") == "str" for r in fetched["relations"])
    published_layout = json.loads(json.dumps(fetched))
    for e in published_layout["entities"]:
        del e["properties"]["name"]
    expected = cypherbench_schema_str(published_layout)
    assert schema_text(fetched, where="s.json") == expected

    def prompts(out: Path, **kw: Any) -> list[str]:
        before = len(server.requests)
        run_cb(server, bench, out_dir=out, **kw)
        return sorted(b["messages"][0]["content"] for b in server.requests[before:])

    from_server = prompts(tmp_path / "a", schema_dir=None, uri=uri)
    schema_dir = tmp_path / "layout"
    schema_dir.mkdir()
    (schema_dir / "mini_company_schema.json").write_text(json.dumps(published_layout))
    from_file = prompts(tmp_path / "b", schema_dir=schema_dir)
    assert from_server == from_file
    assert from_file[0] == CYPHERBENCH_PROMPT.format(schema=expected, question="question 0")
    assert '"rid": "str"' in expected

    # --schema-omit-rid: the fetched schema leaves rid out and gives the published file's text
    published_file = prompts(tmp_path / "d")  # bench's schema_dir: mini_company.json's schema
    assert not any('"rid"' in p for p in published_file)
    omitted = prompts(tmp_path / "f", schema_dir=None, uri=uri, schema_omit_rid=True)
    assert omitted == published_file
    before = len(server.requests)
    argv = ["predict", "--family", "cypherbench", "--tasks", str(bench["tasks"])]
    argv += ["--base-url", server.url, "--model", "m", "--out", str(tmp_path / "g")]
    assert main([*argv, "--uri", uri, "--schema-omit-rid"]) == 0
    assert sorted(b["messages"][0]["content"] for b in server.requests[before:]) == omitted
    assert json.loads((tmp_path / "g" / "run.json").read_text())["schema_omit_rid"] is True
    assert json.loads((tmp_path / "a" / "run.json").read_text())["schema_omit_rid"] is False

    # result.json is CypherBench's result format: kgbench evaluate reads it unchanged
    server.reply = lambda m: (
        "MATCH (n:Company) RETURN n.name" if question_of(m) == "question 0" else "RETURN 1 +"
    )
    result = run_cb(server, bench, out_dir=tmp_path / "c")
    code = main(
        [
            "evaluate",
            "--tasks",
            str(result.predictions_path),
            "--uri",
            uri,
            "--out",
            str(tmp_path / "e"),
        ]
    )
    assert code == 0
    scored = json.loads((tmp_path / "e" / "result_with_metrics.json").read_text())
    ex = {r["qid"]: r["metrics"]["execution_accuracy"] for r in scored}
    assert ex == {"q0": 1.0, "q1": 0.0, "q2": 0.0, "q3": 0.0, "q4": 0.0}
    capsys.readouterr()


def test_schema_from_an_unreachable_server_is_one_line(bench: dict[str, Path]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(InputError, match=r"graph 'mini_company': could not fetch its schema"):
        predict(
            "cypherbench",
            bench["tasks"],
            base_url="http://127.0.0.1:1/v1",
            model="m",
            out_dir=bench["out"],
            uri=f"bolt://127.0.0.1:{port}",
        )


@pytest.mark.neo4j
def test_cypherbench_samples_give_pass_at_k_in_evaluate(
    server: ChatCompletionsTestDouble,
    bench: dict[str, Path],
    neo4j_load: Any,
    neo4j_server: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`kgbench evaluate --samples 2` on a result.json written with `--samples 2`."""
    neo4j_load(MINI)
    seen: Counter[str] = Counter()
    lock = threading.Lock()

    def reply(messages: Messages) -> str:
        q = question_of(messages)
        with lock:
            nth = seen[q]
            seen[q] += 1
        # question 0: both samples right; question 1: only the second; others: none
        good = (q == "question 0") or (q == "question 1" and nth == 1)
        return "MATCH (n:Company) RETURN n.name" if good else "MATCH (n:Person) RETURN n.name"

    server.reply = reply
    result = run_cb(server, bench, samples=2, temperature=0.5, concurrency=1)
    out = tmp_path / "e"
    argv = ["evaluate", "--tasks", str(result.predictions_path), "--samples", "2"]
    code = main([*argv, "--uri", str(neo4j_server.uri), "--out", str(out)])
    assert code == 0
    assert "pass@2" in capsys.readouterr().out
    scored = {
        r["qid"]: r["metrics"] for r in json.loads((out / "result_with_metrics.json").read_text())
    }
    assert [scored[f"q{i}"]["pass@1"] for i in range(5)] == [1.0, 0.5, 0.0, 0.0, 0.0]
    assert [scored[f"q{i}"]["pass@2"] for i in range(5)] == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert scored["q1"]["execution_accuracy"] == 0.0  # EX is the first sample's
    agg = json.loads((out / "aggregated_metrics.json").read_text())
    assert agg["overall"]["pass@1"] == 0.3 and agg["overall"]["pass@2"] == 0.4


WD50K_DUMP = REPO.parent / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"


@pytest.mark.realdata
@pytest.mark.parametrize("graph", ["demo", "wd50k"])
def test_cypherbench_prompts_on_the_demo_graph_and_wd50k(
    graph: str, server: ChatCompletionsTestDouble, tmp_path: Path
) -> None:
    """The prompt sent for each task equals CypherBench's prompt built by its rules from the
    schema of the converted graph (graph.json's `schema`, CypherBench's schema layout)."""
    from kgbench.convert import convert
    from kgbench.demo import demo_files

    if graph == "demo":
        files = demo_files()
        convert(str(files.schema), [str(p) for p in files.inputs], str(tmp_path / "g"))
    else:
        if not WD50K_DUMP.exists():
            pytest.skip(f"the shared WD50K dump is absent ({WD50K_DUMP})")
        schema_file = REPO / "tests" / "data" / "wd50k" / "wd50k.wd2neo4j.json"
        convert(str(schema_file), [str(WD50K_DUMP)], str(tmp_path / "g"))
    schema = json.loads((tmp_path / "g" / "graph.json").read_text())["schema"]
    name = schema.get("name") or graph
    schema = {**schema, "name": name}
    assert schema["entities"] and schema["relations"]
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / f"{name}_schema.json").write_text(json.dumps(schema))
    questions = ["Who is the author of X?", "Which films were released after 2001?"]
    tasks = [{"qid": i, "graph": name, "nl_question": q} for i, q in enumerate(questions)]
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    predict(
        "cypherbench",
        tmp_path / "tasks.json",
        base_url=server.url,
        model="m",
        out_dir=tmp_path / "out",
        schema_dir=tmp_path / "schemas",
        concurrency=1,
    )
    expected = cypherbench_schema_str(schema)
    sent = sorted(b["messages"][0]["content"] for b in server.requests)
    assert sent == sorted(CYPHERBENCH_PROMPT.format(schema=expected, question=q) for q in questions)


T2C_INSTRUCTION = (  # Neo4j's Text2Cypher (2024) fine-tuned models' model cards
    "Generate Cypher statement to query a graph database. "
    "Use only the provided relationship types and properties in the schema. \n"
    "Schema: {schema} \n Question: {question}  \n Cypher output: "
)


def test_text2cypher_postprocessing_as_neo4j_model_cards() -> None:
    from kgbench.predict.text2cypher import postprocess as t2c

    assert t2c("```cypher\nMATCH (n) RETURN n\n```") == "MATCH (n) RETURN n"
    assert t2c("MATCH (n) RETURN n\n\n**Explanation:**\n\nIt matches.") == "MATCH (n) RETURN n"
    assert t2c("MATCH (n) RETURN n<end_of_turn>") == "MATCH (n) RETURN n"
    # the cards strip the characters of "cypher\n" at the start, as str.lstrip does
    assert t2c("cypher\nMATCH (n) RETURN n") == "MATCH (n) RETURN n"


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_text2cypher_records_read_unchanged_with_their_own_schema(
    fmt: str, server: ChatCompletionsTestDouble, tmp_path: Path
) -> None:
    records = [
        {
            "question": f"How many movies did actor {i} play in?",
            "schema": "(:Actor)-[:ACTED_IN]->(:Movie)" if i else "(:Person {name: STRING})",
            "cypher": "MATCH (a:Actor)-[:ACTED_IN]->(m) RETURN count(m)",
            "data_source": "neo4jLabs_functional_cypher",
            "instance_id": f"instance_id_{i}",
            "database_reference_alias": None if i else "neo4jlabs_demo_db_movies",
        }
        for i in range(3)
    ]
    path = tmp_path / f"t2c.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    else:
        import polars as pl

        frame = pl.DataFrame(records)
        frame.write_csv(path) if fmt == "csv" else frame.write_parquet(path)
    server.reply = lambda m: "```cypher\nMATCH (n) RETURN n\n```\n\n**Explanation:**\n\nAll."
    result = predict(
        "text2cypher", path, base_url=server.url, model="m", out_dir=tmp_path / "out", **FAST
    )
    assert all(
        len(b["messages"]) == 1 and b["messages"][0]["role"] == "user" for b in server.requests
    )
    sent = sorted(b["messages"][0]["content"] for b in server.requests)
    assert sent == sorted(T2C_INSTRUCTION.format(**r) for r in records)
    preds = json.loads((tmp_path / "out" / "predictions.json").read_text())
    assert [p["pred_cypher"] for p in preds] == ["MATCH (n) RETURN n"] * 3
    assert [p["instance_id"] for p in preds] == [r["instance_id"] for r in records]
    assert preds[0]["question"] == records[0]["question"]
    assert result.run["prompt"]["name"] == "text2cypher_neo4j_2024"


def test_google_bleu_and_exact_match_definitions() -> None:
    from kgbench.evaluate.translation import gleu_counts, google_bleu, tokenize_13a

    # 13a: symbols split off ('_' too), a period split unless between digits, quotes kept
    assert tokenize_13a("MATCH (n:Movie {title: 'X'})-[:ACTED_IN]->(m) RETURN n.title, 1.5") == [
        "MATCH", "(", "n", ":", "Movie", "{", "title", ":", "'X'", "}", ")", "-", "[", ":",
        "ACTED", "_", "IN", "]", "-", ">", "(", "m", ")", "RETURN", "n", ".", "title", ",",
        "1.5",
    ]  # fmt: skip
    # "a b c d" vs "a b c e": 10 n-grams each (orders 1-4), 6 shared (a b c, ab bc, abc)
    assert gleu_counts("a b c d", "a b c e") == (6, 10)
    # unequal lengths: min(precision, recall) = shared / the larger count
    assert gleu_counts("a b", "a b c") == (3, 6)
    # corpus score sums before dividing: (6 + 3) / (10 + 6)
    assert google_bleu(["a b c d", "a b"], ["a b c e", "a b c"]) == pytest.approx(9 / 16)
    assert google_bleu([""], [""]) == 0.0


def test_run_text2cypher_scores_google_bleu_and_exact_match(
    server: ChatCompletionsTestDouble, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golds = ["MATCH (n) RETURN n", "MATCH (n) RETURN count(n)"]
    records = [
        {"question": f"q{i}", "schema": "s", "cypher": g, "instance_id": f"i{i}"}
        for i, g in enumerate(golds)
    ]
    path = tmp_path / "t2c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    server.reply = lambda m: "```cypher\nMATCH (n) RETURN n\n```"
    out = tmp_path / "run"
    argv = ["run", "--family", "text2cypher", "--tasks", str(path), "--base-url", server.url]
    # no pass@k for text2cypher: --samples is refused before any request
    assert main([*argv, "--model", "m", "--out", str(out), "--samples", "2"]) == 1
    assert "no pass@k" in capsys.readouterr().err and server.requests == []
    assert main([*argv, "--model", "m", "--out", str(out)]) == 0
    assert "google_bleu" in capsys.readouterr().out
    agg = json.loads((out / "evaluation" / "aggregated_metrics.json").read_text())
    from kgbench.evaluate.translation import google_bleu

    preds = ["MATCH (n) RETURN n"] * 2
    expected = google_bleu(preds, [r["cypher"] for r in records])
    assert agg["overall"] == {"google_bleu": round(expected, 4), "exact_match": 0.5}
    scored = json.loads((out / "evaluation" / "result_with_metrics.json").read_text())
    assert [r["metrics"]["exact_match"] for r in scored] == [1.0, 0.0]
    assert scored[0]["metrics"]["google_bleu"] == 1.0
    # report.html with the translation metrics, a row per record
    html = (out / "report.html").read_text()
    assert ">Google-BLEU<" in html and ">Exact match<" in html
    assert ">i0<" in html and ">i1<" in html and "evaluate --family text2cypher" in html
    # kgbench evaluate --family text2cypher reads predict's output unchanged
    preds_file = out / "predict" / "predictions.json"
    code = main(
        [
            "evaluate",
            "--family",
            "text2cypher",
            "--tasks",
            str(preds_file),
            "--out",
            str(tmp_path / "e"),
        ]
    )
    assert code == 0
    again = json.loads((tmp_path / "e" / "aggregated_metrics.json").read_text())
    assert again["overall"] == agg["overall"]


@pytest.mark.neo4j
def test_run_cypherbench_predicts_evaluates_and_reports(
    server: ChatCompletionsTestDouble,
    bench: dict[str, Path],
    neo4j_load: Any,
    neo4j_server: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`kgbench run --family cypherbench`: predict/, evaluation/ and report.html in one
    directory; the schema comes from --schema-dir, the scoring from --uri."""
    neo4j_load(MINI)
    server.reply = lambda m: (
        "MATCH (n:Company) RETURN n.name" if question_of(m) in ("question 0", "question 1") else ""
    )
    out = tmp_path / "run"
    argv = ["run", "--family", "cypherbench", "--tasks", str(bench["tasks"])]
    argv += ["--schema-dir", str(bench["schema_dir"]), "--base-url", server.url, "--model", "m"]
    assert main([*argv, "--uri", str(neo4j_server.uri), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "empty_predictions\t3\n" in printed and "execution_accuracy" in printed
    run = json.loads((out / "predict" / "run.json").read_text())
    assert run["failures"] == {"empty": 3}
    agg = json.loads((out / "evaluation" / "aggregated_metrics.json").read_text())
    assert agg["overall"]["execution_accuracy"] == 0.4  # 2 of 5
    # report.html: the run's overall metrics (its aggregated_metrics.json) and one row per
    # task with its verdict: q0 and q1 answered with the gold query, the others empty (the
    # error class of run.json's failures)
    html = (out / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>")
    charts = re.search(
        r'<script type="application/json" id="kgbench-charts">(.*?)</script>', html, re.S
    )
    assert charts is not None
    (overall,) = [
        c["figure"]["data"]
        for c in json.loads(charts.group(1))
        if c["figure"]["layout"]["title"]["text"] == "Overall metrics (higher is better)"
    ]
    bars = dict(zip(overall[0]["x"], overall[0]["y"], strict=True))
    assert bars == {"EX": 0.4, "PSJS": agg["overall"]["psjs"], "Exec": agg["overall"]["executable"]}
    table = html.split('id="tasks-table"')[1].split("</table>")[0]
    verdicts = dict(
        re.findall(r'<tr><td>[^<]*</td><td>(q\d)</td><td class="v-\w+">(\w+)</td>', table)
    )
    assert verdicts == {
        "q0": "correct",
        "q1": "correct",
        "q2": "empty",
        "q3": "empty",
        "q4": "empty",
    }


def test_interrupted_run_resumes_without_asking_again(
    server: ChatCompletionsTestDouble, bench: dict[str, Path]
) -> None:
    """`kgbench predict` stopped with Ctrl-C (SIGINT) after some replies; the same command
    again asks only for the tasks whose reply never arrived."""
    import os
    import signal
    import subprocess
    import sys

    server.delay_s = 0.4
    argv = [sys.executable, "-m", "kgbench", "predict", "--family", "cypherbench"]
    argv += ["--tasks", str(bench["tasks"]), "--schema-dir", str(bench["schema_dir"])]
    argv += ["--base-url", server.url, "--model", "m", "--concurrency", "1"]
    argv += ["--out", str(bench["out"])]
    cache = bench["out"] / "cache.jsonl"
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if cache.exists() and len(cache.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    answered = {question_of(json.loads(x)["messages"]) for x in cache.read_text().splitlines()}
    assert 2 <= len(answered) < 5
    assert not (bench["out"] / "result.json").exists()
    run = json.loads((bench["out"] / "run.json").read_text())
    assert run["complete"] is False and run["error"] == "interrupted (Ctrl-C)"
    before = len(server.requests)
    server.delay_s = 0.0
    result = run_cb(server, bench)
    asked_again = [question_of(b["messages"]) for b in server.requests[before:]]
    assert not set(asked_again) & answered  # nothing answered is asked again
    assert set(asked_again) | answered == {f"question {i}" for i in range(5)}
    assert result.run["cache_hits"] == len(answered)


# -- request parameters for endpoints that refuse some (issue 39) ----------------------------


def cli_predict(
    server: ChatCompletionsTestDouble,
    bench: dict[str, Path],
    *extra: str,
    schema_dir: bool = True,
) -> int:
    """``kgbench predict --family cypherbench`` on ``bench`` against the test double, with
    ``extra`` arguments (and ``--schema-dir`` unless ``schema_dir`` is false)."""
    argv = ["predict", "--family", "cypherbench", "--tasks", str(bench["tasks"])]
    argv += ["--base-url", server.url, "--model", "m", "--out", str(bench["out"])]
    if schema_dir:
        argv += ["--schema-dir", str(bench["schema_dir"])]
    return main([*argv, *extra])


def cli_predict_two(server: ChatCompletionsTestDouble, bench: dict[str, Path], *extra: str) -> int:
    """:func:`cli_predict` on the first two tasks, with no retry."""
    return cli_predict(server, bench, "--limit", "2", "--retries", "0", *extra)


def test_default_request_parameters_are_the_seeds_and_recorded(
    server: ChatCompletionsTestDouble, bench: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_predict_two(server, bench, "--max-tokens", "1024") == 0
    capsys.readouterr()
    assert [sorted(b) for b in server.requests] == [
        ["max_tokens", "messages", "model", "stop", "temperature"]
    ] * 2
    run = json.loads((bench["out"] / "run.json").read_text())
    assert run["request_parameters"] == {"temperature": 0.0, "stop": "\n```", "max_tokens": 1024}
    assert run["temperature"] == 0.0 and run["stop"] == "\n```" and run["max_tokens"] == 1024


def test_temperature_none_no_stop_and_reasoning_effort_change_what_is_sent(
    server: ChatCompletionsTestDouble, bench: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_predict_two(server, bench, "--temperature", "none") == 0
    assert all("temperature" not in b and b["stop"] == "\n```" for b in server.requests)
    run = json.loads((bench["out"] / "run.json").read_text())
    assert run["request_parameters"] == {"stop": "\n```"} and run["temperature"] is None
    assert run["requests"] == 2  # not the default's cache entries

    server.requests.clear()
    assert cli_predict_two(server, bench, "--no-stop") == 0
    assert len(server.requests) == 2
    assert all("stop" not in b and b["temperature"] == 0.0 for b in server.requests)
    run = json.loads((bench["out"] / "run.json").read_text())
    assert run["request_parameters"] == {"temperature": 0.0} and run["stop"] is None
    # the reply is still post-processed as CypherBench's baseline does
    records = json.loads((bench["out"] / "result.json").read_text())
    assert (
        records[0]["pred_cypher"] == "MATCH (n:Company) WHERE n.name = 'question 0' RETURN n.name"
    )

    server.requests.clear()
    args = ["--temperature", "none", "--no-stop", "--reasoning-effort", "low"]
    assert cli_predict_two(server, bench, *args, "--max-tokens", "4096") == 0
    assert len(server.requests) == 2
    for body in server.requests:
        assert sorted(body) == ["max_completion_tokens", "messages", "model", "reasoning_effort"]
        assert body["reasoning_effort"] == "low" and body["max_completion_tokens"] == 4096
    run = json.loads((bench["out"] / "run.json").read_text())
    assert run["request_parameters"] == {"max_completion_tokens": 4096, "reasoning_effort": "low"}

    # an explicit field wins over --reasoning-effort's default
    server.requests.clear()
    field = ["--max-tokens-field", "max_tokens", "--max-tokens", "4096"]
    assert cli_predict_two(server, bench, *args, *field) == 0
    assert all(b["max_tokens"] == 4096 for b in server.requests)
    assert all("max_completion_tokens" not in b for b in server.requests)

    # the same options again: every reply from the cache
    server.requests.clear()
    assert cli_predict_two(server, bench, *args, "--max-tokens", "4096") == 0
    assert server.requests == []
    capsys.readouterr()


def test_refused_stop_is_one_line_naming_no_stop(
    server: ChatCompletionsTestDouble, bench: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    body = json.dumps(
        {
            "error": {
                "message": "Unsupported parameter: 'stop' is not supported with this model.",
                "type": "invalid_request_error",
                "param": "stop",
                "code": "unsupported_parameter",
            }
        }
    )
    server.fail_next(5, status=400, body=body)
    code = cli_predict_two(server, bench, "--concurrency", "1")
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1, err
    assert "refused 'stop' (HTTP 400 unsupported_parameter: Unsupported parameter:" in err
    assert err.rstrip().endswith(": rerun with --no-stop")
    assert err.startswith("kgbench predict: error: task q")
    run = json.loads((bench["out"] / "run.json").read_text())
    assert run["complete"] is False and "refused 'stop'" in run["error"]
    assert run["request_parameters"] == {"temperature": 0.0, "stop": "\n```"}


@pytest.mark.parametrize(
    ("param", "code", "hint"),
    [
        ("temperature", "unsupported_value", "--temperature none"),
        ("max_tokens", "unsupported_parameter", "--max-tokens-field max_completion_tokens"),
        ("reasoning_effort", "unsupported_value", "another --reasoning-effort value"),
    ],
)
def test_refused_parameters_name_the_option_that_changes_them(
    server: ChatCompletionsTestDouble, bench: dict[str, Path], param: str, code: str, hint: str
) -> None:
    body = json.dumps(
        {"error": {"message": f"Unsupported value: '{param}'", "param": param, "code": code}}
    )
    server.fail_next(5, status=400, body=body)
    with pytest.raises(PredictError) as info:
        run_cb(
            server,
            bench,
            limit=1,
            max_tokens=16,
            reasoning_effort="minimal",
            max_tokens_field="max_tokens",
        )
    msg = str(info.value)
    assert "\n" not in msg and f"refused '{param}' (HTTP 400 {code}" in msg and hint in msg


def test_bad_temperature_is_an_argparse_error(
    server: ChatCompletionsTestDouble, bench: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        cli_predict_two(server, bench, "--temperature", "hot")
    assert info.value.code == 2
    assert "expected a number or 'none', got 'hot'" in capsys.readouterr().err
    assert server.requests == []
