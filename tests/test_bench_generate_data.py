"""benches/generate_data.py: the synthetic graph for the generator benchmark, and its traits.

Runs :func:`prepare_synthetic_graph` at a small size (the benchmark's 100k / 200k takes ~15 s
and 1.3 GB of disk), checks the minima, the cache and the converted labels, then loads the
graph into the test Neo4j server and checks that ``draft_traits`` gives the traits shipped in
``benches/data/synthetic.traits.json`` (which were drafted on the full-size graph): the same
relations, variants and traits, except that a hand-reviewed trait may have either its drafted
or its reviewed value (the measured shares differ slightly with the size).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from kgbench.generate.traits import TRAIT_KEYS

BENCHES = Path(__file__).resolve().parent.parent / "benches"
sys.path.insert(0, str(BENCHES))

from generate_data import STAMP, prepare_synthetic_graph  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def small_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("gen-data")
    return prepare_synthetic_graph(work, min_entities=5_000, min_relations=10_000, quiet=True)


def test_minima_and_cache(small_graph: Path) -> None:
    assert small_graph.name == "graph.json"
    graph = json.loads(small_graph.read_text(encoding="utf-8"))
    labels = {e["label"] for e in graph["entities"]}
    assert labels == {"Person", "City", "Country"}
    assert {r["label"] for r in graph["relations"]} == {"bornIn", "citizenOf", "inCountry"}
    assert len(graph["entities"]) >= 5_000
    assert len(graph["relations"]) >= 10_000
    stamp = json.loads((small_graph.parent / STAMP).read_text(encoding="utf-8"))
    assert stamp["entities"] == len(graph["entities"])
    assert stamp["relations"] == len(graph["relations"])
    # the dump is deleted after conversion; a second call reuses the output untouched
    assert not list(small_graph.parent.parent.glob("*.nt"))
    mtime = small_graph.stat().st_mtime_ns
    again = prepare_synthetic_graph(
        small_graph.parent.parent, min_entities=5_000, min_relations=10_000, quiet=True
    )
    assert again == small_graph
    assert small_graph.stat().st_mtime_ns == mtime


@pytest.mark.neo4j
def test_shipped_traits_match_a_draft(
    small_graph: Path, neo4j_load: Any, neo4j_driver: Any
) -> None:
    from kgbench.generate.traits import draft_traits

    neo4j_load(small_graph)
    drafted = {
        r["label"]: r
        for r in draft_traits(neo4j_driver, graph="synthetic")["synthetic"]["relations"]
    }
    shipped = json.loads((BENCHES / "data" / "synthetic.traits.json").read_text(encoding="utf-8"))
    rels = shipped["synthetic"]["relations"]
    assert [r["label"] for r in rels] == sorted(drafted) == ["bornIn", "citizenOf", "inCountry"]
    for ship in rels:
        draft = drafted[ship["label"]]
        reviews = {rv["trait"]: rv for rv in ship.get("review", [])}
        for key in TRAIT_KEYS:
            if key in reviews:
                assert draft[key] in (reviews[key]["drafted"], reviews[key]["reviewed"])
            else:
                assert draft[key] == ship[key], (ship["label"], key)
    cit = drafted["citizenOf"]
    assert cit["is_time_sensitive"] is True
    assert cit["measured"]["time_properties"].keys() == {"start_year"}
    assert drafted["bornIn"]["obj_cardinality"] == "one"
    assert drafted["inCountry"]["is_mandatory_subj"] is True
