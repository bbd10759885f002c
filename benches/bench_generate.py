"""Benchmark: CypherBench task generation (``kgbench generate cypherbench``) on a large graph.

Builds (or reuses) the converted synthetic Wikidata graph of ``generate_data.py`` (≥ 100k
entities, ≥ 200k relations: Person, City, Country; bornIn, citizenOf with start_year,
inCountry), bulk-imports it into a local Neo4j (``kgbench.neo4j.import_graph``, untimed), starts
the server and runs the generator on the test split with default caps (CypherBench's template
file, the reviewed traits ``benches/data/synthetic.traits.json``, seed 42). Prints:

- the wall time of the generation call and how it divides between Neo4j (wall seconds from
  sending each query to its last record) and kgbench (the rest: snapshot building, Rust
  pattern instantiation, Python RETURN rules, I/O), with the per-step times;
- the number of queries issued;
- tasks written and tasks per second;
- with ``--compat``, the same for ``--compat cypherbench`` (exact enumeration) in the same run,
  and the ratio of the two wall times.

Target (issue "Benchmark generation I"): under 5 minutes on 2 cores, most of it Neo4j's.

Usage: ``python benches/bench_generate.py [--workdir DIR] [--compat] [--heap 2g]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from generate_data import prepare_synthetic_graph
from kgbench.generate import generate_cypherbench
from kgbench.neo4j import LocalNeo4j, import_graph

TRAITS = Path(__file__).parent / "data" / "synthetic.traits.json"


def run(uri: str, out: Path, compat: str | None) -> dict[str, Any]:
    t0 = time.perf_counter()
    res = generate_cypherbench(uri, None, TRAITS, "synthetic", out, compat=compat)
    wall = time.perf_counter() - t0
    r = res.report
    neo = r["timing"]["neo4j_s"]
    mode = compat or "default"
    print(f"\n== generation, mode {mode} ==")
    print(f"graph: {r['graph_size']['nodes']:,} nodes, {r['graph_size']['relationships']:,} rels")
    print(f"wall: {wall:.1f} s  (Neo4j {neo:.1f} s = {neo / wall:.0%}, kgbench {wall - neo:.1f} s)")
    steps = {k: v for k, v in r["timing"].items() if k.endswith("_s") and k not in ("total_s",)}
    print("steps: " + ", ".join(f"{k[:-2]} {v:.1f} s" for k, v in steps.items()))
    print(f"queries: {r['queries']:,}")
    print(f"tasks: {r['tasks']:,}  ->  {r['tasks'] / wall:.1f} tasks/s")
    print("tasks by MATCH category: " + json.dumps(r["tasks_by_match_category"]))
    rej = {k: v for k, v in r["rejections"].items() if v}
    print(f"rejections: {json.dumps(rej)}; capped {r['capped']}")
    print(f"target < 300 s: {'met' if wall < 300 else 'NOT met'}")
    return {"wall": wall, **r}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "kgbench-gen"))
    ap.add_argument("--compat", action="store_true", help="also run --compat cypherbench")
    ap.add_argument("--heap", default="2g")
    ap.add_argument("--pagecache", default="1g")
    args = ap.parse_args()
    work = Path(args.workdir)
    graph = prepare_synthetic_graph(work)
    data = work / "neo4j-bench"
    t0 = time.perf_counter()
    import_graph(graph, data, wipe=True, heap=args.heap, pagecache=args.pagecache)
    print(f"import (untimed for the target): {time.perf_counter() - t0:.1f} s")
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    with LocalNeo4j(data_dir=data, heap=args.heap, pagecache=args.pagecache) as server:
        default = run(str(server.uri), work / "gen-default", None)
        if args.compat:
            compat = run(str(server.uri), work / "gen-compat", "cypherbench")
            print(f"\nratio compat / default wall: {compat['wall'] / default['wall']:.2f}")


if __name__ == "__main__":
    main()
