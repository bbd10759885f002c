"""PIPE-Cypher profile, templates and reverse grounding (kgbench.generate.pipe.profile,
.templates, .grounding; spec ``pipe-cypher.md`` §2 stages 1-5, §4 quotas).

The Neo4j tests use the local server: the hand-written ``mini_company`` graph (also with an
``O'Hearn`` and a backslash in names), a small made-up ``items`` graph for the categorical
rules, and the real WD50K graph (``tests/data/wd50k/``, converted from the shared dump; skipped
when it is absent), on which every schema-derived template's reverse query and filled Cypher
must run.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgbench.errors import InputError
from kgbench.generate.patterns import TemplateError
from kgbench.generate.pipe.grounding import (
    Candidate,
    Planner,
    capacity_warnings,
    ground,
    is_answerable,
)
from kgbench.generate.pipe.profile import load_profile, profile_graph, write_profile
from kgbench.generate.pipe.templates import (
    CATEGORIES,
    Template,
    cypher_string,
    fill,
    load_seed_templates,
    mask_question,
    schema_templates,
)
from kgbench.neo4j.executor import GraphReader, write_clauses_of

DATA = Path(__file__).parent / "data"
WD50K_DUMP = DATA.parent.parent.parent / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"

#: A profile by hand: two labels, one categorical property, a self-loop, a date.
PROFILE: dict[str, Any] = {
    "graph_name": "toy",
    "node_properties": [
        {"label": "Account", "property": "accountId", "type": "STRING"},
        {"label": "Account", "property": "accountType", "type": "STRING"},
        {"label": "Account", "property": "opened", "type": "DATE"},
        {"label": "Person", "property": "name", "type": "STRING"},
    ],
    "relationship_properties": [{"type": "TRANSFER", "property": "amount", "value_type": "FLOAT"}],
    "relationships": [
        {"start_label": "Person", "type": "OWNS", "end_label": "Account", "count": 10},
        {"start_label": "Account", "type": "TRANSFER", "end_label": "Account", "count": 30},
    ],
    "categorical_properties": {"Account.accountType": ["credit", "debit"]},
}


def _reader(driver: Any) -> GraphReader:
    return GraphReader(driver, timeout_s=60)


# -- templates without Neo4j -------------------------------------------------------------


def test_categories_are_the_spec_eight_in_order() -> None:
    assert CATEGORIES == (
        "simple_retrieval",
        "complex_retrieval",
        "simple_aggregation",
        "complex_aggregation",
        "boolean_existence",
        "negation_difference",
        "path_temporal",
        "ranking_topk",
    )


def test_fill_quotes_the_question_and_escapes_the_cypher() -> None:
    t = Template(
        template="Which accounts are owned by person '{personName}' or {other}?",
        category="simple_retrieval",
        slots={"personName": "Person.name", "other": "Person.name"},
        cypher="MATCH (p:Person)-[:OWNS]->(a) WHERE p.name IN [{personName}, {other}] RETURN a",
    )
    question, cypher, values = fill(t, {"personName": "O'Hearn", "other": "a\\b {personName}"})
    # quoted once whether or not the template quotes the placeholder; one substitution pass
    assert question == "Which accounts are owned by person 'O'Hearn' or 'a\\b {personName}'?"
    assert cypher == (
        "MATCH (p:Person)-[:OWNS]->(a) WHERE p.name IN ['O\\'Hearn', 'a\\\\b {personName}'] "
        "RETURN a"
    )
    assert values == ["O'Hearn", "a\\b {personName}"]
    assert cypher_string("it's") == "'it\\'s'"
    with pytest.raises(TemplateError, match="no value for slot"):
        fill(t, {"personName": "x"})
    # no Cypher: stays empty (an LLM writes it)
    assert (
        fill(Template("How many '{x}'?", "simple_aggregation", {"x": "A.b"}), {"x": "1"})[1] == ""
    )


def test_masked_questions_of_one_template_are_equal() -> None:
    text = "How many posts are tagged '{tagName}' in 2020?"
    t = Template(text, "simple_aggregation", {"tagName": "Tag.name"})
    a = fill(t, {"tagName": "Vietnam"})[0]
    b = fill(t, {"tagName": "O'Hearn's 'x'"})[0]
    assert mask_question(a, {"tagName": "Vietnam"}) == mask_question(
        b, {"tagName": "O'Hearn's 'x'"}
    )
    assert mask_question(text) == mask_question(a, {"tagName": "Vietnam"})
    assert mask_question(text) == "how many posts are tagged '<value>' in <number>?"


def _only_reverse_clauses(query: str) -> bool:
    # MATCH ... [WHERE ...] RETURN DISTINCT ... LIMIT {limit}; nothing else
    if not (query.startswith("MATCH ") and query.endswith(" LIMIT {limit}")):
        return False
    bare = re.sub(r":(`[^`]*`|\w+)", "", re.sub(r"'[^']*'", "", query))  # no labels, types
    words = set(re.findall(r"\b[A-Z]+\b", bare))
    allowed = {"MATCH", "WHERE", "RETURN", "DISTINCT", "AS", "LIMIT", "AND", "NOT", "IS", "NULL"}
    return words <= allowed and query.count(" RETURN DISTINCT ") == 1


def _check_template_shapes(templates: list[Template]) -> None:
    for t in templates:
        assert t.category in CATEGORIES
        assert t.metadata["source"] == "schema" and t.kind
        assert write_clauses_of(t.cypher) == []
        used = set(re.findall(r"\{(\w+)\}", t.template))
        assert used == set(t.slots), t.template
        if t.slots:
            assert _only_reverse_clauses(t.reverse_cypher), t.reverse_cypher
            for slot in t.slots:
                assert f" AS {slot}" in t.reverse_cypher
            neg = t.metadata.get("negative_reverse_cypher")
            if neg:
                assert t.category == "boolean_existence" and _only_reverse_clauses(neg)
        else:
            assert t.reverse_cypher == ""
        if t.category == "boolean_existence":
            assert t.cypher.endswith("> 0 AS answer")
        if t.category == "negation_difference":
            assert "WHERE NOT (" in t.cypher
        if t.category == "ranking_topk":
            assert re.search(r"ORDER BY relatedCount DESC.* LIMIT (1|10)$", t.cypher)
        if t.category == "simple_retrieval":
            assert t.cypher.endswith("LIMIT 50")
        if t.category == "path_temporal" and "*1..2" not in t.cypher:
            assert t.kind.startswith("temporal_")


def test_schema_templates_cover_the_categories_deterministically() -> None:
    templates = schema_templates(PROFILE)
    assert templates == schema_templates(copy.deepcopy(PROFILE))
    by_category = Counter(t.category for t in templates)
    assert set(by_category) == set(CATEGORIES)
    assert [t.category for t in templates] == sorted(
        (t.category for t in templates), key=CATEGORIES.index
    )
    _check_template_shapes(templates)
    kinds = {t.kind for t in templates}
    # the original's kinds (count / top-k / negation; outgoing, incoming, scoped) are there
    assert {
        "count_outgoing",
        "count_incoming",
        "count_outgoing_scoped",
        "topk_outgoing",
        "topk_incoming_scoped",
        "negation_outgoing",
        "negation_incoming_scoped",
        "path_outgoing",
        "temporal_outgoing",
        "exists_pair",
    } <= kinds
    scoped = next(t for t in templates if t.kind == "count_outgoing_scoped")
    assert scoped.template == (
        "How many distinct account records are linked from account records with account type "
        "'{startValue}' through :TRANSFER?"
    )
    assert scoped.slots == {"startValue": "Account.accountType"}
    assert scoped.cypher == (
        "MATCH (s:Account {accountType: {startValue}})-[:TRANSFER]->(e:Account) "
        "RETURN COUNT(DISTINCT e) AS AccountCount"
    )
    owns = next(
        t
        for t in templates
        if t.kind == "retrieval_outgoing" and t.metadata["relationship_type"] == "OWNS"
    )
    assert (
        owns.template
        == "Which account records are linked from person '{startValue}' through :OWNS?"
    )
    assert owns.cypher == (
        "MATCH (s:Person {name: {startValue}})-[:OWNS]->(e:Account) RETURN DISTINCT "
        "e.accountId AS AccountId, e.accountType AS AccountType LIMIT 50"
    )
    assert owns.reverse_cypher == (
        "MATCH (s:Person)-[:OWNS]->(:Account) WHERE s.name IS NOT NULL "
        "RETURN DISTINCT s.name AS startValue LIMIT {limit}"
    )
    # a per-category cap keeps every kind (the kinds are interleaved)
    capped = schema_templates(PROFILE, max_per_category=3)
    assert max(Counter(t.category for t in capped).values()) == 3
    assert len({t.kind for t in capped if t.category == "complex_aggregation"}) == 3


def test_schema_templates_skip_categories_the_schema_cannot_support() -> None:
    profile = {
        "node_properties": [{"label": "A", "property": "name", "type": "STRING"}],
        "relationships": [{"start_label": "A", "type": "R", "end_label": "B", "count": 1}],
    }
    categories = {t.category for t in schema_templates(profile)}
    assert "path_temporal" not in categories  # no self-loop relation, no date-like property
    assert {"simple_retrieval", "ranking_topk", "negation_difference"} <= categories


def test_answerable_values_and_capacity() -> None:
    assert is_answerable("O'Hearn")
    assert is_answerable("x" * 160)
    for bad in ("", " lead", "trail ", "a\tb", "a\nb", "x" * 161, 7, None, ["a"]):
        assert not is_answerable(bad)
    slotted = Template("Q '{x}'?", "ranking_topk", {"x": "A.b"}, reverse_cypher="MATCH ...")
    free = Template("Which A?", "ranking_topk")
    assert capacity_warnings([slotted, free], 6, binding_limit=5, categories=["ranking_topk"]) == []
    assert capacity_warnings([slotted, free], 7, binding_limit=5, categories=["ranking_topk"]) == [
        "ranking_topk: capacity 6 < target 7 (1 slotted templates × binding limit 5 + 1 slot-free)"
    ]
    assert capacity_warnings([free], 2, categories=["ranking_topk"]) == [
        "ranking_topk: capacity 1 < target 2 (0 slotted templates × binding limit 50 + 1 slot-free)"
    ]


# -- seed template files -----------------------------------------------------------------

SEEDS = [
    {
        "template": "Which accounts are owned by person '{personName}'?",
        "category": "simple_retrieval",
        "slots": {"personName": "Person.personName"},
        "cypher": "MATCH (p:Person {personName: {personName}})-[:OWN]->(a:Account) "
        "RETURN DISTINCT a.accountId AS AccountId LIMIT 50",
    },
    {
        "template": "Which account sent the highest total transfer amount?",
        "category": "ranking_topk",
        "metadata": {"note": "slot-free"},
    },
]


def test_seed_templates_load(tmp_path: Path) -> None:
    path = tmp_path / "seeds.json"
    path.write_text(json.dumps(SEEDS))
    a, b = load_seed_templates(path)
    assert a.slots == {"personName": "Person.personName"}
    assert a.metadata == {
        "schema_template_kind": None,
        "source": "seed",
        "reverse_source": "generic",
    }
    assert a.reverse_cypher == (
        "MATCH (v0:Person) WHERE v0.personName IS NOT NULL "
        "RETURN DISTINCT v0.personName AS personName LIMIT {limit}"
    )
    assert fill(a, {"personName": "Barry"})[0] == "Which accounts are owned by person 'Barry'?"
    assert b.slots == {} and b.reverse_cypher == "" and b.cypher == ""
    assert b.metadata == {"schema_template_kind": None, "source": "seed", "note": "slot-free"}


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: {"templates": d}, r"\$: expected a list of template objects"),
        (lambda d: d[1].update(category="lookup"), r"\$\[1\]\.category: unknown category 'lookup'"),
        (lambda d: d[0].pop("template"), r"\$\[0\]: missing key 'template'"),
        (
            lambda d: d[0].update(slots={"personName": "name"}),
            r"\$\[0\]\.slots\.personName: expected",
        ),
        (
            lambda d: d[1].update(template="Which account of '{who}'?"),
            r"\$\[1\]\.template: placeholder \{who\} is not a declared slot",
        ),
        (
            lambda d: d[0]["slots"].update(extra="Person.x"),
            r"\$\[0\]\.slots\.extra: the template text does not use this slot",
        ),
        (
            lambda d: d[0].update(cypher="MATCH (p:Person) DETACH DELETE p"),
            r"\$\[0\]\.cypher: not read-only",
        ),
        (lambda d: d[0].update(cypher=3), r"\$\[0\]\.cypher: expected a string"),
        (lambda d: d[1].update(metadata=[]), r"\$\[1\]\.metadata: expected an object"),
        (lambda d: d[1].update(color="red"), r"\$\[1\]: unknown key\(s\) 'color'"),
    ],
)
def test_bad_seed_files_name_the_json_path(
    tmp_path: Path, mutate: Callable[[Any], Any], message: str
) -> None:
    data: Any = copy.deepcopy(SEEDS)
    result = mutate(data)
    data = result if isinstance(result, dict) else data  # a mutation may wrap the list
    bad = tmp_path / "seeds.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(TemplateError, match=re.escape(str(bad)) + ": " + message):
        load_seed_templates(bad)


def test_unreadable_seed_files(tmp_path: Path) -> None:
    bad = tmp_path / "seeds.json"
    bad.write_text("[{")
    with pytest.raises(TemplateError, match="not JSON"):
        load_seed_templates(bad)
    with pytest.raises(InputError, match="seed template file not found"):
        load_seed_templates(tmp_path / "absent.json")


# -- profile on Neo4j --------------------------------------------------------------------


def _items_graph() -> dict[str, Any]:
    """13 items: kind (13 values), color (3), note (1, never categorical), blurb (> 80
    chars), tags (a list)."""
    props = {"kind": "str", "color": "str", "note": "str", "blurb": "str", "tags": "list[str]"}
    entities = [
        {
            "eid": f"Item#{i}",
            "label": "Item",
            "name": f"Item {i}",
            "properties": {
                "kind": f"kind {i}",
                "color": ["red", "green", "blue"][i % 3],
                "note": "same",
                "blurb": "b" * (79 if i else 81),
                "tags": ["t"],
            },
        }
        for i in range(13)
    ]
    return {
        "schema": {
            "name": "items",
            "entities": [{"label": "Item", "properties": props}],
            "relations": [
                {"label": "next", "subj_label": "Item", "obj_label": "Item", "properties": {}}
            ],
        },
        "entities": entities,
        "relations": [
            {
                "rid": str(i),
                "label": "next",
                "subj_id": f"Item#{i}",
                "obj_id": f"Item#{i + 1}",
                "properties": {},
            }
            for i in range(12)
        ],
    }


@pytest.mark.neo4j
def test_profile_of_mini_company(
    neo4j_driver: Any, neo4j_load: Any, mini_company_graph: dict[str, Any], tmp_path: Path
) -> None:
    neo4j_load(mini_company_graph)
    reader = _reader(neo4j_driver)
    profile = profile_graph(reader, graph_name="mini_company")
    assert reader.queries == 4
    assert list(profile) == [
        "graph_name",
        "node_properties",
        "relationship_properties",
        "relationships",
        "categorical_properties",
    ]
    assert profile["graph_name"] == "mini_company"
    types = {(p["label"], p["property"]): p["type"] for p in profile["node_properties"]}
    assert types == {
        ("Company", "is_public"): "BOOLEAN",
        ("Company", "launch_year"): "INTEGER",
        ("Company", "name"): "STRING",
        ("Company", "revenue_usd"): "FLOAT",
        ("Country", "name"): "STRING",
        ("Country", "population"): "INTEGER",
        ("Person", "country_of_citizenship"): "LIST<STRING>",
        ("Person", "date_of_birth"): "DATE",
        ("Person", "date_of_death"): "DATE",
        ("Person", "gender"): "STRING",
        ("Person", "name"): "STRING",
    }
    assert list(types) == sorted(types)  # eid, description, aliases, provenance left out
    assert profile["relationship_properties"] == [
        {"type": "citizenOf", "property": "start_date", "value_type": "DATE"},
        {"type": "hasCEO", "property": "end_year", "value_type": "INTEGER"},
        {"type": "hasCEO", "property": "start_year", "value_type": "INTEGER"},
    ]
    assert profile["relationships"] == [
        {"start_label": "Company", "type": "basedIn", "end_label": "Country", "count": 4},
        {"start_label": "Company", "type": "foundedBy", "end_label": "Person", "count": 4},
        {"start_label": "Company", "type": "hasCEO", "end_label": "Person", "count": 5},
        {"start_label": "Company", "type": "subsidiaryOf", "end_label": "Company", "count": 1},
        {"start_label": "Person", "type": "citizenOf", "end_label": "Country", "count": 2},
    ]
    # names have ≤ 12 values here too: every non-list string property is categorical
    assert profile["categorical_properties"] == {
        "Company.name": ["Alphabet Inc.", "Google", "Microsoft", "Siemens", "Tiny Startup"],
        "Country.name": ["Germany", "United Kingdom", "United States"],
        "Person.gender": ["male"],
        "Person.name": [
            "Bill Gates",
            "Larry Page",
            "Satya Nadella",
            "Sergey Brin",
            "Sundar Pichai",
            "Werner von Siemens",
        ],
    }
    assert profile_graph(reader, graph_name="mini_company") == profile
    path = write_profile(profile, tmp_path / "out" / "schema.json")
    assert load_profile(path) == profile
    assert [p.name for p in path.parent.iterdir()] == ["schema.json"]


@pytest.mark.neo4j
def test_categorical_rules(neo4j_driver: Any, neo4j_load: Any) -> None:
    neo4j_load(_items_graph())
    profile = profile_graph(_reader(neo4j_driver), graph_name="items")
    # kind: 13 values; note: omitted by name; blurb: one value of 81 chars; tags: a list
    assert profile["categorical_properties"] == {"Item.color": ["blue", "green", "red"]}
    types = {p["property"]: p["type"] for p in profile["node_properties"]}
    assert types["tags"] == "LIST<STRING>" and types["note"] == "STRING"


@pytest.mark.neo4j
def test_empty_graph_is_an_input_error(neo4j_driver: Any, neo4j_load: Any) -> None:
    neo4j_load(
        {
            "schema": {"name": "empty", "entities": [], "relations": []},
            "entities": [],
            "relations": [],
        }
    )
    with pytest.raises(
        InputError,
        match=r"the graph at bolt://127\.0\.0\.1:\d+ \(default database\) has no nodes; "
        "nothing to profile",
    ):
        profile_graph(_reader(neo4j_driver), graph_name="empty")


# -- grounding and planning on mini_company ----------------------------------------------


def _company_with_quotes(graph: dict[str, Any]) -> dict[str, Any]:
    g = copy.deepcopy(graph)
    for e in g["entities"]:
        if e["name"] == "Larry Page":
            e["name"] = "Larry O'Hearn"
        if e["name"] == "Tiny Startup":
            e["name"] = "Back\\slash Co"
    return g


@pytest.mark.neo4j
def test_quotes_and_backslashes_give_valid_cypher(
    neo4j_driver: Any, neo4j_load: Any, mini_company_graph: dict[str, Any]
) -> None:
    neo4j_load(_company_with_quotes(mini_company_graph))
    reader = _reader(neo4j_driver)
    templates = schema_templates(profile_graph(reader, graph_name="mini_company"))
    special = ("Larry O'Hearn", "Back\\slash Co")
    seen: Counter[str] = Counter()
    for t in templates:
        if t.category not in ("simple_retrieval", "simple_aggregation", "boolean_existence"):
            continue
        for binding in ground(reader, t) + ground(reader, t, negative=True):
            question, cypher, values = fill(t, binding)
            for value in set(values) & set(special):
                seen[value] += 1
                assert f"'{value}'" in question
                if t.kind in ("retrieval_outgoing", "retrieval_incoming", "exists_pair"):
                    # the literal matched the stored name
                    assert reader.run(cypher)[0][0], (question, cypher)
                else:
                    reader.run(cypher)
    assert seen["Larry O'Hearn"] >= 5
    assert seen["Back\\slash Co"] >= 1  # a company without relations: negative booleans
    lookup = Template(
        "Which company is '{x}'?",
        "simple_retrieval",
        {"x": "Company.name"},
        cypher="MATCH (c:Company {name: {x}}) RETURN c.name AS name",
    )
    for value in special:
        assert [r["name"] for r in reader.run(fill(lookup, {"x": value})[1])] == [value] or (
            value == "Larry O'Hearn"
        )
    count = next(
        t
        for t in templates
        if t.kind == "count_outgoing_anchored" and t.metadata["relationship_type"] == "citizenOf"
    )
    question, cypher, _ = fill(count, {"startValue": "Larry O'Hearn"})
    assert question == (
        "How many distinct country records are linked from person 'Larry O'Hearn' through "
        ":citizenOf?"
    )
    assert "{name: 'Larry O\\'Hearn'}" in cypher
    assert reader.run(cypher)[0][0] == 1


@pytest.mark.neo4j
def test_grounding_keeps_answerable_bindings_and_rotates(
    neo4j_driver: Any, neo4j_load: Any, mini_company_graph: dict[str, Any]
) -> None:
    neo4j_load(mini_company_graph)
    reader = _reader(neo4j_driver)
    t = Template(
        "Which companies did '{person}' found?",
        "simple_retrieval",
        {"person": "Person.name"},
        reverse_cypher="MATCH (c:Company)-[:foundedBy]->(p:Person) "
        "RETURN DISTINCT p.name AS person LIMIT {limit}",
    )
    before = reader.queries
    bindings = ground(reader, t)
    assert reader.queries == before + 1  # one query per template
    names = sorted(b["person"] for b in bindings)
    assert names == ["Bill Gates", "Larry Page", "Sergey Brin", "Werner von Siemens"]
    assert ground(reader, t, offset=1) == bindings[1:] + bindings[:1]
    assert len(ground(reader, t, limit=2)) == 2
    # unanswerable values (here: padded with a space) are dropped
    padded = Template(
        t.template,
        t.category,
        t.slots,
        reverse_cypher="MATCH (p:Person) RETURN DISTINCT CASE WHEN p.name STARTS WITH 'S' "
        "THEN p.name + ' ' ELSE p.name END AS person LIMIT {limit}",
    )
    assert sorted(b["person"] for b in ground(reader, padded)) == [
        "Bill Gates",
        "Larry Page",
        "Werner von Siemens",
    ]
    assert ground(reader, Template("Which company is the oldest?", "ranking_topk")) == [{}]
    # a failing reverse query: the planner reports it and the template is exhausted
    broken = Template(t.template, t.category, t.slots, reverse_cypher="MATCH (p:Person RETURN")
    planner = Planner([broken], reader, 1, categories=["simple_retrieval"])
    assert list(planner.candidates()) == []
    assert [e["event"] for e in planner.events] == ["reverse_failed", "exhausted"]
    assert planner.events[0]["error_class"] == "syntax"
    assert planner.warnings[0].startswith(
        "simple_retrieval: reverse query of \"Which companies did '{person}' found?\" failed "
        "(syntax): Invalid input"
    )
    assert planner.warnings[1].startswith("simple_retrieval: 0 of 1 accepted after 1 attempts")


def _drive(planner: Planner, verdict: Callable[[Candidate], bool]) -> list[Candidate]:
    out = []
    for cand in planner.candidates():
        out.append(cand)
        if verdict(cand):
            planner.mark_accepted(cand)
        else:
            planner.mark_rejected(cand, "test")
    return out


@pytest.mark.neo4j
def test_planner_quotas_exhaustion_and_booleans(
    neo4j_driver: Any, neo4j_load: Any, mini_company_graph: dict[str, Any]
) -> None:
    neo4j_load(mini_company_graph)
    reader = _reader(neo4j_driver)
    templates = schema_templates(profile_graph(reader, graph_name="mini_company"))
    by_category = Counter(t.category for t in templates)

    # everything rejected: attempts stay within max(4·target, #templates) per round, no
    # (template, binding) is offered twice, templates run out and are reported
    target = 3
    planner = Planner(templates, reader, target, seed=1, top_up_rounds=1)
    assert planner.warnings == []  # capacity: slotted × 50 + slot-free ≥ 3 everywhere
    cands = _drive(planner, lambda c: False)
    stats = planner.stats()
    for category in CATEGORIES:
        assert stats[category]["accepted"] == 0
        assert stats[category]["attempts"] <= 2 * max(4 * target, by_category[category])
    offered = Counter(
        (c.template.template_id, json.dumps(c.binding, sort_keys=True)) for c in cands
    )
    assert max(offered.values()) == 1
    assert planner.exhausted and all(e["event"] != "reverse_failed" for e in planner.events)
    assert {e["event"] for e in planner.events} >= {"exhausted", "top_up"}
    assert any(w.startswith("ranking_topk: 0 of 3 accepted after") for w in planner.warnings)
    assert {c.round for c in cands} == {0, 1}

    # the deterministic Cypher as judge: accept non-empty answers; boolean expectations hold
    planner = Planner(templates, reader, target, seed=1)

    def judge(cand: Candidate) -> bool:
        rows = reader.run(cand.cypher)
        if cand.expected_answer is not None:
            assert rows[0]["answer"] is cand.expected_answer, cand.question
        return bool(rows)

    cands = _drive(planner, judge)
    assert all(planner.accepted[c] == target for c in CATEGORIES)
    assert {c.expected_answer for c in cands if c.category == "boolean_existence"} >= {True, False}
    keys = [(c.category, c.question.lower()) for c in cands]
    assert len(keys) == len(set(keys))
    # the first pass tries templates in order
    first = [c for c in cands if c.category == "simple_retrieval"]
    simple = [t for t in templates if t.category == "simple_retrieval"]
    assert [c.template for c in first] == simple[: len(first)]

    # a capacity warning when the templates cannot reach the target
    big = Planner(templates, reader, 10_000)
    assert any(w.startswith("ranking_topk: capacity ") for w in big.warnings)

    # a verdict must be for the last candidate
    planner = Planner(templates, reader, 1)
    it = planner.candidates()
    cand = next(it)
    planner.mark_accepted(cand)
    with pytest.raises(ValueError, match="already has a verdict"):
        planner.mark_rejected(cand)


# -- WD50K -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wd50k_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not WD50K_DUMP.exists():
        pytest.skip(f"the shared WD50K dump is absent ({WD50K_DUMP})")
    from kgbench.convert import convert

    out = tmp_path_factory.mktemp("wd50k")
    convert(str(DATA / "wd50k" / "wd50k.wd2neo4j.json"), [str(WD50K_DUMP)], str(out / "g"))
    return out / "g" / "graph.json"


@pytest.fixture
def wd50k(neo4j_driver: Any, neo4j_load: Any, wd50k_graph: Path) -> GraphReader:
    """The WD50K graph in the test server (loaded again only if another test replaced it)."""
    reader = _reader(neo4j_driver)
    counts = reader.run(
        "MATCH (n) RETURN count(n) AS n, sum(CASE WHEN n:TVSeries THEN 1 ELSE 0 END) AS tv"
    )[0]
    if (counts["n"], counts["tv"]) != (4789, 167):
        neo4j_load(wd50k_graph)
    return _reader(neo4j_driver)


@pytest.mark.realdata
@pytest.mark.neo4j
@pytest.mark.slow
def test_wd50k_templates_ground_and_run(wd50k: GraphReader) -> None:
    profile = profile_graph(wd50k, graph_name="wd50k")
    assert len({p["label"] for p in profile["node_properties"]}) == 15
    assert len(profile["relationships"]) == 44
    assert profile["categorical_properties"]["Person.gender"] == ["female", "male"]
    assert profile["categorical_properties"]["Country.driving_side"] == ["left", "right"]
    assert "Person.name" not in profile["categorical_properties"]

    templates = schema_templates(profile)
    assert templates == schema_templates(profile)
    _check_template_shapes(templates)
    per_category = Counter(t.category for t in templates)
    assert set(per_category) == set(CATEGORIES)
    failures = []
    grounded: Counter[str] = Counter()
    for t in templates:
        bindings = ground(wd50k, t)
        grounded[t.category] += len(bindings)
        for binding in bindings[:1]:
            # each reverse query and each filled Cypher runs (errors would raise QueryFailed)
            _, cypher, _ = fill(t, binding)
            wd50k.run(cypher)
        if t.metadata.get("negative_reverse_cypher"):
            for binding in ground(wd50k, t, negative=True)[:1]:
                assert wd50k.run(fill(t, binding)[1])[0]["answer"] is False
        if not bindings:
            failures.append(t.template)
    assert all(grounded[c] > 0 for c in CATEGORIES)
    assert len(failures) <= 0.05 * len(templates), failures


@pytest.mark.realdata
@pytest.mark.neo4j
@pytest.mark.slow
def test_wd50k_planner_is_deterministic(wd50k: GraphReader) -> None:
    templates = schema_templates(profile_graph(wd50k, graph_name="wd50k"))

    def run(seed: int) -> tuple[list[tuple[str, str, str]], dict[str, Any]]:
        planner = Planner(templates, wd50k, 12, seed=seed, binding_limit=20)
        # accept every other candidate: exercises the random draws after the first pass
        cands = _drive(planner, lambda c: c.attempt % 2 == 0)
        return [(c.template.template_id, c.question, c.cypher) for c in cands], planner.stats()

    a, stats = run(13)
    assert run(13) == (a, stats)
    assert run(14)[0] != a
    for category in CATEGORIES:
        assert 0 < stats[category]["accepted"] <= 12
        assert stats[category]["templates"] > 0
