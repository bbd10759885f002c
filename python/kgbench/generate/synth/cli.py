"""``kgbench generate synth``: SynthKGQA items with ground-truth answer subgraphs from a
Wikidata RDF dump (spec ``synthkgqa.md``; :mod:`kgbench.generate.synth.template`)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any


def register_synth(sub: Any) -> None:
    """Add ``generate synth`` to the ``generate`` sub-parsers."""
    p = sub.add_parser(
        "synth",
        help="SynthKGQA: KGQA items with ground-truth answer subgraphs (offline templates)",
        description="Load a Wikidata RDF dump into an embedded SPARQL store, sample seed "
        "graphs (Rust), embed isomorphism types, write each item's SPARQL and template "
        "question, and keep the items that pass validation (answer found, at most "
        "--max-answers answers, a tree of an allowed type, the full answer subgraph, "
        "minimality over seed subsets). Writes DIR/items.jsonl (GTSQA's record format), "
        "DIR/filter_log.json (rejections per reason) and DIR/report.json. Deterministic for "
        "a seed.",
    )
    p.add_argument(
        "--rdf",
        nargs="+",
        required=True,
        metavar="DUMP",
        help="Wikidata RDF dump(s): N-Triples or Turtle, plain, .gz or .bz2",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--n", type=int, default=100, help="valid items wanted (default: 100)")
    p.add_argument("--seed", type=int, default=1111, help="random seed (default: 1111)")
    p.add_argument(
        "--max-edges",
        type=int,
        default=4,
        metavar="K",
        help="largest answer subgraph, in edges (default: 4)",
    )
    p.add_argument(
        "--max-answers",
        type=int,
        default=10,
        metavar="A",
        help="reject items with more answers (default: 10)",
    )
    p.add_argument(
        "--bias",
        choices=("inverse_degree", "uniform"),
        default="inverse_degree",
        help="seed-graph draws: exp(1/d) as the paper, or uniform as the code",
    )
    p.add_argument(
        "--schema",
        default=None,
        metavar="S.wd2neo4j.json",
        help="a CypherBench conversion schema: items also carry cypher_query, the "
        "same question on kgbench's conversion of the dump (one MATCH per triple)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument(
        "--split",
        action="store_true",
        help="deduplicate and split into train/test (spec §3.4-§3.5, default parameters; "
        "kgbench.generate.synth.split): items.jsonl then holds the kept items with "
        "test_type set, report.json a 'split' section",
    )
    p.set_defaults(func=_synth)


def generate_synth(
    rdf: list[str],
    out: str | os.PathLike[str],
    settings: Any,
    *,
    log: Any = None,
    split: bool = False,
) -> dict[str, Any]:
    """Generate template items from the dumps into ``out`` (files: module docstring of the
    CLI); returns the report. Raises :class:`kgbench.errors.InputError` for an unreadable
    dump or one with no truthy triple between labelled items. ``split``: deduplicate and
    assign train/test (:mod:`kgbench.generate.synth.split`, seed ``settings.seed``), the
    report's ``split`` section holding the split report and ``dedup_dropped`` ids."""
    from kgbench.generate.synth.kg import WikidataKG, load_store
    from kgbench.generate.synth.template import generate_template_items

    say = log or (lambda _m: None)
    t0 = time.perf_counter()
    store = load_store(rdf)
    keep = None if settings.cypher is None else list(settings.cypher.rel_types)
    kg = WikidataKG.from_store(store, keep=keep)
    say(
        f"graph: {len(kg.qids):,} items, {len(kg.triples):,} truthy triples, "
        f"{len(kg.relations)} relations ({time.perf_counter() - t0:.1f} s)"
    )
    items, extra = generate_template_items(kg, settings, source=",".join(Path(p).name for p in rdf))
    report = extra["report"]
    report["graph"] = {
        "items": len(kg.qids),
        "triples": len(kg.triples),
        "relations": len(kg.relations),
    }
    if split:
        from kgbench.generate.synth.split import assign_splits, dedup

        items, duplicates = dedup(items)
        items, split_report = assign_splits(items, seed=settings.seed)
        split_report["dedup_dropped"] = duplicates
        report["split"] = split_report
    report["total_s"] = round(time.perf_counter() - t0, 3)
    from kgbench.fileio import write_json_atomic, write_jsonl_atomic

    d = Path(out)
    write_jsonl_atomic(d / "items.jsonl", items)
    write_json_atomic(d / "filter_log.json", extra["filter_log"])
    write_json_atomic(d / "report.json", report)
    return report


def _synth(args: argparse.Namespace) -> int:
    from kgbench.generate.cli import progress_log
    from kgbench.generate.synth.template import SynthSettings

    if args.n < 1 or args.max_edges < 1:
        raise ValueError("--n and --max-edges must be at least 1")
    settings = SynthSettings(
        n=args.n,
        seed=args.seed,
        max_edges=args.max_edges,
        max_answers=args.max_answers,
        bias=args.bias,
    )
    rep = generate_synth(args.rdf, args.out, settings, log=progress_log(args), split=args.split)
    rej = ", ".join(f"{k} {v}" for k, v in rep["rejections"].items() if v) or "none"
    print(
        f"{rep['items']} items from {rep['attempts']} seed graphs "
        f"(acceptance {rep['acceptance']:.1%}); rejected: {rej}"
    )
    print(
        "types: "
        + ", ".join(f"{k} {v}" for k, v in sorted(rep["types"].items(), key=lambda kv: -kv[1]))
    )
    print(f"redundant (non-minimal): {rep['redundant']}; timings: {rep['timing_s']}")
    if "split" in rep:
        c = rep["split"]["counts"]
        print(
            f"split: train {c['train']}, test {c['test']} {c['test_categories']}, dropped "
            f"{c['dropped']} (+{len(rep['split']['dedup_dropped'])} duplicates); "
            f"{len(rep['split']['cells_under_min_cell'])} cells under min_cell"
        )
    print(
        f"wrote {args.out}/items.jsonl, filter_log.json, report.json in {rep['total_s']:.1f} s",
        file=sys.stderr,
    )
    return 0
