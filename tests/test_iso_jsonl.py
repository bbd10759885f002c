"""The bulk GTSQA JSONL path (``isomorphism_types_jsonl``, ``classify_gtsqa_jsonl``):
agreement with ``json.loads`` + the list API, gzip input, errors naming file:line.

Data: tests/data/iso/gtsqa_sample.jsonl (see tests/test_iso_cli.py) and records
generated here.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgbench.errors import InputError
from kgbench.iso import (
    InvalidAnswerSubgraph,
    InvalidIsomorphismType,
    InvalidRecord,
    analyze_answer_subgraph,
    canonical_isomorphism_type,
    classify_gtsqa_jsonl,
    isomorphism_types,
    isomorphism_types_jsonl,
)

SAMPLE = Path(__file__).parent / "data" / "iso" / "gtsqa_sample.jsonl"


def python_reference(text: str) -> tuple[list[dict[str, Any]], list[str | None]]:
    records = [json.loads(line) for line in text.split("\n") if line.strip()]
    return records, isomorphism_types(records)


def expected_given(records: list[dict[str, Any]], types: list[str | None]) -> tuple[int, int, int]:
    same = reordered = different = 0
    for record, identifier in zip(records, types, strict=True):
        if "graph_isomorphism" not in record:
            continue
        value = record["graph_isomorphism"]
        if value == identifier:
            same += 1
            continue
        try:
            canonical = canonical_isomorphism_type(value) if isinstance(value, str) else None
        except InvalidIsomorphismType:
            canonical = None
        if canonical is not None and canonical == identifier:
            reordered += 1
        else:
            different += 1
    return same, reordered, different


def test_sample_file_matches_list_api(tmp_path: Path) -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    records, expected = python_reference(text)
    result = classify_gtsqa_jsonl(SAMPLE)
    assert result.types == expected == ["((1)(1)(1))", "(2)(1)", "(1)", None, None]
    assert result.counts == {"((1)(1)(1))": 1, "(2)(1)": 1, "(1)": 1}
    assert result.invalid == [
        InvalidRecord(3, 4, ("missing_seeds", "disconnected", "hanging_branches")),
        InvalidRecord(4, 5, ("cycle", "internal_seeds")),
    ]
    assert result.given == (1, 1, 0) == expected_given(records, expected)
    assert result.lines == 5
    assert isomorphism_types_jsonl(str(SAMPLE)) == expected


def test_gzip_input_by_magic_bytes(tmp_path: Path) -> None:
    data = SAMPLE.read_bytes()
    for name in ("sample.jsonl.gz", "sample_without_suffix.jsonl"):
        path = tmp_path / name
        path.write_bytes(gzip.compress(data))
        assert isomorphism_types_jsonl(path) == isomorphism_types_jsonl(SAMPLE)
    # Two gzip members (as `cat a.gz b.gz` makes) are one stream.
    two = tmp_path / "two.jsonl.gz"
    two.write_bytes(gzip.compress(data) + gzip.compress(data))
    assert isomorphism_types_jsonl(two) == 2 * isomorphism_types_jsonl(SAMPLE)
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress(data)[:-30])
    with pytest.raises(InputError, match=r"broken\.jsonl\.gz: cannot read"):
        isomorphism_types_jsonl(broken)


def test_blank_lines_crlf_empty_file(tmp_path: Path) -> None:
    line = '{"answer_subgraph": [["a", "P1", "s"]], "answer_node": "a", "seed_entities": ["s"]}'
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(f"\r\n{line}\r\n  \n\t\n{line}".encode())
    result = classify_gtsqa_jsonl(path)
    assert result.types == ["(1)", "(1)"]
    assert result.lines == 5
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert isomorphism_types_jsonl(empty) == []


def test_on_invalid_raise_names_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidAnswerSubgraph) as info:
        isomorphism_types_jsonl(SAMPLE, on_invalid="raise")
    assert str(info.value) == (
        f"{SAMPLE}:4: invalid answer subgraph: missing_seeds, disconnected, hanging_branches"
    )
    assert info.value.defects == ("missing_seeds", "disconnected", "hanging_branches")
    assert info.value.index == 3
    with pytest.raises(ValueError, match="on_invalid"):
        isomorphism_types_jsonl(SAMPLE, on_invalid="skip")  # type: ignore[arg-type]


GOOD = '{"answer_subgraph": [["a", "P1", "s"]], "answer_node": "a", "seed_entities": ["s"]}'


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{oops", "invalid JSON: key must be a string (column 2)"),
        ('{"answer_subgraph": []', "invalid JSON: EOF while parsing an object"),
        ("[1, 2]", "invalid type: sequence, expected a JSON object (GTSQA record)"),
        ('{"answer_subgraph": [], "answer_node": "a"}', "missing field 'seed_entities'"),
        (
            '{"answer_subgraph": [], "answer_node": "a", "seed_entities": [], "answer_node": "b"}',
            "duplicate field 'answer_node'",
        ),
        (
            '{"answer_subgraph": "a P1 s", "answer_node": "a", "seed_entities": []}',
            'invalid type: string "a P1 s", expected answer_subgraph as a list of '
            "[head, relation, tail] triples",
        ),
        (
            '{"answer_subgraph": [], "answer_node": "a", "seed_entities": "s"}',
            'invalid type: string "s", expected seed_entities as a list of node ids (column 64)',
        ),
        (
            '{"answer_subgraph": [["a", "P1", "s"], ["a"]], "answer_node": "a", '
            '"seed_entities": []}',
            "invalid length 1, expected answer_subgraph edge 1 as a [head, relation, tail] "
            "triple or a [head, tail] pair",
        ),
        (
            '{"answer_subgraph": [["a", "P1", "s", "t", "u"]], "answer_node": "a", '
            '"seed_entities": []}',
            "invalid length 5, expected answer_subgraph edge 0",
        ),
        (
            '{"answer_subgraph": [], "answer_node": {"id": "a"}, "seed_entities": []}',
            "invalid type: map, expected a node id (string, number, boolean or null)",
        ),
        (f"{GOOD} {GOOD}", "invalid JSON: trailing characters"),
    ],
)
def test_bad_line_names_file_and_line(tmp_path: Path, bad: str, message: str) -> None:
    # 3000 good lines first (several 128 KiB pieces), then the bad one.
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([GOOD] * 1500 + [""] + [GOOD] * 1499 + [bad, GOOD]) + "\n")
    with pytest.raises(InputError) as info:
        isomorphism_types_jsonl(path)
    text = str(info.value)
    assert text.startswith(f"{path}:3001: ") and message in text, text


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"missing\.jsonl: cannot open"):
        isomorphism_types_jsonl(tmp_path / "missing.jsonl")


# --- agreement with json.loads + the list API on random records -----------------

#: Node ids of every JSON scalar kind, with ids that Python treats as equal
#: (1, 1.0, True) and strings that need escapes.
node_ids = st.one_of(
    st.sampled_from(["Q1", "Q2", "é", 'a"b', "a\\b", "\n", "1", "", "𝄞"]),
    st.text(max_size=3),
    st.integers(-3, 3),
    st.sampled_from([1.0, 2.0, 0.5, -0.0, True, False, None, 2**63, -(2**63)]),
)
relations = st.one_of(
    st.sampled_from(["P31", "P17"]), st.integers(), st.none(), st.just([1, {"x": []}])
)


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    n_edges = draw(st.integers(0, 7))
    ids = draw(st.lists(node_ids, min_size=n_edges + 1, max_size=n_edges + 1))
    edges: list[list[Any]] = []
    for child in range(1, n_edges + 1):
        parent = draw(st.integers(0, child - 1))
        head, tail = ids[parent], ids[child]
        if draw(st.booleans()):
            head, tail = tail, head
        edges.append([head, draw(relations), tail] if draw(st.booleans()) else [head, tail])
    if draw(st.integers(0, 9)) == 0 and n_edges:
        edges.append([draw(st.sampled_from(ids)), "P1", draw(node_ids)])
    edges = draw(st.permutations(edges))
    answer = draw(st.sampled_from(ids))
    seeds = draw(st.lists(st.sampled_from(ids), max_size=4))
    record: dict[str, Any] = {"id": draw(st.integers()), "seed_entities": seeds}
    record["answer_subgraph"] = edges
    record["answer_node"] = answer
    if draw(st.booleans()):
        record["graph_isomorphism"] = draw(
            st.one_of(st.none(), st.integers(), st.sampled_from(["(1)", "(1)(2)", "(2)(1)", "(("]))
        )
    return record


@settings(max_examples=60, deadline=None)
@given(st.lists(records(), max_size=40), st.booleans())
def test_agrees_with_json_loads_and_list_api(batch: list[dict[str, Any]], gz: bool) -> None:
    text = "".join(json.dumps(r, ensure_ascii=bool(i % 2)) + "\n" for i, r in enumerate(batch))
    expected_records, expected = python_reference(text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "records.jsonl"
        data = text.encode("utf-8")
        path.write_bytes(gzip.compress(data) if gz else data)
        result = classify_gtsqa_jsonl(path)
    assert result.types == expected
    assert result.given == expected_given(expected_records, expected)
    invalid = [
        InvalidRecord(
            i,
            i + 1,
            analyze_answer_subgraph(
                r["answer_subgraph"], r["answer_node"], r["seed_entities"]
            ).defects,
        )
        for i, (r, t) in enumerate(zip(expected_records, expected, strict=True))
        if t is None
    ]
    assert result.invalid == invalid
    counts: dict[str, int] = {}
    for t in expected:
        if t is not None:
            counts[t] = counts.get(t, 0) + 1
    assert result.counts == counts
