"""``kgbench iso``: GTSQA isomorphism types of the answer subgraphs in a JSONL file."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from kgbench.errors import InputError
from kgbench.fileio import open_decompressed, write_jsonl_atomic
from kgbench.iso import (
    analyze_answer_subgraph,
    classify_gtsqa_jsonl,
    grailqa_name,
    parse_isomorphism_type,
)

#: GTSQA field names (seed Appendix A.3).
FIELDS = ("answer_subgraph", "answer_node", "seed_entities")
OUTPUT_FIELD = "graph_isomorphism"
#: Widest label column of the frequency table: longer identifiers (large trees) are cut with
#: an ellipsis instead of padding every line to their length.
MAX_LABEL = 60


def register(subparsers: Any) -> None:
    """Add the ``iso`` subcommand."""
    parser = subparsers.add_parser(
        "iso",
        help="isomorphism types of GTSQA answer subgraphs (frequency table)",
        description=(
            "Read GTSQA records (JSON Lines, plain or gzip) with answer_subgraph (list of "
            "[head, relation, tail]), answer_node and seed_entities, parsed and classified in "
            "parallel in Rust; print the frequency "
            "table of their isomorphism types (seed Appendix A.2, Table 5). Records whose "
            "answer subgraph is not a valid answer tree are counted by defect. With --out, "
            "write the records with graph_isomorphism filled (null when invalid)."
        ),
    )
    parser.add_argument("file", type=Path, metavar="FILE.jsonl", help="GTSQA records, one per line")
    parser.add_argument(
        "--out", type=Path, metavar="OUT.jsonl", help="write the records with graph_isomorphism"
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="fail on the first record whose answer subgraph is not a valid answer tree",
    )
    parser.set_defaults(func=run)


def read_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` for every non-blank line of a JSONL file.

    Raises:
        InputError: unreadable JSON, a line that is not an object, or a missing
            field; the message names the file and line.
    """
    try:
        handle = open_decompressed(path, text=True)
    except OSError as exc:
        raise InputError(f"{path}: cannot open: {exc.strerror or exc}") from exc
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(
                        f"{path}:{number}: invalid JSON: {exc.msg} (column {exc.colno})"
                    ) from exc
                if not isinstance(record, dict):
                    raise InputError(
                        f"{path}:{number}: expected a JSON object, got {type(record).__name__}"
                    )
                for field in FIELDS:
                    if field not in record:
                        raise InputError(f"{path}:{number}: missing field {field!r}")
                if not isinstance(record["answer_subgraph"], list):
                    raise InputError(f"{path}:{number}: field 'answer_subgraph' must be a list")
                if not isinstance(record["seed_entities"], list):
                    raise InputError(f"{path}:{number}: field 'seed_entities' must be a list")
                yield number, record
        except (UnicodeDecodeError, OSError, EOFError) as exc:
            raise InputError(f"{path}: cannot read: {exc}") from exc


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench iso``: the file is parsed and classified in Rust
    (:func:`kgbench.iso.classify_gtsqa_jsonl`); only ``--out`` reads the records
    into Python, to write them back."""
    from kgbench.progress import Activity

    path: Path = args.file
    # a spinner on a terminal while the native call runs (it releases the GIL)
    with Activity(f"iso: classifying the answer subgraphs of {path}"):
        result = classify_gtsqa_jsonl(path)
    if args.strict and result.invalid:
        first = result.invalid[0]
        raise InputError(
            f"{path}:{first.line}: invalid answer subgraph: {', '.join(first.defects)}"
        )
    invalid = Counter(", ".join(record.defects) for record in result.invalid)
    print_table(sys.stdout, Counter(result.counts), invalid, len(result.types))
    print_agreement(sys.stdout, result.given)
    if args.out is not None:
        with Activity(f"iso: writing {args.out}"):
            records = [record for _, record in read_records(path)]
            if len(records) != len(result.types):
                raise InputError(
                    f"{path}: read {len(records)} records but classified {len(result.types)}"
                )
            for record, identifier in zip(records, result.types, strict=True):
                record[OUTPUT_FIELD] = identifier
            write_jsonl_atomic(args.out, records)
        print(f"wrote {len(records)} records with {OUTPUT_FIELD} to {args.out}")
    return 0


def print_table(out: TextIO, counts: Counter[str], invalid: Counter[str], total: int) -> None:
    """Frequency table: identifier, GrailQA++ name, hops, edges, seeds, count, share."""
    rows = []
    for identifier, count in counts.items():
        edges, answer, seeds = parse_isomorphism_type(identifier)
        shape = analyze_answer_subgraph(edges, answer, seeds)
        rows.append((identifier, shape.n_hops, shape.n_edges, shape.n_seeds, count))
    rows.sort(key=lambda r: (-r[4], r[2], r[1] or 0, r[0]))
    bad = sorted(invalid.items(), key=lambda kv: (-kv[1], kv[0]))
    labels = [r[0] for r in rows] + [f"invalid: {reason}" for reason, _ in bad]
    width = min(MAX_LABEL, max([len("isomorphism type"), *(len(label) for label in labels)]))
    print(
        f"{'isomorphism type':<{width}}  {'GrailQA++':<9}  {'hops':>4}  {'edges':>5}  "
        f"{'seeds':>5}  {'count':>8}  {'%':>6}",
        file=out,
    )
    for identifier, hops, n_edges, n_seeds, count in rows:
        name = grailqa_name(identifier) or "-"
        print(
            f"{_cut(identifier):<{width}}  {name:<9}  {hops:>4}  {n_edges:>5}  {n_seeds:>5}  "
            f"{count:>8}  {_pct(count, total):>6}",
            file=out,
        )
    for reason, count in bad:
        label = f"invalid: {reason}"
        print(
            f"{_cut(label):<{width}}  {'-':<9}  {'-':>4}  {'-':>5}  {'-':>5}  "
            f"{count:>8}  {_pct(count, total):>6}",
            file=out,
        )
    n_valid = sum(counts.values())
    print(
        f"total: {total} records, {n_valid} valid answer trees of {len(counts)} types, "
        f"{total - n_valid} invalid",
        file=out,
    )


def print_agreement(out: TextIO, given: tuple[int, int, int]) -> None:
    """Compare with a ``graph_isomorphism`` value already present in the records:
    ``given`` is ``(identical, reordered, different)`` (see
    :attr:`kgbench.iso.GtsqaFileTypes.given`); nothing is printed when no record has one."""
    same, reordered, different = given
    if same + reordered + different:
        print(
            f"existing {OUTPUT_FIELD}: {same} identical, {reordered} the same type written "
            f"in another order, {different} different",
            file=out,
        )


def _cut(label: str) -> str:
    """``label`` cut to :data:`MAX_LABEL` characters, the last one an ellipsis when cut (the
    full identifiers are in ``--out``)."""
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…"


def _pct(count: int, total: int) -> str:
    return f"{100.0 * count / total:.2f}" if total else "0.00"
