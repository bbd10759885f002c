"""SynthKGQA's LLM generator (kgbench.generate.synth.llm_gen; spec synthkgqa.md §3.2-§3.3, §4)
on the spec's worked-example KG (RDF back end), driven by a local chat-completions server.

The endpoint is :class:`ChatCompletionsTestDouble` (real HTTP) answering scripted replies;
prompts, client, parsing, checks and validation are the real code."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chat_completions_double import ChatCompletionsTestDouble, last_user_content
from kgbench.generate.synth.kg import WikidataKG
from kgbench.generate.synth.llm_gen import (
    ReplyChecker,
    build_tree,
    cypher_is_pattern,
    generate_llm_items,
    generation_prompt,
    paraphrase_prompt,
    parse_paraphrase,
    parse_reply,
    seed_graph_text,
    sparql_is_bgp,
    split_triple,
)
from kgbench.generate.synth.template import REASONS, SynthSettings
from kgbench.llm import LLMClient, LLMError
from synth_example import EXAMPLE, LUTE, NAMES, WD, WDT, example_kg

QUESTION = "Which instrument is played by both Yehonatan Geffen's child and Francis Lickerish?"
T1 = "Yehonatan Geffen (Q2911403)-child (P40)-Aviv Geffen (Q453232)"
T2 = "Aviv Geffen (Q453232)-instrument (P1303)-guitar (Q6607)"
T5 = "Francis Lickerish (Q3720616)-instrument (P1303)-guitar (Q6607)"
QUERY = (
    "SELECT ?answer WHERE { wd:Q2911403 wdt:P40 ?a . ?a wdt:P1303 ?answer . "
    "wd:Q3720616 wdt:P1303 ?answer }"
)
PARAPHRASE = "What instrument do Francis Lickerish and the child of Yehonatan Geffen both play?"


def reply(
    question: str = QUESTION,
    nodes: str = "Yehonatan Geffen (Q2911403); Francis Lickerish (Q3720616)",
    answer: str = "guitar (Q6607)",
    triples: str = f"{T1}; {T2}; {T5}",
    query: str = QUERY,
) -> str:
    return (
        f"Question: {question}\nNodes mentioned in the question: {nodes}\nAnswer: {answer}\n"
        f"Triples used: {triples}\nSPARQL query: {query}"
    )


GOOD = reply()

#: One bad reply per rejection reason (spec §3.3), each failing only its own check.
BAD = {
    "invalid_llm_out": "I am sorry, I cannot produce a question for this graph.",
    "invalid_label_format": reply(answer="violin (Q6607)"),
    "no_triple_match": reply(
        triples=f"{T1}; {T2}; Francis Lickerish (Q3720616)-instrument (P1303)-piano (Q5994)"
    ),
    "invalid_sparql": reply(query=QUERY.replace("wd:Q3720616", "wd:Q453232")),
    "no_answer_match": reply(
        nodes="Francis Lickerish (Q3720616)",
        answer="piano (Q5994)",
        triples=T5,
        query="SELECT ?answer WHERE { wd:Q3720616 wdt:P1303 ?answer }",
    ),
    "invalid_graph_template": reply(
        nodes="Yehonatan Geffen (Q2911403)",
        triples=f"{T1}; {T2}; Aviv Geffen (Q453232)-instrument (P1303)-piano (Q5994)",
        query="SELECT ?answer WHERE { wd:Q2911403 wdt:P40 ?a . ?a wdt:P1303 ?answer . }",
    ),
}


def is_paraphrase(messages: list[dict[str, str]]) -> bool:
    return "Graph:" not in last_user_content(messages)


def script(generation: str, paraphrase: str = PARAPHRASE) -> Callable[[Any], str]:
    return lambda messages: paraphrase if is_paraphrase(messages) else generation


def run(
    kg: WikidataKG,
    answer: Callable[[Any], str],
    settings: SynthSettings,
    **kwargs: Any,
) -> tuple[list[dict[str, Any]], dict[str, Any], ChatCompletionsTestDouble]:
    double = ChatCompletionsTestDouble(reply=answer).start()
    try:
        with LLMClient(double.url, "gpt-test", **kwargs) as client:
            items, extra = generate_llm_items(kg, settings, client, source="example")
    finally:
        double.stop()
    return items, extra, double


def _whole(kg: WikidataKG) -> tuple[list[int], list[int]]:
    return list(range(len(kg.qids))), list(range(len(kg.triples)))


# -- pieces ---------------------------------------------------------------------------------


def test_seed_graph_text_and_prompt(tmp_path: Path) -> None:
    kg = example_kg(tmp_path, EXAMPLE)
    _nodes, triples = _whole(kg)
    text = seed_graph_text(kg, list(reversed(triples)))
    # KG order (triple index), ';'-joined, "label (ID)" spellings
    assert text.split(";") == [
        f"{kg.named(h)}-{kg.relation_named(r)}-{kg.named(t)}"
        for h, r, t in (kg.triple(j) for j in triples)
    ]
    assert T1 in text.split(";") and T5 in text.split(";")
    messages = generation_prompt(text, 3)
    assert messages[0]["role"] == "system"
    rules = messages[0]["content"]
    for phrase in (
        "exactly k triples",
        "unique and unambiguous",
        "k + 1 different entities",
        "no smaller set of triples",
        "Nodes mentioned in the question:",
        "SPARQL query:",
        "wdt:",
        "?answer",
    ):
        assert phrase in rules, phrase
    assert messages[-1] == {"role": "user", "content": f"Use exactly 3 triples.\nGraph: {text}"}
    shots = messages[1:-1]
    assert len(shots) == 16 and [m["role"] for m in shots] == ["user", "assistant"] * 8
    # the same-k examples come last, and every example reply parses
    assert shots[-2]["content"].startswith("Use exactly 3 triples.")
    for m in shots[1::2]:
        cand = parse_reply(m["content"])
        assert cand is not None and sparql_is_bgp(cand.query)
    cypher = generation_prompt("a (x)-R-b (y)", 2, "Cypher")
    assert "RETURN DISTINCT answer.eid AS answer" in cypher[0]["content"]
    for m in cypher[2:-1:2]:
        cand = parse_reply(m["content"], "Cypher")
        assert cand is not None and cypher_is_pattern(cand.query), m["content"]
        assert all(split_triple(t) is not None for t in cand.triples)
    assert paraphrase_prompt("Q?")[-1] == {"role": "user", "content": "Question: Q?"}


def test_parse_reply_and_triples() -> None:
    cand = parse_reply(
        "**Question:** Who?,\n- Nodes mentioned in the question: a (Q1);b (Q2);\n"
        "Answer: c (Q3)\nTriples used: a (Q1)-r (P1)-c (Q3)\nSPARQL query:\n```sparql\n"
        "SELECT ?answer WHERE {\n  wd:Q1 wdt:P1 ?answer .\n}\n```"
    )
    assert cand is not None
    assert cand.question == "Who?"
    assert cand.seeds == ["a (Q1)", "b (Q2)"]
    assert cand.query == "SELECT ?answer WHERE { wd:Q1 wdt:P1 ?answer . }"
    assert parse_reply(GOOD.replace("Answer:", "Solution:")) is None
    assert parse_reply(GOOD.replace("SPARQL query: ", "SPARQL query:\n")) is not None
    assert parse_reply("Question: \n" + GOOD) is None  # the first Question line is empty
    assert split_triple("Jean-Paul (Q1)-child (P40)-B (film) (Q2)") == (
        "Jean-Paul (Q1)",
        "child (P40)",
        "B (film) (Q2)",
    )
    assert split_triple("a (e1)-PLAYS-b-c (e2)") == ("a (e1)", "PLAYS", "b-c (e2)")
    assert split_triple("no triple here") is None


def test_query_forms() -> None:
    assert sparql_is_bgp(QUERY)
    assert sparql_is_bgp(
        "SELECT DISTINCT ?answer WHERE { ?f wdt:P1 wd:Q1 ; wdt:P2 ?answer , wd:Q2 . }"
    )
    assert sparql_is_bgp("PREFIX wd: <x> SELECT ?answer { wd:Q1 wdt:P1 ?answer }")
    assert not sparql_is_bgp(
        "SELECT ?answer WHERE { wd:Q1 wdt:P1 ?answer FILTER(?answer != wd:Q2) }"
    )
    assert not sparql_is_bgp("SELECT ?x WHERE { wd:Q1 wdt:P1 ?x }")
    assert not sparql_is_bgp("SELECT ?answer WHERE { wd:Q1 wdt:P1 ?answer } LIMIT 1")
    assert not sparql_is_bgp("SELECT ?answer WHERE { wd:Q1 rdfs:label ?answer }")
    assert not sparql_is_bgp("SELECT ?answer WHERE { wd:Q1 wdt:P1 ?answer wdt:P2 ?b }")
    ok = "MATCH (a {eid: 'x'})-[:R]->(answer) RETURN DISTINCT answer.eid AS answer"
    assert cypher_is_pattern(ok)
    assert cypher_is_pattern(ok.replace("'x'", "'NOT OR WITH'"))  # words inside literals
    assert not cypher_is_pattern(ok.replace("MATCH", "OPTIONAL MATCH"))
    assert not cypher_is_pattern(ok.replace("RETURN DISTINCT answer.eid", "RETURN answer.name"))
    assert not cypher_is_pattern("MATCH (a) DETACH DELETE a RETURN DISTINCT a.eid AS answer")


def test_build_tree() -> None:
    t1, t2, t5 = EXAMPLE[0], EXAMPLE[1], EXAMPLE[4]
    tree = build_tree([t1, t2, t5], ["Q2911403", "Q3720616"], "Q6607")
    assert tree is not None
    assert tree.nodes[0] == "Q6607" and tree.triples == [t1, t2, t5]
    assert [(tree.nodes[p], tree.nodes[c]) for p, c in tree.edges] == [
        ("Q453232", "Q2911403"),
        ("Q6607", "Q453232"),
        ("Q6607", "Q3720616"),
    ]
    assert [tree.nodes[s] for s in tree.seeds] == ["Q2911403", "Q3720616"]
    assert build_tree([t1, t2], ["Q2911403"], "Q2911403") is None  # self-answer
    assert build_tree([t1, t2, t5], ["Q2911403"], "Q6607") is None  # hanging branch
    assert build_tree([t2, EXAMPLE[2]], ["Q6607"], "Q5994") is not None
    assert build_tree([t2, t5], ["Q453232", "Q6607"], "Q3720616") is None  # internal seed
    assert build_tree([t1, t5], ["Q2911403", "Q3720616"], "Q6607") is None  # disconnected
    parallel = ("Q453232", "P40", "Q6607")
    assert build_tree([t2, parallel], ["Q453232"], "Q6607") is None
    assert build_tree([t1], ["Q2911403"], "Q5994") is None  # answer absent


def test_checker_reasons_on_a_partial_seed_graph(tmp_path: Path) -> None:
    kg = example_kg(tmp_path, EXAMPLE)
    checker = ReplyChecker(kg, SynthSettings())
    nodes, triples = _whole(kg)
    got = checker.check(GOOD, nodes, triples)
    assert not isinstance(got, str)
    cand, tree, answers = got
    assert cand.question == QUESTION and answers == {"Q6607"}
    assert sorted(tree.triples) == sorted([EXAMPLE[0], EXAMPLE[1], EXAMPLE[4]])
    for reason, text in BAD.items():
        assert checker.check(text, nodes, triples) == reason, reason
    # Q without piano: piano is in the KG but not in Q
    keep = [j for j in triples if "Q5994" not in kg.triple(j)]
    q_nodes = [kg.index[q] for q in NAMES if q in kg.index and q != "Q5994"]
    piano_seed = reply(
        nodes="Yehonatan Geffen (Q2911403); piano (Q5994)",
        query=QUERY.replace("wd:Q3720616", "wd:Q5994"),
    )
    assert checker.check(piano_seed, q_nodes, keep) == "no_node_match"
    assert checker.check(GOOD, q_nodes, keep[:1]) == "no_triple_match"
    assert checker.check(GOOD, q_nodes, keep) != "no_triple_match"
    # a node id that does not exist, a relation label that does not match
    assert checker.check(reply(answer="guitar (Q1)"), nodes, triples) == "invalid_label_format"
    assert (
        checker.check(reply(triples=T1.replace("child", "parent")), nodes, triples)
        == "invalid_label_format"
    )
    # case and spaces ignored in labels
    assert not isinstance(checker.check(reply(answer="Gui tar (Q6607)"), nodes, triples), str)
    # more answers than allowed
    tight = ReplyChecker(kg, SynthSettings(max_answers=2))
    three = reply(
        nodes="Yehonatan Geffen (Q2911403)",
        triples=f"{T1}; {T2}",
        query="SELECT ?answer WHERE { wd:Q2911403 wdt:P40 ?a . ?a wdt:P1303 ?answer . }",
    )
    assert tight.check(three, nodes, triples) == "exceeding_answer"
    # a query of the right form that does not execute (a bad prefix IRI)
    bad_prefix = reply(query=f"PREFIX wdt: <not an iri> PREFIX wd: <{WD}> {QUERY}")
    assert checker.check(bad_prefix, nodes, triples) == "invalid_sparql"
    # the query's own PREFIX lines are used when present
    prefixed = reply(query=f"PREFIX wdt: <{WDT}> PREFIX wd: <{WD}> {QUERY}")
    assert isinstance(checker.check(prefixed, nodes, triples), tuple)


def test_paraphrase_parsing() -> None:
    labels = ["Yehonatan Geffen", "Francis Lickerish"]
    assert parse_paraphrase(f'Paraphrased question: "{PARAPHRASE}"\n', QUESTION, labels) == (
        PARAPHRASE
    )
    assert parse_paraphrase("   \n", QUESTION, labels) is None
    assert parse_paraphrase("???", QUESTION, labels) is None
    assert parse_paraphrase("x" * 1000, QUESTION, labels) is None
    assert parse_paraphrase("What does Francis Lickerish play?", QUESTION, labels) is None


# -- the generator through the endpoint ------------------------------------------------------


def test_good_reply_becomes_an_llm_item(tmp_path: Path) -> None:
    kg = example_kg(tmp_path, EXAMPLE)
    items, extra, double = run(kg, script(GOOD), SynthSettings(n=1, seed=3))
    assert len(items) == 1
    item = items[0]
    assert item["generator"] == "llm"
    assert item["question"] == QUESTION
    assert item["paraphrased_question"] == PARAPHRASE
    assert item["seed_entities"] == ["Yehonatan Geffen (Q2911403)", "Francis Lickerish (Q3720616)"]
    assert item["answer_node"] == "guitar (Q6607)"
    assert item["answer_subgraph"] == [
        ["Yehonatan Geffen (Q2911403)", "child (P40)", "Aviv Geffen (Q453232)"],
        ["Aviv Geffen (Q453232)", "instrument (P1303)", "guitar (Q6607)"],
        ["Francis Lickerish (Q3720616)", "instrument (P1303)", "guitar (Q6607)"],
    ]
    assert item["all_answers_wikidata"] == ["Q6607"]
    assert item["graph_isomorphism"] == "(2)(1)" and item["n_hops"] == 2
    # the worked example: {Lickerish} alone gives {guitar}
    assert item["redundant"] is True and item["minimal_graph_isomorphism"] == "(1)"
    assert item["rng_seed"] == 3 and item["source"] == "example"
    assert "wdt:P40" in item["sparql_query"] and item["llm_check"] is None
    report = extra["report"]
    assert report["attempts"] == 1 and report["items"] == 1
    assert report["rejections"] == dict.fromkeys(REASONS, 0)
    llm = report["llm"]
    # 4 prompts per missing item are sent at once; the first one gave the item
    assert llm["prompts"] == {"generation": 4, "paraphrase": 1}
    assert llm["paraphrases"] == {"ok": 1, "empty_or_garbled": 0, "lost_entity": 0}
    assert llm["model"] == "gpt-test" and llm["query_language"] == "SPARQL"
    assert sum(llm["k"].values()) == 1 and set(llm["k"]) <= {"1", "2", "3", "4"}
    assert (
        llm["requests"]
        == len(double.requests)
        == 1 + len({last_user_content(r["messages"]) for r in double.requests[:-1]})
    )
    # the prompt holds the whole seed graph (every triple of the tiny KG)
    graph = last_user_content(double.requests[0]["messages"]).split("Graph: ", 1)[1]
    assert sorted(graph.split(";")) == sorted(
        seed_graph_text(kg, list(range(len(kg.triples)))).split(";")
    )


@pytest.mark.parametrize("reason", sorted(BAD))
def test_every_rejection_is_counted(tmp_path: Path, reason: str) -> None:
    kg = example_kg(tmp_path, EXAMPLE)
    items, extra, _ = run(kg, script(BAD[reason]), SynthSettings(n=1, seed=5))
    assert items == []
    report = extra["report"]
    assert report["attempts"] == 50  # the budget, 50·n
    assert report["rejections"] == {r: 50 if r == reason else 0 for r in REASONS}
    assert extra["filter_log"][reason] == [f"attempt-{i}" for i in range(1, 51)]
    assert report["llm"]["prompts"]["paraphrase"] == 0


def test_node_outside_the_seed_graph_is_counted(tmp_path: Path) -> None:
    # two-node seed graphs: a reply naming lute as its seed fails no_node_match where Q
    # lacks lute, and no_triple_match where Q is the lute's triple
    kg = example_kg(tmp_path, EXAMPLE + LUTE)
    lute = reply(nodes="lute (Q192052)", query=QUERY)
    items, extra, double = run(kg, script(lute), SynthSettings(n=1, seed=11, seed_nodes=2))
    rej = extra["report"]["rejections"]
    assert items == [] and extra["report"]["attempts"] == 50
    assert rej["no_node_match"] >= 1 and rej["no_triple_match"] >= 1
    assert rej["no_node_match"] + rej["no_triple_match"] == 50
    lute_prompts = [
        r for r in double.requests if "lute (Q192052)" in last_user_content(r["messages"])
    ]
    assert lute_prompts and len(lute_prompts) < len(double.requests)


def test_garbled_paraphrase_is_counted(tmp_path: Path) -> None:
    kg = example_kg(tmp_path, EXAMPLE)
    items, extra, _ = run(kg, script(GOOD, paraphrase="  "), SynthSettings(n=1, seed=3))
    assert items[0]["paraphrased_question"] is None
    assert extra["report"]["llm"]["paraphrases"] == {
        "ok": 0,
        "empty_or_garbled": 1,
        "lost_entity": 0,
    }


def test_replay_cache_replays_offline(tmp_path: Path) -> None:
    kg = example_kg(tmp_path, EXAMPLE + LUTE)
    cache = tmp_path / "llm-cache.jsonl"

    def answer(messages: list[dict[str, str]]) -> str:
        if is_paraphrase(messages):
            return PARAPHRASE
        m = re.search(r"Use exactly (\d) triple", last_user_content(messages))
        assert m is not None
        k = int(m.group(1))
        return GOOD if k >= 3 else BAD["invalid_llm_out"]

    settings = SynthSettings(n=2, seed=21)
    items, extra, double = run(kg, answer, settings, cache_path=cache)
    assert len(items) == 1  # one distinct item: the rest are duplicates or rejections
    assert cache.exists() and double.requests
    with LLMClient("http://127.0.0.1:9/v1", "gpt-test", cache_path=cache, replay_only=True) as c:
        again, extra2 = generate_llm_items(kg, settings, c, source="example")
    assert json.dumps(again, sort_keys=True) == json.dumps(items, sort_keys=True)
    assert extra2["filter_log"] == extra["filter_log"]
    assert extra2["report"]["llm"]["requests"] == 0
    assert extra2["report"]["llm"]["cache_hits"] == sum(extra2["report"]["llm"]["prompts"].values())
    r = extra["report"]
    assert r["attempts"] == 100
    assert r["attempts"] == r["items"] + r["duplicates"] + sum(r["rejections"].values())
    assert r["rejections"]["invalid_llm_out"] == int(r["llm"]["k"].get("1", 0)) + int(
        r["llm"]["k"].get("2", 0)
    )


def test_unreachable_endpoint_raises(tmp_path: Path) -> None:
    kg = example_kg(tmp_path, EXAMPLE)
    with (
        LLMClient("http://127.0.0.1:9/v1", "gpt-test", max_retries=0) as client,
        pytest.raises(LLMError, match="could not reach the LLM endpoint"),
    ):
        generate_llm_items(kg, SynthSettings(n=1), client)


def test_cli_llm_generator_and_offline_replay(tmp_path: Path) -> None:
    """``kgbench generate synth --rdf ... --llm-base-url ... --llm-model ...``: the items
    come from the LLM (through the test double), the cache lands in DIR/llm_cache.jsonl,
    and a rerun with the endpoint gone replays it into identical items."""
    from kgbench.cli import main

    kg = example_kg(tmp_path, EXAMPLE)
    dump = tmp_path / "example.nt"
    assert kg.qids
    out = tmp_path / "out"
    double = ChatCompletionsTestDouble(reply=script(GOOD)).start()
    url = double.url
    argv = ["generate", "synth", "--rdf", str(dump), "--out", str(out), "--n", "1", "--quiet"]
    try:
        assert main([*argv, "--llm-base-url", url, "--llm-model", "gpt-test"]) == 0
    finally:
        double.stop()
    first = (out / "items.jsonl").read_text(encoding="utf-8")
    item = json.loads(first)
    assert item["generator"] == "llm" and item["paraphrased_question"] == PARAPHRASE
    assert (out / "llm_cache.jsonl").is_file()
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["graph"]["backend"] == "wikidata" and report["llm"]["model"] == "gpt-test"
    # the endpoint is gone: every prompt is answered from the cache
    assert main([*argv, "--llm-base-url", url, "--llm-model", "gpt-test"]) == 0
    assert (out / "items.jsonl").read_text(encoding="utf-8") == first
    # contradictory options: a one-line error, exit 1
    assert main([*argv, "--no-llm", "--llm-base-url", url, "--llm-model", "gpt-test"]) == 1
