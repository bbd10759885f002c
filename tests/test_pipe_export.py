"""PIPE-Cypher export, redaction and judge (kgbench.generate.pipe.export / redact / judge).

Ids, manifests and splits are checked byte for byte against an independent computation with
hashlib and the original's JSON serialisation, plus pinned literal hashes that catch drift.
The LLM judge talks real HTTP to :class:`ChatCompletionsTestDouble`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chat_completions_double import ChatCompletionsTestDouble, last_user_content
from kgbench.errors import InputError, KgbenchError
from kgbench.generate.pipe import export as export_mod
from kgbench.generate.pipe import redact as redact_mod
from kgbench.generate.pipe.export import (
    assign_splits,
    export_benchmark,
    export_row,
    manifest_sha256,
    record_id,
    split_counts,
    template_family,
    to_nl2cypher,
)
from kgbench.generate.pipe.features import query_features
from kgbench.generate.pipe.judge import (
    apply_override,
    deterministic_judge,
    judge_calibration,
    llm_judge,
)
from kgbench.generate.pipe.redact import (
    RedactionAuditError,
    audit_redaction,
    placeholder,
    redact_row,
    redact_rows,
)
from kgbench.llm import LLMClient
from kgbench.tasks import TASK_FIELDS, load_tasks

# -- helpers -----------------------------------------------------------------------------


def ledger_row(
    question: str,
    cypher: str,
    *,
    category: str = "simple_retrieval",
    graph: str = "finbench",
    accepted: bool = True,
    signature: str | None = None,
    literals: list[str] | None = None,
    entities: list[str] | None = None,
    rows: list[dict[str, Any]] | None = None,
    template: str | None = "Which accounts are owned by person {person}?",
) -> dict[str, Any]:
    """A ledger row of spec §2.7 as the gates write it: ``validation`` is the parser's
    analysis (with literal spans, substructures, ...) plus the schema gate's verdict."""
    analysis = query_features([cypher])[0]
    validation = {**analysis, "schema_valid": True, "issues": []}
    if literals is None:
        literals = [lit["value"] for lit in analysis["string_literals"]]
    return {
        "question": question,
        "cypher": cypher,
        "category": category,
        "graph_profile": graph,
        "accepted": accepted,
        "validation": validation,
        "execution": {"success": True, "rows": rows if rows is not None else [{"n": 1}]},
        "judge": {
            "passed": True,
            "ambiguity_score": 0.2,
            "semantic_alignment_score": 0.85,
            "schema_use_score": 1.0,
            "difficulty": "easy",
            "failure_reason": "",
        },
        "entity_values": entities or [],
        "reverse_cypher": "MATCH (p:Person) RETURN DISTINCT p.name AS person LIMIT 50",
        "model": "test-model",
        "template": template,
        "template_metadata": {},
        "signature": signature or "match (<var>:person) return <var>.x",
        "difficulty": "easy",
        "string_literals": literals,
        "rejected_at": None,
    }


def cell_rows(n: int, *, graph: str = "g", category: str = "c") -> list[dict[str, Any]]:
    return [
        {"id": record_id(graph, category, f"q{i}", f"RETURN {i}"), "graph_profile": graph,
         "category": category, "signature": f"sig{i % 7}"}
        for i in range(n)
    ]  # fmt: skip


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- ids and manifest --------------------------------------------------------------------


def test_record_id_serialises_like_the_original() -> None:
    question = "Which accounts are owned by person 'Zoë'?"
    cypher = "MATCH (p:Person {name: 'Zoë'})-[:own]->(a:Account) RETURN DISTINCT a.accountId"
    # json.dumps(..., sort_keys=True): ", " and ": " separators, non-ASCII escaped
    payload = (
        '{"category": "simple_retrieval", "cypher": "MATCH (p:Person {name: \'Zo\\u00eb\'})'
        '-[:own]->(a:Account) RETURN DISTINCT a.accountId", "graph_profile": "finbench", '
        '"question": "Which accounts are owned by person \'Zo\\u00eb\'?"}'
    )
    expected = "pc_" + sha(payload)[:16]
    assert record_id("finbench", "simple_retrieval", question, cypher) == expected
    assert expected == "pc_26ea05271292ffeb"  # pinned: catches drift of the serialisation


def test_manifest_hash_is_the_id_sorted_canonical_lines() -> None:
    rows: list[dict[str, Any]] = [
        {"id": "pc_b", "question": "Zürich?", "n": 2, "split": "dev"},
        {"id": "pc_a", "question": "x", "nested": {"z": 1, "a": [1, "é"]}},
    ]
    lines = [json.dumps(r, ensure_ascii=False, sort_keys=True, default=str) for r in rows[::-1]]
    assert manifest_sha256(rows) == sha("\n".join(lines) + "\n")
    text = (
        '{"id": "pc_a", "nested": {"a": [1, "é"], "z": 1}, "question": "x"}\n'
        '{"id": "pc_b", "n": 2, "question": "Zürich?", "split": "dev"}\n'
    )
    assert manifest_sha256(rows) == sha(text)
    assert manifest_sha256(rows) == (
        "cea95b30059a493f69cf43eaf1012f20094e3ca40e050da4bb4a7c852abb327f"
    )
    assert manifest_sha256([]) == sha("\n")


# -- splits ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "train", "dev", "test"),
    [
        (0, 0, 0, 0),
        (1, 1, 0, 0),
        (2, 1, 0, 1),
        (3, 1, 1, 1),
        (4, 2, 1, 1),
        (10, 8, 1, 1),
        (15, 11, 2, 2),  # round(1.5) = 2
        (25, 21, 2, 2),  # round(2.5) = 2 (half-even)
        (125, 101, 12, 12),  # round(12.5) = 12: the SNB cells of spec §6
    ],
)
def test_split_counts(n: int, train: int, dev: int, test: int) -> None:
    assert split_counts(n) == {"train": train, "dev": dev, "test": test}


def test_iid_split_of_a_125_row_cell_follows_the_hash_order() -> None:
    rows = cell_rows(125)
    splits = assign_splits(rows, mode="iid")
    assert {k: len(v) for k, v in splits.items()} == {"train": 101, "dev": 12, "test": 12}
    order = sorted(rows, key=lambda r: sha("pipe-cypher-v1:" + r["id"]))
    ids = [r["id"] for r in order]
    assert [r["id"] for r in splits["train"]] == sorted(ids[:101])
    assert [r["id"] for r in splits["dev"]] == sorted(ids[101:113])
    assert [r["id"] for r in splits["test"]] == sorted(ids[113:])
    assert assign_splits(rows[::-1], mode="iid") == splits  # input order does not matter


def test_iid_splits_are_per_cell_and_never_empty() -> None:
    rows = cell_rows(10, category="a") + cell_rows(2, category="b") + cell_rows(1, category="c")
    sizes = {k: len(v) for k, v in assign_splits(rows).items()}
    assert sizes == {"train": 8 + 1 + 1, "dev": 1, "test": 1 + 1}
    singles = [cell_rows(1, category=c)[0] for c in "xyz"]  # three cells of one row
    assert {k: len(v) for k, v in assign_splits(singles).items()} == {
        "train": 1,
        "dev": 1,
        "test": 1,
    }


def test_signature_disjoint_keeps_each_signature_in_one_split() -> None:
    rows = cell_rows(80)
    for i, row in enumerate(rows):
        row["signature"] = f"sig{i // 10}"  # 8 blocks of 10
    splits = assign_splits(rows, mode="signature_disjoint", seed=13)
    holders: dict[str, set[str]] = {}
    for name, members in splits.items():
        for row in members:
            holders.setdefault(row["signature"], set()).add(name)
    assert all(len(h) == 1 for h in holders.values())
    assert {k: len(v) for k, v in splits.items()} == {"train": 60, "dev": 10, "test": 10}
    uneven = cell_rows(100)  # blocks of 15, 15, 14, ... by i % 7
    split_of = {
        r["signature"]: name
        for name, members in assign_splits(uneven, mode="signature_disjoint").items()
        for r in members
    }
    assert len(split_of) == 7 and set(split_of.values()) == {"train", "dev", "test"}
    with pytest.raises(InputError, match="signature"):
        assign_splits([{"id": "pc_1"}], mode="signature_disjoint")
    with pytest.raises(InputError, match="split mode"):
        assign_splits(rows, mode="random")


# -- redaction ---------------------------------------------------------------------------

OHEARN_CYPHER = (
    "MATCH (p:Person)-[:own]->(a:Account) "
    "WHERE p.name IN ['O\\'Hearn', \"Kant\", 'Kantor'] AND p.gender = 'M' "
    "RETURN DISTINCT a.accountId, a.nickname"
)


def ohearn_row() -> dict[str, Any]:
    row = ledger_row(
        "Which accounts are owned by O'Hearn, Kant or Kantor with gender M?",
        OHEARN_CYPHER,
        literals=["O'Hearn", "Kant", "Kantor", "M"],
        entities=["O'Hearn", "Kantor"],
        rows=[
            {"a.accountId": "Kantor-7", "a.nickname": "Kant"},
            {"a.accountId": "acc-2", "a.nickname": "Mx M"},
        ],
    )
    return export_row(row)


def test_redaction_replaces_parser_literals_at_byte_offsets() -> None:
    # non-ASCII and an emoji before the literals: the parser's byte offsets must not be
    # used as str indices; quotes in a comment or a backquoted name are not literals
    cypher = (
        "MATCH (c:City {name: 'Zürich'})<-[:livesIn]-(p:Person) // 'comment' 🎉\n"
        "WHERE p.`we'ird` = 'a\\'b\\u00e9' AND p.nick = \"it's\" /* \"x\" */ RETURN p"
    )
    redacted, mapping = redact_row({"question": "Who in Zürich is a'bé or it's?", "cypher": cypher})
    assert mapping == {"Zürich": "__VALUE_001__", "a'bé": "__VALUE_002__", "it's": "__VALUE_003__"}
    assert redacted["cypher"] == (
        "MATCH (c:City {name: '__VALUE_001__'})<-[:livesIn]-(p:Person) // 'comment' 🎉\n"
        'WHERE p.`we\'ird` = \'__VALUE_002__\' AND p.nick = "__VALUE_003__" /* "x" */ RETURN p'
    )
    assert redacted["question"] == "Who in __VALUE_001__ is __VALUE_002__ or __VALUE_003__?"


def test_redaction_does_not_touch_a_literal_in_a_comment() -> None:
    cypher = "MATCH (p:Person {name: 'Kant'}) // was 'Kantor'\nRETURN p.name"
    redacted, mapping = redact_row({"question": "Is Kant here?", "cypher": cypher})
    assert mapping == {"Kant": "__VALUE_001__"}
    assert redacted["cypher"] == (
        "MATCH (p:Person {name: '__VALUE_001__'}) // was 'Kantor'\nRETURN p.name"
    )
    # the comment still holds known values (Kant within Kantor too): the audit reports them
    leaky, m2 = redact_row({"question": "q", "cypher": cypher, "entity_values": ["Kantor"]})
    assert "'Kantor'" in leaky["cypher"]
    assert audit_redaction([leaky], [list(m2)]) == [
        {"row": 0, "id": None, "field": "cypher", "value": "Kant"},
        {"row": 0, "id": None, "field": "cypher", "value": "Kantor"},
    ]


def test_redaction_replaces_every_value_longest_first() -> None:
    redacted, mapping = redact_row(ohearn_row())
    assert mapping == {
        "O'Hearn": "__VALUE_001__",
        "Kant": "__VALUE_002__",
        "Kantor": "__VALUE_003__",
        "M": "__VALUE_004__",
    }
    assert redacted["cypher"] == (
        "MATCH (p:Person)-[:own]->(a:Account) WHERE p.name IN ['__VALUE_001__', "
        "\"__VALUE_002__\", '__VALUE_003__'] AND p.gender = '__VALUE_004__' "
        "RETURN DISTINCT a.accountId, a.nickname"
    )
    assert redacted["question"] == (
        "Which accounts are owned by __VALUE_001__, __VALUE_002__ or __VALUE_003__ "
        "with gender __VALUE_004__?"
    )
    assert redacted["result_rows_sample"] == [
        {"a.accountId": "__VALUE_003__-7", "a.nickname": "__VALUE_002__"},
        {"a.accountId": "acc-2", "a.nickname": "Mx __VALUE_004__"},
    ]
    assert redacted["entity_values"] == ["__VALUE_001__", "__VALUE_003__"]
    assert redacted["string_literals"] == [f"__VALUE_00{i}__" for i in range(1, 5)]
    assert redacted["normalized_cypher"] == redacted["cypher"]
    assert redacted["template"] == "Which accounts are owned by person {person}?"
    assert audit_redaction([redacted], [list(mapping)]) == []
    text = json.dumps(redacted, ensure_ascii=False)
    for value in ("O'Hearn", "O\\'Hearn", "Kant"):
        assert value not in text


def test_both_quote_styles_of_one_value_share_a_placeholder() -> None:
    cypher = "MATCH (p:Person) WHERE p.name = \"O'Hearn\" OR p.name = 'O\\'Hearn' RETURN p"
    redacted, mapping = redact_row({"question": "Is O'Hearn a person?", "cypher": cypher})
    assert mapping == {"O'Hearn": "__VALUE_001__"}
    assert redacted["cypher"] == (
        "MATCH (p:Person) WHERE p.name = \"__VALUE_001__\" OR p.name = '__VALUE_001__' RETURN p"
    )
    assert redacted["question"] == "Is __VALUE_001__ a person?"


def test_salted_placeholders_are_stable_across_rows() -> None:
    def salted(value: str) -> str:
        payload = json.dumps({"salt": "pepper", "value": value}, sort_keys=True)
        return f"__VALUE_{sha(payload)[:12]}__"

    first, m1 = redact_row(ohearn_row(), salt="pepper")
    row = export_row(ledger_row("Accounts of Kant?", "MATCH (p {name: 'Kant'}) RETURN p"))
    second, m2 = redact_row(row, salt="pepper")
    assert m1["Kant"] == m2["Kant"] == salted("Kant") == placeholder("Kant", 9, "pepper")
    assert second["cypher"] == f"MATCH (p {{name: '{salted('Kant')}'}}) RETURN p"
    assert first["question"].startswith("Which accounts are owned by " + salted("O'Hearn"))


def test_redaction_parses_each_batch_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    real = redact_mod.query_features

    def counting(queries: list[str]) -> list[dict[str, Any]]:
        calls.append(list(queries))
        return real(queries)

    monkeypatch.setattr(redact_mod, "query_features", counting)
    rows = [export_row(r) for r in benchmark_rows()[:15]]
    pairs = redact_rows(rows)
    assert len(calls) == 1
    # cypher, normalized_cypher and reverse_cypher of every row, each distinct text once
    texts = {r[k] for r in rows for k in ("cypher", "normalized_cypher", "reverse_cypher")}
    assert sorted(calls[0]) == sorted(texts)
    assert [p[0]["cypher"] for p in pairs] == [redact_row(r)[0]["cypher"] for r in rows]
    calls.clear()
    export_benchmark(benchmark_rows(), tmp_path / "bench", redact=True)
    assert len(calls) == 1  # the whole export: one parser call
    calls.clear()
    assert redact_rows([]) == [] and calls == []


def test_unparseable_query_keeps_its_literals_and_fails_the_audit() -> None:
    cypher = "MATCH (p:Person {name: 'Kant'} RETURN p"  # missing ")"
    assert not query_features([cypher])[0]["syntax_valid"]
    row = {"question": "Is Kant here?", "cypher": cypher, "entity_values": ["Kant"]}
    redacted, mapping = redact_row(row)
    assert redacted["cypher"] == cypher and redacted["question"] == "Is __VALUE_001__ here?"
    assert audit_redaction([redacted], [list(mapping)]) == [
        {"row": 0, "id": None, "field": "cypher", "value": "Kant"}
    ]


def test_audit_finds_surviving_values_but_not_placeholders() -> None:
    rows: list[dict[str, Any]] = [
        {"id": "pc_1", "question": "Kant and __VALUE_001__", "cypher": "RETURN 1"},
        {"id": "pc_2", "question": "x", "result_rows_sample": [{"a": ["deep Kantor"]}]},
    ]
    findings = audit_redaction(rows, [["Kant", "VALUE", "ab"], ["Kantor"]])
    assert findings == [
        {"row": 0, "id": "pc_1", "field": "question", "value": "Kant"},
        {"row": 1, "id": "pc_2", "field": "result_rows_sample", "value": "Kantor"},
    ]
    error = RedactionAuditError(findings)
    assert isinstance(error, KgbenchError)
    assert "2 raw value(s)" in str(error) and "pc_1" in str(error)
    with pytest.raises(InputError):
        audit_redaction(rows, [[]])


# -- export ------------------------------------------------------------------------------


def benchmark_rows() -> list[dict[str, Any]]:
    rows = []
    for i in range(12):
        name = f"Person{i:02d}"
        rows.append(
            ledger_row(
                f"Which accounts are owned by person {name}?",
                f"MATCH (p:Person {{name: '{name}'}})-[:own]->(a:Account) RETURN a.accountId",
                literals=[name],
                entities=[name],
                rows=[{"a.accountId": f"acc-{i}"}],
                signature=f"sig{i % 4}",
            )
        )
    for i in range(3):
        rows.append(
            ledger_row(
                f"How many posts are tagged Tag{i}?",
                f"MATCH (p:Post)-[:hasTag]->(t:Tag {{name: 'Tag{i}'}}) RETURN count(p) AS n",
                category="simple_aggregation",
                graph="snb",
                literals=[f"Tag{i}"],
                rows=[{"n": i}],
                template=None,
            )
        )
    rows.append(ledger_row("Rejected?", "RETURN 1", accepted=False))
    rows.append(dict(rows[0], question="which accounts are owned by  person Person00?"))
    return rows


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_export_writes_splits_tasks_and_manifest(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    summary = export_benchmark(benchmark_rows(), out)
    assert sorted(os.listdir(out)) == sorted([*export_mod.EXPORT_FILES, "manifest.sha256"])
    assert [p.name for p in tmp_path.iterdir()] == ["bench"]  # no temporary directory left
    assert summary["rows"] == 15
    assert summary["skipped_not_accepted"] == 1 and summary["duplicates"] == 1
    assert summary["by_split"] == {"train": 11, "dev": 2, "test": 2}
    assert summary["by_cell"] == {
        "finbench::simple_retrieval": {"train": 10, "dev": 1, "test": 1},
        "snb::simple_aggregation": {"train": 1, "dev": 1, "test": 1},
    }
    payload = (out / "all.jsonl").read_bytes()
    assert summary["manifest_sha256"] == hashlib.sha256(payload).hexdigest()
    rows = read_jsonl(out / "all.jsonl")
    assert summary["manifest_sha256"] == manifest_sha256(rows)
    assert (out / "manifest.sha256").read_text() == f"{summary['manifest_sha256']}  all.jsonl\n"
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    first = rows[0]
    assert first["id"] == record_id(
        first["graph_profile"], first["category"], first["question"], first["cypher"]
    )
    assert set(first["gates"]) == {
        "read_only", "syntax_valid", "schema_valid", "execution_success", "judge_pass", "accepted"
    }  # fmt: skip
    assert first["difficulty"] == "easy" and len(first["result_rows_sample"]) <= 5
    for name in ("train", "dev", "test"):
        members = read_jsonl(out / f"{name}.jsonl")
        assert {r["split"] for r in members} <= {name}
        assert members == [r for r in rows if r["split"] == name]

    tasks = json.loads((out / "tasks.json").read_text(encoding="utf-8"))
    assert [list(t)[: len(TASK_FIELDS)] for t in tasks] == [list(TASK_FIELDS)] * len(tasks)
    loaded = load_tasks(out / "tasks.json")
    by_qid = {t["qid"]: t for t in loaded}
    task = by_qid[first["id"]]
    assert task["gold_cypher"] == first["cypher"] and task["graph"] == first["graph_profile"]
    assert task["nl_question"] == first["question"]
    assert json.loads(task["answer_json"]) == [
        list(r.values()) for r in first["result_rows_sample"]
    ]
    assert task["from_template"] == {
        "match_category": first["category"],
        "match_cypher": first["cypher"],
        "return_pattern_id": template_family(first),
        "return_cypher": "",
    }
    assert task["split"] == first["split"]


def test_export_is_deterministic(tmp_path: Path) -> None:
    a = export_benchmark(benchmark_rows(), tmp_path / "a", split_mode="signature_disjoint")
    shuffled = benchmark_rows()[:15][::-1]  # the unique rows, in another order
    b = export_benchmark(shuffled, tmp_path / "b", split_mode="signature_disjoint")
    assert a["manifest_sha256"] == b["manifest_sha256"]
    for name in ("all.jsonl", "tasks.json", "manifest.sha256"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_redacted_export_leaks_no_value(tmp_path: Path) -> None:
    rows = [*benchmark_rows()[:15], ledger_row(
        "Which accounts are owned by O'Hearn, Kant or Kantor with gender M?", OHEARN_CYPHER,
        literals=["O'Hearn", "Kant", "Kantor", "M"], entities=["O'Hearn"],
        rows=[{"a.accountId": "Kantor-7", "a.nickname": "Kant"}])]  # fmt: skip
    plain = export_benchmark(rows, tmp_path / "plain")
    summary = export_benchmark(rows, tmp_path / "red", redact=True)
    assert summary["redaction"]["findings"] == 0 and summary["redaction"]["values"] > 0
    assert summary["by_split"] == plain["by_split"]
    plain_ids = [r["id"] for r in read_jsonl(tmp_path / "plain" / "all.jsonl")]
    assert [r["id"] for r in read_jsonl(tmp_path / "red" / "all.jsonl")] == plain_ids
    blob = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "red").iterdir())
    for value in ["O'Hearn", "Kant", "Tag1", *(f"Person{i:02d}" for i in range(12))]:
        assert value not in blob
    assert "__VALUE_001__" in blob


def test_export_row_of_a_gated_ledger_row() -> None:
    cypher = "MATCH (p:Person {name: 'Kant'})-[:own]->(a:Account) RETURN a.accountId"
    ledger = ledger_row("Which accounts does Kant own?", cypher, signature="sig-k")
    analysis = ledger["validation"]
    row = export_row(ledger)
    assert "validation" not in row
    for key in ("substructures", "operator_combination", "issues", "syntax_error"):
        assert key not in row
    assert row["structural_features"] == analysis["structural_features"]
    assert row["signature"] == "sig-k" and row["difficulty"] == "easy"
    assert row["normalized_cypher"] == analysis["normalized_cypher"]
    assert row["string_literals"] == ["Kant"]  # the ledger's values, not the spans
    assert row["gates"]["syntax_valid"] and row["gates"]["read_only"]
    bare = {k: v for k, v in ledger.items() if k not in ("signature", "difficulty")}
    fallback = export_row(bare)  # from the analysis in validation
    assert fallback["signature"] == analysis["signature"]
    assert fallback["difficulty"] == analysis["difficulty"]


def test_failed_audit_raises_and_writes_nothing(tmp_path: Path) -> None:
    leaky = ledger_row(
        "Which accounts does Kant own?",
        # the variable is named after the value: outside any literal, so it survives
        "MATCH (Kant:Person {name: 'Kant'})-[:own]->(a:Account) RETURN a.accountId",
        literals=["Kant"],
    )
    out = tmp_path / "bench"
    with pytest.raises(RedactionAuditError, match="cypher"):
        export_benchmark([leaky], out, redact=True)
    assert not out.exists() and list(tmp_path.iterdir()) == []
    export_benchmark(benchmark_rows(), out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(RedactionAuditError):
        export_benchmark([leaky], out, redact=True)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    # a query the parser rejects has no literals to replace (the gates give it no
    # string_literals): its entity value survives in the Cypher and fails the audit
    broken = ledger_row(
        "Which accounts does Kantor own?",
        "MATCH (p:Person {name: 'Kantor'}-[:own]->(a:Account) RETURN a.accountId",
        entities=["Kantor"],
    )
    assert broken["string_literals"] == [] and not broken["validation"]["syntax_valid"]
    with pytest.raises(RedactionAuditError, match="cypher"):
        export_benchmark([*benchmark_rows()[:15], broken], out, redact=True)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["bench"]


def test_interrupted_export_leaves_no_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "bench"
    export_benchmark(benchmark_rows(), out)
    real_replace = os.replace
    calls: list[str] = []

    def failing_replace(src: Any, dst: Any) -> None:
        calls.append(str(dst))
        if len(calls) == 3:
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(export_mod.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        export_benchmark(benchmark_rows()[:5], out)
    assert not (out / "manifest.sha256").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bench"]


def test_to_nl2cypher_of_a_truncated_answer_has_no_answer() -> None:
    row = export_row(ledger_row("q?", "RETURN 1", rows=[{"n": i} for i in range(9)]))
    task = to_nl2cypher(row)
    assert list(task) == list(TASK_FIELDS) and task["answer_json"] is None
    assert to_nl2cypher(ledger_row("q?", "RETURN 1", rows=[{"n": 1}]))["answer_json"] == "[[1]]"
    assert template_family(row) == "template:which accounts are owned by person slot"
    assert template_family({"template_metadata": {"schema_template_kind": "count"}}) == (
        "schema:count"
    )


# -- judge -------------------------------------------------------------------------------


def test_deterministic_judge_scores() -> None:
    ok = deterministic_judge(schema_valid=True, execution_success=True, empty=False)
    assert ok == {
        "passed": True,
        "ambiguity_score": 0.2,
        "semantic_alignment_score": 0.85,
        "schema_use_score": 1.0,
        "difficulty": "unknown",
        "failure_reason": "",
    }
    empty = deterministic_judge(
        schema_valid=True, execution_success=True, empty=True, difficulty="hard"
    )
    assert not empty["passed"] and empty["semantic_alignment_score"] == 0.65
    assert empty["failure_reason"] == "execution returned no rows" and empty["difficulty"] == "hard"
    invalid = deterministic_judge(schema_valid=False, execution_success=False, empty=True)
    assert not invalid["passed"]
    assert invalid["semantic_alignment_score"] == 0.0 and invalid["schema_use_score"] == 0.0


VERDICT = {
    "pass": True,
    "ambiguity_score": 0.1,
    "semantic_alignment_score": 0.9,
    "schema_use_score": 1.0,
    "difficulty": "medium",
    "failure_reason": "",
}


@pytest.fixture
def judge_server() -> Iterator[ChatCompletionsTestDouble]:
    replies: dict[str, Callable[[], str]] = {
        "good": lambda: "Here is my verdict:\n```json\n" + json.dumps(VERDICT) + "\n```\nDone.",
        "prose": lambda: "Sure! " + json.dumps({**VERDICT, "difficulty": "??"}) + " {not json}",
        "weak": lambda: json.dumps({**VERDICT, "semantic_alignment_score": 0.5}),
        "broken": lambda: "I think it passes, {pass: yes}",
        "badscore": lambda: json.dumps({**VERDICT, "schema_use_score": "high"}),
    }

    def reply(messages: list[dict[str, str]]) -> str:
        content = last_user_content(messages)
        return next(fn() for key, fn in replies.items() if f"Question:\n{key}\n" in content)

    with ChatCompletionsTestDouble(reply=reply) as double:
        yield double


def judge(client: LLMClient, question: str, strict: bool = False) -> dict[str, Any]:
    return llm_judge(
        client,
        question=question,
        cypher="MATCH (a:Account) RETURN count(a)",
        schema_slice={"node_properties": [{"label": "Account", "property": "id"}]},
        rows=[{"n": i} for i in range(7)],
        validation_summary={"ok": True, "issues": []},
        difficulty="easy",
        strict=strict,
    )


def test_llm_judge_prompt_and_parsing(judge_server: ChatCompletionsTestDouble) -> None:
    with LLMClient(judge_server.url, "judge-model") as client:
        assert judge(client, "good") == {
            "passed": True,
            "ambiguity_score": 0.1,
            "semantic_alignment_score": 0.9,
            "schema_use_score": 1.0,
            "difficulty": "medium",
            "failure_reason": "",
        }
        prose = judge(client, "prose")
        assert prose["passed"] and prose["difficulty"] == "easy"
        for malformed in ("broken", "badscore"):
            verdict = judge(client, malformed)
            assert not verdict["passed"] and verdict["failure_reason"] == "judge_parse_error"
    messages = judge_server.requests[0]["messages"]
    assert messages[0]["role"] == "system" and "JSON" in messages[0]["content"]
    user = messages[1]["content"]
    assert "MATCH (a:Account) RETURN count(a)" in user and '"label": "Account"' in user
    assert '{"n": 4}' in user and '{"n": 5}' not in user  # at most 5 rows
    assert '"issues": []' in user
    for key in ("pass", "ambiguity_score", "semantic_alignment_score", "failure_reason"):
        assert f'"{key}"' in user


def test_llm_judge_strict_applies_thresholds(judge_server: ChatCompletionsTestDouble) -> None:
    with LLMClient(judge_server.url, "judge-model") as client:
        assert judge(client, "weak")["passed"]  # compat: the pass flag alone
        strict = judge(client, "weak", strict=True)
        assert not strict["passed"] and strict["failure_reason"] == "below judge threshold"
        assert judge(client, "good", strict=True)["passed"]


REJECTED: dict[str, Any] = {
    "passed": False,
    "ambiguity_score": 0.3,
    "semantic_alignment_score": 0.6,
    "schema_use_score": 0.5,
    "difficulty": "easy",
    "failure_reason": "The result row value 'Retail Banking' is not one of the allowed values "
    "('Savings', 'Checking') of Account.accountType.",
}
CATEGORICAL = {"Account.accountType": ["Savings", "Checking"]}
CYPHER = "MATCH (a:Account) WHERE a.isBlocked = true RETURN a.accountId, a.accountType"
ROWS = [{"a.accountId": "1", "a.accountType": "Retail Banking"}]


def test_override_keeps_both_verdicts() -> None:
    final, info = apply_override(REJECTED, ROWS, CATEGORICAL, cypher=CYPHER)
    assert final == {
        "passed": True,
        "ambiguity_score": 0.2,
        "semantic_alignment_score": 0.85,
        "schema_use_score": 1.0,
        "difficulty": "easy",
        "failure_reason": "",
    }
    assert info == {
        "rule": "categorical_result_value_guard",
        "original": REJECTED,
        "cited_values": ["Retail Banking"],
    }


def test_override_leaves_other_rejections() -> None:
    cases = [
        (REJECTED, [], CYPHER, []),  # no result rows
        (REJECTED, ROWS, CYPHER, [{"code": "invalid_categorical_value"}]),
        ({**REJECTED, "failure_reason": "The query ignores 'Retail Banking'."}, ROWS, CYPHER, []),
        (  # the cited value is the query's own literal, and the rows are not mentioned
            {**REJECTED, "failure_reason": "'Retail Banking' is not an allowed value."},
            ROWS,
            CYPHER + " AND a.accountType = 'Retail Banking'",
            [],
        ),
        (  # also cites a value that is neither a result nor categorical
            {**REJECTED, "failure_reason": REJECTED["failure_reason"] + " Also 'Barry' is wrong."},
            ROWS,
            CYPHER,
            [],
        ),
    ]
    for verdict, rows, cypher, issues in cases:
        final, info = apply_override(verdict, rows, CATEGORICAL, cypher=cypher, issues=issues)
        assert info is None and final == verdict
    generic = {**REJECTED, "failure_reason": "Result rows show a value outside the valid values."}
    assert apply_override(generic, ROWS, CATEGORICAL, cypher=CYPHER)[1] is not None
    passed = {**REJECTED, "passed": True}
    assert apply_override(passed, ROWS, CATEGORICAL) == (passed, None)


def test_judge_calibration_kappa() -> None:
    pairs = [(True, True)] * 40 + [(False, True)] * 16 + [(False, False)] * 24
    result = judge_calibration(pairs)
    assert result["n"] == 80
    assert (result["true_accept"], result["false_accept"]) == (40, 0)
    assert (result["false_reject"], result["true_reject"]) == (16, 24)
    assert result["agreement"] == pytest.approx(0.80)
    assert result["precision"] == pytest.approx(1.00)
    assert result["recall"] == pytest.approx(0.714, abs=5e-4)
    assert result["kappa"] == pytest.approx(0.60)
    assert judge_calibration([])["kappa"] == 0.0
    assert judge_calibration([(True, True)] * 3)["kappa"] == 1.0


def test_exported_syntax_gate_is_pipe_cyphers_g2_verdict() -> None:
    """A reserved variable name (``exists``) parses, as Neo4j parses it, but fails PIPE-Cypher's
    G2 policy: the export's ``gates.syntax_valid`` and the selection's quality score follow
    G2 (``g2_valid``), not the bare parse."""
    from kgbench.generate.pipe.pipeline import quality_score

    ok = ledger_row("Which people are there?", "MATCH (p:Person) RETURN p.name")
    reserved = ledger_row("Which people are there?", "MATCH (exists:Person) RETURN exists.name")
    assert reserved["validation"]["syntax_valid"] is True
    assert reserved["validation"]["g2_valid"] is False
    assert export_row(ok, 0)["gates"]["syntax_valid"] is True
    assert export_row(reserved, 1)["gates"]["syntax_valid"] is False
    assert quality_score(reserved) < quality_score(ok)
    # rows written before g2_valid existed keep their syntax_valid verdict
    legacy = {**ok, "validation": {k: v for k, v in ok["validation"].items() if k != "g2_valid"}}
    assert export_row(legacy, 2)["gates"]["syntax_valid"] is True
