"""kgbench.convert on Wikidata entity JSON: the same graph as from the RDF of the same
entities, byte for byte.

Data (see tests/data/wikidata/NOTICE):

- wikibase-pairs/: real JSON/RDF pairs of the Wikibase software's own tests — the entity
  JSON (``repo/tests/phpunit/data/rdf/entities/Q*.json``) and the N-Triples Wikibase's
  RdfBuilder writes for it (``RdfBuilder/Q*_*.nt``; RdfBuilderTest::provideAddEntity says
  which files make one entity's RDF).
- wdtk/: real Wikidata entity JSON from Wikidata-Toolkit's tests (Q34987, a 2019 revision,
  as Special:EntityData gives it; a small dump in the ``latest-all.json`` layout). No RDF of
  the same revisions exists, so theirs is written from the JSON by the test-only writer
  ``tests/wikibase_json_writer.py`` (Wikibase's RdfBuilder mapping).
- Q42.ttl: real Wikidata Turtle (dump of 2024-04). No JSON of the same revision is
  available, so its JSON is written from the Turtle by the test-only writer
  ``tests/wikibase_json_writer.py``, which follows Wikibase's documented RDF mapping.
"""

from __future__ import annotations

import bz2
import copy
import gzip
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import rdflib

from kgbench.convert import convert
from kgbench.errors import InputError

sys.path.insert(0, str(Path(__file__).parent))
from convert_helpers import ACME, acme_schema, run_kgbench, write_schema
from wikibase_json_writer import dump_layout, entities_from_rdf, rdf_from_entities

DATA = Path(__file__).parent / "data" / "wikidata"
PAIRS = DATA / "wikibase-pairs"

# RdfBuilderTest::provideAddEntity: the RDF files of each entity's full RDF.
RDF_OF = {
    "Q2": ["Q2_meta", "Q2_version", "Q2_stub", "Q2_aliases"],
    "Q3": ["Q3_meta", "Q3_version", "Q3_sitelinks"],
    "Q4": ["Q4_meta", "Q4_version", "Q4_statements", "Q4_direct", "Q4_values"],
    "Q6": ["Q6_meta", "Q6_version", "Q6_statements", "Q6_qualifiers", "Q6_values", "Q6_referenced"],
    "Q7": [
        "Q7_meta",
        "Q7_version",
        "Q7_statements",
        "Q7_reference_refs",
        "Q7_references",
        "Q7_values",
    ],
    "Q8": ["Q8_baddates"],
}
# RdfBuilderTestData's property datatypes: Wikibase puts the property's datatype on every
# snak when it writes dump JSON; the test fixtures carry placeholders in places.
DATATYPES = {
    "P2": "wikibase-item",
    "P3": "commonsMedia",
    "P4": "globe-coordinate",
    "P5": "monolingualtext",
    "P6": "quantity",
    "P7": "string",
    "P8": "time",
    "P9": "url",
    "P10": "geo-shape",
    "P11": "external-id",
}
# Class membership and English labels for the fixture items (written for these tests, as
# tests/data/wikidata/kgbench/acme_classes.nt; Q2 has its own English label).
CLASSES_NT = """\
<http://acme.test/Q2> <http://acme.test/prop/direct/P31> <http://acme.test/Q100> .
<http://acme.test/Q3> <http://acme.test/prop/direct/P31> <http://acme.test/Q100> .
<http://acme.test/Q6> <http://acme.test/prop/direct/P31> <http://acme.test/Q100> .
<http://acme.test/Q3> <http://www.w3.org/2000/01/rdf-schema#label> "Three"@en .
<http://acme.test/Q6> <http://www.w3.org/2000/01/rdf-schema#label> "Six"@en .
"""

PROPS = [
    ("dates", "P8", "list[date]"),
    ("born", "P8", "list[str]"),
    ("year", "P8", "int"),
    ("word", "P5", "list[str]"),
    ("strings", "P7", "list[str]"),
    ("media", "P3", "list[str]"),
    ("coord", "P4", "list[str]"),
    ("qty", "P6", "list[str]"),
    ("qty_f", "P6", "float"),
    ("url", "P9", "list[str]"),
    ("shape", "P10", "list[str]"),
    ("ext", "P11", "list[str]"),
    ("target", "P2", "list[str]"),
]
ACME_SCHEMA = acme_schema(
    *(
        {"label": label, "wd_source": pid, "datatype": dt}
        | ({"is_year": True} if label == "year" else {})
        for label, pid, dt in PROPS
    ),
    relations=(
        {
            # Statement P7 with its qualifier P2 as the object, properties from qualifiers.
            "label": "qualified",
            "wd_source": "P7",
            "wd_qualifier_pid": "P2",
            "wd_rank_filter": "non_deprecated",
            "subj_label": "Thing",
            "obj_label": "Target",
            "properties": [
                {"label": label, "wd_source": pid, "datatype": dt, "is_qualifier": True}
                for label, pid, dt in PROPS
                if pid != "P2" and label != "year"
            ],
        },
    ),
)

# Report keys that depend on the input form (counts of triples vs entities, timing).
INPUT_KEYS = {
    "inputs",
    "triples_read",
    "bytes_read_decompressed_ntriples",
    "facts_kept",
    "entities_read",
    "input_notes",
    "seconds_reading",
    "seconds_total",
}


def _with_datatypes(entity: dict[str, Any]) -> dict[str, Any]:
    ent = copy.deepcopy(entity)
    for stmts in (ent.get("claims") or {}).values():
        for st in stmts:
            snaks = [st["mainsnak"]]
            for qs in (st.get("qualifiers") or {}).values():
                snaks.extend(qs)
            for sn in snaks:
                if sn.get("snaktype") == "value":
                    sn["datatype"] = DATATYPES[sn["property"]]
    return ent


def _fixture_entities() -> list[dict[str, Any]]:
    return [
        _with_datatypes(json.loads((PAIRS / f"{q}.json").read_text(encoding="utf-8")))
        for q in RDF_OF
    ]


def _fixture_rdf(tmp: Path) -> list[Path]:
    """The RDF side: every entity's RDF files. Q3's sitelinks use the test's site table
    (``http://enwiki.acme.test/$1``); they are moved to English Wikipedia's link path
    (``https://en.wikipedia.org/wiki/$1``), the one kgbench reads, like the JSON's
    ``enwiki`` sitelink."""
    out = []
    for q, names in RDF_OF.items():
        for name in names:
            text = (PAIRS / f"{name}.nt").read_text(encoding="utf-8")
            if q == "Q3":
                text = text.replace("<http://enwiki.acme.test/>", "<https://en.wikipedia.org/>")
                text = text.replace("<http://enwiki.acme.test/", "<https://en.wikipedia.org/wiki/")
            p = tmp / f"{name}.nt"
            p.write_text(text, encoding="utf-8")
            out.append(p)
    return out


def _classes(tmp: Path) -> list[Path]:
    extra = tmp / "classes_extra.nt"
    extra.write_text(CLASSES_NT, encoding="utf-8")
    return [DATA / "kgbench" / "acme_classes.nt", extra]


def _same_output(tmp: Path, json_inputs: list[Path], rdf_inputs: list[Path], **kw: Any) -> None:
    """graph.json byte-identical and the same report apart from the input counters."""
    schema = kw.pop("schema", ACME_SCHEMA)
    _, rj = convert(schema, json_inputs, tmp / "json", parquet=False, **kw)
    _, rr = convert(schema, rdf_inputs, tmp / "rdf", parquet=False, **kw)
    a = (tmp / "json" / "graph.json").read_bytes()
    b = (tmp / "rdf" / "graph.json").read_bytes()
    assert a == b
    assert {k: v for k, v in rj.items() if k not in INPUT_KEYS} == {
        k: v for k, v in rr.items() if k not in INPUT_KEYS
    }


def test_wikibase_fixture_pairs_give_byte_identical_graphs(tmp_path: Path) -> None:
    dump = tmp_path / "entities.json"
    dump.write_text(dump_layout(_fixture_entities()), encoding="utf-8")
    classes = _classes(tmp_path)
    _same_output(tmp_path, [dump, *classes], [*_fixture_rdf(tmp_path), *classes], **ACME)
    graph, report = convert(ACME_SCHEMA, [dump, *classes], **ACME)
    # The comparison is not vacuous: the data shows up in the graph.
    ents = {e["eid"]: e for e in graph["entities"]}
    assert report["entities_read"] == 6 and report["unknown_datavalue_types"] == {}
    assert ents["Thing#Q2"]["name"] == "Berlin"
    assert ents["Thing#Q2"]["aliases"] == ["Berlin, Germany", "Land Berlin"]
    assert ents["Thing#Q2"]["description"] == "German city"
    assert ents["Thing#Q3"]["provenance"] == ["https://en.wikipedia.org/wiki/San_Francisco"]
    q4 = ents["Thing#Q4"]["properties"]
    assert q4["word"] == ["превед"]  # the deprecated "бред" is not best rank
    assert q4["media"] == ["http://commons.wikimedia.org/wiki/Special:FilePath/Universe.svg"]
    assert q4["coord"] == ["Point(67.25 12.125)"]
    assert q4["url"] == ["http://url.acme.test%5Cbadurl?chars=%5Cпривет%3C%20%3E%22"]
    assert q4["target"] == ["Forty-two"]
    assert ents["Thing#Q8"]["properties"]["dates"]  # Q8's cleaned-up dates
    rels = {(r["label"], r["subj_id"], r["obj_id"]) for r in graph["relations"]}
    assert ("best", "Thing#Q4", "Target#Q42") in rels
    assert ("any", "Thing#Q4", "Target#Q666") in rels
    assert ("best", "Thing#Q4", "Target#Q666") not in rels  # normal rank beside preferred
    qualified = [r for r in graph["relations"] if r["label"] == "qualified"]
    assert {r["obj_id"] for r in qualified} == {"Target#Q42", "Target#Q666"}
    assert qualified[0]["properties"]["strings"] == ["simplestring"]


def test_json_layouts_are_detected_and_equal(tmp_path: Path) -> None:
    """Dump layout, JSON lines, one pretty-printed entity per file, ``{"entities": ...}``
    (Special:EntityData / wbgetentities), a pretty array, .gz and .bz2: one graph."""
    entities = _fixture_entities()
    classes = _classes(tmp_path)
    forms: dict[str, list[Path]] = {}
    dump = tmp_path / "dump.json"
    dump.write_text(dump_layout(entities), encoding="utf-8")
    forms["dump"] = [dump]
    lines = tmp_path / "lines.jsonl"
    lines.write_text("".join(json.dumps(e) + "\n" for e in entities), encoding="utf-8")
    forms["lines"] = [lines]
    pretty = []
    for e in entities:
        p = tmp_path / f"{e['id']}.pretty.json"
        p.write_text(json.dumps(e, indent="\t"), encoding="utf-8")
        pretty.append(p)
    forms["pretty"] = pretty
    wrapped = tmp_path / "entitydata.json"
    wrapped.write_text(json.dumps({"entities": {e["id"]: e for e in entities}}), encoding="utf-8")
    forms["entitydata"] = [wrapped]
    arr = tmp_path / "array.json"
    arr.write_text(json.dumps(entities, indent=1), encoding="utf-8")
    forms["array"] = [arr]
    gz = tmp_path / "dump.json.gz"
    gz.write_bytes(gzip.compress(dump.read_bytes()))
    forms["gz"] = [gz]
    bz = tmp_path / "dump.json.bz2"
    bz.write_bytes(bz2.compress(dump.read_bytes()))
    forms["bz2"] = [bz]
    named_nt = tmp_path / "looks-like.nt"  # the content decides, not the name
    named_nt.write_bytes(dump.read_bytes())
    forms["named_nt"] = [named_nt]
    outputs = {}
    for name, files in forms.items():
        out = tmp_path / name
        _, report = convert(ACME_SCHEMA, [*files, *classes], out, parquet=False, **ACME)
        assert report["entities_read"] == 6, name
        outputs[name] = (out / "graph.json").read_bytes()
    assert len(set(outputs.values())) == 1
    # --format json forces the reader; --format nt on JSON is an RDF syntax error.
    convert(ACME_SCHEMA, [dump], format="json", **ACME)
    with pytest.raises(InputError, match="line 1"):
        convert(ACME_SCHEMA, [dump], format="nt", **ACME)


def _q42_pair(tmp: Path) -> tuple[Path, Path, Path]:
    g = rdflib.Graph()
    rdflib.NORMALIZE_LITERALS = False  # keep lexical forms, as in the dump
    try:
        g.parse(DATA / "Q42.ttl", format="turtle")
    finally:
        rdflib.NORMALIZE_LITERALS = True
    entities = entities_from_rdf(g)
    js = tmp / "Q42.json"
    js.write_text(dump_layout(entities), encoding="utf-8")
    # Class membership and English labels of every item Q42's statements and qualifiers
    # point to (written
    # for this test: Q42.ttl is one entity's data), so that relations have both ends.
    targets = sorted(
        {
            str(o)
            for s, p, o in g
            if str(p).startswith(
                (
                    "http://www.wikidata.org/prop/statement/",
                    "http://www.wikidata.org/prop/qualifier/",
                )
            )
            and isinstance(o, rdflib.URIRef)
            and re.fullmatch(r"http://www\.wikidata\.org/entity/Q\d+", str(o))
        }
    )
    extra = tmp / "targets.nt"
    extra.write_text(
        "".join(
            f"<{t}> <http://www.wikidata.org/prop/direct/P31> "
            "<http://www.wikidata.org/entity/Q999999999> .\n"
            f"<{t}> <http://www.w3.org/2000/01/rdf-schema#label> "
            f'"Item {t.rsplit("/", 1)[1]}"@en .\n'
            for t in targets
        ),
        encoding="utf-8",
    )
    return js, DATA / "Q42.ttl", extra


PERSON_PROPS = [
    ("date_of_birth", "P569", "date", {}),
    ("birth_year", "P569", "int", {"is_year": True}),
    ("born", "P569", "str", {}),
    ("died", "P570", "list[str]", {}),
    ("height", "P2048", "float", {"quantity_unit": "centimetre", "quantity_convert_unit": True}),
    ("height_s", "P2048", "str", {}),
    ("full_name", "P1477", "str", {}),
    ("given", "P735", "list[str]", {}),
    ("image", "P18", "list[str]", {}),
    ("website", "P856", "list[str]", {}),
    ("viaf", "P214", "list[str]", {}),
    ("occupations", "P106", "list[str]", {}),
    ("works_count", "P8687", "list[str]", {}),
    ("male", "$LINKED_TO(P21,Q6581097)", "bool", {}),
]
Q42_SCHEMA: dict[str, Any] = {
    "name": "q42",
    "entities": [
        {
            "label": "Person",
            "wd_source": "Q5",
            "wd_include_subclasses": False,
            "properties": [
                {"label": label, "wd_source": src, "datatype": dt} | extra
                for label, src, dt, extra in PERSON_PROPS
            ],
        },
        {"label": "Item", "wd_source": "Q999999999"},
    ],
    "relations": [
        {
            "label": rel,
            "wd_source": pid,
            "subj_label": "Person",
            "obj_label": "Item",
            "wd_rank_filter": rank,
            "properties": [
                {"label": "start", "wd_source": "P580", "datatype": "date", "is_qualifier": True},
                {"label": "end", "wd_source": "P582", "datatype": "str", "is_qualifier": True},
                {"label": "when", "wd_source": "P585", "datatype": "int", "is_qualifier": True}
                | {"is_year": True},
                {"label": "degree", "wd_source": "P512", "datatype": "str", "is_qualifier": True},
                {"label": "role", "wd_source": "P3831", "datatype": "str", "is_qualifier": True},
            ],
        }
        for rel, pid, rank in [
            ("EDUCATED_AT", "P69", "non_deprecated"),
            ("AWARD", "P166", "non_deprecated"),
            ("SPOUSE", "P26", "highest"),
            ("OCCUPATION", "P106", "highest"),
            ("NOTABLE_WORK", "P800", "highest"),
            ("MEMBER_OF", "P463", "non_deprecated"),
        ]
    ]
    + [
        {
            "label": "DEGREE",
            "wd_source": "P69",
            "wd_qualifier_pid": "P512",
            "wd_rank_filter": "non_deprecated",
            "subj_label": "Person",
            "obj_label": "Item",
        }
    ],
}


def test_q42_real_turtle_and_json_written_from_it_give_identical_graphs(tmp_path: Path) -> None:
    js, ttl, extra = _q42_pair(tmp_path)
    _same_output(tmp_path, [js, extra], [ttl, extra], schema=Q42_SCHEMA)
    graph, _ = convert(Q42_SCHEMA, [js, extra])
    (adams,) = [e for e in graph["entities"] if e["eid"] == "Person#Q42"]
    assert adams["name"] == "Douglas Adams"
    assert adams["provenance"] == ["https://en.wikipedia.org/wiki/Douglas_Adams"]
    props = adams["properties"]
    assert props["date_of_birth"] == "1952-03-11" and props["birth_year"] == 1952
    assert props["height"] == 196.0
    assert props["image"] and props["image"][0].startswith(
        "http://commons.wikimedia.org/wiki/Special:FilePath/"
    )
    labels = {r["label"] for r in graph["relations"]}
    assert {"EDUCATED_AT", "AWARD", "SPOUSE", "DEGREE"} <= labels
    assert any(r["properties"] for r in graph["relations"] if r["label"] == "EDUCATED_AT")


def _entity_line(qid: str, claims: dict[str, Any]) -> str:
    return json.dumps(
        {
            "type": "item",
            "id": qid,
            "labels": {"en": {"language": "en", "value": f"Item {qid}"}},
            "claims": claims,
        }
    )


CLASS_CLAIM = {
    "P31": [
        {
            "id": "Q1$c",
            "rank": "normal",
            "type": "statement",
            "mainsnak": {
                "snaktype": "value",
                "property": "P31",
                "datatype": "wikibase-item",
                "datavalue": {"type": "wikibase-entityid", "value": {"id": "Q100"}},
            },
        }
    ]
}
SMALL_SCHEMA = {
    "name": "small",
    "entities": [
        {
            "label": "Thing",
            "wd_source": "Q100",
            "properties": [{"label": "s", "wd_source": "P7", "datatype": "str"}],
        }
    ],
    "relations": [],
}


def test_malformed_entity_line_names_file_line_and_excerpt(tmp_path: Path) -> None:
    good = _entity_line("Q1", CLASS_CLAIM)
    path = tmp_path / "bad.json"
    path.write_text(f'[\n{good},\n{{"id": "Q2", "labels": {{"en": ,\n{good}\n]\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        convert(SMALL_SCHEMA, path, tmp_path / "out")
    msg = str(e.value)
    assert str(path) in msg and "line 3" in msg and '{"id": "Q2", "labels"' in msg
    assert not (tmp_path / "out" / "graph.json").exists()
    graph, report = convert(SMALL_SCHEMA, path, skip_invalid=True)
    assert report["invalid_skipped"] == 1
    assert report["invalid_examples"][0].startswith(f"{path}:3: ")
    assert [e["eid"] for e in graph["entities"]] == ["Thing#Q1"]


def test_unknown_datavalue_type_is_counted(tmp_path: Path) -> None:
    claims = dict(CLASS_CLAIM)
    claims["P7"] = [
        {
            "id": "Q1$x",
            "rank": "normal",
            "type": "statement",
            "mainsnak": {
                "snaktype": "value",
                "property": "P7",
                "datatype": "future-type",
                "datavalue": {"type": "future-type", "value": {"x": 1}},
            },
        }
    ]
    path = tmp_path / "e.json"
    path.write_text(_entity_line("Q1", claims) + "\n", encoding="utf-8")
    graph, report = convert(SMALL_SCHEMA, path)
    assert report["unknown_datavalue_types"] == {"future-type": 1}
    assert graph["entities"][0]["properties"] == {}


def test_json_items_beyond_32_bits_kept_and_non_items_counted(tmp_path: Path) -> None:
    """Issue 18 defect 3 on the JSON path: QIDs >= 2**32 are items like any other, and
    property / lexeme entities are counted in the report, never dropped silently."""
    string_statement = {
        "id": "L5$s",
        "rank": "normal",
        "type": "statement",
        "mainsnak": {
            "snaktype": "value",
            "property": "P7",
            "datatype": "string",
            "datavalue": {"type": "string", "value": "lemma"},
        },
    }
    lines = [
        _entity_line("Q4294967297", CLASS_CLAIM),
        _entity_line("Q9703000031", CLASS_CLAIM),
        json.dumps(
            {
                "type": "property",
                "id": "P7",
                "datatype": "string",
                "labels": {"en": {"language": "en", "value": "s"}},
            }
        ),
        json.dumps({"type": "lexeme", "id": "L5", "claims": {"P7": [string_statement]}}),
    ]
    path = tmp_path / "wide.json"
    path.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    graph, report = convert(SMALL_SCHEMA, path)
    assert sorted(e["eid"] for e in graph["entities"]) == [
        "Thing#Q4294967297",
        "Thing#Q9703000031",
    ]
    ignored = report["non_item_subjects_ignored"]
    # as the RDF reader counts them: the property's English label; the lexeme's p:P7 and
    # wdt:P7 triples
    assert ignored["property"] == {"triples": 1, "entities": 1}
    assert ignored["lexeme"] == {"triples": 2, "entities": 1}


@pytest.mark.parametrize("kind", ["gz", "bz2"])
@pytest.mark.parametrize("streams", [1, 8])
def test_truncated_compressed_json_names_file_and_offset(
    tmp_path: Path, kind: str, streams: int
) -> None:
    """Single-stream (sequential decoder) and multistream (parallel decoder) files cut
    short: an error with the file and the compressed byte offset where the data ends,
    and no graph.json."""
    lines = [_entity_line(f"Q{i}", CLASS_CLAIM) for i in range(1, 3000)]
    raw = ("[\n" + ",\n".join(lines) + "\n]\n").encode()
    step = -(-len(raw) // streams)
    parts = [raw[i : i + step] for i in range(0, len(raw), step)]
    data = b"".join(gzip.compress(p) if kind == "gz" else bz2.compress(p) for p in parts)
    path = tmp_path / f"dump.json.{kind}"
    path.write_bytes(data)
    _, report = convert(SMALL_SCHEMA, path)  # whole: fine
    assert report["entities_read"] == 2999
    (note,) = report["input_notes"]
    # bzip2 is decoded by blocks whatever its streams; gzip by members when it has several.
    assert ("single-stream" if kind == "gz" and streams == 1 else "in parallel") in note
    cut = len(data) * 2 // 3
    path.write_bytes(data[:cut])
    with pytest.raises(InputError) as e:
        convert(SMALL_SCHEMA, path, tmp_path / "out")
    assert str(path) in str(e.value) and f"compressed byte offset {cut}" in str(e.value)
    assert not (tmp_path / "out" / "graph.json").exists()


def test_cli_reads_json_with_format_option(tmp_path: Path) -> None:
    path = tmp_path / "e.data"
    path.write_text(_entity_line("Q1", CLASS_CLAIM) + "\n", encoding="utf-8")
    schema = write_schema(tmp_path / "s.json", SMALL_SCHEMA)
    proc = run_kgbench(
        *("convert", "--schema", str(schema), str(path)),
        *("--format", "json", "--out", str(tmp_path / "o"), "--no-parquet"),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("read 1 JSON entity")
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert report["entities_read"] == 1 and report["entities_total"] == 1


def test_synthetic_bench_dump_as_json_gives_the_same_graph(tmp_path: Path) -> None:
    """benches/gen_wikidata.py writes the same entities as N-Triples and as a JSON dump
    (the bench compares their speed); both convert to the same graph."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "benches"))
    import gen_wikidata

    nt, js = tmp_path / "d.nt", tmp_path / "d.json"
    gen_wikidata.generate(nt, 20_000, json_path=js)
    _, rn = convert(gen_wikidata.BENCH_SCHEMA, nt, tmp_path / "nt", parquet=False)
    _, rj = convert(gen_wikidata.BENCH_SCHEMA, js, tmp_path / "js", parquet=False)
    assert (tmp_path / "nt" / "graph.json").read_bytes() == (
        tmp_path / "js" / "graph.json"
    ).read_bytes()
    assert rj["entities_read"] > 0 and rn["entities_total"] == rj["entities_total"] > 100


WDTK = DATA / "wdtk"
LANGUAGE_SCHEMA: dict[str, Any] = {
    "name": "languages",
    "entities": [
        {
            "label": "Language",
            "wd_source": "Q34770",
            "properties": [
                {"label": "iso639_3", "wd_source": "P220", "datatype": "str"},
                {"label": "iso639_3_all", "wd_source": "P220", "datatype": "list[str]"},
                {"label": "ietf", "wd_source": "P305", "datatype": "str"},
                {"label": "glottolog", "wd_source": "P1394", "datatype": "str"},
                {"label": "freebase", "wd_source": "P646", "datatype": "str"},
                {"label": "ethnologue", "wd_source": "P1627", "datatype": "str"},
                {"label": "status", "wd_source": "P3823", "datatype": "str"},
                {"label": "exact_match", "wd_source": "P2888", "datatype": "list[str]"},
            ],
        },
        {"label": "Country", "wd_source": "Q6256"},
        {"label": "Concept", "wd_source": "Q1454986"},
    ],
    "relations": [
        {
            "label": "spokenIn",
            "wd_source": "P17",
            "subj_label": "Language",
            "obj_label": "Country",
            "wd_rank_filter": "non_deprecated",
        },
        {
            "label": "indigenousTo",
            "wd_source": "P2341",
            "subj_label": "Language",
            "obj_label": "Country",
        },
    ],
}


def test_wikidata_toolkit_real_entities_and_rdf_written_from_them(tmp_path: Path) -> None:
    """Real Wikidata JSON (Wikidata-Toolkit's fixtures: Q34987 as Special:EntityData
    gives it, and a small dump in the latest-all.json layout) against the RDF that
    Wikibase's mapping gives for it (test-only writer): one graph."""
    q34987 = json.loads((WDTK / "Q34987.json").read_text(encoding="utf-8"))
    dump_lines = [
        json.loads(line.strip().rstrip(","))
        for line in (WDTK / "mock-dump-for-testing.json").read_text(encoding="utf-8").splitlines()
        if line.strip() not in ("[", "]", "")
    ]
    entities = [q34987, *dump_lines]
    nt = tmp_path / "written.nt"
    # Every item a statement points to: a Country with an English label, so that relations
    # and item-valued properties have both ends.
    targets = sorted(
        {
            v["datavalue"]["value"].get("id") or f"Q{v['datavalue']['value']['numeric-id']}"
            for e in entities
            for stmts in (e.get("claims") or {}).values()
            for st in stmts
            for v in [st["mainsnak"]]
            if v.get("datavalue", {}).get("type") == "wikibase-entityid"
        }
    )
    extra = tmp_path / "targets.nt"
    extra.write_text(
        "".join(
            f"<http://www.wikidata.org/entity/{q}> <http://www.wikidata.org/prop/direct/P31> "
            f"<http://www.wikidata.org/entity/Q6256> .\n"
            f"<http://www.wikidata.org/entity/{q}> <http://www.w3.org/2000/01/rdf-schema#label> "
            f'"Target {q}"@en .\n'
            for q in targets
            if q not in {"Q34770", "Q1454986"}
        ),
        encoding="utf-8",
    )
    nt.write_text(rdf_from_entities(entities), encoding="utf-8")
    schema = LANGUAGE_SCHEMA
    _same_output(
        tmp_path,
        [WDTK / "Q34987.json", WDTK / "mock-dump-for-testing.json", extra],
        [nt, extra],
        schema=schema,
    )
    graph, report = convert(
        schema, [WDTK / "Q34987.json", WDTK / "mock-dump-for-testing.json", extra]
    )
    assert report["entities_read"] == 5  # Q34987; the dump's Q1, Q8, property P16, lexeme L1
    (bile,) = [e for e in graph["entities"] if e["eid"] == "Language#Q34987"]
    assert bile["name"] == "Bile" and bile["aliases"] == ["Bile language"]
    assert bile["provenance"] == ["https://en.wikipedia.org/wiki/Bile_language"]
    assert bile["properties"]["iso639_3"] == "bil"
    assert bile["properties"]["freebase"] == "/m/0h94lsr"
    assert bile["properties"]["exact_match"] == [
        "http://publications.europa.eu/resource/authority/language/BIL"
    ]
    rels = {(r["label"], r["obj_id"]) for r in graph["relations"]}
    assert rels == {
        ("spokenIn", "Country#Q1033"),
        ("indigenousTo", "Country#Q337514"),
        ("indigenousTo", "Country#Q509300"),
    }


def test_cli_explains_an_empty_json_conversion(tmp_path: Path) -> None:
    """No item of the class: the warning names the JSON entities read (the RDF class scan
    does not apply to JSON)."""
    path = tmp_path / "e.json"
    path.write_text(_entity_line("Q1", CLASS_CLAIM) + "\n", encoding="utf-8")
    other = copy.deepcopy(SMALL_SCHEMA)
    other["entities"][0]["wd_source"] = "Q515"
    schema = write_schema(tmp_path / "s.json", other)
    proc = run_kgbench(
        "convert", "--schema", str(schema), str(path), "--out", str(tmp_path / "o"), "--no-parquet"
    )
    assert proc.returncode == 0, proc.stderr
    assert "no item matched class Q515 for Thing" in proc.stderr
    assert "among the 1 item of the JSON input" in proc.stderr
