"""``kgbench sql2sparql``: translate Spider SQL to SPARQL (or Cypher) over kgbench's views of
the same database (:mod:`kgbench.rdb.sql2sparql`, :mod:`kgbench.rdb.sql2cypher`; spec
``spider4sparql.md`` §4).

- ``kgbench sql2sparql --tables tables.json --db-id ID [--db DB.sqlite] [--cypher] SQL``
  (or ``--file FILE``) prints the translation; an untranslatable query prints
  ``unsupported: <reason>`` and exits 1.
- ``--questions dev.json [--out FILE]`` translates every gold SQL of ``--db-id`` (all
  databases without it) and writes JSONL ``{qid, db_id, question, sql, sparql, cypher,
  status, reason, cypher_status, cypher_reason, hardness}`` (``qid`` = index in the file,
  ``status``/``reason`` of the SPARQL translation, hardness from Spider's ``sql`` tree when
  present); a summary per database goes to stderr.

The database defaults to ``<dir of tables.json>/database/<db_id>/<db_id>.sqlite``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kgbench.errors import InputError


def register(subparsers: Any) -> None:
    """Add the ``sql2sparql`` command."""
    p = subparsers.add_parser(
        "sql2sparql",
        help="translate Spider SQL to SPARQL (or Cypher) over the database's RDF view",
        description="Translate SQLite queries of a Spider database to SPARQL 1.1 over its "
        "Direct Mapping (Spider4SPARQL naming) or, with --cypher, to Cypher over its "
        "property-graph view (deliberate differences: kgbench/docs/differences.md, SPARQL). "
        "Prints the query, or "
        "'unsupported: reason' with exit code 1.",
    )
    p.add_argument("sql", nargs="?", help="the SQL query (or --file / --questions)")
    p.add_argument("--tables", type=Path, required=True, help="Spider tables.json")
    p.add_argument("--db-id", help="the database id (required unless --questions)")
    p.add_argument("--db", type=Path, help="the SQLite file (default: beside tables.json)")
    p.add_argument("--file", type=Path, help="read the SQL from FILE")
    p.add_argument("--cypher", action="store_true", help="translate to Cypher")
    p.add_argument(
        "--questions", type=Path, help="Spider pairs JSON (dev.json): translate every gold SQL"
    )
    p.add_argument("--out", type=Path, help="JSONL output of --questions (default stdout)")
    p.add_argument("--naming", choices=("s4s", "w3c"), default="s4s", help="IRI naming")
    p.add_argument(
        "--optional-nulls",
        action="store_true",
        help="every column in OPTIONAL (SQL's NULL semantics) instead of required triples",
    )
    p.add_argument(
        "--fk-paths",
        action="store_true",
        help="join tables the SQL leaves unconnected along the shortest foreign-key path (S4S)",
    )
    p.set_defaults(func=run)


def _db_path(args: argparse.Namespace, db_id: str) -> Path:
    if args.db is not None:
        return Path(args.db)
    return args.tables.parent / "database" / db_id / f"{db_id}.sqlite"


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench sql2sparql``."""
    from kgbench.rdb.naming import Naming
    from kgbench.rdb.schema import load_schema
    from kgbench.rdb.sql2cypher import translate_sql_to_cypher
    from kgbench.rdb.sql2sparql import translate_sql_to_sparql

    naming = Naming(style=args.naming)
    if args.questions is not None:
        return _run_questions(args, naming)
    if args.db_id is None:
        raise InputError("--db-id is required (unless --questions)")
    if args.file is not None:
        sql = args.file.read_text(encoding="utf-8")
    elif args.sql is not None:
        sql = args.sql
    else:
        raise InputError("give the SQL query, --file FILE or --questions FILE")
    schema = load_schema(_db_path(args, args.db_id), args.tables, args.db_id)
    if args.cypher:
        t = translate_sql_to_cypher(sql, schema, fk_paths=args.fk_paths)
    else:
        t = translate_sql_to_sparql(
            sql, schema, naming, optional_nulls=args.optional_nulls, fk_paths=args.fk_paths
        )
    if t.status != "ok" or t.query is None:
        print(f"unsupported: {t.reason}")
        return 1
    print(t.query)
    for note in t.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


def _run_questions(args: argparse.Namespace, naming: Any) -> int:
    from kgbench.rdb.hardness import HardnessError, hardness
    from kgbench.rdb.schema import load_schema
    from kgbench.rdb.sql2cypher import translate_sql_to_cypher
    from kgbench.rdb.sql2sparql import translate_sql_to_sparql

    try:
        pairs = json.loads(args.questions.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise InputError(f"{args.questions}: cannot read Spider pairs: {e}") from e
    if not isinstance(pairs, list):
        raise InputError(f"{args.questions}: not a JSON list of Spider pairs")
    schemas: dict[str, Any] = {}
    counts: dict[str, list[int]] = {}
    out = args.out.open("w", encoding="utf-8") if args.out is not None else sys.stdout
    try:
        for qid, pair in enumerate(pairs):
            db_id = pair.get("db_id")
            if args.db_id is not None and db_id != args.db_id:
                continue
            if db_id not in schemas:
                schemas[db_id] = load_schema(_db_path(args, db_id), args.tables, db_id)
            schema = schemas[db_id]
            sql = pair.get("query", "")
            sp = translate_sql_to_sparql(
                sql, schema, naming, optional_nulls=args.optional_nulls, fk_paths=args.fk_paths
            )
            cy = translate_sql_to_cypher(sql, schema, fk_paths=args.fk_paths)
            try:
                hard: str | None = hardness(sql, pair.get("sql"))
            except (HardnessError, KeyError, IndexError, TypeError):
                hard = None
            rec = {
                "qid": qid,
                "db_id": db_id,
                "question": pair.get("question"),
                "sql": sql,
                "sparql": sp.query,
                "cypher": cy.query,
                "status": sp.status,
                "reason": sp.reason,
                "cypher_status": cy.status,
                "cypher_reason": cy.reason,
                "hardness": hard,
            }
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            c = counts.setdefault(db_id, [0, 0, 0, 0])
            c[0 if sp.status == "ok" else 1] += 1
            c[2 if cy.status == "ok" else 3] += 1
    finally:
        if out is not sys.stdout:
            out.close()
    for db_id, (ok, un, cok, cun) in sorted(counts.items()):
        print(
            f"{db_id}: sparql {ok} ok, {un} unsupported; cypher {cok} ok, {cun} unsupported",
            file=sys.stderr,
        )
    return 0
