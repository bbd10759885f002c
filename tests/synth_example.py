"""The worked example of spec synthkgqa.md §5 as a tiny Wikidata dump, shared by the
SynthKGQA tests: t1 Yehonatan Geffen -child-> Aviv Geffen; Aviv plays guitar, piano and
voice; Francis Lickerish plays guitar (real QIDs and PIDs)."""

from __future__ import annotations

from pathlib import Path

from kgbench.generate.synth.kg import WikidataKG
from kgbench.query.sparql import load_store

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"

EXAMPLE = [
    ("Q2911403", "P40", "Q453232"),
    ("Q453232", "P1303", "Q6607"),
    ("Q453232", "P1303", "Q5994"),
    ("Q453232", "P1303", "Q17172850"),
    ("Q3720616", "P1303", "Q6607"),
]
#: A second component the example's seed graphs never reach.
LUTE = [("Q999", "P1303", "Q192052")]
NAMES = {
    "Q2911403": "Yehonatan Geffen",
    "Q453232": "Aviv Geffen",
    "Q6607": "guitar",
    "Q5994": "piano",
    "Q17172850": "voice",
    "Q3720616": "Francis Lickerish",
    "Q192052": "lute",
    "Q999": "John Dowland",
    "P40": "child",
    "P1303": "instrument",
}


def example_kg(tmp_path: Path, triples: list[tuple[str, str, str]]) -> WikidataKG:
    """``triples`` with the English labels of :data:`NAMES`, written to
    ``tmp_path/example.nt`` and loaded as a :class:`WikidataKG`."""
    lines = [f"<{WD}{h}> <{WDT}{p}> <{WD}{t}> ." for h, p, t in triples]
    lines += [f'<{WD}{q}> <{LABEL}> "{name}"@en .' for q, name in NAMES.items()]
    path = tmp_path / "example.nt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return WikidataKG.from_store(load_store([path]))
