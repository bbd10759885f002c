"""Benchmark: a leaderboard of five models in one pass against five single-run evaluations.

Converts the shared WD50K statements with the tests' schema, loads them into a local Neo4j,
generates CypherBench tasks on them (``generate_cypherbench``, seed 42), and writes five
prediction files that overlap as real models do: about half of each file is the gold query;
the rest is drawn, per model with its own seed, from a pool of wrong and broken predictions
shared by the models (a misspelt keyword, the gold of another task, the order reversed, an
extra ``LIMIT 1``, a missing ``DISTINCT``), so models make some of the same mistakes.

Then, on the same warm server (the gold queries are run once before timing), it times:

- five single runs (``kgbench.evaluate.evaluate`` once per file, no gold cache: each run
  sends its gold, predicted and provenance queries, as CypherBench's evaluator does);
- one pass over the five files (``kgbench.evaluate.multirun.evaluate_runs``: every distinct
  query text sent once).

and prints both wall times, the queries sent, the ratio, and whether every per-task metric
agrees. The pass keeps the result cache (``cache_dir``, a fresh one). Then a sixth file (drawn
like the others) is added to the cached pass: the six-file pass's time and queries sent are
printed, with the sixth file's new distinct queries (the queries of its evaluation plan that
no earlier file's plan holds), which the queries sent must equal. Targets (issue "Evaluation
at scale"): the pass at least 3x faster than five single runs, with identical per-task
metrics; the sixth file costs no more than its new distinct queries.

Usage: ``python benches/bench_evaluate.py [--workdir DIR] [--heap 1g]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kgbench.convert import convert
from kgbench.evaluate.multirun import evaluate_runs
from kgbench.evaluate.runner import METRICS, evaluate, parse_metrics, plan_scoring
from kgbench.generate import generate_cypherbench
from kgbench.neo4j import LocalNeo4j, load_graph
from kgbench.tasks import clean_prediction, load_predictions

ROOT = Path(__file__).resolve().parents[1]
WD50K = ROOT.parent / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"
SCHEMA = ROOT / "tests" / "data" / "wd50k" / "wd50k.wd2neo4j.json"
TRAITS = ROOT / "tests" / "data" / "wd50k" / "wd50k.traits.json"
MODELS = 5


def wrong_pool(tasks: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Per task, the wrong or broken predictions the models draw from."""
    out: dict[str, list[str]] = {}
    golds = [t["gold_cypher"] for t in tasks]
    for i, t in enumerate(tasks):
        g = t["gold_cypher"]
        pool = [g.replace("RETURN", "RETRUN", 1), golds[(i + 1) % len(golds)]]
        if " DESC" in g:
            pool.append(g.replace(" DESC", " ASC"))
        if "LIMIT" not in g:
            pool.append(g + " LIMIT 1")
        if "DISTINCT" in g:
            pool.append(g.replace("DISTINCT ", "", 1))
        out[t["qid"]] = pool
    return out


def prediction_files(
    tasks: list[dict[str, Any]], work: Path, models: range = range(MODELS)
) -> list[tuple[str, Path]]:
    pool = wrong_pool(tasks)
    runs = []
    for m in models:
        rng = random.Random(1000 + m)
        path = work / f"model{m}.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for t in tasks:
                pred = t["gold_cypher"] if rng.random() < 0.5 else rng.choice(pool[t["qid"]])
                f.write(json.dumps({"qid": t["qid"], "pred_cypher": pred}) + "\n")
        runs.append((f"model{m}", path))
    return runs


def planned_queries(tasks: list[dict[str, Any]], path: Path) -> set[tuple[str, str]]:
    """(graph, query) of every query an evaluation of the prediction file ``path`` sends
    (its plan, ``kgbench.evaluate.runner.plan_scoring``, with the default metrics)."""
    preds = {
        q: None if p is None else clean_prediction(p) for q, p in load_predictions(path).items()
    }
    metrics = parse_metrics(METRICS)
    by_graph: dict[str, list[dict[str, Any]]] = {}
    for t in tasks:
        by_graph.setdefault(t["graph"], []).append(t)
    out: set[tuple[str, str]] = set()
    for graph, graph_tasks in by_graph.items():
        plan = plan_scoring(graph_tasks, preds, metrics, "5", "5")
        for queries in (
            plan.gold,
            plan.identical_gold,
            plan.predictions,
            plan.gold_provenance,
            plan.prediction_provenance,
        ):
            out.update((graph, q) for q in queries)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "kgbench-bench-eval"))
    ap.add_argument("--heap", default="1g")
    args = ap.parse_args()
    if not WD50K.exists():
        print(f"the shared WD50K dump is absent ({WD50K}): nothing to measure")
        return 0
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    convert(str(SCHEMA), [str(WD50K)], str(work / "graph"), return_graph=False)
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    with LocalNeo4j(data_dir=work / "neo4j", heap=args.heap, pagecache="512m") as server:
        import neo4j

        with neo4j.GraphDatabase.driver(server.uri, auth=None) as driver:
            load_graph(str(work / "graph" / "graph.json"), driver, wipe=True, progress=False)
        res = generate_cypherbench(server.uri, None, TRAITS, "wd50k", work / "tasks")
        tasks = res.tasks
        runs = prediction_files(tasks, work)
        tasks_file = work / "tasks" / "tasks.json"
        common: dict[str, Any] = {"uri": server.uri, "workers": 8, "timeout_s": 60.0}
        print(f"{len(tasks)} WD50K tasks, {MODELS} prediction files")
        # warm the server: every gold query once (untimed)
        evaluate(tasks_file, None, metrics="ex", **common)

        t0 = time.perf_counter()
        single = {name: evaluate(tasks_file, path, **common) for name, path in runs}
        t_single = time.perf_counter() - t0
        q_single = sum(r.queries_sent for r in single.values())

        cache = work / "cache"
        if cache.exists():
            shutil.rmtree(cache)
        t0 = time.perf_counter()
        multi = evaluate_runs(tasks_file, runs, cache_dir=cache, **common)
        t_multi, q_multi = time.perf_counter() - t0, multi.queries_sent

        sixth = prediction_files(tasks, work, range(MODELS, MODELS + 1))
        t0 = time.perf_counter()
        more = evaluate_runs(tasks_file, runs + sixth, cache_dir=cache, **common)
        t_sixth, q_sixth = time.perf_counter() - t0, more.queries_sent
        known = set().union(*(planned_queries(tasks, p) for _, p in runs))
        new = planned_queries(tasks, sixth[0][1]) - known

    # per-task metrics (an error's text may differ: Neo4j words the same syntax error
    # differently from one run to the next)
    same = all(
        [r["metrics"] for r in single[n].records] == [r["metrics"] for r in multi.runs[n].records]
        for n, _ in runs
    )
    print(f"five single runs: {t_single:.1f} s, {q_single:,} queries sent")
    print(f"one pass:         {t_multi:.1f} s, {q_multi:,} queries sent")
    ratio = t_single / t_multi
    print(f"ratio single / pass: {ratio:.2f}x wall, {q_single / q_multi:.2f}x queries")
    print(f"per-task metrics identical: {same}")
    print(f"target >= 3x: {'met' if ratio >= 3 and same else 'NOT met'}")
    print(multi.table())
    print(
        f"a sixth file added to the cached pass: {t_sixth:.1f} s, {q_sixth:,} queries sent; "
        f"its new distinct queries: {len(new):,}"
    )
    sixth_ok = q_sixth == len(new)
    print(f"target: queries sent = its new distinct queries: {'met' if sixth_ok else 'NOT met'}")
    return 0 if same and sixth_ok else 1


if __name__ == "__main__":
    sys.exit(main())
