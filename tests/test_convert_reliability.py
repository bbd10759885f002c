"""Reliability of ``kgbench convert`` (issue 18): language tags as Wikidata writes
them, ``--skip-invalid`` at the smallest unit, byte-order marks, wide QIDs and
non-item subjects, stale output, schema holes.

Fixtures are real Wikidata data (tests/data/wikidata, see its NOTICE), edited in
the test where a defect needs a particular shape.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import rdflib

from convert_helpers import DATE_OF_BIRTH, person_schema, run_kgbench, write_schema
from kgbench._core import convert as native
from kgbench.convert import convert, validate_schema
from kgbench.errors import InputError

DATA = Path(__file__).parent / "data" / "wikidata"
Q42 = DATA / "Q42.ttl"
CHUNK = DATA / "small_dump_chunk.ttl"

SCHEMA = person_schema(
    DATE_OF_BIRTH, {"label": "occupation", "wd_source": "P106", "datatype": "list[str]"}
)

RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"

# The first line of the wd:Q42 block of Q42.ttl (EntityData Turtle, 2024-04).
Q42_BLOCK = "wd:Q42 wdt:P31 wd:Q5 ;\n"

# Wikidata language codes that are not BCP 47 (or not canonical), as in its dumps.
WIKIDATA_CODES = [
    "zh-classical",
    "be-tarask",
    "roa-tara",
    "simple",
    "nds-nl",
    "bat-smg",
    "zh-min-nan",
    "fiu-vro",
    "map-bms",
    "de-formal",
    "mo",
]


def _q42_with(tmp_path: Path, first_lines: str, name: str = "Q42x.ttl") -> Path:
    """Q42.ttl with `first_lines` put at the start of the wd:Q42 block, before its
    wdt:P31 (as in Q513-munged.ttl, where a `@zh-classical` label comes before the
    item's P31 in one statement of ~300 triples)."""
    text = Q42.read_text(encoding="utf-8")
    assert text.count(Q42_BLOCK) == 1
    text = text.replace(Q42_BLOCK, "wd:Q42 " + first_lines + "\twdt:P31 wd:Q5 ;\n")
    out = tmp_path / name
    out.write_text(text, encoding="utf-8")
    return out


def _rdflib_count(path: Path, fmt: str) -> int:
    g = rdflib.Graph()
    g.parse(path, format=fmt)
    return len(g)


def _ours(path: Path, fmt: str | None = None) -> list[tuple[Any, ...]]:
    return list(native.parse_rdf([str(path)], format=fmt))


def test_wikidata_language_codes_in_turtle_are_read_as_rdflib_reads_them(
    tmp_path: Path,
) -> None:
    labels = "".join(f'rdfs:label "Douglas Adams ({c})"@{c} ;\n\t' for c in WIKIDATA_CODES)
    path = _q42_with(tmp_path, labels)
    ours = _ours(path)
    assert len(ours) == len(set(ours)) == _rdflib_count(path, "turtle")
    langs = {t[5] for t in ours if t[1].endswith("#label")}
    assert set(WIKIDATA_CODES) <= langs
    graph, report = convert(SCHEMA, path)
    (adams,) = graph["entities"]
    assert adams["name"] == "Douglas Adams"
    assert adams["properties"]["date_of_birth"] == "1952-03-11"
    assert report["invalid_skipped"] == 0


def test_wikidata_language_codes_in_ntriples(tmp_path: Path) -> None:
    """N-Triples read these codes already (the fast path follows the grammar); kept
    as a guard, the reference path's own test is in rust (convert::input)."""
    lines = [
        f'<http://www.wikidata.org/entity/Q42> <{RDFS_LABEL}> "x"@{c} .' for c in WIKIDATA_CODES
    ]
    # The same lines in shapes the fast path leaves to oxttl: no space before the
    # dot, and a comment glued to it.
    lines += [
        f'<http://www.wikidata.org/entity/Q42> <http://schema.org/name> "y"@{c}.#c'
        for c in WIKIDATA_CODES
    ]
    path = tmp_path / "codes.nt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ours = _ours(path)
    assert len(ours) == _rdflib_count(path, "nt") == 2 * len(WIKIDATA_CODES)
    assert sorted({t[5] for t in ours}) == sorted(WIKIDATA_CODES)


def test_skip_invalid_in_turtle_skips_one_triple_not_the_statement(tmp_path: Path) -> None:
    clean = _q42_with(tmp_path, 'rdfs:label "Douglas Adams"@zh-classical ;\n\t', "clean.ttl")
    bad = _q42_with(
        tmp_path,
        'rdfs:label "Douglas Adams"@zh-classical ;\n\twdt:P1 <not an iri> ;\n\t',
        "bad.ttl",
    )
    ref_graph, ref = convert(SCHEMA, clean)
    graph, report = convert(SCHEMA, bad, skip_invalid=True)
    assert report["invalid_skipped"] == 1
    assert report["triples_read"] == ref["triples_read"] == _rdflib_count(clean, "turtle")
    assert graph == ref_graph
    (example,) = report["invalid_examples"]
    line = bad.read_text(encoding="utf-8").splitlines().index("\twdt:P1 <not an iri> ;") + 1
    assert example.startswith(f"{bad}:{line}:")


def test_turtle_syntax_error_names_line_offset_and_excerpt(tmp_path: Path) -> None:
    bad = _q42_with(
        tmp_path,
        'rdfs:label "Douglas Adams"@zh-classical ;\n\twdt:P1 <not an iri> ;\n\t',
        "bad.ttl",
    )
    data = bad.read_bytes()
    line_no = bad.read_text(encoding="utf-8").splitlines().index("\twdt:P1 <not an iri> ;") + 1
    with pytest.raises(InputError) as exc:
        convert(SCHEMA, bad)
    msg = str(exc.value)
    assert f"bad.ttl: line {line_no}, byte offset " in msg
    offset = int(msg.split("byte offset ")[1].split(":")[0])
    line_start = sum(len(x) for x in data.splitlines(keepends=True)[: line_no - 1])
    assert line_start <= offset < line_start + len(data.splitlines()[line_no - 1])
    assert msg.endswith("in: \twdt:P1 <not an iri> ;")


def test_a_turtle_chunk_with_a_language_code_keeps_every_triple(tmp_path: Path) -> None:
    """small_dump_chunk.ttl (a dump chunk with repeated prefix blocks) with its
    French name re-tagged @zh-classical: same triple count as rdflib."""
    text = CHUNK.read_text(encoding="utf-8")
    i = text.index('"@fr ')
    path = tmp_path / "chunk.ttl"
    path.write_text(text[: i + 1] + "@zh-classical" + text[i + 4 :], encoding="utf-8")
    assert len(set(_ours(path))) == _rdflib_count(path, "turtle") == len(set(_ours(CHUNK)))


@pytest.mark.parametrize("fmt", ["nt", "ttl"])
def test_byte_order_mark_is_skipped(tmp_path: Path, fmt: str) -> None:
    if fmt == "ttl":
        body = Q42.read_bytes()
    else:
        body = "".join(
            f"<{s}> <{p}> <{v}> .\n"
            for s, p, kind, v, _, _ in _ours(Q42)
            if kind == "iri" and not s.startswith("_:")
        ).encode()
    plain = tmp_path / f"plain.{fmt}"
    plain.write_bytes(body)
    marked = tmp_path / f"bom.{fmt}"
    marked.write_bytes(b"\xef\xbb\xbf" + body)
    assert _ours(marked) == _ours(plain)
    # stdin too (format sniffed after the mark)
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from kgbench._core import convert as n; print(len(n.parse_rdf(['-'])))",
        ],
        input=marked.read_bytes(),
        capture_output=True,
        check=True,
    )
    assert int(proc.stdout) == len(_ours(plain))


# ---------------------------------------------------------------- defect 3: wide QIDs


@pytest.mark.parametrize("qid", ["Q4294967297", "Q9703000031", "Q18446744073709551615"])
def test_items_beyond_32_bit_ids_are_converted(tmp_path: Path, qid: str) -> None:
    """Q42.ttl with Douglas Adams renumbered: the same entity, under its new id."""
    import re

    text = re.sub(r"wd:Q42\b", f"wd:{qid}", Q42.read_text(encoding="utf-8"))
    path = tmp_path / f"{qid}.ttl"
    path.write_text(text, encoding="utf-8")
    ref_graph, ref = convert(SCHEMA, Q42)
    graph, report = convert(SCHEMA, path, max_entities_per_root=10)
    (adams,) = graph["entities"]
    (ref_adams,) = ref_graph["entities"]
    assert adams["eid"] == f"Person#{qid}"
    assert {**adams, "eid": ref_adams["eid"]} == ref_adams
    assert report["facts_kept"] == ref["facts_kept"]


def test_lexeme_and_property_subjects_are_counted(tmp_path: Path) -> None:
    wd = "http://www.wikidata.org/entity/"
    lines = [
        f'<{wd}L7> <{RDFS_LABEL}> "lemma"@en .',
        f"<{wd}L7> <http://www.wikidata.org/prop/direct/P31> <{wd}Q5> .",
        f'<{wd}L7-S1> <http://www.w3.org/2004/02/skos/core#altLabel> "sense"@en .',
        f'<{wd}P569> <{RDFS_LABEL}> "date of birth"@en .',
        f"<{wd}P569> <http://www.wikidata.org/prop/direct/P31> <{wd}Q5> .",
        f'<{wd}M5> <{RDFS_LABEL}> "a media file"@en .',
        # not counted: not a triple the schema would use
        f'<{wd}P570> <{RDFS_LABEL}> "date of death"@de .',
    ]
    extra = tmp_path / "non_items.nt"
    extra.write_text("\n".join(lines) + "\n", encoding="utf-8")
    graph, report = convert(SCHEMA, [Q42, extra])
    assert len(graph["entities"]) == 1
    assert report["non_item_subjects_ignored"] == {
        "lexeme": {"triples": 3, "entities": 1},
        "property": {"triples": 2, "entities": 1},
        "other": {"triples": 1, "entities": 1},
    }
    _, clean = convert(SCHEMA, Q42)
    assert clean["non_item_subjects_ignored"]["lexeme"] == {"triples": 0, "entities": 0}


# ---------------------------------------------------------------- defect 8: schema holes


def _person(*props: dict[str, Any], relation_props: list[dict[str, Any]] | None = None) -> dict:
    schema = person_schema(*props, name="s")
    schema["entities"].append({"label": "City", "wd_source": "Q515", "properties": []})
    if relation_props is not None:
        schema["relations"].append(
            {
                "label": "bornIn",
                "wd_source": "P19",
                "subj_label": "Person",
                "obj_label": "City",
                "properties": relation_props,
            }
        )
    return schema


def test_duplicate_property_label_is_refused(tmp_path: Path) -> None:
    schema = _person(
        {"label": "born", "wd_source": "P569", "datatype": "date"},
        {"label": "born", "wd_source": "P19", "datatype": "str"},
    )
    problems = validate_schema(schema)
    assert any(
        p.startswith('$.entities[0].properties[1].label: duplicate property label "born"')
        and "$.entities[0].properties[0]" in p
        for p in problems
    ), problems
    with pytest.raises(InputError, match=r"\$\.entities\[0\]\.properties\[1\]\.label"):
        convert(schema, Q42, tmp_path / "out")
    # a disabled twin is no duplicate (nothing of it reaches the graph)
    ok = _person(
        {"label": "born", "wd_source": "P569", "datatype": "date"},
        {"label": "born", "wd_source": "P19", "datatype": "str", "disable": True},
    )
    assert validate_schema(ok) == []
    rel = _person(
        relation_props=[
            {"label": "since", "wd_source": "P580", "datatype": "date"},
            {"label": "since", "wd_source": "P585", "datatype": "date"},
        ]
    )
    assert any(
        p.startswith("$.relations[0].properties[1].label: duplicate") for p in validate_schema(rel)
    )


@pytest.mark.parametrize("name", ["name", "eid", "aliases", "description", "provenance"])
def test_entity_property_named_like_an_entity_field_is_refused(name: str) -> None:
    problems = validate_schema(_person({"label": name, "wd_source": "P1477", "datatype": "str"}))
    assert any(
        p.startswith(f'$.entities[0].properties[0].label: "{name}" is reserved') for p in problems
    ), problems


@pytest.mark.parametrize("name", ["rid", "provenance"])
def test_relation_property_named_like_a_relation_field_is_refused(name: str) -> None:
    problems = validate_schema(
        _person(relation_props=[{"label": name, "wd_source": "P580", "datatype": "date"}])
    )
    assert any(
        p.startswith(f'$.relations[0].properties[0].label: "{name}" is reserved') for p in problems
    ), problems
    # `name` is an ordinary relation property
    assert (
        validate_schema(
            _person(relation_props=[{"label": "name", "wd_source": "P580", "datatype": "date"}])
        )
        == []
    )


def test_unit_of_the_wrong_dimension_is_refused() -> None:
    height_kg = {
        "label": "height",
        "wd_source": "P2048",
        "datatype": "float",
        "quantity_unit": "kilogram",
        "quantity_convert_unit": True,
    }
    problems = validate_schema(_person(height_kg))
    assert any(
        p.startswith('$.entities[0].properties[0].quantity_unit: unit "kilogram" measures a mass')
        and "P2048 takes a length" in p
        for p in problems
    ), problems
    assert validate_schema(_person({**height_kg, "quantity_unit": "foot"})) == []
    # relation properties too
    problems = validate_schema(
        _person(relation_props=[{**height_kg, "wd_source": "P2067", "quantity_unit": "metre"}])
    )
    assert any(
        p.startswith("$.relations[0].properties[0].quantity_unit:") and "P2067 takes a mass" in p
        for p in problems
    ), problems


# ---------------------------------------------------------------- defect 7: stale output

OUTPUTS = ["graph.json", "report.json", "entities.parquet", "relations.parquet"]


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if ".kgbench-" in p.name)


def test_failed_convert_leaves_no_previous_output(tmp_path: Path) -> None:
    out = tmp_path / "out"
    convert(SCHEMA, Q42, out)
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUTS)
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    bad = _q42_with(tmp_path, "wdt:P1 <not an iri> ;\n\t", "bad.ttl")
    with pytest.raises(InputError, match=r"bad\.ttl: line"):
        convert(SCHEMA, bad, out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert _leftovers(tmp_path) == [] and _leftovers(out) == []
    # a bad schema too
    convert(SCHEMA, Q42, out)
    with pytest.raises(InputError, match=r"\$\.entities"):
        convert({**SCHEMA, "entities": [{}]}, Q42, out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_no_parquet_removes_the_previous_parquet(tmp_path: Path) -> None:
    out = tmp_path / "out"
    convert(SCHEMA, Q42, out)
    convert(SCHEMA, Q42, out, parquet=False)
    assert sorted(p.name for p in out.iterdir()) == ["graph.json", "report.json"]
    assert _leftovers(tmp_path) == []


def test_cli_failure_leaves_no_complete_looking_output(tmp_path: Path) -> None:
    out = tmp_path / "out"
    schema = write_schema(tmp_path / "schema.json", SCHEMA)
    cli = ["convert", "--schema", str(schema), "-q"]
    assert run_kgbench(*cli, str(Q42), "--out", str(out)).returncode == 0
    bad = _q42_with(tmp_path, "wdt:P1 <not an iri> ;\n\t", "bad.ttl")
    proc = run_kgbench(*cli, str(bad), "--out", str(out))
    assert proc.returncode != 0 and "bad.ttl" in proc.stderr
    assert list(out.iterdir()) == []
