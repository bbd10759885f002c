"""Benchmark: test-suite EX for Cypher on WD50K, against plain EX on the same tasks.

Converts the shared WD50K statements with the tests' schema, loads them into a disposable
local Neo4j (``kgbench.evaluate.suites.cypher.open_suite_graph``), generates CypherBench
tasks on it (``generate_cypherbench``, seed 42; the first ``--tasks`` of them) and writes one
prediction file in which about half the predictions are the gold and the rest a wrong variant
(``DESC`` flipped, ``DISTINCT`` dropped, an extra ``LIMIT 1``, the gold of another task), so
that many predictions have EX 1 and go on to the suites. The generated tasks are kept in
``WORKDIR/generated.json`` and reused while the graph's fingerprint is the same.

Then, on the same warm server (every gold query run once before timing), it times:

- plain EX (``kgbench.evaluate.evaluate``, metric ``ex``);
- the first test-suite run: EX, then distillation of every suite (up to ``--size`` deltas,
  empty cache) and the TS-EX verdicts;
- a second run with the cached suites: EX, then the TS-EX verdicts only.

and prints the distillation time per task and the cached scoring time, each as a ratio to
plain EX. Target (issue 31): with cached suites, TS-EX (EX + the suite runs) costs at most 4x
EX.

Usage: ``python benches/bench_test_suite.py [--tasks 1000] [--size 8] [--workdir DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kgbench.convert import convert
from kgbench.evaluate.runner import evaluate
from kgbench.evaluate.suites.core import SuiteCache
from kgbench.evaluate.suites.cypher import (
    CypherSuiteBackend,
    open_suite_graph,
    score_test_suite,
)
from kgbench.generate import generate_cypherbench

ROOT = Path(__file__).resolve().parents[1]
WD50K = ROOT.parent / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"
SCHEMA = ROOT / "tests" / "data" / "wd50k" / "wd50k.wd2neo4j.json"
TRAITS = ROOT / "tests" / "data" / "wd50k" / "wd50k.traits.json"


def predictions(tasks: list[dict[str, Any]], path: Path) -> None:
    """Half gold, half a wrong variant of the gold (seeded)."""
    rng = random.Random(7)
    golds = [t["gold_cypher"] for t in tasks]
    with path.open("w", encoding="utf-8") as f:
        for i, t in enumerate(tasks):
            g = t["gold_cypher"]
            pool = [golds[(i + 1) % len(golds)]]
            if " DESC" in g:
                pool.append(g.replace(" DESC", " ASC"))
            if "DISTINCT " in g:
                pool.append(g.replace("DISTINCT ", "", 1))
            if "LIMIT" not in g:
                pool.append(g + " LIMIT 1")
            pred = g if rng.random() < 0.5 else rng.choice(pool)
            f.write(json.dumps({"qid": t["qid"], "pred_cypher": pred}) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "kgbench-bench-ts"))
    ap.add_argument("--tasks", type=int, default=1000, help="at most this many tasks")
    ap.add_argument("--size", type=int, default=8, help="largest suite per task")
    ap.add_argument("--workers", type=int, default=4)
    args = ap.parse_args()
    if not WD50K.exists():
        print(f"the shared WD50K dump is absent ({WD50K}): nothing to measure")
        return 0
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    convert(str(SCHEMA), [str(WD50K)], str(work / "graph"), return_graph=False)
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    db, data, fingerprint = open_suite_graph(work / "graph")
    try:
        generated = work / "generated.json"
        saved = json.loads(generated.read_text(encoding="utf-8")) if generated.exists() else {}
        if saved.get("fingerprint") == fingerprint:
            all_tasks = saved["tasks"]  # generation is seeded: the same graph, the same tasks
        else:
            res = generate_cypherbench(db.uri, None, TRAITS, "wd50k", None, per_category=120)
            all_tasks = res.tasks
            generated.write_text(
                json.dumps({"fingerprint": fingerprint, "tasks": all_tasks}), encoding="utf-8"
            )
        tasks = all_tasks[: args.tasks]
        tasks_file = work / "tasks.json"
        tasks_file.write_text(json.dumps(tasks), encoding="utf-8")
        preds = work / "preds.jsonl"
        predictions(tasks, preds)
        print(
            f"{len(tasks)} WD50K tasks (of {len(all_tasks)} generated), suites of up to {args.size}"
        )
        common: dict[str, Any] = {
            "uri": db.uri,
            "workers": args.workers,
            "timeout_s": 60.0,
            "metrics": "ex",
            "log": lambda _m: None,
        }
        evaluate(tasks_file, preds, **common)  # warm the server (untimed)

        t0 = time.perf_counter()
        plain = evaluate(tasks_file, preds, **common)
        t_ex = time.perf_counter() - t0

        backend = CypherSuiteBackend(db, data, fingerprint)
        cache = SuiteCache()
        t0 = time.perf_counter()
        first = evaluate(tasks_file, preds, **common)
        t1 = time.perf_counter()
        score_test_suite(first, backend, max_size=args.size, cache=cache, workers=args.workers)
        t_first = time.perf_counter() - t0
        t_first_suites = time.perf_counter() - t1

        t0 = time.perf_counter()
        again = evaluate(tasks_file, preds, **common)
        t1 = time.perf_counter()
        score_test_suite(again, backend, max_size=args.size, cache=cache, workers=args.workers)
        t_cached = time.perf_counter() - t0
        t_cached_suites = time.perf_counter() - t1
    finally:
        db.stop()
    n = len(tasks)
    same = [r["metrics"] for r in first.records] == [r["metrics"] for r in again.records]
    ts = again.test_suite
    print(f"plain EX:                     {t_ex:8.2f} s ({1000 * t_ex / n:.1f} ms/task)")
    print(
        f"first run (distil + TS-EX):   {t_first:8.2f} s, suites {t_first_suites:.2f} s "
        f"({1000 * t_first_suites / n:.1f} ms/task distillation): {t_first / t_ex:.2f}x EX"
    )
    print(
        f"cached suites (EX + TS-EX):   {t_cached:8.2f} s, suites {t_cached_suites:.2f} s "
        f"({1000 * t_cached_suites / n:.1f} ms/task): {t_cached / t_ex:.2f}x EX"
    )
    print(
        f"EX {ts['execution_accuracy']:.4f}, TS-EX {ts['ts_execution_accuracy']:.4f}, "
        f"EX 1 but TS-EX 0: {ts['ex_not_ts']}, mean suite size {ts['mean_suite_size']:.2f}, "
        f"neighbours {ts['neighbours']} ({ts['distinguished']} distinguished), "
        f"suites {ts['suites']}"
    )
    print(f"reads and transactions run again after a lost connection: {backend.reconnects}")
    print(f"plain EX equals the TS runs' EX: {plain.aggregated == again.aggregated}")
    print(f"per-task metrics identical (first vs cached): {same}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    print(f"target cached <= 4x EX: {'met' if t_cached <= 4 * t_ex else 'NOT met'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
