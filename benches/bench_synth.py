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
  (Algorithm 1 over Python adjacency sets) on 5,000 samples, and the ratio.

Target (issue "Benchmark generation III"): 10,000 validated template items from WD50K in under
10 minutes on 2 cores.

Usage: ``python benches/bench_synth.py [--items 10000] [--samples 100000] [--quick]``
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
    ap.add_argument("--quick", action="store_true", help="1,000 items, 20,000 samples")
    args = ap.parse_args()
    if args.quick:
        args.items, args.samples = 1_000, 20_000
    if not DUMP.exists():
        print(f"the shared WD50K dump is absent ({DUMP}); nothing to measure")
        return 1
    from kgbench.generate.synth.kg import WikidataKG, load_store
    from kgbench.generate.synth.template import SynthSettings, generate_template_items

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
    timing = rep["timing_s"]
    rest = t_gen - sum(timing.values())
    print(
        "time split: "
        + ", ".join(f"{k} {v:.1f} s ({v / t_gen:.0%})" for k, v in timing.items())
        + f", other {rest:.1f} s"
    )
    total = t_load + t_graph + t_gen
    ok = len(items) >= 10_000 and total < 600
    verdict = "PASS" if ok else "FAIL" if len(items) >= 10_000 else "n/a (not a full-size run)"
    print(
        f"\n== summary ==\n{len(items):,} items in {total:.1f} s including loading "
        f"(target: 10,000 in < 600 s): {verdict}"
    )
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
