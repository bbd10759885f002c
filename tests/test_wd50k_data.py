"""The WD50K real-data graph: conversion counts and relation traits (tests/data/wd50k/).

Converts the real WD50K dump (``../shared/data/wikidata/wd50k/wd50k.nt.gz``, 1,615,665 triples,
read in place; see ``tests/data/wd50k/NOTICE``) with ``tests/data/wd50k/wd50k.wd2neo4j.json``
and checks the entity count per label and the relation count per (label, subject label, object
label) measured when the schema was written; then loads the graph into the test Neo4j server
and checks that ``draft_traits`` reproduces ``tests/data/wd50k/wd50k.traits.json``: the same
measured evidence, and every trait equal to the shipped one unless the shipped file records a
hand review of that trait (then the review's ``drafted`` value). Skipped when the shared folder
is absent. About 1 s to convert, 15 s to load, 2 s to draft on the project's 2-core machine.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from kgbench.convert import convert
from kgbench.generate.traits import TRAIT_KEYS

HERE = Path(__file__).parent
SCHEMA = HERE / "data" / "wd50k" / "wd50k.wd2neo4j.json"
TRAITS = HERE / "data" / "wd50k" / "wd50k.traits.json"
DUMP = HERE.parent.parent / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.realdata,
    pytest.mark.skipif(
        not DUMP.exists(),
        reason=f"the shared WD50K dump is absent ({DUMP}); it is read in place, not copied",
    ),
]

ENTITIES = {
    "AcademyAward": 26,
    "Award": 76,
    "City": 210,
    "Country": 108,
    "Disease": 75,
    "EthnicGroup": 55,
    "Film": 82,
    "FilmGenre": 55,
    "Language": 54,
    "MusicGenre": 262,
    "MusicalGroup": 58,
    "Person": 3297,
    "Profession": 97,
    "TVSeries": 167,
    "University": 167,
}

RELATIONS = {
    ("bornIn", "Person", "City"): 282,
    ("capitalOf", "City", "Country"): 24,
    ("citizenOf", "Person", "Country"): 562,
    ("diedIn", "Person", "City"): 75,
    ("educatedAt", "Person", "University"): 283,
    ("employedBy", "Person", "University"): 17,
    ("hasCastMember", "Film", "Person"): 71,
    ("hasCastMember", "TVSeries", "Person"): 460,
    ("hasChild", "Person", "Person"): 22,
    ("hasComposer", "Film", "Person"): 46,
    ("hasDiplomaticRelationWith", "Country", "Country"): 1071,
    ("hasEthnicity", "Person", "EthnicGroup"): 496,
    ("hasFather", "Person", "Person"): 15,
    ("hasGenre", "Film", "FilmGenre"): 126,
    ("hasGenre", "MusicalGroup", "MusicGenre"): 88,
    ("hasGenre", "Person", "MusicGenre"): 1244,
    ("hasGenre", "TVSeries", "FilmGenre"): 48,
    ("hasMedicalCondition", "Person", "Disease"): 94,
    ("hasMember", "MusicalGroup", "Person"): 52,
    ("hasNativeLanguage", "Person", "Language"): 206,
    ("hasOccupation", "Person", "Profession"): 4145,
    ("hasOfficialLanguage", "Country", "Language"): 19,
    ("hasOriginalLanguage", "Film", "Language"): 73,
    ("hasOriginalLanguage", "TVSeries", "Language"): 92,
    ("hasSibling", "Person", "Person"): 88,
    ("hasSpouse", "Person", "Person"): 123,
    ("hasVoiceActor", "Film", "Person"): 18,
    ("inCountry", "City", "Country"): 24,
    ("influencedBy", "Person", "Person"): 627,
    ("livesIn", "Person", "City"): 137,
    ("nominatedFor", "Person", "AcademyAward"): 1167,
    ("nominatedFor", "Person", "Award"): 169,
    ("originatesFrom", "Film", "Country"): 31,
    ("originatesFrom", "MusicGenre", "Country"): 97,
    ("originatesFrom", "TVSeries", "Country"): 32,
    ("receivedAward", "Person", "AcademyAward"): 379,
    ("receivedAward", "Person", "Award"): 433,
    ("sharesBorderWith", "City", "City"): 8,
    ("sharesBorderWith", "Country", "Country"): 38,
    ("speaksLanguage", "Person", "Language"): 1813,
    ("spokenIn", "Language", "Country"): 193,
    ("subgenreOf", "MusicGenre", "MusicGenre"): 116,
    ("twinnedWith", "City", "City"): 393,
    ("usesLanguage", "Country", "Language"): 155,
}


@pytest.fixture(scope="module")
def wd50k_graph(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("wd50k")
    _, report = convert(SCHEMA, DUMP, out, progress=False, return_graph=False, parquet=False)
    return out / "graph.json", report


def test_wd50k_conversion_counts(wd50k_graph: tuple[Path, dict[str, Any]]) -> None:
    path, report = wd50k_graph
    assert report["triples_read"] == 1_615_665
    assert report["invalid_skipped"] == 0
    graph = json.loads(path.read_text(encoding="utf-8"))
    labels = {e["eid"]: e["label"] for e in graph["entities"]}
    assert dict(sorted(Counter(labels.values()).items())) == ENTITIES
    rels = Counter(
        (r["label"], labels[r["subj_id"]], labels[r["obj_id"]]) for r in graph["relations"]
    )
    assert dict(sorted(rels.items())) == RELATIONS
    assert len(graph["entities"]) == 4789
    assert len(graph["relations"]) == 15652
    assert report["relations_merged"] == 56
    # items of a schema class without an English label are dropped and counted
    assert report["entities_dropped_no_english_label"] == {
        "MusicGenre": 1,
        "Person": 1,
        "Profession": 1,
    }
    # entity-valued properties become the value item's English label; qualifiers too
    by_name = {(e["label"], e["name"]): e for e in graph["entities"]}
    assert by_name[("Country", "Liberia")]["properties"]["driving_side"] == "right"
    with_for_work = [r for r in graph["relations"] if "for_work" in r["properties"]]
    assert len(with_for_work) > 1000
    assert all(isinstance(r["properties"]["for_work"], str) for r in with_for_work)


@pytest.mark.neo4j
def test_wd50k_traits_reproduce(
    wd50k_graph: tuple[Path, dict[str, Any]], neo4j_load: Any, neo4j_driver: Any
) -> None:
    from kgbench.generate.traits import draft_traits

    path, _ = wd50k_graph
    report = neo4j_load(path)
    assert report.nodes == 4789
    assert report.relationships == 15652
    drafted = {
        r["label"]: r for r in draft_traits(neo4j_driver, graph="wd50k")["wd50k"]["relations"]
    }
    shipped = json.loads(TRAITS.read_text(encoding="utf-8"))["wd50k"]["relations"]
    assert [r["label"] for r in shipped] == sorted(drafted)
    reviewed = 0
    for ship in shipped:
        draft = drafted[ship["label"]]
        assert ship["measured"] == draft["measured"], ship["label"]
        reviews = {rv["trait"]: rv for rv in ship.get("review", [])}
        for key in TRAIT_KEYS:
            if key in reviews:
                assert reviews[key]["drafted"] == draft[key], (ship["label"], key)
                assert reviews[key]["reviewed"] == ship[key] != draft[key]
                reviewed += 1
            else:
                assert ship[key] == draft[key], (ship["label"], key)
    assert reviewed == 10
    traits = {r["label"]: r for r in shipped}
    # the hand-checked anchors
    assert traits["sharesBorderWith"]["is_symmetric"] is True
    assert traits["hasDiplomaticRelationWith"]["is_symmetric"] is True
    assert traits["hasSpouse"]["is_symmetric"] is True
    assert traits["bornIn"]["obj_cardinality"] == "one"
    assert traits["hasFather"]["obj_cardinality"] == "one"
    assert traits["hasNativeLanguage"]["implied_relations"] == ["speaksLanguage"]
    assert not any(r["is_time_sensitive"] for r in shipped)  # WD50K has no literals
