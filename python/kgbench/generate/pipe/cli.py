"""CLI of PIPE-Cypher's governed construction (spec ``pipe-cypher.md``):

- ``kgbench generate pipe --out DIR [--target N] [--seed 13] [--llm-base-url URL --llm-model M]``
  — the whole pipeline (:mod:`kgbench.generate.pipe.pipeline`);
- ``kgbench gate --tasks FILE --out DIR (--uri URI | --schema schema.json --static)`` — the
  gates G1-G9 and G11 on any task file (CypherBench ``tasks.json``, a PIPE-Cypher export,
  JSONL of ``{question, cypher}``), writing the ledger and printing rejections per gate.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kgbench.neo4j.cli import connection_args, resolve_uri


def _dialect_arg(p: Any) -> None:
    p.add_argument(
        "--dialect",
        choices=("5", "25"),
        default=None,
        help="Cypher dialect the front end parses in (G1/G2): 5 or 25 (default: the dialect "
        "of the server at --uri when one is connected, else 5)",
    )


def _dialect(args: argparse.Namespace, reader: Any) -> str:
    """``--dialect``, else the dialect of the server behind ``reader``, else ``"5"``."""
    if args.dialect is not None:
        return str(args.dialect)
    if reader is None:
        return "5"
    from kgbench.neo4j.executor import cypher_dialect

    return cypher_dialect(reader.driver, reader.database)


def register_pipe(sub: Any) -> None:
    """Add ``generate pipe`` to the ``generate`` sub-parsers."""
    from kgbench.generate.cli_options import llm_args

    p = sub.add_parser(
        "pipe",
        help="PIPE-Cypher: governed text-to-Cypher benchmark (gates, ledger, diversity "
        "selection, splits)",
        description="Profile the graph, derive question templates (schema-derived, seed and "
        "CypherBench patterns), ground them with read-only reverse queries, gate every "
        "candidate (G1-G11), log it in DIR/records.jsonl, select a diverse TARGET per "
        "category and export DIR/{all,train,dev,test}.jsonl, DIR/tasks.json (CypherBench "
        "format) and DIR/manifest.sha256 (kgbench/docs/formats.md §11). Offline and deterministic "
        "unless --llm-base-url is given.",
    )
    connection_args(p)
    _dialect_arg(p)
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument(
        "--graph",
        default="graph",
        metavar="NAME",
        help="graph name written into every record (default: graph)",
    )
    p.add_argument(
        "--target",
        type=int,
        default=25,
        metavar="N",
        help="benchmark questions per category (default: 25)",
    )
    p.add_argument("--seed", type=int, default=13, help="random seed (default: 13)")
    p.add_argument(
        "--oversample",
        type=float,
        default=2.0,
        metavar="F",
        help="generate up to ceil(F*N) accepted candidates per category before "
        "the diversity selection (default: 2.0)",
    )
    p.add_argument(
        "--binding-limit",
        type=int,
        default=50,
        metavar="K",
        help="LIMIT of the reverse grounding queries (default: 50; the paper: 300)",
    )
    p.add_argument(
        "--seed-templates",
        default=None,
        metavar="FILE",
        help="JSON list of {template, category, slots, cypher?} seed templates",
    )
    p.add_argument(
        "--no-cypherbench",
        action="store_true",
        help="do not add CypherBench's MATCH/RETURN patterns as a template source",
    )
    p.add_argument(
        "--cypherbench-traits",
        default=None,
        metavar="FILE",
        help="relation traits for the CypherBench patterns (default: drafted from the graph)",
    )
    p.add_argument(
        "--split-mode",
        choices=("iid", "signature_disjoint"),
        default="iid",
        help="iid per (graph, category) cell, or signature-disjoint blocks (default: iid)",
    )
    p.add_argument(
        "--redact",
        action="store_true",
        help="replace string literals by __VALUE_nnn__ placeholders (audited)",
    )
    p.add_argument(
        "--salt", default=None, help="with --redact: salted stable placeholders instead of numbers"
    )
    p.add_argument(
        "--weight",
        action="append",
        default=[],
        metavar="NAME=W",
        help="override a selection weight (e.g. query_signature=0.3); repeatable",
    )
    p.add_argument(
        "--no-llm",
        action="store_true",
        help="offline (the default when no --llm-base-url is given)",
    )
    llm_args(p, "writing Cypher, repairs and the judge")
    p.add_argument(
        "--repair-attempts",
        type=int,
        default=1,
        metavar="R",
        help="LLM repairs of a query that fails a gate (default: 1)",
    )
    p.add_argument(
        "--strict-judge",
        action="store_true",
        help="apply the judge's score thresholds too (spec §7; default: pass flag)",
    )
    _allow_uninformative_arg(p)
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=_pipe)


def _allow_uninformative_arg(p: Any) -> None:
    p.add_argument(
        "--allow-uninformative",
        action="store_true",
        help="keep queries whose result is uninformative: all null, a single 0 / false / "
        "empty list (default: rejected at G9 with the reason, as empty results are; "
        "kgbench/docs/metrics.md §1)",
    )


def register(subparsers: Any) -> None:
    """Add ``kgbench gate`` to the kgbench parser."""
    g = subparsers.add_parser(
        "gate",
        help="run PIPE-Cypher's gates (G1-G9, G11) on a task file and write the ledger",
        description="Gate every record of a task file (CypherBench tasks.json or result file, "
        "a PIPE-Cypher export, or JSON Lines of {question, cypher}): read-only (G1), syntax "
        "(G2), schema/direction/literals (G3-G5), context columns (G6, warning), DISTINCT "
        "rewrite (G7), execution (G8), non-empty with a diagnosis and informative (G9) and "
        "diversity (G11). "
        "Writes DIR/records.jsonl (one ledger line per record) and DIR/gate_report.json and "
        "prints the rejections per gate. Write queries are never sent to the server.",
    )
    connection_args(g)
    _dialect_arg(g)
    g.add_argument("--tasks", required=True, metavar="FILE", help="task file")
    g.add_argument("--out", required=True, metavar="DIR", help="output directory")
    g.add_argument(
        "--schema",
        default=None,
        metavar="schema.json",
        help="graph profile to gate against (default: profile the graph at --uri)",
    )
    g.add_argument(
        "--static",
        action="store_true",
        help="static gates only (G1-G6, G11): nothing is executed; needs --schema "
        "or a reachable --uri for the profile",
    )
    _allow_uninformative_arg(g)
    g.add_argument(
        "--graph", default=None, metavar="NAME", help="gate only the records of this graph"
    )
    g.add_argument(
        "--target",
        type=int,
        default=None,
        metavar="N",
        help="per-category target for G11's value cap max(2, floor(0.15 N)) "
        "(default: the largest category's size)",
    )
    g.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="G8 execution limit per query in seconds (default: 60)",
    )
    g.add_argument("--quiet", action="store_true", help="no progress output")
    g.set_defaults(func=_gate)


def _weights(items: list[str]) -> dict[str, float]:
    """``--weight NAME=W`` options as a dict; raises ValueError for a malformed item and
    InputError for an unknown weight name (checked by the selection itself)."""
    from kgbench._core.select import select_diverse

    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            if not sep:
                raise ValueError
            out[name.strip()] = float(value)
        except ValueError:
            raise ValueError(f"--weight {item!r}: expected NAME=NUMBER") from None
    if out:
        select_diverse([], 1, "13", out)  # no candidates: only validates the names
    return out


def format_funnel(funnel: Mapping[str, int]) -> str:
    """The gate funnel as lines: candidates, then rejections per gate, then accepted."""
    from kgbench.generate.pipe.gates import REJECTION_BUCKETS

    n = funnel["candidates"]
    lines = [f"candidates        {n:>7}"]
    for b in REJECTION_BUCKETS:
        lines.append(f"  rejected {b:<10}{funnel.get(b, 0):>5}")
    share = funnel["accepted"] / n if n else 0.0
    lines.append(f"accepted          {funnel['accepted']:>7}  ({share:.1%})")
    return "\n".join(lines)


def _pipe(args: argparse.Namespace) -> int:
    from kgbench.generate.cli_options import llm_client, progress_log
    from kgbench.generate.pipe.pipeline import generate_pipe
    from kgbench.neo4j.executor import GraphReader

    # bad --weight options fail before connecting (not after the whole run)
    weights = _weights(args.weight) or None
    llm = None if args.no_llm else llm_client(args, args.out)
    reader = GraphReader.connect(resolve_uri(args), args.user, args.password, args.database)
    try:
        res = generate_pipe(
            reader,
            args.out,
            graph=args.graph,
            target=args.target,
            seed=args.seed,
            oversample=args.oversample,
            binding_limit=args.binding_limit,
            seed_templates=args.seed_templates,
            cypherbench=not args.no_cypherbench,
            cypherbench_traits=args.cypherbench_traits,
            llm=llm,
            repair_attempts=args.repair_attempts,
            llm_judge_strict=args.strict_judge,
            allow_uninformative=args.allow_uninformative,
            redact=args.redact,
            salt=args.salt,
            split_mode=args.split_mode,
            weights=weights,
            dialect=_dialect(args, reader),
            log=progress_log(args),
        )
    finally:
        reader.close()
        if llm is not None:
            llm.close()
    rep = res.report
    print(format_funnel(rep["funnel"]))
    sel = rep["selected_by_category"]
    print(
        f"selected          {sum(sel.values()):>7}  "
        + ", ".join(f"{k} {v}" for k, v in sorted(sel.items()))
    )
    ex = rep["export"]
    if ex:
        print(
            "splits            "
            + ", ".join(f"{k} {v}" for k, v in ex["by_split"].items())
            + f"  manifest {ex['manifest_sha256'][:16]}…"
        )
    for w in rep["planner"]["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    print(
        f"wrote {args.out}/ (records.jsonl, all/train/dev/test.jsonl, tasks.json, "
        f"manifest.sha256, schema.json, report.json) in {rep['total_s']:.1f} s"
    )
    return 0


def task_candidates(path: str | os.PathLike[str], graph: str | None = None) -> list[dict[str, Any]]:
    """Candidates ``{qid, question, cypher, graph_profile, category?, entity_values,
    template?}`` from a task file: CypherBench records (``nl_question``, ``gold_cypher``,
    ``graph``), PIPE-Cypher rows (``question``, ``cypher``, ``graph_profile``) or
    ``{question, cypher}`` lines. Raises :class:`kgbench.errors.InputError` naming the record
    when neither form is present."""
    from kgbench.errors import InputError
    from kgbench.tasks import read_records

    out = []
    for where, rec in read_records(Path(path)):
        question = rec.get("nl_question", rec.get("question"))
        cypher = rec.get("gold_cypher", rec.get("cypher"))
        if not isinstance(question, str) or not isinstance(cypher, str):
            raise InputError(f"{where}: needs nl_question/gold_cypher or question/cypher strings")
        g = str(rec.get("graph", rec.get("graph_profile")) or "graph")
        if graph is not None and g != graph:
            continue
        out.append(
            {
                "qid": rec.get("qid", rec.get("id")),
                "question": question,
                "cypher": cypher,
                "graph_profile": g,
                "category": rec.get("category") if isinstance(rec.get("category"), str) else None,
                "entity_values": [str(v) for v in rec.get("entity_values") or []],
                "template": rec.get("template"),
            }
        )
    return out


def _gate(args: argparse.Namespace) -> int:
    from kgbench.errors import InputError
    from kgbench.fileio import write_json_atomic, write_jsonl_atomic
    from kgbench.generate.pipe.gates import GateSettings, gate_candidates, rejection_counts
    from kgbench.generate.pipe.pipeline import LEDGER
    from kgbench.generate.pipe.profile import load_profile, profile_graph
    from kgbench.neo4j.executor import GraphReader

    t0 = time.perf_counter()
    cands = task_candidates(args.tasks, args.graph)
    if not cands:
        raise InputError(
            f"{args.tasks}: no records" + (f" of graph {args.graph!r}" if args.graph else "")
        )
    graphs = Counter(c["graph_profile"] for c in cands)
    if len(graphs) > 1:
        print(
            f"warning: {len(graphs)} graphs in {args.tasks} gated against one schema; "
            "use --graph NAME to gate one",
            file=sys.stderr,
        )
    reader = None
    if not args.static or args.schema is None:
        reader = GraphReader.connect(resolve_uri(args), args.user, args.password, args.database)
    try:
        if args.schema is not None:
            profile = load_profile(args.schema)
        else:
            assert reader is not None
            profile = profile_graph(reader, graph_name=next(iter(graphs)))
        from kgbench.generate.pipe.features import query_features

        if args.target is None:
            cats = Counter(
                c["category"] or a["category"]
                for c, a in zip(cands, query_features([c["cypher"] for c in cands]), strict=True)
            )
            target = max(cats.values())
        else:
            target = args.target
        settings = GateSettings(
            target=target,
            timeout_s=args.timeout,
            execute=not args.static,
            judge_gate=False,
            allow_uninformative=args.allow_uninformative,
            dialect=_dialect(args, reader),
        )
        ledger = gate_candidates(
            cands, reader=None if args.static else reader, profile=profile, settings=settings
        )
    finally:
        if reader is not None:
            reader.close()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl_atomic(out / LEDGER, ledger, sort_keys=True)
    funnel = rejection_counts(ledger)
    issues = Counter(i["code"] for r in ledger for i in r["validation"]["issues"])
    diagnoses = Counter(
        (r.get("execution") or {}).get("diagnosis")
        for r in ledger
        if r.get("rejected_at") == "empty"
    )
    seconds = time.perf_counter() - t0
    report = {
        "tasks": str(args.tasks),
        "static": args.static,
        "target": target,
        "funnel": funnel,
        "issues": dict(sorted(issues.items())),
        "empty_diagnoses": {str(k): v for k, v in diagnoses.items()},
        "seconds": round(seconds, 3),
    }
    write_json_atomic(out / "gate_report.json", report)
    print(format_funnel(funnel))
    if diagnoses:
        print("empty diagnoses   " + ", ".join(f"{k} {v}" for k, v in diagnoses.items()))
    print(
        f"wrote {out / LEDGER} and {out / 'gate_report.json'} "
        f"({len(ledger) / seconds:,.0f} records/s)"
    )
    return 0
