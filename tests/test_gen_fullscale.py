"""benches/gen_cypherbench_fullscale.py: the full-scale CypherBench stand-in, at tiny scales.

Checks the published layout, determinism (byte-identical files for one seed), that each schema
file matches its graph both ways and is what ``--schema-dir`` reads, that kgbench's own
validator accepts every graph, that sizes scale, and that the relation characteristics of
CypherBench's ``graph_info.json`` hold (cardinality, symmetry, participation, time-sensitive
properties). No Neo4j.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from kgbench.neo4j.loader import check_graph
from kgbench.neo4j.targets import load_graph_targets
from kgbench.predict.cypherbench import load_schema_texts

BENCHES = Path(__file__).resolve().parent.parent / "benches"
sys.path.insert(0, str(BENCHES))

import gen_cypherbench_fullscale as gen  # noqa: E402

GRAPH_INFO = (
    Path(__file__).resolve().parents[1].parent / "shared/reference/cypherbench/graph_info.json"
)
SCALE = 0.002


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("fullscale")
    gen.generate(d, list(gen.GRAPH_NAMES), scale=SCALE, seed=3, quiet=True)
    return d


def read_kg(out: Path, graph: str) -> dict[str, Any]:
    return json.loads((out / "graphs/simplekg" / f"{graph}_simplekg.json").read_text("utf-8"))


def test_layout_as_published(out: Path) -> None:
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    expected = sorted(
        [f"graphs/simplekg/{g}_simplekg.json" for g in gen.GRAPH_NAMES]
        + [f"graphs/schemas/{g}_schema.json" for g in gen.GRAPH_NAMES]
        + ["neo4j_info.json"]
    )
    assert files == expected  # no test.json, no leftovers
    info = json.loads((out / "neo4j_info.json").read_text("utf-8"))
    assert info["test_domains"] == list(gen.GRAPH_NAMES)
    assert info["full"]["company"] == {
        "host": "localhost",
        "port": 15062,
        "username": "neo4j",
        "password": "cypherbench",
    }
    assert info["full"]["politics"]["port"] == 15068
    targets = load_graph_targets(out / "neo4j_info.json")
    assert targets["nba"].uri == "bolt://localhost:15067"
    assert targets["nba"].user == "neo4j"


def test_deterministic(out: Path, tmp_path: Path) -> None:
    gen.generate(tmp_path, list(gen.GRAPH_NAMES), scale=SCALE, seed=3, quiet=True)
    for p in out.rglob("*.json"):
        assert (tmp_path / p.relative_to(out)).read_bytes() == p.read_bytes(), p.name
    other = tmp_path / "seed4"
    gen.generate(other, ["nba"], scale=SCALE, seed=4, quiet=True)
    name = "graphs/simplekg/nba_simplekg.json"
    assert (other / name).read_bytes() != (out / name).read_bytes()
    # a graph does not depend on which other graphs are generated with it
    alone = tmp_path / "alone"
    gen.generate(alone, ["movie"], scale=SCALE, seed=3, quiet=True)
    name = "graphs/simplekg/movie_simplekg.json"
    assert (alone / name).read_bytes() == (out / name).read_bytes()


@pytest.mark.parametrize("graph", gen.GRAPH_NAMES)
def test_validates_with_kgbench(out: Path, graph: str) -> None:
    path = out / "graphs/simplekg" / f"{graph}_simplekg.json"
    check = check_graph(path)
    assert check.total == 0, list(check.problems)
    kg = read_kg(out, graph)
    assert dict(check.nodes_by_label) == dict(Counter(e["label"] for e in kg["entities"]))
    assert [r["rid"] for r in kg["relations"]] == [str(i) for i in range(len(kg["relations"]))]


@pytest.mark.parametrize("graph", gen.GRAPH_NAMES)
def test_schema_matches_graph(out: Path, graph: str) -> None:
    schema = json.loads((out / "graphs/schemas" / f"{graph}_schema.json").read_text("utf-8"))
    kg = read_kg(out, graph)
    assert kg["schema"] == schema
    declared_ent = {e["label"]: set(e["properties"]) for e in schema["entities"]}
    declared_rel = {
        (r["label"], r["subj_label"], r["obj_label"]): set(r["properties"])
        for r in schema["relations"]
    }
    seen_ent: dict[str, set[str]] = defaultdict(set)
    label_of = {}
    for e in kg["entities"]:
        seen_ent[e["label"]] |= set(e["properties"])
        label_of[e["eid"]] = e["label"]
    seen_rel: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for r in kg["relations"]:
        seen_rel[(r["label"], label_of[r["subj_id"]], label_of[r["obj_id"]])] |= set(
            r["properties"]
        )
    assert dict(seen_ent) == declared_ent  # every label and property, both ways
    assert dict(seen_rel) == declared_rel
    assert all("name" not in props for props in declared_ent.values())
    text = load_schema_texts([graph], schema_dir=out / "graphs/schemas")[graph]
    assert json.loads(text)["name"] == graph


def test_tables_6_8_9_counts() -> None:
    """Label, relation-variant and property counts of Table 6 (fictional_character: the 11
    properties Tables 8-9 list, Table 6 says 12); `name` counts as a property there."""
    table6 = {
        "company": (4, 6, 14),
        "fictional_character": (4, 11, 11),
        "flight_accident": (5, 5, 25),
        "geography": (8, 12, 19),
        "movie": (7, 9, 21),
        "nba": (7, 7, 27),
        "politics": (6, 11, 25),
    }
    for graph, (n_ent, n_rel, n_prop) in table6.items():
        spec = gen.graph_spec(graph)
        variants = [v for r in spec.rels for v in r.variants]
        props = sum(1 + len(lab.props) for lab in spec.labels) + sum(
            len(r.props) for r in spec.rels
        )
        assert (len(spec.labels), len(variants), props) == (n_ent, n_rel, n_prop), graph


def test_scale_one_sizes_are_table_6() -> None:
    for spec in gen.GRAPHS:
        counts = gen.label_counts(spec, 1.0)
        n_rel = sum(sum(gen.variant_counts(spec, r, counts, 1.0)) for r in spec.rels)
        assert abs(sum(counts.values()) - spec.entities) <= 0.02 * spec.entities, spec.name
        assert abs(n_rel - spec.relations) <= 0.02 * spec.relations, spec.name


@pytest.mark.parametrize("graph", ["company", "geography", "politics"])
def test_sizes_scale(tmp_path: Path, graph: str) -> None:
    spec = gen.graph_spec(graph)
    (w,) = gen.generate(tmp_path, [graph], scale=0.01, seed=0, quiet=True)
    assert w.entities == pytest.approx(spec.entities * 0.01, rel=0.06)  # fixed labels: Country
    assert w.relations == pytest.approx(spec.relations * 0.01, rel=0.02)
    kg = read_kg(tmp_path, graph)
    assert (len(kg["entities"]), len(kg["relations"])) == (w.entities, w.relations)


def edges_by_relation(kg: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in kg["relations"]:
        out[r["label"]].append((r["subj_id"], r["obj_id"]))
    return out


@pytest.mark.parametrize("graph", gen.GRAPH_NAMES)
def test_relation_characteristics(out: Path, graph: str) -> None:
    kg = read_kg(out, graph)
    spec = gen.graph_spec(graph)
    edges = edges_by_relation(kg)
    by_label = Counter(e["label"] for e in kg["entities"])
    for rel in spec.rels:
        pairs = edges[rel.label]
        assert pairs, rel.label
        out_deg = Counter(s for s, _ in pairs)
        in_deg = Counter(o for _, o in pairs)
        if rel.obj_card == "one" and not rel.symmetric:
            assert max(out_deg.values()) == 1, rel.label
        if rel.subj_card == "one" and not rel.symmetric:
            assert max(in_deg.values()) == 1, rel.label
        if rel.symmetric:
            assert set(pairs) == {(o, s) for s, o in pairs}, rel.label
            if rel.obj_card == "one":
                assert max(out_deg.values()) == 1, rel.label
        assert all(s != o for s, o in pairs), rel.label
        if not rel.time_sensitive:
            assert len(set(pairs)) == len(pairs), rel.label
        for v in rel.variants:
            if rel.cover_obj and not rel.symmetric:
                mine = [
                    (s, o)
                    for s, o in pairs
                    if s.startswith(v.subj + "#") and o.startswith(v.obj + "#")
                ]
                # every object has an edge of this variant, as far as its count allows
                assert len({o for _, o in mine}) == min(by_label[v.obj], len(mine)), (rel.label, v)
        props = [r["properties"] for r in kg["relations"] if r["label"] == rel.label]
        if rel.time_sensitive:
            assert any("start_year" in q and "end_year" in q for q in props)
            for q in props:
                if "start_year" in q and "end_year" in q:
                    assert q["end_year"] >= q["start_year"]


def test_heavy_tail_names_dates_lists_missing(tmp_path: Path) -> None:
    gen.generate(tmp_path, ["movie"], scale=0.02, seed=1, quiet=True)
    kg = read_kg(tmp_path, "movie")
    cast = Counter(r["obj_id"] for r in kg["relations"] if r["label"] == "hasCastMember")
    mean = sum(cast.values()) / len(cast)
    assert max(cast.values()) > 10 * mean  # heavy tail: hubs far above the mean degree
    genres = Counter(r["obj_id"] for r in kg["relations"] if r["label"] == "hasGenre")
    assert genres.most_common(1)[0][1] > 0.1 * sum(genres.values())
    persons = [e for e in kg["entities"] if e["label"] == "Person"]
    names = Counter(e["name"] for e in persons)
    assert names.most_common(1)[0][1] > 1  # duplicate names, as in Wikidata
    assert len(names) > 0.5 * len(persons)
    born = [e["properties"]["date_of_birth"] for e in persons if "date_of_birth" in e["properties"]]
    assert 0.6 * len(persons) < len(born) < 0.9 * len(persons)  # missing values
    assert all(len(d) == 10 and d[4] == "-" and d[7] == "-" for d in born)
    for e in persons:
        q = e["properties"]
        if "date_of_death" in q and "date_of_birth" in q:
            assert q["date_of_death"] > q["date_of_birth"]
    langs = [e["properties"].get("original_language") for e in kg["entities"]]
    lists = [x for x in langs if x is not None]
    assert lists and all(isinstance(x, list) and x == sorted(set(x)) and x for x in lists)
    wiki = sum(1 for e in kg["entities"] if e["provenance"]) / len(kg["entities"])
    assert wiki == pytest.approx(262.2 / 459.4, abs=0.03)  # Table 6's Wikipedia share
    linked = [e for e in kg["entities"] if e["provenance"]]
    assert all(
        e["provenance"] == ["https://en.wikipedia.org/wiki/" + e["name"].replace(" ", "_")]
        for e in linked
    )


@pytest.mark.realdata
def test_characteristics_are_graph_info() -> None:
    if not GRAPH_INFO.is_file():
        pytest.skip(f"{GRAPH_INFO} is absent (../shared/data reference)")
    info = json.loads(GRAPH_INFO.read_text("utf-8"))
    for spec in gen.GRAPHS:
        ref = {r["label"]: r for r in info[spec.name]["relations"]}
        assert set(ref) == {r.label for r in spec.rels}, spec.name
        for rel in spec.rels:
            r = ref[rel.label]
            assert r["variants"] == [f"{rel.label}#{v.subj}#{v.obj}" for v in rel.variants]
            got = (
                rel.symmetric,
                rel.time_sensitive,
                rel.subj_card,
                rel.obj_card,
                rel.mandatory_subj,
                rel.mandatory_obj,
            )
            want = (
                r["is_symmetric"],
                r["is_time_sensitive"],
                r["subj_cardinality"],
                r["obj_cardinality"],
                r["is_mandatory_subj"],
                r["is_mandatory_obj"],
            )
            assert got == want, (spec.name, rel.label)
