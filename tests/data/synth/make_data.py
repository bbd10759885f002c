"""Make the SynthKGQA data files shipped with kgbench from the shared WD50K dump
(``../shared/data/wikidata/wd50k/wd50k.nt.gz``; see NOTICE beside this script):

- ``python/kgbench/demo/data/wd50k_sample.nt.gz``: a connected region of WD50K (its truthy
  ``wdt:`` triples between items with an English label, and those labels, plus the labels of
  the properties used), for the demo's SynthKGQA step. The region grows breadth-first from
  a fixed start item, expanding through nodes of degree at most ``--max-degree`` (hubs join
  the region but are not expanded), until it holds ``--nodes`` items.
- ``tests/data/synth/items.jsonl``: ``--items`` template items generated on the whole dump
  (seed 1111, the WD50K conversion schema's Cypher beside the SPARQL), the fixture of
  ``tests/test_synth_fixture.py``.

Run from the repository root: ``.venv/bin/python tests/data/synth/make_data.py``.
Deterministic: the same dump gives byte-identical files.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
WD50K = ROOT.parent / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def _literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def sample(kg: object, start: str, n_nodes: int, max_degree: int) -> list[str]:
    """N-Triples lines of the region (module docstring), sorted."""
    from kgbench.generate.synth.kg import WikidataKG

    assert isinstance(kg, WikidataKG)
    adj: dict[int, set[int]] = {}
    for h, _r, t in kg.triples:
        adj.setdefault(h, set()).add(t)
        adj.setdefault(t, set()).add(h)
    first = kg.index[start]
    region, queue = {first}, deque([first])
    while queue and len(region) < n_nodes:
        v = queue.popleft()
        if len(adj[v]) > max_degree and v != first:
            continue
        for u in sorted(adj[v]):
            if u not in region and len(region) < n_nodes:
                region.add(u)
                queue.append(u)
    lines, props = set(), set()
    for h, r, t in kg.triples:
        if h in region and t in region:
            pid = kg.relations[r]
            props.add(pid)
            lines.add(f"<{WD}{kg.qids[h]}> <{WDT}{pid}> <{WD}{kg.qids[t]}> .")
    for wid in [kg.qids[v] for v in region] + sorted(props):
        if wid in kg.labels:
            lines.add(f"<{WD}{wid}> <{LABEL}> {_literal(kg.labels[wid])}@en .")
    return sorted(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--start", default="Q76", help="start item (default: Q76)")
    ap.add_argument("--nodes", type=int, default=1500)
    ap.add_argument("--max-degree", type=int, default=60)
    ap.add_argument("--items", type=int, default=300)
    args = ap.parse_args()

    from kgbench.fileio import write_jsonl_atomic
    from kgbench.generate.synth.kg import WikidataKG
    from kgbench.generate.synth.template import (
        CypherMapping,
        SynthSettings,
        generate_template_items,
    )
    from kgbench.query.sparql import load_store

    store = load_store([WD50K])
    kg = WikidataKG.from_store(store)
    lines = sample(kg, args.start, args.nodes, args.max_degree)
    out = ROOT / "python" / "kgbench" / "demo" / "data" / "wd50k_sample.nt.gz"
    with gzip.GzipFile(out, "wb", mtime=0) as fh:
        fh.write(("\n".join(lines) + "\n").encode("utf-8"))
    print(f"{out}: {len(lines)} triples")

    schema = json.loads(
        (ROOT / "tests" / "data" / "wd50k" / "wd50k.wd2neo4j.json").read_text(encoding="utf-8")
    )
    settings = SynthSettings(n=args.items, seed=1111, cypher=CypherMapping.of_schema(schema))
    items, _ = generate_template_items(kg, settings, source="wd50k.nt.gz")
    fixture = ROOT / "tests" / "data" / "synth" / "items.jsonl"
    write_jsonl_atomic(fixture, items)
    print(f"{fixture}: {len(items)} items")


if __name__ == "__main__":
    main()
