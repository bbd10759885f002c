"""Provenance queries from the Cypher parser (no Neo4j needed).

The sample queries are the gold and predicted Cypher of seed cypherbench.txt
Tables 1, 10, 11 and 14 (the PDF text lost some arrow heads, e.g. ``)->[`` for
``)<-[``; they are repaired here as in the CypherBench release).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgbench._core import cypher

# (query, node variables of each branch)
SAMPLES: list[tuple[str, list[list[str]]]] = [
    (
        "MATCH (n:TerroristAttack) WITH DISTINCT n WHERE n.date < date('1997-03-13') RETURN n.name",
        [["n"]],
    ),
    (
        "MATCH (n:AircraftModel)-[r1:manufacturedBy]->(m1:AircraftManufacturer {name:'ATR'}) "
        "OPTIONAL MATCH (n:AircraftModel)<-[r0:involves]-(m0:FlightAccident) "
        "WITH n, count(DISTINCT m0) AS num RETURN n.name, num",
        [["n", "m1", "m0"]],
    ),
    (
        "MATCH (n:Taxon)-[r0:feedsOn]->(m0:Taxon {name:'Leporidae'}) WITH DISTINCT n "
        "RETURN avg(n.longest_lifespan_years)",
        [["n", "m0"]],
    ),
    ("MATCH (n:River {name: 'Guamués River'}) WITH DISTINCT n RETURN n.discharge_m3_s", [["n"]]),
    (
        "MATCH (n:Company)-[r0:operatesIn]->(m0:Industry)<-[r1:operatesIn]-"
        "(m1:Company {name: 'Bardel Entertainment'}) WITH DISTINCT n RETURN n.name",
        [["n", "m0", "m1"]],
    ),
    (
        "MATCH (n:Person)<-[r0:wroteBy]-(m0:Movie), (n:Person)<-[r1:hasCastMember]-(m0:Movie) "
        "WITH DISTINCT n UNWIND n.country_of_citizenship AS prop RETURN DISTINCT prop",
        [["n", "m0"]],
    ),
    (
        "MATCH (n:Painting {name: 'Edward George Villiers Stanley, 17th Earl of Derby'}),"
        "(m0:Painting {name: 'Tulip Field in Holland'}) RETURN CASE WHEN n.creation_year > "
        "m0.creation_year THEN n.name ELSE m0.name END AS answer",
        [["n", "m0"]],
    ),
    (
        "MATCH (n:Person)<-[r0:hasCEO]-(m0:Company {name: 'Mercedes-AMG'}) WHERE "
        "r0.start_year <= 1999 AND (r0.end_year >= 1999 OR r0.end_year IS NULL) "
        "WITH DISTINCT n RETURN n.name",
        [["n", "m0"]],
    ),
    (
        "CALL { MATCH (n:Politician)<-[r0:headedBy]-(m0:PoliticalParty {name: 'Law and "
        "Justice'}) RETURN n, m0 AS m UNION MATCH (n:Politician)<-[r1:hasHeadOfState]-"
        "(m1:Country {name: 'Poland'}) RETURN n, m1 AS m } WITH DISTINCT n RETURN n.name",
        [["n", "m0"], ["n", "m1"]],
    ),
    (
        "MATCH (n:Movie)-[r0:partOfSeries]->(m0:FilmSeries {name: 'Spider-Verse'}) "
        "WITH DISTINCT n RETURN n.name ORDER BY n.global_box_office_usd DESC LIMIT 1",
        [["n", "m0"]],
    ),
    (
        "MATCH (n:Company)-[r0:operatesIn]->(m0:Industry {name: 'public relations'}) "
        "WITH DISTINCT n WHERE n.launch_year > 1927 RETURN n.name",
        [["n", "m0"]],
    ),
    (
        "MATCH (t:Team)-[:hasHomeVenue {start_year: start, end_year: end}]->"
        "(v:Venue {name: 'Toyota Coliseum'}) RETURN DISTINCT t.name, t.head_coach",
        [["t", "v"]],
    ),
    (
        "MATCH (c:Character)-[:hasFather]->(:Character) RETURN DISTINCT "
        "c.country_of_citizenship AS countries",
        [["c", "__kgb_n0"]],
    ),
    (
        "MATCH (r:River {name: 'Natara'})-[:flowsThrough]->(c:Country), (c)-[:locatedIn]->"
        "(co:Continent), (r)-[:flowsInto]->(l:Lake) WHERE c.area_km2 < 390000 "
        "RETURN DISTINCT l.name",
        [["r", "c", "co", "l"]],
    ),
]


@pytest.mark.parametrize(("query", "variables"), SAMPLES)
def test_reference_samples(query: str, variables: list[list[str]]) -> None:
    details = cypher.provenance_details(query)
    assert [d["node_variables"] for d in details] == variables
    queries = cypher.provenance_queries(query)
    assert queries == [d["cypher"] for d in details]
    for q in queries:
        assert q.endswith(f"RETURN DISTINCT elementId(__kgb_node) AS {cypher.ELEMENT_ID_COLUMN}")
        # A provenance query is itself parseable and read-only.
        assert cypher.write_clauses(q) == []
        assert len(cypher.provenance_queries(q)) == 1


def test_match_part_keeps_where_of_bare_with_and_drops_the_rest() -> None:
    (d,) = cypher.provenance_details(
        "MATCH (n:TerroristAttack) WITH DISTINCT n WHERE n.date < date('1997-03-13') RETURN n.name"
    )
    assert d["match_cypher"] == (
        "MATCH (n:TerroristAttack) WITH * WHERE n.date < date('1997-03-13')"
    )
    (d,) = cypher.provenance_details("MATCH (n:Team) WITH DISTINCT n RETURN n.name")
    assert d["match_cypher"] == "MATCH (n:Team)"


def test_list_and_map_literals_and_functions_parse() -> None:
    q = (
        "MATCH (n:Person {name: 'A'}) WHERE n.date_of_birth >= date({year: 1950}) "
        "AND 'x' IN n.aliases AND size([x IN n.aliases WHERE x STARTS WITH 'a' | x]) > 0 "
        "RETURN {name: n.name, dob: toString(n.date_of_birth)} AS m, [1, 2.5, null] AS l"
    )
    assert cypher.provenance_details(q)[0]["node_variables"] == ["n"]


def test_syntax_errors_raise_value_error() -> None:
    with pytest.raises(cypher.CypherSyntaxError) as info:
        cypher.provenance_queries("MATCH (n RETURN n")
    assert isinstance(info.value, ValueError)
    assert info.value.offset is not None
    for bad in ["", "   ", "What is the capital?", "MATCH (n) RETURN n; MATCH (m) RETURN m"]:
        with pytest.raises(ValueError):
            cypher.provenance_queries(bad)
    # The broken prediction of Table 14 ("Pattern Not Aligned with Question").
    with pytest.raises(cypher.CypherSyntaxError):
        cypher.provenance_queries(
            "MATCH (fa:FlightAccident)-[:departsFrom]:destinedFor]->(a:Airport) "
            "RETURN DISTINCT fa.name"
        )


def test_no_match_part_gives_no_queries() -> None:
    assert cypher.provenance_queries("RETURN 1") == []
    assert cypher.provenance_queries("UNWIND [1] AS x RETURN x") == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_provenance_raises_only_value_error(text: str) -> None:
    try:
        result = cypher.provenance_queries(text)
    except ValueError:
        return
    assert isinstance(result, list)


# --- issue 18, defect 5: Neo4j 5 syntax ---------------------------------------------------


@pytest.mark.parametrize(
    ("query", "match_parts", "variables"),
    [
        (
            "MATCH (n:Person) WHERE n.name IS :: STRING RETURN n.name AS set",
            ["MATCH (n:Person) WHERE n.name IS :: STRING"],
            [["n"]],
        ),
        (
            "MATCH (n)-->(m) WHERE m.x IS NOT :: ANY<STRING | INTEGER> AND n.y::INT RETURN m",
            ["MATCH (n)-->(m) WHERE m.x IS NOT :: ANY<STRING | INTEGER> AND n.y::INT"],
            [["n", "m"]],
        ),
        (
            "CALL { MATCH (a:A)-[:R]->(b) RETURN a } IN TRANSACTIONS OF 5 ROWS RETURN a",
            ["MATCH (a:A)-[:R]->(b)"],
            [["a", "b"]],
        ),
        (
            "CALL () { MATCH (a:A) RETURN a UNION MATCH (a:B) RETURN a } RETURN a.name",
            ["MATCH (a:A)", "MATCH (a:B)"],
            [["a"], ["a"]],
        ),
        (
            "MATCH (x:X) ((a)-[:R]->(b)){1,3} (y) RETURN y",
            ["MATCH (x:X) ((a)-[:R]->(b)){1,3} (y)"],
            [["x", "y", "a", "b"]],
        ),
        (
            "MATCH (x) ((a)-[:R]->(b))+ (y) RETURN y",
            ["MATCH (x) ((a)-[:R]->(b))+ (y)"],
            [["x", "y", "a", "b"]],
        ),
        (
            "MATCH (x) ((a)-[:R]->(b))* (y) RETURN y",
            ["MATCH (x) ((a)-[:R]->(b))* (y)"],
            [["x", "y", "a", "b"]],
        ),
        (
            "MATCH (n:P) WHERE COUNT { (n)-->(:Q) } > 1 AND EXISTS { (n)<--(m:R) } "
            "RETURN COLLECT { MATCH (n)-->(z) RETURN z.x } AS zs",
            ["MATCH (n:P) WHERE COUNT { (n)-->(:Q) } > 1 AND EXISTS { (n)<--(m:R) }"],
            [["n"]],
        ),
        (
            "MATCH (set:Set|Create WHERE set.x > 1)-[:SET]->(delete) RETURN delete AS merge",
            ["MATCH (set:Set|Create WHERE set.x > 1)-[:SET]->(delete)"],
            [["set", "delete"]],
        ),
    ],
)
def test_neo4j5_syntax(query: str, match_parts: list[str], variables: list[list[str]]) -> None:
    details = cypher.provenance_details(query)
    assert [d["match_cypher"] for d in details] == match_parts
    assert [d["node_variables"] for d in details] == variables
