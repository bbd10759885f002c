"""Benchmark of test-suite EX for SPARQL (issue 31; ``kgbench.evaluate.suites.sparql``).

On the published GPT-3.5 zero-shot Spider4SPARQL predictions over the shared Spider dev
databases (``../shared/data/spider4sparql/``, ``../shared/data/spider/`` converted by
``kgbench rdb`` into a temporary directory, untimed), prints in one process:

- plain EX (``evaluate_sparql`` without a suite): seconds;
- TS-EX with suites distilled from scratch (first run): seconds, per task, and the ratio to
  plain EX;
- TS-EX with the cached suites (second run, nothing distilled): seconds and the ratio to plain
  EX (the baseline);
- EX, EX on informative tasks, TS-EX and the number of tasks with EX 1 and TS-EX 0.

Usage: ``python benches/bench_test_suite_sparql.py [--graphs concert_singer,world_1,...]``
(default: every database of ``../shared/data/spider/database``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> int:
    """Run the benchmark; the exit code."""
    from kgbench.cli import main as cli
    from kgbench.evaluate.sparql_runner import evaluate_sparql
    from kgbench.evaluate.suites.core import SuiteCache

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", help="comma-separated database names (default: all)")
    args = ap.parse_args()
    spider, s4s = SHARED / "spider", SHARED / "spider4sparql"
    if not (spider / "database").is_dir() or not (s4s / "s4s_dev_shared_dbs.json").is_file():
        print(f"the shared Spider / Spider4SPARQL data are absent ({SHARED})", file=sys.stderr)
        return 1
    dbs = sorted(p.name for p in (spider / "database").iterdir() if p.is_dir())
    if args.graphs:
        dbs = [d for d in dbs if d in args.graphs.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        rdf = Path(tmp) / "rdf"
        for db in dbs:
            db_file = spider / "database" / db / f"{db}.sqlite"
            out = rdf / db
            code = cli(
                ["rdb", str(db_file), "--tables", str(spider / "tables.json"), "--out", str(out)]
            )
            if code != 0:
                return code
        gold = json.loads((s4s / "s4s_dev_shared_dbs.json").read_text(encoding="utf-8"))
        pred = json.loads((s4s / "gpt35_zero_shot_dev_shared_dbs.json").read_text(encoding="utf-8"))
        keep = [i for i, g in enumerate(gold) if g["kg_name"] in dbs]
        tasks, preds = Path(tmp) / "tasks.json", Path(tmp) / "pred.json"
        tasks.write_text(json.dumps([{**gold[i], "qid": str(i)} for i in keep]), encoding="utf-8")
        preds.write_text(
            json.dumps([{"qid": str(i), "pred_sparql": pred[i]["predicted_sparql"]} for i in keep]),
            encoding="utf-8",
        )
        t0 = time.perf_counter()
        plain = evaluate_sparql(tasks, preds, rdf)
        t_plain = time.perf_counter() - t0
        cache = SuiteCache()
        t0 = time.perf_counter()
        first = evaluate_sparql(tasks, preds, rdf, test_suite=8, suite_cache=cache)
        t_first = time.perf_counter() - t0
        distilled = cache.counts()["distilled"]
        cache.reused = cache.distilled = cache.rebuilt = 0
        t0 = time.perf_counter()
        cached = evaluate_sparql(tasks, preds, rdf, test_suite=8, suite_cache=cache)
        t_cached = time.perf_counter() - t0
    n = len(plain.records)
    agg = first.aggregated
    assert cached.records == first.records, "cached suites must give the same scores"
    print(f"Spider4SPARQL GPT-3.5 zero-shot, {len(dbs)} databases, {n} tasks scored")
    print(f"  plain EX                       {t_plain:8.1f} s")
    print(
        f"  TS-EX, suites distilled        {t_first:8.1f} s  ({distilled} suites, "
        f"{t_first / max(n, 1) * 1000:.0f} ms/task)  {t_first / t_plain:6.2f}x plain EX"
    )
    print(
        f"  TS-EX, suites cached           {t_cached:8.1f} s  "
        f"({cache.counts()['reused']} reused)  {t_cached / t_plain:6.2f}x plain EX"
    )
    print(
        f"  EX {agg['overall']['execution_accuracy']:.4f}  informative EX "
        f"{agg['informative']['overall']['execution_accuracy']:.4f}  TS-EX "
        f"{agg['overall']['ts_execution_accuracy']:.4f}  EX 1 / TS-EX 0: "
        f"{agg['test_suite']['ex_not_ts']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
