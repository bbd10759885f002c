"""PIPE-Cypher diversity metrics (:mod:`kgbench.generate.pipe.diversity`) and
``kgbench diversity`` (spec pipe-cypher.md §4, §6, §7).

Most rows here carry the parser analysis themselves; the rows without it, and the demo's
CypherBench tasks, are analysed by the Rust parser
(:func:`kgbench.generate.pipe.features.query_features`)."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import pytest

from kgbench.errors import InputError
from kgbench.generate.pipe import diversity as dv
from kgbench.generate.pipe import diversity_cli

DEMO_TASKS = Path(dv.__file__).parents[2] / "demo" / "data" / "tasks.json"


def _row(
    question: str,
    *,
    graph: str = "fin",
    category: str = "simple_retrieval",
    difficulty: str = "easy",
    signature: str = "match (<var>:account) return <var>.id",
    labels: tuple[str, ...] = ("Account",),
    rels: tuple[str, ...] = (),
    props: tuple[str, ...] = ("id",),
    literals: tuple[Any, ...] = (),
    entity_values: tuple[str, ...] = (),
    strategy: str = "single_hop",
    **extra: Any,
) -> dict[str, Any]:
    """An export row that already carries the parser analysis."""
    atoms = {f"label:{x}" for x in labels} | {f"rel:{x}" for x in rels}
    atoms |= {f"prop:{x}" for x in props} | {f"strategy:{strategy}"}
    row = {
        "question": question,
        "cypher": "MATCH (a:Account) RETURN a.id",
        "category": category,
        "graph_profile": graph,
        "difficulty": difficulty,
        "entity_values": list(entity_values),
        "signature": signature,
        "structural_features": {
            "labels": list(labels),
            "relationship_types": list(rels),
            "properties": list(props),
            "primary_strategy": strategy,
            "limit": True,
            "relationship_pattern_count": len(rels),
            "node_pattern_count": 1 + len(rels),
            "return_arity": 1,
        },
        "substructures": sorted(atoms),
        "operator_combination": f"{strategy}+limit",
        "string_literals": list(literals),
    }
    row.update(extra)
    return row


# ---------------------------------------------------------------------------- entropy


def test_normalised_entropy_spec_graph_category_figure() -> None:
    # spec §6: 3,000 rows over 2 graphs x 8 categories (250 and 125 per cell) give
    # H = 3.918 bits, K = 16, H / log2 K = 3.918 / 4 = 0.980
    counts = {f"fin::c{i}": 250 for i in range(8)} | {f"snb::c{i}": 125 for i in range(8)}
    dist = dv.distribution_metrics(counts)
    assert dist["k"] == 16
    assert dist["entropy_bits"] == pytest.approx(3.918, abs=1e-3)
    assert dist["normalized_entropy"] == pytest.approx(3.918 / 4, abs=1e-3)
    assert round(dist["normalized_entropy"], 3) == 0.980
    assert dist["effective_count"] == pytest.approx(2 ** dist["entropy_bits"])
    assert dist["simpson_diversity"] == pytest.approx(1 - 8 * (1 / 12) ** 2 - 8 * (1 / 24) ** 2)


def test_normalised_entropy_designed_distribution() -> None:
    counts = {"a": 2, "b": 1, "c": 1}  # p = 1/2, 1/4, 1/4: H = 1.5 bits
    assert dv.normalised_entropy(counts) == pytest.approx(1.5 / math.log2(3))
    assert dv.normalised_entropy(counts, k=8) == pytest.approx(1.5 / 3)
    # uniform: 1 over the observed K, less over a larger declared K
    assert dv.normalised_entropy({"a": 5, "b": 5}) == pytest.approx(1.0)
    assert dv.normalised_entropy({"a": 5, "b": 5}, k=4) == pytest.approx(0.5)


def test_normalised_entropy_k_at_most_one_is_one() -> None:
    assert dv.normalised_entropy({"only": 7}) == 1.0
    assert dv.normalised_entropy({}) == 1.0
    assert dv.distribution_metrics({"only": 7})["normalized_entropy"] == 1.0
    # declared K > 1 (strict mode): a single observed value has entropy 0
    strict = dv.distribution_metrics({"only": 7}, declared=["only", "other"])
    assert strict["normalized_entropy"] == 0.0
    assert strict["empty"] == ["other"]
    assert dv.distribution_metrics({})["total"] == 0


# ---------------------------------------------------------------------------- text


def test_distinct_n_hand_computed() -> None:
    texts = ["A b a", "a, b c!"]  # tokens: a b a | a b c
    assert dv.distinct_n(texts, 1) == pytest.approx(3 / 6)
    assert dv.distinct_n(texts, 2) == pytest.approx(3 / 4)  # ab ba ab bc
    assert dv.distinct_n(texts, 3) == pytest.approx(2 / 2)
    assert dv.distinct_n(["a"], 2) == 0.0
    assert dv.tokenize("How many O'Hearn_2 posts?") == ["how", "many", "o", "hearn_2", "posts"]


def test_ead_n_hand_computed() -> None:
    texts = ["a b a", "a b c"]  # unigram counts a 3, b 2, c 1: T = 6, N = 6
    expected = ((1 - (1 - 3 / 6) ** 6) + (1 - (1 - 2 / 6) ** 6) + (1 - (1 - 1 / 6) ** 6)) / 6
    assert dv.ead_n(texts, 1) == pytest.approx(expected)
    assert dv.ead_n(texts, 1) == pytest.approx(0.426948, abs=1e-6)
    # T > 1000: N = 1000; 1200 distinct tokens each seen once
    big = [" ".join(f"w{i}" for i in range(1200))]
    assert dv.ead_n(big, 1) == pytest.approx(1200 * (1 - (1 - 1 / 1200) ** 1000) / 1000)
    assert dv.ead_n([""], 1) == 0.0


def test_self_bleu_hand_computed() -> None:
    # "a b" vs "a c": p1 = (1+1)/(2+1), p2 = (0+1)/(1+1), no brevity penalty
    assert dv.self_bleu(["a c", "a b"]) == pytest.approx(math.sqrt(2 / 3 * 1 / 2))
    # "a b" against "a b c": p1 = p2 = 1, penalty exp(1 - 3/2);
    # "a b c" against "a b": p1 = 3/4, p2 = 2/3, no penalty
    expected = (math.exp(-0.5) + math.sqrt(3 / 4 * 2 / 3)) / 2
    assert dv.self_bleu(["a b c", "a b"]) == pytest.approx(expected)
    assert dv.self_bleu(["only one"]) == 0.0
    # the sample is the first max_examples sorted normalised questions
    assert dv.self_bleu(["z z", "a c", "a b"], max_examples=2) == pytest.approx(math.sqrt(1 / 3))


def test_self_bleu_clips_to_the_best_other_reference() -> None:
    # candidate "x x" against "x" and "x x": the max reference count of x is 2
    texts = ["x x", "x", "x x"]
    score = dv.self_bleu(texts)
    # "x": p1 = (1+1)/(1+1), no bigram (1e-12), closest length 2 > 1: penalty exp(1 - 2)
    x_only = math.exp(1 - 2 / 1) * math.exp((math.log(1.0) + math.log(1e-12)) / 2)
    # "x x": x clipped at 2 (the other "x x"), p1 = 3/3, p2 = 2/2, closest length 2
    xx = 1.0
    assert score == pytest.approx((x_only + 2 * xx) / 3)


def test_question_similarity_hand_computed() -> None:
    sim = dv.question_similarity(["a b", "a c", "x y"])
    assert sim["mean_jaccard"] == pytest.approx((1 / 3) / 3)
    assert sim["mean_nearest_neighbor_jaccard"] == pytest.approx((1 / 3 + 1 / 3 + 0) / 3)
    assert dv.question_similarity(["a"])["mean_jaccard"] == 0.0


# ---------------------------------------------------------------------------- index


def test_pipe_diversity_geometric_mean_of_component_means() -> None:
    report = {
        "question_text": {
            "distinct_2": 0.4,
            "ead_distinct_2": 0.6,
            "self_bleu_2_sampled": 0.8,
            "pairwise_jaccard_sampled": {"mean_nearest_neighbor_jaccard": 0.5},
        },
        "query_templates": {"unique_signature_ratio": 0.2, "top_signature_share": 0.5},
        "template_families": {
            "unique_family_ratio": 0.1,
            "distribution": {"normalized_entropy": 0.9},
        },
        "distributions": {
            "primary_strategy": {"normalized_entropy": 0.8},
            "operator_combinations": {"normalized_entropy": 0.6},
            "category": {"normalized_entropy": 1.0},
            "graph_category": {"normalized_entropy": 0.98},
            "difficulty": {"normalized_entropy": 0.7},
        },
        "structural_substructures": {
            "unique_substructure_per_example": 3.0,  # clipped to 1
            "normalized_entropy": 0.6,
        },
        "schema_coverage": {
            "labels": {"coverage": 1.0},
            "relationship_types": {"coverage": 0.5},
            "properties": {"coverage": 1.5},  # compat coverage may exceed 1: clipped
        },
        "value_grounding": {
            "unique_entity_value_ratio": 0.3,
            "top_entity_value_share": 0.1,
            "entity_values_exact_quoted_rate": 0.9,
        },
    }
    expected = {
        "lexical": (0.4 + 0.6 + 0.2 + 0.5) / 4,
        "query_template": (0.2 + 0.5 + 0.1 + 0.9) / 4,
        "structural": (0.8 + 0.6 + 1.0 + 0.6) / 4,
        "schema": (1.0 + 0.5 + 1.0) / 3,
        "value": (0.3 + 0.9 + 0.9) / 3,
        "balance": (1.0 + 0.98 + 0.7) / 3,
    }
    index = dv.pipe_diversity(report)
    assert list(index["components"]) == list(dv.COMPONENTS)
    for name, value in expected.items():
        assert index["components"][name] == pytest.approx(value), name
    assert index["score"] == pytest.approx(math.prod(expected.values()) ** (1 / 6))
    # a zero component counts as 1e-6; missing sections count as their worst value
    assert dv.pipe_diversity({})["score"] == pytest.approx(1e-6)


# ---------------------------------------------------------------------------- report


def _benchmark() -> list[dict[str, Any]]:
    return [
        _row(
            "Which accounts are owned by person 'Barry'?",
            signature="match (<var>:person {name: <str>})-[:own]->(<var>:account) return <var>.id",
            labels=("Person", "Account"),
            rels=("own",),
            props=("name", "id"),
            literals=("Barry",),
            entity_values=("Barry",),
            template="Which accounts are owned by person '{name}'?",
        ),
        _row(
            "Which accounts are owned by person 'Kant'?",
            signature="match (<var>:person {name: <str>})-[:own]->(<var>:account) return <var>.id",
            labels=("Person", "Account"),
            rels=("own",),
            props=("name", "id"),
            literals=({"value": "kant ", "start": 9},),  # case and spaces do not matter
            entity_values=("Kant",),
            template="Which accounts are owned by person '{name}'?",
        ),
        _row(
            "How many posts are tagged 'Vietnam'?",
            graph="snb",
            category="simple_aggregation",
            difficulty="medium",
            signature="match (<var>:post)-[:has_tag]->(<var>:tag {name: <str>}) "
            "return count(distinct <var>)",
            labels=("Post", "Tag"),
            rels=("has_tag",),
            props=("Tag.name", "nickname"),  # a qualified name counts as its property
            literals=("Viet",),  # entity value not quoted exactly
            entity_values=("Vietnam",),
            strategy="aggregation",
            template_metadata={"schema_template_kind": "count_incoming"},
        ),
        _row("List all accounts.", signature="match (<var>:account) return <var>.id"),
    ]


def _schema_file(tmp_path: Path) -> Path:
    schema = {
        "graph_name": "fin",
        "node_properties": [
            {"label": "Person", "property": "name", "type": "STRING"},
            {"label": "Account", "property": "id", "type": "STRING"},
            {"label": "Tag", "property": "name", "type": "STRING"},
            {"label": "Loan", "property": "amount", "type": "FLOAT"},
        ],
        "relationship_properties": [{"type": ":`own`", "property": "since", "value_type": "D"}],
        "relationships": [
            {"start_label": "Person", "type": "own", "end_label": "Account", "count": 3},
            {"start_label": "Post", "type": "has_tag", "end_label": "Tag", "count": 5},
            {"start_label": "Loan", "type": "deposit", "end_label": "Account", "count": 1},
        ],
        "categorical_properties": {},
    }
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema), encoding="utf-8")
    return path


def test_report_on_analysed_rows(tmp_path: Path) -> None:
    rows = _benchmark()
    report = dv.diversity_report(rows)
    assert report["n"] == 4 and report["mode"] == "compat"
    json.dumps(report)  # JSON-serialisable

    templates = report["query_templates"]
    assert templates["unique_signature_count"] == 3
    assert templates["unique_signature_ratio"] == pytest.approx(3 / 4)
    assert templates["top_signature_share"] == pytest.approx(2 / 4)
    top = templates["top_signatures"][0]
    assert top["count"] == 2 and len(top["signature_id"]) == 10

    families = report["template_families"]["distribution"]["counts"]
    assert families == {
        "query:match (<var>:account) return <var>.id": 1,
        "schema:count_incoming": 1,
        "template:which accounts are owned by person value": 2,
    }

    values = report["value_grounding"]
    assert values["total_entity_mentions"] == 3
    assert values["entity_values_exact_quoted_rate"] == pytest.approx(2 / 3)
    assert values["examples_with_entity_values_rate"] == pytest.approx(3 / 4)
    assert values["top_entity_value_share"] == pytest.approx(1 / 3)

    # no schema: coverage of the used set
    coverage = report["schema_coverage"]
    assert coverage["properties"]["used"] == ["id", "name", "nickname"]
    assert coverage["labels"]["coverage"] == 1.0

    dist = report["distributions"]
    assert dist["category"]["counts"] == {"simple_aggregation": 1, "simple_retrieval": 3}
    assert dist["graph_category"]["k"] == 2
    assert report["structural_features"]["limit_rate"] == 1.0
    assert report["structural_features"]["mean_relationship_patterns"] == pytest.approx(3 / 4)
    assert set(report["by_graph"]) == {"fin", "snb"}
    assert report["by_graph"]["snb"]["n"] == 1
    assert set(report["by_category"]) == {"simple_aggregation", "simple_retrieval"}
    assert "by_graph" not in report["by_graph"]["fin"]

    index = report["pipe_diversity_index"]
    assert 0 < index["score"] <= 1
    assert index["score"] == pytest.approx(math.prod(index["components"].values()) ** (1 / 6))


def test_report_schema_coverage_compat_and_strict(tmp_path: Path) -> None:
    schema = _schema_file(tmp_path)
    inventory = dv.load_schema(schema)
    assert inventory["relationship_types"] == {"own", "has_tag", "deposit"}
    assert inventory["labels"] == {"Person", "Account", "Tag", "Loan"}

    compat = dv.diversity_report(_benchmark(), schema=schema)["schema_coverage"]
    # used labels Person Account Post Tag (Post is not in node_properties): 4 / 4
    assert compat["labels"]["coverage"] == pytest.approx(4 / 4)
    # used properties id name nickname; schema id name amount since: 3 / 4, not intersected
    assert compat["properties"]["coverage"] == pytest.approx(3 / 4)
    assert compat["relationship_types"]["coverage"] == pytest.approx(2 / 3)

    strict = dv.diversity_report(_benchmark(), schema=inventory, strict=True)
    coverage = strict["schema_coverage"]
    assert coverage["labels"]["coverage"] == pytest.approx(3 / 4)
    assert coverage["labels"]["outside_schema"] == ["Post"]
    assert coverage["properties"]["coverage"] == pytest.approx(2 / 4)
    assert strict["settings"]["schema"] == {
        "labels": 4,
        "relationship_types": 3,
        "properties": 4,
    }


def test_report_strict_entropy_over_declared_k() -> None:
    rows = [_row(f"question {i}") for i in range(4)]  # one graph, one category
    compat = dv.diversity_report(rows)["distributions"]
    assert compat["category"]["normalized_entropy"] == 1.0  # observed K = 1
    assert compat["graph_category"]["normalized_entropy"] == 1.0

    strict = dv.diversity_report(rows, strict=True)
    dist = strict["distributions"]
    assert dist["category"]["k"] == 8
    assert dist["category"]["normalized_entropy"] == 0.0
    assert len(dist["category"]["empty"]) == 7
    assert dist["graph_category"]["k"] == 8
    assert dist["difficulty"]["k"] == 3

    two = [*rows, _row("other", graph="snb", category="ranking_topk", difficulty="hard")]
    dist = dv.diversity_report(two, strict=True)["distributions"]
    assert dist["graph_category"]["k"] == 16
    h = dist["graph_category"]["entropy_bits"]
    assert dist["graph_category"]["normalized_entropy"] == pytest.approx(h / 4)
    # a by_category report declares its one category
    sub = dv.diversity_report(two, strict=True)["by_category"]["ranking_topk"]
    assert sub["distributions"]["category"]["k"] == 1
    assert sub["distributions"]["graph_category"]["k"] == 2


def test_cypherbench_rows_are_analysed_by_the_parser() -> None:
    """Rows without the analysis fields get them from the Rust parser (``query_features``):
    a CypherBench task (``gold_cypher``) and an export row (``cypher``), next to a row that
    carries its own analysis."""
    rows = [
        {
            "qid": "q1",
            "graph": "movies",
            "nl_question": "How many people are there?",
            "gold_cypher": "MATCH (n:Person) RETURN count(n) AS c",
            "from_template": {"match_category": "basic_(n)", "return_pattern_id": "n_name"},
        },
        {"question": "Films?", "cypher": "MATCH (n:Film) RETURN n.name", "category": "x"},
        _row("already analysed"),
    ]
    report = dv.diversity_report(rows)
    assert report["distributions"]["category"]["counts"] == {
        "simple_aggregation": 1,  # inferred by the parser's analysis
        "simple_retrieval": 1,  # the analysed row's own
        "x": 1,  # the row's own category wins over the analysis
    }
    previews = {t["preview"] for t in report["query_templates"]["top_signatures"]}
    assert previews == {
        "match ( <var> : person ) return count ( <var> ) as <var>",  # the parser's signatures
        "match ( <var> : film ) return <var> . name",
        "match (<var>:account) return <var>.id",  # the row's own
    }
    substructures = {t["preview"] for t in report["structural_substructures"]["top_substructures"]}
    assert {"agg:COUNT", "label:Film", "label:Person", "label:Account"} <= substructures
    assert "schema:basic_(n)/n_name" in report["template_families"]["distribution"]["counts"]
    assert set(report["by_graph"]) == {"movies", "unknown", "fin"}


def test_bad_input_raises() -> None:
    with pytest.raises(InputError, match="empty"):
        dv.diversity_report([])
    with pytest.raises(InputError, match="row 1: field 'question'"):
        dv.diversity_report([_row("ok"), _row("x") | {"question": None}])
    with pytest.raises(InputError, match="row 0: field 'cypher'"):
        dv.diversity_report([{"question": "no query"}])
    with pytest.raises(InputError, match="'substructures' must be a list"):
        dv.diversity_report([_row("x", substructures="label:A")])
    with pytest.raises(InputError, match="sample_size"):
        dv.diversity_report([_row("x")], sample_size=1)


# ---------------------------------------------------------------------------- CLI


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="kgbench")
    register_into = parser.add_subparsers(dest="command")
    diversity_cli.register(register_into)
    args = parser.parse_args(argv)
    return int(args.func(args))


def test_cli_prints_headline_and_writes_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "bench.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in _benchmark()) + "\n", encoding="utf-8")
    out = tmp_path / "report.json"
    schema = _schema_file(tmp_path)
    assert _cli(["diversity", str(data), "--schema", str(schema), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    for label in (
        "PIPE-Diversity",
        "lexical",
        "balance",
        "Distinct-2",
        "EAD-2",
        "self-BLEU-2",
        "NN-Jaccard",
        "signature ratio",
        "substructures",
        "property coverage",
        "exact-quoted rate",
        "graph×category",
    ):
        assert label in text, label
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["n"] == 4 and report["mode"] == "compat"
    assert report["schema_coverage"]["properties"]["available_count"] == 4
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    # the parent is a file: nothing can be written there
    with pytest.raises(InputError, match=r"report\.json: cannot write"):
        _cli(["diversity", str(data), "--out", str(data / "report.json")])

    assert _cli(["diversity", str(data), "--strict"]) == 0
    assert "strict mode" in capsys.readouterr().out


def test_cli_bad_input_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "cypher": "RETURN 1"}\n{not json\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.jsonl line 2"):
        _cli(["diversity", str(bad)])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"empty\.jsonl: no records"):
        _cli(["diversity", str(empty)])
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([_row("ok"), {"question": 3, "cypher": "RETURN 1"}]))
    with pytest.raises(InputError, match=r"rows\.json record 1"):
        _cli(["diversity", str(rows)])
    with pytest.raises(InputError, match=r"missing\.json: cannot read"):
        _cli(["diversity", str(empty), "--schema", str(tmp_path / "missing.json")])


# ---------------------------------------------------------------------------- real analysis


def test_report_on_cypherbench_demo_tasks_with_the_parser() -> None:
    report = dv.diversity_report_file(DEMO_TASKS)
    assert report["n"] == 40
    assert report["n_syntax_invalid"] == 0
    text = report["question_text"]
    assert 0 < text["distinct_2"] <= 1
    assert 0 < text["ead_distinct_2"] <= 1
    assert 0 < text["self_bleu_2_sampled"] < 1
    assert 0 <= text["pairwise_jaccard_sampled"]["mean_nearest_neighbor_jaccard"] <= 1
    assert 0 < report["query_templates"]["unique_signature_ratio"] <= 1
    assert report["structural_substructures"]["unique_substructure_count"] > 0
    assert report["schema_coverage"]["labels"]["used_count"] > 0
    assert report["schema_coverage"]["properties"]["used_count"] > 0
    assert set(report["by_graph"]) == {"wikidata_demo"}
    assert all(c != "unknown" for c in report["distributions"]["category"]["counts"])
    assert all(
        d in {"easy", "medium", "hard"} for d in report["distributions"]["difficulty"]["counts"]
    )
    index = report["pipe_diversity_index"]
    assert 0 < index["score"] <= 1
    assert all(0 <= v <= 1 for v in index["components"].values())
    # CypherBench samples carry no entity values: only the top-share term counts
    assert index["components"]["value"] == pytest.approx(1 / 3)
