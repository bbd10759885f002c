"""SynthKGQA on the Neo4j back end (spec synthkgqa.md §6 "Neo4j"): template items generated
on kgbench's conversion of the real WD50K dump, loaded into the local Neo4j server, with
Cypher validation; the same items re-checked by SPARQL on the dump; the CLI; and the clear
error for a graph with nothing to sample."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kgbench.errors import InputError
from kgbench.generate.synth.records import entity_id

pytestmark = pytest.mark.neo4j

DATA = Path(__file__).parent / "data"
WD50K = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"
)
SCHEMA = DATA / "wd50k" / "wd50k.wd2neo4j.json"


@pytest.fixture(scope="module")
def wd50k_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """kgbench's conversion of the WD50K dump (graph.json)."""
    if not WD50K.exists():
        pytest.skip(f"the shared WD50K dump is absent ({WD50K})")
    from kgbench.convert import convert

    out = tmp_path_factory.mktemp("wd50k_graph")
    convert(str(SCHEMA), [str(WD50K)], str(out))
    return out / "graph.json"


def _tree_of_item(item: dict[str, Any], pid_of: dict[str, str]) -> Any:
    """The item's GT tree with Wikidata ids (eid ``Label#QID`` -> QID, type -> PID)."""
    from kgbench.generate.synth.template import Tree

    qid = {}
    triples = []
    for h, r, t in item["answer_subgraph"]:
        hh, tt = entity_id(h), entity_id(t)
        qid[hh], qid[tt] = hh.split("#")[-1], tt.split("#")[-1]
        triples.append((hh, r, tt))
    answer = entity_id(item["answer_node"])
    seeds = {entity_id(s) for s in item["seed_entities"]}
    order, edges, tree_triples = [answer], [], []
    frontier, used = [answer], set()
    while frontier:
        v = frontier.pop(0)
        for k, (h, r, t) in enumerate(triples):
            if k in used or v not in (h, t):
                continue
            used.add(k)
            other = t if h == v else h
            order.append(other)
            edges.append((order.index(v), len(order) - 1))
            tree_triples.append((qid[h], pid_of[r], qid[t]))
            frontier.append(other)
    return Tree(
        edges=edges,
        nodes=[qid[e] for e in order],
        triples=tree_triples,
        seeds=[i for i, e in enumerate(order) if e in seeds],
    )


@pytest.mark.realdata
@pytest.mark.slow
def test_items_on_the_converted_wd50k_graph(
    wd50k_graph: Path, wd50k_store: Any, neo4j_server: Any, neo4j_load: Any
) -> None:
    """400 template items through the Neo4j back end: each stored Cypher query gives the
    stored answers, the GT triples are relationships of the graph, a rerun is identical,
    and SPARQL on the dump agrees wherever the dump's full answer subgraph was converted.
    (A run stops at ``n`` items and its items are a prefix of a longer run's with the seed,
    as the rerun below shows: these are the first 400 of the 1,000 this test once checked,
    each checked the same way; most of the test's time is the generation's Neo4j queries.)"""
    from kgbench.generate.synth.kg import WikidataKG
    from kgbench.generate.synth.neo4j_kg import PropertyGraphKG
    from kgbench.generate.synth.template import SynthSettings, generate_template_items
    from kgbench.neo4j.executor import GraphReader

    neo4j_load(wd50k_graph)
    reader = GraphReader.connect(neo4j_server.uri)
    try:
        kg = PropertyGraphKG.from_reader(reader)
        settings = SynthSettings(n=400, seed=1111)
        items, extra = generate_template_items(kg, settings, source="wd50k-neo4j")
        assert len(items) == 400
        report = extra["report"]
        assert report["attempts"] >= 400 + sum(report["rejections"].values())
        assert len(report["types"]) >= 8
        again, _ = generate_template_items(kg, SynthSettings(n=50, seed=1111), source="wd50k-neo4j")
        assert again == items[:50]
        edges = {
            (r["h"], r["t"], r["o"])
            for r in reader.run("MATCH (a)-[r]->(b) RETURN a.eid AS h, type(r) AS t, b.eid AS o")
        }
        for item in items:
            assert item["sparql_query"] is None and item["generator"] == "template"
            got = sorted(r["answer"] for r in reader.run(item["cypher_query"]))
            assert got == item["all_answers_neo4j"], item["id"]
            assert entity_id(item["answer_node"]) in got and len(got) <= 10
            gt = {tuple(entity_id(x) for x in t) for t in item["answer_subgraph"]}
            assert gt <= edges
            assert gt <= {tuple(t) for t in item["full_answer_subgraph_neo4j"]}
            for query in item["minimal_seeds_and_queries"].values():
                answers = sorted(r["answer"] for r in reader.run(query))
                assert answers == item["all_answers_neo4j"], item["id"]
    finally:
        reader.close()

    # the same questions in SPARQL on the dump
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    pid_of = {r["label"]: r["wd_source"] for r in schema["relations"]}
    rdf = WikidataKG.from_store(wd50k_store, excluded=())
    converted = {(h.split("#")[-1], pid_of[t], o.split("#")[-1]) for h, t, o in edges}
    compared = 0
    for item in items:
        tree = _tree_of_item(item, pid_of)
        full = rdf.full_subgraph(tree)
        if not set(full) <= converted:
            continue  # a statement the schema does not convert: nothing to compare
        _query, answers = rdf.tree_answers(tree, range(len(tree.edges)))
        assert sorted(answers) == sorted(a.split("#")[-1] for a in item["all_answers_neo4j"])
        cypher_full = sorted(
            (h.split("#")[-1], pid_of[r], t.split("#")[-1])
            for h, r, t in item["full_answer_subgraph_neo4j"]
        )
        assert cypher_full == full, item["id"]
        compared += 1
    assert compared >= 200  # 224 of the 400 today


def test_cli_on_a_graph_and_a_graph_with_nothing_to_sample(
    neo4j_server: Any, neo4j_load: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``kgbench generate synth --uri``: items and the type distribution from a small real
    graph; a graph whose relationships join no two named entities gets a clear error."""
    from kgbench.cli import main
    from kgbench.generate.synth.neo4j_kg import PropertyGraphKG
    from kgbench.neo4j.executor import GraphReader

    neo4j_load(DATA / "graphs" / "mini_company.json")
    out = tmp_path / "synth"
    rc = main(
        ["generate", "synth", "--uri", neo4j_server.uri, "--out", str(out), "--n", "5", "--quiet"]
    )
    assert rc == 0
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert 1 <= len(items) <= 5
    report = json.loads((out / "report.json").read_text())
    assert report["graph"]["backend"] == "neo4j" and report["items"] == len(items)
    printed = capsys.readouterr().out
    assert "isomorphism types:" in printed
    assert all(i["graph_isomorphism"] in printed for i in items)
    for item in items:
        assert item["cypher_query"].endswith("RETURN DISTINCT answer.eid AS answer")
        assert item["all_answers_neo4j"]

    # a graph of self-loops only: nothing to sample
    neo4j_load(
        {
            "schema": {
                "entities": [{"label": "N", "properties": {}}],
                "relations": [
                    {"label": "R", "subj_label": "N", "obj_label": "N", "properties": {}}
                ],
            },
            "entities": [{"eid": "a", "label": "N", "name": "a"}],
            "relations": [
                {"rid": "0", "label": "R", "subj_id": "a", "obj_id": "a", "properties": {}}
            ],
        }
    )
    reader = GraphReader.connect(neo4j_server.uri)
    try:
        with pytest.raises(InputError, match="no relationship between two entities"):
            PropertyGraphKG.from_reader(reader)
    finally:
        reader.close()


def test_llm_generator_on_neo4j(neo4j_server: Any, neo4j_load: Any, tmp_path: Path) -> None:
    """The LLM generator on the Neo4j back end, through the chat-completions test double:
    a Cypher reply on the mini company graph becomes an item validated by Cypher; a reply
    whose query names another entity is ``invalid_sparql``."""
    from chat_completions_double import ChatCompletionsTestDouble, last_user_content
    from kgbench.generate.synth.llm_gen import generate_llm_items
    from kgbench.generate.synth.neo4j_kg import PropertyGraphKG
    from kgbench.generate.synth.template import SynthSettings
    from kgbench.llm import LLMClient
    from kgbench.neo4j.executor import GraphReader

    neo4j_load(DATA / "graphs" / "mini_company.json")
    query = (
        "MATCH (answer)-[:foundedBy]->(x {eid: 'Person#Q4934'}) RETURN DISTINCT answer.eid "
        "AS answer"
    )
    good = (
        "Question: Which company was founded by Larry Page?\n"
        "Nodes mentioned in the question: Larry Page (Person#Q4934)\n"
        "Answer: Google (Company#Q95)\n"
        "Triples used: Google (Company#Q95)-foundedBy-Larry Page (Person#Q4934)\n"
        f"Cypher query: {query}"
    )
    bad = good.replace(f"Cypher query: {query}", "Cypher query: " + query.replace("Q4934", "Q5284"))

    def answer_with(generation: str) -> Any:
        def reply(messages: list[dict[str, str]]) -> str:
            if "Graph:" not in last_user_content(messages):
                return "What company did Larry Page found?"
            return generation

        return reply

    reader = GraphReader.connect(neo4j_server.uri)
    try:
        kg = PropertyGraphKG.from_reader(reader)
        for generation, want in ((good, None), (bad, "invalid_sparql")):
            double = ChatCompletionsTestDouble(reply=answer_with(generation)).start()
            try:
                with LLMClient(double.url, "gpt-test") as client:
                    # k = 1 and a seed graph holding every relationship of the small graph
                    settings = SynthSettings(n=1, seed=2, seed_nodes=100, seed_edges=100)
                    items, extra = generate_llm_items(kg, settings, client, k=1)
            finally:
                double.stop()
            rejections = extra["report"]["rejections"]
            if want is None:
                assert len(items) == 1
                item = items[0]
                assert item["generator"] == "llm" and item["cypher_query"]
                assert item["all_answers_neo4j"] == ["Company#Q95"]
                assert item["answer_subgraph"] == [
                    ["Google (Company#Q95)", "foundedBy", "Larry Page (Person#Q4934)"]
                ]
                got = sorted(r["answer"] for r in reader.run(item["cypher_query"]))
                assert got == ["Company#Q95"]
                assert item["paraphrased_question"] == "What company did Larry Page found?"
            else:
                assert items == [] and rejections[want] == extra["report"]["attempts"] > 0
    finally:
        reader.close()
