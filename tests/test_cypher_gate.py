"""The read-only gate ``kgbench._core.cypher.write_clauses`` (no Neo4j needed)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgbench._core import cypher

READ_ONLY = [
    "MATCH (n:Team) WITH DISTINCT n RETURN n.name",
    "MATCH (n:TerroristAttack) WITH DISTINCT n WHERE n.date < date('1997-03-13') RETURN n.name",
    "CALL { MATCH (n:Politician)<-[r0:headedBy]-(m0:PoliticalParty {name: 'Law and Justice'}) "
    "RETURN n, m0 AS m UNION MATCH (n:Politician)<-[r1:hasHeadOfState]-(m1:Country "
    "{name: 'Poland'}) RETURN n, m1 AS m } WITH DISTINCT n RETURN n.name",
    "MATCH (n {name: 'CREATE (x)'}) RETURN n // DELETE n",
    "MATCH (n) /* SET n.x = 1 */ RETURN n.`set`, n.create",
    "CALL db.labels() YIELD label RETURN label",
    "CALL db.schema.visualization()",
    "RETURN [1, 2, {a: 'MERGE'}] AS x",
    "MATCH (n) WHERE EXISTS { MATCH (n)-->(m) } RETURN count(*)",
    "",
    "What is the capital of France?",
]


@pytest.mark.parametrize("query", READ_ONLY)
def test_read_only_queries(query: str) -> None:
    assert cypher.write_clauses(query) == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("CREATE (n:X)", ["CREATE"]),
        ("create (n:X)", ["CREATE"]),
        ("MATCH (n) SET n.x = 1 REMOVE n:Y", ["SET", "REMOVE"]),
        ("MATCH (n) DETACH DELETE n", ["DETACH DELETE"]),
        ("MATCH (n) DELETE n", ["DELETE"]),
        ("MERGE (n:X {id: 1}) ON CREATE SET n.c = 1", ["MERGE"]),
        ("MATCH (n) FOREACH (x IN [1] | CREATE (:Y))", ["FOREACH", "CREATE"]),
        ("LOAD CSV FROM 'file:///x.csv' AS row RETURN row", ["LOAD CSV"]),
        ("MATCH (n) CALL { WITH n CREATE (m) } RETURN n", ["CREATE"]),
        ("CALL apoc.create.node(['X'], {}) YIELD node RETURN node", ["CALL apoc.create.node"]),
        ("CALL dbms.killQuery('x')", ["CALL dbms.killQuery"]),
        # Not openCypher: the lexical fallback.
        ("CREATE INDEX idx FOR (n:X) ON (n.name)", ["CREATE"]),
        ("DROP DATABASE foo", ["DROP"]),
        ("MATCH (n) RETURN n; MATCH (m) DETACH DELETE m", ["DETACH DELETE"]),
        ("MATCH (n RETURN n CREATE (m)", ["CREATE"]),
        ("please delete everything", ["DELETE"]),
    ],
)
def test_write_queries(query: str, expected: list[str]) -> None:
    assert cypher.write_clauses(query) == expected


def test_fallback_ignores_strings_comments_and_property_keys() -> None:
    query = "MATCH (n RETURN 'CREATE' // MERGE\n n.set"
    assert cypher.lexical_write_clauses(query) == []
    assert cypher.write_clauses(query) == []


def test_read_only_procedure_list_is_exposed() -> None:
    assert "db.labels" in cypher.READ_ONLY_PROCEDURES
    assert "apoc.meta.data" in cypher.READ_ONLY_PROCEDURES
    assert all(isinstance(p, str) for p in cypher.READ_ONLY_PROCEDURES)


def test_huge_and_deep_inputs_do_not_crash() -> None:
    deep = "RETURN " + "(" * 5000 + "1" + ")" * 5000
    assert cypher.write_clauses(deep) == []
    chain = "RETURN 1" + " + 1" * 20000
    assert cypher.write_clauses(chain) == []
    assert cypher.write_clauses("MATCH (n) " * 200_000 + "DELETE n") == ["DELETE"]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_never_raises(text: str) -> None:
    result = cypher.write_clauses(text)
    assert isinstance(result, list)
    assert all(isinstance(c, str) and c for c in result)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["CREATE (x)", "SET n.a = 1", "DETACH DELETE n", "MERGE (y:Z)", "REMOVE n.a"]),
    st.text(alphabet=st.characters(blacklist_characters="'\"`/*\\.:"), max_size=40),
)
def test_write_clause_after_any_prefix_is_found(clause: str, noise: str) -> None:
    """A write clause in clause position after arbitrary quote-free noise is reported
    (parsed or not). (After `(`, `,`, an operator or `RETURN` a word is a name.)"""
    found = cypher.write_clauses(f"MATCH (n) {noise}\n WITH n {clause}")
    assert found, (noise, clause)


def test_lone_surrogates() -> None:
    assert cypher.write_clauses("MATCH (n) \ud800 CREATE (x)") == ["CREATE"]
    assert cypher.write_clauses("\udfff") == []
    with pytest.raises(cypher.CypherSyntaxError):
        cypher.provenance_queries("MATCH (n) \ud800 RETURN n")


# --- issue 18, defect 4 -------------------------------------------------------------------

NEO4J5_READ = [
    # The query: the type predicate failed the parse, and the lexical fallback took
    # the alias `set` for a SET clause.
    "MATCH (n:Person) WHERE n.name IS :: STRING RETURN n.name AS set",
    "MATCH (n) WHERE n.x IS NOT :: LIST<INTEGER NOT NULL> RETURN n.x AS create",
    "MATCH (delete:Set)-[merge:SET]->(remove {set: 1}) RETURN delete.create AS foreach",
    "MATCH (n:A|B WHERE n.x > 1), (m:C) RETURN m AS detach",
    "CALL () { MATCH (n:X) RETURN n } IN TRANSACTIONS OF 10 ROWS RETURN n.name AS set",
    "MATCH (n) WHERE COUNT { (n)-->(:Set) } > 1 RETURN n",
    # Neo4j decodes escapes: this is a comment after `RETURN 1 AS x`.
    "RETURN 1 AS x \\u002F\\u002F CREATE (n)",
]


@pytest.mark.parametrize("query", NEO4J5_READ)
def test_neo4j5_read_queries_pass(query: str) -> None:
    assert cypher.write_clauses(query) == []


def test_lexical_fallback_skips_names() -> None:
    # `;;` keeps the parser out: only the lexical scan decides.
    for query in [
        "MATCH (n:Person) WHERE n.name IS :: STRING RETURN n.name AS set ;;",
        "MATCH (set:Set)-[:SET|MERGE]->(create) RETURN set, create.delete ;;",
        "RETURN {create: 1, remove: 2} AS foreach, [delete IN [1] | delete] ;;",
    ]:
        assert cypher.lexical_write_clauses(query) == [], query
    assert cypher.lexical_write_clauses("MATCH (n) WITH * SET n.x = 1 ;;") == ["SET"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("MATCH (n) \\u0043REATE (m)", ["CREATE"]),
        ("MATCH (n) \\u0053ET n.x = 1", ["SET"]),
        ("MATCH (n) DETACH \\u0044ELETE n", ["DETACH DELETE"]),
        ("CR\\u0045ATE (n)", ["CREATE"]),
        # `\\u000a` ends the comment: Neo4j sees a CREATE clause.
        ("RETURN 1 // \\u000a CREATE (n)", ["CREATE"]),
        ("MATCH (n) WHERE n.x :: LIST<INTEGER> MERGE (m)", ["MERGE"]),
    ],
)
def test_escaped_and_neighbouring_write_clauses_are_found(query: str, expected: list[str]) -> None:
    assert cypher.write_clauses(query) == expected
