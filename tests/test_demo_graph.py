"""The demo graph, computed independently with rdflib, against ``kgbench convert``.

The reference below re-implements, for the shipped demo schema only, the
semantics of the original CypherBench engine as SPEC.md §1 states them (it
issued SPARQL over the same RDF): entities need an English label; entity
properties take best-rank (``wdt:``) values; dates need a ``psv:`` time node of
precision >= 11 and years precision >= 9 (the 2022 triples carry no value
nodes, so their dates are dropped); quantities with a unit are read from the
``psv:`` quantity node and converted; scalars keep the smallest value by
``(len(str(v)), v)``; lists are de-duplicated and sorted; ``highest``
relations are ``wdt:`` links, ``non_deprecated`` ones ``p:/ps:`` statements
whose rank is not deprecated, with their qualifiers as properties.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from rdflib import Graph, Literal, URIRef

# Wikidata's, Wikibase's and the vocabularies' IRIs, as the RDF writer of the JSON tests has them.
from wikibase_json_writer import (
    RDFS_LABEL,
    SCHEMA_ABOUT,
    SCHEMA_DESC,
    SCHEMA_PART_OF,
    SKOS_ALT,
    WB,
    WD,
)

DATA = Path(__file__).resolve().parents[1] / "python" / "kgbench" / "demo" / "data"
SCHEMA = DATA / "wikidata_demo.wd2neo4j.json"
INPUTS = [DATA / "Q42.ttl", DATA / "Q24628793.ttl", DATA / "triples-2022-05.nt"]

WDT = "http://www.wikidata.org/prop/direct/"
P = "http://www.wikidata.org/prop/"
PS = "http://www.wikidata.org/prop/statement/"
PSV = "http://www.wikidata.org/prop/statement/value/"
PQ = "http://www.wikidata.org/prop/qualifier/"
PQV = "http://www.wikidata.org/prop/qualifier/value/"
ENWIKI = URIRef("https://en.wikipedia.org/")
#: unit QID -> (unit label, factor to centimetre); the only units the demo data uses.
UNITS_TO_CM = {"Q11573": 100.0, "Q174728": 1.0}


def _load() -> Graph:
    g = Graph()
    for path in INPUTS:
        g.parse(path, format="nt" if path.suffix == ".nt" else "turtle")
    return g


def _english(g: Graph, s: URIRef, pred: URIRef) -> list[str]:
    return sorted(
        str(o) for o in g.objects(s, pred) if isinstance(o, Literal) and o.language == "en"
    )


def _time(g: Graph, node: Any, min_precision: int) -> str | None:
    """ISO date of a wikibase:TimeValue node, or None if too coarse / BCE / absent."""
    value = g.value(node, URIRef(WB + "timeValue"))
    precision = g.value(node, URIRef(WB + "timePrecision"))
    if value is None or precision is None or int(precision) < min_precision:
        return None
    text = str(value)
    if text.startswith("-"):
        return None
    return text[:10]


def _values(g: Graph, item: URIRef, prop: dict[str, Any], labels: dict[Any, str]) -> list[Any]:
    pid, dtype = prop["wd_source"], prop["datatype"]
    base = dtype[5:-1] if dtype.startswith("list[") else dtype
    out: list[Any] = []
    # best-rank statements: p:P statements typed wikibase:BestRank, and their wdt value
    truthy = set(g.objects(item, URIRef(WDT + pid)))
    statements = [
        st for st in g.objects(item, URIRef(P + pid)) if (st, None, URIRef(WB + "BestRank")) in g
    ]
    if base == "date" or prop.get("is_year"):
        for st in statements:
            for node in g.objects(st, URIRef(PSV + pid)):
                iso = _time(g, node, 9 if prop.get("is_year") else 11)
                if iso is None:
                    continue
                out.append(int(iso[:4]) if prop.get("is_year") else iso)
        return out
    if prop.get("quantity_unit"):
        for st in statements:
            for node in g.objects(st, URIRef(PSV + pid)):
                unit = g.value(node, URIRef(WB + "quantityUnit"))
                amount = g.value(node, URIRef(WB + "quantityAmount"))
                qid = str(unit).rsplit("/", 1)[-1] if unit is not None else None
                if amount is None or qid not in UNITS_TO_CM:
                    continue
                out.append(float(Decimal(str(amount))) * UNITS_TO_CM[qid])
        return out
    for value in truthy:
        if isinstance(value, URIRef):
            if str(value).startswith(WD) and value in labels:
                out.append(labels[value])
            continue
        text = str(value)
        try:
            if base == "int":
                out.append(int(Decimal(text)))
            elif base == "float":
                out.append(float(Decimal(text)))
            else:
                out.append(text)
        except ArithmeticError:
            continue
    return out


def expected_graph() -> dict[str, Any]:
    """Entities and relations of the demo graph as ``{eid: {...}}`` / sorted relation tuples."""
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    g = _load()
    labels = {
        s: _english(g, s, RDFS_LABEL)[0]
        for s in set(g.subjects(RDFS_LABEL, None))
        if _english(g, s, RDFS_LABEL)
    }
    entities: dict[str, dict[str, Any]] = {}
    members: dict[str, set[URIRef]] = {}
    for ent in schema["entities"]:
        cls = URIRef(WD + ent["wd_source"])
        items = {s for s in g.subjects(URIRef(WDT + "P31"), cls) if s in labels}
        members[ent["label"]] = items
        for item in items:
            qid = str(item).rsplit("/", 1)[-1]
            props: dict[str, Any] = {}
            for prop in ent.get("properties", []):
                values = _values(g, item, prop, labels)
                if not values:
                    continue
                if prop["datatype"].startswith("list["):
                    props[prop["label"]] = sorted(set(values))
                else:
                    props[prop["label"]] = min(values, key=lambda v: (len(str(v)), v))
            sitelinks = [
                str(a) for a in g.subjects(SCHEMA_ABOUT, item) if (a, SCHEMA_PART_OF, ENWIKI) in g
            ]
            desc = _english(g, item, SCHEMA_DESC)
            entities[f"{ent['label']}#{qid}"] = {
                "label": ent["label"],
                "name": labels[item],
                "description": desc[0] if desc else None,
                "aliases": sorted(set(_english(g, item, SKOS_ALT))),
                "properties": props,
                "provenance": sitelinks,
            }
    relations = []
    for rel in schema["relations"]:
        pid = rel["wd_source"]
        subjects, objects = members[rel["subj_label"]], members[rel["obj_label"]]
        for subj in subjects:
            if rel.get("wd_rank_filter", "highest") == "highest":
                for obj in g.objects(subj, URIRef(WDT + pid)):
                    if obj in objects:
                        relations.append((rel["label"], str(subj), str(obj), ()))
                continue
            for st in g.objects(subj, URIRef(P + pid)):
                if g.value(st, URIRef(WB + "rank")) == URIRef(WB + "DeprecatedRank"):
                    continue
                for obj in g.objects(st, URIRef(PS + pid)):
                    if obj in objects:
                        quals = tuple(
                            (q["label"], str(v))
                            for q in rel.get("properties", [])
                            for v in g.objects(st, URIRef(PQ + q["wd_source"]))
                        )
                        relations.append((rel["label"], str(subj), str(obj), quals))
    return {"entities": entities, "relations": sorted(relations)}


def test_expected_graph_facts() -> None:
    """Hand-checked facts of the shipped data (they fix the demo's task answers)."""
    exp = expected_graph()
    ents = exp["entities"]
    by_label: dict[str, int] = {}
    for e in ents.values():
        by_label[e["label"]] = by_label.get(e["label"], 0) + 1
    assert by_label == {
        "Person": 6,
        "Film": 5,
        "Album": 1,
        "Gene": 6,
        "PrimeNumber": 2,
        "Article": 1,
        "Position": 1,
    }
    adams = ents["Person#Q42"]["properties"]
    assert adams == {
        "date_of_birth": "1952-03-11",
        "date_of_death": "2001-05-11",
        "height_cm": pytest.approx(196.0),
        "birth_name": "Douglas Noël Adams",
        "pseudonyms": ["David Agnew"],
        "viaf_ids": ["113230702"],
        "gnd_id": "119033364",
    }
    # the 2022 triples have no time value nodes: no precision, no dates
    assert ents["Person#Q100268605"]["properties"] == {}
    assert ents["PrimeNumber#Q28753965"]["properties"] == {"number_of_digits": 183}
    assert ents["Film#Q12210859"]["properties"]["duration_minute"] == 140.0
    assert ents["Article#Q24628793"]["properties"]["publication_date"] == "2010-03-15"
    assert exp["relations"] == [
        ("hasPrimeFactor", WD + "Q28753965", WD + "Q28753965", ()),
        ("hasPrimeFactor", WD + "Q67171811", WD + "Q67171811", ()),
    ]


def test_convert_matches_reference(tmp_path: Path) -> None:
    """``kgbench.convert.convert`` on the shipped data gives the rdflib reference graph."""
    from kgbench.convert import convert

    graph, _report = convert(str(SCHEMA), [str(p) for p in INPUTS], str(tmp_path))
    if not isinstance(graph, dict):
        graph = json.loads((tmp_path / "graph.json").read_text(encoding="utf-8"))
    exp = expected_graph()
    got = {e["eid"]: e for e in graph["entities"]}
    assert sorted(got) == sorted(exp["entities"])
    for eid, want in exp["entities"].items():
        e = got[eid]
        assert (e["label"], e["name"]) == (want["label"], want["name"]), eid
        assert (e.get("description") or None) == want["description"], eid
        assert sorted(e.get("aliases") or []) == want["aliases"], eid
        assert sorted(e.get("provenance") or []) == sorted(want["provenance"]), eid
        props = {k: v for k, v in (e.get("properties") or {}).items() if v is not None}
        assert set(props) == set(want["properties"]), eid
        for key, value in want["properties"].items():
            if isinstance(value, float):
                assert props[key] == pytest.approx(value), (eid, key)
            else:
                assert props[key] == value, (eid, key)
    ids = {e["eid"]: e["eid"].split("#", 1)[1] for e in graph["entities"]}
    rels = sorted(
        (
            r["label"],
            WD + ids[r["subj_id"]],
            WD + ids[r["obj_id"]],
            tuple(sorted((r.get("properties") or {}).items())),
        )
        for r in graph["relations"]
    )
    assert rels == exp["relations"]
