"""The fast paths of ``kgbench.convert`` give the same output as the plain ones:

- N-Triples blocks of any size (down to one byte, i.e. one line per block) and any
  thread count give byte-identical ``graph.json`` / ``report.json`` and the same
  syntax error positions;
- the Parquet pair made from the native table rows (CSV) equals the one
  :func:`kgbench.convert.write_parquet` makes from the Python graph, also for strings
  CSV must quote (commas, quotes, line ends, empty strings, control characters) and
  awkward numbers;
- ``return_graph=False`` writes the same files and returns no graph.
"""

from __future__ import annotations

import copy
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convert_helpers import BORN, DATE_OF_BIRTH, HEIGHT_CM, MALE, person_schema
from kgbench.convert import convert, read_graph, write_parquet
from kgbench.errors import InputError

sys.path.insert(0, str(Path(__file__).parent.parent / "benches"))
import gen_wikidata

DATA = Path(__file__).parent / "data" / "wikidata"
Q42 = DATA / "Q42.ttl"
BLOCK_ENV = "KGBENCH_CONVERT_BLOCK_BYTES"

#: The benchmark schema plus list[date] on entities and str / list[str] qualifier columns
#: on relations (the generated qualifier dates are too coarse for ``date``).
SCHEMA: dict[str, Any] = copy.deepcopy(gen_wikidata.BENCH_SCHEMA)
SCHEMA["entities"][0]["properties"].append(
    {"label": "birth_dates", "wd_source": "P569", "datatype": "list[date]"}
)
SCHEMA["relations"][1]["properties"].append(
    {"label": "start", "wd_source": "P580", "datatype": "str", "is_qualifier": True}
)
SCHEMA["relations"][1]["properties"].append(
    {"label": "starts", "wd_source": "P580", "datatype": "list[str]", "is_qualifier": True}
)


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("syn") / "syn.nt"
    gen_wikidata.generate(path, 40_000, seed=11)
    return path


def _files(out: Path) -> tuple[bytes, dict[str, Any]]:
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    for k in ("seconds_reading", "seconds_total"):
        report.pop(k)
    return (out / "graph.json").read_bytes(), report


def test_any_block_size_and_thread_count_give_identical_files(
    dump: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    convert(SCHEMA, dump, tmp_path / "ref", parquet=False)
    ref = _files(tmp_path / "ref")
    graph = json.loads(ref[0])
    assert graph["entities"] and graph["relations"]
    assert ref[1]["triples_read"] > 39_000
    # 1 byte: every line is its own block; 333: blocks end mid-line all the time.
    for block in (1, 333, 65_536):
        for threads in (1, 2, 3):
            monkeypatch.setenv(BLOCK_ENV, str(block))
            out = tmp_path / f"b{block}-t{threads}"
            convert(SCHEMA, dump, out, threads=threads, parquet=False)
            assert _files(out) == ref, (block, threads)


def test_syntax_error_position_does_not_depend_on_blocks(
    dump: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = dump.read_bytes().splitlines(keepends=True)
    bad = tmp_path / "bad.nt"
    lines.insert(20_000, b"<http://www.wikidata.org/entity/Q1> <http://x/p> broken .\n")
    bad.write_bytes(b"".join(lines))
    offset = sum(len(x) for x in lines[:20_000])
    messages = set()
    for block in (None, "1", "4096"):
        if block is None:
            monkeypatch.delenv(BLOCK_ENV, raising=False)
        else:
            monkeypatch.setenv(BLOCK_ENV, block)
        for threads in (1, 2):
            with pytest.raises(InputError) as err:
                convert(SCHEMA, bad, tmp_path / "out", threads=threads)
            messages.add(str(err.value))
    assert len(messages) == 1
    (msg,) = messages
    assert "line 20001," in msg
    m = re.search(r"byte offset (\d+)", msg)
    assert m and offset <= int(m.group(1)) < offset + len(lines[20_000])
    assert not (tmp_path / "out" / "graph.json").exists()
    # skip_invalid: counted, and the rest identical to the clean file
    monkeypatch.setenv(BLOCK_ENV, "777")
    convert(SCHEMA, bad, tmp_path / "skip", skip_invalid=True, parquet=False, threads=2)
    convert(SCHEMA, dump, tmp_path / "clean", parquet=False)
    g_skip, r_skip = _files(tmp_path / "skip")
    g_clean, r_clean = _files(tmp_path / "clean")
    assert g_skip == g_clean
    assert r_skip["invalid_skipped"] == 1 and r_skip["triples_read"] == r_clean["triples_read"]


#: The two Parquet tables of an output directory and their key-value metadata.
Frames = tuple[pl.DataFrame, pl.DataFrame, dict[str, str], dict[str, str]]


def _frames(d: Path) -> Frames:
    return (
        pl.read_parquet(d / "entities.parquet"),
        pl.read_parquet(d / "relations.parquet"),
        pl.read_parquet_metadata(d / "entities.parquet"),
        pl.read_parquet_metadata(d / "relations.parquet"),
    )


def _both_parquet_forms(
    schema: dict[str, Any], src: Path, tmp: Path
) -> tuple[dict[str, Any], Frames, Frames]:
    """Convert ``src`` into ``tmp/fast`` (Parquet from the native rows) and write the
    Parquet pair of the returned graph into ``tmp/slow`` (:func:`write_parquet`); assert
    the two tables are equal, with equal column types. (graph, fast frames, slow frames)"""
    graph, _ = convert(schema, src, tmp / "fast")
    assert graph is not None
    (tmp / "slow").mkdir()
    write_parquet(graph, tmp / "slow")
    fast, slow = _frames(tmp / "fast"), _frames(tmp / "slow")
    for a, b in zip(fast[:2], slow[:2], strict=True):
        assert a.schema == b.schema
        assert a.equals(b)
    return graph, fast, slow


@pytest.mark.parametrize("which", ["synthetic", "q42"])
def test_parquet_from_native_rows_equals_parquet_from_graph(
    which: str, dump: Path, tmp_path: Path
) -> None:
    schema, src = (SCHEMA, dump) if which == "synthetic" else (_q42_schema(), Q42)
    graph, fast, slow = _both_parquet_forms(schema, src, tmp_path)
    assert fast[0].height > 0  # (Q42 has no relations: the empty table path)
    assert fast[2:] == slow[2:]
    ents = fast[0]
    assert ents.schema["prop.Person.date_of_birth"] == pl.Date
    if which == "synthetic":
        assert ents.schema["prop.Person.birth_dates"] == pl.List(pl.Date)
        assert ents["prop.Person.birth_dates"].drop_nulls().len() > 0
        rels = fast[1]
        assert rels["prop.citizenOf(Person->Country).start"].drop_nulls().len() > 0
        assert rels.schema["prop.citizenOf(Person->Country).starts"] == pl.List(pl.String)
    (tmp_path / "fast" / "graph.json").unlink()
    assert read_graph(tmp_path / "fast") == graph


#: Strings the CSV rows must carry unchanged: quoting, line ends, escapes, words a CSV
#: reader might take for null, control characters, JSON-looking text.
AWKWARD = [
    "",
    ",",
    '"',
    '""',
    "a,b",
    "line\nbreak",
    "cr\r\nlf",
    "\r",
    "back\\slash",
    "NA",
    "null",
    " padded ",
    "[1,2]",
    '["x"]',
    "Zoë ß 東京",
    "\x00",
    "\x1f\x7f",
    "#hash",
    "tab\there",
    "'",
]
#: xsd:decimal lexical forms of Wikidata quantities (P2048 read as a float).
DECIMALS = ["+0.0000001", "-0", "+1.5", "+123456789012345678901234567890", "-2.5e0", "+0.1"]
WD = "http://www.wikidata.org/entity/"
P = "http://www.wikidata.org/prop/"
WDT = P + "direct/"


def _nt_literal(text: str) -> str:
    """``text`` as an N-Triples string (control characters as ``\\uXXXX``)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(AWKWARD), st.text(max_size=6)), min_size=1, max_size=8),
    st.lists(st.sampled_from(DECIMALS), min_size=1, max_size=8),
)
def test_parquet_rows_carry_any_string_and_number(texts: list[str], decimals: list[str]) -> None:
    schema = person_schema(
        {"label": "nickname", "wd_source": "P1449", "datatype": "str"},
        {"label": "nicknames", "wd_source": "P1449", "datatype": "list[str]"},
        {"label": "x", "wd_source": "P2048", "datatype": "float"},
    )
    lines = []
    for i, text in enumerate(texts):
        q = f"<{WD}Q{i + 1}>"
        others = [texts[(i + k) % len(texts)] for k in (1, 2)]
        decimal = f'"{decimals[i % len(decimals)]}"^^<http://www.w3.org/2001/XMLSchema#decimal>'
        lines += [
            f"{q} <{WDT}P31> <{WD}Q5> .",
            f"{q} <http://www.w3.org/2000/01/rdf-schema#label> {_nt_literal(text or 'n')}@en .",
            f"{q} <http://www.w3.org/2004/02/skos/core#altLabel> {_nt_literal(others[0])}@en .",
            f"{q} <http://schema.org/description> {_nt_literal(others[1])}@en .",
            f"{q} <{WDT}P1449> {_nt_literal(text)}@en .",
            f"{q} <{WDT}P1449> {_nt_literal(others[0])}@en .",
            f"{q} <{P}P2048> <{WD}statement/Q{i + 1}-x> .",
            f"<{WD}statement/Q{i + 1}-x> <{P}statement/P2048> {decimal} .",
            f"{q} <{WDT}P2048> {decimal} .",
        ]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "in.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        graph, fast, _ = _both_parquet_forms(schema, d / "in.nt", d)
        assert len(graph["entities"]) == len(texts)
        names = sorted(fast[0]["name"].to_list())
        assert names == sorted(e["name"] for e in graph["entities"])
        assert fast[0]["prop.Person.x"].null_count() < len(texts)


def _q42_schema() -> dict[str, Any]:
    return person_schema(
        DATE_OF_BIRTH,
        BORN,
        HEIGHT_CM,
        {"label": "occupations", "wd_source": "P106", "datatype": "list[str]"},
        MALE,
        {"label": "n", "wd_source": "$LINKED_TO(P21,Q6581097)", "datatype": "int"},
    )


def test_return_graph_false_writes_the_same_files(dump: Path, tmp_path: Path) -> None:
    graph, report = convert(SCHEMA, dump, tmp_path / "with")
    none, report2 = convert(SCHEMA, dump, tmp_path / "without", return_graph=False)
    assert none is None and graph is not None
    assert report2["entities"] == report["entities"]
    assert _files(tmp_path / "with") == _files(tmp_path / "without")
    for name in ("entities.parquet", "relations.parquet"):
        assert pl.read_parquet(tmp_path / "with" / name).equals(
            pl.read_parquet(tmp_path / "without" / name)
        )
    assert json.loads((tmp_path / "with" / "graph.json").read_bytes()) == graph
