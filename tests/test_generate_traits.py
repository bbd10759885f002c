"""Relation traits drafted from a live Neo4j graph (kgbench.generate.traits.draft_traits).

Traits as in CypherBench's graph_info.json (spec cypherbench-taskgen.md §2). Two graphs: the
hand-written ``graphs/mini_company.json`` and :func:`family_graph` below, written so that each
trait has a known value: a symmetric relation (marriedTo), a nearly symmetric one (follows,
4 of 5 pairs reciprocated), one-to-one (hasCapital), mandatory on both sides (bornIn),
time-sensitive (citizenOf, start_year / end_year on some relationships) and an implied pair
(hasFather ⇒ hasParent, 5 pairs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kgbench.errors import KgbenchError
from kgbench.generate.traits import TRAIT_KEYS, draft_traits, write_traits

pytestmark = pytest.mark.neo4j


def _entity(label: str, qid: str, name: str) -> dict[str, Any]:
    return {
        "eid": f"{label}#{qid}",
        "label": label,
        "name": name,
        "aliases": [],
        "description": None,
        "properties": {},
        "provenance": [],
    }


def family_graph() -> dict[str, Any]:
    people = {c: f"Q{100 + i}" for i, c in enumerate("ABCDEFGH")}
    cities = {"X1": "Q201", "X2": "Q202", "X3": "Q203"}
    countries = {"K1": "Q301", "K2": "Q302"}
    entities = (
        [_entity("Person", q, f"Person {c}") for c, q in people.items()]
        + [_entity("City", q, f"City {c}") for c, q in cities.items()]
        + [_entity("Country", q, f"Country {c}") for c, q in countries.items()]
    )
    ids = {
        **{c: f"Person#{q}" for c, q in people.items()},
        **{c: f"City#{q}" for c, q in cities.items()},
        **{c: f"Country#{q}" for c, q in countries.items()},
    }
    triples: list[tuple[str, str, str, dict[str, Any]]] = []
    for a, b in [("A", "B"), ("C", "D")]:
        triples += [("marriedTo", a, b, {}), ("marriedTo", b, a, {})]
    for a, b in [("A", "B"), ("B", "A"), ("C", "D"), ("D", "C"), ("E", "F")]:
        triples.append(("follows", a, b, {}))
    fathers = [("C", "A"), ("E", "A"), ("F", "C"), ("G", "C"), ("H", "C")]
    mothers = [("C", "B"), ("E", "B"), ("F", "D"), ("G", "D"), ("H", "D")]
    triples += [("hasFather", child, f, {}) for child, f in fathers]
    triples += [("hasParent", child, p, {}) for child, p in fathers + mothers]
    born = {"A": "X1", "B": "X1", "C": "X2", "D": "X2", "E": "X3", "F": "X3", "G": "X1", "H": "X2"}
    triples += [("bornIn", p, c, {}) for p, c in born.items()]
    triples += [("hasCapital", "K1", "X1", {}), ("hasCapital", "K2", "X2", {})]
    triples += [
        ("citizenOf", "A", "K1", {"start_year": 1950}),
        ("citizenOf", "B", "K1", {}),
        ("citizenOf", "C", "K2", {"start_year": 1980, "end_year": 1990}),
        ("citizenOf", "C", "K1", {"start_year": 1990}),
        ("citizenOf", "E", "K2", {}),
    ]
    relations = [
        {
            "rid": str(i),
            "label": label,
            "subj_id": ids[s],
            "obj_id": ids[o],
            "properties": props,
            "provenance": [],
        }
        for i, (label, s, o, props) in enumerate(triples)
    ]
    rel_schema = [
        ("marriedTo", "Person", "Person", {}),
        ("follows", "Person", "Person", {}),
        ("hasFather", "Person", "Person", {}),
        ("hasParent", "Person", "Person", {}),
        ("bornIn", "Person", "City", {}),
        ("hasCapital", "Country", "City", {}),
        ("citizenOf", "Person", "Country", {"start_year": "int", "end_year": "int"}),
    ]
    return {
        "schema": {
            "name": "family",
            "entities": [
                {"label": label, "properties": {}} for label in ("Person", "City", "Country")
            ],
            "relations": [
                {"label": r, "subj_label": s, "obj_label": o, "properties": p}
                for r, s, o, p in rel_schema
            ],
        },
        "entities": entities,
        "relations": relations,
    }


def _by_label(traits: dict[str, Any], graph: str) -> dict[str, dict[str, Any]]:
    return {r["label"]: r for r in traits[graph]["relations"]}


@pytest.fixture
def family_traits(neo4j_load: Any, neo4j_driver: Any) -> dict[str, Any]:
    neo4j_load(family_graph())
    return draft_traits(neo4j_driver, graph="family")


def test_family_shape_order_and_variants(family_traits: dict[str, Any]) -> None:
    assert list(family_traits) == ["family"]
    rels = family_traits["family"]["relations"]
    labels = [r["label"] for r in rels]
    assert labels == sorted(labels)
    assert labels == [
        "bornIn",
        "citizenOf",
        "follows",
        "hasCapital",
        "hasFather",
        "hasParent",
        "marriedTo",
    ]
    for r in rels:
        assert list(r) == ["label", *TRAIT_KEYS, "measured"]
    by = _by_label(family_traits, "family")
    assert by["bornIn"]["variants"] == ["bornIn#Person#City"]
    assert by["hasCapital"]["variants"] == ["hasCapital#Country#City"]
    assert by["hasParent"]["measured"]["relationships"] == 10
    assert by["hasParent"]["measured"]["pairs"] == 10


def test_family_symmetric(family_traits: dict[str, Any]) -> None:
    by = _by_label(family_traits, "family")
    assert by["marriedTo"]["is_symmetric"] is True
    assert by["marriedTo"]["measured"]["symmetric_fraction"] == 1.0
    # 4 of 5 pairs reciprocated: below the default 0.9
    assert by["follows"]["measured"]["symmetric_fraction"] == 0.8
    assert by["follows"]["is_symmetric"] is False
    for label in ("hasFather", "hasParent", "bornIn", "hasCapital", "citizenOf"):
        assert by[label]["is_symmetric"] is False, label
    # both spouses have exactly one spouse, in either direction
    assert by["marriedTo"]["subj_cardinality"] == "one"
    assert by["marriedTo"]["obj_cardinality"] == "one"


def test_family_one_to_one_and_mandatory(family_traits: dict[str, Any]) -> None:
    by = _by_label(family_traits, "family")
    cap = by["hasCapital"]
    assert (cap["subj_cardinality"], cap["obj_cardinality"]) == ("one", "one")
    assert cap["is_mandatory_subj"] is True  # both countries have a capital
    assert cap["is_mandatory_obj"] is False  # X3 is no capital
    assert cap["measured"]["obj_coverage"] == {"City": round(2 / 3, 4)}

    born = by["bornIn"]
    assert born["is_mandatory_subj"] is True  # all 8 persons
    assert born["is_mandatory_obj"] is True  # all 3 cities
    assert born["obj_cardinality"] == "one"
    assert born["subj_cardinality"] == "many"
    assert born["measured"]["max_subjects_per_object"] == 3
    assert born["measured"]["subj_coverage"] == {"Person": 1.0}

    father = by["hasFather"]
    assert father["obj_cardinality"] == "one"
    assert father["subj_cardinality"] == "many"
    assert father["is_mandatory_subj"] is False  # 5 of 8 persons
    assert father["measured"]["subj_coverage"] == {"Person": 0.625}
    assert by["hasParent"]["obj_cardinality"] == "many"
    assert by["hasParent"]["measured"]["max_objects_per_subject"] == 2


def test_family_time_sensitive(family_traits: dict[str, Any]) -> None:
    by = _by_label(family_traits, "family")
    cit = by["citizenOf"]
    assert cit["is_time_sensitive"] is True
    assert cit["measured"]["time_fraction"] == 0.6
    assert cit["measured"]["time_properties"] == {"end_year": 1, "start_year": 3}
    assert cit["obj_cardinality"] == "many"  # C has two countries: 3 of 4 subjects have one
    assert cit["measured"]["obj_one_fraction"] == 0.75
    for label in ("bornIn", "hasFather", "hasParent", "marriedTo", "follows", "hasCapital"):
        assert by[label]["is_time_sensitive"] is False, label
        assert by[label]["measured"]["time_fraction"] == 0.0


def test_family_implied(family_traits: dict[str, Any]) -> None:
    by = _by_label(family_traits, "family")
    assert by["hasFather"]["implied_relations"] == ["hasParent"]
    assert by["hasFather"]["measured"]["implied_fractions"] == {"hasParent": 1.0}
    assert by["hasParent"]["implied_relations"] == []
    assert by["hasParent"]["measured"]["implied_fractions"] == {"hasFather": 0.5}
    # marriedTo and follows share 4 of follows' 5 pairs: 0.8, and marriedTo's 4 of 4 pairs,
    # but marriedTo has only 4 pairs (< implied_min_pairs = 5): not listed
    assert by["marriedTo"]["measured"]["implied_fractions"] == {"follows": 1.0}
    assert by["marriedTo"]["implied_relations"] == []
    assert by["follows"]["implied_relations"] == []


def test_tolerance_parameters(neo4j_load: Any, neo4j_driver: Any) -> None:
    neo4j_load(family_graph())
    loose = _by_label(
        draft_traits(
            neo4j_driver,
            graph="family",
            tolerance=0.6,
            symmetric_tolerance=0.8,
            implied_min_pairs=4,
            time_properties=["end_year"],
        ),
        "family",
    )
    assert loose["follows"]["is_symmetric"] is True
    assert loose["hasFather"]["is_mandatory_subj"] is True  # 0.625 >= 0.6
    assert loose["citizenOf"]["obj_cardinality"] == "one"  # 0.75 >= 0.6
    assert loose["marriedTo"]["implied_relations"] == ["follows"]
    assert loose["citizenOf"]["is_time_sensitive"] is True  # one end_year
    assert loose["citizenOf"]["measured"]["time_properties"] == {"end_year": 1}
    strict = _by_label(draft_traits(neo4j_driver, graph="family", time_min_fraction=0.7), "family")
    assert strict["citizenOf"]["is_time_sensitive"] is False  # 0.6 < 0.7
    with pytest.raises(ValueError, match="tolerance"):
        draft_traits(neo4j_driver, tolerance=0.0)
    with pytest.raises(ValueError, match="time_properties"):
        draft_traits(neo4j_driver, time_properties="start_year")


def test_mini_company(neo4j_load: Any, neo4j_driver: Any, mini_company_graph: Any) -> None:
    neo4j_load(mini_company_graph)
    traits = draft_traits(neo4j_driver, graph="company")
    by = _by_label(traits, "company")
    assert sorted(by) == ["basedIn", "citizenOf", "foundedBy", "hasCEO", "subsidiaryOf"]
    based = by["basedIn"]
    assert based["variants"] == ["basedIn#Company#Country"]
    assert (based["subj_cardinality"], based["obj_cardinality"]) == ("many", "one")
    assert based["is_mandatory_subj"] is False  # Tiny Startup has no country: 4 of 5
    assert based["measured"]["subj_coverage"] == {"Company": 0.8}
    assert based["is_mandatory_obj"] is False  # the UK: 2 of 3
    assert by["hasCEO"]["is_time_sensitive"] is True
    assert by["hasCEO"]["measured"]["time_properties"] == {"end_year": 2, "start_year": 5}
    assert by["citizenOf"]["is_time_sensitive"] is True  # start_date on one of two
    assert by["citizenOf"]["measured"]["time_fraction"] == 0.5
    founded = by["foundedBy"]
    assert (founded["subj_cardinality"], founded["obj_cardinality"]) == ("one", "many")
    assert founded["measured"]["max_objects_per_subject"] == 2  # Google: Page and Brin
    assert founded["measured"]["implied_fractions"] == {"hasCEO": 0.5}
    assert founded["implied_relations"] == []
    assert by["subsidiaryOf"]["variants"] == ["subsidiaryOf#Company#Company"]
    assert by["subsidiaryOf"]["is_symmetric"] is False
    assert all(not r["is_symmetric"] for r in by.values())


def test_deterministic_and_written_as_json(
    family_traits: dict[str, Any], neo4j_driver: Any, tmp_path: Path
) -> None:
    again = draft_traits(neo4j_driver, graph="family")
    assert again == family_traits
    path = tmp_path / "graph_info.json"
    write_traits(family_traits, path)
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert json.loads(text) == family_traits
    # CypherBench's RelationInfo fields in its order, then kgbench's extra keys
    assert list(family_traits["family"]) == ["relations", "draft_settings"]
    assert family_traits["family"]["draft_settings"]["tolerance"] == 0.95


def test_no_relationships_is_an_error(neo4j_load: Any, neo4j_driver: Any) -> None:
    graph = family_graph()
    graph["relations"] = []
    neo4j_load(graph)
    with pytest.raises(KgbenchError, match="no relationships"):
        draft_traits(neo4j_driver)
