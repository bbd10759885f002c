"""Benchmark of ``kgbench convert`` on a synthetic Wikidata N-Triples dump.

Prints, for a dump of ``--triples`` triples made by ``gen_wikidata.py`` (cached in
``--workdir``): end-to-end conversion triples/s and MB/s (wall clock, all cores) of
the path ``kgbench convert`` runs — RDF in, ``graph.json`` + ``entities.parquet`` /
``relations.parquet`` + ``report.json`` on disk (``convert(..., out_dir,
return_graph=False)``, as the CLI calls it) — with CPU seconds, peak RSS of the
process, output counts; then (``--api``, default on) the Python API returning the
graph dict without files; then, in the same process and on a ``--prefix``-triple
prefix of the same file, rdflib's parse-only speed and the ratio; then the input
formats: the same entities as a Wikidata JSON dump (``gen_wikidata.py`` writes both),
``.bz2`` copies of both (one stream, as ``bzip2`` writes: kgbench decodes its blocks in
parallel) and multi-member ``.gz`` copies (one member per 4 MB of input, as ``bgzip``-like
tools write: a single-member ``.gz`` cannot be decoded in parallel) — triples/s and
entities/s per form, and for each compressed file its decompression-only rate in the same run
(``kgbench._core.convert.decompress_count``: the converter's own decoder, without
parsing), with the targets (``.bz2`` conversion at least 0.8x the decompression-only
rate; plain JSON at least 100k entities/s on 2 cores). Each form is converted with the
bench schema (97 % of the entities kept, so resolving and writing the output graph weigh
as much as reading the input) and with ``gen_wikidata.INPUT_BOUND_SCHEMA`` (its places
part, about 7 % kept, as conversions of the real dump keep a small part of Wikidata: the
input-bound case the targets are about). Last (or alone, with ``--empty-schema-only``), the
``kgbench convert`` command in its own process with a schema whose one class the dump does not
hold: the run that keeps no entity, and says why, naming the input's most frequent classes
(counted by the conversion itself, in its one pass).

Usage: ``python benches/bench_convert.py --triples 10000000``
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import gen_wikidata
from kgbench._core import convert as native
from kgbench.convert import convert


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _prefix(src: Path, dst: Path, n: int) -> Path:
    if not dst.exists():
        with src.open("rb") as f, dst.open("wb") as g:
            for i, line in enumerate(f):
                if i >= n:
                    break
                g.write(line)
    return dst


def _dumps(work: Path, n: int) -> tuple[Path, Path]:
    """The synthetic dump of ``n`` triples as N-Triples and as JSON (cached in ``work``)."""
    dump = work / f"synthetic-{n}.nt"
    json_dump = dump.with_suffix(".json")
    if not dump.exists() or not json_dump.exists():
        t0 = time.perf_counter()
        got = gen_wikidata.generate(
            dump.with_suffix(".tmp"), n, json_path=json_dump.with_suffix(".jtmp")
        )
        shutil.move(dump.with_suffix(".tmp"), dump)
        shutil.move(json_dump.with_suffix(".jtmp"), json_dump)
        print(f"generated {got:,} triples (and their JSON) in {time.perf_counter() - t0:.1f}s")
    return dump, json_dump


def _compress_piece(args: tuple[str, bytes]) -> bytes:
    kind, data = args
    return gzip.compress(data, compresslevel=6) if kind == "gz" else bz2.compress(data, 9)


def _compressed(src: Path, kind: str) -> Path:
    """A compressed copy of ``src``: bzip2 as one stream of 900 kB blocks (level 9, as
    ``bzip2`` writes; one process), gzip as one member per 4 MB of input (as ``bgzip``-like
    tools write; compressed on all cores)."""
    dst = src.with_name(src.name + "." + kind)
    if dst.exists():
        return dst
    tmp = dst.with_name(dst.name + ".tmp")
    if kind == "bz2":
        comp = bz2.BZ2Compressor(9)
        with src.open("rb") as f, tmp.open("wb") as g:
            while chunk := f.read(8 << 20):
                g.write(comp.compress(chunk))
            g.write(comp.flush())
        tmp.rename(dst)
        return dst
    step = 4_000_000
    data = src.read_bytes()
    pieces = [(kind, data[i : i + step]) for i in range(0, len(data), step)]
    with ProcessPoolExecutor() as pool, tmp.open("wb") as f:
        for chunk in pool.map(_compress_piece, pieces, chunksize=4):
            f.write(chunk)
    tmp.rename(dst)
    return dst


def _warm(path: Path) -> None:
    """Read ``path`` once, so that the timed run reads it from the page cache (the
    figures are the converter's, not the disk's)."""
    with path.open("rb") as f:
        while f.read(8 << 20):
            pass


def _run(
    path: Path,
    threads: int | None,
    out_dir: Path | None,
    schema: dict[str, object] = gen_wikidata.BENCH_SCHEMA,
) -> tuple[float, float, dict]:
    """One conversion with ``schema``: with ``out_dir``, the CLI's path (files only, no
    Python graph); without, the API returning the graph dict. The input is read once
    first (:func:`_warm`)."""
    _warm(path)
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    if out_dir is None:
        _, report = convert(schema, path, threads=threads, progress=False)
    else:
        _, report = convert(
            schema, path, out_dir, threads=threads, progress=False, return_graph=False
        )
    return time.perf_counter() - t0, time.process_time() - cpu0, report


#: A schema whose one class (scholarly article) the synthetic dump does not hold.
EMPTY_SCHEMA = {
    "name": "nothing-kept",
    "entities": [{"label": "Article", "wd_source": "Q13442814"}],
    "relations": [],
}


def _empty_schema_run(dump: Path, work: Path, threads: int | None) -> None:
    """``kgbench convert`` (own process, ``-q``) with :data:`EMPTY_SCHEMA` on ``dump``:
    wall time, and the warning that says why nothing was kept."""
    schema = work / "empty-schema.json"
    schema.write_text(json.dumps(EMPTY_SCHEMA), encoding="utf-8")
    out = Path(tempfile.mkdtemp(prefix="bench-convert-empty-", dir=work))
    cmd = [sys.executable, "-m", "kgbench", "convert", "--schema", str(schema), str(dump)]
    cmd += ["--out", str(out / "g"), "-q", "--progress", "never"]
    if threads:
        cmd += ["--threads", str(threads)]
    _warm(dump)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    shutil.rmtree(out)
    print("\nkgbench convert keeping no entity (a schema class not in the dump), own process")
    print(f"  wall {wall:.2f}s, cpu {cpu:.2f}s (Python start-up, conversion, the reason)")
    for line in res.stderr.splitlines():
        print(f"  {line}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--triples", type=int, default=10_000_000)
    ap.add_argument("--prefix", type=int, default=200_000, help="rdflib prefix size")
    ap.add_argument(
        "--compressed",
        type=int,
        default=0,
        help="input-formats section on a prefix of this many triples (0: the whole dump)",
    )
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--workdir", default="/tmp/kgbench-bench")
    ap.add_argument(
        "--api",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time the API returning the graph dict",
    )
    ap.add_argument(
        "--empty-schema-only",
        action="store_true",
        help="only time kgbench convert with a schema that keeps nothing",
    )
    args = ap.parse_args()
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    dump, json_dump = _dumps(work, args.triples)
    if args.empty_schema_only:
        _empty_schema_run(dump, work, args.threads)
        return
    size_mb = dump.stat().st_size / 1e6
    cores = os.cpu_count()
    print(f"machine: {cores} cores, load average {os.getloadavg()[0]:.1f} (before the runs)")

    out_root = Path(tempfile.mkdtemp(prefix="bench-convert-", dir=work))

    # 1. kgbench end to end, the CLI's path: RDF in -> graph.json + Parquet pair +
    #    report.json on disk, in-process.
    wall, cpu, report = _run(dump, args.threads, out_root / "full")
    triples = report["triples_read"]
    rss = _peak_rss_mb()
    files_mb = sum(f.stat().st_size for f in (out_root / "full").iterdir()) / 1e6
    rate = triples / wall
    print(
        f"\nkgbench convert (CLI path: graph.json + entities/relations.parquet + report.json "
        f"on disk), {triples:,} triples, {size_mb:,.0f} MB N-Triples -> {files_mb:,.0f} MB"
    )
    print(f"  wall {wall:.2f}s  -> {rate / 1e6:.2f}M triples/s, {size_mb / wall:.0f} MB/s")
    print(
        f"  cpu  {cpu:.2f}s  -> {triples / cpu / 1e6:.2f}M triples per CPU-second, "
        f"{cpu / wall:.2f} cores busy on average"
    )
    rust = report["seconds_total"]
    print(
        f"  of which Rust reading+parsing {report['seconds_reading']:.2f}s, "
        f"resolving+writing {rust - report['seconds_reading']:.2f}s; "
        f"Python files + Parquet {wall - rust:.2f}s"
    )
    print(f"  peak RSS {rss:,.0f} MB (whole Python process)")
    print(
        f"  kept {report['entities_total']:,} entities {report['entities']}, "
        f"{report['relations_total']:,} relations {report['relations']}"
    )
    print(f"  facts kept {report['facts_kept']:,}; dropped values {report['dropped_values']}")
    target = "met" if rate >= 2e6 else "NOT met"
    print(f"  target >= 2M triples/s end to end on 2 cores: {target} ({rate / 1e6:.2f}M)")
    shutil.rmtree(out_root / "full")

    if args.api:
        # In a fresh process, so that its peak RSS is its own.
        code = (
            "import json, resource, sys, time\n"
            f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
            "import gen_wikidata\n"
            "from kgbench.convert import convert\n"
            "c0, t0 = time.process_time(), time.perf_counter()\n"
            f"g, _ = convert(gen_wikidata.BENCH_SCHEMA, {str(dump)!r}, threads={args.threads!r},"
            " progress=False)\n"
            "w, c = time.perf_counter() - t0, time.process_time() - c0\n"
            "rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0\n"
            "print(json.dumps([w, c, rss, len(g['entities'])]))\n"
        )
        res = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        )
        w2, c2, rss2, n_ent = json.loads(res.stdout.strip().splitlines()[-1])
        assert n_ent == report["entities_total"]
        print("\nkgbench.convert.convert() returning the Python graph dict (no files), own process")
        print(
            f"  wall {w2:.2f}s -> {triples / w2 / 1e6:.2f}M triples/s; cpu {c2:.2f}s; "
            f"peak RSS {rss2:,.0f} MB"
        )

    # 2. rdflib parse-only on a prefix, same file, same process.
    import logging

    import rdflib

    logging.getLogger("rdflib").setLevel(logging.ERROR)  # BCE dates would log tracebacks
    prefix = _prefix(dump, work / f"prefix-{args.prefix}.nt", args.prefix)
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    g = rdflib.Graph()
    g.parse(prefix, format="nt")
    rd_wall = time.perf_counter() - t0
    rd_cpu = time.process_time() - cpu0
    rd_rate = len(g) / rd_wall
    del g
    ours_prefix_wall, ours_prefix_cpu, rep_p = _run(prefix, args.threads, out_root / "prefix")
    ours_prefix_rate = rep_p["triples_read"] / ours_prefix_wall
    print(f"\nrdflib {rdflib.__version__} parse-only, {args.prefix:,}-triple prefix")
    print(f"  {rd_wall:.2f}s -> {rd_rate / 1e3:.0f}k triples/s")
    print(
        f"  kgbench end-to-end (CLI path, files written) on the same prefix: "
        f"{ours_prefix_rate / 1e6:.2f}M triples/s"
    )
    print(
        f"  ratio (kgbench end-to-end on the full dump / rdflib parse-only): "
        f"{triples / wall / rd_rate:.0f}x"
    )
    print(f"  ratio (same prefix): {ours_prefix_rate / rd_rate:.0f}x")
    cpu_ratio = (rep_p["triples_read"] / ours_prefix_cpu) / (args.prefix / rd_cpu)
    print(f"  CPU-time ratio (same prefix, independent of machine load): {cpu_ratio:.0f}x")

    # 3. Input formats: the same entities as N-Triples and as a Wikidata JSON dump, plain
    #    and .gz (multi-member) / .bz2 (one stream), with each compressed file's
    #    decompression-only rate; each converted with the bench schema (97 % of the
    #    entities kept: the output graph's resolving and writing weigh as much as the
    #    input) and with its places part (input-bound: about 7 % kept, as conversions of
    #    the real dump keep a small part of it).
    nt, js = _dumps(work, args.compressed) if args.compressed else (dump, json_dump)
    print(
        f"\ninput formats: {nt.stat().st_size / 1e6:,.0f} MB N-Triples, "
        f"{js.stat().st_size / 1e6:,.0f} MB JSON of the same entities; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    schemas = {
        "bench schema": gen_wikidata.BENCH_SCHEMA,
        "input-bound schema": gen_wikidata.INPUT_BOUND_SCHEMA,
    }
    # (schema, form) -> end-to-end rate (plain) or ratio to decompression only
    # (compressed); the same with " reading" for the reading phase alone.
    rates: dict[tuple[str, str], float] = {}
    for src, unit in ((nt, "triples"), (js, "entities")):
        for kind in ("", "gz", "bz2"):
            path = _compressed(src, kind) if kind else src
            name = f"{'json' if unit == 'entities' else 'nt'}{'.' + kind if kind else ''}"
            print(f"  {name:<9} {path.stat().st_size / 1e6:7,.0f} MB")
            dw = 0.0
            if kind:
                t0, c0 = time.perf_counter(), time.process_time()
                comp, decomp, note = native.decompress_count(str(path), threads=args.threads)
                dw, dc = time.perf_counter() - t0, time.process_time() - c0
                print(
                    f"    decompression only {dw:.2f}s ({dc:.1f} CPU-s) -> "
                    f"{comp / dw / 1e6:.1f} MB/s compressed, {decomp / dw / 1e6:.0f} MB/s out; "
                    f"{note.split(': ', 1)[1]}"
                )
            for label, schema in schemas.items():
                w, c, rep = _run(path, args.threads, out_root / "forms", schema)
                count = rep["triples_read"] if unit == "triples" else rep["entities_read"]
                reading = rep["seconds_reading"]
                line = (
                    f"    {label:<18} convert {w:6.2f}s -> {count / w / 1e3:8,.0f}k {unit}/s "
                    f"({c:.1f} CPU-s; {rep['entities_total']:,} entities kept; reading phase "
                    f"{reading:.2f}s -> {count / reading / 1e3:,.0f}k/s)"
                )
                if kind:
                    # The reading phase (decode + parse + keep the facts) against decoding
                    # alone: whether reading is decompression-bound; the rest of a
                    # conversion (resolve, write) does not depend on the input's form.
                    rates[label, name] = dw / w
                    rates[label, name + " reading"] = dw / reading
                    line += (
                        f"\n{'':25}conversion rate / decompression-only rate {dw / w:.2f} "
                        f"(reading phase alone {dw / reading:.2f})"
                    )
                else:
                    rates[label, name] = count / w
                    rates[label, name + " reading"] = count / reading
                print(line)
                shutil.rmtree(out_root / "forms")
    for label in schemas:
        for name in ("nt.bz2", "json.bz2"):
            ratio = rates[label, name]
            print(
                f"  target {name} conversion >= 0.8x its decompression-only rate, {label}: "
                f"{'met' if ratio >= 0.8 else 'NOT met'} ({ratio:.3f}x end to end; reading "
                f"phase alone {rates[label, name + ' reading']:.3f}x)"
            )
        rate = rates[label, "json"]
        print(
            f"  target plain JSON >= 100k entities/s on {cores} cores, {label}: "
            f"{'met' if rate >= 100_000 else 'NOT met'} ({rate / 1e3:,.0f}k/s end to end; "
            f"reading phase alone {rates[label, 'json reading'] / 1e3:,.0f}k/s)"
        )
    shutil.rmtree(out_root)
    _empty_schema_run(dump, work, args.threads)


if __name__ == "__main__":
    main()
