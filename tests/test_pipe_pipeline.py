"""``kgbench generate pipe`` end to end (kgbench.generate.pipe.pipeline and its CLI; spec
``pipe-cypher.md`` §2) on the local Neo4j server.

The offline runs use the hand-written ``mini_company`` graph; the LLM path talks real HTTP to
:class:`ChatCompletionsTestDouble` (the only test double) and is replayed from its cache with
the endpoint down; the real-data tests build a benchmark from the WD50K Wikidata statements
(skipped when the shared dump is absent).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat_completions_double import ChatCompletionsTestDouble, last_user_content
from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.generate.pipe.export import SPLITS, manifest_sha256, record_id
from kgbench.generate.pipe.features import CATEGORIES
from kgbench.generate.pipe.gates import REJECTION_BUCKETS, rejection_counts
from kgbench.generate.pipe.pipeline import generate_pipe
from kgbench.generate.pipe.profile import profile_graph
from kgbench.llm import LLMClient
from kgbench.neo4j.executor import GraphReader
from kgbench.tasks import load_tasks

pytestmark = pytest.mark.neo4j

DATA = Path(__file__).parent / "data"
WD50K_DUMP = DATA.parent.parent.parent / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"

EXPORT_FILES = {
    "schema.json",
    "records.jsonl",
    "all.jsonl",
    "train.jsonl",
    "dev.jsonl",
    "test.jsonl",
    "tasks.json",
    "manifest.sha256",
    "report.json",
}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def pipe(uri: str, out: Path, *extra: str) -> int:
    argv = ["generate", "pipe", "--uri", uri, "--out", str(out), "--graph", "mini_company"]
    return main([*argv, "--target", "3", "--quiet", *extra])


def gate_again(uri: str, tasks: Path, out: Path) -> list[dict[str, Any]]:
    """``kgbench gate`` on an export file; returns its ledger."""
    assert main(["gate", "--tasks", str(tasks), "--uri", uri, "--out", str(out), "--quiet"]) == 0
    return read_jsonl(out / "records.jsonl")


def check_funnel(report: dict[str, Any], ledger: list[dict[str, Any]]) -> None:
    funnel = report["funnel"]
    assert funnel == rejection_counts(ledger)
    assert funnel["candidates"] == len(ledger)
    assert funnel["candidates"] == funnel["accepted"] + sum(funnel[b] for b in REJECTION_BUCKETS)
    accepted = Counter(r["category"] for r in ledger if r["accepted"])
    assert report["accepted_by_category"] == dict(accepted)


@pytest.fixture
def mini(neo4j_load: Any, mini_company_graph: dict[str, Any]) -> None:
    neo4j_load(mini_company_graph)


# -- offline on mini_company -------------------------------------------------------------


def test_cli_offline_benchmark(
    neo4j_server: Any,
    neo4j_driver: Any,
    mini: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    uri = neo4j_server.uri
    a = tmp_path / "a"
    assert pipe(uri, a) == 0
    out = capsys.readouterr().out
    assert re.search(r"^candidates +\d+$", out, re.M)
    assert re.search(r"^  rejected diversity +\d+$", out, re.M)
    assert re.search(r"^selected +24  boolean_existence 3, complex_aggregation 3, ", out, re.M)
    assert f"wrote {a}/" in out
    assert {p.name for p in a.iterdir()} == EXPORT_FILES

    # schema.json is the graph profile
    schema = json.loads((a / "schema.json").read_text())
    assert schema == profile_graph(GraphReader(neo4j_driver), graph_name="mini_company")

    # the ledger: one line per candidate, the funnel adds up
    ledger = read_jsonl(a / "records.jsonl")
    report = json.loads((a / "report.json").read_text())
    check_funnel(report, ledger)
    assert {r["graph_profile"] for r in ledger} == {"mini_company"}
    sources = Counter(r.get("source") for r in ledger if r["accepted"])
    assert sources["cypherbench"] > 0 and sources["schema"] > 0
    assert report["cypherbench"]["tasks"] > 0
    assert report["selected_by_category"] == dict.fromkeys(CATEGORIES, 3)

    # the export: accepted ledger rows, pc_ ids, splits, tasks, manifest
    rows = read_jsonl(a / "all.jsonl")
    assert len(rows) == 24 == report["export"]["rows"]
    accepted = {(r["category"], r["question"], r["cypher"]) for r in ledger if r["accepted"]}
    for r in rows:
        assert re.fullmatch(r"pc_[0-9a-f]{16}", r["id"])
        assert r["id"] == record_id(r["graph_profile"], r["category"], r["question"], r["cypher"])
        assert (r["category"], r["question"], r["cypher"]) in accepted
        assert r["gates"]["accepted"] and r["gates"]["judge_pass"]
        assert len(r["result_rows_sample"]) <= 5
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    by_split = {s: read_jsonl(a / f"{s}.jsonl") for s in SPLITS}
    assert sorted(r["id"] for s in SPLITS for r in by_split[s]) == [r["id"] for r in rows]
    assert all(r["split"] == s for s in SPLITS for r in by_split[s])
    manifest = (a / "manifest.sha256").read_text()
    assert manifest == f"{manifest_sha256(rows)}  all.jsonl\n"
    assert manifest.split()[0] == hashlib.sha256((a / "all.jsonl").read_bytes()).hexdigest()
    assert manifest.split()[0] == report["export"]["manifest_sha256"]
    tasks = load_tasks(a / "tasks.json")
    assert [t["qid"] for t in tasks] == [r["id"] for r in rows]
    assert [t["gold_cypher"] for t in tasks] == [r["cypher"] for r in rows]

    # deterministic: a second run gives the same bytes
    b = tmp_path / "b"
    assert pipe(uri, b) == 0
    for name in ("all.jsonl", "records.jsonl", "manifest.sha256", "tasks.json", "test.jsonl"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name

    # every exported record passes the gates again, as CypherBench tasks and as export rows
    for name in ("tasks.json", "all.jsonl"):
        again = gate_again(uri, a / name, tmp_path / f"gate-{name}")
        assert len(again) == len(rows)
        assert all(r["accepted"] for r in again), [r["rejection_reason"] for r in again]
    capsys.readouterr()


def test_signature_disjoint_splits_and_redaction(
    neo4j_server: Any, mini: None, tmp_path: Path
) -> None:
    uri = neo4j_server.uri
    assert pipe(uri, tmp_path / "raw", "--no-cypherbench") == 0
    raw = {r["id"]: r for r in read_jsonl(tmp_path / "raw" / "all.jsonl")}

    sig = ["--no-cypherbench", "--split-mode", "signature_disjoint"]
    assert pipe(uri, tmp_path / "sig", *sig) == 0
    rows = read_jsonl(tmp_path / "sig" / "all.jsonl")
    assert {r["id"] for r in rows} == set(raw)  # the same selection, other splits
    splits_of: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        splits_of[r["signature"]].add(r["split"])
    assert all(len(s) == 1 for s in splits_of.values()), splits_of
    assert {r["split"] for r in rows} == set(SPLITS)
    report = json.loads((tmp_path / "sig" / "report.json").read_text())
    assert report["export"]["split_mode"] == "signature_disjoint"

    assert pipe(uri, tmp_path / "red", "--no-cypherbench", "--redact") == 0
    red = read_jsonl(tmp_path / "red" / "all.jsonl")
    assert {r["id"] for r in red} == set(raw)  # ids are computed on the raw rows
    checked = 0
    for r in red:
        values = {
            v
            for v in raw[r["id"]]["string_literals"] + raw[r["id"]]["entity_values"]
            if len(v.strip()) >= 3
        }
        if values:
            assert "__VALUE_001__" in r["cypher"], r["cypher"]
        for value in values:
            checked += 1
            for text in (r["question"], r["cypher"], json.dumps(r["result_rows_sample"])):
                assert value not in text, (value, text)
    assert checked > 10
    report = json.loads((tmp_path / "red" / "report.json").read_text())
    assert report["export"]["redaction"]["findings"] == 0
    assert report["export"]["redaction"]["rows_with_values"] > 0


def test_diversity_report_of_the_export(
    neo4j_server: Any, mini: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pipe(neo4j_server.uri, tmp_path / "x", "--no-cypherbench") == 0
    capsys.readouterr()
    report_path = tmp_path / "diversity.json"
    argv = ["diversity", str(tmp_path / "x" / "all.jsonl"), "--out", str(report_path)]
    argv += ["--schema", str(tmp_path / "x" / "schema.json")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    match = re.search(r"^PIPE-Diversity +([0-9.]+)$", out, re.M)
    assert match is not None, out
    report = json.loads(report_path.read_text())
    assert report["n"] == 24
    assert f"{report['pipe_diversity_index']['score']:.3f}" == match.group(1)
    assert 0.0 < report["pipe_diversity_index"]["score"] <= 1.0
    assert f"report                    {report_path}" in out


# -- bad input ---------------------------------------------------------------------------


def test_empty_graph_is_a_clear_error(
    neo4j_server: Any,
    neo4j_driver: Any,
    neo4j_load: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    neo4j_load(
        {"schema": {"name": "e", "entities": [], "relations": []}, "entities": [], "relations": []}
    )
    out = tmp_path / "out"
    uri = re.escape(neo4j_server.uri)
    with pytest.raises(InputError, match=rf"the graph at {uri} \(default database\) has no nodes"):
        generate_pipe(GraphReader(neo4j_driver), out)
    assert not out.exists()
    assert pipe(neo4j_server.uri, out) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("kgbench generate: error: the graph at " + neo4j_server.uri)
    assert len(err.splitlines()) == 1
    assert not out.exists()


# -- the LLM path ------------------------------------------------------------------------

BAD = "MATCH (s:Startup) RETURN s.name AS name"
BAD_BOOL = "MATCH (s:Startup) RETURN count(s) > 0 AS answer"
GOOD_COUNT = "MATCH (c:Company) RETURN count(DISTINCT c) AS n"
GOOD_BOOL = "MATCH (c:Company) RETURN count(c) > 0 AS answer"
VERDICT = {
    "pass": True,
    "ambiguity_score": 0.05,
    "semantic_alignment_score": 0.93,
    "schema_use_score": 0.97,
    "difficulty": "easy",
    "failure_reason": "",
}


def model_reply(messages: list[dict[str, str]]) -> str:
    """Counting questions: a valid query at once. Yes/no questions: an invalid query in a
    fence, then a valid repair. Everything else: invalid, and the repair does not parse (the
    pipeline falls back to the deterministic Cypher). The judge passes everything."""
    system = messages[0]["content"]
    if "expert benchmark engineer" in system:
        return json.dumps(VERDICT)
    assert "You translate questions" in system
    question = re.search(r"^Question: (.*)\nCypher:$", messages[1]["content"], re.M | re.S)
    assert question is not None
    text = question.group(1)
    repair = last_user_content(messages).startswith("The query was rejected: ")
    if text.startswith("How many"):
        return GOOD_COUNT
    if text.startswith(("Does ", "Is ")):
        return GOOD_BOOL if repair else f"```cypher\n{BAD_BOOL};\n```"
    return "MATCH (s:Startup RETURN s" if repair else f"Cypher: {BAD}"


@pytest.fixture
def endpoint() -> Iterator[ChatCompletionsTestDouble]:
    with ChatCompletionsTestDouble(reply=model_reply) as server:
        yield server


def test_llm_writes_repairs_falls_back_judges_and_replays(
    neo4j_server: Any,
    neo4j_driver: Any,
    mini: None,
    endpoint: ChatCompletionsTestDouble,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    uri = neo4j_server.uri
    a = tmp_path / "a"
    llm_args = ["--llm-base-url", endpoint.url, "--llm-model", "test-model", "--no-cypherbench"]
    assert pipe(uri, a, *llm_args, "--target", "2") == 0
    capsys.readouterr()
    assert {p.name for p in a.iterdir()} == EXPORT_FILES | {"llm_cache.jsonl"}
    ledger = read_jsonl(a / "records.jsonl")
    report = json.loads((a / "report.json").read_text())
    check_funnel(report, ledger)
    stats = report["llm"]["repairs"]
    assert report["llm"]["model"] == "test-model"
    assert stats["accepted_first"] > 0
    assert stats["accepted_after_repair"] > 0
    assert stats["repairs"] > stats["accepted_after_repair"]
    assert stats["fallback_deterministic"] > 0

    by_model = Counter(r["model"] for r in ledger if r["accepted"])
    assert by_model["test-model"] == stats["accepted_first"] + stats["accepted_after_repair"]
    for r in ledger:
        if r["model"] == "test-model" and r["rejected_at"] != "diversity":
            # G7 may have inserted DISTINCT; a model row is only rejected where the
            # deterministic Cypher could not do better (diversity: checked before the query)
            assert r["cypher"].replace("RETURN DISTINCT", "RETURN") in (GOOD_COUNT, GOOD_BOOL)
            assert r["accepted"] or r["rejected_at"] == "judge"
        elif r["model"] is None:
            assert r["cypher"] not in (BAD, BAD_BOOL)
        if r["accepted"]:  # the model's verdict
            assert r["judge"]["semantic_alignment_score"] == 0.93
            assert r["judge"]["schema_use_score"] == 0.97
    fallbacks = [r for r in ledger if "model_attempt" in r]
    assert len(fallbacks) == stats["fallback_deterministic"]
    for r in fallbacks:
        assert r["model"] is None and r["cypher"] != r["model_attempt"]["cypher"]
        assert r["model_attempt"]["cypher"] == "MATCH (s:Startup RETURN s"
        assert r["model_attempt"]["rejected_at"] == "syntax"
        assert r["model_attempt"]["model"] == "test-model"

    # the prompts: repairs carry the previous (unfenced) query and the gate's reason; the
    # Cypher prompts have the value hints and, later, same-category examples
    cypher_requests = [
        r["messages"] for r in endpoint.requests if "You translate" in r["messages"][0]["content"]
    ]
    repairs = [m for m in cypher_requests if len(m) == 4]
    assert len(repairs) == stats["repairs"]
    for m in repairs:
        assert m[2]["role"] == "assistant" and m[2]["content"] in (BAD, BAD_BOOL)
        assert m[3]["content"] == (
            "The query was rejected: label `Startup` is not in the schema. Write a corrected "
            "query. Answer with the Cypher query only."
        )
    assert any("| Company.name" in m[1]["content"] for m in cypher_requests)
    assert any("Examples (simple_aggregation):" in m[1]["content"] for m in cypher_requests)
    judged = [r for r in endpoint.requests if "expert benchmark" in r["messages"][0]["content"]]
    assert len(judged) >= report["funnel"]["accepted"]

    # the endpoint is down: the cache replays the run exactly (CLI, default cache location)
    n_requests = len(endpoint.requests)
    b = tmp_path / "b"
    down = ["--llm-base-url", "http://127.0.0.1:1/v1", "--llm-model", "test-model"]
    down += ["--llm-cache", str(a / "llm_cache.jsonl"), "--no-cypherbench", "--target", "2"]
    assert pipe(uri, b, *down) == 0
    capsys.readouterr()
    assert (b / "records.jsonl").read_bytes() == (a / "records.jsonl").read_bytes()
    assert (b / "all.jsonl").read_bytes() == (a / "all.jsonl").read_bytes()
    replayed = json.loads((b / "report.json").read_text())["llm"]["stats"]
    assert replayed["requests"] == 0 and replayed["cache_hits"] > 0
    # ... and replay_only through the API
    replay = LLMClient(
        "http://127.0.0.1:1/v1", "test-model", cache_path=a / "llm_cache.jsonl", replay_only=True
    )
    with replay:
        res = generate_pipe(
            GraphReader(neo4j_driver),
            None,
            graph="mini_company",
            target=2,
            cypherbench=False,
            llm=replay,
        )
    assert json.loads(json.dumps(res.ledger, sort_keys=True, default=str)) == ledger
    assert len(endpoint.requests) == n_requests


# -- real data ---------------------------------------------------------------------------

wd50k = pytest.mark.skipif(
    not WD50K_DUMP.exists(), reason=f"the shared WD50K dump is absent ({WD50K_DUMP})"
)


@pytest.fixture(scope="module")
def wd50k_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """WD50K's Wikidata statements converted with the project's schema (once per module)."""
    from kgbench.convert import convert

    out = tmp_path_factory.mktemp("wd50k")
    convert(str(DATA / "wd50k" / "wd50k.wd2neo4j.json"), [str(WD50K_DUMP)], str(out))
    return out / "graph.json"


def check_real_export(uri: str, res: Any, target: int, tmp_path: Path) -> None:
    report = res.report
    check_funnel(report, res.ledger)
    assert report["selected_by_category"] == dict.fromkeys(CATEGORIES, target)
    assert report["planner"]["warnings"] == []
    rows = read_jsonl(tmp_path / "out" / "all.jsonl")
    assert len(rows) == target * len(CATEGORIES)
    assert Counter(r["category"] for r in rows) == dict.fromkeys(CATEGORIES, target)
    again = gate_again(uri, tmp_path / "out" / "all.jsonl", tmp_path / "gate")
    assert all(r["accepted"] for r in again), [r["rejection_reason"] for r in again]


@pytest.mark.realdata
@pytest.mark.slow
@wd50k
def test_real_wikidata_offline(
    neo4j_server: Any, neo4j_driver: Any, neo4j_load: Any, wd50k_graph: Path, tmp_path: Path
) -> None:
    neo4j_load(wd50k_graph)
    res = generate_pipe(
        GraphReader(neo4j_driver, timeout_s=60),
        tmp_path / "out",
        graph="wd50k",
        target=10,
        cypherbench=False,
    )
    check_real_export(neo4j_server.uri, res, 10, tmp_path)
    assert res.report["funnel"]["accepted"] >= 10 * len(CATEGORIES)
    schema = json.loads((tmp_path / "out" / "schema.json").read_text())
    assert len(schema["relationships"]) > 20


@pytest.mark.realdata
@pytest.mark.slow
@wd50k
def test_real_wikidata_with_cypherbench_patterns(
    wd50k_cypherbench: dict[str, Any], tmp_path: Path
) -> None:
    """On the session's WD50K database (conftest ``wd50k_cypherbench``: the same conversion
    as ``wd50k_graph``, read only), whose query cache holds the CypherBench generator's plans."""
    db = wd50k_cypherbench["db"]
    res = generate_pipe(
        GraphReader(db.driver, timeout_s=60),
        tmp_path / "out",
        graph="wd50k",
        target=5,
        cypherbench=True,
        cypherbench_traits=DATA / "wd50k" / "wd50k.traits.json",
    )
    check_real_export(db.uri, res, 5, tmp_path)
    assert res.report["cypherbench"]["tasks"] > 0
    assert any(r.get("source") == "cypherbench" and r["accepted"] for r in res.ledger)
