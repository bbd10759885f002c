"""``kgbench score``: execution accuracy of predicted results against gold results, both
given as JSONL result files (the native half of :func:`kgbench.query.compare.score_files`)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from kgbench._core import evaluate as _core
from kgbench.progress import Activity

_EPILOG = """\
Each line of GOLD and PRED is one executed query result:
  {"qid": "q1", "columns": ["name"], "rows": [["Ann"], ["Bob"]], "error": null}
Rows are arrays (or objects: column name -> value). Gold lines may add "order_matters"
(bool) or "gold_cypher" (order matters iff it contains "order by"); prediction lines may
add "pred_cypher" (identical to gold_cypher: scored 1). Missing predictions and
predictions with an "error" score 0 and are counted. Duplicate qids are an error.
An empty GOLD or PRED file (no line, or blank lines only) is an error: nothing to score,
exit code 1, nothing written.
File format: kgbench/docs/formats.md §7 (the docs ship inside the kgbench package).
"""


def register(subparsers: Any) -> None:
    """Add ``kgbench score`` to the kgbench parser."""
    p = subparsers.add_parser(
        "score",
        help="execution accuracy (EX) of predicted vs gold result files (JSONL)",
        description="Compare executed query results line by line (matched by qid) with "
        "CypherBench's execution accuracy, made exact and deterministic (rules: "
        "kgbench/docs/metrics.md §1; differences: kgbench/docs/differences.md). "
        "Parsing and comparison run in Rust, in parallel.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--gold", required=True, metavar="GOLD.jsonl", help="gold results")
    p.add_argument("--pred", required=True, metavar="PRED.jsonl", help="predicted results")
    p.add_argument(
        "--out",
        metavar="SCORES.jsonl",
        help='write {"qid", "ex", "status"} per gold line, in gold order',
    )
    p.add_argument(
        "--metrics",
        default="ex",
        metavar="M[,M]",
        help="ex (CypherBench's execution accuracy, default) and/or ex_set (PIPE-Cypher's "
        "row-key set accuracy: sets of rows, keyed by column name when there are several "
        'columns; kgbench/docs/metrics.md §2); with ex_set, --out lines also carry "ex_set"',
    )
    p.add_argument(
        "--rel-tol",
        type=float,
        metavar="R",
        help="treat numbers a, b as equal when |a-b| <= R*max(|a|,|b|) (default: exact, "
        "as CypherBench)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Score the files and print the summary on stdout."""
    from kgbench.errors import InputError

    metrics = [m.strip().lower() for m in str(args.metrics).split(",") if m.strip()]
    unknown = [m for m in metrics if m not in ("ex", "ex_set")]
    if unknown or not metrics:
        raise InputError(f"--metrics: unknown {unknown or metrics!r}; choose ex and/or ex_set")
    for option, path, why in (
        ("--gold", args.gold, ""),
        ("--pred", args.pred, " (every gold record would score 0 as missing)"),
    ):
        if not _has_lines(os.fspath(path)):
            raise InputError(f"{option} {path}: no result lines: nothing to score{why}")
    t0 = time.perf_counter()
    # the native calls directly: the per-pair scores are only written to --out, so the
    # command needs no numpy (faster start-up)
    files = (os.fspath(args.gold), os.fspath(args.pred))
    out = None if args.out is None else os.fspath(args.out)
    # a spinner on a terminal while the native call runs (it releases the GIL)
    with Activity(
        f"score: comparing {_size(files[1])} of predictions with {_size(files[0])} of gold results"
    ):
        summary = _score(metrics, files, out, args.rel_tol)
    if dict(summary)["n_gold"] == 0:  # e.g. a file the native reader skips entirely
        raise InputError(f"--gold {args.gold}: no result lines: nothing to score")
    if "ex_set" in metrics:
        s = dict(summary)
        lines = [f"EX_set            {s['ex_set']:.4f}  (of {s['n_gold']})"]
        if "ex" in metrics:
            lines.append(f"EX                {s['ex']:.4f}")
        lines.append(f"gold records      {s['n_gold']}")
        lines += [f"  {k:<16}{v}" for k, v in s["statuses"].items()]
    else:
        s = dict(summary)
        lines = [
            f"EX                {s['ex']:.4f}  ({s['n_match'] + s['n_identical_query']}"
            f" / {s['n_gold']})",
            f"gold records      {s['n_gold']}",
            f"predictions       {s['n_pred']}",
            f"  match           {s['n_match']}",
            f"  mismatch        {s['n_mismatch']}",
            f"  identical query {s['n_identical_query']}",
            f"  missing         {s['n_missing']}  (scored 0)",
            f"  pred error      {s['n_pred_error']}  (scored 0)",
            f"  gold error      {s['n_gold_error']}  (scored 0)",
            *(
                [
                    f"  undecided       {s['n_undecided']}  (scored 0: the column-bijection "
                    "search stopped at its bound; metrics.md §1)"
                ]
                if s.get("n_undecided")
                else []
            ),
            f"extra predictions {s['n_extra_pred']}  (qid not in gold; not scored)",
            f"EX informative    {s['ex_informative']:.4f}  (of {s['n_informative']} gold "
            "results that are informative; metrics.md §1)",
            *(f"  uninformative: {reason:<17} {n}" for reason, n in s["n_uninformative"].items()),
        ]
    seconds = time.perf_counter() - t0
    rate = s["n_gold"] / seconds if seconds > 0 else float("inf")
    lines.append(f"time              {seconds:.3f} s  ({rate:,.0f} pairs/s)")
    if args.out:
        lines.append(f"scores            {args.out}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _score(
    metrics: list[str], files: tuple[str, str], out: str | None, rel_tol: float | None
) -> Any:
    """The native scoring of the two files; returns its summary mapping."""
    if "ex_set" in metrics:
        summary, _ = _core.score_files_ex_set(*files, out, rel_tol)
    else:
        summary, _ = _core.score_files(*files, out, rel_tol)
    return summary


def _has_lines(path: str) -> bool:
    """False when ``path`` holds nothing but whitespace; True when it holds something or cannot
    be read (the native reader then reports the problem)."""
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 16):
                if chunk.strip():
                    return True
    except OSError:
        return True
    return False


def _size(path: str) -> str:
    """The size of ``path`` for the progress line (``"12.3 MB"``; ``"?"`` when unknown)."""
    try:
        n = float(os.path.getsize(path))
    except OSError:
        return "?"
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return "?"  # pragma: no cover
