"""``kgbench validate-translation``: each Spider question's gold SQL on SQLite against its
SPARQL translation on the database's RDF and its Cypher translation on the property graph
(spec ``spider4sparql.md`` §4 "Validation").

Per question and per target language the verdict is one of:

- ``equal``: the result tables are equal under kgbench's EX (bag of rows, any column
  bijection, row order only when the SQL has ``ORDER BY``, Spider's own test), after both
  sides are typed alike (numbers as numbers, floats at 10 significant digits, dates as ISO
  text);
- ``differs``: both ran and the tables differ;
- ``sql_error``: the gold SQL fails on SQLite (a gold error: listed, never fixed);
- ``sparql_error`` / ``cypher_error``: the translation fails to run;
- ``timeout``: a side ran over the timeout;
- ``unsupported``: the translator declined the SQL (its reason is kept).

Results: one record per question (``qid``, ``db_id``, ``question``, ``sql``, ``sparql``,
``cypher``, the verdicts and, for ``differs``, the first rows of each side) and counts per
database.
"""

from __future__ import annotations

import datetime as _dt
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.query.sparql import round_significant

#: Verdicts, in report order.
VERDICTS = (
    "equal",
    "differs",
    "sql_error",
    "sparql_error",
    "cypher_error",
    "timeout",
    "unsupported",
)


def normalise_value(value: Any) -> Any:
    """A result cell typed for comparison across SQLite, SPARQL and Neo4j (module
    docstring): floats at 10 significant digits, integral floats kept as floats (EX
    compares numbers by value), bytes as UTF-8 text, dates and times as ISO text."""
    if isinstance(value, float):
        return round_significant(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if hasattr(value, "iso_format"):  # neo4j.time values
        return value.iso_format()
    return value


def run_sql(db: str | Path, sql: str, timeout_s: float) -> tuple[str | None, list[list[Any]]]:
    """Run ``sql`` on the read-only database ``db``: (error class or None, typed rows).
    Error classes: ``sql_error``, ``timeout`` (SQLite interrupted at ``timeout_s``)."""
    from kgbench.rdb.schema import connect_readonly

    conn = connect_readonly(db)
    deadline = time.monotonic() + timeout_s
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    try:
        rows = [[normalise_value(v) for v in r] for r in conn.execute(sql).fetchall()]
        return None, rows
    except sqlite3.OperationalError as exc:
        return ("timeout" if "interrupted" in str(exc) else "sql_error"), []
    except sqlite3.Error:
        return "sql_error", []
    finally:
        conn.close()


def _compare(gold: Sequence[Sequence[Any]], pred: Sequence[Sequence[Any]], ordered: bool) -> str:
    from kgbench.query.compare import execution_accuracy

    g = [[normalise_value(v) for v in r] for r in gold]
    p = [[normalise_value(v) for v in r] for r in pred]
    if g and p and len(g[0]) != len(p[0]):
        return "differs"
    try:
        return "equal" if execution_accuracy(g, p, ordered) == 1.0 else "differs"
    except (TypeError, ValueError):
        return "differs"


@dataclass
class ValidationReport:
    """Per-question records and the verdict counts per database and language."""

    records: list[dict[str, Any]]
    counts: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)

    def table(self) -> str:
        """Counts per database as a printable table (one block per language)."""
        lines = []
        for lang in ("sparql", "cypher"):
            per_db = {db: c[lang] for db, c in self.counts.items() if lang in c}
            if not per_db:
                continue
            shown = [v for v in VERDICTS if any(c.get(v) for c in per_db.values())]
            lines.append(f"SQL vs {lang.upper()}")
            lines.append(f"  {'db_id':<26}" + "".join(f"{v:>14}" for v in shown) + f"{'agree':>8}")
            total: Counter[str] = Counter()
            for db, c in per_db.items():
                total.update(c)
                n = sum(c.values())
                share = c.get("equal", 0) / n if n else 0.0
                lines.append(
                    f"  {db:<26}" + "".join(f"{c.get(v, 0):>14}" for v in shown) + f"{share:>8.1%}"
                )
            n = sum(total.values())
            share = total.get("equal", 0) / n if n else 0.0
            lines.append(
                f"  {'all':<26}"
                + "".join(f"{total.get(v, 0):>14}" for v in shown)
                + f"{share:>8.1%}"
            )
        return "\n".join(lines)


def validate_translations(
    questions: Sequence[Mapping[str, Any]],
    databases: Mapping[str, tuple[Any, Path, list[Path]]],
    *,
    cypher_reader: Any = None,
    timeout_s: float = 30.0,
    progress: Callable[[int, int], None] | None = None,
) -> ValidationReport:
    """Validate the translations of ``questions`` (Spider records ``{db_id, question,
    query}``).

    ``databases`` maps a db_id to (its :class:`~kgbench.rdb.schema.DatabaseSchema`, its
    SQLite file, its RDF files). ``cypher_reader``: a
    :class:`~kgbench.neo4j.GraphReader` on a server holding the database's
    property graph, or a callable ``db_id -> reader`` (None: no Cypher validation).
    Questions of other databases are skipped.
    """
    from kgbench.query.sparql import SparqlExecutor
    from kgbench.rdb.sql2cypher import translate_sql_to_cypher
    from kgbench.rdb.sql2sparql import translate_sql_to_sparql

    records: list[dict[str, Any]] = []
    counts: dict[str, dict[str, dict[str, int]]] = {}
    todo = [(i, q) for i, q in enumerate(questions) if q.get("db_id") in databases]
    done = 0
    by_db: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    for i, q in todo:
        by_db.setdefault(str(q["db_id"]), []).append((i, q))
    for db_id, group in by_db.items():
        schema, db_path, rdf = databases[db_id]
        per = counts.setdefault(db_id, {"sparql": {}, "cypher": {}})
        reader = cypher_reader(db_id) if callable(cypher_reader) else cypher_reader
        with SparqlExecutor(rdf, timeout_s=timeout_s) as ex:
            for i, q in group:
                done += 1
                sql = str(q.get("query", ""))
                ordered = "order by" in sql.lower()
                rec: dict[str, Any] = {
                    "qid": str(q.get("qid", i)),
                    "db_id": db_id,
                    "question": q.get("question"),
                    "sql": sql,
                }
                sql_err, sql_rows = run_sql(db_path, sql, timeout_s)
                sp = translate_sql_to_sparql(sql, schema)
                rec["sparql"] = sp.query
                if sp.status != "ok" or sp.query is None:
                    verdict, rec["sparql_reason"] = "unsupported", sp.reason
                elif sql_err is not None:
                    verdict = sql_err
                else:
                    res = ex.run(sp.query)
                    if res.error == "timeout":
                        verdict = "timeout"
                    elif not res.ok:
                        verdict, rec["sparql_message"] = "sparql_error", res.message
                    else:
                        verdict = _compare(sql_rows, res.rows, ordered)
                        if verdict == "differs":
                            rec["sql_rows"] = sql_rows[:5]
                            rec["sparql_rows"] = res.rows[:5]
                rec["sparql_verdict"] = verdict
                per["sparql"][verdict] = per["sparql"].get(verdict, 0) + 1
                if reader is not None:
                    cy = translate_sql_to_cypher(sql, schema)
                    rec["cypher"] = cy.query
                    rec["cypher_verdict"] = _cypher_verdict(
                        reader, cy, sql_err, sql_rows, ordered, rec, timeout_s
                    )
                    v = rec["cypher_verdict"]
                    per["cypher"][v] = per["cypher"].get(v, 0) + 1
                records.append(rec)
                if progress is not None:
                    progress(done, len(todo))
        if not per["cypher"]:
            del per["cypher"]
    return ValidationReport(records, counts)


def _cypher_verdict(
    reader: Any,
    cy: Any,
    sql_err: str | None,
    sql_rows: list[list[Any]],
    ordered: bool,
    rec: dict[str, Any],
    timeout_s: float,
) -> str:
    from kgbench.neo4j.executor import QueryFailed

    if cy.status != "ok" or cy.query is None:
        rec["cypher_reason"] = cy.reason
        return "unsupported"
    if sql_err is not None:
        return sql_err
    try:
        rows = [
            [normalise_value(v) for v in r.values()] for r in reader.run(cy.query, None, timeout_s)
        ]
    except QueryFailed as exc:
        rec["cypher_message"] = str(exc)
        return "timeout" if getattr(exc, "error_class", "") == "timeout" else "cypher_error"
    verdict = _compare(sql_rows, rows, ordered)
    if verdict == "differs":
        rec["sql_rows"] = sql_rows[:5]
        rec["cypher_rows"] = rows[:5]
    return verdict
