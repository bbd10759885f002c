"""``kgbench iso``: GTSQA isomorphism types of the answer subgraphs in a JSONL file."""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, TextIO

from kgbench.errors import InputError
from kgbench.iso import (
    InvalidIsomorphismType,
    analyze_answer_subgraph,
    canonical_isomorphism_type,
    grailqa_name,
    isomorphism_types,
    parse_isomorphism_type,
)

#: GTSQA field names (seed Appendix A.3).
FIELDS = ("answer_subgraph", "answer_node", "seed_entities")
OUTPUT_FIELD = "graph_isomorphism"


def register(subparsers: Any) -> None:
    """Add the ``iso`` subcommand."""
    parser = subparsers.add_parser(
        "iso",
        help="isomorphism types of GTSQA answer subgraphs (frequency table)",
        description=(
            "Read GTSQA records (JSON Lines; .gz accepted) with answer_subgraph (list of "
            "[head, relation, tail]), answer_node and seed_entities; print the frequency "
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


def _open_text(path: Path) -> TextIO:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def read_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` for every non-blank line of a JSONL file.

    Raises:
        InputError: unreadable JSON, a line that is not an object, or a missing
            field; the message names the file and line.
    """
    try:
        handle = _open_text(path)
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


def _locate_error(path: Path, lines: list[int], records: list[dict[str, Any]]) -> InputError:
    """Find the record that makes the batch call raise, for a file:line message."""
    for number, record in zip(lines, records, strict=True):
        try:
            analyze_answer_subgraph(
                record["answer_subgraph"], record["answer_node"], record["seed_entities"]
            )
        except (TypeError, ValueError) as exc:
            return InputError(f"{path}:{number}: {exc}")
    return InputError(f"{path}: malformed records")


def _write_atomically(path: Path, records: list[dict[str, Any]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    opener: Any = gzip.open if path.suffix == ".gz" else open
    try:
        handle: IO[str]
        with opener(tmp, "wt", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False))
                handle.write("\n")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from exc


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench iso``."""
    path: Path = args.file
    lines: list[int] = []
    records: list[dict[str, Any]] = []
    for number, record in read_records(path):
        lines.append(number)
        records.append(record)
    try:
        types = isomorphism_types(records)
    except (TypeError, ValueError) as exc:
        raise _locate_error(path, lines, records) from exc

    counts: Counter[str] = Counter()
    invalid: Counter[str] = Counter()
    for number, record, identifier in zip(lines, records, types, strict=True):
        if identifier is not None:
            counts[identifier] += 1
            continue
        analysis = analyze_answer_subgraph(
            record["answer_subgraph"], record["answer_node"], record["seed_entities"]
        )
        reason = ", ".join(analysis.defects)
        if args.strict:
            raise InputError(f"{path}:{number}: invalid answer subgraph: {reason}")
        invalid[reason] += 1

    print_table(sys.stdout, counts, invalid, len(records))
    print_agreement(sys.stdout, records, types)
    if args.out is not None:
        for record, identifier in zip(records, types, strict=True):
            record[OUTPUT_FIELD] = identifier
        _write_atomically(args.out, records)
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
    width = max([len("isomorphism type"), *(len(label) for label in labels)])
    print(
        f"{'isomorphism type':<{width}}  {'GrailQA++':<9}  {'hops':>4}  {'edges':>5}  "
        f"{'seeds':>5}  {'count':>8}  {'%':>6}",
        file=out,
    )
    for identifier, hops, n_edges, n_seeds, count in rows:
        name = grailqa_name(identifier) or "-"
        print(
            f"{identifier:<{width}}  {name:<9}  {hops:>4}  {n_edges:>5}  {n_seeds:>5}  "
            f"{count:>8}  {_pct(count, total):>6}",
            file=out,
        )
    for reason, count in bad:
        label = f"invalid: {reason}"
        print(
            f"{label:<{width}}  {'-':<9}  {'-':>4}  {'-':>5}  {'-':>5}  "
            f"{count:>8}  {_pct(count, total):>6}",
            file=out,
        )
    n_valid = sum(counts.values())
    print(
        f"total: {total} records, {n_valid} valid answer trees of {len(counts)} types, "
        f"{total - n_valid} invalid",
        file=out,
    )


def print_agreement(out: TextIO, records: list[dict[str, Any]], types: list[str | None]) -> None:
    """Compare with a ``graph_isomorphism`` value already present in the records."""
    same = reordered = different = 0
    for record, identifier in zip(records, types, strict=True):
        given = record.get(OUTPUT_FIELD)
        if given is None and OUTPUT_FIELD not in record:
            continue
        if given == identifier:
            same += 1
            continue
        try:
            canonical = canonical_isomorphism_type(given) if isinstance(given, str) else None
        except InvalidIsomorphismType:
            canonical = None
        if canonical is not None and canonical == identifier:
            reordered += 1
        else:
            different += 1
    if same + reordered + different:
        print(
            f"existing {OUTPUT_FIELD}: {same} identical, {reordered} the same type written "
            f"in another order, {different} different",
            file=out,
        )


def _pct(count: int, total: int) -> str:
    return f"{100.0 * count / total:.2f}" if total else "0.00"
