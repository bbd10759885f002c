"""Benchmark: ``kgbench audit``'s cost per task against plain EX on the same warm server.

Setting (issue 37, "Speed"): the shared WD50K statements converted with the tests' schema,
loaded into a local Neo4j 5.26, CypherBench tasks generated on them (``generate_cypherbench``,
the tests' traits; saved in the work directory and reused while the file is there), and one
prediction file: every other task's prediction is its gold, the others the gold of another
task of the list (seeded), so the evaluation sends gold and predicted queries as a model's
run does. Then, in this one process, after one untimed run of each (the server's plans and
caches warm):

- plain EX: ``kgbench.evaluate.evaluate(tasks_file, predictions_file, metrics="ex")``, no
  result cache (every gold and prediction sent);
- the audit: ``kgbench.evaluate.audit.audit(load_tasks(tasks_file))`` (every gold once, the
  limit-free rerun for the golds with a final ``SKIP`` / ``LIMIT``, duplicate-question
  comparisons);

each ``--repeat`` times (default 3), alternating; the medians are printed per task, with
their ratio and how many golds the audit ran twice. WD50K's generated golds have no ``ORDER
BY`` or ``LIMIT``, so the same is measured a second time with `` ORDER BY 1 LIMIT 3`` appended
to every gold and prediction: every gold then runs twice in the audit (every row tied on the
constant key), the worst case of the limit-free rerun. Target: the audit at most 2x EX.

Usage: ``python benches/bench_audit.py [--workdir DIR] [--heap 1g] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WD50K = ROOT.parent / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"
SCHEMA = ROOT / "tests" / "data" / "wd50k" / "wd50k.wd2neo4j.json"
TRAITS = ROOT / "tests" / "data" / "wd50k" / "wd50k.traits.json"


def predictions(tasks: list[dict[str, Any]], seed: int = 7) -> list[dict[str, Any]]:
    """Every other task's gold as is; the others the gold of another task (seeded)."""
    rng = random.Random(seed)
    golds = [t["gold_cypher"] for t in tasks]
    out = []
    for i, t in enumerate(tasks):
        pred = t["gold_cypher"] if i % 2 == 0 else golds[rng.randrange(len(golds))]
        out.append({"qid": t["qid"], "pred_cypher": pred})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "kgbench-bench-audit"))
    ap.add_argument("--heap", default="1g")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=8)
    args = ap.parse_args()
    if not WD50K.exists():
        print(f"the shared WD50K dump is absent ({WD50K}): nothing to measure")
        return 0

    from kgbench.convert import convert
    from kgbench.generate import generate_cypherbench
    from kgbench.neo4j import LocalNeo4j, load_graph
    from kgbench.tasks import load_tasks

    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    graph = work / "graph" / "graph.json"
    if not graph.exists():
        convert(str(SCHEMA), [str(WD50K)], str(work / "graph"), return_graph=False)
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    with LocalNeo4j(data_dir=work / "neo4j", heap=args.heap, pagecache="512m") as server:
        import neo4j

        with neo4j.GraphDatabase.driver(server.uri, auth=None) as driver:
            load_graph(str(graph), driver, wipe=True, progress=False)
        tasks_file = work / "tasks.json"
        if not tasks_file.exists():
            res = generate_cypherbench(server.uri, None, TRAITS, "wd50k", work / "generated")
            tasks_file.write_text(json.dumps(res.tasks), encoding="utf-8")
        base_tasks = load_tasks(tasks_file)
        for setting, suffix in (
            ("as generated", ""),
            ("+ ORDER BY 1 LIMIT 3", " ORDER BY 1 LIMIT 3"),
        ):
            tasks = [{**t, "gold_cypher": t["gold_cypher"] + suffix} for t in base_tasks]
            measure(setting, tasks, work, server.uri, args)
    return 0


def measure(setting: str, tasks: list[dict[str, Any]], work: Path, uri: str, args: Any) -> None:
    """Time plain EX and the audit on ``tasks`` (module docstring) and print the figures."""
    from kgbench.evaluate.audit import audit, limit_cut
    from kgbench.evaluate.runner import evaluate
    from kgbench.tasks import load_tasks

    tasks_file = work / "bench_tasks.json"
    tasks_file.write_text(json.dumps(tasks), encoding="utf-8")
    preds_file = work / "predictions.json"
    preds_file.write_text(json.dumps(predictions(tasks)), encoding="utf-8")
    common: dict[str, Any] = {"uri": uri, "workers": args.workers, "timeout_s": 60.0}
    twice = sum(1 for t in tasks if limit_cut(t["gold_cypher"]) is not None)
    print(f"{setting}: {len(tasks)} WD50K tasks; {twice} golds with a final SKIP/LIMIT (run twice)")

    def run_ex() -> float:
        t0 = time.perf_counter()
        evaluate(tasks_file, preds_file, metrics="ex", log=lambda _m: None, **common)
        return time.perf_counter() - t0

    def run_audit() -> tuple[float, Any]:
        t0 = time.perf_counter()
        result = audit(load_tasks(tasks_file), log=lambda _m: None, **common)
        return time.perf_counter() - t0, result

    run_ex()  # warm: plans and page cache
    run_audit()
    ex_times, audit_times = [], []
    result = None
    for _ in range(args.repeat):
        ex_times.append(run_ex())
        elapsed, result = run_audit()
        audit_times.append(elapsed)
    assert result is not None
    n = len(tasks)
    ex_s, audit_s = statistics.median(ex_times), statistics.median(audit_times)
    counts = result.counts()
    print(
        f"  plain EX (evaluate --metrics ex, no cache): {ex_s:.2f} s, {1000 * ex_s / n:.2f} ms/task"
    )
    print(f"  audit:{' ' * 38}{audit_s:.2f} s, {1000 * audit_s / n:.2f} ms/task")
    print(f"  audit / EX: {audit_s / ex_s:.2f}x (target <= 2x); medians of {args.repeat}")
    print(f"  flagged: {counts['flagged']} of {counts['tasks']}: {json.dumps(counts['by_reason'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
