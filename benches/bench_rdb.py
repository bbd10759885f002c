"""Benchmark of ``kgbench rdb`` (relational database -> N-Triples and graph.json) and of SQL
translation and validation (issue "Spider4SPARQL"; spec ``spider4sparql.md``).

Prints, in one process:

- the largest Spider database in ``../shared/data/spider/`` (by rows) and a synthetic SQLite
  database of ``--rows`` (1,000,000) rows: rows/s of the whole conversion (N-Triples,
  ontology, graph.json and report written) with the default Rust engine, run in a child
  process so its peak resident memory is its own;
- the baselines: rdflib's own N-Triples serialisation of the same triples (the largest Spider
  database's graph, parsed into an rdflib Graph untimed) and the ratio; the pure-Python
  engine (``engine="python"``, the reference) on the largest Spider database and on the
  first ``--python-rows`` (100,000) rows of the synthetic database (the same generator, so a
  prefix), with the Rust engine on that prefix too, and the ratio;
- gold queries per second through translation (SQL -> SPARQL and Cypher) and validation
  (SQL on SQLite, SPARQL on the RDF) on the 493 Spider dev questions.

Target: at least 500k rows/s to N-Triples on 2 cores, and at least 10x rdflib's
serialisation of the same triples.

Usage: ``python benches/bench_rdb.py [--rows 1000000] [--python-rows 100000] [--quick]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SPIDER = Path(__file__).resolve().parents[2] / "shared" / "data" / "spider"


def synthetic_db(path: Path, rows: int, seed: int = 7) -> None:
    """A deterministic SQLite database: ``person`` (``rows`` rows: integer key, name, age,
    height, birth date, city foreign key) and ``city`` (1,000 rows)."""
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT, population INTEGER);"
        "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT, age INTEGER, height REAL, "
        "born DATE, city_id INTEGER REFERENCES city(id));"
    )
    conn.executemany(
        "INSERT INTO city VALUES (?, ?, ?)",
        ((i, f"City {i}", rng.randrange(1_000, 10_000_000)) for i in range(1, 1001)),
    )
    conn.executemany(
        "INSERT INTO person VALUES (?, ?, ?, ?, ?, ?)",
        (
            (
                i,
                f"Person {i}",
                rng.randrange(0, 100),
                round(rng.uniform(1.4, 2.1), 2),
                f"{rng.randrange(1920, 2020)}-{rng.randrange(1, 13):02d}-"
                f"{rng.randrange(1, 29):02d}",
                rng.randrange(1, 1001),
            )
            for i in range(1, rows + 1 - 1000)
        ),
    )
    conn.commit()
    conn.close()


def largest_spider_db() -> Path | None:
    best, best_rows = None, -1
    for db in sorted(SPIDER.glob("*/*/*.sqlite")):
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            names = [
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            ]
            rows = sum(conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names)
        finally:
            conn.close()
        if rows > best_rows:
            best, best_rows = db, rows
    return best


def convert_timed(
    db: Path, out: Path, tables: Path | None, engine: str = "rust"
) -> tuple[dict, float, float]:
    """Convert ``db`` in a child process; returns (report, seconds of ``convert_rdb``, peak
    resident memory of the child in MB: ``VmHWM``, which unlike ``ru_maxrss`` does not
    inherit the parent's size at fork)."""
    code = (
        "import json, sys, time\n"
        "from pathlib import Path\n"
        "from kgbench.rdb.convert import convert_rdb\n"
        "db, tables, out, engine = sys.argv[1:5]\n"
        "t = time.perf_counter()\n"
        "rep = convert_rdb(Path(db), None if tables == '-' else Path(tables), Path(db).stem, "
        "Path(out), engine=engine)\n"
        "secs = time.perf_counter() - t\n"
        "rss = next(int(x.split()[1]) for x in open('/proc/self/status') "
        "if x.startswith('VmHWM')) / 1024\n"
        "print(json.dumps({'report': rep, 'seconds': secs, 'rss': rss}))\n"
    )
    args = [sys.executable, "-c", code, str(db), str(tables or "-"), str(out), engine]
    res = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return res["report"], res["seconds"], res["rss"]


def raw_write_seconds(path: Path, size: int) -> float:
    """Seconds to write ``size`` bytes to a new file ``path`` (8 MB writes): the floor the
    machine puts under any converter writing that much output."""
    block = b"x" * (8 << 20)
    t = time.perf_counter()
    with path.open("wb") as fh:
        left = size
        while left > 0:
            fh.write(block[: min(left, len(block))])
            left -= len(block)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--python-rows", type=int, default=100_000)
    ap.add_argument("--quick", action="store_true", help="100,000 synthetic rows")
    args = ap.parse_args()
    if args.quick:
        args.rows = 100_000
    print(f"cores available: {os.cpu_count()}; load average before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        largest = largest_spider_db() if SPIDER.exists() else None
        if largest is not None:
            tables = SPIDER / "tables.json" if largest.parent.parent.name == "database" else None
            rep, secs, rss = convert_timed(largest, tmp / "largest", tables)
            print(
                f"largest Spider database {largest.stem}: {rep['rows']:,} rows, "
                f"{rep['triples']:,} triples in {secs:.2f} s -> {rep['rows'] / secs:,.0f} rows/s "
                f"({rep['triples'] / secs:,.0f} triples/s), graph.json included; "
                f"peak RSS {rss:,.0f} MB [rust]"
            )
            _, py_secs, _ = convert_timed(largest, tmp / "largest-py", tables, "python")
            print(
                f"  python engine: {py_secs:.2f} s -> {rep['rows'] / py_secs:,.0f} rows/s; "
                f"rust / python {py_secs / secs:.1f}x"
            )
            import rdflib

            nt = tmp / "largest" / f"{largest.stem}.nt"
            g = rdflib.Graph()
            g.parse(nt, format="nt")
            t = time.perf_counter()
            g.serialize(format="nt", encoding="utf-8")
            t_rdflib = time.perf_counter() - t
            print(
                f"rdflib serialisation of the same {len(g):,} triples: {t_rdflib:.2f} s -> "
                f"{len(g) / t_rdflib:,.0f} triples/s; ratio kgbench (whole conversion) / rdflib "
                f"{t_rdflib / secs:.1f}x (target >= 10x: "
                f"{'PASS' if t_rdflib / secs >= 10 else 'FAIL'})"
            )
            del g
        db = tmp / "synthetic.sqlite"
        t = time.perf_counter()
        synthetic_db(db, args.rows)
        print(
            f"\nsynthetic database: {args.rows:,} rows written in {time.perf_counter() - t:.1f} s"
        )
        rep, secs, rss = convert_timed(db, tmp / "synthetic", None)
        rate = rep["rows"] / secs
        print(
            f"synthetic: {rep['rows']:,} rows, {rep['triples']:,} triples in {secs:.2f} s -> "
            f"{rate:,.0f} rows/s ({rep['triples'] / secs:,.0f} triples/s), graph.json included; "
            f"peak RSS {rss:,.0f} MB [rust]"
        )
        written = sum(p.stat().st_size for p in (tmp / "synthetic").iterdir())
        floor = raw_write_seconds(tmp / "raw.bin", written)
        print(
            f"  the machine's own cost of writing {written / 1e6:,.0f} MB to a new file: "
            f"{floor:.2f} s (fresh page cache; the conversion's output bytes)"
        )
        (tmp / "raw.bin").unlink()
        shutil.rmtree(tmp / "synthetic")
        rep2, secs2, _ = convert_timed(db, tmp / "synthetic", None)
        print(
            f"  again (output pages recycled): {secs2:.2f} s -> {rep2['rows'] / secs2:,.0f} rows/s"
        )
        shutil.rmtree(tmp / "synthetic")
        prefix = tmp / "prefix.sqlite"
        synthetic_db(prefix, min(args.python_rows, args.rows))
        rep_p, secs_p, _ = convert_timed(prefix, tmp / "prefix-py", None, "python")
        rep_r, secs_r, _ = convert_timed(prefix, tmp / "prefix-rs", None)
        print(
            f"first {rep_p['rows']:,} rows: python engine {secs_p:.2f} s -> "
            f"{rep_p['rows'] / secs_p:,.0f} rows/s; rust {secs_r:.2f} s -> "
            f"{rep_r['rows'] / secs_r:,.0f} rows/s; rust / python {secs_p / secs_r:.1f}x"
        )
        if SPIDER.exists():
            bench_translation()
        verdict = "PASS" if rate >= 500_000 else "FAIL"
        print(f"\n== summary ==\nrows/s to N-Triples (target >= 500,000): {rate:,.0f} {verdict}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


def bench_translation() -> None:
    """Translation and validation of the Spider dev questions."""
    import json

    from kgbench.rdb.convert import convert_rdb
    from kgbench.rdb.schema import load_schema
    from kgbench.rdb.sql2cypher import translate_sql_to_cypher
    from kgbench.rdb.sql2sparql import translate_sql_to_sparql
    from kgbench.rdb.validate import validate_translations

    questions = json.loads((SPIDER / "dev.json").read_text(encoding="utf-8"))
    tables = SPIDER / "tables.json"
    schemas = {}
    with tempfile.TemporaryDirectory() as tmp_s:
        dbs = {}
        for q in questions:
            db_id = q["db_id"]
            if db_id not in schemas:
                db = SPIDER / "database" / db_id / f"{db_id}.sqlite"
                schemas[db_id] = load_schema(db, tables, db_id)
                convert_rdb(db, tables, db_id, Path(tmp_s) / db_id)
                dbs[db_id] = (schemas[db_id], db, [Path(tmp_s) / db_id / f"{db_id}.nt"])
        t = time.perf_counter()
        for q in questions:
            translate_sql_to_sparql(q["query"], schemas[q["db_id"]])
            translate_sql_to_cypher(q["query"], schemas[q["db_id"]])
        t_tr = time.perf_counter() - t
        t = time.perf_counter()
        report = validate_translations(questions, dbs)
        t_val = time.perf_counter() - t
    equal = sum(c["sparql"].get("equal", 0) for c in report.counts.values())
    print(
        f"\ntranslation: {len(questions)} gold SQLs to SPARQL and Cypher in {t_tr:.2f} s -> "
        f"{len(questions) / t_tr:,.0f} queries/s"
    )
    print(
        f"validation (SQL on SQLite, SPARQL on the RDF): {len(questions)} in {t_val:.1f} s -> "
        f"{len(questions) / t_val:,.1f} queries/s; {equal} equal"
    )


if __name__ == "__main__":
    sys.exit(main())
