"""``kgbench generate synth``: SynthKGQA items with ground-truth answer subgraphs from a
Wikidata RDF dump (SPARQL on an embedded store) or from a property graph in Neo4j (Cypher),
by the offline template generator or an LLM (spec ``synthkgqa.md``;
:mod:`kgbench.generate.synth.template`, :mod:`kgbench.generate.synth.llm_gen`)."""

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
        help="SynthKGQA: KGQA items with ground-truth answer subgraphs (RDF or Neo4j)",
        description="Read a knowledge graph -- a Wikidata RDF dump loaded into an embedded "
        "SPARQL store (--rdf), or a property graph in Neo4j (--uri, read access only) -- "
        "sample seed graphs (Rust), and propose items: offline, by embedding isomorphism "
        "types and wording template questions (default), or by an LLM (--llm-base-url, "
        "--llm-model; cached and replayable). Every item passes the same validation (the "
        "answer found, at most --max-answers answers, a tree of an allowed type, the full "
        "answer subgraph, minimality over seed subsets). Writes DIR/items.jsonl (GTSQA's "
        "record format: SPARQL items carry all_answers_wikidata, Neo4j items "
        "all_answers_neo4j and cypher_query), DIR/filter_log.json (rejections per reason) "
        "and DIR/report.json. Deterministic for a seed.",
    )
    p.add_argument(
        "--rdf",
        nargs="+",
        default=None,
        metavar="DUMP",
        help="Wikidata RDF dump(s): N-Triples or Turtle, plain, .gz or .bz2 (else the "
        "Neo4j graph at --uri)",
    )
    from kgbench.generate.cli_options import llm_args
    from kgbench.neo4j.cli import connection_args

    connection_args(p)
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
        "--types",
        nargs="+",
        default=None,
        metavar="TYPE",
        help="isomorphism types to draw, e.g. '(1)' '(2)(1)' (default: GTSQA's train types, "
        "weighted by their frequencies; any of the original's 29 allowed types, see kgbench "
        "iso)",
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
    llm_args(p, "the LLM generator")
    p.add_argument(
        "--no-llm",
        action="store_true",
        help="the offline template generator (the default when no --llm-base-url is given)",
    )
    p.add_argument(
        "--exclude",
        nargs="*",
        default=None,
        metavar="REL",
        help="relations left out of sampling (default for --rdf: P21 P31 P530 P735, as the "
        "original code; for Neo4j: none)",
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
    rdf: list[str] | None,
    out: str | os.PathLike[str],
    settings: Any,
    *,
    reader: Any = None,
    log: Any = None,
    split: bool = False,
    client: Any = None,
    excluded: list[str] | None = None,
) -> dict[str, Any]:
    """Generate items into ``out`` (files: the command's description) and return the report.

    The graph is the RDF dumps ``rdf`` (SPARQL on an embedded pyoxigraph store) or, when
    ``rdf`` is None, the Neo4j graph behind ``reader`` (a
    :class:`~kgbench.neo4j.GraphReader`; Cypher). ``client``: a
    :class:`kgbench.llm.LLMClient` for the LLM generator (None: the template generator).
    ``excluded``: relations left out (None: the original's P21, P31, P530, P735 for RDF,
    none for Neo4j). ``split``: deduplicate and assign train/test
    (:mod:`kgbench.generate.synth.split`, seed ``settings.seed``), the report's ``split``
    section holding the split report and ``dedup_dropped`` ids.

    Raises:
        kgbench.errors.InputError: an unreadable dump, or a graph with nothing to sample.
        kgbench.errors.KgbenchError: the Neo4j server is unreachable.
        kgbench.llm.LLMError: the LLM endpoint fails.
    """
    from kgbench.errors import InputError
    from kgbench.generate.synth.template import generate_template_items

    say = log or (lambda _m: None)
    t0 = time.perf_counter()
    kg: Any
    if rdf is not None:
        from kgbench.generate.synth.kg import EXCLUDED_RELATIONS, WikidataKG
        from kgbench.query.sparql import load_store

        store = load_store(rdf)
        keep = None if settings.cypher is None else list(settings.cypher.rel_types)
        ex = EXCLUDED_RELATIONS if excluded is None else tuple(excluded)
        kg = WikidataKG.from_store(store, excluded=ex, keep=keep)
        source = ",".join(Path(p).name for p in rdf)
        what = f"{len(kg.qids):,} items, {len(kg.triples):,} truthy triples"
    else:
        from kgbench.generate.synth.neo4j_kg import PropertyGraphKG

        kg = PropertyGraphKG.from_reader(reader, excluded=excluded or ())
        source = "neo4j"
        what = f"{len(kg.eids):,} entities, {len(kg.triples):,} relationships"
    say(f"graph: {what}, {len(kg.relations)} relations ({time.perf_counter() - t0:.1f} s)")
    if client is None:
        items, extra = generate_template_items(kg, settings, source=source)
    else:
        from kgbench.generate.synth.llm_gen import generate_llm_items

        items, extra = generate_llm_items(kg, settings, client, source=source)
    report = extra["report"]
    report["graph"] = {
        "backend": kg.kg_name,
        "nodes": len(kg.node_ids),
        "triples": len(kg.triples),
        "relations": len(kg.relations),
        **({"skipped": kg.skipped} if hasattr(kg, "skipped") else {}),
    }
    report["complete"] = report["items"] >= settings.n
    if not items:
        raise InputError(f"no item could be generated: {shortfall_message(report, settings.n)}")
    if not report["complete"]:
        say(f"warning: {shortfall_message(report, settings.n)}")
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


def requested_types(identifiers: list[str]) -> dict[str, int]:
    """The draw weights of ``--types``: GTSQA's train frequency of each type, 100 for the
    others (:data:`kgbench.generate.synth.template.TYPE_WEIGHTS`); identifiers are put in
    kgbench's canonical spelling first.

    Raises:
        ValueError: an identifier that does not parse, or a type outside the original's
            allow-list of 29 (spec §3.3 step 6).
    """
    from kgbench.generate.synth.template import ALLOWED_TYPES, TYPE_WEIGHTS
    from kgbench.iso import canonical_isomorphism_type

    out = {}
    for ident in identifiers:
        try:
            t = canonical_isomorphism_type(ident)
        except ValueError as exc:
            raise ValueError(f"--types: {ident!r} is not an isomorphism type ({exc})") from exc
        if t not in ALLOWED_TYPES:
            raise ValueError(
                f"--types: {ident!r} is not one of the 29 allowed answer-subgraph types "
                "(spec synthkgqa.md §3.3 step 6)"
            )
        out[t] = TYPE_WEIGHTS.get(t, 100)
    return out


def shortfall_message(report: dict[str, Any], n: int) -> str:
    """Why a run gave fewer than ``n`` items: the graph's size, the rejections and the
    drawn types no seed graph could hold."""
    g = report.get("graph", {})
    rej = ", ".join(f"{k} {v}" for k, v in report["rejections"].items() if v) or "none"
    never = [t for t, c in report.get("embeddings", {}).items() if c["drawn"] and not c["embedded"]]
    text = (
        f"{report['items']} of {n} items after {report['attempts']:,} seed graphs (the budget "
        f"is 50 per item wanted); the graph has {g.get('nodes', 0):,} nodes, "
        f"{g.get('triples', 0):,} triples and {g.get('relations', 0)} relations; "
        f"rejections: {rej}; duplicates {report.get('duplicates', 0)}"
    )
    if never:
        text += f"; no seed graph held the type(s) {', '.join(never)}"
    return text


def format_types(types: dict[str, int]) -> str:
    """The isomorphism-type distribution as ``type (Iso-N name) count share`` lines, most
    frequent first."""
    from kgbench.iso import grailqa_name

    total = sum(types.values()) or 1
    lines = []
    for t, n in sorted(types.items(), key=lambda kv: (-kv[1], kv[0])):
        name = grailqa_name(t)
        label = f"{t} ({name})" if name else t
        lines.append(f"{label:<24}{n:>6}  {n / total:6.1%}")
    return "\n".join(lines)


def _synth(args: argparse.Namespace) -> int:
    import json

    from kgbench.errors import InputError
    from kgbench.generate.cli_options import llm_client, progress_log
    from kgbench.generate.synth.template import CypherMapping, SynthSettings

    if args.n < 1 or args.max_edges < 1:
        raise ValueError("--n and --max-edges must be at least 1")
    if args.rdf and args.uri:
        raise ValueError("give either --rdf DUMP... or --uri URI, not both")
    if args.no_llm and args.llm_base_url:
        raise ValueError("--no-llm and --llm-base-url contradict each other")
    if args.schema and not args.rdf:
        raise ValueError("--schema maps an RDF dump's relations; it needs --rdf")
    cypher = None
    if args.schema:
        from kgbench.generate.patterns import read_json_file

        cypher = CypherMapping.of_schema(read_json_file(args.schema, "schema", InputError))
    settings = SynthSettings(
        n=args.n,
        seed=args.seed,
        max_edges=args.max_edges,
        max_answers=args.max_answers,
        bias=args.bias,
        cypher=cypher,
    )
    if args.types:
        settings.types = requested_types(args.types)
    client = llm_client(args, args.out)
    reader = None
    if not args.rdf:
        from kgbench.neo4j.cli import resolve_uri
        from kgbench.neo4j.executor import GraphReader

        reader = GraphReader.connect(resolve_uri(args), args.user, args.password, args.database)
    try:
        rep = generate_synth(
            args.rdf,
            args.out,
            settings,
            reader=reader,
            log=progress_log(args),
            split=args.split,
            client=client,
            excluded=args.exclude,
        )
    finally:
        if reader is not None:
            reader.close()
        if client is not None:
            client.close()
    rej = ", ".join(f"{k} {v}" for k, v in rep["rejections"].items() if v) or "none"
    print(
        f"{rep['items']} items from {rep['attempts']} seed graphs "
        f"(acceptance {rep['acceptance']:.1%}); rejected: {rej}; duplicates "
        f"{rep.get('duplicates', 0)}"
    )
    print("isomorphism types:")
    print(format_types(rep["types"]))
    print(f"redundant (non-minimal): {rep['redundant']}; timings: {json.dumps(rep['timing_s'])}")
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
