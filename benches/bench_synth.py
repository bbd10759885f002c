"""Benchmark of SynthKGQA's offline template generation (``kgbench generate synth``) on the real
WD50K Wikidata statements (``../shared/data/wikidata/wd50k/wd50k.nt.gz``).

Prints:

- loading: the dump into the embedded SPARQL store (pyoxigraph) and the truthy-triple graph
  into the Rust sampler;
- seed-graph samples per second (Rust ``KgGraph.seed_graphs``, 10 nodes / 30 triples, the
  paper's ``exp(1/d)`` bias), on 100,000 samples;
- validated template items per minute, and how the generation time divides between sampling,
  embedding and validation (SPARQL execution, full answer subgraph, minimality);
- baseline, in the same process: a straightforward pure-Python version of the sampler
  (Algorithm 1 over Python adjacency sets) on 5,000 samples, and the ratio;
- the Neo4j back end (unless ``--no-neo4j``): kgbench's conversion of the same dump loaded
  into a local Neo4j started for the run, ``--neo4j-items`` (1,000) template items validated
  by Cypher, items per minute and the same time split.

Target (issue "Benchmark generation III"): 10,000 validated template items from WD50K in under
10 minutes on 2 cores.

Usage: ``python benches/bench_synth.py [--items 10000] [--samples 100000] [--neo4j-items 1000]
[--no-neo4j] [--quick]``
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from pathlib import Path

DUMP = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"
)


def python_seed_graph(
    adj: list[set[int]],
    edges: dict[int, list[int]],
    starts: list[int],
    rng: random.Random,
    n_nodes: int = 10,
    n_edges: int = 30,
) -> list[int]:
    """Algorithm 1 in plain Python (the baseline): same rules as the Rust sampler."""
    s = rng.choice(starts)
    nodes, cands, triples = {s}, [s], set()
    order = [s]
    while len(order) < n_nodes and len(triples) < n_edges and cands:
        w = [math.exp(1 / max(1, len(adj[v]))) for v in cands]
        z = rng.choices(cands, w)[0]
        fresh = sorted(adj[z] - nodes)
        if not fresh:
            cands.remove(z)
            continue
        n = rng.choices(fresh, [math.exp(1 / max(1, len(adj[v]))) for v in fresh])[0]
        for j in edges[n]:
            triples.add(j)
        nodes.add(n)
        order.append(n)
        cands.append(n)
    return sorted(triples)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--neo4j-items", type=int, default=1_000)
    ap.add_argument("--no-neo4j", action="store_true", help="skip the Neo4j back end")
    ap.add_argument(
        "--quick", action="store_true", help="1,000 items, 20,000 samples, 200 Neo4j items"
    )
    args = ap.parse_args()
    if args.quick:
        args.items, args.samples, args.neo4j_items = 1_000, 20_000, 200
    if not DUMP.exists():
        print(f"the shared WD50K dump is absent ({DUMP}); nothing to measure")
        return 1
    from kgbench.generate.synth.kg import WikidataKG
    from kgbench.generate.synth.template import SynthSettings, generate_template_items
    from kgbench.query.sparql import load_store

    print(f"cores available: {os.cpu_count()}; load average before: {os.getloadavg()[0]:.1f}")
    t = time.perf_counter()
    store = load_store([DUMP])
    t_load = time.perf_counter() - t
    t = time.perf_counter()
    kg = WikidataKG.from_store(store)
    t_graph = time.perf_counter() - t
    print(
        f"load: dump into pyoxigraph {t_load:.1f} s; truthy graph {t_graph:.1f} s "
        f"({len(kg.qids):,} items, {len(kg.triples):,} triples, {len(kg.relations)} relations)"
    )

    t = time.perf_counter()
    samples = kg.graph.seed_graphs(args.samples, 1111)
    t_rust = time.perf_counter() - t
    rust_rate = args.samples / t_rust
    mean_edges = sum(len(s[1]) for s in samples) / len(samples)
    print(
        f"seed graphs (Rust): {args.samples:,} in {t_rust:.2f} s -> {rust_rate:,.0f} samples/s "
        f"(mean {mean_edges:.1f} triples)"
    )
    adj: list[set[int]] = [set() for _ in kg.qids]
    inc: dict[int, list[int]] = {i: [] for i in range(len(kg.qids))}
    for j, (h, _r, tl) in enumerate(kg.triples):
        adj[h].add(tl)
        adj[tl].add(h)
        inc[h].append(j)
        inc[tl].append(j)
    starts = [v for v in range(len(kg.qids)) if adj[v]]
    # the baseline adds only the triples between n and the node set, like the Rust sampler
    edges = {v: inc[v] for v in inc}
    n_py = min(5_000, args.samples)
    rng = random.Random(1111)
    t = time.perf_counter()
    for _ in range(n_py):
        python_seed_graph(adj, edges, starts, rng)
    t_py = time.perf_counter() - t
    py_rate = n_py / t_py
    print(
        f"seed graphs (pure Python baseline): {n_py:,} in {t_py:.2f} s -> {py_rate:,.0f} "
        f"samples/s; ratio Rust / Python {rust_rate / py_rate:.1f}x"
    )

    t = time.perf_counter()
    items, extra = generate_template_items(kg, SynthSettings(n=args.items, seed=1111))
    t_gen = time.perf_counter() - t
    rep = extra["report"]
    per_min = len(items) / t_gen * 60
    print(
        f"template items: {len(items):,} validated in {t_gen:.1f} s -> {per_min:,.0f} items/min; "
        f"{rep['attempts']:,} seed graphs, acceptance {rep['acceptance']:.1%}; rejections "
        + ", ".join(f"{k} {v}" for k, v in rep["rejections"].items() if v)
    )
    print_time_split(rep["timing_s"], t_gen)
    total = t_load + t_graph + t_gen
    ok = len(items) >= 10_000 and total < 600
    verdict = "PASS" if ok else "FAIL" if len(items) >= 10_000 else "n/a (not a full-size run)"
    print(
        f"\n== summary ==\n{len(items):,} items in {total:.1f} s including loading "
        f"(target: 10,000 in < 600 s): {verdict}"
    )
    if not args.no_neo4j:
        bench_neo4j(args.neo4j_items)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


def print_time_split(timing: dict[str, float], total: float) -> None:
    """The generation time by step; validation broken down into the item's query, the full
    answer subgraph and the minimality queries."""
    top = {k: timing[k] for k in ("sampling_s", "embedding_s", "validation_s") if k in timing}
    rest = total - sum(top.values())
    print(
        "time split: "
        + ", ".join(f"{k} {v:.1f} s ({v / total:.0%})" for k, v in top.items())
        + f", other {rest:.1f} s"
    )
    parts = {k: timing.get(k, 0.0) for k in ("query_s", "full_subgraph_s", "minimality_s")}
    print(
        "  validation: "
        + ", ".join(f"{k} {v:.1f} s ({v / total:.0%})" for k, v in parts.items())
        + f", typing and records {timing.get('validation_s', 0.0) - sum(parts.values()):.1f} s"
    )


def bench_neo4j(n_items: int) -> None:
    """Template items through the Neo4j back end on kgbench's conversion of the dump."""
    import tempfile

    from kgbench.convert import convert
    from kgbench.generate.synth.neo4j_kg import PropertyGraphKG
    from kgbench.generate.synth.template import SynthSettings, generate_template_items
    from kgbench.neo4j import LocalNeo4j, load_graph
    from kgbench.neo4j.executor import GraphReader

    schema = (
        Path(__file__).resolve().parents[1] / "tests" / "data" / "wd50k" / "wd50k.wd2neo4j.json"
    )
    with tempfile.TemporaryDirectory() as tmp:
        convert(str(schema), [str(DUMP)], str(Path(tmp) / "g"))
        with LocalNeo4j(data_dir=Path(tmp) / "neo4j") as server:
            load = load_graph(
                str(Path(tmp) / "g" / "graph.json"), server.uri, wipe=True, progress=False
            )
            reader = GraphReader.connect(server.uri)
            try:
                t = time.perf_counter()
                kg = PropertyGraphKG.from_reader(reader)
                t_read = time.perf_counter() - t
                print(
                    f"\n== Neo4j back end ==\nconverted WD50K: {load.nodes:,} nodes, "
                    f"{load.relationships:,} relationships; read into the sampler in "
                    f"{t_read:.1f} s ({len(kg.eids):,} entities, {len(kg.triples):,} "
                    f"relationships, {len(kg.relations)} types)"
                )
                t = time.perf_counter()
                items, extra = generate_template_items(kg, SynthSettings(n=n_items, seed=1111))
                t_gen = time.perf_counter() - t
            finally:
                reader.close()
    rep = extra["report"]
    print(
        f"template items (Cypher): {len(items):,} validated in {t_gen:.1f} s -> "
        f"{len(items) / t_gen * 60:,.0f} items/min; {rep['attempts']:,} seed graphs, "
        f"acceptance {rep['acceptance']:.1%}; {reader.queries:,} queries, Neo4j "
        f"{reader.neo4j_s:.1f} s"
    )
    print_time_split(rep["timing_s"], t_gen)


if __name__ == "__main__":
    sys.exit(main())
