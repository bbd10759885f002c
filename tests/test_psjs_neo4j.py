"""PSJS and Exec on a real loaded graph (tests/data/cypher/graph.json, "nba_mini").

Expected node sets are written with the graph's entity ids (``eid``) and mapped to Neo4j
element ids, so every PSJS value below is computed by hand from the graph.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgbench.evaluate.provenance import executable, provenance_subgraph, psjs

pytestmark = pytest.mark.neo4j

GRAPH = Path(__file__).parent / "data" / "cypher" / "graph.json"

T1, T2, T3 = "Team#Q1", "Team#Q2", "Team#Q3"
P1, P2, P3, P4 = "Player#Q11", "Player#Q12", "Player#Q13", "Player#Q14"
A1 = "Award#Q21"

RAPTORS = "MATCH (n:Player)-[:playsFor]->(m:Team {name: 'Toronto Raptors'}) RETURN n.name"
OPTIONAL = (
    "MATCH (n:Team) OPTIONAL MATCH (n)<-[:playsFor]-(p:Player)-[:receivesAward]->"
    "(a:Award {name: 'MVP'}) RETURN n.name, count(p)"
)
UNION = (
    "MATCH (n:Player)-[:receivesAward]->(:Award {name: 'MVP'}) RETURN n.name UNION "
    "MATCH (n:Player)-[:playsFor]->(:Team {name: 'Chicago Bulls'}) RETURN n.name"
)
CALL_UNION = (
    "CALL { MATCH (n:Player)-[r0:receivesAward]->(m0:Award {name: 'MVP'}) RETURN n, m0 AS m "
    "UNION MATCH (n:Player)-[r1:playsFor]->(m1:Team {name: 'Chicago Bulls'}) RETURN n, m1 AS m } "
    "WITH DISTINCT n RETURN n.name"
)


@pytest.fixture(scope="module")
def loaded(neo4j_driver: Any) -> Iterator[dict[str, str]]:
    """Load the graph once for this module; map eid -> element id."""
    from kgbench.neo4j import load_graph

    load_graph(str(GRAPH), neo4j_driver, wipe=True, progress=False)
    records, _, _ = neo4j_driver.execute_query("MATCH (n) RETURN n.eid AS eid, elementId(n) AS id")
    yield {r["eid"]: r["id"] for r in records}


@pytest.fixture
def executor(neo4j_driver: Any, loaded: dict[str, str]) -> Any:
    from kgbench.neo4j import QueryExecutor

    return QueryExecutor(neo4j_driver, timeout_s=30, workers=2)


def ids(loaded: dict[str, str], *eids: str) -> set[str]:
    return {loaded[e] for e in eids}


def test_provenance_subgraph_is_the_matched_nodes(executor: Any, loaded: dict[str, str]) -> None:
    assert provenance_subgraph(RAPTORS, executor) == ids(loaded, P1, P2, T1)
    assert provenance_subgraph(OPTIONAL, executor) == ids(loaded, T1, T2, T3, P1, P3, A1)
    expected_union = ids(loaded, P1, P3, A1, P4, T3)
    assert provenance_subgraph(UNION, executor) == expected_union
    assert provenance_subgraph(CALL_UNION, executor) == expected_union
    assert provenance_subgraph("RETURN 1", executor) == set()


def test_identical_strings_score_one_without_execution(executor: Any) -> None:
    assert psjs(RAPTORS, RAPTORS, executor) == (1.0, None)
    # Even a query that cannot run: identical strings are not executed.
    assert psjs("MATCH (n RETURN n", "MATCH (n RETURN n", executor) == (1.0, None)


@pytest.mark.parametrize(
    "pred",
    [
        # renamed variables
        "MATCH (p:Player)-[r:playsFor]->(t:Team {name: 'Toronto Raptors'}) RETURN p.name",
        # anonymous nodes and relationships
        "MATCH (p:Player)-[:playsFor]->(:Team {name: 'Toronto Raptors'}) RETURN p.name",
        # extra RETURN columns, DISTINCT, ORDER BY
        "MATCH (n:Player)-[:playsFor]->(m:Team {name: 'Toronto Raptors'}) "
        "RETURN DISTINCT n.name, m.name, n.height_cm ORDER BY n.height_cm",
        # WHERE instead of a property map, lower-case keywords
        "match (n:Player)-[:playsFor]->(m:Team) where m.name = 'Toronto Raptors' return n",
    ],
)
def test_same_provenance_scores_one(executor: Any, pred: str) -> None:
    assert psjs(RAPTORS, pred, executor) == (1.0, None)


def test_partial_overlaps(executor: Any) -> None:
    broader = "MATCH (n:Player)-[:playsFor]->(m:Team) RETURN n.name"
    assert psjs(RAPTORS, broader, executor) == (3 / 7, None)
    # OPTIONAL MATCH: the gold has 6 nodes, the prediction finds the 3 teams.
    assert psjs(OPTIONAL, "MATCH (n:Team) RETURN n.name", executor) == (0.5, None)
    # A prediction satisfying one condition of a UNION (seed §5.2's example).
    one_branch = "MATCH (n:Player)-[:receivesAward]->(a:Award {name: 'MVP'}) RETURN n.name"
    assert psjs(UNION, one_branch, executor) == (3 / 5, None)
    assert psjs(CALL_UNION, UNION, executor) == (1.0, None)
    # The WHERE after a WITH without aliases belongs to the MATCH part.
    gold = "MATCH (n:Player) WITH DISTINCT n WHERE n.height_cm > 200 RETURN n.name"
    pred = "MATCH (n:Player) WHERE n.height_cm >= 200 RETURN n.name"
    assert psjs(gold, pred, executor) == (2 / 3, None)


def test_empty_union_scores_zero(executor: Any) -> None:
    gold = "MATCH (n:Player {name: 'Nobody'}) RETURN n.name"
    pred = "MATCH (n:Team {name: 'Nobody'}) RETURN n.name"
    assert psjs(gold, pred, executor) == (0.0, None)


def test_bad_predictions_score_zero_with_a_reason(executor: Any) -> None:
    score, failure = psjs(RAPTORS, "MATCH (n:Player RETURN n.name", executor)
    assert score == 0.0 and failure is not None
    assert failure.error_class == "parse"
    score, failure = psjs(RAPTORS, "MATCH (n:Player) DETACH DELETE n", executor)
    assert score == 0.0 and failure is not None and failure.error_class == "write"
    score, failure = psjs(RAPTORS, "", executor)
    assert score == 0.0 and failure is not None and failure.error_class == "empty"
    # Parses, but its provenance query fails in Neo4j (invalid date string).
    score, failure = psjs(
        RAPTORS, "MATCH (n:Player) WHERE n.date_of_birth > date('not a date') RETURN n", executor
    )
    assert score == 0.0 and failure is not None and failure.error_class == "semantic/type"
    # The write query was not executed: all players are still there.
    assert len(provenance_subgraph("MATCH (n:Player) RETURN n", executor)) == 4


def test_executable(executor: Any, neo4j_driver: Any) -> None:
    assert executable(RAPTORS, executor) == (1.0, None)
    score, failure = executable("MATCH (n:Player RETURN n.name", executor)
    assert score == 0.0 and failure is not None and failure.error_class == "syntax"
    score, failure = executable("MATCH (n) SET n.x = 1", executor)
    assert score == 0.0 and failure is not None and failure.error_class == "write"
    from kgbench.neo4j import QueryExecutor

    slow = QueryExecutor(neo4j_driver, timeout_s=1, workers=1)
    score, failure = executable(
        "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b RETURN count(*)", slow
    )
    assert score == 0.0 and failure is not None and failure.error_class == "timeout"


# --- issue 18, defects 4 and 5: Neo4j 5 syntax scores like its openCypher equivalent ------


@pytest.mark.parametrize(
    ("pred", "expected"),
    [
        # type predicate, alias named like a clause (was: write gate, PSJS 0)
        (
            "MATCH (n:Player)-[:playsFor]->(m:Team) WHERE m.name IS :: STRING "
            "AND m.name = 'Toronto Raptors' RETURN n.name AS set",
            1.0,
        ),
        # CALL () { } IN TRANSACTIONS (was: parse error, PSJS 0)
        (
            "CALL () { MATCH (n:Player)-[:playsFor]->(m:Team {name: 'Toronto Raptors'}) "
            "RETURN n } IN TRANSACTIONS OF 10 ROWS RETURN n.name",
            1.0,
        ),
        # quantified path pattern: the group variables are lists
        (
            "MATCH (x:Player) ((a)-[:playsFor]->(b:Team {name: 'Toronto Raptors'})){1,2} (y) "
            "RETURN x.name",
            1.0,
        ),
        # COUNT {} subquery: its nodes are not in the MATCH part (2 players of 3 nodes)
        (
            "MATCH (n:Player) WHERE COUNT { (n)-[:playsFor]->(:Team {name: 'Toronto Raptors'}) }"
            " > 0 RETURN n.name",
            2 / 3,
        ),
        # keyword-named variables and a node-pattern WHERE
        (
            "MATCH (set:Player)-[:playsFor]->(delete:Team WHERE delete.name = 'Toronto Raptors')"
            " RETURN set.name AS merge",
            1.0,
        ),
    ],
)
def test_neo4j5_syntax_scores(executor: Any, pred: str, expected: float) -> None:
    score, failure = psjs(RAPTORS, pred, executor)
    assert failure is None
    assert score == pytest.approx(expected)


def test_escaped_write_is_refused_and_not_run(executor: Any) -> None:
    score, failure = psjs(RAPTORS, "MATCH (n:Player) DETACH \\u0044ELETE n", executor)
    assert score == 0.0 and failure is not None and failure.error_class == "write"
    assert len(provenance_subgraph("MATCH (n:Player) RETURN n", executor)) == 4


# --- issue 29: one Cypher front end ---------------------------------------------------------


@pytest.mark.parametrize(
    ("pred", "expected"),
    [
        # the first syntax error lies after the MATCH part (CypherBench §5.2): PSJS of it
        (
            "MATCH (n:Player)-[:playsFor]->(m:Team {name: 'Toronto Raptors'}) "
            "WITH DISTINCT n RETRUN n.name",
            1.0,
        ),
        (
            "MATCH (n:Player)-[:playsFor]->(m:Team {name: 'Toronto Raptors'}) "
            "RETURN n.name ORDER BYY n.name",
            1.0,
        ),
        # relationship-type alternation with colons (deprecated, Neo4j 5 accepts it)
        (
            "MATCH (n:Player)-[:playsFor|:receivesAward]->(m:Team {name: 'Toronto Raptors'}) "
            "RETURN n.name",
            1.0,
        ),
        # a variable named like a function, as models write it
        (
            "MATCH (n:Player)-[:playsFor]->(m:Team {name: 'Toronto Raptors'}) "
            "RETURN m.name, count(n) AS count ORDER BY count DESC",
            1.0,
        ),
    ],
)
def test_front_end_forms_score_like_the_server(executor: Any, pred: str, expected: float) -> None:
    score, failure = psjs(RAPTORS, pred, executor)
    assert failure is None
    assert score == pytest.approx(expected)


def test_syntax_error_after_match_part_scores_psjs_but_not_exec(executor: Any) -> None:
    pred = (
        "MATCH (n:Player)-[:playsFor]->(m:Team {name: 'Toronto Raptors'}) "
        "WITH DISTINCT n RETRUN n.name"
    )
    assert psjs(RAPTORS, pred, executor) == (1.0, None)
    score, failure = executable(pred, executor)
    assert score == 0.0 and failure is not None and failure.error_class == "syntax"
    # A typo inside the MATCH part: PSJS 0, with the front end's one-line error.
    inside = "MATCH (n:Player)-[:playsFor]->(m:Team) WHER m.name = 'x' RETURN n.name"
    score, failure = psjs(RAPTORS, inside, executor)
    assert score == 0.0 and failure is not None and failure.error_class == "parse"
    from kgbench._core.cypher import syntax_error

    assert failure.error == syntax_error(inside)
    assert failure.error.startswith("Cypher syntax error at byte ")


def test_neo4j_refusals_are_refused(executor: Any) -> None:
    """`!=`, `size(<pattern>)` and `[r:A|:B]` are syntax errors in Neo4j 5, and in
    kgbench's front end (checked against the server with EXPLAIN)."""
    from kgbench._core.cypher import syntax_error

    for q in [
        "MATCH (n:Player) WHERE n.name != 'x' RETURN n",
        "MATCH (n:Player) WHERE size((n)-->()) > 1 RETURN n",
        "MATCH (a:Player)-[r:playsFor|:receivesAward]->(b) RETURN b",
    ]:
        assert syntax_error(q) is not None, q
        (res,) = executor.run_many(["EXPLAIN " + q])
        assert not res.ok and res.error_class in ("syntax", "semantic/type"), (q, res.error)


def test_executor_knows_the_server_dialect(executor: Any) -> None:
    """The session's server is kgbench's default 5.26: the executor parses for Cypher 5
    (kgbench.neo4j.executor.cypher_dialect; the Cypher 25 server is tested in
    test_neo4j_versions.py)."""
    assert executor.dialect == "5" == executor.cypher_dialect
