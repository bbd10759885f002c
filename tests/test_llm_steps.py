"""CypherBench's LLM steps (kgbench.generate.llm_steps) driven by a local chat-completions server.

The endpoint is :class:`ChatCompletionsTestDouble` (real HTTP) answering from scripted replies;
everything else — prompts, the client, reply parsing, the round logic — is the real code.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest

from chat_completions_double import ChatCompletionsTestDouble, last_user_content
from kgbench.errors import InputError
from kgbench.generate.llm_steps import (
    INVALID_LLM_OUT,
    aggregate_verdicts,
    parse_verdict,
    rewrite_prompt,
    rewrite_questions,
    verify_prompt,
    verify_rewrites,
)
from kgbench.llm import LLMClient, LLMError

CYPHER = "MATCH (n:Person)-[r0:playsFor]->(m0:Team {name: 'Toronto Raptors'}) WITH DISTINCT n"


def sample(qid: str, raw: str, question: str | None = None) -> dict[str, Any]:
    return {
        "qid": qid,
        "graph": "nba",
        "gold_cypher": f"{CYPHER} RETURN n.name // {qid}",
        "gold_match_cypher": CYPHER,
        "nl_question_raw": raw,
        "nl_question": question,
        "answer_json": None,
        "from_template": {
            "match_category": "basic_(n)-(m0*)",
            "match_cypher": "MATCH (n)-[r0]->(m0<name>)",
            "return_pattern_id": "n_name",
            "return_cypher": "${match_cypher} WITH DISTINCT n RETURN n.name",
        },
        "pred_cypher": None,
        "metrics": {},
    }


def field(messages: list[dict[str, str]], label: str) -> str:
    match = re.search(rf"^{label}: (.*)$", last_user_content(messages), re.MULTILINE)
    assert match is not None, label
    return match.group(1)


def verdict_json(same: bool, realistic: bool = True, fix: str | None = None) -> str:
    import json

    explanation = None if same and realistic else "scripted reason"
    return json.dumps(
        {
            "has_same_meaning": same,
            "is_realistic": realistic,
            "explanation": explanation,
            "correct_rewrite": fix,
        }
    )


def serve(reply: Callable[[list[dict[str, str]]], str]) -> ChatCompletionsTestDouble:
    return ChatCompletionsTestDouble(reply=reply).start()


def test_rewrite_prompt_structure() -> None:
    messages = rewrite_prompt("MATCH (n:Team) RETURN n.name", "List the names of Team")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == (
        "Cypher: MATCH (n:Team) RETURN n.name\n"
        "question: List the names of Team\n"
        "rewritten_question:"
    )
    rules = messages[0]["content"]
    # the spec §4 themes of the two worked examples, and the output rule
    assert "Near Threatened" in rules and "hasParent" in rules
    assert "killedBy" in rules and "hasFather" in rules
    assert "rewritten question only" in rules


def test_rewrite_questions_through_the_endpoint() -> None:
    replies = {
        'List the names of Person that playsFor "Toronto Raptors"': (
            "  rewritten_question: Who has played for the Toronto Raptors?\n"
        ),
        'What is the height_cm of "A"': "How tall is A in centimetres?",
        "List the names of Team": "   ",
    }
    samples = [sample(f"q{i}", raw) for i, raw in enumerate(replies)]
    double = serve(lambda m: replies[field(m, "question")])
    try:
        with LLMClient(double.url, "gpt-test", max_concurrency=2) as client:
            got = rewrite_questions(client, samples)
    finally:
        double.stop()
    assert got == [
        "Who has played for the Toronto Raptors?",
        "How tall is A in centimetres?",
        "List the names of Team",  # an empty reply keeps the raw question
    ]
    assert sorted(field(r["messages"], "Cypher") for r in double.requests) == sorted(
        s["gold_cypher"] for s in samples
    )
    assert all(r["temperature"] == 0.0 and r["model"] == "gpt-test" for r in double.requests)


def test_rewrite_questions_needs_the_fields() -> None:
    bad = sample("q9", "raw")
    del bad["gold_cypher"]
    client = LLMClient("http://127.0.0.1:9/v1", "m")
    with pytest.raises(InputError, match="sample q9: 'gold_cypher'"):
        rewrite_questions(client, [bad])


def test_verify_prompt_structure() -> None:
    messages = verify_prompt(sample("q1", "raw text", "natural text"))
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"].endswith(
        "Original question: raw text\nRewritten question: natural text\nOutput:"
    )
    for key in ("has_same_meaning", "is_realistic", "explanation", "correct_rewrite"):
        assert key in messages[0]["content"]
    with pytest.raises(InputError, match="'nl_question'"):
        verify_prompt(sample("q1", "raw text"))


def test_parse_verdict_tolerates_fences_and_prose() -> None:
    assert parse_verdict(verdict_json(True)) == {
        "has_same_meaning": True,
        "is_realistic": True,
        "explanation": None,
        "correct_rewrite": None,
    }
    fenced = "Here is my verdict:\n```json\n" + verdict_json(False, True, "Fixed?") + "\n```\n"
    assert parse_verdict(fenced)["correct_rewrite"] == "Fixed?"
    assert parse_verdict(fenced)["has_same_meaning"] is False
    loose = 'Sure. {"has_same_meaning": "True", "is_realistic": "false", "explanation": "x"} ok'
    assert parse_verdict(loose) == {
        "has_same_meaning": True,
        "is_realistic": False,
        "explanation": "x",
        "correct_rewrite": None,
    }
    for text, why in [
        ("I think it is fine.", "no JSON object"),
        ('{"has_same_meaning": true, "is_realistic": tru}', "not valid JSON"),
        ('{"is_realistic": true}', "'has_same_meaning' must be true or false"),
        ('{"has_same_meaning": 1, "is_realistic": true}', "'has_same_meaning' must be"),
        ('{"has_same_meaning": true, "is_realistic": true, "correct_rewrite": 3}', "string or"),
    ]:
        with pytest.raises(LLMError, match=why):
            parse_verdict(text)


def test_verify_test_split_replaces_failures_over_three_rounds() -> None:
    # a: passes; b: fails once, its correct_rewrite then passes; c: passes in a ```json fence;
    # d: never parseable (kept as it is); e: fails twice, fixed in round 2, passes in round 3;
    # f: fails without a correct_rewrite (kept as it is, fails again each round)
    script = {
        "A ok": verdict_json(True),
        "B wrong": verdict_json(False, True, "B fixed"),
        "B fixed": verdict_json(True),
        "C ok": "```json\n" + verdict_json(True) + "\n```",
        "D any": "The rewrite looks fine to me.",
        "E odd": verdict_json(True, False, "E better"),
        "E better": verdict_json(False, True, "E best"),
        "E best": verdict_json(True),
        "F bad": verdict_json(False, False, None),
    }
    samples = [
        sample(f"q{k[0]}", f"raw {k[0]}", k)
        for k in script
        if k.split()[1] in ("ok", "wrong", "any", "odd", "bad")
    ]
    original = copy.deepcopy(samples)
    double = serve(lambda m: script[field(m, "Rewritten question")])
    try:
        with LLMClient(double.url, "m") as client:
            kept, bad = verify_rewrites(client, samples, rounds=3, drop_failures=False)
    finally:
        double.stop()
    assert samples == original  # the input is not modified
    assert [s["qid"] for s in kept] == ["qA", "qB", "qC", "qD", "qE", "qF"]
    assert [s["nl_question"] for s in kept] == [
        "A ok",
        "B fixed",
        "C ok",
        "D any",
        "E best",
        "F bad",
    ]
    assert {k: v for k, v in kept[1].items() if k != "nl_question"} == {
        k: v for k, v in original[1].items() if k != "nl_question"
    }
    summary = [(b["qid"], b["round"], b["nl_question"], b["reason"]) for b in bad]
    assert summary == [
        ("qB", 1, "B wrong", "not_same_meaning"),
        ("qD", 1, "D any", INVALID_LLM_OUT),
        ("qE", 1, "E odd", "not_realistic"),
        ("qF", 1, "F bad", "not_same_meaning+not_realistic"),
        ("qD", 2, "D any", INVALID_LLM_OUT),
        ("qE", 2, "E better", "not_same_meaning"),
        ("qF", 2, "F bad", "not_same_meaning+not_realistic"),
        ("qD", 3, "D any", INVALID_LLM_OUT),
        ("qF", 3, "F bad", "not_same_meaning+not_realistic"),
    ]
    assert bad[0]["verdict"] == parse_verdict(script["B wrong"])
    assert bad[1]["verdict"]["llm_output"] == "The rewrite looks fine to me."
    assert "no JSON object" in bad[1]["verdict"]["error"]
    # every round verifies every sample: 6 samples x 3 rounds
    assert len(double.requests) == 18
    round1 = [b for b in bad if b["round"] == 1]
    assert aggregate_verdicts(6, round1) == {
        "both": pytest.approx(2 / 6),
        "has_same_meaning": pytest.approx(3 / 6),
        "is_realistic": pytest.approx(3 / 6),
    }


def test_verify_train_split_drops_failures_in_one_round() -> None:
    script = {
        "A ok": verdict_json(True),
        "B wrong": verdict_json(False, True, "B fixed"),
        "C junk": "{not json at all",
        "D unreal": verdict_json(True, False, "D fixed"),
        "E ok": verdict_json(True),
    }
    samples = [sample(f"q{k[0]}", f"raw {k[0]}", k) for k in script]
    double = serve(lambda m: script[field(m, "Rewritten question")])
    try:
        with LLMClient(double.url, "m") as client:
            kept, bad = verify_rewrites(client, samples, rounds=1, drop_failures=True)
    finally:
        double.stop()
    assert [(s["qid"], s["nl_question"]) for s in kept] == [("qA", "A ok"), ("qE", "E ok")]
    assert [(b["qid"], b["round"], b["reason"]) for b in bad] == [
        ("qB", 1, "not_same_meaning"),
        ("qC", 1, INVALID_LLM_OUT),
        ("qD", 1, "not_realistic"),
    ]
    assert len(double.requests) == 5


def test_verify_rounds_replay_from_the_cache(tmp_path: Any) -> None:
    script = {
        "A ok": verdict_json(True),
        "B wrong": verdict_json(False, True, "B fixed"),
        "B fixed": verdict_json(True),
    }
    samples = [sample("qA", "raw A", "A ok"), sample("qB", "raw B", "B wrong")]
    cache = tmp_path / "verify.jsonl"
    double = serve(lambda m: script[field(m, "Rewritten question")])
    try:
        with LLMClient(double.url, "m", cache_path=cache) as client:
            kept, bad = verify_rewrites(client, samples, rounds=3, drop_failures=False)
    finally:
        double.stop()
    # only the three distinct prompts reach the server; the other rounds replay verdicts
    assert len(double.requests) == 3
    with LLMClient(double.url, "m", cache_path=cache, replay_only=True) as replay:
        assert verify_rewrites(replay, samples, rounds=3, drop_failures=False) == (kept, bad)
    assert [s["nl_question"] for s in kept] == ["A ok", "B fixed"]


def test_verify_rejects_zero_rounds() -> None:
    client = LLMClient("http://127.0.0.1:9/v1", "m")
    with pytest.raises(InputError, match="rounds"):
        verify_rewrites(client, [], rounds=0, drop_failures=False)
