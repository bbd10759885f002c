"""Generator of synthetic Wikidata-format N-Triples dumps, with a matching schema.

The output has the shape of ``latest-all.nt``: per item, ``rdf:type wikibase:Item``,
labels / descriptions / aliases in several languages (``rdfs:label``,
``skos:prefLabel``, ``schema:name``), Wikipedia sitelinks, truthy ``wdt:`` triples
and full statements (``p:`` / ``ps:`` / ``psv:`` / ``pq:`` / ``pqv:``) with ranks
(``wikibase:BestRank``, preferred / normal / deprecated), references
(``prov:wasDerivedFrom``, ``pr:``), time value nodes with precision 7–11, quantity
value nodes in several units (metre, centimetre, foot, unitless, kilometre,
square kilometre, hectare), qualifiers (start time, P642), "some value" blank
nodes, non-ASCII and escaped literals, and junk predicates (external ids,
``schema:version``, ``wikibase:statements``...).

With ``json_path`` (``--json-out``), the same entities are also written as a Wikidata JSON
dump (``latest-all.json`` layout: ``[``, one entity per line ending with ``,``, ``]``), with
the RDF's values in Wikibase's JSON data model (full statements with ranks, qualifiers and
references, ``time`` with precision and calendar model, ``quantity`` with unit, labels,
descriptions, aliases, sitelinks). Truthy-only triples of the RDF (the external ids, the
class hierarchy edge) are full statements there, as JSON has no other form.

Usage: ``python benches/gen_wikidata.py --triples 1000000 --out dump.nt --schema-out schema.json``
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path
from typing import Any, TextIO

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
P = "http://www.wikidata.org/prop/"
PS = P + "statement/"
PSV = P + "statement/value/"
PQ = P + "qualifier/"
PQV = P + "qualifier/value/"
PR = P + "reference/"
WDS = WD + "statement/"
WDV = "http://www.wikidata.org/value/"
WDREF = "http://www.wikidata.org/reference/"
WB = "http://wikiba.se/ontology#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SKOS_PREF = "http://www.w3.org/2004/02/skos/core#prefLabel"
SKOS_ALT = "http://www.w3.org/2004/02/skos/core#altLabel"
SCHEMA = "http://schema.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
PROV = "http://www.w3.org/ns/prov#wasDerivedFrom"

#: Conversion schema matching the generated data (CypherBench format, SPEC.md §1).
BENCH_SCHEMA: dict[str, object] = {
    "name": "synthetic",
    "entities": [
        {
            "label": "Person",
            "wd_source": "Q5",
            "wd_include_subclasses": False,
            "properties": [
                {"label": "date_of_birth", "wd_source": "P569", "datatype": "date"},
                {"label": "birth_year", "wd_source": "P569", "datatype": "int", "is_year": True},
                {
                    "label": "height",
                    "wd_source": "P2048",
                    "datatype": "float",
                    "quantity_unit": "centimetre",
                    "quantity_convert_unit": True,
                },
                {"label": "occupations", "wd_source": "P106", "datatype": "list[str]"},
                {"label": "nickname", "wd_source": "P1449", "datatype": "str"},
            ],
        },
        {
            "label": "City",
            "wd_source": "Q515",
            "wd_constraints": ["$FROM_RELATION(bornIn)"],
            "properties": [
                {
                    "label": "area",
                    "wd_source": "P2046",
                    "datatype": "float",
                    "quantity_unit": "square kilometre",
                    "quantity_convert_unit": True,
                },
                {"label": "population", "wd_source": "P1082", "datatype": "int"},
            ],
        },
        {"label": "Country", "wd_source": "Q6256"},
    ],
    "relations": [
        {"label": "bornIn", "wd_source": "P19", "subj_label": "Person", "obj_label": "City"},
        {
            "label": "citizenOf",
            "wd_source": "P27",
            "subj_label": "Person",
            "obj_label": "Country",
            "wd_rank_filter": "non_deprecated",
            "properties": [
                {"label": "start_year", "wd_source": "P580", "datatype": "int", "is_year": True}
            ],
        },
        {"label": "inCountry", "wd_source": "P17", "subj_label": "City", "obj_label": "Country"},
    ],
}

#: The places part of :data:`BENCH_SCHEMA` (cities with their population, countries, and
#: ``inCountry``), without the people: a conversion with it keeps about 7 % of the synthetic
#: dump's entities, as a conversion of the real Wikidata dump keeps a small part of its
#: ~115M entities. Its conversion time is then the input's (decoding, parsing), not the
#: output graph's: ``benches/bench_convert.py`` times the input formats with both schemas.
INPUT_BOUND_SCHEMA: dict[str, object] = {
    "name": "synthetic-places",
    "entities": [
        {
            "label": "City",
            "wd_source": "Q515",
            "properties": [{"label": "population", "wd_source": "P1082", "datatype": "int"}],
        },
        {"label": "Country", "wd_source": "Q6256"},
    ],
    "relations": [
        {"label": "inCountry", "wd_source": "P17", "subj_label": "City", "obj_label": "Country"}
    ],
}

_SYLL = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vi", "zo", "é", "ü", "ß", "ø", "qu", "x"]
_LANGS = ["en", "de", "fr", "es", "ja"]
_OCCUPATION_BASE = 90_000_000
_UNITS_LEN = [("Q11573", 1.0), ("Q174728", 100.0), ("Q3710", 3.28084), ("Q199", 1.0)]
_UNITS_AREA = [("Q712226", 1.0), ("Q35852", 100.0), ("Q25343", 1e6)]


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


_RANKS = {"PreferredRank": "preferred", "NormalRank": "normal", "DeprecatedRank": "deprecated"}
_LIT = re.compile(r'^"(.*)"(?:@(\S+)|\^\^<([^>]+)>)?$')


def _unesc(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


def _json_time(lex: str, precision: int) -> str:
    """Wikibase JSON ``time`` of the RDF's (XSD 1.1) Gregorian time value."""
    m = re.match(r"^(-?)(\d+)-(\d\d)-(\d\d)(T.*)$", lex)
    assert m is not None, lex
    sign, ys, ms, ds, rest = m.groups()
    year = -int(ys) if sign else int(ys)
    if precision >= 9 and year <= 0:
        year -= 1
    month, day = int(ms), int(ds)
    if precision <= 9:
        month = day = 0
    elif precision == 10:
        day = 0
    return f"{'-' if year < 0 else '+'}{abs(year):04d}-{month:02d}-{day:02d}{rest}"


def _snak(pid: str, obj: str, node: Any) -> dict[str, Any]:
    """The JSON snak of an N-Triples object term (with its value node's triples)."""
    if obj.startswith("_:"):
        return {"snaktype": "somevalue", "property": pid}
    if obj.startswith("<"):
        qid = obj[1 + len(WD) : -1]
        return {
            "snaktype": "value",
            "property": pid,
            "datatype": "wikibase-item",
            "datavalue": {
                "type": "wikibase-entityid",
                "value": {"entity-type": "item", "numeric-id": int(qid[1:]), "id": qid},
            },
        }
    m = _LIT.match(obj)
    assert m is not None, obj
    lex, lang, dt = _unesc(m.group(1)), m.group(2), m.group(3)
    facts = dict(node[1]) if node is not None else {}
    if lang:
        dv: dict[str, Any] = {"type": "monolingualtext", "value": {"text": lex, "language": lang}}
        datatype = "monolingualtext"
    elif dt == XSD + "decimal":
        unit = facts.get(WB + "quantityUnit", f"<{WD}Q199>")[1:-1]
        dv = {
            "type": "quantity",
            "value": {"amount": lex, "unit": "1" if unit == WD + "Q199" else unit},
        }
        datatype = "quantity"
    elif dt == XSD + "dateTime":
        prec = int(_LIT.match(facts[WB + "timePrecision"]).group(1))  # type: ignore[union-attr]
        dv = {
            "type": "time",
            "value": {
                "time": _json_time(lex, prec),
                "timezone": 0,
                "before": 0,
                "after": 0,
                "precision": prec,
                "calendarmodel": WD + "Q1985727",
            },
        }
        datatype = "time"
    else:
        dv = {"type": "string", "value": lex}
        datatype = "external-id" if pid in ("P646", "P214") else "string"
    return {"snaktype": "value", "property": pid, "datatype": datatype, "datavalue": dv}


class _Writer:
    def __init__(self, out: TextIO, rng: random.Random, jout: TextIO | None = None) -> None:
        self.out = out
        self.rng = rng
        self.n = 0
        self.buf: list[str] = []
        self.vn = 0
        # JSON dump output: the entity being built, lines not yet written.
        self.jout = jout
        self.ent: dict[str, Any] | None = None
        self.jbuf: list[str] = []
        self.entities = 0

    def _ent(self, q: str) -> dict[str, Any] | None:
        """The JSON entity of item IRI ``q`` (starting a new one, and writing the
        previous, when ``q`` changes); ``None`` without JSON output."""
        if self.jout is None:
            return None
        qid = q[len(WD) :]
        if self.ent is None or self.ent["id"] != qid:
            self.flush_entity()
            self.ent = {
                "type": "item",
                "id": qid,
                "labels": {},
                "descriptions": {},
                "aliases": {},
                "claims": {},
                "sitelinks": {},
            }
        return self.ent

    def flush_entity(self, final: bool = False) -> None:
        if self.jout is None:
            return
        if self.ent is not None:
            line = json.dumps(self.ent, ensure_ascii=False, separators=(",", ":"))
            self.jbuf.append(("[\n" if self.entities == 0 else ",\n") + line)
            self.entities += 1
            self.ent = None
        if final or len(self.jbuf) >= 2048:
            self.jout.write("".join(self.jbuf))
            self.jbuf.clear()
        if final:
            self.jout.write("\n]\n" if self.entities else "[\n]\n")

    def json_statement(
        self,
        q: str,
        pid: str,
        obj: str,
        sid: str,
        rank: str,
        node: Any = None,
        quals: Any = (),
        ref: str | None = None,
    ) -> None:
        ent = self._ent(q)
        if ent is None:
            return
        st: dict[str, Any] = {
            "mainsnak": _snak(pid, obj, node),
            "type": "statement",
            "id": sid.replace("-", "$", 1),
            "rank": _RANKS[rank],
        }
        if quals:
            st["qualifiers"] = {}
            for qpid, qobj, qnode in quals:
                st["qualifiers"].setdefault(qpid, []).append(_snak(qpid, qobj, qnode))
            st["qualifiers-order"] = list(st["qualifiers"])
        if ref is not None:
            st["references"] = [
                {
                    "hash": ref,
                    "snaks": {"P248": [_snak("P248", f"<{WD}Q36578>", None)]},
                    "snaks-order": ["P248"],
                }
            ]
        ent["claims"].setdefault(pid, []).append(st)

    def t(self, s: str, p: str, o: str) -> None:
        self.buf.append(f"<{s}> <{p}> {o} .\n")
        self.n += 1
        if len(self.buf) >= 8192:
            self.flush()

    def flush(self) -> None:
        self.out.write("".join(self.buf))
        self.buf.clear()

    def node(self) -> str:
        self.vn += 1
        return f"{WDV}{self.rng.getrandbits(128):032x}"

    def name(self) -> str:
        return "".join(self.rng.choice(_SYLL) for _ in range(self.rng.randint(2, 4))).title()

    def labels(self, q: str, en: bool = True) -> None:
        for lang in _LANGS:
            if lang == "en" and not en:
                continue
            if lang != "en" and self.rng.random() < 0.5:
                continue
            raw = self.name() + (' "Jr"' if self.rng.random() < 0.02 else "")
            lit = f'"{_esc(raw)}"@{lang}'
            if (ent := self._ent(q)) is not None:
                ent["labels"][lang] = {"language": lang, "value": raw}
            self.t(q, RDFS_LABEL, lit)
            self.t(q, SKOS_PREF, lit)
            self.t(q, SCHEMA + "name", lit)
        ent = self._ent(q)
        if self.rng.random() < 0.7:
            self.t(q, SCHEMA + "description", f'"synthetic item {q[len(WD) :]}"@en')
            self.t(q, SCHEMA + "description", f'"synthetisches Objekt {q[len(WD) :]}"@de')
            if ent is not None:
                ent["descriptions"]["en"] = {
                    "language": "en",
                    "value": f"synthetic item {q[len(WD) :]}",
                }
                ent["descriptions"]["de"] = {
                    "language": "de",
                    "value": f"synthetisches Objekt {q[len(WD) :]}",
                }
        for _ in range(self.rng.randint(0, 2)):
            alias = self.name()
            self.t(q, SKOS_ALT, f'"{_esc(alias)}"@en')
            if ent is not None:
                ent["aliases"].setdefault("en", []).append({"language": "en", "value": alias})

    def sitelinks(self, q: str) -> None:
        for site in ("en", "de"):
            if self.rng.random() < 0.5:
                continue
            title = self.name() + "_(" + q[len(WD) :] + ")"
            if (ent := self._ent(q)) is not None:
                ent["sitelinks"][f"{site}wiki"] = {
                    "site": f"{site}wiki",
                    "title": title.replace("_", " "),
                    "badges": [],
                }
            art = f"https://{site}.wikipedia.org/wiki/{title}"
            self.t(art, RDF_TYPE, f"<{SCHEMA}Article>")
            self.t(art, SCHEMA + "about", f"<{q}>")
            self.t(art, SCHEMA + "inLanguage", f'"{site}"')
            self.t(art, SCHEMA + "isPartOf", f"<https://{site}.wikipedia.org/>")
            self.t(art, SCHEMA + "name", f'"{_esc(title)}"@{site}')

    def statement(
        self,
        q: str,
        pid: str,
        obj: str,
        *,
        rank: str = "NormalRank",
        best: bool = True,
        node: tuple[str, list[tuple[str, str]]] | None = None,
        quals: list[tuple[str, str, tuple[str, list[tuple[str, str]]] | None]] = (),  # type: ignore[assignment]
    ) -> None:
        sid = f"{WDS}{q[len(WD) :]}-{self.rng.getrandbits(64):016x}"
        if best:
            self.t(q, WDT + pid, obj)
        self.t(q, P + pid, f"<{sid}>")
        self.t(sid, RDF_TYPE, f"<{WB}Statement>")
        if best:
            self.t(sid, RDF_TYPE, f"<{WB}BestRank>")
        self.t(sid, WB + "rank", f"<{WB}{rank}>")
        self.t(sid, PS + pid, obj)
        if node is not None:
            nid = self.node()
            self.t(sid, PSV + pid, f"<{nid}>")
            for pp, oo in node[1]:
                self.t(nid, pp, oo)
            self.t(nid, RDF_TYPE, f"<{WB}{node[0]}>")
        for qpid, qobj, qnode in quals:
            self.t(sid, PQ + qpid, qobj)
            if qnode is not None:
                nid = self.node()
                self.t(sid, PQV + qpid, f"<{nid}>")
                for pp, oo in qnode[1]:
                    self.t(nid, pp, oo)
        ref_hash = None
        if self.rng.random() < 0.5:
            ref_hash = f"{self.rng.getrandbits(160):040x}"
            ref = f"{WDREF}{ref_hash}"
            self.t(sid, PROV, f"<{ref}>")
            self.t(ref, RDF_TYPE, f"<{WB}Reference>")
            self.t(ref, PR + "P248", f"<{WD}Q36578>")
        self.json_statement(q, pid, obj, sid[len(WDS) :], rank, node, quals, ref_hash)

    def time_node(self, y: int, m: int, d: int, prec: int) -> tuple[str, list[tuple[str, str]]]:
        sign = "-" if y < 0 else ""
        lit = f'"{sign}{abs(y):04d}-{m:02d}-{d:02d}T00:00:00Z"^^<{XSD}dateTime>'
        return (
            "TimeValue",
            [
                (WB + "timeValue", lit),
                (WB + "timePrecision", f'"{prec}"^^<{XSD}integer>'),
                (WB + "timeTimezone", f'"0"^^<{XSD}integer>'),
                (WB + "timeCalendarModel", f"<{WD}Q1985727>"),
            ],
        )

    def qty_node(self, amount: str, unit: str) -> tuple[str, list[tuple[str, str]]]:
        return (
            "QuantityValue",
            [
                (WB + "quantityAmount", f'"{amount}"^^<{XSD}decimal>'),
                (WB + "quantityUnit", f"<{WD}{unit}>"),
            ],
        )

    def junk(self, q: str) -> None:
        self.t(q, RDF_TYPE, f"<{WB}Item>")
        qid = q[len(WD) :]
        for pid, obj in (
            ("P646", f'"/m/0{self.rng.getrandbits(24):06x}"'),
            ("P214", f'"{self.rng.randint(10**6, 10**9)}"'),
        ):
            self.t(q, WDT + pid, obj)
            self.json_statement(q, pid, obj, f"{qid}-{pid}", "NormalRank")
        data = f"https://www.wikidata.org/wiki/Special:EntityData/{qid}"
        revision = self.rng.randint(1, 10**9)
        if (ent := self._ent(q)) is not None:
            ent["lastrevid"] = revision
        self.t(data, SCHEMA + "version", f'"{revision}"^^<{XSD}integer>')
        self.t(data, WB + "statements", f'"{self.rng.randint(1, 99)}"^^<{XSD}integer>')


def generate(
    path: str | Path, n_triples: int, seed: int = 7, json_path: str | Path | None = None
) -> int:
    """Write about ``n_triples`` triples of synthetic Wikidata N-Triples to ``path``
    (and, with ``json_path``, the same entities as a Wikidata JSON dump); return the exact
    number of triples written. Deterministic for a given seed."""
    rng = random.Random(seed)
    jf = open(json_path, "w", encoding="utf-8", newline="\n") if json_path else None  # noqa: SIM115
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        w = _Writer(f, rng, jf)
        # Class hierarchy: Q1549591 (big city) subclass of Q515 (city).
        w.t(WD + "Q1549591", WDT + "P279", f"<{WD}Q515>")
        w.t(WD + "Q1549591", RDFS_LABEL, '"big city"@en')
        if (ent := w._ent(WD + "Q1549591")) is not None:
            ent["labels"]["en"] = {"language": "en", "value": "big city"}
            w.json_statement(WD + "Q1549591", "P279", f"<{WD}Q515>", "Q1549591-P279", "NormalRank")
        # Occupations, with English labels (some without).
        for i in range(50):
            q = f"{WD}Q{_OCCUPATION_BASE + i}"
            w.labels(q, en=i % 10 != 0)
        # Countries and cities.
        n_countries = 40
        countries = [f"{WD}Q{1000 + i}" for i in range(n_countries)]
        for c in countries:
            w.junk(c)
            w.labels(c)
            w.sitelinks(c)
            w.statement(c, "P31", f"<{WD}Q6256>")
        est_people = max(1, n_triples // 62)
        n_cities = max(10, est_people // 20)
        cities = [f"{WD}Q{200_000 + i}" for i in range(n_cities)]
        for c in cities:
            w.junk(c)
            w.labels(c, en=rng.random() < 0.95)
            w.sitelinks(c)
            cls = "Q1549591" if rng.random() < 0.3 else "Q515"
            w.statement(c, "P31", f"<{WD}{cls}>")
            w.statement(c, "P17", f"<{rng.choice(countries)}>")
            unit, factor = rng.choice(_UNITS_AREA)
            amount = f"+{rng.randint(10, 5000) * factor / 10:.1f}"
            w.statement(
                c,
                "P2046",
                f'"{amount}"^^<{XSD}decimal>',
                node=w.qty_node(amount, unit),
            )
            pop = f"+{rng.randint(1000, 10**7)}"
            w.statement(c, "P1082", f'"{pop}"^^<{XSD}decimal>', node=w.qty_node(pop, "Q199"))
        i = 0
        while w.n < n_triples:
            q = f"{WD}Q{5_000_000 + i * 7}"
            i += 1
            w.junk(q)
            w.labels(q, en=rng.random() < 0.97)
            w.sitelinks(q)
            w.statement(q, "P31", f"<{WD}Q5>")
            y, m, d = rng.randint(1000, 2010), rng.randint(1, 12), rng.randint(1, 28)
            prec = rng.choice([11, 11, 11, 10, 9, 7])
            if rng.random() < 0.01:
                y = -y  # BCE
            node = w.time_node(y, m, d, prec)
            w.statement(q, "P569", node[1][0][1], node=node)
            if rng.random() < 0.8:
                unit, factor = rng.choice(_UNITS_LEN)
                amount = f"+{rng.randint(150, 210) / 100 * factor:.2f}"
                w.statement(
                    q,
                    "P2048",
                    f'"{amount}"^^<{XSD}decimal>',
                    node=w.qty_node(amount, unit),
                )
            for _ in range(rng.randint(0, 3)):
                occ = f"<{WD}Q{_OCCUPATION_BASE + rng.randint(0, 49)}>"
                w.statement(q, "P106", occ)
            if rng.random() < 0.05:
                w.statement(q, "P106", "_:b" + f"{rng.getrandbits(64):016x}")  # some value
            if rng.random() < 0.3:
                w.statement(q, "P1449", f'"{_esc(w.name())}"@en')
            w.statement(q, "P19", f"<{rng.choice(cities)}>")
            # Citizenships: a preferred current one, a normal past one, sometimes deprecated.
            start = w.time_node(rng.randint(1900, 2000), 1, 1, 9)
            w.statement(
                q,
                "P27",
                f"<{rng.choice(countries)}>",
                rank="PreferredRank",
                quals=[("P580", start[1][0][1], start)],
            )
            if rng.random() < 0.3:
                w.statement(q, "P27", f"<{rng.choice(countries)}>", best=False)
            if rng.random() < 0.05:
                w.statement(
                    q, "P27", f"<{rng.choice(countries)}>", rank="DeprecatedRank", best=False
                )
        w.flush()
        w.flush_entity(final=True)
    if jf is not None:
        jf.close()
    return w.n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--triples", type=int, default=1_000_000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--schema-out")
    ap.add_argument("--json-out", help="also write the entities as a Wikidata JSON dump")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    n = generate(args.out, args.triples, args.seed, args.json_out)
    if args.schema_out:
        Path(args.schema_out).write_text(json.dumps(BENCH_SCHEMA, indent=2))
    print(f"wrote {n:,} triples to {args.out}")


if __name__ == "__main__":
    main()
