"""Property-based tests of kgbench.convert: N-Triples escapes (against rdflib),
unit conversion round trips, date precision boundaries (SPEC.md §1)."""

from __future__ import annotations

import datetime
import json
import math
from pathlib import Path
from typing import Any

import pytest
import rdflib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgbench._core import convert as native
from kgbench.convert import convert, unit_table

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
P = "http://www.wikidata.org/prop/"
WB = "http://wikiba.se/ontology#"
XSD = "http://www.w3.org/2001/XMLSchema#"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def escape(text: str, style: str) -> str:
    """N-Triples string escaping: 'raw' keeps UTF-8, 'u' uses \\u/\\U escapes."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t" if style == "raw" else "\\u0009")
        elif style == "u" and (code > 0x7E or code < 0x20):
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08X}")
        elif code < 0x20:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    return "".join(out)


texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), max_codepoint=0x10FFFF), max_size=40
)


@SETTINGS
@given(text=texts, style=st.sampled_from(["raw", "u"]))
def test_ntriples_escapes_roundtrip_like_rdflib(tmp_path: Path, text: str, style: str) -> None:
    path = tmp_path / "e.nt"
    line = f'<{WD}Q1> <{LABEL}> "{escape(text, style)}"@en .\n'
    path.write_text(line, encoding="utf-8")
    ((s, p, kind, value, _dt, lang),) = native.parse_rdf([str(path)], format="nt")
    g = rdflib.Graph()
    g.parse(path, format="nt")
    ((_, _, o),) = list(g)
    assert (s, p, kind, lang) == (f"{WD}Q1", LABEL, "literal", "en")
    assert value == text == str(o)


SCHEMA_LABEL: dict[str, Any] = {
    "name": "t",
    "entities": [{"label": "Thing", "wd_source": "Q100", "wd_include_subclasses": False}],
    "relations": [],
}


@SETTINGS
@given(text=texts.filter(lambda t: t.strip() != "" and t != "Q1"))
def test_labels_survive_escaping_into_graph_json(tmp_path: Path, text: str) -> None:
    path = tmp_path / "l.nt"
    path.write_text(
        f'<{WD}Q1> <{WDT}P31> <{WD}Q100> .\n<{WD}Q1> <{LABEL}> "{escape(text, "u")}"@en .\n',
        encoding="utf-8",
    )
    out = tmp_path / "o"
    graph, _ = convert(SCHEMA_LABEL, path, out, parquet=False)
    assert graph["entities"][0]["name"] == text
    assert json.loads((out / "graph.json").read_text(encoding="utf-8")) == graph


UNITS = unit_table()
BY_DIM: dict[str, list[str]] = {}
for qid, _label, dim, _factor, _offset in UNITS:
    BY_DIM.setdefault(dim, []).append(qid)
PAIRS = [(a, b) for qids in BY_DIM.values() for a in qids for b in qids]


@settings(max_examples=300, deadline=None)
@given(
    pair=st.sampled_from(PAIRS),
    value=st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False),
)
def test_unit_conversion_round_trips(pair: tuple[str, str], value: float) -> None:
    a, b = pair
    there = native.convert_unit(value, a, b)
    back = native.convert_unit(there, b, a)
    assert math.isclose(back, value, rel_tol=1e-9, abs_tol=1e-6)
    if a == b:
        assert there == value


def test_unit_table_covers_required_dimensions_and_checks() -> None:
    dims = set(BY_DIM)
    for d in ("Length", "Area", "Volume", "Mass", "Time", "Speed", "VolumetricFlow", "Temperature"):
        assert d in dims
    labels = {label for _, label, *_ in UNITS}
    for extra in (
        "earth radius",
        "jupiter radius",
        "solar radius",
        "light-year",
        "parsec",
        "astronomical unit",
        "nautical mile",
        "earth mass",
        "jupiter mass",
        "solar mass",
    ):
        assert extra in labels
    assert native.convert_unit(1.0, "Q828224", "Q11573") == 1000.0  # km -> m
    assert math.isclose(native.convert_unit(100.0, "Q25267", "Q42289"), 212.0)  # C -> F
    with pytest.raises(ValueError):
        native.convert_unit(1.0, "Q199", "Q11573")  # unitless -> metre
    with pytest.raises(ValueError):
        native.convert_unit(1.0, "Q11570", "Q11573")  # kg -> m


DATE_SCHEMA: dict[str, Any] = {
    "name": "d",
    "entities": [
        {
            "label": "Thing",
            "wd_source": "Q100",
            "wd_include_subclasses": False,
            "properties": [
                {"label": "d", "wd_source": "P585", "datatype": "date"},
                {"label": "y", "wd_source": "P585", "datatype": "str", "is_year": True},
                {"label": "s", "wd_source": "P585", "datatype": "str"},
            ],
        }
    ],
    "relations": [],
}


def _time_dump(path: Path, lexical: str, precision: int) -> None:
    lit = f'"{lexical}"^^<{XSD}dateTime>'
    st_iri = f"{WD}statement/Q1-abc"
    node = "http://www.wikidata.org/value/0123"
    path.write_text(
        "".join(
            f"{t} .\n"
            for t in (
                f"<{WD}Q1> <{WDT}P31> <{WD}Q100>",
                f'<{WD}Q1> <{LABEL}> "one"@en',
                f"<{WD}Q1> <{WDT}P585> {lit}",
                f"<{WD}Q1> <{P}P585> <{st_iri}>",
                f"<{st_iri}> <{P}statement/P585> {lit}",
                f"<{st_iri}> <{P}statement/value/P585> <{node}>",
                f"<{st_iri}> <{WB}rank> <{WB}NormalRank>",
                f"<{node}> <{WB}timeValue> {lit}",
                f'<{node}> <{WB}timePrecision> "{precision}"^^<{XSD}integer>',
            )
        ),
        encoding="utf-8",
    )


@SETTINGS
@given(
    year=st.integers(min_value=-3000, max_value=12000),
    month=st.integers(min_value=1, max_value=12),
    day=st.integers(min_value=1, max_value=31),
    precision=st.integers(min_value=0, max_value=14),
)
def test_date_precision_boundaries(
    tmp_path: Path, year: int, month: int, day: int, precision: int
) -> None:
    sign = "-" if year < 0 else ""
    lexical = f"{sign}{abs(year):04d}-{month:02d}-{day:02d}T00:00:00Z"
    path = tmp_path / "t.nt"
    _time_dump(path, lexical, precision)
    graph, report = convert(DATE_SCHEMA, path)
    props = graph["entities"][0]["properties"]
    try:
        parsed = None if year < 0 else datetime.datetime.strptime(lexical, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        parsed = None
    # date: day precision or finer, CE, a real calendar date
    if parsed is not None and precision >= 11:
        assert props["d"] == parsed.date().isoformat()
    else:
        assert "d" not in props
    # is_year: precision >= 9 and a 4-digit positive year
    if parsed is not None and precision >= 9 and 1000 <= parsed.year <= 9999:
        assert props["y"] == f"{parsed.year}"
    else:
        assert "y" not in props
    # str: the original's text by precision (7 century ... 11 day)
    century = parsed.year // 100 + 1 if parsed is not None else 0
    if parsed is not None and 7 <= precision <= 11:
        assert (
            props["s"]
            == {
                11: f"{parsed.day:02d} {parsed.strftime('%B')} {parsed.year}",
                10: f"{parsed.strftime('%B')} {parsed.year}",
                9: f"{parsed.year}",
                8: f"{parsed.year // 10 * 10}s",
                7: f"{century}{'st' if century == 21 else 'th'} century",
            }[precision]
        )
    else:
        assert "s" not in props
    assert sum(report["dropped_values"].values()) == 3 - len(props)
