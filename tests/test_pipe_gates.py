"""PIPE-Cypher's gates G1-G11 and the ledger (kgbench.generate.pipe.gates; spec
``pipe-cypher.md`` §3, §2.7) against the local Neo4j server.

Every test gates real queries on the hand-written ``mini_company`` graph (or a variant with an
``A:B`` company and a ``Larry O'Hearn``), with the graph profile
:func:`kgbench.generate.pipe.profile.profile_graph` computes from the server. The only test
double is the LLM endpoint (:class:`ChatCompletionsTestDouble`, real HTTP) for the LLM judge.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from chat_completions_double import ChatCompletionsTestDouble, last_user_content
from kgbench.generate.pipe.features import query_features
from kgbench.generate.pipe.gates import (
    LEDGER_ROWS,
    REJECTION_BUCKETS,
    DiversityGate,
    GateSettings,
    gate_candidates,
    gate_static_file,
    rejection_counts,
)
from kgbench.generate.pipe.pipeline import _llm_judge
from kgbench.generate.pipe.profile import profile_graph
from kgbench.llm import LLMClient
from kgbench.neo4j.executor import GraphReader

pytestmark = pytest.mark.neo4j


@dataclass
class Env:
    """The loaded graph: a reader (counts the queries sent), its profile and the driver."""

    reader: GraphReader
    profile: dict[str, Any]
    driver: Any

    def gate(self, *cands: Any, **settings: Any) -> list[dict[str, Any]]:
        """Gate ``cands`` (dicts, ``(question, cypher)`` pairs or bare Cypher strings)."""
        settings.setdefault("target", 100)
        return gate_candidates(
            [candidate(c) for c in cands],
            reader=self.reader,
            profile=self.profile,
            settings=GateSettings(**settings),
        )

    def one(self, cand: Any, **settings: Any) -> dict[str, Any]:
        return self.gate(cand, **settings)[0]


def candidate(c: Any) -> dict[str, Any]:
    if isinstance(c, dict):
        return {"graph_profile": "mini_company", **c}
    if isinstance(c, str):
        c = (f"question about {c}", c)
    question, cypher = c
    return {"question": question, "cypher": cypher, "graph_profile": "mini_company"}


def _load(driver: Any, load: Callable[[Any], Any], graph: dict[str, Any]) -> Env:
    load(graph)
    reader = GraphReader(driver, timeout_s=60)
    profile = profile_graph(reader, graph_name="mini_company")
    return Env(reader, profile, driver)


@pytest.fixture
def mini(neo4j_driver: Any, neo4j_load: Any, mini_company_graph: dict[str, Any]) -> Env:
    return _load(neo4j_driver, neo4j_load, mini_company_graph)


@pytest.fixture
def quoted(neo4j_driver: Any, neo4j_load: Any, mini_company_graph: dict[str, Any]) -> Env:
    """mini_company with ``Tiny Startup`` renamed ``A:B`` and ``Larry Page`` renamed
    ``Larry O'Hearn`` (the names that broke the original's regular expressions)."""
    g = copy.deepcopy(mini_company_graph)
    for e in g["entities"]:
        if e["name"] == "Tiny Startup":
            e["name"] = "A:B"
        if e["name"] == "Larry Page":
            e["name"] = "Larry O'Hearn"
    return _load(neo4j_driver, neo4j_load, g)


def graph_state(driver: Any) -> tuple[int, int, list[str], Any]:
    """Node count, relationship count, property keys and Google's properties."""
    with driver.session() as s:
        nodes = s.run("MATCH (n) RETURN count(n) AS n").single()["n"]
        rels = s.run("MATCH ()-[r]->() RETURN count(r) AS n").single()["n"]
        keys = sorted(r["k"] for r in s.run("CALL db.propertyKeys() YIELD propertyKey AS k"))
        google = s.run("MATCH (c:Company {name: 'Google'}) RETURN properties(c) AS p").single()
    return nodes, rels, keys, google["p"]


def codes(row: dict[str, Any], level: str | None = None) -> list[str]:
    return [i["code"] for i in row["validation"]["issues"] if level is None or i["level"] == level]


def rows_of(row: dict[str, Any]) -> list[list[Any]]:
    return row["execution"]["rows"]


# -- the original's false positives, end to end ------------------------------------------


def test_colon_inside_a_quoted_value_is_not_a_property(quoted: Env) -> None:
    cypher = "MATCH (c:Company {name: 'A:B'}) RETURN c.name AS name"
    row = quoted.one(("Which company is named 'A:B'?", cypher))
    assert row["accepted"], row["rejection_reason"]
    assert row["validation"]["issues"] == []
    assert row["validation"]["structural_features"]["properties"] == ["name"]
    assert row["string_literals"] == ["A:B"]
    assert rows_of(row) == [["A:B"]]
    # on the unchanged graph the only finding is the missing categorical value, never a
    # property `B` or a label read from the literal
    row = quoted.one(("Which company is named 'X:Y'?", cypher.replace("A:B", "X:Y")))
    assert row["rejected_at"] == "schema"
    assert codes(row) == ["unknown_categorical_value"]
    assert row["rejection_reason"] == '`Company.name` has no value "X:Y"'


@pytest.mark.parametrize(
    "literal",
    [r"'Larry O\'Hearn'", '"Larry O\'Hearn"'],
    ids=["single-quoted-escaped", "double-quoted"],
)
@pytest.mark.parametrize("with_entity_values", [True, False])
def test_apostrophe_in_a_name_is_one_literal_and_g5_matches_it(
    quoted: Env, literal: str, with_entity_values: bool
) -> None:
    question = "Which companies did 'Larry O'Hearn' found?"
    cypher = f"MATCH (c:Company)-[:foundedBy]->(p:Person {{name: {literal}}}) RETURN c.name AS name"
    cand: dict[str, Any] = {"question": question, "cypher": cypher}
    if with_entity_values:
        cand["entity_values"] = ["Larry O'Hearn"]
    row = quoted.one(cand)
    assert row["string_literals"] == ["Larry O'Hearn"]
    # G5 found the question's value as an exact literal: no value_not_literal warning
    assert row["validation"]["issues"] == []
    assert row["accepted"], row["rejection_reason"]
    assert rows_of(row) == [["Google"]]
    # the same value matched with CONTAINS is G5's error
    contains = cypher.replace(f"{{name: {literal}}}", "").replace(
        " RETURN", f" WHERE p.name CONTAINS {literal} RETURN"
    )
    row = quoted.one({**cand, "cypher": contains})
    assert row["rejected_at"] == "schema"
    assert codes(row) == ["contains_on_value"]
    assert "Larry O'Hearn" in row["rejection_reason"]


def test_write_keyword_inside_a_string_literal_is_read_only(mini: Env) -> None:
    before = graph_state(mini.driver)
    note = "CREATE (x) SET x.pwned = 1 DETACH DELETE x"
    queries = [
        f"MATCH (c:Company {{name: 'Google'}}) RETURN c.name AS name, '{note}' AS note",
        "MATCH (c:Company {name: 'Google'}) // MERGE (x) DELETE c\nRETURN c.name AS name",
        "MATCH (c:Company) WHERE c.name STARTS WITH 'SET ' RETURN c.name AS name",
    ]
    ledger = mini.gate(*[(f"q{i}", q) for i, q in enumerate(queries)])
    for row in ledger:
        assert row["validation"]["read_only"] and row["validation"]["write_clauses"] == []
        assert row["execution"] is not None and row["execution"]["success"]
    assert ledger[0]["accepted"] and rows_of(ledger[0]) == [["Google", note]]
    assert ledger[1]["accepted"] and rows_of(ledger[1]) == [["Google"]]
    assert ledger[2]["rejected_at"] == "empty"  # executed: no company name starts so
    assert graph_state(mini.driver) == before


def test_g9_rejects_uninformative_results(mini: Env) -> None:
    """Issue 31: G9 rejects every uninformative result (metrics.md §1), not only empty ones;
    ``allow_uninformative`` keeps them, and the ledger names the reason either way."""
    zero = (
        "MATCH (p:Person) WHERE p.date_of_death IS NULL AND p.gender <> 'male' RETURN count(p) AS n"
    )
    no = "MATCH (c:Company {name: 'Google'}) RETURN exists { (c)-[:subsidiaryOf]->(:Person) } AS b"
    some = "MATCH (p:Person) RETURN count(p) AS n"
    rejected = mini.gate(zero, no, some)
    assert [r["rejected_at"] for r in rejected] == ["uninformative", "uninformative", None]
    assert [r["rejection_reason"] for r in rejected[:2]] == ["single_zero", "single_false"]
    assert rejected[2]["accepted"] and rejected[2]["execution"]["uninformative"] is None
    kept = mini.gate(zero, no, allow_uninformative=True)
    assert all(r["accepted"] for r in kept)
    assert [r["execution"]["uninformative"] for r in kept] == ["single_zero", "single_false"]


def test_is_not_null_and_not_equal_are_not_negation(mini: Env) -> None:
    not_negation = [
        "MATCH (p:Person) WHERE p.date_of_death IS NOT NULL RETURN p.name AS name",
        "MATCH (c:Company) WHERE c.name <> 'Google' RETURN c.name AS name",
        "MATCH (p:Person) WHERE p.date_of_death IS NULL AND p.gender <> 'male' "
        "RETURN count(p) AS n",
    ]
    negation = "MATCH (c:Company) WHERE NOT (c)-[:subsidiaryOf]->() RETURN c.name AS name"
    # the count is 0 on this graph: uninformative, kept here (test_g9_rejects_uninformative_results)
    ledger = mini.gate(*not_negation, negation, allow_uninformative=True)
    for row in ledger[:3]:
        assert row["accepted"], (row["cypher"], row["rejection_reason"])
        assert row["category"] != "negation_difference"
        assert not row["validation"]["structural_features"]["negation"]
    assert rows_of(ledger[0]) == [["Werner von Siemens"]]
    row = ledger[3]
    assert row["accepted"] and row["category"] == "negation_difference"
    assert row["validation"]["structural_features"]["negation"]
    assert sorted(r[0] for r in rows_of(row)) == [
        "Alphabet Inc.",
        "Microsoft",
        "Siemens",
        "Tiny Startup",
    ]


# -- G1 / G2: bad input ------------------------------------------------------------------


def test_unparseable_cypher_is_a_syntax_row(mini: Env) -> None:
    bad = [
        "MATCH (c:Company RETURN c",
        "SELECT * FROM companies",
        "",
        "MATCH (c:Company) RETURN c.name AS name; MATCH (p:Person) RETURN p",
    ]
    before = mini.reader.queries
    ledger = mini.gate(*[(f"bad {i}", q) for i, q in enumerate(bad)])
    assert mini.reader.queries == before
    assert len(ledger) == len(bad)
    for row, q in zip(ledger, bad, strict=True):
        assert row["cypher"] == q
        assert not row["accepted"] and row["rejected_at"] == "syntax", q
        assert not row["validation"]["syntax_valid"]
        assert row["execution"] is None and row["judge"] is None
        assert codes(row) == ["syntax"]
        assert row["rejection_reason"] == row["validation"]["syntax_error"]
    assert "unclosed delimiter" in ledger[0]["rejection_reason"]


def test_reserved_variable_name_fails_g2_policy_not_syntax(mini: Env) -> None:
    """Neo4j parses ``MATCH (index:Company) ...`` (issue 29: the front end follows the server,
    ``syntax_valid`` true, read-only), but PIPE-Cypher's G2 rejects reserved words as variable
    names: the row is rejected at ``syntax`` with the named policy reason, never executed."""
    before = mini.reader.queries
    (row,) = mini.gate(("reserved", "MATCH (index:Company) RETURN index.name AS name"))
    assert mini.reader.queries == before
    v = row["validation"]
    assert v["syntax_valid"] and v["syntax_error"] is None and v["read_only"]
    assert not v["g2_valid"]
    assert not row["accepted"] and row["rejected_at"] == "syntax"
    assert row["rejection_reason"] == (
        "reserved word `index` as a variable name (PIPE-Cypher G2 policy)"
    )
    assert codes(row) == ["syntax"]


WRITES = [
    "CREATE (c:Company {name: 'Evil Corp'}) RETURN c.name AS name",
    "MERGE (c:Company {name: 'Evil Corp'}) RETURN c.name AS name",
    "MATCH (c:Company {name: 'Google'}) SET c.pwned = 1 RETURN c.name AS name",
    "MATCH (c:Company {name: 'Google'}) SET c.launch_year = 1 RETURN c.name AS name",
    "MATCH (p:Person {name: 'Larry Page'}) DETACH DELETE p",
    "MATCH ()-[r:hasCEO]->() DELETE r",
    "MATCH (c:Company) REMOVE c.launch_year RETURN c.name AS name",
    "UNWIND [1, 2] AS i CREATE (:Company {name: toString(i)})",
    "FOREACH (i IN [1, 2] | CREATE (:Company {name: toString(i)}))",
    "MATCH (c:Company) CALL (c) { CREATE (:Company {name: c.name + ' copy'}) } RETURN c.name AS n",
    "CALL db.createProperty('pwned')",
    "CALL db.labels() YIELD label RETURN label",  # read-only, but not on the allow-list
    "LOAD CSV FROM 'file:///companies.csv' AS line CREATE (:Company {name: line[0]})",
]


def test_write_queries_are_rejected_and_never_sent(mini: Env) -> None:
    before = graph_state(mini.driver)
    sent = mini.reader.queries
    ledger = mini.gate(*[(f"write {i}", q) for i, q in enumerate(WRITES)])
    assert mini.reader.queries == sent  # not one query reached the server
    assert graph_state(mini.driver) == before
    for row, q in zip(ledger, WRITES, strict=True):
        assert not row["accepted"] and row["rejected_at"] == "read_only", q
        assert row["validation"]["read_only"] is False
        assert row["execution"] is None and row["judge"] is None
        assert "not_read_only" in codes(row, "error")
        assert row["rejection_reason"].startswith("write clause(s) or procedure call(s): ")
    reasons = [r["rejection_reason"].split(": ", 1)[1] for r in ledger]
    assert reasons[:3] == ["CREATE", "MERGE", "SET"]
    assert "DETACH DELETE" in reasons[4] and "REMOVE" in reasons[6]
    assert reasons[10] == "CALL db.createProperty" and reasons[11] == "CALL db.labels"
    # the counter does count what is sent: one valid query after the writes
    row = mini.one("MATCH (c:Company) RETURN count(c) AS n")
    assert row["accepted"] and mini.reader.queries > sent


def test_allow_listed_procedure_passes_g1(mini: Env) -> None:
    cypher = "CALL db.labels() YIELD label RETURN label"
    row = mini.one(cypher, allowed_procedures=("db.labels",))
    assert row["validation"]["read_only"] and row["accepted"], row["rejection_reason"]
    assert sorted(r[0] for r in rows_of(row)) == ["Company", "Country", "Person"]
    assert row["validation"]["rewrite"]["skip_reason"] == "call"
    # another procedure is still refused
    row = mini.one("CALL db.createProperty('pwned')", allowed_procedures=("db.labels",))
    assert row["rejected_at"] == "read_only" and row["execution"] is None


# -- G3-G6 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cypher", "code", "message"),
    [
        ("MATCH (s:Startup) RETURN s.name AS name", "unknown_label", "label `Startup`"),
        (
            "MATCH (c:Company)-[:acquired]->(d:Company) RETURN d.name AS name",
            "unknown_relationship_type",
            "relationship type `acquired`",
        ),
        (
            "MATCH (c:Company) RETURN c.ceo AS ceo",
            "unknown_property",
            "property `ceo` of `c` does not belong to `Company`",
        ),
        (
            "MATCH (p:Person) RETURN p.launch_year AS year",
            "unknown_property",
            "property `launch_year` of `p` does not belong to `Person`",
        ),
        (
            "MATCH (p:Person {gender: 'female'}) RETURN p.name AS name",
            "unknown_categorical_value",
            '`Person.gender` has no value "female"',
        ),
        (
            "MATCH (p:Person) WHERE p.gender IN ['male', 'other'] RETURN p.name AS name",
            "unknown_categorical_value",
            '`Person.gender` has no value "other"',
        ),
        (
            "MATCH (p:Person) WHERE p.gender <> 'unknown' RETURN p.name AS name",
            "unknown_categorical_value",
            '`Person.gender` has no value "unknown"',
        ),
        (
            "MATCH (p:Person)-[:foundedBy]->(c:Company) RETURN c.name AS name",
            "wrong_direction",
            "(Person)-[:foundedBy]->(Company) exists only the other way",
        ),
        (
            "MATCH (c:Company)-[:foundedBy]-(p:Person) RETURN p.name AS name",
            "undirected_relationship",
            "undirected relationship pattern",
        ),
        (
            "MATCH (c:Company)<-[:foundedBy]->(p:Person) RETURN p.name AS name",
            "undirected_relationship",
            "undirected relationship pattern",
        ),
    ],
)
def test_schema_errors_reject_before_execution(
    mini: Env, cypher: str, code: str, message: str
) -> None:
    sent = mini.reader.queries
    row = mini.one(cypher)
    assert mini.reader.queries == sent
    assert row["rejected_at"] == "schema" and not row["validation"]["schema_valid"]
    assert row["validation"]["read_only"] and row["validation"]["syntax_valid"]
    assert code in codes(row, "error")
    assert message in row["rejection_reason"]
    assert row["execution"] is None


def test_schema_checks_that_pass(mini: Env) -> None:
    ledger = mini.gate(
        # a categorical value of the schema; results are not checked against it
        "MATCH (p:Person {gender: 'male'}) RETURN p.name AS name, p.gender AS gender",
        # an incoming arrow is flipped before the direction check
        "MATCH (p:Person)<-[:foundedBy]-(c:Company) RETURN c.name AS name",
        # a triple missing both ways only warns (and the OPTIONAL MATCH still returns a row)
        "MATCH (c:Company {name: 'Google'}) OPTIONAL MATCH (c)-[:citizenOf]->(k:Country) "
        "RETURN c.name AS name, k.name AS country",
    )
    for row in ledger:
        assert row["accepted"], (row["cypher"], row["rejection_reason"])
        assert row["validation"]["schema_valid"]
    assert ledger[0]["validation"]["issues"] == []
    assert ledger[1]["validation"]["issues"] == []
    assert [(i["level"], i["code"]) for i in ledger[2]["validation"]["issues"]] == [
        ("warning", "unknown_triple")
    ]
    assert ledger[2]["validation"]["issues"][0]["message"] == (
        "(Company)-[:citizenOf]->(Country) is not in the schema either way"
    )
    assert rows_of(ledger[2]) == [["Google", None]]


def test_g5_contains_on_a_question_value(mini: Env) -> None:
    q = "Which companies are called 'Google'?"
    for op in ("CONTAINS", "STARTS WITH", "ENDS WITH"):
        cypher = f"MATCH (c:Company) WHERE c.name {op} 'Google' RETURN c.name AS name"
        row = mini.one({"question": q, "cypher": cypher, "entity_values": ["Google"]})
        assert row["rejected_at"] == "schema", op
        assert codes(row) == ["contains_on_value"]
        assert row["rejection_reason"] == (
            'question value "Google" is matched with CONTAINS/STARTS WITH/ENDS WITH instead '
            "of equality"
        )
    # a question value that is no exact literal only warns
    cypher = "MATCH (c:Company) WHERE toLower(c.name) = 'google' RETURN c.name AS name"
    row = mini.one({"question": q, "cypher": cypher, "entity_values": ["Google"]})
    assert row["accepted"] and rows_of(row) == [["Google"]]
    assert [(i["level"], i["code"]) for i in row["validation"]["issues"]] == [
        ("warning", "value_not_literal")
    ]


def test_g6_context_columns_warn(mini: Env) -> None:
    profile = dict(mini.profile, context_columns={"launch_year": ["revenue_usd", "is_public"]})
    cands = [
        candidate("MATCH (c:Company {name: 'Google'}) RETURN c.launch_year AS year"),
        candidate(
            "MATCH (c:Company {name: 'Google'}) RETURN c.launch_year AS year, "
            "c.revenue_usd AS revenue, c.is_public AS public"
        ),
    ]
    ledger = gate_candidates(
        cands, reader=mini.reader, profile=profile, settings=GateSettings(target=100)
    )
    assert [r["accepted"] for r in ledger] == [True, True]
    assert ledger[0]["validation"]["issues"] == [
        {
            "level": "warning",
            "code": "missing_context_columns",
            "message": "returns `launch_year` without revenue_usd, is_public",
        }
    ]
    assert ledger[1]["validation"]["issues"] == []
    # the profile from the graph has only the default FinBench rule (accountId): no warning
    assert mini.one(cands[0])["validation"]["issues"] == []


# -- G7 ----------------------------------------------------------------------------------


def test_g7_inserts_distinct_when_answers_are_equal(mini: Env) -> None:
    cypher = "MATCH (c:Company)-[:foundedBy]->(p:Person) RETURN c.name AS name"
    distinct = "MATCH (c:Company)-[:foundedBy]->(p:Person) RETURN DISTINCT c.name AS name"
    row = mini.one(("Which companies have a founder?", cypher))
    assert row["accepted"]
    assert row["cypher"] == distinct
    v = row["validation"]
    assert v["rewrite"] == {"applied": True, "skip_reason": None, "cypher": distinct}
    assert v["normalized_cypher"] == distinct
    assert v["structural_features"]["distinct"]
    assert "return distinct" in row["signature"]
    assert sorted(r[0] for r in rows_of(row)) == ["Google", "Microsoft", "Siemens"]
    assert row["execution"]["row_count"] == 3  # the rewrite's rows (4 without DISTINCT)
    # the same query with a LIMIT: DISTINCT changes the answer set, the rewrite is dropped
    limited = cypher + " ORDER BY name LIMIT 2"
    row = mini.one(("Which two companies have a founder?", limited))
    assert row["accepted"] and row["cypher"] == limited
    assert row["validation"]["rewrite"] == {
        "applied": False,
        "skip_reason": "answers_differ",
        "cypher": limited.replace("RETURN", "RETURN DISTINCT"),
    }
    assert rows_of(row) == [["Google"], ["Google"]]
    # a rewrite the server refuses (ORDER BY a variable RETURN DISTINCT no longer projects)
    ordered = "MATCH (c:Company) RETURN c.name AS name ORDER BY c.launch_year DESC LIMIT 3"
    row = mini.one(("Which are the three newest companies?", ordered))
    assert row["accepted"] and row["cypher"] == ordered
    rewrite = row["validation"]["rewrite"]
    assert rewrite["applied"] is False and rewrite["skip_reason"] == "rewrite_failed"
    assert "DISTINCT" in rewrite["error"]
    assert rows_of(row) == [["Tiny Startup"], ["Alphabet Inc."], ["Google"]]
    # disabled by the settings
    row = mini.one(("Which companies have a founder?", cypher), rewrite=False)
    assert row["cypher"] == cypher
    assert row["validation"]["rewrite"]["applied"] is False
    assert row["validation"]["rewrite"]["skip_reason"] == "disabled"


@pytest.mark.parametrize(
    ("cypher", "reason"),
    [
        (
            "MATCH (c:Company) WHERE NOT (c)-[:subsidiaryOf]->() RETURN c.name AS name",
            "where_exists",
        ),
        (
            "MATCH (c:Company) WHERE EXISTS { (c)-[:basedIn]->() } RETURN c.name AS name",
            "where_exists",
        ),
        (
            "MATCH (c:Company) RETURN CASE WHEN c.is_public THEN 'public' ELSE 'private' END "
            "AS kind",
            "case",
        ),
        (
            "MATCH (c:Company) RETURN c.name AS name UNION MATCH (p:Person) RETURN p.name AS name",
            "union",
        ),
        ("UNWIND ['Google', 'Siemens'] AS n MATCH (c:Company {name: n}) RETURN c.name", "unwind"),
        (
            "MATCH (c:Company) WHERE c.launch_year > 1900 WITH c "
            "MATCH (c)-[:basedIn]->(k:Country) WHERE k.population > 1000 RETURN c.name AS name",
            "second_where",
        ),
        ("MATCH (c:Company) RETURN DISTINCT c.name AS name", "already_distinct"),
    ],
)
def test_g7_ineligible_queries_log_the_skip(mini: Env, cypher: str, reason: str) -> None:
    row = mini.one(cypher)
    assert row["accepted"], row["rejection_reason"]
    assert row["cypher"] == cypher
    rewrite = row["validation"]["rewrite"]
    assert rewrite["applied"] is False
    assert rewrite["skip_reason"] == reason


# -- G8 / G9 -----------------------------------------------------------------------------


def test_g8_runtime_errors_and_timeouts(mini: Env) -> None:
    row = mini.one("MATCH (c:Company) RETURN c.launch_year / 0 AS x")
    assert not row["accepted"] and row["rejected_at"] == "execution"
    ex = row["execution"]
    assert ex["success"] is False and ex["rows"] == [] and ex["row_count"] == 0
    assert ex["error"] == row["rejection_reason"] == "/ by zero"
    assert ex["error_class"]
    assert row["judge"] is None
    row = mini.one("UNWIND range(1, 1000000000) AS i RETURN count(i) AS n", timeout_s=0.5)
    assert row["rejected_at"] == "execution"
    assert row["execution"]["error_class"] == "timeout"


def test_ledger_row_fields_and_row_limit(mini: Env) -> None:
    row = mini.one(
        {
            "question": "Which numbers?",
            "cypher": "UNWIND range(1, 40) AS i RETURN i",
            "category": "simple_retrieval",
            "entity_values": [],
            "template": "Which numbers?",
            "template_metadata": {"source": "test"},
            "reverse_cypher": "",
            "model": None,
            "qid": "q-1",
        }
    )
    assert row["accepted"]
    for key in (
        "question",
        "cypher",
        "category",
        "graph_profile",
        "accepted",
        "validation",
        "execution",
        "judge",
        "entity_values",
        "reverse_cypher",
        "model",
    ):
        assert key in row, key
    for key in (
        "read_only",
        "syntax_valid",
        "schema_valid",
        "normalized_cypher",
        "issues",
        "structural_features",
    ):
        assert key in row["validation"], key
    ex = row["execution"]
    assert ex["success"] and ex["error"] is None and ex["columns"] == ["i"]
    assert len(ex["rows"]) == LEDGER_ROWS == 25 and ex["row_count"] == 40
    assert ex["rows"][0] == [1]
    assert set(row["judge"]) == {
        "passed",
        "ambiguity_score",
        "semantic_alignment_score",
        "schema_use_score",
        "difficulty",
        "failure_reason",
    }
    assert row["qid"] == "q-1" and row["template_metadata"] == {"source": "test"}
    json.dumps(row)  # plain JSON values only


def test_g9_empty_results_are_diagnosed(mini: Env) -> None:
    ledger = mini.gate(
        # a name that does not exist anywhere in the graph (no label: no categorical check)
        (
            "Where is 'Nokia' based?",
            "MATCH (c)-[:basedIn]->(k:Country) WHERE c.name = 'Nokia' RETURN k.name AS country",
        ),
        # existing names, no such path
        (
            "Which company named 'Siemens' is based in 'United States'?",
            "MATCH (c:Company {name: 'Siemens'})-[:basedIn]->(k:Country {name: 'United States'}) "
            "RETURN c.name AS name",
        ),
        # the MATCH part matches; a later WHERE removes every row
        (
            "Which companies are based in a country of more than ten billion people?",
            "MATCH (c:Company)-[:basedIn]->(k:Country) WITH c, k.population AS pop "
            "WHERE pop > 10000000000 RETURN c.name AS name",
        ),
        # ... after an aggregation
        (
            "Which companies are based in more than five countries?",
            "MATCH (c:Company)-[:basedIn]->(k:Country) WITH c, count(k) AS n WHERE n > 5 "
            "RETURN c.name AS name",
        ),
    )
    diagnoses = [r["execution"]["diagnosis"] for r in ledger]
    assert diagnoses == [
        "literal_miss",
        "impossible_path",
        "over_restrictive",
        "aggregation_collapse",
    ]
    for row in ledger:
        assert not row["accepted"] and row["rejected_at"] == "empty"
        assert row["execution"]["success"] and row["execution"]["rows"] == []
        assert row["rejection_reason"] == row["execution"]["diagnosis"]
        # the deterministic judge ran too: semantic 0.65 for an empty result
        assert row["judge"]["passed"] is False
        assert row["judge"]["semantic_alignment_score"] == 0.65
        assert row["judge"]["failure_reason"] == "execution returned no rows"
    # the kgbench gate mode (no judge): the same buckets and diagnoses, no verdicts
    again = mini.gate(*[(r["question"], r["cypher"]) for r in ledger], judge_gate=False)
    assert [r["execution"]["diagnosis"] for r in again] == diagnoses
    assert all(r["rejected_at"] == "empty" and r["judge"] is None for r in again)


# -- G10 ---------------------------------------------------------------------------------


def test_g10_deterministic_judge_verdicts(mini: Env) -> None:
    ledger = mini.gate(
        "MATCH (c:Company {name: 'Google'})-[:foundedBy]->(p:Person) RETURN p.name AS name",
        "MATCH (c:Company)-[:foundedBy]->(p:Person)-[:citizenOf]->(k:Country) "
        "RETURN k.name AS country, count(DISTINCT c) AS n ORDER BY n DESC LIMIT 1",
    )
    for row in ledger:
        assert row["accepted"], row["rejection_reason"]
        assert row["judge"] == {
            "passed": True,
            "ambiguity_score": 0.2,
            "semantic_alignment_score": 0.85,
            "schema_use_score": 1.0,
            "difficulty": row["difficulty"],
            "failure_reason": "",
        }
        assert "judge_override" not in row
    assert [r["difficulty"] for r in ledger] == ["easy", "medium"]


def _verdict(passed: bool, reason: str = "") -> str:
    return json.dumps(
        {
            "pass": passed,
            "ambiguity_score": 0.1,
            "semantic_alignment_score": 0.9 if passed else 0.3,
            "schema_use_score": 0.95,
            "difficulty": "medium",
            "failure_reason": reason,
        }
    )


def _judged_cypher(messages: list[dict[str, str]]) -> str:
    match = re.search(r"\nCypher:\n(.*?)\n\nResult sample", last_user_content(messages), re.S)
    assert match is not None
    return match.group(1)


@pytest.fixture
def judge_endpoint() -> Iterator[ChatCompletionsTestDouble]:
    """A judge that rejects Siemens' country citing the result value 'Germany' as a bad
    categorical value (a false rejection), rejects Microsoft's founders citing a value the
    rows do not have, answers prose for Alphabet and passes everything else."""

    def reply(messages: list[dict[str, str]]) -> str:
        assert "JSON" in messages[0]["content"]
        cypher = _judged_cypher(messages)
        if "'Siemens'" in cypher:
            return _verdict(
                False, "The result rows return 'Germany', which is not a valid categorical value."
            )
        if "'Microsoft'" in cypher:
            return _verdict(False, "'Atlantis' is not a valid value of the categorical property.")
        if "'Alphabet Inc.'" in cypher:
            return "I think this example is fine."
        return "```json\n" + _verdict(True) + "\n```"

    with ChatCompletionsTestDouble(reply=reply) as server:
        yield server


def test_g10_llm_judge_and_the_categorical_override(
    mini: Env, judge_endpoint: ChatCompletionsTestDouble
) -> None:
    llm = LLMClient(judge_endpoint.url, "judge-model", backoff_s=0.01)
    judge = _llm_judge(llm, mini.profile, strict=False)
    base = "MATCH (c:Company {name: '%s'})-[:basedIn]->(k:Country) RETURN k.name AS country"
    with llm:
        ledger = mini.gate(
            ("Where is 'Siemens' based?", base % "Siemens"),
            ("Where is 'Microsoft' based?", base % "Microsoft"),
            ("Where is 'Alphabet Inc.' based?", base % "Alphabet Inc."),
            ("Where is 'Google' based?", base % "Google"),
            # empty: judged, but bucketed at empty
            ("Where is 'Tiny Startup' based?", base % "Tiny Startup"),
            judge=judge,
        )
    siemens, microsoft, alphabet, google, tiny = ledger
    assert len(judge_endpoint.requests) == 5
    # overridden: the rejection cites only a categorical value seen in the rows
    assert siemens["accepted"] and rows_of(siemens) == [["Germany"]]
    assert siemens["judge"] == {
        "passed": True,
        "ambiguity_score": 0.1,
        "semantic_alignment_score": 0.85,
        "schema_use_score": 1.0,
        "difficulty": "medium",
        "failure_reason": "",
    }
    override = siemens["judge_override"]
    assert override["rule"] == "categorical_result_value_guard"
    assert override["cited_values"] == ["Germany"]
    assert override["original"]["passed"] is False
    assert override["original"]["semantic_alignment_score"] == 0.3
    assert "'Germany'" in override["original"]["failure_reason"]
    # not overridden: the reason cites a value that is not in the rows
    assert microsoft["rejected_at"] == "judge" and "judge_override" not in microsoft
    assert microsoft["rejection_reason"].startswith("'Atlantis' is not a valid value")
    assert microsoft["judge"]["passed"] is False
    # an unparseable reply is a rejection, never an exception
    assert alphabet["rejected_at"] == "judge"
    assert alphabet["judge"]["failure_reason"] == "judge_parse_error"
    # a fenced JSON pass: the model's scores are kept (compat mode: the pass flag decides)
    assert google["accepted"] and google["judge"]["semantic_alignment_score"] == 0.9
    assert google["judge"]["difficulty"] == "medium"
    assert tiny["rejected_at"] == "empty" and tiny["judge"]["passed"] is True
    # the judge saw the schema slice of the query and its rows
    prompt = last_user_content(judge_endpoint.requests[0]["messages"])
    assert '"basedIn"' in prompt and '[["Germany"]]' in prompt


# -- G11 ---------------------------------------------------------------------------------


def test_g11_duplicate_questions(mini: Env) -> None:
    cypher = "MATCH (c:Company)-[:basedIn]->(k:Country {name: 'Germany'}) RETURN c.name AS name"
    ledger = mini.gate(
        {"question": "Which companies are based in 'Germany'?", "cypher": cypher},
        {"question": "  which COMPANIES are based in\t'germany'? ", "cypher": cypher},
        # the same question in another category is no duplicate
        {
            "question": "Which companies are based in 'Germany'?",
            "cypher": cypher,
            "category": "complex_retrieval",
        },
    )
    assert [r["accepted"] for r in ledger] == [True, False, True]
    assert ledger[1]["rejected_at"] == "diversity"
    assert ledger[1]["rejection_reason"] == "duplicate question in category"
    assert ledger[1]["execution"] is None
    # a rejected question does not block a later one; a shared G11 state spans batches
    wrong = "MATCH (k:Country {name: 'Germany'})-[:basedIn]->(c:Company) RETURN c.name AS name"
    div = DiversityGate(100)
    first = gate_candidates(
        [candidate(("Which companies are based in 'Germany'?", wrong))],
        reader=mini.reader,
        profile=mini.profile,
        diversity=div,
    )
    assert first[0]["rejected_at"] == "schema"
    batches = [
        gate_candidates(
            [candidate(("Which companies are based in 'Germany'?", cypher))],
            reader=mini.reader,
            profile=mini.profile,
            diversity=div,
        )[0]
        for _ in range(2)
    ]
    assert batches[0]["accepted"]
    assert batches[1]["rejected_at"] == "diversity"


def test_g11_entity_value_cap(mini: Env) -> None:
    assert DiversityGate(10).value_cap == 2  # max(2, floor(1.5))
    assert DiversityGate(20).value_cap == 3
    assert DiversityGate(100).value_cap == 15
    assert DiversityGate(100, value_cap_share=0.08).value_cap == 8
    rels = ["foundedBy", "hasCEO", "basedIn", "subsidiaryOf"]
    cands = [
        {
            "question": f"Which records are linked from 'Google' through :{rel}?",
            "cypher": f"MATCH (c:Company {{name: 'Google'}})-[:{rel}]->(x) RETURN x.name AS name",
            "category": "simple_retrieval",
            "entity_values": ["Google" if i % 2 else " google "],  # normalised alike
        }
        for i, rel in enumerate(rels)
    ]
    cands.append(
        {
            "question": "How many founders does 'Google' have?",
            "cypher": "MATCH (c:Company {name: 'Google'})-[:foundedBy]->(p:Person) "
            "RETURN count(DISTINCT p) AS n",
            "category": "simple_aggregation",
            "entity_values": ["Google"],
        }
    )
    ledger = mini.gate(*cands, target=20)
    assert [r["accepted"] for r in ledger] == [True, True, True, False, True]
    assert ledger[3]["rejected_at"] == "diversity"
    assert ledger[3]["rejection_reason"] == (
        "entity value 'Google' already used 3 times in simple_retrieval"
    )
    # target 10: the cap is 2
    ledger = mini.gate(*cands, target=10)
    assert [r["accepted"] for r in ledger] == [True, True, False, False, True]


# -- rejection order and counts ----------------------------------------------------------


def test_first_failing_bucket_wins(mini: Env, judge_endpoint: ChatCompletionsTestDouble) -> None:
    q = "Which companies are based in 'Germany'?"
    good = "MATCH (c:Company)-[:basedIn]->(k:Country {name: 'Germany'}) RETURN c.name AS name"
    cands = [
        (q, good),
        # duplicate question + write + unknown label
        (q.upper(), "CREATE (s:Startup {name: 'x'}) RETURN s.name"),
        # write + syntax error
        ("write", "CREATE (s:Startup {name: 'x'}"),
        # syntax error with an unknown label
        ("syntax", "MATCH (s:Startup RETURN s"),
        # unknown label + a runtime error: never executed
        ("schema", "MATCH (s:Startup) RETURN 1 / 0 AS x"),
        # a runtime error
        ("execution", "MATCH (c:Company {name: 'Siemens'}) RETURN c.launch_year / 0 AS x"),
        # empty, and the judge rejects it too
        (
            "empty",
            "MATCH (c:Company {name: 'Microsoft'})-[:subsidiaryOf]->(d:Company) "
            "RETURN d.name AS name",
        ),
        # a single 0: uninformative, and the judge rejects it too
        (
            "uninformative",
            "MATCH (c:Company {name: 'Microsoft'}) OPTIONAL MATCH (c)-[:subsidiaryOf]->(d:Company) "
            "RETURN count(d) AS n",
        ),
        # the judge rejects it
        (
            "judge",
            "MATCH (c:Company {name: 'Microsoft'})-[:basedIn]->(k:Country) RETURN k.name AS name",
        ),
    ]
    llm = LLMClient(judge_endpoint.url, "judge-model", backoff_s=0.01)
    with llm:
        ledger = mini.gate(*cands, judge=_llm_judge(llm, mini.profile, strict=False))
    assert [r["rejected_at"] for r in ledger] == [None, *REJECTION_BUCKETS]
    assert not ledger[2]["validation"]["read_only"] and not ledger[2]["validation"]["syntax_valid"]
    assert "unknown_label" in codes(ledger[4])
    assert ledger[4]["execution"] is None
    assert ledger[6]["judge"]["passed"] is False  # judged, but empty comes first
    counts = rejection_counts(ledger)
    assert list(counts) == ["candidates", "accepted", *REJECTION_BUCKETS]
    assert counts == {"candidates": 9, "accepted": 1, **dict.fromkeys(REJECTION_BUCKETS, 1)}
    assert ledger[7]["judge"]["passed"] is False  # judged, but uninformative comes first
    assert rejection_counts([]) == {
        "candidates": 0,
        "accepted": 0,
        **dict.fromkeys(REJECTION_BUCKETS, 0),
    }


# -- static gating -----------------------------------------------------------------------


def test_gate_static_file_matches_static_gate_candidates(mini: Env, tmp_path: Path) -> None:
    cands = [
        candidate(c)
        for c in [
            (
                "Which companies did 'Larry Page' found?",
                "MATCH (c:Company)-[:foundedBy]->(p:Person {name: 'Larry Page'}) "
                "RETURN c.name AS name",
            ),
            (
                "which companies did 'larry page' found?",
                "MATCH (c:Company)-[:foundedBy]->(p:Person {name: 'Larry Page'}) "
                "RETURN c.name AS name",
            ),
            ("syntax", "MATCH (c:Company RETURN c"),
            ("write", "CREATE (c:Company {name: 'x'})"),
            ("label", "MATCH (s:Startup) RETURN s"),
            ("Über 'Siemens'", "MATCH (c:Company) WHERE c.name CONTAINS 'Siemens' RETURN c.name"),
            (
                "warning",
                "MATCH (c:Company {name: 'Google'}) OPTIONAL MATCH (c)-[:citizenOf]->(k) RETURN k",
            ),
            # runs fine statically, would be empty on the server
            ("empty", "MATCH (c:Company {name: 'Siemens'})-[:subsidiaryOf]->(d) RETURN d"),
        ]
    ]
    cands[0].update(qid="q0", entity_values=["Larry Page"], template="T {x}")
    settings = GateSettings(execute=False, target=4)
    sent = mini.reader.queries
    expected = gate_candidates(cands, reader=None, profile=mini.profile, settings=settings)
    path = tmp_path / "static.jsonl"
    funnel = gate_static_file(cands, profile=mini.profile, path=path, settings=settings)
    assert mini.reader.queries == sent
    written = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert written == expected
    assert funnel == rejection_counts(expected)
    assert [r["rejected_at"] for r in expected] == [
        None,
        "diversity",
        "syntax",
        "read_only",
        "schema",
        "schema",
        None,
        None,
    ]
    assert all(r["execution"] is None and r["judge"] is None for r in expected)
    assert [p.name for p in tmp_path.iterdir()] == ["static.jsonl"]  # no temporary left
    # executing needs a reader
    with pytest.raises(ValueError, match="needs a reader"):
        gate_candidates(cands, reader=None, profile=mini.profile)


def test_query_features_on_the_profile(mini: Env) -> None:
    """The Rust analysis the gates read, on the graph's own profile (spot checks)."""
    a, b = query_features(
        [
            "MATCH (c:Company {name: 'A:B'})-[:basedIn]->(k:Country) RETURN k.name AS n",
            "MATCH (c:Company) WHERE NOT (c)-[:basedIn]->() RETURN count(c) AS n",
        ],
        schema=mini.profile,
    )
    assert a["structural_features"]["properties"] == ["name"]
    assert a["string_literals"] == [{"value": "A:B", "start": 24, "end": 29}]
    assert a["issues"][0]["code"] == "unknown_categorical_value"
    assert b["category"] == "negation_difference" and b["schema_valid"]
