"""The graph loader (kgbench.neo4j.load_graph) on the real local Neo4j."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kgbench.neo4j import GraphValidationError, load_graph, validate_graph

pytestmark = pytest.mark.neo4j


def rows(driver: Any, query: str) -> list[tuple[Any, ...]]:
    records, _, _ = driver.execute_query(query)
    return [tuple(r.values()) for r in records]


def test_load_counts_and_types(neo4j_load: Any, neo4j_driver: Any, mini_company_graph: Any) -> None:
    report = neo4j_load(mini_company_graph)
    assert report.nodes_by_label == {"Company": 5, "Country": 3, "Person": 6}
    assert report.relationships_by_type == {
        "basedIn": 4,
        "citizenOf": 2,
        "foundedBy": 4,
        "hasCEO": 5,
        "subsidiaryOf": 1,
    }
    assert (report.nodes, report.relationships) == (14, 16)
    # dates are Neo4j Date values, lists are lists, floats from JSON ints are floats
    assert rows(
        neo4j_driver,
        "MATCH (p:Person {name: 'Werner von Siemens'}) "
        "RETURN valueType(p.date_of_birth), p.date_of_death.year, p.country_of_citizenship, "
        "p.eid, p.provenance, p.aliases",
    ) == [
        (
            "DATE NOT NULL",
            1892,
            ["Germany"],
            "Person#Q57125",
            ["https://en.wikipedia.org/wiki/Werner_von_Siemens"],
            [],
        )
    ]
    assert rows(neo4j_driver, "MATCH (c:Company {name: 'Microsoft'}) RETURN c.revenue_usd") == [
        (198270000000.0,)
    ]
    assert rows(
        neo4j_driver, "MATCH (c:Company {name: 'Microsoft'}) RETURN valueType(c.revenue_usd)"
    ) == [("FLOAT NOT NULL",)]
    # null description is not stored; relationship keeps rid and typed properties
    assert rows(neo4j_driver, "MATCH (c:Company {name: 'Tiny Startup'}) RETURN c.description") == [
        (None,)
    ]
    assert rows(
        neo4j_driver,
        "MATCH (:Person {name: 'Werner von Siemens'})-[r:citizenOf]->(:Country) "
        "RETURN r.rid, r.start_date < date('1900-01-01')",
    ) == [("14", True)]


def test_cypher_features_on_loaded_graph(
    neo4j_load: Any, neo4j_driver: Any, mini_company_graph: Any
) -> None:
    neo4j_load(mini_company_graph)
    # date() comparison
    assert rows(
        neo4j_driver,
        "MATCH (p:Person) WHERE p.date_of_birth >= date('1970-01-01') "
        "RETURN p.name ORDER BY p.name",
    ) == [("Larry Page",), ("Sergey Brin",), ("Sundar Pichai",)]
    # list properties
    assert rows(
        neo4j_driver,
        "MATCH (p:Person) WHERE 'India' IN p.country_of_citizenship RETURN p.name ORDER BY p.name",
    ) == [("Satya Nadella",), ("Sundar Pichai",)]
    # OPTIONAL MATCH keeps companies without a CEO
    assert rows(
        neo4j_driver,
        "MATCH (c:Company) OPTIONAL MATCH (c)-[:hasCEO]->(p:Person) "
        "WITH c, count(p) AS n RETURN c.name, n ORDER BY c.name",
    ) == [
        ("Alphabet Inc.", 1),
        ("Google", 2),
        ("Microsoft", 2),
        ("Siemens", 0),
        ("Tiny Startup", 0),
    ]
    # CALL { ... UNION ... }
    assert rows(
        neo4j_driver,
        "CALL { MATCH (n:Company)-[:foundedBy]->(:Person {name: 'Bill Gates'}) RETURN n "
        "UNION MATCH (n:Company)-[:subsidiaryOf]->(:Company {name: 'Alphabet Inc.'}) RETURN n } "
        "WITH DISTINCT n RETURN n.name ORDER BY n.name",
    ) == [("Google",), ("Microsoft",)]


def test_load_is_idempotent(neo4j_load: Any, neo4j_driver: Any, mini_company_graph: Any) -> None:
    first = neo4j_load(mini_company_graph)
    dump = "MATCH (n) RETURN n.eid, properties(n) ORDER BY n.eid"
    rel_dump = "MATCH (a)-[r]->(b) RETURN a.eid, type(r), b.eid, properties(r) ORDER BY r.rid"
    before = (rows(neo4j_driver, dump), rows(neo4j_driver, rel_dump))
    again = load_graph(mini_company_graph, neo4j_driver, progress=False)  # no wipe: MERGE path
    assert again.nodes_by_label == first.nodes_by_label
    assert again.relationships_by_type == first.relationships_by_type
    assert (rows(neo4j_driver, dump), rows(neo4j_driver, rel_dump)) == before
    constraints = rows(
        neo4j_driver,
        "SHOW CONSTRAINTS YIELD labelsOrTypes, properties, type RETURN * ORDER BY labelsOrTypes",
    )
    assert [(c[0], c[1], c[2]) for c in constraints] == [
        (["Company"], ["eid"], "UNIQUENESS"),
        (["Country"], ["eid"], "UNIQUENESS"),
        (["Person"], ["eid"], "UNIQUENESS"),
    ]


def test_load_from_graph_json_path_and_uri(
    neo4j_server: Any, neo4j_driver: Any, mini_company_graph: Any, tmp_path: Path
) -> None:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(mini_company_graph), encoding="utf-8")
    report = load_graph(path, neo4j_server.uri, wipe=True, progress=False, batch_size=3)
    assert report.nodes == 14
    assert rows(neo4j_driver, "MATCH (n) RETURN count(n)") == [(14,)]


def test_invalid_graph_is_refused_and_nothing_written(
    neo4j_load: Any, neo4j_driver: Any, mini_company_graph: Any
) -> None:
    neo4j_load(mini_company_graph)
    before = rows(neo4j_driver, "MATCH (n) RETURN count(n)")
    bad = copy.deepcopy(mini_company_graph)
    bad["entities"].append(dict(bad["entities"][0]))  # duplicate eid
    bad["entities"][1]["properties"]["population"] = "many"  # wrong datatype
    bad["relations"][0]["obj_id"] = "Country#Q0"  # dangling end
    bad["relations"][1]["label"] = "locatedIn"  # not in the schema
    bad["entities"][3]["properties"]["date_founded"] = "1998-09-04"  # undeclared property
    bad["entities"][8]["properties"]["date_of_birth"] = "1973-02-30"  # impossible date
    problems = validate_graph(bad)
    assert problems == [
        "entities[1] (Country#Q183).properties.population: 'many' is not a int",
        "entities[3] (Company#Q95).properties.date_founded: not declared for entity label "
        "Company in the schema",
        "entities[8] (Person#Q4934).properties.date_of_birth: '1973-02-30' is not a date",
        "entities[14] (Country#Q30).eid: duplicate eid 'Country#Q30'",
        "relations[0] (rid 0).obj_id: no entity with eid 'Country#Q0'",
        "relations[1] (rid 1): relation 'locatedIn' from 'Company' to 'Country' is not in the "
        "schema",
    ]
    with pytest.raises(GraphValidationError, match="nothing was written") as info:
        load_graph(bad, neo4j_driver, wipe=True, progress=False)
    assert info.value.problems == problems
    assert rows(neo4j_driver, "MATCH (n) RETURN count(n)") == before  # not even wiped


def test_validation_of_schema_shapes() -> None:
    graph = {
        "schema": {
            "name": "g",
            "entities": [
                {"label": "Bad Label", "properties": {}},
                {"label": "A", "properties": {"x": "decimal"}},
            ],
            "relations": [],
        },
        "entities": [],
        "relations": {},
    }
    assert validate_graph(graph) == [
        "relations: missing or not a list",
        "schema.entities[0].label: 'Bad Label' is not a label ([A-Za-z0-9_]+)",
        "schema.entities[1].properties.x: unknown datatype 'decimal'",
    ]


def test_load_parquet_pair_from_convert(
    neo4j_server: Any, neo4j_driver: Any, mini_company_graph: Any, tmp_path: Path
) -> None:
    # The Parquet pair as `kgbench convert` writes it, read back by kgbench.convert.read_graph.
    from kgbench.convert import write_parquet

    out = tmp_path / "out"
    out.mkdir()
    write_parquet(mini_company_graph, out)
    report = load_graph(out, neo4j_server.uri, wipe=True, progress=False)
    assert report.nodes_by_label == {"Company": 5, "Country": 3, "Person": 6}
    assert sum(report.relationships_by_type.values()) == 16
    assert rows(
        neo4j_driver,
        "MATCH (p:Person {name: 'Werner von Siemens'}) RETURN p.date_of_death, "
        "p.country_of_citizenship",
    )[0][1] == ["Germany"]


def test_validation_of_values_that_are_not_json(mini_company_graph: Any) -> None:
    """A graph dict with Python objects JSON cannot hold: reported like any wrong value."""
    import datetime

    bad = copy.deepcopy(mini_company_graph)
    bad["entities"][8]["properties"]["date_of_birth"] = datetime.date(1973, 2, 3)
    bad["entities"][8]["aliases"] = {"x"}
    assert validate_graph(bad) == [
        "entities[8] (Person#Q4934).aliases: not a list of strings",
        "entities[8] (Person#Q4934).properties.date_of_birth: datetime.date(1973, 2, 3) is not "
        "a date",
    ]
    bad = copy.deepcopy(mini_company_graph)
    bad["entities"][1]["properties"]["population"] = float("nan")
    (problem,) = validate_graph(bad)
    assert "not representable as JSON" in problem and "float" in problem


def test_validation_messages_quote_values_as_python_does() -> None:
    graph = {
        "schema": {
            "entities": [{"label": "A", "properties": {"s": "str", "f": "float", "d": "date"}}],
            "relations": [],
        },
        "entities": [
            {"eid": "a", "label": "A", "name": "a",
             "properties": {"s": ["it's", 'say "hi"', "\u00e9\t\x00"], "f": "1e-300",
                            "d": 20200101}},
            {"eid": "b", "label": "A", "name": "b", "properties": {"f": 1e-300, "d": "2021-02-29"}},
        ],
        "relations": [],
    }  # fmt: skip
    assert validate_graph(graph) == [
        "entities[0] (a).properties.s: [\"it's\", 'say \"hi\"', 'é\\t\\x00'] is not a str",
        "entities[0] (a).properties.f: '1e-300' is not a float",
        "entities[0] (a).properties.d: 20200101 is not a date",
        "entities[1] (b).properties.d: '2021-02-29' is not a date",
    ]
