"""Schema fetch (kgbench.neo4j.fetch_schema) — CypherBench's queries, seed Appendix B.4."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from kgbench.neo4j import fetch_schema
from kgbench.neo4j.schema import datatype_of

pytestmark = pytest.mark.neo4j


def test_schema_of_loaded_graph_is_exact(
    neo4j_load: Any, neo4j_driver: Any, mini_company_graph: Any
) -> None:
    neo4j_load(mini_company_graph)
    schema = fetch_schema(neo4j_driver, name="mini_company")
    assert schema == {
        "name": "mini_company",
        "entities": [
            {
                "label": "Company",
                "properties": {
                    "is_public": "bool",
                    "launch_year": "int",
                    "name": "str",
                    "revenue_usd": "float",
                },
            },
            {"label": "Country", "properties": {"name": "str", "population": "int"}},
            {
                "label": "Person",
                "properties": {
                    "country_of_citizenship": "list[str]",
                    "date_of_birth": "date",
                    "date_of_death": "date",
                    "gender": "str",
                    "name": "str",
                },
            },
        ],
        # As CypherBench's get_schema (it excludes eid, description, aliases, provenance):
        # every relationship lists the loader's rid, sorted by name with its other properties.
        "relations": [
            {
                "label": "basedIn",
                "subj_label": "Company",
                "obj_label": "Country",
                "properties": {"rid": "str"},
            },
            {
                "label": "citizenOf",
                "subj_label": "Person",
                "obj_label": "Country",
                "properties": {"rid": "str", "start_date": "date"},
            },
            {
                "label": "foundedBy",
                "subj_label": "Company",
                "obj_label": "Person",
                "properties": {"rid": "str"},
            },
            {
                "label": "hasCEO",
                "subj_label": "Company",
                "obj_label": "Person",
                "properties": {"end_year": "int", "rid": "str", "start_year": "int"},
            },
            {
                "label": "subsidiaryOf",
                "subj_label": "Company",
                "obj_label": "Company",
                "properties": {"rid": "str"},
            },
        ],
    }
    # Every declared property is used in this graph, so the fetched schema is the graph's schema
    # plus `name` (as CypherBench's PropertyGraphSchema.from_json adds it), in sorted order.
    declared = mini_company_graph["schema"]
    assert [
        (e["label"], sorted({**e["properties"], "name": "str"}.items()))
        for e in sorted(declared["entities"], key=lambda e: e["label"])
    ] == [(e["label"], list(e["properties"].items())) for e in schema["entities"]]
    # deterministic serialisation
    assert json.dumps(schema) == json.dumps(fetch_schema(neo4j_driver, name="mini_company"))
    # omit_rid=True: the declared relations exactly (the published schema files have no rid)
    omitted = fetch_schema(neo4j_driver, name="mini_company", omit_rid=True)
    assert omitted["entities"] == schema["entities"]
    assert [(r["label"], r["subj_label"], r["obj_label"], r["properties"])
            for r in omitted["relations"]] == [
        (r["label"], r["subj_label"], r["obj_label"], dict(sorted(r["properties"].items())))
        for r in sorted(declared["relations"],
                        key=lambda r: (r["label"], r["subj_label"], r["obj_label"]))
    ]  # fmt: skip


def test_relation_type_variants_share_properties(neo4j_load: Any, neo4j_driver: Any) -> None:
    # As CypherBench: each (type, start, end) variant gets every property seen on the type.
    graph = {
        "schema": {
            "name": "art",
            "entities": [
                {"label": "Painting", "properties": {"inception": "date"}},
                {"label": "Sculpture", "properties": {}},
                {"label": "Person", "properties": {"aliases_x": "list[int]"}},
            ],
            "relations": [
                {
                    "label": "createdBy",
                    "subj_label": "Painting",
                    "obj_label": "Person",
                    "properties": {"year": "int"},
                },
                {
                    "label": "createdBy",
                    "subj_label": "Sculpture",
                    "obj_label": "Person",
                    "properties": {"year": "int"},
                },
            ],
        },
        "entities": [
            {"eid": "Painting#Q12418", "label": "Painting", "name": "Mona Lisa",
             "properties": {"inception": "1503-01-01"}},
            {"eid": "Sculpture#Q179900", "label": "Sculpture", "name": "David", "properties": {}},
            {"eid": "Person#Q762", "label": "Person", "name": "Leonardo da Vinci",
             "properties": {"aliases_x": [1, 2]}},
            {"eid": "Person#Q5592", "label": "Person", "name": "Michelangelo", "properties": {}},
        ],
        "relations": [
            {"rid": "0", "label": "createdBy", "subj_id": "Painting#Q12418",
             "obj_id": "Person#Q762", "properties": {"year": 1503}},
            {"rid": "1", "label": "createdBy", "subj_id": "Sculpture#Q179900",
             "obj_id": "Person#Q5592", "properties": {}},
        ],
    }  # fmt: skip
    neo4j_load(graph)
    schema = fetch_schema(neo4j_driver, name="art")
    assert schema["entities"] == [
        {"label": "Painting", "properties": {"inception": "date", "name": "str"}},
        {"label": "Person", "properties": {"aliases_x": "list[int]", "name": "str"}},
        {"label": "Sculpture", "properties": {"name": "str"}},
    ]
    assert schema["relations"] == [
        {"label": "createdBy", "subj_label": "Painting", "obj_label": "Person",
         "properties": {"rid": "str", "year": "int"}},
        {"label": "createdBy", "subj_label": "Sculpture", "obj_label": "Person",
         "properties": {"rid": "str", "year": "int"}},
    ]  # fmt: skip


def test_schema_cli(neo4j_server: Any, neo4j_load: Any, mini_company_graph: Any) -> None:
    neo4j_load(mini_company_graph)
    proc = subprocess.run(
        [sys.executable, "-m", "kgbench", "schema", "--uri", neo4j_server.uri, "--name", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    schema = json.loads(proc.stdout)
    assert schema["name"] == "x"
    assert [e["label"] for e in schema["entities"]] == ["Company", "Country", "Person"]
    assert len(schema["relations"]) == 5
    assert all("rid" in r["properties"] for r in schema["relations"])
    omitted = subprocess.run(
        [sys.executable, "-m", "kgbench", "schema", "--uri", neo4j_server.uri, "--omit-rid"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert omitted.returncode == 0, omitted.stderr
    relations = json.loads(omitted.stdout)["relations"]
    assert [{k: v for k, v in r["properties"].items() if k != "rid"}
            for r in schema["relations"]] == [r["properties"] for r in relations]  # fmt: skip


@pytest.mark.parametrize(
    ("value_type", "datatype"),
    [
        ("STRING NOT NULL", "str"),
        ("INTEGER NOT NULL", "int"),
        ("FLOAT NOT NULL", "float"),
        ("BOOLEAN NOT NULL", "bool"),
        ("DATE NOT NULL", "date"),
        ("LIST<STRING NOT NULL> NOT NULL", "list[str]"),
        ("LIST<DATE NOT NULL> NOT NULL", "list[date]"),
        ("LIST<NOTHING> NOT NULL", "list[str]"),
        ("ZONED DATETIME NOT NULL", "zoned datetime"),
    ],
)
def test_datatype_mapping(value_type: str, datatype: str) -> None:
    assert datatype_of(value_type) == datatype


def test_value_types_come_from_the_server(neo4j_driver: Any) -> None:
    # The strings datatype_of expects are the ones Neo4j 5.26 returns for stored values.
    records, _, _ = neo4j_driver.execute_query(
        "RETURN valueType('a') AS s, valueType(1) AS i, valueType(1.5) AS f, valueType(true) AS b,"
        " valueType(date('2020-01-01')) AS d, valueType(['a']) AS ls, valueType([]) AS le"
    )
    got = {k: datatype_of(v) for k, v in records[0].items()}
    assert got == {
        "s": "str", "i": "int", "f": "float", "b": "bool", "d": "date",
        "ls": "list[str]", "le": "list[str]",
    }  # fmt: skip
