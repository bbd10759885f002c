"""Benchmark: GTSQA isomorphism types of 1,000,000 random answer subgraphs.

Input: random answer subgraphs of 1-6 edges, as lists of (head, relation, tail)
triples of Wikidata-like string ids with random edge directions (about 5% are
made invalid by an extra edge, which closes a cycle or adds a hanging branch).

Compared in the same process on the same input:

- ``kgbench.iso.isomorphism_types`` (Rust, rayon; the timing includes reading
  the Python objects and building the result list), on all items, as
  (edges, answer, seeds) tuples and as GTSQA record dicts;
- a straightforward pure-Python AHU implementation (below), on a random sample
  (``--python-sample``, default 200,000) whose throughput is extrapolated to
  all items: the output says so.

File path (the bulk path for big GTSQA-style files): the same subgraphs are
written once as GTSQA JSONL (not timed) and compared:

- ``kgbench.iso.isomorphism_types_jsonl`` (Rust: read, parse with serde_json,
  classify in parallel; no Python object per record except the result list),
  on the whole file;
- the pure-Python baseline doing ``json.loads`` + the same AHU per line, on the
  lines of a random sample held in memory (file reading not timed, which
  favours Python), extrapolated to all lines: the output says so.

Both must agree on every sampled item. The input is frozen out of the cyclic
GC (``gc.freeze()``) and every timed run is warm (string hashes cached; the
first, cold call is reported too). Wall-clock figures depend on the machine's
load, so CPU time per item is printed as well. Usage:
``python benches/bench_iso.py [--n 1000000] [--python-sample 200000] [--no-file]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from kgbench.iso import isomorphism_types, isomorphism_types_jsonl

Subgraph = tuple[list[tuple[str, str, str]], str, list[str]]


def random_subgraph(rng: random.Random) -> Subgraph:
    """A random answer tree of 1-6 edges (random recursive tree, random answer
    node, seeds = the other leaves), ~5% spoiled by one extra edge."""
    n_edges = rng.randint(1, 6)
    parent = [-1] + [rng.randrange(i) for i in range(1, n_edges + 1)]
    ids = [f"Q{rng.randrange(1, 10**8)}" for _ in range(n_edges + 1)]
    edges = []
    for child in range(1, n_edges + 1):
        h, t = ids[parent[child]], ids[child]
        if rng.random() < 0.5:
            h, t = t, h
        edges.append((h, f"P{rng.randrange(1, 2000)}", t))
    degree = [0] * (n_edges + 1)
    for child in range(1, n_edges + 1):
        degree[child] += 1
        degree[parent[child]] += 1
    answer = rng.randrange(n_edges + 1)
    seeds = [ids[v] for v in range(n_edges + 1) if degree[v] == 1 and v != answer]
    if rng.random() < 0.05:
        other = ids[rng.randrange(n_edges + 1)]
        extra = f"Q{rng.randrange(1, 10**8)}" if rng.random() < 0.5 else ids[0]
        edges.append((other, "P31", extra))
    rng.shuffle(edges)
    return edges, ids[answer], seeds


# --- straightforward pure-Python baseline (same notation and canonical order) ---


def python_isomorphism_type(edges: list[Any], answer: Any, seeds: list[Any]) -> str | None:
    """GTSQA identifier by recursive AHU in plain Python; None if not a valid answer tree."""
    adjacency: dict[Any, list[Any]] = defaultdict(list)
    for edge in edges:
        head, tail = edge[0], edge[-1]
        if head == tail:
            return None
        adjacency[head].append(tail)
        adjacency[tail].append(head)
    seed_set = set(seeds)
    if not edges or not seed_set or answer in seed_set or answer not in adjacency:
        return None
    if len(edges) != len(adjacency) - 1:  # a connected graph with V-1 edges is a tree
        return None
    for node, neighbors in adjacency.items():
        if (len(neighbors) == 1) != (node in seed_set) and node != answer:
            return None
    if not seed_set <= adjacency.keys():
        return None
    seen = {answer}
    stack = [answer]
    while stack:
        for w in adjacency[stack.pop()]:
            if w not in seen:
                seen.add(w)
                stack.append(w)
    if len(seen) != len(adjacency):
        return None

    def term(node: Any, parent: Any) -> tuple[tuple[Any, ...], str]:
        """(sort key, text) of the branch entering ``node`` from ``parent``."""
        k = 1
        children = [w for w in adjacency[node] if w != parent]
        while len(children) == 1:
            parent, node = node, children[0]
            children = [w for w in adjacency[node] if w != parent]
            k += 1
        if not children:
            return (k, k, k, ()), f"({k})"
        subs = sorted((term(c, node) for c in children), reverse=True)
        size = k + sum(s[0][0] for s in subs)
        depth = k + max(s[0][1] for s in subs)
        text = "(" + (str(k) if k > 1 else "") + "".join(s[1] for s in subs) + ")"
        return (size, depth, k, tuple(s[0] for s in subs)), text

    branches = sorted((term(c, answer) for c in adjacency[answer]), reverse=True)
    return "".join(b[1] for b in branches)


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="number of subgraphs")
    parser.add_argument(
        "--python-sample", type=int, default=200_000, help="items timed for the Python baseline"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-file", action="store_true", help="skip the JSONL file path")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    items = [random_subgraph(rng) for _ in range(args.n)]
    records = [
        {"answer_subgraph": e, "answer_node": a, "seed_entities": s, "question": "?"}
        for e, a, s in items
    ]
    n_edges = sum(len(e) for e, _, _ in items)
    print(
        f"input: {args.n:,} random answer subgraphs, {n_edges:,} triples "
        f"(generated in {time.perf_counter() - t0:.1f} s); cores: {os.cpu_count()}"
    )

    # The input is long-lived: keep the cyclic GC from rescanning it inside the
    # timed sections (same treatment for both implementations).
    gc.collect()
    gc.freeze()
    # First contact computes (and caches) the hash of every id string; time it
    # separately, then time a warm run: the Python baseline also runs warm.
    t0 = time.perf_counter()
    isomorphism_types(items)
    cold_s = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    rust_out = isomorphism_types(items)
    rust_s, rust_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    rust_records_out = isomorphism_types(records)
    rust_records_s = time.perf_counter() - t0
    assert rust_records_out == rust_out

    sample_n = min(args.python_sample, args.n)
    sample_idx = random.Random(args.seed + 1).sample(range(args.n), sample_n)
    sample = [items[i] for i in sample_idx]
    t0, c0 = time.perf_counter(), time.process_time()
    py_out = [python_isomorphism_type(e, a, s) for e, a, s in sample]
    py_s, py_cpu = time.perf_counter() - t0, time.process_time() - c0
    mismatches = sum(py_out[j] != rust_out[i] for j, i in enumerate(sample_idx))
    if mismatches:
        raise SystemExit(f"{mismatches} of {sample_n} sampled items disagree with Python")

    rust_rate = args.n / rust_s
    py_rate = sample_n / py_s
    n_invalid = sum(x is None for x in rust_out)
    n_types = len({x for x in rust_out if x is not None})
    print(f"valid: {args.n - n_invalid:,}, invalid: {n_invalid:,}, distinct types: {n_types}")
    print(
        f"kgbench.iso.isomorphism_types, (edges, answer, seeds) tuples: "
        f"{rust_s:.3f} s for {args.n:,} = {rust_rate:,.0f} items/s"
    )
    print(f"  (first call on the fresh input, which also computes the str hashes: {cold_s:.3f} s)")
    print(
        f"kgbench.iso.isomorphism_types, GTSQA record dicts:           "
        f"{rust_records_s:.3f} s for {args.n:,} = {args.n / rust_records_s:,.0f} items/s"
    )
    print(
        f"pure-Python AHU baseline: {py_s:.3f} s for a random sample of {sample_n:,} = "
        f"{py_rate:,.0f} items/s (extrapolated to {args.n:,}: {args.n / py_rate:.1f} s)"
    )
    print(f"agreement on the sample: {sample_n - mismatches:,}/{sample_n:,}")
    print(f"ratio (batch API vs pure Python, items/s, wall clock): {rust_rate / py_rate:.1f}x")
    rust_ns, py_ns = 1e9 * rust_cpu / args.n, 1e9 * py_cpu / sample_n
    print(
        f"CPU time per item: batch API {rust_ns:.0f} ns (all threads), "
        f"pure Python {py_ns:.0f} ns; ratio {py_ns / rust_ns:.1f}x"
    )
    verdicts = [("batch API (Python objects in)", rust_s, rust_rate / py_rate)]
    if not args.no_file:
        del records
        verdicts.append(bench_file(args, items, rust_out, sample_idx))

    print("targets (1M items < 2 s wall clock on this machine; >= 50x pure Python):")
    for name, seconds, ratio in verdicts:
        per_million = seconds * 1_000_000 / args.n
        time_ok = "MET" if per_million < 2.0 else "NOT MET"
        ratio_ok = "MET" if ratio >= 50.0 else "NOT MET"
        print(
            f"  {name}: {per_million:.3f} s per 1M -> {time_ok}; "
            f"{ratio:.1f}x vs its pure-Python baseline -> {ratio_ok}"
        )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"1-minute load average at the end: {load:.1f} on {os.cpu_count()} cores")


def bench_file(
    args: argparse.Namespace,
    items: list[Subgraph],
    rust_out: list[str | None],
    sample_idx: list[int],
) -> tuple[str, float, float]:
    """The JSONL file path; returns (name, seconds for all items, ratio vs Python)."""
    with tempfile.TemporaryDirectory(prefix="bench_iso_") as tmp:
        path = Path(tmp) / "gtsqa_random.jsonl"
        t0 = time.perf_counter()
        with path.open("w", encoding="utf-8") as out:
            for i, (edges, answer, seeds) in enumerate(items):
                record = {
                    "id": i,
                    "question": "?",
                    "seed_entities": seeds,
                    "answer_node": answer,
                    "answer_subgraph": edges,
                }
                out.write(json.dumps(record) + "\n")
        size = path.stat().st_size
        print(
            f"\nfile: {size / 1e6:.0f} MB of GTSQA JSONL, {args.n:,} records "
            f"(written in {time.perf_counter() - t0:.1f} s, not timed)"
        )
        # First call: file possibly not yet in the page cache; then a warm call.
        t0 = time.perf_counter()
        isomorphism_types_jsonl(path)
        first_s = time.perf_counter() - t0
        t0, c0 = time.perf_counter(), time.process_time()
        file_out = isomorphism_types_jsonl(path)
        file_s, file_cpu = time.perf_counter() - t0, time.process_time() - c0
        if file_out != rust_out:
            raise SystemExit("isomorphism_types_jsonl disagrees with isomorphism_types")

        wanted = set(sample_idx)
        lines: dict[int, str] = {}
        with path.open(encoding="utf-8") as handle:
            for i, line in enumerate(handle):
                if i in wanted:
                    lines[i] = line
    sample_lines = [lines[i] for i in sample_idx]
    del lines
    t0, c0 = time.perf_counter(), time.process_time()
    py_out = []
    for line in sample_lines:
        r = json.loads(line)
        py_out.append(
            python_isomorphism_type(r["answer_subgraph"], r["answer_node"], r["seed_entities"])
        )
    py_s, py_cpu = time.perf_counter() - t0, time.process_time() - c0
    sample_n = len(sample_lines)
    mismatches = sum(py_out[j] != file_out[i] for j, i in enumerate(sample_idx))
    if mismatches:
        raise SystemExit(f"{mismatches} of {sample_n} sampled lines disagree with Python")
    file_rate, py_rate = args.n / file_s, sample_n / py_s
    print(
        f"kgbench.iso.isomorphism_types_jsonl (read + parse + classify in Rust): "
        f"{file_s:.3f} s for {args.n:,} = {file_rate:,.0f} items/s, {size / file_s / 1e6:.0f} MB/s"
    )
    print(f"  (first call, file possibly not in the page cache: {first_s:.3f} s)")
    print(
        f"pure-Python json.loads + AHU per line: {py_s:.3f} s for a random sample of "
        f"{sample_n:,} lines in memory = {py_rate:,.0f} items/s "
        f"(extrapolated to {args.n:,}: {args.n / py_rate:.1f} s)"
    )
    print(f"agreement on the sample: {sample_n - mismatches:,}/{sample_n:,}")
    ratio = file_rate / py_rate
    print(f"ratio (JSONL path vs json.loads + pure-Python AHU, items/s, wall clock): {ratio:.1f}x")
    rust_ns, py_ns = 1e9 * file_cpu / args.n, 1e9 * py_cpu / sample_n
    print(
        f"CPU time per item: JSONL path {rust_ns:.0f} ns (all threads), "
        f"pure Python {py_ns:.0f} ns; ratio {py_ns / rust_ns:.1f}x"
    )
    return "JSONL file path", file_s, ratio


if __name__ == "__main__":
    main()
