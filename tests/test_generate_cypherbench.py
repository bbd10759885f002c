"""CypherBench's task generator (kgbench.generate.cypherbench) on real graphs in the local Neo4j.

The template file is CypherBench's own (shipped in kgbench/generate/data with its NOTICE); the
traits of ``mini_company`` were drafted by ``kgbench generate traits`` and reviewed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kgbench.generate import TemplateError, generate_cypherbench, load_templates, load_traits
from kgbench.generate.cypherbench import (
    DEFAULT_TEMPLATES,
    escape_and_quote,
    round_number,
)
from kgbench.generate.sampling import java_double, java_text
from kgbench.tasks import TASK_FIELDS

DATA = Path(__file__).parent / "data"
TRAITS = DATA / "generate" / "mini_company.traits.json"


# -- files ---------------------------------------------------------------------------------


def test_shipped_templates_have_cypherbench_patterns() -> None:
    tpl = load_templates(DEFAULT_TEMPLATES)
    assert len(tpl.match_patterns) == 31
    assert len(tpl.return_patterns) == 17
    assert len({mp.category for mp in tpl.match_patterns}) == 12
    chain = tpl.match_patterns[6]
    assert chain.cypher == "MATCH (n)-[r0]->(m0)-[r1]->(m1<name>)"
    assert chain.node_vars == ["n", "m0", "m1"]
    assert chain.relations == [("r0", "n", "m0"), ("r1", "m0", "m1")]
    assert chain.property_constraints == {"m1.name": "m1.name IS NOT NULL"}
    ts = next(mp for mp in tpl.match_patterns if "end_year^" in mp.cypher)
    assert ts.property_constraints == {
        "r0.start_year": "r0.start_year IS NOT NULL",
        "r0.end_year": "r0.end_year IS NULL",
        "m0.name": "m0.name IS NOT NULL",
    }
    union = next(mp for mp in tpl.match_patterns if mp.category == "special_union")
    assert union.cypher_match_pattern == "MATCH (n)-[r0]->(m0), (n)-[r1]->(m1)"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("return_patterns"), r"\$: missing key 'return_patterns'"),
        (
            lambda d: d["match_patterns"][3].update(cypher=5),
            r"\$\.match_patterns\[3\]\.cypher: expected a string",
        ),
        (
            lambda d: d["return_patterns"][2].update(pattern_id="n_bogus"),
            r"\$\.return_patterns\[2\]\.pattern_id: unknown RETURN pattern 'n_bogus'",
        ),
        (
            lambda d: d["match_patterns"][0].update(return_category="nothing"),
            r"\$\.match_patterns\[0\]\.return_category: no RETURN pattern",
        ),
        (
            lambda d: d["match_patterns"][1].update(cypher="MATCH (x<name>)"),
            r"\$\.match_patterns\[1\]\.cypher: the skeleton has no variable \(n\)",
        ),
    ],
)
def test_bad_template_files_name_the_json_path(tmp_path: Path, mutate: Any, message: str) -> None:
    data = json.loads(DEFAULT_TEMPLATES.read_text())
    mutate(data)
    bad = tmp_path / "templates.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(TemplateError, match=re.escape(str(bad)) + ": " + message):
        load_templates(bad)


def test_bad_traits_files_name_the_json_path(tmp_path: Path) -> None:
    data = json.loads(TRAITS.read_text())
    data["mini"]["relations"][1]["obj_cardinality"] = "several"
    bad = tmp_path / "traits.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(TemplateError, match=r"\$\.mini\.relations\[1\]\.obj_cardinality"):
        load_traits(bad, "mini")
    with pytest.raises(TemplateError, match=r"no graph 'nba'.*it has: mini"):
        load_traits(TRAITS, "nba")
    bad.write_text("{not json")
    with pytest.raises(TemplateError, match="not JSON"):
        load_traits(bad)


def test_cypherbench_traits_file_loads_for_every_graph() -> None:
    path = DEFAULT_TEMPLATES.parent / "graph_info.json"
    graphs = json.loads(path.read_text())
    assert len(graphs) == 11
    nba = load_traits(path, "nba")
    assert nba["playsFor"].is_time_sensitive


def test_java_text_matches_apoc_md5_inputs() -> None:
    # spec §6.9: Java's Double.toString, integers, booleans, null, lists
    assert java_double(215.0) == "215.0"
    assert java_double(221.01048) == "221.01048"
    assert java_double(1e7) == "1.0E7"
    assert java_double(10000000.0) == "1.0E7"
    assert java_double(12345678.9) == "1.23456789E7"
    assert java_double(0.001) == "0.001"
    assert java_double(1.5e-5) == "1.5E-5"
    assert java_double(-0.0) == "-0.0"
    assert java_double(-2.5) == "-2.5"
    assert java_text(None) == ""
    assert java_text(True) == "true"
    assert java_text(1991) == "1991"
    assert java_text([1, 2]) == "[1, 2]"
    assert java_text("Ké") == "Ké"


def test_rounding_and_literals_follow_cypherbench() -> None:
    assert round_number(232623, "floor") == 230000
    assert round_number(232623, "ceil") == 240000
    assert round_number(26123.2, "floor") == 26000
    assert round_number(-324, "floor") == -330
    assert round_number(-324, "ceil") == -320
    assert round_number(7.5, "floor") == 7  # int() truncation kept (spec §6.5)
    assert escape_and_quote("O'Neil") == "'O\\'Neil'"
    assert escape_and_quote("a\\b") == "'a\\\\b'"
    assert escape_and_quote("a\\b", escape_backslash=False) == "'a\\b'"
    assert escape_and_quote(3) == "3"


# -- on the local Neo4j --------------------------------------------------------------------


def _generate(uri: str, out: Path | None, **kw: Any) -> Any:
    return generate_cypherbench(uri, None, TRAITS, "mini", out, **kw)


@pytest.mark.neo4j
def test_generates_balanced_validated_tasks(
    neo4j_server: Any, neo4j_load: Any, mini_company_graph: dict[str, Any], tmp_path: Path
) -> None:
    neo4j_load(mini_company_graph)
    res = _generate(neo4j_server.uri, tmp_path / "a")
    tasks = json.loads((tmp_path / "a" / "tasks.json").read_text())
    report = json.loads((tmp_path / "a" / "report.json").read_text())
    assert tasks == res.tasks
    assert len(tasks) == report["tasks"] > 100
    # every MATCH category of the template file is instantiated on this graph
    assert len(report["tasks_by_match_category"]) == 12
    assert set(report["tasks_by_return_template"]) >= {
        "n_name",
        "n_prop",
        "n_name_prop",
        "n_agg",
        "n_where",
        "n_order_by",
        "n_argmax",
        "n_m0_group_by_count",
        "n_m0_comparison_argmax",
        "n_union_count",
        "n_union_name",
        "n_name_special",
    }
    assert report["seed"] == 42 and report["mode"] == "default"
    assert report["queries"] > 0 and report["timing"]["neo4j_s"] > 0
    assert set(report["rejections"]) >= {"realism_a_redundant", "empty", "duplicate", "timeout"}
    for t in tasks:
        assert tuple(t) == TASK_FIELDS
        assert t["gold_cypher"].startswith(t["gold_match_cypher"])
        assert t["nl_question"] == t["nl_question_raw"]
        assert json.loads(t["answer_json"])  # validated: non-empty gold rows
    assert len({t["qid"] for t in tasks}) == len(tasks)
    assert len({t["gold_cypher"] for t in tasks}) == len(tasks)
    # the worked example's shapes: a time-sensitive "currently" question, a comparison
    cypher = {t["gold_cypher"] for t in tasks}
    assert any("r0.end_year IS NULL" in c for c in cypher)
    assert any(c.startswith("MATCH (n:Company {name:") and "(m0:Company" in c for c in cypher)

    # deterministic: the same graph, files and seed give byte-identical tasks.json
    _generate(neo4j_server.uri, tmp_path / "b")
    assert (tmp_path / "a" / "tasks.json").read_bytes() == (
        tmp_path / "b" / "tasks.json"
    ).read_bytes()
    # another seed gives another sample
    other = _generate(neo4j_server.uri, None, seed=7)
    assert {t["gold_cypher"] for t in other.tasks} != cypher

    # generated tasks evaluate cleanly: the gold query as prediction scores EX = PSJS = 1
    from kgbench.evaluate import evaluate

    preds = {t["qid"]: t["gold_cypher"] for t in tasks}
    result = evaluate(tasks, preds, uri=neo4j_server.uri, metrics="ex,psjs")
    for rec in result.records:
        assert rec["metrics"]["execution_accuracy"] == 1.0, rec["gold_cypher"]
        assert rec["metrics"]["psjs"] == 1.0, rec["gold_cypher"]


@pytest.mark.neo4j
def test_caps_and_compat_mode(
    neo4j_server: Any, neo4j_load: Any, mini_company_graph: dict[str, Any]
) -> None:
    neo4j_load(mini_company_graph)
    capped = _generate(neo4j_server.uri, None, per_category=3)
    counts = capped.report["tasks_by_match_category"]
    assert max(counts.values()) <= 3
    assert capped.report["capped"] > 0
    compat = _generate(neo4j_server.uri, None, compat="cypherbench")
    assert compat.report["mode"] == "cypherbench"
    assert compat.report["limits"]["pivot_cap"] is None
    assert len(compat.tasks) > 100
    # the original's order: graph, MATCH pattern order, RETURN pattern order, gold Cypher
    tpl = load_templates(DEFAULT_TEMPLATES)
    mp_order = {mp.category: i for i, mp in reversed(list(enumerate(tpl.match_patterns)))}
    rp_order = {rp.pattern_id: i for i, rp in reversed(list(enumerate(tpl.return_patterns)))}
    keys = [
        (
            mp_order[t["from_template"]["match_category"]],
            rp_order[t["from_template"]["return_pattern_id"]],
            t["gold_cypher"],
        )
        for t in compat.tasks
    ]
    assert keys == sorted(keys)


@pytest.mark.neo4j
def test_missing_traits_warn_and_use_neutral_traits(
    neo4j_server: Any, neo4j_load: Any, mini_company_graph: dict[str, Any], tmp_path: Path
) -> None:
    neo4j_load(mini_company_graph)
    data = json.loads(TRAITS.read_text())
    data["mini"]["relations"] = [r for r in data["mini"]["relations"] if r["label"] != "hasCEO"]
    traits = tmp_path / "traits.json"
    traits.write_text(json.dumps(data))
    logged: list[str] = []
    res = generate_cypherbench(
        neo4j_server.uri, None, traits, "mini", None, log=logged.append, per_category=5
    )
    assert res.report["missing_traits"] == ["hasCEO"]
    assert any("'hasCEO' is not in the traits file" in m for m in logged)
    assert any("hasCEO" in t["gold_cypher"] for t in res.tasks)


@pytest.mark.neo4j
def test_bad_input_leaves_no_tasks_file(
    neo4j_server: Any, neo4j_driver: Any, tmp_path: Path
) -> None:
    from kgbench.errors import KgbenchError
    from kgbench.neo4j import wipe_database

    out = tmp_path / "out"
    with pytest.raises(KgbenchError, match=r"cannot reach Neo4j at bolt://127\.0\.0\.1:1"):
        _generate("bolt://127.0.0.1:1", out)
    assert not out.exists()
    wipe_database(neo4j_driver)
    with pytest.raises(KgbenchError, match="the graph has no entities"):
        _generate(neo4j_server.uri, out)
    assert not out.exists()
    bad = tmp_path / "t.json"
    bad.write_text('{"match_patterns": []}')
    with pytest.raises(TemplateError, match=r"\$\.match_patterns: expected a non-empty list"):
        generate_cypherbench(neo4j_server.uri, bad, TRAITS, "mini", out)
    assert not out.exists()


@pytest.mark.neo4j
def test_cli_prints_counts_and_refuses_bad_files(
    neo4j_server: Any,
    neo4j_load: Any,
    mini_company_graph: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from kgbench.cli import main

    neo4j_load(mini_company_graph)
    argv = ["generate", "cypherbench", "--uri", neo4j_server.uri, "--traits", str(TRAITS)]
    argv += ["--graph", "mini", "--out", str(tmp_path / "cli"), "--quiet", "--per-category", "4"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "MATCH category" in out and "RETURN template" in out
    assert re.search(r"basic_\(n\)-\(m0\)\s+4", out)
    assert (tmp_path / "cli" / "tasks.json").exists()
    bad = tmp_path / "bad_traits.json"
    bad.write_text('{"mini": {"relations": [{"label": 3}]}}')
    argv2 = [*argv[:4], "--traits", str(bad), "--graph", "mini", "--out", str(tmp_path / "x")]
    assert main(argv2) == 1
    err = capsys.readouterr().err
    assert "$.mini.relations[0].label: expected a string" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


@pytest.mark.neo4j
def test_llm_rewrite_through_the_chat_completions_test_double(
    neo4j_server: Any, neo4j_load: Any, mini_company_graph: dict[str, Any], tmp_path: Path
) -> None:
    from chat_completions_double import ChatCompletionsTestDouble, last_user_content
    from kgbench.llm import LLMClient

    def reply(messages: list[dict[str, str]]) -> str:
        text = last_user_content(messages)
        if text.endswith("rewritten_question:"):
            raw = text.split("\nquestion: ", 1)[1].split("\n", 1)[0]
            return f"Rewritten: {raw}"
        return json.dumps(
            {
                "has_same_meaning": True,
                "is_realistic": True,
                "explanation": None,
                "correct_rewrite": None,
            }
        )

    neo4j_load(mini_company_graph)
    cache = tmp_path / "cache.jsonl"
    with ChatCompletionsTestDouble(reply=reply) as server:
        llm = LLMClient(server.url, "test-model", cache_path=cache, backoff_s=0.01)
        res = _generate(neo4j_server.uri, None, per_category=2, llm=llm)
    assert res.tasks
    assert all(t["nl_question"] == f"Rewritten: {t['nl_question_raw']}" for t in res.tasks)
    assert res.report["llm"]["model"] == "test-model"
    # the endpoint is gone: the cache replays the same run exactly
    replay = LLMClient("http://127.0.0.1:1/v1", "test-model", cache_path=cache, replay_only=True)
    again = _generate(neo4j_server.uri, None, per_category=2, llm=replay)
    assert [t["nl_question"] for t in again.tasks] == [t["nl_question"] for t in res.tasks]


@pytest.mark.neo4j
@pytest.mark.slow
def test_generates_on_real_wikidata_statements(wd50k_cypherbench: dict[str, Any]) -> None:
    """Real data: WD50K's Wikidata statements converted with the project's schema (the
    session's generation, conftest ``wd50k_cypherbench``)."""
    report = wd50k_cypherbench["report"]
    tasks = wd50k_cypherbench["tasks"]
    assert report["graph_size"]["nodes"] == 4789
    assert report["tasks"] >= 300
    assert len(report["tasks_by_match_category"]) >= 9
    assert report["missing_traits"] == []
    # the realism filters fire on real relations (mandatory/one-sided traits)
    assert report["rejections"]["realism_c_leaf"] + report["rejections"]["realism_d_group_by"] > 0
    # how the time divides between Neo4j and kgbench is benches/bench_generate.py's to print
    assert report["timing"]["neo4j_s"] > 0 and report["timing"]["kgbench_s"] > 0
    assert len(tasks) == report["tasks"]
    for t in tasks:
        assert json.loads(t["answer_json"])
