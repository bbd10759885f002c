"""Input data for the task-generator benchmark: a converted synthetic Wikidata graph.

:func:`prepare_synthetic_graph` writes the synthetic Wikidata N-Triples dump of
``gen_wikidata.py`` (``generate(path, n_triples, seed)``), big enough that its conversion with
``gen_wikidata.BENCH_SCHEMA`` (labels Person, City, Country; relations bornIn, citizenOf with a
``start_year`` qualifier, inCountry) has at least ``min_entities`` entities and
``min_relations`` relations, converts it with :func:`kgbench.convert.convert` (the path the CLI
runs: files only, Parquet pair included) and returns the ``graph.json`` path.

Sizing: a calibration run converts a small dump (300,000 triples, under a second) and gives the
entities and relations per triple; the full dump gets enough triples for both minima plus 2 %.
If the converted graph still falls short (it cannot for the shipped generator, whose rates
are constant), the dump is regenerated with the triples scaled by the shortfall, at most
twice, then :class:`RuntimeError`.

Cache: ``workdir/synthetic-graph-<min_entities>-<min_relations>-seed<seed>/`` holds the
conversion output and ``complete.json`` (triples, counts, seconds) written last; when that file
exists, names a ``graph.json`` that exists and records counts that meet the minima, nothing is
regenerated. The dump (about 150 bytes a triple: ~1.4 GB for the defaults) is deleted after
conversion unless ``keep_dump``.

Measured on the project's 2-core machine with the defaults (seed 7): 8,976,546 triples
(1.30 GB) generated in 8.7 s and converted in 4.3 s to 100,635 entities (Person 93,737, City
6,858, Country 40) and 217,064 relations (bornIn 88,965, citizenOf 121,241, inCountry 6,858);
a second call returns the cached graph at once.

``benches/data/synthetic.traits.json`` holds the relation traits of this graph (drafted with
:func:`kgbench.generate.traits.draft_traits` on the loaded graph and reviewed; see its
``review`` entries).

Usage: ``python benches/generate_data.py [--workdir DIR] [--min-entities N] [--min-relations M]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import gen_wikidata
from kgbench.convert import convert

#: Triples of the calibration dump.
CALIBRATION_TRIPLES = 300_000
#: Head room over the calibrated estimate.
MARGIN = 1.02
STAMP = "complete.json"


def _rates(seed: int) -> tuple[float, float]:
    """(entities per triple, relations per triple) of the converted synthetic dump."""
    with tempfile.TemporaryDirectory(prefix="kgbench-calibrate-") as tmp:
        dump = Path(tmp) / "calibration.nt"
        n = gen_wikidata.generate(dump, CALIBRATION_TRIPLES, seed)
        _, report = convert(
            gen_wikidata.BENCH_SCHEMA, dump, progress=False, return_graph=False, parquet=False
        )
    return report["entities_total"] / n, report["relations_total"] / n


def _cached(out: Path, min_entities: int, min_relations: int) -> dict[str, Any] | None:
    stamp = out / STAMP
    if not stamp.exists():
        return None
    try:
        info: dict[str, Any] = json.loads(stamp.read_text(encoding="utf-8"))
    except ValueError:
        return None
    graph = out / "graph.json"
    if (
        graph.exists()
        and info.get("entities", 0) >= min_entities
        and info.get("relations", 0) >= min_relations
    ):
        return info
    return None


def prepare_synthetic_graph(
    workdir: Path,
    *,
    min_entities: int = 100_000,
    min_relations: int = 200_000,
    seed: int = 7,
    keep_dump: bool = False,
    quiet: bool = False,
) -> Path:
    """Write, convert and cache the synthetic graph; return its ``graph.json`` path.

    Args:
        workdir: cache directory (created when missing).
        min_entities, min_relations: minimum entity and relation counts after conversion.
        seed: generator seed (the dump and graph are deterministic for a seed and size).
        keep_dump: keep the N-Triples dump next to the output instead of deleting it.
        quiet: print nothing (else one line per step on stdout, with counts and seconds).

    Raises:
        RuntimeError: three dumps of growing size all converted to fewer entities/relations
            than asked (a changed generator).
    """

    def say(msg: str) -> None:
        if not quiet:
            print(msg, flush=True)

    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    out = workdir / f"synthetic-graph-{min_entities}-{min_relations}-seed{seed}"
    info = _cached(out, min_entities, min_relations)
    if info is not None:
        say(
            f"cached: {info['entities']:,} entities, {info['relations']:,} relations "
            f"({info['triples']:,} triples) -> {out / 'graph.json'}"
        )
        return out / "graph.json"

    ent_rate, rel_rate = _rates(seed)
    n_triples = int(max(min_entities / ent_rate, min_relations / rel_rate) * MARGIN)
    say(
        f"calibration: {ent_rate * 1e6:,.0f} entities and {rel_rate * 1e6:,.0f} relations "
        f"per million triples -> {n_triples:,} triples"
    )
    for _attempt in range(3):
        dump = workdir / f"synthetic-{n_triples}-seed{seed}.nt"
        t0 = time.perf_counter()
        if not dump.exists():
            tmp = dump.with_suffix(".tmp")
            written = gen_wikidata.generate(tmp, n_triples, seed)
            tmp.replace(dump)
            say(
                f"generated {written:,} triples ({dump.stat().st_size / 1e9:.2f} GB) in "
                f"{time.perf_counter() - t0:.1f}s -> {dump}"
            )
        if out.exists():
            shutil.rmtree(out)
        t1 = time.perf_counter()
        _, report = convert(
            gen_wikidata.BENCH_SCHEMA, dump, out, progress=False, return_graph=False
        )
        seconds = time.perf_counter() - t1
        entities, relations = report["entities_total"], report["relations_total"]
        say(
            f"converted {report['triples_read']:,} triples in {seconds:.1f}s: "
            f"{entities:,} entities {report['entities']}, {relations:,} relations "
            f"{report['relations']}"
        )
        if not keep_dump:
            dump.unlink()
        if entities >= min_entities and relations >= min_relations:
            stamp = {
                "triples": report["triples_read"],
                "seed": seed,
                "entities": entities,
                "relations": relations,
                "entities_by_label": report["entities"],
                "relations_by_variant": report["relations"],
                "convert_seconds": round(seconds, 2),
            }
            (out / STAMP).write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")
            return out / "graph.json"
        scale = max(min_entities / max(entities, 1), min_relations / max(relations, 1))
        n_triples = int(n_triples * scale * MARGIN)
        say(f"short of the minima; regenerating with {n_triples:,} triples")
    raise RuntimeError(
        f"the synthetic dump did not reach {min_entities:,} entities and {min_relations:,} "
        "relations after three sizes; has gen_wikidata.py changed?"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default="/tmp/kgbench-bench")
    ap.add_argument("--min-entities", type=int, default=100_000)
    ap.add_argument("--min-relations", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep-dump", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    path = prepare_synthetic_graph(
        Path(args.workdir),
        min_entities=args.min_entities,
        min_relations=args.min_relations,
        seed=args.seed,
        keep_dump=args.keep_dump,
    )
    print(f"graph: {path} ({time.perf_counter() - t0:.1f}s in all)")


if __name__ == "__main__":
    main()
