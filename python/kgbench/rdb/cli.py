"""``kgbench rdb DB.sqlite --out DIR``: a relational database as RDF (W3C Direct Mapping with
Spider4SPARQL's naming) and as a property graph (:func:`kgbench.rdb.convert.convert_rdb`;
spec ``spider4sparql.md`` §3)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``rdb`` command."""
    p = subparsers.add_parser(
        "rdb",
        help="a SQLite database as RDF (N-Triples + ontology) and as a property graph",
        description="Convert one SQLite database (Spider layout) into DIR/<db_id>.nt (W3C "
        "Direct Mapping, Spider4SPARQL naming), DIR/<db_id>.ontology.ttl, "
        "DIR/<db_id>.ontology.json (prompt format), DIR/graph.json (a property graph of the "
        "same rows, loadable with 'kgbench load') and DIR/report.json (counts, type "
        "mismatches, repairs; written last). Files: kgbench/docs/formats.md §12.",
    )
    p.add_argument("db", type=Path, metavar="DB.sqlite", help="the SQLite database file")
    p.add_argument(
        "--tables",
        type=Path,
        default=None,
        metavar="tables.json",
        help="Spider's tables.json; the db_id entry is checked against the database "
        "(default: the schema of the database alone)",
    )
    p.add_argument(
        "--db-id", default=None, metavar="ID", help="the database id (default: the file stem)"
    )
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="output directory")
    p.add_argument(
        "--naming",
        choices=("s4s", "w3c"),
        default="s4s",
        help="IRIs: s4s = Spider4SPARQL's (base http://valuenet/ontop/, lower-cased names; "
        "default) or w3c (names as declared)",
    )
    p.add_argument("--base", default=None, metavar="IRI", help="base IRI (default per naming)")
    p.add_argument(
        "--pk-less",
        choices=("bag", "s4s"),
        default="bag",
        help="tables without a primary key: bag = one IRI per row, t/_row=<rowid> (default); "
        "s4s = blank nodes labelled by all values, duplicate rows merge",
    )
    p.add_argument(
        "--trim",
        action="store_true",
        help="repair: strip spaces/tabs/CR/LF around text values (and in foreign-key joins)",
    )
    p.add_argument(
        "--promote-numeric-text",
        action="store_true",
        help="repair: text columns whose values are all plain numerals become "
        "xsd:integer / xsd:decimal",
    )
    p.add_argument("--json", action="store_true", help="print the whole report as JSON")
    p.set_defaults(func=run)


def format_summary(report: dict[str, Any]) -> str:
    """The lines ``kgbench rdb`` prints: ``key<TAB>value`` counts, then one line per type
    mismatch column and repair."""
    keys = (
        "db_id",
        "tables",
        "rows",
        "triples",
        "type_triples",
        "data_triples",
        "fk_triples",
        "nulls_skipped",
        "nodes",
        "relationships",
        "merged_rows",
        "type_mismatches",
        "seconds",
    )
    lines = [f"{k}\t{report[k]}" for k in keys]
    lines.append(f"trimmed_cells\t{report['repairs']['trimmed_cells']}")
    for m in report["mismatches"]:
        lines.append(
            f"mismatch\t{m['table']}.{m['column']}\t{m['declared_type']}\t{m['count']}\t"
            + ", ".join(m["examples"])
        )
    for p in report["repairs"]["promoted"]:
        lines.append(f"promoted\t{p['table']}.{p['column']}\t{p['to']}\t{p['cells']}")
    for n in report["schema_notes"]:
        lines.append(f"note\t{n}")
    lines.append(f"out\t{Path(report['files']['report']).parent}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench rdb``."""
    from kgbench.rdb.convert import convert_rdb

    db_id = args.db_id if args.db_id is not None else args.db.stem
    report = convert_rdb(
        args.db,
        args.tables,
        db_id,
        args.out,
        naming=args.naming,
        base=args.base,
        pk_less=args.pk_less,
        trim=args.trim,
        promote_numeric_text=args.promote_numeric_text,
    )
    if args.json:
        json.dump(report, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_summary(report))
    return 0
