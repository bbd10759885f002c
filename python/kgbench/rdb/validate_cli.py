"""``kgbench validate-translation``: convert Spider databases to RDF (and property graphs),
translate every gold SQL of their questions, and compare SQL on SQLite with SPARQL on the
RDF (and Cypher on Neo4j with ``--cypher``), per database (:mod:`kgbench.rdb.validate`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Add ``kgbench validate-translation`` to the kgbench parser."""
    p = sub.add_parser(
        "validate-translation",
        help="SQL on SQLite vs its SPARQL (and Cypher) translation on the converted graph",
        description="For each database: convert it (kgbench rdb, into OUT/rdf/<db_id>/), "
        "translate the gold SQL of each of its questions into SPARQL (and Cypher), run "
        "both sides and mark each pair equal, differs, sql_error, sparql_error, "
        "cypher_error, timeout or unsupported. Gold errors are listed, never fixed. Writes "
        "OUT/validation.jsonl (one record per question) and OUT/validation_summary.json "
        "(counts per database) and prints the counts.",
    )
    p.add_argument("--tables", required=True, type=Path, help="Spider's tables.json")
    p.add_argument(
        "--questions", required=True, type=Path, help="Spider questions (dev.json: db_id, query)"
    )
    p.add_argument(
        "--db-dir",
        required=True,
        type=Path,
        help="directory of <db_id>/<db_id>.sqlite (Spider's database/ layout)",
    )
    p.add_argument(
        "--db-id", nargs="+", default=None, help="databases to validate (default: all present)"
    )
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.add_argument(
        "--cypher",
        action="store_true",
        help="also validate the Cypher translations on a local Neo4j server that kgbench "
        "starts under OUT/neo4j (each database's graph is loaded there, never elsewhere)",
    )
    p.add_argument(
        "--timeout", type=float, default=30.0, help="per-query timeout in seconds (default: 30)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from contextlib import ExitStack

    from kgbench.errors import InputError
    from kgbench.fileio import write_json_atomic, write_jsonl_atomic
    from kgbench.rdb.convert import convert_rdb
    from kgbench.rdb.schema import load_schema
    from kgbench.rdb.validate import validate_translations
    from kgbench.tasks import read_records

    def say(msg: str) -> None:
        if not args.quiet:
            print(f"  {msg}", file=sys.stderr)

    questions = [r for _w, r in read_records(args.questions)]
    wanted = args.db_id or sorted({str(q.get("db_id")) for q in questions})
    databases: dict[str, tuple[Any, Path, list[Path]]] = {}
    for db_id in wanted:
        db = args.db_dir / db_id / f"{db_id}.sqlite"
        if not db.is_file():
            if args.db_id:
                raise InputError(f"no database {db} for --db-id {db_id}")
            say(f"{db_id}: no database in {args.db_dir}, skipped")
            continue
        schema = load_schema(db, args.tables, db_id)
        out = args.out / "rdf" / db_id
        convert_rdb(db, args.tables, db_id, out)
        databases[db_id] = (schema, db, [out / f"{db_id}.nt"])
        say(f"{db_id}: converted into {out}")
    if not databases:
        raise InputError(f"none of the questions' databases is in {args.db_dir}")
    with ExitStack() as stack:
        reader_of = None
        if args.cypher:
            reader_of = _local_graphs(stack, args.out, say)
        report = validate_translations(
            questions,
            databases,
            cypher_reader=reader_of,
            timeout_s=args.timeout,
        )
    write_jsonl_atomic(args.out / "validation.jsonl", report.records)
    write_json_atomic(args.out / "validation_summary.json", report.counts)
    print(report.table())
    print(
        f"wrote {args.out / 'validation.jsonl'} and {args.out / 'validation_summary.json'}",
        file=sys.stderr,
    )
    return 0


def _local_graphs(stack: Any, out: Path, say: Any) -> Any:
    """A ``db_id -> GraphReader`` that loads the database's graph.json into a local Neo4j
    started under ``out/neo4j`` (wiping the previous one)."""
    from kgbench.neo4j import LocalNeo4j, load_graph
    from kgbench.neo4j.executor import GraphReader

    say("starting a local Neo4j server for the Cypher side")
    server = stack.enter_context(LocalNeo4j(data_dir=out / "neo4j"))
    reader = GraphReader.connect(str(server.uri))
    stack.callback(reader.close)

    def reader_of(db_id: str) -> Any:
        graph = out / "rdf" / db_id / "graph.json"
        load = load_graph(json.loads(graph.read_text(encoding="utf-8")), str(server.uri), wipe=True)
        say(f"{db_id}: {load.nodes} nodes, {load.relationships} relationships loaded")
        return reader

    return reader_of
