"""The shipped SynthKGQA fixture (tests/data/synth/items.jsonl, 300 template items generated
on the real WD50K dump; NOTICE beside it): its records are consistent with themselves, with
kgbench's isomorphism typing and statistics, and — when the shared dump is present — with
SPARQL on the dump, and the generator still writes exactly these items."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from kgbench.generate.synth.records import entity_id

DATA = Path(__file__).parent / "data"
FIXTURE = DATA / "synth" / "items.jsonl"


def _items() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def test_fixture_records_are_consistent() -> None:
    from kgbench.generate.synth.stats import item_stats
    from kgbench.iso import isomorphism_types_jsonl

    items = _items()
    assert len(items) == 300
    assert len({i["id"] for i in items}) == 300
    # kgbench's AHU typing of each answer subgraph (Rust, from the file) agrees with the record
    assert isomorphism_types_jsonl(FIXTURE, on_invalid="raise") == [
        i["graph_isomorphism"] for i in items
    ]
    for item in items:
        seeds = {entity_id(s) for s in item["seed_entities"]}
        answer = entity_id(item["answer_node"])
        answers = item["all_answers_wikidata"]
        assert answer in answers and 1 <= len(answers) <= 10 and answer not in seeds
        gt = {tuple(entity_id(x) for x in t) for t in item["answer_subgraph"]}
        assert gt <= {tuple(t) for t in item["full_answer_subgraph_wikidata"]}
        assert 1 <= len(gt) <= 4
        # minimal: the redundant flag is the comparison of the two types
        assert item["redundant"] == (item["minimal_graph_isomorphism"] != item["graph_isomorphism"])
        for key in item["minimal_seeds_and_queries"]:
            assert set(key.split("-")) <= seeds
        assert item["generator"] == "template" and item["test_type"] == ["training"]
    # Table 1 statistics of the file, recomputed here from the records
    stats = item_stats(FIXTURE).all
    assert stats.questions == 300
    assert stats.non_minimal == sum(i["redundant"] for i in items)
    assert stats.isomorphism_types == len(Counter(i["graph_isomorphism"] for i in items))
    assert stats.mean_answers == pytest.approx(
        sum(len(i["all_answers_wikidata"]) for i in items) / 300
    )


@pytest.mark.realdata
@pytest.mark.slow
def test_fixture_agrees_with_the_dump_and_is_regenerated_identically(wd50k_store: Any) -> None:
    """The dump: conftest ``wd50k_store`` (parsed once per session)."""
    from kgbench.generate.synth.kg import WikidataKG
    from kgbench.generate.synth.template import (
        CypherMapping,
        SynthSettings,
        generate_template_items,
    )

    kg = WikidataKG.from_store(wd50k_store)
    items = _items()
    for item in items:
        assert sorted(kg.answers(item["sparql_query"])) == item["all_answers_wikidata"]
    schema = json.loads((DATA / "wd50k" / "wd50k.wd2neo4j.json").read_text(encoding="utf-8"))
    settings = SynthSettings(n=300, seed=1111, cypher=CypherMapping.of_schema(schema))
    again, _ = generate_template_items(kg, settings, source="wd50k.nt.gz")
    # tests/data/synth/make_data.py wrote the fixture with these settings
    assert again == items
