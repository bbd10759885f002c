"""Benchmark of ``kgbench score`` (Rust: JSONL parsing + exact EX, in parallel) against the
pure-Python reference algorithm (benches/reference_ex.py, a port of CypherBench's EX).

Generates N (gold, pred) pairs of small result tables (1-10 rows, 1-3 columns, mixed value
types: int, float, str, bool, null, dates, lists, maps), about half equal under row /
column / in-cell-list permutation and int/float rewriting, 20 % with ``order_matters``;
writes them as JSONL, then prints pairs/s (wall and per CPU-second) for the ``kgbench score``
command end to end (start-up, reading, scoring, writing ``--out``; the headline), for
``score_files`` in process, and for the Python reference on a sample (JSON parsing included
on both sides), the ratios, and checks the verdicts on the sample.

Usage: ``python benches/bench_score.py [--pairs 1000000] [--sample 20000] [--keep DIR] [--records]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_ex
from kgbench.evaluate import execution_accuracy_batch, score_files

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo"]
DATES = ["1990-05-01", "2001-12-31", "1871-03-18", "2020-01-31"]


def _value(rnd: random.Random, kind: int) -> Any:
    if kind == 0:
        return rnd.randrange(-5, 50)
    if kind == 1:
        return rnd.choice([0.5, 1.25, 3.0, 7.5, 12.0, 2.75, -4.5])
    if kind == 2:
        return rnd.choice(NAMES)
    if kind == 3:
        return rnd.choice(DATES)
    if kind == 4:
        return rnd.random() < 0.5
    if kind == 5:
        return None
    if kind == 6:
        return rnd.sample(NAMES, rnd.randrange(0, 4))
    return {"name": rnd.choice(NAMES), "n": rnd.randrange(0, 5)}


def _table(rnd: random.Random) -> list[list[Any]]:
    k = rnd.randint(1, 3)
    n = rnd.randint(1, 10)
    # each column has a dominant type, with occasional nulls
    kinds = [rnd.choices(range(8), weights=[5, 3, 6, 2, 1, 0, 1, 1])[0] for _ in range(k)]
    return [
        [_value(rnd, 5 if rnd.random() < 0.05 else kinds[c]) for c in range(k)] for _ in range(n)
    ]


def _rewrite(v: Any, rnd: random.Random) -> Any:
    if isinstance(v, list):
        v = v[:]
        rnd.shuffle(v)
        return v
    if isinstance(v, dict):
        return dict(reversed(list(v.items())))
    if isinstance(v, int) and not isinstance(v, bool) and rnd.random() < 0.3:
        return float(v)
    return v


def _pred(gold: list[list[Any]], ordered: bool, rnd: random.Random) -> list[list[Any]]:
    k = len(gold[0])
    perm = list(range(k))
    rnd.shuffle(perm)
    rows = [[_rewrite(row[p], rnd) for p in perm] for row in gold]
    if not ordered:
        rnd.shuffle(rows)
    if rnd.random() < 0.5:  # mutate: about half the pairs differ
        m = rnd.randrange(4)
        r = rnd.randrange(len(rows))
        c = rnd.randrange(k)
        if m == 0:
            rows[r][c] = _value(rnd, rnd.randrange(8))
        elif m == 1:
            rows.append(rows[r][:])
        elif m == 2 and len(rows) > 1:
            rows.pop(r)
        else:
            rows = [[*row, rnd.choice(NAMES)] for row in rows]
    return rows


def _records(rows: list[list[Any]], names: list[str]) -> list[dict[str, Any]]:
    """Rows as records (Neo4j's shape: one map per row, column name -> value)."""
    return [dict(zip(names, row, strict=True)) for row in rows]


def generate(
    n: int, gold_path: Path, pred_path: Path, seed: int = 7, records: bool = False
) -> None:
    """Write n (gold, pred) pairs; ``records``: rows as maps keyed by column name (the
    predicted columns named as their gold columns, a new one ``extra``)."""
    rnd = random.Random(seed)
    dumps = json.dumps
    with gold_path.open("w") as g, pred_path.open("w") as p:
        for i in range(n):
            gold = _table(rnd)
            ordered = rnd.random() < 0.2
            pred = _pred(gold, ordered, rnd)
            qid = f"q{i}"
            if records:
                names = [f"c{c}" for c in range(len(gold[0]))]
                gold_rows: list[Any] = _records(gold, names)
                # predicted columns come permuted: any names but the gold ones' order will do
                pnames = [f"c{c}" for c in range(len(pred[0]))]
                if len(pnames) > len(names):
                    pnames[-1] = "extra"
                pred_rows: list[Any] = _records(pred, pnames)
            else:
                gold_rows, pred_rows = gold, pred
            g.write(dumps({"qid": qid, "rows": gold_rows, "order_matters": ordered}))
            g.write("\n")
            p.write(dumps({"qid": qid, "rows": pred_rows, "error": None}))
            p.write("\n")


def reference_sample(
    gold_path: Path, pred_path: Path, n: int
) -> tuple[list[float], list[float], float, float]:
    """Reference verdicts on the first n pairs, and the reference with kgbench's two
    documented rules (no str-sort pre-rejection; ``True != 1``). Returns both verdict lists
    and the wall and CPU seconds of the faithful reference, JSON parsing included."""
    with gold_path.open() as g, pred_path.open() as p:
        gl = [next(g) for _ in range(n)]
        pl = [next(p) for _ in range(n)]
    t0, c0 = time.perf_counter(), time.process_time()
    verdicts = []
    for a, b in zip(gl, pl, strict=True):
        gold = json.loads(a)
        pred = json.loads(b)
        verdicts.append(
            reference_ex.execution_accuracy(gold["rows"], pred["rows"], gold["order_matters"])
        )
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    documented = []
    for a, b in zip(gl, pl, strict=True):
        gold = json.loads(a)
        pred = json.loads(b)
        documented.append(
            reference_ex.execution_accuracy(
                gold["rows"],
                pred["rows"],
                gold["order_matters"],
                quick_reject=False,
                bools_are_numbers=False,
            )
        )
    return verdicts, documented, seconds, cpu


def _cpu() -> float:
    """CPU seconds of this process, all threads (the machine may be shared)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _children_cpu() -> float:
    """CPU seconds of finished child processes (the ``kgbench score`` command)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--sample", type=int, default=20_000)
    ap.add_argument("--keep", type=Path, help="directory to keep the generated files in")
    ap.add_argument(
        "--records",
        action="store_true",
        help="rows as records (maps keyed by column name, as Neo4j returns them) instead of arrays",
    )
    args = ap.parse_args()

    tmp = tempfile.TemporaryDirectory(prefix="kgbench-bench-score-")
    d = args.keep or Path(tmp.name)
    d.mkdir(parents=True, exist_ok=True)
    gold, pred, out = d / "gold.jsonl", d / "pred.jsonl", d / "scores.jsonl"
    stamp = d / "pairs.txt"

    shape = f"{args.pairs} records" if args.records else str(args.pairs)
    if args.keep and stamp.exists() and stamp.read_text().strip() == shape:
        print(f"reusing {args.pairs:,} generated pairs in {d}")
    else:
        t0 = time.perf_counter()
        generate(args.pairs, gold, pred, records=args.records)
        stamp.write_text(shape)
        print(f"generated {args.pairs:,} pairs in {time.perf_counter() - t0:.1f} s")
    size = (gold.stat().st_size + pred.stat().st_size) / 1e6
    print(f"input: {size:.0f} MB JSONL; cores available: {len(os.sched_getaffinity(0))}")
    print(f"load average before: {os.getloadavg()[0]:.1f}")

    score_files(gold, pred)  # warm the page cache
    runs = []
    for _ in range(3):
        t0, c0 = time.perf_counter(), _cpu()
        res = score_files(gold, pred, out)
        runs.append((time.perf_counter() - t0, _cpu() - c0))
    rust_s, rust_cpu = min(runs)
    rust_rate = args.pairs / rust_s
    print(
        f"kgbench score (score_files, Rust): {rust_s:.3f} s wall best of 3 -> "
        f"{rust_rate:,.0f} pairs/s; {rust_cpu:.3f} CPU-s -> {args.pairs / rust_cpu:,.0f} "
        f"pairs per CPU-second (EX {res.summary['ex']:.4f}, {res.summary['n_match']:,} equal)"
    )
    exe = Path(sys.executable).with_name("kgbench")
    cli_runs = []
    for _ in range(3):
        t0, c0 = time.perf_counter(), _children_cpu()
        subprocess.run(
            [str(exe), "score", "--gold", str(gold), "--pred", str(pred), "--out", str(out)],
            check=True,
            capture_output=True,
        )
        cli_runs.append((time.perf_counter() - t0, _children_cpu() - c0))
    cli_s, cli_cpu = min(cli_runs)
    cli_rate = args.pairs / cli_s
    print(
        f"kgbench score (command: interpreter start-up, reading both files, scoring, writing "
        f"--out): {cli_s:.3f} s wall best of 3 -> {cli_rate:,.0f} pairs/s; {cli_cpu:.3f} CPU-s "
        f"-> {args.pairs / cli_cpu:,.0f} pairs per CPU-second"
    )

    n = min(args.sample, args.pairs)
    verdicts, documented, py_s, py_cpu = reference_sample(gold, pred, n)
    py_rate = n / py_s
    print(
        f"Python reference on {n:,} pairs: {py_s:.3f} s -> {py_rate:,.0f} pairs/s; "
        f"{n / py_cpu:,.0f} pairs per CPU-second"
    )
    print(f"ratio kgbench score command / Python reference (wall): {cli_rate / py_rate:,.1f}x")
    print(f"ratio score_files in process / Python reference (wall): {rust_rate / py_rate:,.1f}x")
    print(
        "ratio per CPU-second, command / Python reference: "
        f"{(args.pairs / cli_cpu) / (n / py_cpu):,.1f}x"
    )
    print(f"load average after: {os.getloadavg()[0]:.1f}")

    ours = res.ex[:n].tolist()
    same = sum(a == b for a, b in zip(ours, verdicts, strict=True))
    same_doc = sum(a == b for a, b in zip(ours, documented, strict=True))
    print(f"verdicts identical to the reference: {same:,} / {n:,}")
    print(
        "verdicts identical to the reference with kgbench's documented rules "
        f"(no str-sort pre-rejection, True != 1): {same_doc:,} / {n:,}"
    )

    # batch API on the same sample (Python objects -> Rust)
    with gold.open() as g, pred.open() as p:
        gs = [json.loads(next(g)) for _ in range(n)]
        ps = [json.loads(next(p)) for _ in range(n)]
    t0 = time.perf_counter()
    batch = execution_accuracy_batch(
        [x["rows"] for x in gs], [x["rows"] for x in ps], [x["order_matters"] for x in gs]
    )
    b_s = time.perf_counter() - t0
    print(
        f"execution_accuracy_batch on the sample (Python objects in): {n / b_s:,.0f} pairs/s, "
        f"same verdicts as score: {batch.tolist() == ours}"
    )
    ok = same_doc == n and batch.tolist() == ours
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
