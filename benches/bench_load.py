"""Benchmark: kgbench.neo4j.load_graph vs. a naive one-row-per-transaction CREATE loader.

Builds a synthetic CypherBench-shaped graph (default 1,000,000 nodes / 2,000,000 relationships;
two entity labels, two relation types, str/int/float/date/list[str] properties), starts a local
Neo4j (kgbench.neo4j.LocalNeo4j, defaults: 2 GiB heap, 2 GiB page cache) and prints

- the batched UNWIND loader's nodes/s and relationships/s on the whole graph (``load_graph``
  with ``wipe=True``: validation excluded, constraint/index creation and count verification
  excluded from the rates);
- the naive loader's rates on a 20,000-node / 20,000-relationship slice of the same graph, in
  the same run, into an emptied database with the same constraints: one ``CREATE`` per
  transaction (``session.execute_write``), relationships matched by ``eid``;
- the ratios (batched / naive);
- the offline bulk import (``kgbench.neo4j.import_graph``: validation and CSV files natively,
  Neo4j's import tool into a stopped local server's fresh data directory, then server start,
  constraints/indexes and count verification) on the whole graph, given as a ``graph.json``
  path as the CLI (``kgbench load GRAPH --offline``) gives it. The file is written first
  (untimed; its size and writing time are printed). Its nodes/s and relationships/s both divide
  by the WHOLE wall time of the call, from reading graph.json to verified counts (nodes and
  relationships are imported in one run); the phases are printed too;
- the native validation + CSV step alone (``kgbench._core.neo4j.write_import_csv`` on the same
  graph.json), wall and CPU seconds, next to the figures of the Python validator and CSV writer
  it replaced (measured before the change: :data:`PYTHON_BASELINE`).

Target: >= 50,000 nodes/s and >= 50,000 relationships/s (met when either path meets it).
Wall AND CPU seconds are printed (this process; child processes = the Java import tool and the
servers it started and waited for), with the machine load (``os.getloadavg``). The Bolt figures
depend on the server's JIT warm-up: the naive slice and the server-ceiling run before the
batched load act as its warm-up.

Usage: ``python benches/bench_load.py [--nodes N] [--rels M] [--slice K] [--batch-size B]
[--skip-bolt] [--skip-offline] [--id-type string|actual]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import resource
import sys
import tempfile
import time
from typing import Any

from kgbench.neo4j import LocalNeo4j, import_graph, load_graph, validate_graph, wipe_database


def cpu() -> tuple[float, float]:
    """(CPU seconds of this process, CPU seconds of its waited-for children)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


#: The Python validator (``loader._validate``) and CSV writer (``offline.write_import_csv``) this
#: project used before the native ones, timed on this graph (200,000 nodes / 400,000
#: relationships, graph.json 111 MB) at commit 691c976, load average 5.4 on 2 cores:
#: (step, wall s, CPU s). Their code is gone, so they are quoted, not re-run.
PYTHON_BASELINE = (
    ("json.load of graph.json", 4.35, 3.82),
    ("validation (loader._validate)", 2.78, 2.17),
    ("CSV files (offline.write_import_csv)", 4.25, 4.05),
)
PYTHON_BASELINE_SIZE = (200_000, 400_000)


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


SCHEMA = {
    "name": "synthetic",
    "entities": [
        {
            "label": "Person",
            "properties": {
                "date_of_birth": "date",
                "height_cm": "float",
                "occupation": "list[str]",
            },
        },
        {"label": "Organization", "properties": {"founding_year": "int", "country": "str"}},
    ],
    "relations": [
        {"label": "knows", "subj_label": "Person", "obj_label": "Person",
         "properties": {"since_year": "int"}},
        {"label": "worksAt", "subj_label": "Person", "obj_label": "Organization",
         "properties": {"start_date": "date"}},
    ],
}  # fmt: skip

OCCUPATIONS = ["actor", "chemist", "engineer", "historian", "painter", "poet", "politician"]
COUNTRIES = ["Brazil", "France", "Germany", "India", "Japan", "Kenya", "Peru", "United States"]


def synthetic_graph(n_nodes: int, n_rels: int, seed: int = 7) -> dict[str, Any]:
    """Every 10th node is an Organization, the rest Persons; relation ``r`` starts at the
    Person at position ``r * persons / n_rels`` and ends at a node less than 60 positions
    away, so a prefix of the relations mostly lies within a prefix of the nodes."""
    rng = random.Random(seed)
    entities: list[dict[str, Any]] = []
    persons: list[int] = []
    orgs: list[int] = []
    base = dt.date(1900, 1, 1)
    for i in range(n_nodes):
        q = f"Q{1000 + i}"
        if i % 10 == 0:
            orgs.append(i)
            entities.append({
                "eid": f"Organization#{q}", "label": "Organization", "name": f"Organization {i}",
                "aliases": [f"Org {i}"], "description": "synthetic organization",
                "properties": {"founding_year": 1800 + i % 220,
                               "country": COUNTRIES[i % len(COUNTRIES)]},
                "provenance": [f"https://en.wikipedia.org/wiki/Organization_{i}"],
            })  # fmt: skip
        else:
            persons.append(i)
            born = base + dt.timedelta(days=rng.randrange(40000))
            entities.append({
                "eid": f"Person#{q}", "label": "Person", "name": f"Person {i}", "aliases": [],
                "description": "synthetic person",
                "properties": {"date_of_birth": born.isoformat(),
                               "height_cm": round(150 + rng.random() * 50, 1),
                               "occupation": sorted(rng.sample(OCCUPATIONS, 2))},
                "provenance": [],
            })  # fmt: skip
    relations: list[dict[str, Any]] = []
    for r in range(n_rels):
        s = persons[r * len(persons) // n_rels]
        if r % 2 == 0:
            o = (s + 1 + rng.randrange(59)) % n_nodes
            if o % 10 == 0:
                o = (o + 1) % n_nodes
            label, props = "knows", {"since_year": 1950 + rng.randrange(70)}
        else:
            o = min((s // 10 + rng.randrange(-5, 6)) % len(orgs), len(orgs) - 1) * 10
            start = base + dt.timedelta(days=20000 + rng.randrange(40000))
            label, props = "worksAt", {"start_date": start.isoformat()}
        relations.append({
            "rid": str(r), "label": label, "subj_id": entities[s]["eid"],
            "obj_id": entities[o]["eid"], "properties": props, "provenance": [],
        })  # fmt: skip
    return {"schema": SCHEMA, "entities": entities, "relations": relations}


def graph_slice(graph: dict[str, Any], k: int) -> dict[str, Any]:
    """The first ``k`` entities and the first ``k`` relations with both ends among them."""
    entities = graph["entities"][:k]
    eids = {e["eid"] for e in entities}
    relations = [r for r in graph["relations"] if r["subj_id"] in eids and r["obj_id"] in eids]
    return {"schema": graph["schema"], "entities": entities, "relations": relations[:k]}


def naive_load(driver: Any, graph: dict[str, Any]) -> tuple[float, float]:
    """One CREATE per transaction; returns (node seconds, relationship seconds)."""
    types = {
        e["label"]: e["properties"] for e in graph["schema"]["entities"]
    }  # datatypes per label
    label_of = {e["eid"]: e["label"] for e in graph["entities"]}

    def typed(props: dict[str, Any], declared: dict[str, str]) -> dict[str, Any]:
        out = {}
        for k, v in props.items():
            out[k] = dt.date.fromisoformat(v) if declared.get(k) == "date" else v
        return out

    rel_types = {r["label"]: r["properties"] for r in graph["schema"]["relations"]}
    t0 = time.perf_counter()
    with driver.session() as session:
        for e in graph["entities"]:
            row = {"eid": e["eid"], "name": e["name"], "aliases": e["aliases"],
                   "description": e["description"], "provenance": e["provenance"],
                   **typed(e["properties"], types[e["label"]])}  # fmt: skip
            session.execute_write(
                lambda tx, row=row, label=e["label"]: tx.run(
                    f"CREATE (n:`{label}`) SET n = $row", row=row
                ).consume()
            )
        t1 = time.perf_counter()
        for r in graph["relations"]:
            props = {"rid": r["rid"], "provenance": r["provenance"],
                     **typed(r["properties"], rel_types[r["label"]])}  # fmt: skip
            query = (
                f"MATCH (s:`{label_of[r['subj_id']]}` {{eid: $s}}) "
                f"MATCH (o:`{label_of[r['obj_id']]}` {{eid: $o}}) "
                f"CREATE (s)-[r:`{r['label']}`]->(o) SET r = $p"
            )
            session.execute_write(
                lambda tx, q=query, r=r, p=props: tx.run(
                    q, s=r["subj_id"], o=r["obj_id"], p=p
                ).consume()
            )
        t2 = time.perf_counter()
    return t1 - t0, t2 - t1


CEILING_QUERY = """
UNWIND range($start, $start + $n - 1) AS i
CREATE (p:Ceiling {eid: 'Ceiling#Q' + i, name: 'Person ' + i, aliases: [],
                   description: 'synthetic person', provenance: [],
                   date_of_birth: date('1900-01-01') + duration({days: i % 40000}),
                   height_cm: 150.0 + (i % 500) / 10.0, occupation: ['engineer', 'poet']})
"""


def server_ceiling(driver: Any, n: int, batch: int) -> float:
    """Nodes/s when the server creates Person-shaped nodes itself (no client data at all):
    the write rate the database reaches on this machine, an upper bound for any Bolt loader."""
    t0 = time.perf_counter()
    with driver.session(notifications_min_severity="OFF") as session:
        for start in range(0, n, batch):
            size = min(batch, n - start)
            session.execute_write(
                lambda tx, s=start, k=size: tx.run(CEILING_QUERY, start=s, n=k).consume()
            )
    return n / (time.perf_counter() - t0)


def native_step(path: str, out_dir: str, id_type: str, size: tuple[int, int]) -> None:
    """Time the native validation + CSV files of graph.json alone; print them next to the
    Python figures they replaced (scaled to this size when it differs)."""
    from kgbench._core import neo4j as core

    t = time.perf_counter()
    c0 = cpu()
    check = core.write_import_csv(path, out_dir, id_type=id_type)
    c1 = cpu()
    wall = time.perf_counter() - t
    assert check.total == 0 and check.tool_args
    parts = ", ".join(f"{k[:-2]} {v:.2f}" for k, v in check.timings.items())
    print(f"native validate + CSV of graph.json: {wall:.2f} s wall, {c1[0] - c0[0]:.2f} s CPU "
          f"({parts}); {load()}")  # fmt: skip
    scale = size[0] / PYTHON_BASELINE_SIZE[0]
    py_wall = sum(w for _, w, _ in PYTHON_BASELINE) * scale
    py_cpu = sum(c for _, _, c in PYTHON_BASELINE) * scale
    steps = "; ".join(f"{name} {w:.2f} s wall / {c:.2f} s CPU" for name, w, c in PYTHON_BASELINE)
    print(f"  Python baseline at {PYTHON_BASELINE_SIZE[0]:,} nodes (quoted, see PYTHON_BASELINE): "
          f"{steps}")  # fmt: skip
    native_cpu = max(c1[0] - c0[0], 1e-9)
    print(f"  ratio Python/native (baseline scaled x{scale:g} to this size): "
          f"wall x{py_wall / wall:,.1f}, CPU x{py_cpu / native_cpu:,.1f}")  # fmt: skip


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--rels", type=int, default=2_000_000)
    ap.add_argument("--slice", type=int, default=20_000, help="naive loader slice size")
    ap.add_argument("--batch-size", type=int, default=10_000)
    ap.add_argument("--skip-bolt", action="store_true", help="only the offline import")
    ap.add_argument("--skip-offline", action="store_true", help="only the Bolt loaders")
    ap.add_argument("--id-type", choices=("string", "actual"), default="actual",
                    help="CSV node ids of the offline import")  # fmt: skip
    args = ap.parse_args(argv)

    t = time.perf_counter()
    graph = synthetic_graph(args.nodes, args.rels)
    print(f"graph: {args.nodes:,} nodes, {args.rels:,} relationships "
          f"(generated in {time.perf_counter() - t:.1f} s); {load()}")  # fmt: skip
    t = time.perf_counter()
    assert validate_graph(graph) == []
    print(f"validation: {time.perf_counter() - t:.2f} s")
    from neo4j._codec.packstream import v1 as packstream

    rust = getattr(packstream, "_rust_pack", None) is not None
    print(f"driver packstream: {'neo4j-rust-ext (Rust)' if rust else 'pure Python'}")
    part = graph_slice(graph, args.slice)
    best = (0.0, 0.0)

    naive_nodes = naive_rels = 0.0
    with (
        tempfile.TemporaryDirectory(prefix="kgbench-bench-load-") as tmp,
        LocalNeo4j(data_dir=tmp) as server,
        server.driver() as driver,
    ):
        print(f"server: {server.uri} heap={server.heap} pagecache={server.pagecache}")
        # naive first, on a small empty database (with the loader's constraints/indexes)
        load_graph({**part, "entities": [], "relations": []}, driver, wipe=True,
                   progress=False)  # fmt: skip
        c0 = cpu()
        naive_n_s, naive_r_s = naive_load(driver, part)
        c1 = cpu()
        naive_nodes = len(part["entities"]) / naive_n_s
        naive_rels = len(part["relations"]) / naive_r_s
        print(f"naive (1 row/transaction): {len(part['entities']):,} nodes in "
              f"{naive_n_s:.1f} s = {naive_nodes:,.0f} nodes/s; "
              f"{len(part['relations']):,} rels in {naive_r_s:.1f} s = "
              f"{naive_rels:,.0f} rels/s; Python CPU {c1[0] - c0[0]:.1f} s; {load()}")  # fmt: skip
        if not args.skip_bolt:
            wipe_database(driver)
            ceiling = server_ceiling(driver, min(args.nodes, 100_000), args.batch_size)
            print(f"server-side ceiling (nodes created by Cypher without client data): "
                  f"{ceiling:,.0f} nodes/s")  # fmt: skip
            wipe_database(driver)

            t = time.perf_counter()
            c0 = cpu()
            report = load_graph(graph, driver, wipe=True, batch_size=args.batch_size)
            c1 = cpu()
            total = time.perf_counter() - t
            print(f"kgbench load_graph (Bolt, UNWIND, batch {args.batch_size:,}): "
                  f"{report.nodes:,} nodes in {report.node_seconds:.1f} s = "
                  f"{report.nodes_per_s:,.0f} nodes/s; {report.relationships:,} rels in "
                  f"{report.relationship_seconds:.1f} s = {report.relationships_per_s:,.0f} "
                  f"rels/s; total incl. wipe/constraints/verify {total:.1f} s; "
                  f"Python CPU {c1[0] - c0[0]:.1f} s; {load()}")  # fmt: skip
            print(f"  Bolt loader nodes/s vs server-side ceiling: "
                  f"{report.nodes_per_s / ceiling:.2f}")  # fmt: skip
            print(f"  ratio Bolt batched/naive: nodes x{report.nodes_per_s / naive_nodes:,.1f}, "
                  f"relationships x{report.relationships_per_s / naive_rels:,.1f}")  # fmt: skip
            best = (report.nodes_per_s, report.relationships_per_s)

    if not args.skip_offline:
        with tempfile.TemporaryDirectory(prefix="kgbench-bench-import-") as tmp:
            path = os.path.join(tmp, "graph.json")
            t = time.perf_counter()
            with open(path, "w", encoding="utf-8") as f:
                json.dump(graph, f)
            print(f"graph.json written in {time.perf_counter() - t:.1f} s (untimed): "
                  f"{os.path.getsize(path) / 1e6:,.0f} MB")  # fmt: skip
            del graph, part  # the offline import reads the file, not Python objects
            native_step(path, os.path.join(tmp, "csv"), args.id_type, (args.nodes, args.rels))
            t = time.perf_counter()
            c0 = cpu()
            report = import_graph(path, os.path.join(tmp, "db"), id_type=args.id_type)
            c1 = cpu()
            wall = time.perf_counter() - t
        phases = ", ".join(
            f"{k[:-2]} {v:.1f} s" for k, v in report.extra.items() if k.endswith("_s")
        )
        native = ", ".join(f"{k[:-2]} {v:.2f} s" for k, v in report.extra["native"].items())
        print(f"kgbench import_graph (offline, graph.json path, {args.id_type} ids): "
              f"{report.nodes:,} nodes and {report.relationships:,} rels in {wall:.1f} s wall = "
              f"{report.nodes / wall:,.0f} nodes/s, {report.relationships / wall:,.0f} rels/s; "
              f"CPU: Python+native {c1[0] - c0[0]:.1f} s, Java children {c1[1] - c0[1]:.1f} s; "
              f"{load()}")  # fmt: skip
        print(f"  phases: {phases}")
        print(f"  csv phase, native parts: {native}")
        print(f"  ratio offline/naive: nodes x{report.nodes / wall / naive_nodes:,.1f}, "
              f"relationships x{report.relationships / wall / naive_rels:,.1f}")  # fmt: skip
        best = max(best, (report.nodes / wall, report.relationships / wall))
    ok = best[0] >= 50_000 and best[1] >= 50_000
    print(f"target >= 50,000 nodes/s and >= 50,000 rels/s: {'met' if ok else 'NOT met'} "
          f"(best: {best[0]:,.0f} nodes/s, {best[1]:,.0f} rels/s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
