"""`kgbench iso` end to end (subprocess), on tests/data/iso/gtsqa_sample.jsonl.

The sample holds the two worked examples of the seed's Appendix A.3 (the GTSQA
train record with graph_isomorphism ((1)(1)(1)), and the (2)(1) minimality
example, given here the non-canonical spelling (1)(2)), one (1) record and two
purpose-built invalid records (a missing seed; parallel edges).
"""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

from convert_helpers import run_kgbench

DATA = Path(__file__).parent / "data" / "iso" / "gtsqa_sample.jsonl"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_kgbench("iso", *args)


def test_frequency_table_and_out(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    proc = run_cli(str(DATA), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == [
        "isomorphism",
        "type",
        "GrailQA++",
        "hops",
        "edges",
        "seeds",
        "count",
        "%",
    ]
    rows = {line.split()[0]: line.split() for line in lines[1:4]}
    assert rows["((1)(1)(1))"] == ["((1)(1)(1))", "Iso-12", "2", "4", "3", "1", "20.00"]
    assert rows["(2)(1)"] == ["(2)(1)", "Iso-3", "2", "3", "2", "1", "20.00"]
    assert rows["(1)"] == ["(1)", "Iso-0", "1", "1", "1", "1", "20.00"]
    assert any(line.startswith("invalid: cycle, internal_seeds") for line in lines)
    assert any(line.startswith("invalid: missing_seeds, disconnected") for line in lines)
    assert "total: 5 records, 3 valid answer trees of 3 types, 2 invalid" in proc.stdout
    assert "1 identical, 1 the same type written in another order, 0 different" in proc.stdout

    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    original = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    assert [r["graph_isomorphism"] for r in written] == ["((1)(1)(1))", "(2)(1)", "(1)", None, None]
    for before, after in zip(original, written, strict=True):
        assert list(after)[: len(before)] == list(before)  # key order kept
        assert {k: v for k, v in after.items() if k != "graph_isomorphism"} == {
            k: v for k, v in before.items() if k != "graph_isomorphism"
        }
    assert not (tmp_path / "out.jsonl.tmp").exists()


def test_strict_fails_on_first_invalid_record() -> None:
    proc = run_cli(str(DATA), "--strict")
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        f"kgbench iso: error: {DATA}:4: invalid answer subgraph: "
        "missing_seeds, disconnected, hanging_branches"
    )


def test_bad_lines_name_file_and_line(tmp_path: Path) -> None:
    good = '{"answer_subgraph": [["a", "r", "s"]], "answer_node": "a", "seed_entities": ["s"]}'
    cases = {
        "not json": (f"{good}\n\n{{oops\n", ":3: invalid JSON"),
        "missing field": (
            f'{good}\n{{"answer_subgraph": [], "answer_node": "a"}}\n',
            ":2: missing field 'seed_entities'",
        ),
        "not an object": (
            f"{good}\n[1, 2]\n",
            ":2: invalid type: sequence, expected a JSON object (GTSQA record)",
        ),
        "bad edge": (
            f'{good}\n{good}\n{{"answer_subgraph": [["a", "s", "t", "u"]], "answer_node": "a", '
            '"seed_entities": ["s"]}\n',
            ":3: invalid length 4, expected answer_subgraph edge 0 as a [head, relation, tail] "
            "triple or a [head, tail] pair (column 41)",
        ),
        "unhashable node": (
            '{"answer_subgraph": [[{"id": 1}, "r", "s"]], "answer_node": "a", '
            '"seed_entities": []}\n',
            ":1: invalid type: map, expected a node id (string, number, boolean or null) "
            "(column 23)",
        ),
    }
    for name, (text, expected) in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.jsonl"
        path.write_text(text, encoding="utf-8")
        proc = run_cli(str(path))
        assert proc.returncode == 1, name
        assert f"{path}{expected}" in proc.stderr, (name, proc.stderr)
        assert "Traceback" not in proc.stderr
    proc = run_cli(str(tmp_path / "missing.jsonl"))
    assert proc.returncode == 1 and "cannot open" in proc.stderr


def test_help() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    assert "--out" in proc.stdout and "graph_isomorphism" in proc.stdout


def test_gzip_input_same_table_and_out(tmp_path: Path) -> None:
    gz = tmp_path / "sample.jsonl.gz"
    gz.write_bytes(gzip.compress(DATA.read_bytes()))
    plain_out, gz_out = tmp_path / "plain.jsonl", tmp_path / "gz.jsonl"
    plain = run_cli(str(DATA), "--out", str(plain_out))
    packed = run_cli(str(gz), "--out", str(gz_out))
    assert plain.returncode == packed.returncode == 0, packed.stderr
    assert packed.stdout.replace(str(gz_out), "OUT") == plain.stdout.replace(str(plain_out), "OUT")
    assert gz_out.read_text(encoding="utf-8") == plain_out.read_text(encoding="utf-8")


def test_out_bytes_plain_and_gzip(tmp_path: Path) -> None:
    """``--out`` writes each record as ``json.dumps(record, ensure_ascii=False)`` and a
    newline (the bytes of iso's own writer before it used :func:`kgbench.fileio.
    write_jsonl_atomic`), non-ASCII text kept; a ``.gz`` name gets the same bytes gzipped
    (level 9, the member named after the output), and no temporary file stays behind."""
    records = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    for i, record in enumerate(records):
        record["note"] = f'Zürich — 東京 \u2028 tab\t{i} "q" \\ 🎉'
    source = tmp_path / "in" / "records.jsonl"
    source.parent.mkdir()
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    types = ["((1)(1)(1))", "(2)(1)", "(1)", None, None]
    expected = "".join(
        json.dumps({**r, "graph_isomorphism": t}, ensure_ascii=False) + "\n"
        for r, t in zip(records, types, strict=True)
    ).encode("utf-8")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("typed.jsonl", "typed.jsonl.gz"):
        proc = run_cli(str(source), "--out", str(out / name))
        assert proc.returncode == 0, proc.stderr
    assert (out / "typed.jsonl").read_bytes() == expected
    packed = (out / "typed.jsonl.gz").read_bytes()
    assert gzip.decompress(packed) == expected
    assert packed[:4] == b"\x1f\x8b\x08\x08" and packed[8:10] == b"\x02\xff"  # FNAME, level 9
    assert packed[10:].split(b"\x00", 1)[0] == b"typed.jsonl"
    assert sorted(p.name for p in out.iterdir()) == ["typed.jsonl", "typed.jsonl.gz"]


def test_table_width_is_capped_for_large_trees(tmp_path: Path) -> None:
    """A star of 2,000 seeds has an identifier of 6,000 characters: the table's label column
    is cut to 60 characters with an ellipsis instead of padding every line to it (issue 18,
    defect 13); ``--out`` keeps the full identifier."""
    seeds = [f"S{i}" for i in range(2000)]
    big = {
        "id": 1,
        "seed_entities": seeds,
        "answer_node": "A",
        "answer_subgraph": [[s, "r", "A"] for s in seeds],
    }
    small = {
        "id": 2,
        "seed_entities": ["S"],
        "answer_node": "A",
        "answer_subgraph": [["S", "r", "A"]],
    }
    path, out = tmp_path / "big.jsonl", tmp_path / "out.jsonl"
    path.write_text(json.dumps(big) + "\n" + json.dumps(small) + "\n", encoding="utf-8")
    proc = run_cli(str(path), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) < 150
    full = "(1)" * 2000
    cut = next(line for line in lines if line.startswith("(1)(1)"))
    assert cut.split()[0] == full[:59] + "…"
    assert any(line.split()[0] == "(1)" for line in lines[1:])
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert written[0]["graph_isomorphism"] == full
