"""Benchmark of PIPE-Cypher's governed construction (``kgbench generate pipe``): the static gates
over a large candidate file and the diversity selection (spec ``pipe-cypher.md`` §3-§4).

1. **Gates over 100,000 task records.** Records ``{question, cypher, category, graph_profile,
   entity_values}`` are instantiated from realistic Cypher query shapes over a real graph
   profile: the shipped fixture ``tests/data/pipe/`` (``schema.json``, the exported
   ``all.jsonl`` and the accepted rows of the ledger ``records.jsonl``) when present, else
   the demo graph (its CypherBench tasks ``python/kgbench/demo/data/tasks.json`` and a
   hand-written profile of its schema), plus
   shapes derived from the profile for the eight categories. Every record binds its own entity
   names (a few popular names recur, so G11's value cap fires), so questions are distinct; about
   2 % are write queries, 2 % syntax errors and 3 % schema errors (unknown label, property or
   relationship type, wrong direction, undirected pattern, CONTAINS on a question value), so
   every static bucket is exercised. Timed: ``gate_static_file`` (G1-G6 + G11, the Rust
   analysis in parallel, the ledger written), records/s and the funnel. Baseline, on a 5,000
   record subset: ``gate_candidates`` called one record at a time with a shared G11 state (the
   per-candidate path of the pipeline), its rows written as JSON Lines too; the ledgers of
   both paths are compared line by line.
2. **Selection of 3,000 from 50,000 candidates.** 50,000 synthetic accepted ledger rows over
   1 graph × 8 categories (6,250 each; 200 signatures, 60 template families, substructure
   atoms from a pool of about 150, values from 2,000 names, questions of 8-20 words), target
   375 per category. Timed: ``select_candidates`` (the pipeline's entry: ids, tuples, Rust
   ``select_diverse``), and the Rust core alone. Baseline: the pure-Python reference
   (``benches/reference_pipe.py``, every score recomputed from sets at each step) on one
   category (6,250 rows, target 375) against the Rust core on the same tuples: the ratio, the
   pick check (same indices in the same order) and an extrapolated full-size reference time
   (an estimate, not a measurement).

Targets (the issue's benchmark): gates ≥ 20,000 records/s on 2 cores; selection of
3,000 from 50,000 under 30 s.

Usage: ``python benches/bench_pipe.py [--quick] [--records 100000] [--subset 5000]
[--select-rows 50000] [--ref-rows 6250] [--part all|gates|select] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_pipe
from kgbench._core import cypher as _cypher
from kgbench._core.cypher import analyze_queries
from kgbench._core.select import select_diverse
from kgbench.generate.pipe.export import record_id
from kgbench.generate.pipe.gates import (
    DiversityGate,
    GateSettings,
    gate_candidates,
    gate_static_file,
)
from kgbench.generate.pipe.pipeline import select_candidates, selection_tuple
from kgbench.generate.pipe.templates import CATEGORIES, cypher_string

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "pipe"
DEMO_TASKS = ROOT / "python" / "kgbench" / "demo" / "data" / "tasks.json"

#: Gate target per category (G11's value cap: max(2, ⌊375·0.15⌋) = 56 uses).
GATE_TARGET = 375

#: Slot markers: ``@A@``/``@B@`` entity values (a Cypher string literal in the query, the raw
#: value in the question), ``@N@`` a small number.
SLOTS = ("@A@", "@B@")

#: The demo graph's schema (``wikidata_demo.wd2neo4j.json``) as a spec §2.1 profile.
DEMO_PROFILE: dict[str, Any] = {
    "graph_name": "wikidata_demo",
    "node_properties": [
        *(
            {"label": lb, "property": "name", "type": "STRING"}
            for lb in ("Person", "Film", "Album", "Gene", "PrimeNumber", "Article", "Position")
        ),
        {"label": "Person", "property": "date_of_birth", "type": "DATE"},
        {"label": "Person", "property": "date_of_death", "type": "DATE"},
        {"label": "Person", "property": "height_cm", "type": "FLOAT"},
        {"label": "Person", "property": "birth_name", "type": "STRING"},
        {"label": "Person", "property": "pseudonyms", "type": "LIST<STRING>"},
        {"label": "Person", "property": "viaf_ids", "type": "LIST<STRING>"},
        {"label": "Person", "property": "gnd_id", "type": "STRING"},
        {"label": "Person", "property": "occupations", "type": "LIST<STRING>"},
        {"label": "Person", "property": "work_period_start_year", "type": "INTEGER"},
        {"label": "Film", "property": "imdb_id", "type": "STRING"},
        {"label": "Film", "property": "freebase_id", "type": "STRING"},
        {"label": "Film", "property": "duration_minute", "type": "FLOAT"},
        {"label": "Film", "property": "original_title", "type": "STRING"},
        {"label": "Film", "property": "publication_year", "type": "INTEGER"},
        {"label": "Album", "property": "musicbrainz_release_group_id", "type": "STRING"},
        {"label": "Gene", "property": "entrez_gene_id", "type": "STRING"},
        {"label": "Gene", "property": "hgnc_symbol", "type": "STRING"},
        {"label": "Gene", "property": "refseq_rna_ids", "type": "LIST<STRING>"},
        {"label": "Gene", "property": "cytogenetic_location", "type": "STRING"},
        {"label": "Gene", "property": "genomic_start", "type": "INTEGER"},
        {"label": "Gene", "property": "genomic_end", "type": "INTEGER"},
        {"label": "PrimeNumber", "property": "number_of_digits", "type": "INTEGER"},
        {"label": "PrimeNumber", "property": "discovery_date", "type": "DATE"},
        {"label": "Article", "property": "title", "type": "STRING"},
        {"label": "Article", "property": "publication_date", "type": "DATE"},
        {"label": "Article", "property": "doi", "type": "STRING"},
        {"label": "Article", "property": "pubmed_id", "type": "STRING"},
        {"label": "Article", "property": "volume", "type": "STRING"},
        {"label": "Position", "property": "inception", "type": "DATE"},
    ],
    "relationship_properties": [
        {"type": "holdsPosition", "property": "start_date", "value_type": "DATE"},
        {"type": "holdsPosition", "property": "end_date", "value_type": "DATE"},
        {"type": "hasCastMember", "property": "character_role", "value_type": "STRING"},
    ],
    "relationships": [
        {
            "start_label": "PrimeNumber",
            "type": "hasPrimeFactor",
            "end_label": "PrimeNumber",
            "count": 14,
        },
        {"start_label": "Person", "type": "holdsPosition", "end_label": "Position", "count": 9},
        {"start_label": "Film", "type": "hasCastMember", "end_label": "Person", "count": 31},
        {"start_label": "Film", "type": "directedBy", "end_label": "Person", "count": 4},
        {"start_label": "Article", "type": "cites", "end_label": "Article", "count": 57},
    ],
    "categorical_properties": {
        "Gene.cytogenetic_location": ["1p36.33", "4q35.2", "14q32.33", "Xp22.33"],
    },
}


def _words(text: str) -> list[str]:
    return text.split()


FIRST = _words(
    "Ada Alan Amara Anders Barry Beatriz Chen Chiara Dalia Dmitri Elif Emeka Farah Felix "
    "Greta Gustavo Hana Hugo Ines Ivan Jamal Jonas Kaito Kamala Lars Leila Mateo Mei Nadia "
    "Nils Olu Oksana Pablo Priya Quinn Rafael Rosa Sami Sofia Tariq Thea Umar Ursula Vera "
    "Viktor Wen Wiremu Ximena Yara Yusuf Zeynep Zoltan"
)
LAST = _words(
    "Adams Okafor O'Hearn Benetti Castillo Dubois Eriksen Fontaine García Haddad Ibarra "
    "Jansen Kowalski Laurent Mbeki Nakamura Novak Oyelaran Petrov Quispe Rossi Santos "
    "Tanaka Udeh Valdés Weber Xu Yamamoto Zhou Abara Lindqvist D'Souza Morales Nguyen "
    "Østergaard Pereira Schulz Takahashi Vandenberg Walsh"
)
POPULAR = [
    "Douglas Adams",
    "M607",
    "Eugene Loiseau",
    "Khamsa Bab",
    "MPP7-DT",
    "Alessandro Benetti",
    "LINC02100",
    "Where Death Is Most Alive",
    "M82589933",
    "Herwig Richard Gartner",
]


# ---------------------------------------------------------------------------------------
# gate records


def _name(rnd: random.Random) -> str:
    """A fresh-looking entity name (about 80,000 combinations); 3 % a popular one."""
    if rnd.random() < 0.03:
        return rnd.choice(POPULAR)
    return f"{rnd.choice(FIRST)} {rnd.choice('ABCDEFGHJKLMNPRSTVW')}. {rnd.choice(LAST)}"


def _keys(profile: dict[str, Any]) -> dict[str, str]:
    """Each label's key property: ``name`` when it has one, else its first STRING one."""
    props: dict[str, list[str]] = {}
    for p in profile.get("node_properties", []):
        if p.get("type") == "STRING":
            props.setdefault(p["label"], []).append(p["property"])
    return {lb: ("name" if "name" in ps else ps[0]) for lb, ps in props.items()}


def _date_props(profile: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in profile.get("node_properties", []):
        if p.get("type") in ("DATE", "DATE_TIME", "LOCAL_DATE_TIME"):
            out.setdefault(p["label"], p["property"])
    return out


def profile_shapes(profile: dict[str, Any]) -> dict[str, list[tuple[str, str, str | None]]]:
    """Query shapes ``(question, cypher, category)`` over the profile's relationships: valid
    ones for the eight categories and the invalid kinds (``write``, ``syntax``, ``schema``)."""
    keys = _keys(profile)
    dates = _date_props(profile)
    rels = [
        (r["start_label"], r["type"], r["end_label"])
        for r in profile["relationships"]
        if r["start_label"] in keys and r["end_label"] in keys
    ]
    triples = set(rels)
    out: dict[str, list[tuple[str, str, str | None]]] = {
        "valid": [],
        "write": [],
        "syntax": [],
        "schema": [],
    }
    valid = out["valid"]
    for a, r, b in rels:
        ka, kb = keys[a], keys[b]
        valid += [
            (
                f"Which {b} nodes does the {a} '@A@' have a {r} relationship to?",
                f"MATCH (a:{a} {{{ka}: @A@}})-[:{r}]->(b:{b}) RETURN DISTINCT b.{kb} LIMIT 25",
                "simple_retrieval",
            ),
            (
                f"Which {a} nodes have a {r} relationship to the {b} '@A@'?",
                f"MATCH (a:{a})-[:{r}]->(b:{b} {{{kb}: @A@}}) RETURN DISTINCT a.{ka} LIMIT 25",
                "simple_retrieval",
            ),
            (
                f"How many {b} nodes is the {a} '@A@' linked to by {r}?",
                f"MATCH (a:{a} {{{ka}: @A@}})-[:{r}]->(b:{b}) RETURN count(DISTINCT b) AS n",
                "simple_aggregation",
            ),
            (
                f"Does the {a} '@A@' have a {r} relationship to the {b} '@B@'?",
                f"MATCH (a:{a} {{{ka}: @A@}})-[:{r}]->(b:{b} {{{kb}: @B@}}) "
                "RETURN count(b) > 0 AS answer",
                "boolean_existence",
            ),
            (
                f"Which @N@ {a} nodes sharing a {r} target with '@A@' have the most {r} links?",
                f"MATCH (x:{a} {{{ka}: @A@}})-[:{r}]->(:{b})<-[:{r}]-(a:{a}) "
                f"MATCH (a)-[:{r}]->(b:{b}) RETURN a.{ka} AS name, count(DISTINCT b) AS n "
                "ORDER BY n DESC LIMIT @N@",
                "ranking_topk",
            ),
        ]
        if a == b:
            valid.append(
                (
                    f"Which {a} nodes are within two {r} steps of '@A@'?",
                    f"MATCH (a:{a} {{{ka}: @A@}})-[:{r}*1..2]->(b:{b}) RETURN DISTINCT b.{kb}",
                    "path_temporal",
                )
            )
        if b in dates:
            valid.append(
                (
                    f"List the {b} nodes of the {a} '@A@' with their {dates[b]}, earliest first.",
                    f"MATCH (a:{a} {{{ka}: @A@}})-[:{r}]->(b:{b}) "
                    f"RETURN b.{kb}, b.{dates[b]} ORDER BY b.{dates[b]}",
                    "path_temporal",
                )
            )
        for a2, r2, c in rels:
            if a2 != b or c not in keys:
                continue
            kc = keys[c]
            valid += [
                (
                    f"Which {c} nodes are reached from the {a} '@A@' through {r} and then {r2}?",
                    f"MATCH (a:{a} {{{ka}: @A@}})-[:{r}]->(b:{b})-[:{r2}]->(c:{c}) "
                    f"RETURN DISTINCT c.{kc}, b.{kb} LIMIT 25",
                    "complex_retrieval",
                ),
                (
                    f"How many distinct {c} nodes lie two hops ({r}, {r2}) from the {a} '@A@'?",
                    f"MATCH (a:{a} {{{ka}: @A@}})-[:{r}]->(:{b})-[:{r2}]->(c:{c}) "
                    "RETURN count(DISTINCT c) AS n",
                    "complex_aggregation",
                ),
            ]
        for a2, r2, _c in rels:
            if a2 == a and r2 != r:
                valid.append(
                    (
                        f"Which {a} nodes linked by {r} to the {b} '@A@' have no {r2} "
                        "relationship?",
                        f"MATCH (a:{a})-[:{r}]->(b:{b} {{{kb}: @A@}}) WHERE NOT (a)-[:{r2}]->() "
                        f"RETURN DISTINCT a.{ka}",
                        "negation_difference",
                    )
                )
                break
    labels = sorted(keys)
    for lb in labels:
        k = keys[lb]
        out["write"] += [
            (f"Add the {lb} '@A@'.", f"CREATE (n:{lb} {{{k}: @A@}}) RETURN n.{k}", None),
            (
                f"Mark the {lb} '@A@' as reviewed.",
                f"MATCH (n:{lb} {{{k}: @A@}}) SET n.reviewed = true RETURN n.{k}",
                None,
            ),
            (f"Delete the {lb} '@A@'.", f"MATCH (n:{lb} {{{k}: @A@}}) DETACH DELETE n", None),
            (
                f"Make sure the {lb} '@A@' exists.",
                f"MERGE (n:{lb} {{{k}: @A@}}) RETURN n.{k}",
                None,
            ),
            (
                f"Which labels exist besides {lb} '@A@'?",
                "CALL db.labels() YIELD label WHERE label <> @A@ RETURN label",
                None,
            ),
        ]
        out["syntax"] += [
            (f"Show the {lb} '@A@'.", f"MATCH (n:{lb} {{{k}: @A@}}) RETURN n.{k} LIMT 5", None),
            (f"Find the {lb} '@A@'.", f"MATCH (n:{lb} {{{k}: @A@) RETURN n.{k}", None),
            (f"Get the {lb} '@A@'.", f"MATCH (n:{lb} {{{k}: @A@}}) WHERE RETURN n.{k}", None),
            (f"Look up the {lb} '@A@'.", f"MATCH (index:{lb} {{{k}: @A@}}) RETURN index.{k}", None),
        ]
        out["schema"] += [
            (
                f"Show the {lb}Record '@A@'.",
                f"MATCH (n:{lb}Record {{{k}: @A@}}) RETURN n.{k}",
                None,
            ),
            (
                f"What is the nickname of the {lb} '@A@'?",
                f"MATCH (n:{lb} {{{k}: @A@}}) RETURN n.nickname_xyz",
                None,
            ),
            (
                f"Which {lb} nodes are named like '@A@'?",
                f"MATCH (n:{lb}) WHERE n.{k} CONTAINS @A@ RETURN n.{k}",
                None,
            ),
        ]
    for a, r, b in rels:
        ka = keys[a]
        out["schema"].append(
            (
                f"What is linked to the {a} '@A@' by {r} in either direction?",
                f"MATCH (a:{a} {{{ka}: @A@}})-[:{r}]-(x) RETURN DISTINCT x.{ka}",
                None,
            )
        )
        out["schema"].append(
            (
                f"What does the {a} '@A@' relate to by {r}Of?",
                f"MATCH (a:{a} {{{ka}: @A@}})-[:{r}Of]->(x:{b}) RETURN x.{keys[b]}",
                None,
            )
        )
        if (b, r, a) not in triples:
            out["schema"].append(
                (
                    f"Which {a} nodes does the {b} '@A@' have a {r} relationship to?",
                    f"MATCH (b:{b} {{{keys[b]}: @A@}})-[:{r}]->(a:{a}) RETURN DISTINCT a.{ka}",
                    None,
                )
            )
    return out


Shape = tuple[str, str, "str | None", list[str]]


def slot_shape(
    question: str,
    cypher: str,
    category: str | None,
    values: list[str],
    analysis: dict[str, Any],
    categorical: set[str],
) -> Shape:
    """A base record as a shape ``(question, cypher, category, fixed entity values)``: its (at
    most two) string literals that also appear in the question, are not categorical values and
    have 3 characters or more become slots (found by the parser, byte offsets); its other
    entity values stay. A record without such literals is kept as is."""
    slot_of: dict[str, str] = {}
    spans: list[tuple[int, int, str]] = []
    for lit in analysis["string_literals"]:
        v = lit["value"]
        if len(v) < 3 or v in categorical or v not in question:
            continue
        if v not in slot_of:
            if len(slot_of) == len(SLOTS):
                continue
            slot_of[v] = SLOTS[len(slot_of)]
        spans.append((lit["start"], lit["end"], slot_of[v]))
    raw = cypher.encode()
    for start, end, slot in sorted(spans, reverse=True):
        raw = raw[:start] + slot.encode() + raw[end:]
    for v in sorted(slot_of, key=len, reverse=True):
        question = question.replace(v, slot_of[v])
    return question, raw.decode(), category, [v for v in values if v not in slot_of]


def load_base() -> tuple[dict[str, Any], list[tuple[str, str, str | None, list[str]]], str]:
    """The profile and base records ``(question, cypher, category, entity values)``: the
    fixture when present (the exported ``all.jsonl`` and the accepted rows of the ledger
    ``records.jsonl``), else the demo tasks and :data:`DEMO_PROFILE`."""
    if (FIXTURE / "schema.json").is_file() and (FIXTURE / "all.jsonl").is_file():
        profile = json.loads((FIXTURE / "schema.json").read_text(encoding="utf-8"))
        rows: dict[tuple[str, str], dict[str, Any]] = {}
        for name in ("all.jsonl", "records.jsonl"):
            path = FIXTURE / name
            if path.is_file():
                for line in path.read_text(encoding="utf-8").splitlines():
                    r = json.loads(line) if line else {}
                    if r.get("accepted", True) and r.get("cypher"):
                        rows.setdefault((r["question"], r["cypher"]), r)
        base = [
            (
                r["question"],
                r["cypher"],
                r.get("category"),
                [str(v) for v in r.get("entity_values") or []],
            )
            for r in rows.values()
        ]
        return (
            profile,
            base,
            (
                f"fixture {FIXTURE.relative_to(ROOT)} ({len(base)} distinct "
                "accepted rows of all.jsonl and records.jsonl)"
            ),
        )
    tasks = json.loads(DEMO_TASKS.read_text(encoding="utf-8"))
    base = [(t["nl_question"], t["gold_cypher"], None, []) for t in tasks]
    return DEMO_PROFILE, base, f"demo {DEMO_TASKS.relative_to(ROOT)} ({len(tasks)} tasks)"


def build_records(
    n: int, seed: int = 7
) -> tuple[dict[str, Any], list[dict[str, Any]], str, dict[str, int]]:
    """``n`` gate candidates: 93 % valid (half from the base records' shapes, half from the
    profile's; 0.5 % base records without a slot, as they are), 2 % write, 2 % syntax, 3 %
    schema errors; each with its own entity names."""
    profile, base, source = load_base()
    categorical = {v for vals in profile.get("categorical_properties", {}).values() for v in vals}
    analyses = analyze_queries([b[1] for b in base], json.dumps(profile), [b[0] for b in base])
    base_shapes = [
        slot_shape(q, c, cat, vals, a, categorical)
        for (q, c, cat, vals), a in zip(base, analyses, strict=True)
    ]
    shapes: dict[str, list[Shape]] = {
        k: [(q, c, cat, []) for q, c, cat in v] for k, v in profile_shapes(profile).items()
    }
    slotted = [s for s in base_shapes if "@A@" in s[1]] or shapes["valid"]
    fixed = [s for s in base_shapes if "@A@" not in s[1]]
    graph = str(profile.get("graph_name") or "graph")
    rnd = random.Random(seed)
    kinds: Counter[str] = Counter()
    out = []
    for _ in range(n):
        x = rnd.random()
        kind = (
            "write"
            if x < 0.02
            else "syntax"
            if x < 0.04
            else "schema"
            if x < 0.07
            else "fixed"
            if x < 0.075 and fixed
            else "base"
            if x < 0.5375
            else "profile"
        )
        kinds[kind] += 1
        pool = {"fixed": fixed, "base": slotted, "profile": shapes["valid"]}.get(kind)
        question, cypher, category, fixed_values = rnd.choice(pool or shapes[kind])
        values = list(fixed_values)
        for slot in SLOTS:
            if slot in cypher:
                v = _name(rnd)
                while v in values:
                    v = _name(rnd)
                values.append(v)
                cypher = cypher.replace(slot, cypher_string(v))
                question = question.replace(slot, v)
        if "@N@" in cypher:
            k = str(rnd.choice((3, 5, 10)))
            cypher, question = cypher.replace("@N@", k), question.replace("@N@", k)
        out.append(
            {
                "question": question,
                "cypher": cypher,
                "category": category,
                "graph_profile": graph,
                "entity_values": values,
            }
        )
    shape_counts = {
        "base shapes": len(slotted),
        "profile shapes": len(shapes["valid"]),
        "fixed base records": len(fixed),
        **{f"{k} shapes": len(v) for k, v in shapes.items() if k != "valid"},
    }
    return profile, out, source, {**shape_counts, **{f"drawn {k}": v for k, v in kinds.items()}}


def bench_gates(args: argparse.Namespace, d: Path) -> dict[str, Any]:
    print("\n== 1. static gates (G1-G6 + G11) ==")
    t0 = time.perf_counter()
    profile, cands, source, shape_counts = build_records(args.records)
    print(
        f"source: {source}; profile {profile.get('graph_name')!r}: "
        f"{len(profile['node_properties'])} node properties, "
        f"{len(profile['relationships'])} relationship triples"
    )
    print("shapes: " + ", ".join(f"{k} {v:,}" for k, v in shape_counts.items()))
    print(
        f"built {len(cands):,} records in {time.perf_counter() - t0:.1f} s "
        f"({len({c['question'] for c in cands}):,} distinct questions)"
    )
    settings = GateSettings(target=GATE_TARGET, execute=False)

    gate_static_file(cands[:2000], profile=profile, path=d / "warm.jsonl", settings=settings)
    runs = []
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), _cpu()
        funnel = gate_static_file(
            cands, profile=profile, path=d / "ledger.jsonl", settings=settings
        )
        runs.append((time.perf_counter() - t0, _cpu() - c0))
    print(
        "gate_static_file runs (wall s / CPU-s): "
        + ", ".join(f"{w:.2f} / {c:.2f}" for w, c in runs)
    )
    wall, cpu = min(runs)
    rate = len(cands) / wall
    size = (d / "ledger.jsonl").stat().st_size / 1e6
    print(
        f"gate_static_file: {len(cands):,} records in {wall:.2f} s wall (best of "
        f"{args.repeat}) -> {rate:,.0f} records/s; {cpu:.2f} CPU-s; ledger {size:.0f} MB"
    )
    print("funnel: " + json.dumps(funnel))
    t0, c0 = time.perf_counter(), _cpu()
    _analyze_json(
        [c["cypher"] for c in cands],
        json.dumps(profile),
        [c["question"] for c in cands],
        [c["entity_values"] for c in cands],
    )
    an_wall, an_cpu = time.perf_counter() - t0, _cpu() - c0
    print(
        f"of which (measured separately) the Rust analysis, serialised as the file path does: "
        f"{an_wall:.2f} s wall, {an_cpu:.2f} CPU-s ({len(cands) / an_cpu:,.0f} records per "
        f"CPU-second); the rest (G11 and decisions in Python, JSON lines, writing) about "
        f"{max(0.0, cpu - an_cpu):.2f} CPU-s"
    )

    # the per-candidate path on a subset, against the batch path on the same subset
    sub = cands[: args.subset]
    t0 = time.perf_counter()
    sub_funnel = gate_static_file(
        sub, profile=profile, path=d / "batch_sub.jsonl", settings=settings
    )
    batch_s = time.perf_counter() - t0
    div = DiversityGate(settings.target, settings.value_cap_share)
    t0 = time.perf_counter()
    with (d / "single_sub.jsonl").open("w", encoding="utf-8") as fh:
        for c in sub:
            row = gate_candidates(
                [c], reader=None, profile=profile, settings=settings, diversity=div
            )[0]
            fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
    single_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = gate_candidates(sub, reader=None, profile=profile, settings=settings)
    dicts_s = time.perf_counter() - t0
    a = (d / "batch_sub.jsonl").read_text(encoding="utf-8").splitlines()
    b = (d / "single_sub.jsonl").read_text(encoding="utf-8").splitlines()
    same = sum(json.loads(x) == json.loads(y) for x, y in zip(a, b, strict=True))
    n = len(sub)
    print(
        f"subset of {n:,}: gate_static_file {batch_s:.3f} s ({n / batch_s:,.0f} records/s); "
        f"gate_candidates one record at a time + JSON lines {single_s:.3f} s "
        f"({n / single_s:,.0f} records/s); gate_candidates on the whole subset (dicts, "
        f"no file) {dicts_s:.3f} s ({n / dicts_s:,.0f} records/s)"
    )
    print(
        f"ratio batch file path / per-candidate path (subset of {n:,}): {single_s / batch_s:,.1f}x"
    )
    accepted = sum(r["accepted"] for r in rows)
    print(
        f"ledger lines identical between the two paths: {same:,} / {n:,}; subset funnel "
        f"{json.dumps(sub_funnel)} (dict path accepted {accepted:,})"
    )
    buckets = ("diversity", "read_only", "syntax", "schema")
    return {
        "records": len(cands),
        "wall": wall,
        "cpu": cpu,
        "rate": rate,
        "funnel": funnel,
        "subset": n,
        "ratio": single_s / batch_s,
        "same": same == n,
        "all_buckets": all(funnel[k] > 0 for k in buckets),
    }


# ---------------------------------------------------------------------------------------
# selection rows

LABELS = [
    "Person",
    "Account",
    "Company",
    "Loan",
    "Medium",
    "Post",
    "Comment",
    "Tag",
    "Forum",
    "City",
    "Country",
    "Officer",
]
RELS = [
    "OWN",
    "TRANSFER",
    "DEPOSIT",
    "REPAY",
    "APPLY",
    "GUARANTEE",
    "INVEST",
    "SIGN_IN",
    "HAS_TAG",
    "HAS_CREATOR",
    "REPLY_OF",
    "CONTAINER_OF",
    "IS_LOCATED_IN",
    "KNOWS",
    "OFFICER_OF",
]
PROPS = _words(
    "id name accountType isBlocked createTime amount balance nickname email gender birthday "
    "creationDate content length language title browserUsed locationIP firstName lastName "
    "url riskLevel status jurisdiction sourceID countryCodes incorporationDate note valid_until "
    "loanUsage interestRate orgType business mediaType isLoanHolder rank score topic "
    "kind"
)
AGGS = ["COUNT", "SUM", "AVG", "MIN", "MAX", "COLLECT"]
PREDS = ["=", "<>", "<", "<=", ">", ">=", "IN", "STARTS WITH", "IS NULL", "IS NOT NULL"]
STRATEGIES = ["single_hop", "join_heavy", "aggregation", "order_rank", "negation", "path"]
FLAGS = ["distinct", "limit", "optional", "order", "where"]
VOCAB = _words(
    "which what how many who list show give find the a of in with by for to from that "
    "have has been are is was were did does all each most least top total number average "
    "account accounts person people company companies loan loans medium post posts "
    "comment comments tag tags forum forums city country officer officers transfer "
    "transfers deposit deposits repaid applied guaranteed invested signed owned created "
    "replied located knows blocked risk high low amount balance date year since before "
    "after between more than fewer at least one two three distinct different largest "
    "smallest earliest latest recent older newer related linked connected through via "
    "directly indirectly any no none not never also only both either"
)


def selection_rows(per_category: int, seed: int = 13) -> list[dict[str, Any]]:
    """Synthetic accepted ledger rows: 1 graph × 8 categories, ``per_category`` each."""
    rnd = random.Random(seed)
    triples = sorted(
        {(rnd.choice(LABELS), rnd.choice(RELS), rnd.choice(LABELS)) for _ in range(70)}
    )[:50]
    names = sorted(
        {f"{rnd.choice(FIRST)} {rnd.choice(LAST)}{rnd.randrange(100)}" for _ in range(2100)}
    )[:2000]
    name_weights = [1.0 / (i + 1) ** 0.8 for i in range(len(names))]  # Zipf-like

    def signature_base(cat: str, k: int) -> dict[str, Any]:
        ts = rnd.sample(triples, rnd.randint(1, 3))
        labels = sorted({t[0] for t in ts} | {t[2] for t in ts})
        rels = sorted({t[1] for t in ts})
        props = rnd.sample(PROPS, rnd.randint(1, 4))
        strategy = rnd.choice(STRATEGIES)
        aggs = rnd.sample(AGGS, rnd.randint(0, 2)) if "aggregation" in cat else []
        preds = rnd.sample(PREDS, rnd.randint(0, 2))
        flags = sorted(rnd.sample(FLAGS, rnd.randint(0, 2)))
        subs = (
            [f"label:{x}" for x in labels]
            + [f"rel:{x}" for x in rels]
            + [f"triple:{a}-[{r}:out]->{b}" for a, r, b in ts]
            + [f"prop:{p}" for p in props]
            + [f"agg:{x}" for x in aggs]
            + [f"pred:{x}" for x in preds]
            + [f"strategy:{strategy}", f"rel_count:{len(ts)}", f"return_arity:{rnd.randint(1, 3)}"]
        )
        text = " ".join(
            f"match (<var>:{a.lower()})-[:{r.lower()}]->(<var>:{b.lower()})" for a, r, b in ts
        )
        return {
            "signature": f"{text} where <var>.{props[0].lower()} = <str> return "
            f"<var>.{props[-1].lower()} -- {cat} {k}",
            "labels": labels,
            "rels": rels,
            "props": props,
            "subs": subs,
            "operator": f"{strategy}+{'+'.join(flags) or 'plain'}",
        }

    rows: list[dict[str, Any]] = []
    for ci, cat in enumerate(CATEGORIES):
        sigs = [signature_base(cat, k) for k in range(25)]  # 200 signatures in all
        families = []
        for f in range(ci, 60, 8):  # 60 families, 7-8 per category
            words = rnd.sample(VOCAB, rnd.randint(5, 8))
            if f % 3 == 0:
                families.append(({"schema_template_kind": f"{cat}_{f}"}, None, words))
            else:
                families.append(
                    (
                        {},
                        " ".join(words[:3]) + " {x} " + " ".join(words[3:]) + f" family {f}",
                        words,
                    )
                )
        for k in range(per_category):
            s = rnd.choice(sigs)
            meta, template, words = rnd.choice(families)
            values = rnd.choices(names, weights=name_weights, k=rnd.choice((0, 1, 1, 2)))
            n_tokens = rnd.randint(8, 20)
            extra = rnd.choices(VOCAB, k=max(0, n_tokens - len(words) - len(values)))
            question = " ".join([*words, *extra, *values]) + "?"
            subs = list(s["subs"])
            if rnd.random() < 0.3:
                subs.append(f"prop:{rnd.choice(PROPS)}")
            rows.append(
                {
                    "graph_profile": "bench_graph",
                    "category": cat,
                    "question": question,
                    "cypher": f"MATCH (n:{s['labels'][0]}) RETURN n LIMIT {k + 1} // {ci}",
                    "signature": s["signature"],
                    "template": template,
                    "template_metadata": meta,
                    "entity_values": values,
                    "accepted": True,
                    "validation": {
                        "read_only": True,
                        "syntax_valid": True,
                        "schema_valid": True,
                        "operator_combination": s["operator"],
                        "substructures": sorted(set(subs)),
                        "structural_features": {
                            "labels": s["labels"],
                            "relationship_types": s["rels"],
                            "properties": s["props"],
                        },
                    },
                    "execution": {"success": True},
                    "judge": {
                        "passed": True,
                        "semantic_alignment_score": rnd.choice((0.8, 0.85, 0.9, 0.95, 1.0)),
                        "schema_use_score": rnd.choice((0.9, 1.0, 1.0)),
                    },
                }
            )
    return rows


def bench_select(args: argparse.Namespace) -> dict[str, Any]:
    print("\n== 2. diversity selection ==")
    per_cat = args.select_rows // len(CATEGORIES)
    target = args.select_target
    t0 = time.perf_counter()
    rows = selection_rows(per_cat)
    print(
        f"built {len(rows):,} rows ({len(CATEGORIES)} categories × {per_cat:,}) in "
        f"{time.perf_counter() - t0:.1f} s"
    )
    ids = [record_id(r["graph_profile"], r["category"], r["question"], r["cypher"]) for r in rows]
    tuples = [selection_tuple(r, i) for r, i in zip(rows, ids, strict=True)]
    print(
        f"variety: {len({t[2] for t in tuples})} signatures, {len({t[3] for t in tuples})} "
        f"families, {len({t[4] for t in tuples})} operator combinations, "
        f"{len({a for t in tuples for a in t[5]})} substructure atoms, "
        f"{len({a for t in tuples for a in t[7]})} values, "
        f"{len({a for t in tuples for a in t[8]})} question words"
    )

    t0, c0 = time.perf_counter(), _cpu()
    selected, report = select_candidates(rows, target, seed=13)
    entry_s, entry_cpu = time.perf_counter() - t0, _cpu() - c0
    t0 = time.perf_counter()
    groups = select_diverse(tuples, target, "13")
    core_s = time.perf_counter() - t0
    g0 = next(iter(report["groups"].values()))
    print(
        f"select_candidates: {len(selected):,} of {len(rows):,} in {entry_s:.2f} s wall "
        f"({entry_cpu:.2f} CPU-s; ids, tuples and the Rust core); Rust select_diverse "
        f"alone: {core_s:.2f} s"
    )
    print(f"first group: {json.dumps(g0)}")
    caps = Counter()
    for g in groups:
        caps.update(g["cap_events"])
    print(f"cap events over all groups: {dict(caps)}")

    # the Python reference on one category, against the Rust core on the same tuples
    m = min(args.ref_rows, per_cat)
    ref_target = min(target, m)
    sub = [t for t in tuples if t[0] == tuples[0][0]][:m]
    t0 = time.perf_counter()
    rust = select_diverse(sub, ref_target, "13")
    rust_s = time.perf_counter() - t0
    print(f"reference subset: 1 category, {m:,} rows, target {ref_target} ...", flush=True)
    t0 = time.perf_counter()
    ref = reference_pipe.select_diverse(sub, ref_target, "13")
    ref_s = time.perf_counter() - t0
    same = [g["picked"] for g in rust] == [g["picked"] for g in ref]
    print(
        f"Python reference: {ref_s:.1f} s; Rust select_diverse on the same tuples: "
        f"{rust_s * 1000:.1f} ms"
    )
    print(
        f"ratio Python reference / Rust on the subset ({m:,} rows, target {ref_target}): "
        f"{ref_s / rust_s:,.0f}x"
    )
    print(
        f"picks identical (indices and order): {'yes' if same else 'NO'}; whole reports "
        f"identical: {'yes' if rust == ref else 'NO'}"
    )
    if not same:
        a, b = rust[0]["picked"], ref[0]["picked"]
        k = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
        print(
            f"first difference at pick {k}: Rust {a[k] if k is not None else None}, "
            f"reference {b[k] if k is not None else None}"
        )
    # the reference's work per group grows about as n·T² (every remaining candidate's
    # Jaccard against every pick); the full input has len(groups) groups of per_cat rows
    scale = (per_cat * min(target, per_cat) ** 2) / (m * ref_target**2)
    estimate = ref_s * scale * len(groups)
    print(
        f"ESTIMATE (not measured) of the reference on the full {len(rows):,} rows: "
        f"~{estimate:,.0f} s = {len(groups)} groups × {ref_s:.1f} s"
        + (f" × {scale:.2f} (n·T² scaling)" if scale != 1 else "")
        + f" -> ~{estimate / entry_s:,.0f}x the select_candidates time"
    )
    return {
        "rows": len(rows),
        "selected": len(selected),
        "wall": entry_s,
        "core": core_s,
        "ref_rows": m,
        "ref_target": ref_target,
        "ref_s": ref_s,
        "rust_sub_s": rust_s,
        "same": same,
        "estimate": estimate,
    }


def _analyze_json(*args: Any) -> list[Any]:
    """The serialised Rust analysis ``gate_static_file`` uses (``analyze_queries(...,
    as_json=True)``, formerly ``analyze_queries_json``)."""
    legacy = getattr(_cypher, "analyze_queries_json", None)
    if legacy is not None:
        return legacy(*args, [])  # type: ignore[no-any-return]
    return analyze_queries(*args, [], True)  # type: ignore[call-overload,no-any-return]


def _cpu() -> float:
    """CPU seconds of this process, all threads."""
    t = os.times()
    return t.user + t.system


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="smaller run: 10,000 records, 8,000 rows, reference on 1,000 rows",
    )
    ap.add_argument("--records", type=int, default=100_000, help="gate candidates")
    ap.add_argument("--subset", type=int, default=5_000, help="per-candidate baseline size")
    ap.add_argument("--repeat", type=int, default=3, help="gate runs (best taken)")
    ap.add_argument("--select-rows", type=int, default=50_000)
    ap.add_argument("--select-target", type=int, default=375, help="target per category")
    ap.add_argument(
        "--ref-rows",
        type=int,
        default=6_250,
        help="rows of the one category the Python reference runs on",
    )
    ap.add_argument("--keep", type=Path, help="directory to keep the ledgers in")
    ap.add_argument("--part", choices=("all", "gates", "select"), default="all")
    args = ap.parse_args()
    if args.quick:
        args.records, args.subset, args.repeat = 10_000, 1_000, 1
        args.select_rows, args.select_target, args.ref_rows = 8_000, 100, 1_000

    tmp = tempfile.TemporaryDirectory(prefix="kgbench-bench-pipe-")
    d = args.keep or Path(tmp.name)
    d.mkdir(parents=True, exist_ok=True)
    print(
        f"cores available: {len(os.sched_getaffinity(0))}; "
        f"load average before: {os.getloadavg()[0]:.1f}"
    )
    g = bench_gates(args, d) if args.part in ("all", "gates") else None
    s = bench_select(args) if args.part in ("all", "select") else None
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    print("\n== summary ==")
    ok = True
    if g is not None:
        ok &= _gate_summary(g)
    if s is not None:
        ok &= _select_summary(s)
    return 0 if ok else 1


def _gate_summary(g: dict[str, Any]) -> bool:
    gate_ok = g["rate"] >= 20_000
    print(
        f"gates: {g['records']:,} records in {g['wall']:.2f} s -> {g['rate']:,.0f} records/s "
        f"(target >= 20,000): {'PASS' if gate_ok else 'FAIL'}; {g['cpu']:.2f} CPU-s -> "
        f"{g['records'] / g['cpu']:,.0f} records per CPU-second"
    )
    print(
        f"gates: every static bucket hit: {'yes' if g['all_buckets'] else 'NO'}; "
        f"batch file path {g['ratio']:,.1f}x the per-candidate path on {g['subset']:,} "
        f"records, ledgers identical: {'yes' if g['same'] else 'NO'}"
    )
    return bool(gate_ok and g["same"] and g["all_buckets"])


def _select_summary(s: dict[str, Any]) -> bool:
    sel_ok = s["wall"] < 30
    print(
        f"selection: {s['selected']:,} of {s['rows']:,} in {s['wall']:.2f} s "
        f"(Rust core {s['core']:.2f} s) (target < 30 s): {'PASS' if sel_ok else 'FAIL'}"
    )
    print(
        f"selection: Python reference {s['ref_s']:.1f} s vs Rust "
        f"{s['rust_sub_s'] * 1000:.1f} ms on {s['ref_rows']:,} rows / target "
        f"{s['ref_target']} ({s['ref_s'] / s['rust_sub_s']:,.0f}x), picks identical: "
        f"{'yes' if s['same'] else 'NO'}; full-size reference ESTIMATE ~{s['estimate']:,.0f} s"
    )
    return bool(sel_ok and s["same"])


if __name__ == "__main__":
    sys.exit(main())
