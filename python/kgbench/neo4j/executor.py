"""Run many read-only Cypher queries concurrently and collect plain-Python results.

Used by evaluation (execution accuracy, PSJS, Exec — SPEC.md §4: 120 s timeout, 8 threads) and
task generation. Every query runs in an auto-commit transaction in READ access mode with a
server-side transaction timeout. Write queries never change the database: they are refused
before sending when the Cypher parser (``kgbench._core.cypher.write_clauses``) finds a write
clause, and the server refuses writes in READ mode anyway (error class ``write`` either way).

Error classes (``QueryResult.error_class``):

- ``syntax`` — the query does not parse: ``Neo.ClientError.Statement.SyntaxError`` whose
  message is a parser message (``Invalid input ...``, ``Unexpected end of input ...``, ...);
- ``semantic/type`` — the query parses but cannot be run or fails on a value. Neo4j 5 reports
  many of these with the ``SyntaxError`` code too (``Variable `m` not defined``, ``Type
  mismatch ...``, ``Invalid value for MonthOfYear ...``); they are told apart by the message.
  Also ``Statement.SemanticError`` / ``TypeError`` / ``ArgumentError`` / ``ArithmeticError`` /
  ``EntityNotFound`` / ``ParameterMissing`` / ``PropertyNotFound``;
- ``timeout`` — the transaction exceeded ``timeout_s`` (``Transaction.TransactionTimedOut*``);
- ``write`` — a write query, refused before sending or by the server (``AccessMode``); the
  parser gate counts ``CALL`` of any procedure outside its read-only list as a write, so an
  unknown procedure is refused as ``write`` too;
- ``client`` — any other ``Neo.ClientError.*`` (e.g. a procedure call that fails), or a
  query text that cannot be encoded (lone surrogates), refused before sending;
- ``database`` — ``Neo.DatabaseError.*`` / ``Neo.TransientError.*``;
- ``connection`` — the server could not be reached or the connection broke.

Values are normalised to plain Python (:func:`to_plain`), so results can be hashed, compared and
cached as JSON lines keyed by (graph, query text).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The error classes a failed query can have.
ERROR_CLASSES = ("syntax", "semantic/type", "timeout", "client", "database", "connection", "write")

_SEMANTIC_CODES = (
    "Neo.ClientError.Statement.SemanticError",
    "Neo.ClientError.Statement.TypeError",
    "Neo.ClientError.Statement.ArgumentError",
    "Neo.ClientError.Statement.ArithmeticError",
    "Neo.ClientError.Statement.EntityNotFound",
    "Neo.ClientError.Statement.ParameterMissing",
    "Neo.ClientError.Statement.PropertyNotFound",
)


@dataclass(frozen=True)
class QueryResult:
    """One query's outcome.

    ``columns`` are the result's keys in order; ``rows`` the records as lists of plain values
    (:func:`to_plain`); on failure both are empty, ``error_class`` is one of
    :data:`ERROR_CLASSES` and ``error`` the server's or kgbench's message. ``elapsed_s`` is the
    wall time in seconds including result transfer (0 for refusals and cache hits keep the
    original time).
    """

    query: str
    columns: list[str]
    rows: list[list[Any]]
    error_class: str | None = None
    error: str | None = None
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the query ran without error."""
        return self.error_class is None

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable dict of all fields."""
        return {
            "query": self.query,
            "columns": self.columns,
            "rows": self.rows,
            "error_class": self.error_class,
            "error": self.error,
            "elapsed_s": self.elapsed_s,
        }


def to_plain(value: Any) -> Any:
    """Normalise a driver value to plain Python, recursively.

    ``neo4j.time.Date`` → ISO string ``"YYYY-MM-DD"`` (other temporal values → their ISO string,
    durations → ISO 8601 duration string); Node → ``{"element_id", "labels" (sorted),
    "properties"}``; Relationship → ``{"element_id", "type", "start", "end", "properties"}``
    (``start``/``end`` are element ids); Path → ``{"nodes": [...], "relationships": [...]}``;
    lists/tuples → lists; maps → dicts; spatial points → ``{"srid", "coordinates"}``; bytes →
    hex string. ``None``, bool, int, float and str are kept.
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    from neo4j.graph import Node, Path, Relationship
    from neo4j.spatial import Point

    if isinstance(value, Node):
        return {
            "element_id": value.element_id,
            "labels": sorted(value.labels),
            "properties": {k: to_plain(v) for k, v in value.items()},
        }
    if isinstance(value, Relationship):
        start, end = value.start_node, value.end_node
        return {
            "element_id": value.element_id,
            "type": value.type,
            "start": start.element_id if start is not None else None,
            "end": end.element_id if end is not None else None,
            "properties": {k: to_plain(v) for k, v in value.items()},
        }
    if isinstance(value, Path):
        return {
            "nodes": [to_plain(n) for n in value.nodes],
            "relationships": [to_plain(r) for r in value.relationships],
        }
    if isinstance(value, Point):
        return {"srid": value.srid, "coordinates": [float(c) for c in value]}
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    iso = getattr(value, "iso_format", None)
    if callable(iso):
        return str(iso())
    return str(value)


#: Beginnings of Neo4j parser messages (``SyntaxError`` code, query does not parse).
_PARSER_MESSAGES = (
    "Invalid input '",
    "Unexpected end of input",
    "Mismatched input",
    "Extraneous input",
    "Missing ",
    "Query cannot conclude with",
    "Invalid Cypher",
)


def classify(exc: BaseException) -> str:
    """The error class (one of :data:`ERROR_CLASSES`) of an exception from the driver."""
    from neo4j.exceptions import (
        ClientError,
        DatabaseError,
        DriverError,
        ServiceUnavailable,
        SessionExpired,
        TransientError,
    )

    if isinstance(exc, (ServiceUnavailable, SessionExpired, OSError)):
        return "connection"
    code = str(getattr(exc, "code", "") or "")
    if isinstance(exc, ClientError) or code.startswith("Neo.ClientError."):
        if "TransactionTimedOut" in code:
            return "timeout"
        if code == "Neo.ClientError.Statement.SyntaxError":
            message = str(getattr(exc, "message", None) or exc).lstrip()
            return "syntax" if message.startswith(_PARSER_MESSAGES) else "semantic/type"
        if code in _SEMANTIC_CODES:
            return "semantic/type"
        if code in ("Neo.ClientError.Statement.AccessMode", "Neo.ClientError.Security.Forbidden"):
            return "write"
        return "client"
    if isinstance(exc, TransientError) or code.startswith("Neo.TransientError."):
        if "Terminated" in code or "TransactionTimedOut" in code:
            return "timeout"
        return "database"
    if isinstance(exc, DatabaseError) or code.startswith("Neo.DatabaseError."):
        return "database"
    if isinstance(exc, DriverError):
        return "connection"
    return "client"


def write_clauses_of(query: str) -> list[str]:
    """Write clauses in ``query`` per kgbench's Cypher parser (empty = read-only).

    Delegates to ``kgbench._core.cypher.write_clauses``. If this build lacks it, returns an
    empty list and the server's READ access mode remains the guard.
    """
    try:
        from kgbench._core.cypher import write_clauses
    except ImportError:
        return []
    return list(write_clauses(query))


def read_session(driver: Any, database: str | None) -> Any:
    """A session of ``driver`` in READ access mode with server notifications off (the only
    kind of session kgbench runs user-facing queries in)."""
    import neo4j

    return driver.session(
        database=database,
        default_access_mode=neo4j.READ_ACCESS,
        notifications_min_severity="OFF",
    )


def _cache_key(graph: str, query: str) -> str:
    return json.dumps([graph, query], ensure_ascii=False)


class QueryExecutor:
    """Run read-only Cypher queries concurrently against one database.

    ``driver`` is a ``neo4j.Driver``; ``database`` the database name (None: the server's
    default); ``timeout_s`` the per-transaction timeout in seconds (SPEC.md §4: 120; None: the
    server's own limit);
    ``workers`` the number of concurrent sessions (SPEC.md §4: 8). With ``cache_path`` a JSONL
    file caches results keyed by (``graph``, query text): existing lines are read at start and new
    results appended (connection failures are never cached). ``graph`` defaults to
    ``database`` or ``""``.
    """

    def __init__(
        self,
        driver: Any,
        database: str | None = None,
        timeout_s: float | None = 120.0,
        workers: int = 8,
        cache_path: str | os.PathLike[str] | None = None,
        *,
        graph: str | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if timeout_s is not None and timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0 or None, got {timeout_s}")
        self.driver = driver
        self.database = database
        self.timeout_s = float(timeout_s) if timeout_s is not None else None
        self.workers = workers
        self.graph = graph if graph is not None else (database or "")
        self.cache_path = Path(cache_path) if cache_path is not None else None
        self._cache: dict[str, QueryResult] = {}
        self._lock = threading.Lock()
        if self.cache_path is not None and self.cache_path.exists():
            self._read_cache(self.cache_path)

    def _read_cache(self, path: Path) -> None:
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    d = json.loads(line)
                    res = QueryResult(
                        query=d["query"],
                        columns=list(d["columns"]),
                        rows=list(d["rows"]),
                        error_class=d.get("error_class"),
                        error=d.get("error"),
                        elapsed_s=float(d.get("elapsed_s", 0.0)),
                    )
                    key = _cache_key(str(d["graph"]), res.query)
                except (ValueError, KeyError, TypeError) as exc:
                    from kgbench.errors import InputError

                    raise InputError(f"{path}:{lineno}: not a query-cache line ({exc})") from exc
                self._cache[key] = res

    def _store(self, res: QueryResult) -> None:
        if self.cache_path is None or res.error_class == "connection":
            return
        line = json.dumps({"graph": self.graph, **res.to_json()}, ensure_ascii=False)
        with self._lock:
            self._cache[_cache_key(self.graph, res.query)] = res
            with open(self.cache_path, "a", encoding="utf-8") as f:
                f.write(line + "\n")

    def run(self, query: str) -> QueryResult:
        """Run one query; never raises for query or connection failures (see ``error_class``)."""
        if self.cache_path is not None:
            hit = self._cache.get(_cache_key(self.graph, query))
            if hit is not None:
                return hit
        res = self._execute(query)
        self._store(res)
        return res

    def _execute(self, query: str) -> QueryResult:
        try:
            query.encode("utf-8")
        except UnicodeEncodeError as exc:
            return QueryResult(
                query=query,
                columns=[],
                rows=[],
                error_class="client",
                error=f"the query is not valid Unicode text (not sent): {exc}",
            )
        writes = write_clauses_of(query)
        if writes:
            return QueryResult(
                query=query,
                columns=[],
                rows=[],
                error_class="write",
                error="refused before sending: the query contains write clause(s) "
                + ", ".join(writes),
            )
        import neo4j

        t0 = time.perf_counter()
        try:
            with read_session(self.driver, self.database) as session:
                result = session.run(neo4j.Query(query, timeout=self.timeout_s))
                columns = list(result.keys())
                rows = [[to_plain(v) for v in record.values()] for record in result]
        except Exception as exc:  # classified, reported in the result
            message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
            return QueryResult(
                query=query,
                columns=[],
                rows=[],
                error_class=classify(exc),
                error=str(message),
                elapsed_s=time.perf_counter() - t0,
            )
        return QueryResult(
            query=query, columns=columns, rows=rows, elapsed_s=time.perf_counter() - t0
        )

    def run_many(
        self, queries: Sequence[str] | Iterable[str], progress: bool = False
    ) -> list[QueryResult]:
        """Run ``queries`` on ``workers`` threads; results in input order (one per query).

        ``progress=True`` shows a bar on stderr (only when it is a terminal).
        """
        items = list(queries)
        out: list[QueryResult | None] = [None] * len(items)
        from tqdm import tqdm

        with (
            ThreadPoolExecutor(max_workers=self.workers) as pool,
            tqdm(total=len(items), desc="queries", disable=None if progress else True) as bar,
        ):
            futures = {pool.submit(self.run, q): i for i, q in enumerate(items)}
            for fut in futures:
                out[futures[fut]] = fut.result()
                bar.update(1)
        return [r for r in out if r is not None]
