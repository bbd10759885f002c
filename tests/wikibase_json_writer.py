"""Test-only writers between Wikibase entity JSON and Wikidata RDF, following Wikibase's
documented RDF mapping (https://www.mediawiki.org/wiki/Wikibase/Indexing/RDF_Dump_Format,
Wikibase ``repo/includes/Rdf``).

Used where no real JSON/RDF pair of the same revision exists (``Q42.ttl`` of the 2024-04
dump): the JSON side is written from the RDF side, and the equality tests check that
``kgbench convert`` maps the JSON back to the same graph. What the writer cannot know
from RDF, it sets as Wikibase would write it for that RDF:

- a snak's ``datatype`` is inferred from the value's RDF form (the EntityData Turtle has
  no ``wikibase:propertyType``): item IRI → ``wikibase-item``, Commons ``FilePath`` IRI →
  ``commonsMedia``, other IRI → ``url``, ``xsd:dateTime`` → ``time``, ``xsd:decimal`` →
  ``quantity``, ``geo:wktLiteral`` → ``globe-coordinate``, language-tagged literal →
  ``monolingualtext``, other literal → ``string``;
- ``time``: the RDF's XSD 1.1 year goes back to Wikibase's (negative years one lower at
  year or finer precision), months/days below the precision become ``00``, and a Julian
  date of day precision (which RDF holds converted to Gregorian) is converted back to the
  Julian calendar;
- ``quantity`` unit ``wd:Q199`` is ``"1"``; ``globecoordinate`` from the ``Point`` text;
- only the English Wikipedia sitelink (``enwiki``) is written; references are not.

:func:`rdf_from_entities` goes the other way, for real JSON entities without RDF of the same
revision (Wikidata-Toolkit's fixtures): the triples Wikibase's RdfBuilder writes for the parts
kgbench reads (globe coordinates with Python's ``%.14G``, which matches PHP's float text for
the values these fixtures hold).
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote, unquote

import rdflib
from rdflib import BNode, Literal, URIRef

WD = "http://www.wikidata.org/entity/"
WB = "http://wikiba.se/ontology#"
XSD = "http://www.w3.org/2001/XMLSchema#"
GEO_WKT = "http://www.opengis.net/ont/geosparql#wktLiteral"
MEDIA = "http://commons.wikimedia.org/wiki/Special:FilePath/"
JULIAN = "http://www.wikidata.org/entity/Q1985786"
RDFS_LABEL = URIRef("http://www.w3.org/2000/01/rdf-schema#label")
SKOS_ALT = URIRef("http://www.w3.org/2004/02/skos/core#altLabel")
SCHEMA_DESC = URIRef("http://schema.org/description")
SCHEMA_ABOUT = URIRef("http://schema.org/about")
SCHEMA_PART_OF = URIRef("http://schema.org/isPartOf")
RDF_TYPE = URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


def _gregorian_to_jdn(y: int, m: int, d: int) -> int:
    """Julian day number of a proleptic Gregorian date (astronomical year)."""
    a = (14 - m) // 12
    yy = y + 4800 - a
    mm = m + 12 * a - 3
    return d + (153 * mm + 2) // 5 + 365 * yy + yy // 4 - yy // 100 + yy // 400 - 32045


def _jdn_to_julian(jdn: int) -> tuple[int, int, int]:
    """Julian-calendar date (astronomical year) of a Julian day number."""
    c = jdn + 32082
    d = (4 * c + 3) // 1461
    e = c - 1461 * d // 4
    m = (5 * e + 2) // 153
    day = e - (153 * m + 2) // 5 + 1
    month = m + 3 - 12 * (m // 10)
    year = d - 4800 + m // 10
    return year, month, day


_TIME = re.compile(r"^(-?)(\d+)-(\d\d)-(\d\d)(T.*)$")


def json_time(lex: str, datatype: str | None, precision: int, calendar: str) -> str:
    """The JSON ``time`` of an RDF time value (see the module docstring)."""
    m = _TIME.match(lex)
    if datatype != XSD + "dateTime" or m is None:
        return lex  # Wikibase wrote the JSON text itself
    sign, ys, ms, ds, rest = m.groups()
    year = -int(ys) if sign else int(ys)  # XSD 1.1: astronomical year
    month, day = int(ms), int(ds)
    if calendar == JULIAN and precision >= 11:
        year, month, day = _jdn_to_julian(_gregorian_to_jdn(year, month, day))
    if precision >= 9 and year <= 0:
        year -= 1  # back to Wikibase's years (no year 0)
    if precision <= 9:
        month = day = 0
    elif precision == 10:
        day = 0
    return f"{'-' if year < 0 else '+'}{abs(year):04d}-{month:02d}-{day:02d}{rest}"


def _one(g: rdflib.Graph, s: Any, p: str) -> Any:
    return next(iter(g.objects(s, URIRef(p))), None)


def _snak(
    g: rdflib.Graph, pid: str, value: Any, node: Any, novalue: bool = False
) -> dict[str, Any]:
    if novalue:
        return {"snaktype": "novalue", "property": pid}
    if isinstance(value, BNode) or (
        isinstance(value, URIRef) and "/.well-known/genid/" in str(value)
    ):
        return {"snaktype": "somevalue", "property": pid}
    dt: str
    dv: dict[str, Any]
    if isinstance(value, URIRef):
        iri = str(value)
        if iri.startswith(WD) and re.fullmatch(r"[QPL]\d+", iri[len(WD) :]):
            eid = iri[len(WD) :]
            kind = {"Q": "item", "P": "property", "L": "lexeme"}[eid[0]]
            dt = "wikibase-item" if kind == "item" else f"wikibase-{kind}"
            dv = {
                "type": "wikibase-entityid",
                "value": {"entity-type": kind, "numeric-id": int(eid[1:]), "id": eid},
            }
        elif iri.startswith(MEDIA):
            dt = "commonsMedia"
            dv = {"type": "string", "value": unquote(iri[len(MEDIA) :])}
        else:
            dt = "url"
            dv = {"type": "string", "value": iri}
    else:
        assert isinstance(value, Literal)
        lex = str(value)
        ldt = str(value.datatype) if value.datatype is not None else None
        if ldt == XSD + "dateTime" or (node is not None and _one(g, node, WB + "timeValue")):
            dt = "time"
            precision = int(str(_one(g, node, WB + "timePrecision")))
            calendar = str(_one(g, node, WB + "timeCalendarModel"))
            tz = _one(g, node, WB + "timeTimezone")
            dv = {
                "type": "time",
                "value": {
                    "time": json_time(lex, ldt, precision, calendar),
                    "timezone": int(str(tz)) if tz is not None else 0,
                    "before": 0,
                    "after": 0,
                    "precision": precision,
                    "calendarmodel": calendar,
                },
            }
        elif ldt == XSD + "decimal":
            dt = "quantity"
            unit = str(_one(g, node, WB + "quantityUnit")) if node is not None else "1"
            q: dict[str, Any] = {
                "amount": lex,
                "unit": "1" if unit == WD + "Q199" else unit,
            }
            for key, pred in (
                ("upperBound", "quantityUpperBound"),
                ("lowerBound", "quantityLowerBound"),
            ):
                b = _one(g, node, WB + pred) if node is not None else None
                if b is not None:
                    q[key] = str(b)
            dv = {"type": "quantity", "value": q}
        elif ldt == GEO_WKT:
            dt = "globe-coordinate"
            mm = re.fullmatch(r"(?:<([^>]*)> )?Point\((\S+) (\S+)\)", lex)
            assert mm is not None, lex
            globe, lon, lat = mm.groups()
            prec = _one(g, node, WB + "geoPrecision") if node is not None else None
            dv = {
                "type": "globecoordinate",
                "value": {
                    "latitude": float(lat),
                    "longitude": float(lon),
                    "altitude": None,
                    "precision": float(str(prec)) if prec is not None else None,
                    "globe": globe.replace("%3E", ">") if globe else WD + "Q2",
                },
            }
        elif value.language:
            dt = "monolingualtext"
            dv = {"type": "monolingualtext", "value": {"text": lex, "language": value.language}}
        else:
            dt = "string"
            dv = {"type": "string", "value": lex}
    return {"snaktype": "value", "property": pid, "datatype": dt, "datavalue": dv}


def _node_for(g: rdflib.Graph, st: Any, vpred: str, value: Any) -> Any:
    """The value node of ``st`` (via ``vpred``) that holds ``value``."""
    for node in g.objects(st, URIRef(vpred)):
        for p in ("timeValue", "quantityAmount"):
            v = _one(g, node, WB + p)
            if v is not None and str(v) == str(value):
                return node
    return next(iter(g.objects(st, URIRef(vpred))), None)


def entities_from_rdf(g: rdflib.Graph, prop: str = "http://www.wikidata.org/prop/") -> list[dict]:
    """Wikibase JSON of every item of ``g`` that has labels or statements."""
    ranks = {WB + "PreferredRank": "preferred", WB + "NormalRank": "normal"}
    ranks[WB + "DeprecatedRank"] = "deprecated"
    items = sorted(
        {
            str(s)
            for s in g.subjects()
            if isinstance(s, URIRef) and re.fullmatch(WD + r"Q\d+", str(s))
        },
        key=lambda x: int(x.rsplit("Q", 1)[1]),
    )
    out = []
    for iri in items:
        s = URIRef(iri)
        qid = iri[len(WD) :]
        ent: dict[str, Any] = {"type": "item", "id": qid}
        labels = {
            o.language: {"language": o.language, "value": str(o)} for o in g.objects(s, RDFS_LABEL)
        }
        descs = {
            o.language: {"language": o.language, "value": str(o)} for o in g.objects(s, SCHEMA_DESC)
        }
        aliases: dict[str, list[dict[str, str]]] = {}
        for o in sorted(g.objects(s, SKOS_ALT), key=str):
            aliases.setdefault(o.language, []).append({"language": o.language, "value": str(o)})
        claims: dict[str, list[dict[str, Any]]] = {}
        for pred, st in g.predicate_objects(s):
            m = re.fullmatch(re.escape(prop) + r"(P\d+)", str(pred))
            if m is None:
                continue
            pid = m.group(1)
            novalue = (st, RDF_TYPE, URIRef(f"{prop}novalue/{pid}")) in g
            value = _one(g, st, f"{prop}statement/{pid}")
            if value is None and not novalue:
                continue
            node = (
                _node_for(g, st, f"{prop}statement/value/{pid}", value)
                if value is not None
                else None
            )
            quals: dict[str, list[dict[str, Any]]] = {}
            for qpred, qv in g.predicate_objects(st):
                qm = re.fullmatch(re.escape(prop) + r"qualifier/(P\d+)", str(qpred))
                if qm is None:
                    continue
                qpid = qm.group(1)
                qnode = _node_for(g, st, f"{prop}qualifier/value/{qpid}", qv)
                quals.setdefault(qpid, []).append(_snak(g, qpid, qv, qnode))
            lname = str(st).rsplit("/", 1)[1]
            guid = re.sub(rf"^({qid})-", r"\1$", lname, flags=re.IGNORECASE)
            stmt: dict[str, Any] = {
                "mainsnak": _snak(g, pid, value, node, novalue),
                "type": "statement",
                "id": guid,
                "rank": ranks[str(_one(g, st, WB + "rank"))],
            }
            if quals:
                order = sorted(quals, key=lambda p: int(p[1:]))
                stmt["qualifiers"] = {p: sorted(quals[p], key=json.dumps) for p in order}
                stmt["qualifiers-order"] = order
            claims.setdefault(pid, []).append(stmt)
        for v in claims.values():
            v.sort(key=lambda x: x["id"])
        sitelinks = {}
        for article in g.subjects(SCHEMA_ABOUT, s):
            if str(_one(g, article, str(SCHEMA_PART_OF))) == "https://en.wikipedia.org/":
                title = unquote(str(article).split("/wiki/", 1)[1]).replace("_", " ")
                sitelinks["enwiki"] = {"site": "enwiki", "title": title, "badges": []}
        if not (labels or descs or aliases or claims or sitelinks):
            continue
        # Wikibase writes an empty map as [] (PHP's empty array).
        ent["labels"] = labels or []
        ent["descriptions"] = descs or []
        ent["aliases"] = aliases or []
        ent["claims"] = claims or []
        ent["sitelinks"] = sitelinks or []
        out.append(ent)
    return out


def dump_layout(entities: list[dict]) -> str:
    """The ``latest-all.json`` layout: ``[``, one entity per line ending with ``,``, ``]``."""
    lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in entities]
    return "[\n" + ",\n".join(lines) + "\n]\n"


# ---------------------------------------------------------------------------
# The other direction: N-Triples from entity JSON (Wikibase's RdfBuilder mapping), for real
# JSON entities that have no RDF of the same revision (Wikidata-Toolkit's fixtures).

GREGORIAN = "http://www.wikidata.org/entity/Q1985727"
PROP = "http://www.wikidata.org/prop/"


def nt_escape(text: str, *, ascii_only: bool = False) -> str:
    """``text`` with the N-Triples string escapes (W3C N-Triples §2.4, ECHAR / UCHAR): ``"``
    and ``\\`` backslashed, line feed and carriage return as ``\\n`` / ``\\r``, the other
    control characters below U+0020 as ``\\uXXXX``; with ``ascii_only`` also every character
    above U+007E (``\\uXXXX``, or ``\\UXXXXXXXX`` beyond the BMP)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or (ascii_only and ord(ch) > 0x7E):
            out.append(f"\\u{ord(ch):04X}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08X}")
        else:
            out.append(ch)
    return "".join(out)


def _lit(text: str, suffix: str = "") -> str:
    return '"' + nt_escape(text) + '"' + suffix


def _iri(iri: str) -> str:
    for ch, esc in ((" ", "%20"), ('"', "%22"), ("<", "%3C"), (">", "%3E"), ("\\", "%5C")):
        iri = iri.replace(ch, esc)
    return f"<{iri}>"


def _wf_urlencode(s: str) -> str:
    return quote(s, safe="-_.;@$!*(),/~:").replace("%20", "+")


def rdf_time(time: str, precision: int, calendar: str) -> str | None:
    """Wikibase's RDF lexical form of a time value (``JulianDateTimeValueCleaner``), for the
    values Wikidata holds: ``None`` when Wikibase writes the JSON text itself."""
    m = re.match(r"^([+-])(\d+)-(\d\d)-(\d\d)(T.*)$", time)
    if m is None or int(m.group(2)) == 0:
        return None
    sign, ys, ms, ds, rest = m.groups()
    year = int(ys) * (-1 if sign == "-" else 1)
    month, day = max(1, min(12, int(ms))), max(1, int(ds))
    if calendar == JULIAN and precision >= 11:
        astro = year + 1 if year < 0 else year
        # Julian calendar date -> JDN -> Gregorian (astronomical years).
        a = (14 - month) // 12
        yy, mm = astro + 4800 - a, month + 12 * a - 3
        jdn = day + (153 * mm + 2) // 5 + 365 * yy + yy // 4 - 32083
        b = jdn + 32044
        c = (4 * b + 3) // 146097
        d = b - 146097 * c // 4
        e = (4 * d + 3) // 1461
        f = d - 1461 * e // 4
        g = (5 * f + 2) // 153
        day = f - (153 * g + 2) // 5 + 1
        month = g + 3 - 12 * (g // 10)
        astro = 100 * c + e - 4800 + g // 10
        return f"{'-' if astro < 0 else ''}{abs(astro):04d}-{month:02d}-{day:02d}{rest}"
    if calendar != GREGORIAN and precision >= 11:
        return None
    if precision <= 9:
        month = day = 1
    elif precision == 10:
        day = 1
    if precision >= 9 and year < 0:
        year += 1
    return f"{'-' if year < 0 else ''}{abs(year):04d}-{month:02d}-{day:02d}{rest}"


def _value(snak: dict[str, Any]) -> tuple[str, list[tuple[str, str]] | None]:
    """(N-Triples object, value node triples or None) of a value snak."""
    dv, dt = snak["datavalue"], snak.get("datatype")
    v = dv["value"]
    if dv["type"] == "wikibase-entityid":
        eid = v.get("id") or {"item": "Q", "property": "P"}[v["entity-type"]] + str(v["numeric-id"])
        return f"<{WD}{eid}>", None
    if dv["type"] == "string":
        if dt == "url":
            return _iri(v.strip()), None
        if dt == "commonsMedia":
            return f"<{MEDIA}{quote(v, safe='-_.~')}>", None
        return _lit(v), None
    if dv["type"] == "monolingualtext":
        return _lit(v["text"], "@" + v["language"].lower()), None
    if dv["type"] == "quantity":
        unit = WD + "Q199" if v["unit"] == "1" else v["unit"]
        node = [(WB + "quantityAmount", _lit(v["amount"], f"^^<{XSD}decimal>"))]
        node.append((WB + "quantityUnit", f"<{unit}>"))
        return _lit(v["amount"], f"^^<{XSD}decimal>"), node
    if dv["type"] == "time":
        lex = rdf_time(v["time"], v["precision"], v["calendarmodel"])
        obj = _lit(v["time"]) if lex is None else _lit(lex, f"^^<{XSD}dateTime>")
        node = [(WB + "timeValue", obj)]
        node.append((WB + "timePrecision", _lit(str(v["precision"]), f"^^<{XSD}integer>")))
        return obj, node
    if dv["type"] == "globecoordinate":
        point = f"Point({format(v['longitude'], '.14G')} {format(v['latitude'], '.14G')})"
        if v.get("globe") and v["globe"] != WD + "Q2":
            point = f"<{v['globe']}> {point}"
        return _lit(point, f"^^<{GEO_WKT}>"), None
    raise ValueError(f"no RDF mapping for {dv['type']}")


def rdf_from_entities(entities: list[dict[str, Any]]) -> str:
    """The N-Triples Wikibase's RdfBuilder writes for these entities (the parts kgbench
    reads): terms, the English Wikipedia sitelink, statements with ranks, values, value
    nodes, qualifiers and the truthy ``wdt:`` triples of the best rank."""
    out: list[str] = []
    bnodes = 0

    def t(s: str, p: str, o: str) -> None:
        out.append(f"{s} <{p}> {o} .\n")

    for ent in entities:
        subj = f"<{WD}{ent['id']}>"
        for lang, term in (ent.get("labels") or {}).items():
            t(subj, str(RDFS_LABEL), _lit(term["value"], "@" + lang))
        for lang, term in (ent.get("descriptions") or {}).items():
            t(subj, str(SCHEMA_DESC), _lit(term["value"], "@" + lang))
        for lang, terms in (ent.get("aliases") or {}).items():
            for term in terms:
                t(subj, str(SKOS_ALT), _lit(term["value"], "@" + lang))
        enwiki = (ent.get("sitelinks") or {}).get("enwiki")
        if enwiki:
            title = _wf_urlencode(enwiki["title"].replace(" ", "_"))
            art = f"<https://en.wikipedia.org/wiki/{title}>"
            t(art, str(SCHEMA_ABOUT), subj)
            t(art, str(SCHEMA_PART_OF), "<https://en.wikipedia.org/>")
        for pid, stmts in (ent.get("claims") or {}).items():
            ranks = [st.get("rank", "normal") for st in stmts]
            best = "preferred" if "preferred" in ranks else "normal"
            for st in stmts:
                sid = f"<{WD}statement/{re.sub(r'[^A-Za-z0-9_-]', '-', st['id'])}>"
                t(subj, PROP + pid, sid)
                t(sid, WB + "rank", f"<{WB}{st.get('rank', 'normal').title()}Rank>")
                snaks = [(st["mainsnak"], "statement/", "statement/value/")]
                for qpid in st.get("qualifiers-order") or list(st.get("qualifiers") or {}):
                    for q in st["qualifiers"][qpid]:
                        snaks.append((q, "qualifier/", "qualifier/value/"))
                for i, (sn, ns, vns) in enumerate(snaks):
                    p = sn["property"]
                    if sn["snaktype"] == "novalue":
                        continue
                    if sn["snaktype"] == "somevalue":
                        bnodes += 1
                        obj, node = f"_:sv{bnodes}", None
                    else:
                        obj, node = _value(sn)
                    t(sid, PROP + ns + p, obj)
                    if i == 0 and st.get("rank", "normal") == best:
                        t(subj, PROP + "direct/" + p, obj)
                    if node is not None:
                        bnodes += 1
                        vnode = f"<http://www.wikidata.org/value/n{bnodes}>"
                        t(sid, PROP + vns + p, vnode)
                        for pp, oo in node:
                            t(vnode, pp, oo)
    return "".join(out)
