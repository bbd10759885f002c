"""kgbench.convert on real Wikidata data and the Wikibase RDF fixtures.

Data: tests/data/wikidata (see its NOTICE). Expected values are Wikidata facts
(Douglas Adams, wd:Q42) or computed independently with rdflib from the same files.
"""

from __future__ import annotations

import bz2
import datetime
import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import rdflib

from convert_helpers import (
    ACME,
    BORN,
    DATE_OF_BIRTH,
    HEIGHT_CM,
    MALE,
    acme_schema,
    person_schema,
    run_kgbench,
    write_schema,
)
from kgbench._core import convert as native
from kgbench.convert import convert, read_graph, validate_schema
from kgbench.errors import InputError
from wikibase_json_writer import nt_escape

DATA = Path(__file__).parent / "data" / "wikidata"
Q42 = DATA / "Q42.ttl"
FIX = DATA / "wikibase-format"

PERSON_SCHEMA = person_schema(
    DATE_OF_BIRTH,
    {"label": "birth_year", "wd_source": "P569", "datatype": "int", "is_year": True},
    BORN,
    HEIGHT_CM,
    {"label": "height_m", "wd_source": "P2048", "datatype": "float", "quantity_unit": "metre"},
    {"label": "height_ft", "wd_source": "P2048", "datatype": "float", "quantity_unit": "foot"},
    {"label": "full_name", "wd_source": "P1477", "datatype": "str"},
    MALE,
)


def _nt_from_jsonl(path: Path, out: Path) -> Path:
    """The 2022-05 triples (JSON records with N-Triples terms) as an N-Triples file."""
    with path.open(encoding="utf-8") as f, out.open("w", encoding="utf-8") as g:
        for line in f:
            d = json.loads(line)
            g.write(f"{d['subject']} {d['predicate']} {d['object']} .\n")
    return out


def _term(kind: str, value: str, dt: str | None, lang: str | None) -> str:
    if kind == "iri":
        return f"<{value}>"
    if kind == "bnode":
        return f"_:{value}"
    if lang:
        return f'"{nt_escape(value, ascii_only=True)}"@{lang}'
    if dt and dt != "http://www.w3.org/2001/XMLSchema#string":
        return f'"{nt_escape(value, ascii_only=True)}"^^<{dt}>'
    return f'"{nt_escape(value, ascii_only=True)}"'


@pytest.fixture(scope="module")
def q42_nt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Q42.ttl rewritten as N-Triples (non-ASCII as \\u escapes), keeping lexical forms."""
    out = tmp_path_factory.mktemp("q42") / "Q42.nt"
    with out.open("w", encoding="ascii") as f:
        for s, p, kind, value, dt, lang in native.parse_rdf([str(Q42)], format="ttl"):
            subj = s if s.startswith("_:") else f"<{s}>"
            f.write(f"{subj} <{p}> {_term(kind, value, dt, lang)} .\n")
    return out


def test_douglas_adams_from_entitydata_turtle(tmp_path: Path) -> None:
    graph, report = convert(PERSON_SCHEMA, Q42, tmp_path)
    (adams,) = graph["entities"]
    assert adams["eid"] == "Person#Q42"
    assert adams["name"] == "Douglas Adams"
    assert adams["description"] == "English author and humourist (1952–2001)"
    assert adams["aliases"] == sorted(adams["aliases"]) and "DNA" in adams["aliases"]
    assert adams["provenance"] == ["https://en.wikipedia.org/wiki/Douglas_Adams"]
    props = adams["properties"]
    assert props["date_of_birth"] == "1952-03-11"
    assert props["birth_year"] == 1952
    assert props["born"] == "11 March 1952"  # the original's strftime('%d %B %Y')
    assert props["height"] == 196.0  # 1.96 metre (wd:Q11573) in centimetres
    assert props["height_m"] == 1.96
    assert "height_ft" not in props  # unit mismatch without conversion: dropped, counted
    assert props["full_name"] == "Douglas Noël Adams"
    assert props["male"] is True
    assert report["dropped_values_by_property"]["Person.height_ft"] == {"unit mismatch": 1}
    assert report["entities"] == {"Person": 1}
    # Files: graph.json is the returned graph; the Parquet pair reads back the same.
    on_disk = json.loads((tmp_path / "graph.json").read_text(encoding="utf-8"))
    assert on_disk == graph
    assert json.loads((tmp_path / "report.json").read_text())["triples_read"] == 4455
    (tmp_path / "graph.json").unlink()
    assert read_graph(tmp_path) == graph


def test_ntriples_and_turtle_give_identical_graph_json(tmp_path: Path, q42_nt: Path) -> None:
    convert(PERSON_SCHEMA, Q42, tmp_path / "ttl", parquet=False)
    convert(PERSON_SCHEMA, q42_nt, tmp_path / "nt", parquet=False)
    a = (tmp_path / "ttl" / "graph.json").read_bytes()
    b = (tmp_path / "nt" / "graph.json").read_bytes()
    assert a == b


def test_graph_json_is_python_json_dump(tmp_path: Path) -> None:
    graph, _ = convert(PERSON_SCHEMA, Q42, tmp_path, parquet=False)
    text = (tmp_path / "graph.json").read_text(encoding="utf-8")
    assert text == json.dumps(graph, indent=2)


def test_compressed_multi_file_and_stdin(tmp_path: Path, q42_nt: Path) -> None:
    gz = tmp_path / "a.nt.gz"
    gz.write_bytes(gzip.compress(q42_nt.read_bytes()))
    bz = tmp_path / "b.ttl.bz2"
    bz.write_bytes(bz2.compress(Q42.read_bytes()))
    ref, ref_report = convert(PERSON_SCHEMA, [q42_nt])
    g1, r1 = convert(PERSON_SCHEMA, [gz])
    g2, r2 = convert(PERSON_SCHEMA, [bz])
    g3, r3 = convert(PERSON_SCHEMA, [gz, bz, q42_nt])  # duplicates collapse (set semantics)
    assert g1 == ref and g2 == ref and g3 == ref
    assert (
        r3["triples_read"] == r1["triples_read"] + r2["triples_read"] + ref_report["triples_read"]
    )
    proc = run_kgbench("convert", "--schema", "-", "-", "--out", "x")
    assert proc.returncode == 1  # schema '-' is not a file
    schema_file = write_schema(tmp_path / "s.json", PERSON_SCHEMA)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kgbench",
            "convert",
            "-s",
            str(schema_file),
            "-",
            "--out",
            str(tmp_path / "stdin"),
            "--no-parquet",
        ],
        input=gz.read_bytes(),
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "stdin" / "graph.json").read_text()) == ref


def test_truncated_gzip_is_an_error(tmp_path: Path, q42_nt: Path) -> None:
    data = gzip.compress(q42_nt.read_bytes())
    bad = tmp_path / "cut.nt.gz"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"cut\.nt\.gz.*(truncated|corrupt|unexpected end)"):
        convert(PERSON_SCHEMA, bad, tmp_path / "out")
    assert not (tmp_path / "out" / "graph.json").exists()
    bad_bz = tmp_path / "cut.ttl.bz2"
    full = bz2.compress(Q42.read_bytes())
    bad_bz.write_bytes(full[: len(full) - 40])
    with pytest.raises(InputError, match=r"cut\.ttl\.bz2"):
        convert(PERSON_SCHEMA, bad_bz)


def _corrupt(q42_nt: Path, tmp_path: Path) -> tuple[Path, list[int]]:
    lines = q42_nt.read_text(encoding="utf-8").splitlines(keepends=True)
    bad_lines = [100, 2000, 4000]
    for n in bad_lines:
        lines.insert(n - 1, '<http://www.wikidata.org/entity/Q42> <broken "unterminated .\n')
    out = tmp_path / "bad.nt"
    out.write_text("".join(lines), encoding="utf-8")
    return out, bad_lines


def test_malformed_rdf_names_file_line_and_offset(tmp_path: Path, q42_nt: Path) -> None:
    bad, lines = _corrupt(q42_nt, tmp_path)
    text = bad.read_bytes()
    offset = sum(len(x) for x in text.splitlines(keepends=True)[: lines[0] - 1])
    with pytest.raises(InputError) as exc:
        convert(PERSON_SCHEMA, bad, tmp_path / "out")
    msg = str(exc.value)
    assert "bad.nt" in msg and f"line {lines[0]}," in msg
    # the reported byte offset lies on the bad line
    reported = int(msg.split("byte offset ")[1].split(":")[0])
    assert offset <= reported < offset + len(text.splitlines()[lines[0] - 1]) + 1
    assert "<broken" in msg  # excerpt
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_skip_invalid_counts_and_keeps_the_rest(tmp_path: Path, q42_nt: Path) -> None:
    bad, lines = _corrupt(q42_nt, tmp_path)
    graph, report = convert(PERSON_SCHEMA, bad, skip_invalid=True)
    ref, ref_report = convert(PERSON_SCHEMA, q42_nt)
    assert graph == ref
    assert report["invalid_skipped"] == len(lines)
    assert report["triples_read"] == ref_report["triples_read"]
    assert all("bad.nt:" in x for x in report["invalid_examples"])


def test_schema_errors_carry_json_paths(tmp_path: Path) -> None:
    schema = {
        "name": "x",
        "extra": True,
        "entities": [
            {
                "label": "A",
                "wd_source": "Q1",
                "wd_constraints": ["$RAW_SPARQL(?item wdt:P31 wd:Q5)"],
                "properties": [
                    {"label": "h", "wd_source": "P1", "datatype": "int", "quantity_unit": "cm!"}
                ],
            }
        ],
        "relations": [{"label": "r", "wd_source": "P2", "subj_label": "A", "obj_label": "Nope"}],
    }
    problems = validate_schema(schema)
    assert "$.extra: unknown field (allowed: name, entities, relations)" in problems
    assert any(p.startswith("$.entities[0].wd_constraints[0]: $RAW_SPARQL") for p in problems)
    assert any(
        p.startswith("$.entities[0].properties[0].quantity_unit: quantity_unit is only")
        for p in problems
    )
    assert any(
        p.startswith("$.entities[0].properties[0].quantity_unit: unknown unit") for p in problems
    )
    assert '$.relations[0].obj_label: unknown entity label "Nope"' in problems
    with pytest.raises(InputError, match=r"\$\.extra"):
        convert(schema, Q42, tmp_path)
    assert not (tmp_path / "graph.json").exists()


def test_cypherbench_reference_schema_is_accepted() -> None:
    nba_mini = {
        "name": "nba_mini",
        "entities": [
            {
                "label": "Team",
                "wd_source": "Q13393265",
                "wd_constraints": ["$LINKED_TO(P118,Q155223)", "$HAS_PROPERTY(P361)"],
                "properties": [{"label": "head_coach", "wd_source": "P286", "datatype": "str"}],
            },
            {
                "label": "Division",
                "wd_source": "Q3032333",
                "wd_constraints": ["$FROM_RELATION(partOfDivision)"],
            },
        ],
        "relations": [
            {
                "label": "partOfDivision",
                "wd_source": "P361",
                "subj_label": "Team",
                "obj_label": "Division",
            }
        ],
    }
    assert validate_schema(nba_mini) == []


ACME_SCHEMA = acme_schema(
    {"label": "dates", "wd_source": "P8", "datatype": "list[date]"},
    {"label": "year", "wd_source": "P8", "datatype": "int", "is_year": True},
    {"label": "word", "wd_source": "P5", "datatype": "str"},
    {"label": "strings", "wd_source": "P7", "datatype": "list[str]"},
)


def _acme_inputs() -> list[Path]:
    return [*sorted(FIX.glob("*.nt")), DATA / "kgbench" / "acme_classes.nt"]


def _expected_dates(item: str) -> tuple[list[str], list[int]]:
    """Independent reading of the fixtures with rdflib: best-rank P8 values whose
    statement value node has day precision / year precision (SPEC.md §1)."""
    g = rdflib.Graph()
    rdflib.NORMALIZE_LITERALS = False  # keep lexical forms, as in the dump
    try:
        for f in _acme_inputs():
            g.parse(f, format="nt")
    finally:
        rdflib.NORMALIZE_LITERALS = True
    a = "http://acme.test/"
    wb = "http://wikiba.se/ontology#"
    subj = rdflib.URIRef(a + item)
    truthy = set(g.objects(subj, rdflib.URIRef(a + "prop/direct/P8")))
    dates: set[str] = set()
    years: set[int] = set()
    for st in g.objects(subj, rdflib.URIRef(a + "prop/P8")):
        for v in g.objects(st, rdflib.URIRef(a + "prop/statement/P8")):
            if v not in truthy:
                continue
            for node in g.objects(st, rdflib.URIRef(a + "prop/statement/value/P8")):
                tv = g.value(node, rdflib.URIRef(wb + "timeValue"))
                pr = g.value(node, rdflib.URIRef(wb + "timePrecision"))
                if tv is None or pr is None or str(tv) != str(v) or str(tv).startswith("-"):
                    continue
                try:
                    d = datetime.datetime.strptime(str(tv), "%Y-%m-%dT%H:%M:%SZ").date()
                except ValueError:
                    continue
                if int(pr) >= 11:
                    dates.add(d.isoformat())
                if int(pr) >= 9 and 1000 <= d.year <= 9999:
                    years.add(d.year)
    return sorted(dates), sorted(years)


def test_wikibase_fixtures_ranks_dates_values() -> None:
    graph, report = convert(ACME_SCHEMA, _acme_inputs(), **ACME)
    ents = {e["eid"]: e for e in graph["entities"]}
    assert set(ents) == {
        "Thing#Q4",
        "Thing#Q7",
        "Thing#Q8",
        "Thing#Q9",  # instance of a subclass (P31/P279*)
        "Target#Q42",
        "Target#Q666",
    }
    dates, years = _expected_dates("Q8")
    assert dates  # the fixture has valid day-precision dates
    assert ents["Thing#Q8"]["properties"].get("dates", []) == dates
    # a scalar keeps the smallest value by (len(str(v)), v)
    assert ents["Thing#Q8"]["properties"].get("year") == (min(years) if years else None)
    assert report["dropped_values"]["BCE date"] >= 1
    # best-rank string only (the deprecated "бред" is not a wdt: value)
    assert ents["Thing#Q4"]["properties"]["word"] == "превед"
    assert ents["Thing#Q7"]["properties"]["strings"] == ["string", "string2"]
    rels = {(r["label"], r["obj_id"]) for r in graph["relations"]}
    assert rels == {
        ("best", "Target#Q42"),  # preferred = best rank
        ("any", "Target#Q42"),
        ("any", "Target#Q666"),  # normal rank: only with non_deprecated
    }
    assert [r["rid"] for r in graph["relations"]] == ["0", "1", "2"]


def _rdflib_triples(path: Path, fmt: str) -> set[tuple[Any, ...]]:
    g = rdflib.Graph()
    rdflib.NORMALIZE_LITERALS = False  # compare lexical forms
    try:
        g.parse(path, format=fmt)
    finally:
        rdflib.NORMALIZE_LITERALS = True
    out = set()
    for s, p, o in g:
        subj = "_:" if isinstance(s, rdflib.BNode) else str(s)
        if isinstance(o, rdflib.Literal):
            dt = str(o.datatype) if o.datatype is not None else None
            if dt is None:
                dt = (
                    "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
                    if o.language
                    else "http://www.w3.org/2001/XMLSchema#string"
                )
            obj: tuple[Any, ...] = ("literal", str(o), dt, o.language)
        elif isinstance(o, rdflib.BNode):
            obj = ("bnode", "_:", None, None)
        else:
            obj = ("iri", str(o), None, None)
        out.add((subj, str(p), *obj))
    return out


def _ours(path: Path, fmt: str, threads: int | None = None) -> set[tuple[Any, ...]]:
    out = set()
    for s, p, kind, value, dt, lang in native.parse_rdf([str(path)], format=fmt, threads=threads):
        subj = "_:" if s.startswith("_:") else s
        if kind == "bnode":
            value = "_:"
        out.add((subj, p, kind, value, dt, lang))
    return out


@pytest.mark.parametrize(
    ("name", "fmt"),
    [(p.name, "nt") for p in sorted(FIX.glob("*.nt"))]
    + [("Q42.ttl", "ttl"), ("Q24628793.ttl", "ttl"), ("small_dump_chunk.ttl", "ttl")],
)
def test_parser_agrees_with_rdflib(name: str, fmt: str) -> None:
    path = (FIX / name) if fmt == "nt" else (DATA / name)
    assert _ours(path, fmt) == _rdflib_triples(path, fmt)


def test_ntriples_fast_path_agrees_with_rdflib_on_real_dump_triples(tmp_path: Path) -> None:
    nt = _nt_from_jsonl(DATA / "triples-2022-05.jsonl", tmp_path / "t.nt")
    assert _ours(nt, "nt") == _rdflib_triples(nt, "nt")


def test_from_relation_selective_fetching_on_real_triples(tmp_path: Path) -> None:
    """Films (wd:Q11424) and, via $FROM_RELATION, only the humans in their cast."""
    nt = _nt_from_jsonl(DATA / "triples-2022-05.jsonl", tmp_path / "t.nt")
    schema = {
        "name": "movies",
        "entities": [
            {
                "label": "Person",
                "wd_source": "Q5",
                "wd_include_subclasses": False,
                "wd_constraints": ["$FROM_RELATION(castMember)"],
            },
            {"label": "Movie", "wd_source": "Q11424"},
        ],
        "relations": [
            {
                "label": "castMember",
                "wd_source": "P161",
                "subj_label": "Movie",
                "obj_label": "Person",
            }
        ],
    }
    graph, report = convert(schema, nt)
    g = rdflib.Graph()
    g.parse(nt, format="nt")
    wd = "http://www.wikidata.org/entity/"
    wdt = "http://www.wikidata.org/prop/direct/"
    label = rdflib.RDFS.label

    def en(x: rdflib.term.Node) -> bool:
        return any(getattr(o, "language", None) == "en" for o in g.objects(x, label))

    films = {
        s for s in g.subjects(rdflib.URIRef(wdt + "P31"), rdflib.URIRef(wd + "Q11424")) if en(s)
    }
    humans = set(g.subjects(rdflib.URIRef(wdt + "P31"), rdflib.URIRef(wd + "Q5")))
    cast = {
        o
        for f in g.subjects(rdflib.URIRef(wdt + "P31"), rdflib.URIRef(wd + "Q11424"))
        for o in g.objects(f, rdflib.URIRef(wdt + "P161"))
    }
    expected_people = {str(h)[len(wd) :] for h in humans & cast if en(h)}
    got = {e["eid"].split("#")[1] for e in graph["entities"] if e["label"] == "Person"}
    assert got == expected_people
    assert {e["eid"].split("#")[1] for e in graph["entities"] if e["label"] == "Movie"} == {
        str(f)[len(wd) :] for f in films
    }
    # Entities are grouped by label in dependency order and sorted by QID string.
    labels = [e["label"] for e in graph["entities"]]
    assert labels == sorted(labels, key=lambda x: x != "Movie")
    all_people = {str(h)[len(wd) :] for h in humans if en(h)}
    assert report["entity_candidates"]["Person"] <= len(humans)
    assert got <= all_people


def test_output_is_identical_for_any_thread_count(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent.parent / "benches"))
    import gen_wikidata

    dump = tmp_path / "syn.nt"
    gen_wikidata.generate(dump, 60_000, seed=3)
    outs = []
    for threads in (1, 2, 3):
        convert(
            gen_wikidata.BENCH_SCHEMA,
            dump,
            tmp_path / f"o{threads}",
            threads=threads,
            parquet=False,
        )
        outs.append((tmp_path / f"o{threads}" / "graph.json").read_bytes())
    assert outs[0] == outs[1] == outs[2]
    graph = json.loads(outs[0])
    assert graph["entities"] and graph["relations"]
    # merge: relation ids are unique, every end is a kept entity
    eids = {e["eid"] for e in graph["entities"]}
    assert len({r["rid"] for r in graph["relations"]}) == len(graph["relations"])
    assert all(r["subj_id"] in eids and r["obj_id"] in eids for r in graph["relations"])


def test_max_entities_per_root_is_the_original_sample(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent.parent / "benches"))
    import gen_wikidata

    dump = tmp_path / "syn.nt"
    gen_wikidata.generate(dump, 30_000, seed=5)
    full, _ = convert(gen_wikidata.BENCH_SCHEMA, dump)
    sample, _ = convert(gen_wikidata.BENCH_SCHEMA, dump, max_entities_per_root=20)
    people = [int(e["eid"].split("#Q")[1]) for e in full["entities"] if e["label"] == "Person"]

    def rqid(q: int) -> str:
        return str(q // 307)[1:]

    expected = sorted(people, key=lambda q: (rqid(q), q))[:20]
    got = [int(e["eid"].split("#Q")[1]) for e in sample["entities"] if e["label"] == "Person"]
    assert sorted(got) == sorted(expected)
    cities = {e["eid"] for e in sample["entities"] if e["label"] == "City"}
    assert cities and len(cities) < len([e for e in full["entities"] if e["label"] == "City"])


def test_cli_help_and_summary(tmp_path: Path) -> None:
    proc = run_kgbench("convert", "--help")
    assert proc.returncode == 0
    for word in ("--schema", "--out", "--skip-invalid", "--max-entities-per-root", "report.json"):
        assert word in proc.stdout
    schema_file = write_schema(tmp_path / "s.json", PERSON_SCHEMA)
    proc = run_kgbench("convert", "-s", str(schema_file), str(Q42), "-o", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    assert "read 4,455 triples" in proc.stdout and "Person: 1" in proc.stdout
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == [
        "entities.parquet",
        "graph.json",
        "relations.parquet",
        "report.json",
    ]
    proc = run_kgbench(
        "convert", "-s", str(schema_file), str(tmp_path / "missing.nt"), "-o", str(tmp_path / "o2")
    )
    assert proc.returncode == 1 and "missing.nt" in proc.stderr
    assert not (tmp_path / "o2" / "graph.json").exists()


# ------------------------------------------------------------ why a label kept nothing


def _frequent_classes_rdflib(path: Path, pred: str) -> list[tuple[str, str | None, int]]:
    """The 10 objects of the truthy ``wdt:`` predicate ``pred`` with most distinct subject
    items, as ``(qid, English label or None, items)``, most items first then by QID number,
    counted with rdflib (independent of the converter)."""
    wd = "http://www.wikidata.org/entity/"
    g = rdflib.Graph()
    g.parse(path, format="nt")
    p = rdflib.URIRef(f"http://www.wikidata.org/prop/direct/{pred}")
    pairs = {
        (str(s), str(o)[len(wd) :])
        for s, o in g.subject_objects(p)
        if str(s).startswith(wd + "Q") and str(o).startswith(wd + "Q")
    }
    counts: dict[str, int] = {}
    for _, q in pairs:
        counts[q] = counts.get(q, 0) + 1
    labels = {
        str(s)[len(wd) :]: str(o)
        for s, o in g.subject_objects(rdflib.RDFS.label)
        if isinstance(o, rdflib.Literal) and o.language == "en"
    }
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], int(kv[0][1:])))[:10]
    return [(q, labels.get(q), n) for q, n in ranked]


def test_report_names_the_frequent_classes_when_a_label_keeps_nothing(tmp_path: Path) -> None:
    nt = _nt_from_jsonl(DATA / "triples-2022-05.jsonl", tmp_path / "triples.nt")
    schema = {
        "name": "t",
        "entities": [
            {"label": "Article", "wd_source": "Q7318358"},
            {"label": "Taxon", "wd_source": "Q16521", "wd_is_instance": False},
            {"label": "Human", "wd_source": "Q5", "wd_include_subclasses": False},
        ],
        "relations": [],
    }
    # read from stdin too: the classes come from the conversion's one pass
    for inputs, stdin in (([str(nt)], None), (["-"], nt.read_bytes())):
        if stdin is None:
            _, report = convert(schema, inputs)
        else:
            schema_file = str(write_schema(tmp_path / "schema.json", schema))
            cli = ["convert", "--schema", schema_file, "-", "--out", str(tmp_path / "out"), "-q"]
            proc = subprocess.run(
                [sys.executable, "-m", "kgbench", *cli],
                input=stdin,
                capture_output=True,
                check=False,
            )
            assert proc.returncode == 0, proc.stderr
            report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
        classes = report["empty_entity_classes"]
        assert report["entities"]["Human"] > 0
        assert set(classes) == {"Article", "Taxon"}  # only the labels that kept nothing
        for label, pred in (("Article", "P31"), ("Taxon", "P279")):
            got = classes[label]
            assert got["class_members"] == 0
            expected = _frequent_classes_rdflib(nt, pred)
            assert expected  # the data has P31 and P279 triples
            assert [tuple(c) for c in got["frequent_classes"]] == expected


def test_report_counts_class_members_that_fail_the_constraints() -> None:
    person = {
        "label": "Person",
        "wd_source": "Q5",
        "wd_include_subclasses": False,
        "wd_constraints": ["$LINKED_TO(P21,Q6581072)"],
    }
    _, report = convert({"name": "t", "entities": [person], "relations": []}, Q42)
    # Douglas Adams is an instance of Q5 but not female: one member, no frequent classes
    assert report["empty_entity_classes"] == {"Person": {"class_members": 1}}
    _, report = convert(PERSON_SCHEMA, Q42)
    assert "empty_entity_classes" not in report
