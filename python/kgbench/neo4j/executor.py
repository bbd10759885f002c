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
- ``timeout`` — the transaction exceeded ``timeout_s`` (``Transaction.TransactionTimedOut*``),
  or the server did not answer within the client-side limit :func:`client_deadline_s`
  (``timeout_s`` plus a margin): Neo4j does not apply its transaction timeout while it parses
  and plans, and a query that overflows its parser's stack (a 50,000-term ``RETURN 1+1+…``,
  a 5,000-deep list literal) kept it busy for minutes before the connection failed. The
  client then stops waiting, reports ``timeout`` and leaves the query's connection to end on
  its own (its late answer is dropped);
- ``write`` — a write query, refused before sending or by the server (``AccessMode``); the
  parser gate counts ``CALL`` of any procedure outside its read-only list as a write, so an
  unknown procedure is refused as ``write`` too;
- ``client`` — any other ``Neo.ClientError.*`` (e.g. a procedure call that fails), or a
  query text that cannot be encoded (lone surrogates), refused before sending;
- ``database`` — ``Neo.DatabaseError.*`` / ``Neo.TransientError.*``;
- ``connection`` — the server could not be reached, the connection broke, or the database
  became unavailable (``Neo.TransientError.General.DatabaseUnavailable``, e.g. a server shutting
  down): the query is not at fault.

Values are normalised to plain Python (:func:`to_plain`), so results can be hashed, compared and
cached as JSON lines keyed by (graph, query text) and, when a :class:`DatabaseFingerprint` is
given, by the database's content: :func:`database_fingerprint` reads the database's id, its node
and relationship counts (per label and type) and a hash of a sample of nodes and relationships
(element ids, labels, types and properties), all read-only and cheap. Neo4j Community exposes no
last committed transaction id to queries (``SHOW DATABASES`` yields ``lastCommittedTxn`` as
null), so the sample stands in for it: a change outside the sample that keeps every count is not
detected.

The server's version and Cypher dialect (:func:`server_info`, :func:`server_version`,
:func:`cypher_dialect`, and :attr:`QueryExecutor.server_info`) are read once per driver and
database: ``CALL dbms.components()`` gives the kernel version (``5.26.30``, ``2026.08.1``), the
edition and, from Neo4j 2025.06 on, a ``Cypher`` component listing the Cypher versions the
server has (``5``, ``25``). Which of them a query without a ``CYPHER 5`` / ``CYPHER 25`` prefix
runs in is the database's default language (Cypher Manual, "Select Cypher version"): read with
``SHOW DATABASE name YIELD defaultLanguage`` (the home database when none is named); where that
cannot be read (no such column, no privilege), one ``EXPLAIN`` of a query only Cypher 25 parses
(``FILTER``) tells. Servers before 2025.06 run Cypher 5 only.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
import weakref
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgbench.errors import KgbenchError

#: The error classes a failed query can have.
ERROR_CLASSES = ("syntax", "semantic/type", "timeout", "client", "database", "connection", "write")

#: The error class of a query that failed because the server was not available.
CONNECTION = "connection"

#: Nodes and relationships whose content :func:`database_fingerprint` hashes (each).
FINGERPRINT_SAMPLE = 1000

#: Seconds the client waits beyond a query's transaction timeout (plus 10 % of it) before it
#: gives up on the query (:func:`client_deadline_s`).
CLIENT_GRACE_S = 5.0


def client_deadline_s(timeout_s: float | None) -> float | None:
    """How long (seconds) :class:`QueryExecutor` waits for a query whose transaction timeout
    is ``timeout_s`` before it classes it ``timeout`` itself: ``1.1 * timeout_s +``
    :data:`CLIENT_GRACE_S` (the server's own timeout, with its message, comes first when the
    server applies it); ``None`` (wait as long as it takes) when ``timeout_s`` is None."""
    return None if timeout_s is None else 1.1 * timeout_s + CLIENT_GRACE_S


class ConnectionLostError(KgbenchError):
    """The Neo4j server of a graph could not be reached, or the connection to it was lost
    (during an evaluation: raised unless ``keep_going``; also
    ``kgbench.evaluate.ConnectionLostError``). The message says where and what to do."""


class QueryFailed(KgbenchError):
    """A query sent through :meth:`QueryExecutor.fetch` (or :class:`GraphReader`) failed;
    ``error_class`` is one of :data:`ERROR_CLASSES` (``timeout``, ``syntax``, ``write``, ...)
    and the message the server's (or, for a refused write, kgbench's)."""

    def __init__(self, message: str, error_class: str) -> None:
        super().__init__(message)
        self.error_class = error_class


def connect(
    uri: str,
    user: str | None = None,
    password: str | None = None,
    *,
    verify: bool = False,
    **config: Any,
) -> Any:
    """The one place kgbench opens a ``neo4j.Driver``: to ``uri`` with basic authentication
    ``(user or "neo4j", password or "")`` when a user or a password is given, else none (the
    local server of :class:`kgbench.neo4j.LocalNeo4j` has none). ``config`` goes to
    ``neo4j.GraphDatabase.driver`` as is. The caller closes the driver.

    With ``verify`` the server is asked to answer first (``verify_connectivity``).

    Raises:
        KgbenchError: one line for a string that is not a Neo4j URI (``bolt://``,
            ``neo4j://``, ...), and, with ``verify``, for a server that cannot be reached
            ("cannot reach Neo4j at ..."), refuses the credentials or the connection.
    """
    import neo4j
    from neo4j.exceptions import AuthError, ConfigurationError, Neo4jError, ServiceUnavailable

    auth = (user or "neo4j", password or "") if (user or password) else None
    try:
        driver = neo4j.GraphDatabase.driver(uri, auth=auth, **config)
    except (ValueError, ConfigurationError) as exc:
        raise KgbenchError(f"not a Neo4j URI: {uri!r} ({exc})") from exc
    if not verify:
        return driver
    try:
        driver.verify_connectivity()
    except AuthError as exc:
        driver.close()
        raise KgbenchError(
            f"Neo4j at {uri} refused the credentials (user {user!r}): {exc.message}"
        ) from exc
    except (ServiceUnavailable, OSError) as exc:
        driver.close()
        raise KgbenchError(f"cannot reach Neo4j at {uri}: {exc}") from exc
    except Neo4jError as exc:
        driver.close()
        raise KgbenchError(f"Neo4j at {uri} refused the connection: {exc}") from exc
    return driver


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
        return CONNECTION
    code = str(getattr(exc, "code", "") or "")
    if code == "Neo.TransientError.General.DatabaseUnavailable":
        # the database is stopping or stopped (a server shutting down answers in-flight
        # queries with it): the query is not at fault
        return CONNECTION
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
        return CONNECTION
    return "client"


def write_clauses_of(query: str, dialect: str = "5") -> list[str]:
    """Write clauses in ``query`` per kgbench's Cypher front end (empty = read-only) for a
    server speaking Cypher ``dialect`` (``"5"`` or ``"25"``, see :func:`cypher_dialect`).

    Delegates to ``kgbench._core.cypher.write_clauses``. If this build lacks it, returns an
    empty list and the server's READ access mode remains the guard.
    """
    try:
        from kgbench._core.cypher import write_clauses
    except ImportError:
        return []
    return list(write_clauses(query, dialect))


def _raised_failure(exc: BaseException) -> KgbenchError:
    """The error the raising forms of :class:`QueryExecutor` (``records``, ``time_query``,
    ``profile``) raise for a driver error ``exc``: a lost connection as
    :class:`~kgbench.errors.KgbenchError` ("lost the connection to Neo4j: ..."), any other
    failure as :class:`QueryFailed` with its class (:func:`classify`) and the server's
    message on one line."""
    error_class = classify(exc)
    message = " ".join(str(getattr(exc, "message", None) or exc).split())
    if error_class == CONNECTION:
        return KgbenchError(f"lost the connection to Neo4j: {message}")
    return QueryFailed(message, error_class)


@dataclass(frozen=True)
class ServerInfo:
    """What a Neo4j server reports about itself (see the module docstring)."""

    version: str
    """The kernel version (``dbms.components()``, component ``Neo4j Kernel``): ``5.26.30``,
    ``2026.08.1``."""
    edition: str
    """``community`` or ``enterprise``."""
    cypher_versions: tuple[str, ...]
    """The Cypher versions the server has: ``("5",)`` before 2025.06, else ``("5", "25")``."""
    dialect: str
    """The Cypher a query without a version prefix runs in on the database: ``"5"`` or
    ``"25"`` (the database's default language)."""


_SERVER_INFO: weakref.WeakKeyDictionary[Any, dict[str | None, ServerInfo]] = (
    weakref.WeakKeyDictionary()
)
_SERVER_INFO_LOCK = threading.Lock()
#: A query Cypher 25 parses and Cypher 5 refuses (the ``FILTER`` clause, Cypher 25 only).
_CYPHER_25_PROBE = "EXPLAIN UNWIND [] AS x FILTER x > 0 RETURN x"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def server_info(driver: Any, database: str | None = None) -> ServerInfo:
    """The version, edition and Cypher dialect of the server behind ``driver`` for
    ``database`` (None: the user's home database), read once per driver and database and
    cached (the cache is dropped with the driver).

    Raises the driver's exceptions when the server cannot be reached (``ServiceUnavailable``,
    ...) and :class:`KgbenchError` when ``dbms.components()`` names no ``Neo4j Kernel``."""
    with _SERVER_INFO_LOCK:
        known = _SERVER_INFO.get(driver, {}).get(database)
    if known is not None:
        return known
    with read_session(driver, database) as session:
        rows = [
            (rec["name"], list(rec["versions"] or []), rec["edition"])
            for rec in session.run("CALL dbms.components() YIELD name, versions, edition")
        ]
    kernel = next((r for r in rows if r[0] == "Neo4j Kernel" and r[1]), None)
    if kernel is None:
        raise KgbenchError(f"dbms.components() names no Neo4j Kernel version: {rows}")
    version, edition = str(kernel[1][0]), str(kernel[2])
    cypher = next((r[1] for r in rows if r[0] == "Cypher"), None)
    versions = tuple(str(v) for v in cypher) if cypher else ("5",)
    dialect = "5"
    if "25" in versions and _version_key(version)[:2] >= (2025, 6):
        dialect = _default_language(driver, database)
    info = ServerInfo(version=version, edition=edition, cypher_versions=versions, dialect=dialect)
    with _SERVER_INFO_LOCK:
        _SERVER_INFO.setdefault(driver, {})[database] = info
    return info


def _default_language(driver: Any, database: str | None) -> str:
    """``"5"`` or ``"25"``: the default language of ``database`` (None: the home database)."""
    from neo4j.exceptions import ClientError

    query = (
        "SHOW HOME DATABASE YIELD defaultLanguage"
        if database is None
        else "SHOW DATABASE $name YIELD defaultLanguage"
    )
    try:
        with read_session(driver, "system") as session:
            rows = [rec[0] for rec in session.run(query, name=database)]
        found = {m.group(0) for text in rows if (m := re.search(r"\d+", str(text or "")))}
        if len(found) == 1:
            return found.pop()
    except ClientError:
        pass
    try:
        with read_session(driver, database) as session:
            session.run(_CYPHER_25_PROBE).consume()
        return "25"
    except ClientError:
        return "5"


def server_version(driver: Any, database: str | None = None) -> str:
    """The Neo4j version of the server behind ``driver`` (``"5.26.30"``, ``"2026.08.1"``);
    see :func:`server_info`."""
    return server_info(driver, database).version


def cypher_dialect(driver: Any, database: str | None = None) -> str:
    """The Cypher dialect ``database`` (None: the home database) runs queries in, ``"5"`` or
    ``"25"`` (Neo4j 2025.06 and later with Cypher 25 as the database's default language); for
    the Cypher front end to follow the server it talks to. See :func:`server_info`."""
    return server_info(driver, database).dialect


def read_session(driver: Any, database: str | None) -> Any:
    """A session of ``driver`` in READ access mode with server notifications off (the only
    kind of session kgbench runs user-facing queries in)."""
    import neo4j

    return driver.session(
        database=database,
        default_access_mode=neo4j.READ_ACCESS,
        notifications_min_severity="OFF",
    )


def _cache_key(graph: str, query: str, timeout_s: float | None) -> str:
    return json.dumps([graph, query, timeout_s], ensure_ascii=False)


#: Error classes whose results a cache never keeps: the server did not answer the query in
#: time or at all, so a later run asks again.
UNCACHED_ERRORS = ("timeout", CONNECTION)


@dataclass(frozen=True)
class DatabaseFingerprint:
    """What a database holds, cheaply: see :func:`database_fingerprint`.

    ``key`` is a hash of all fields; two fingerprints with the same key describe the same
    content (up to the sample, see the module documentation).
    """

    database: str
    database_id: str
    created: str
    nodes: int
    relationships: int
    labels: dict[str, int]
    types: dict[str, int]
    sample: str
    content_sample: str = ""

    @property
    def key(self) -> str:
        """A 32-hex-digit hash of every field of :meth:`as_json`."""
        text = json.dumps(self.as_json(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    @property
    def content_key(self) -> str:
        """A 32-hex-digit hash of the content alone: the counts, per label and type, and
        ``content_sample`` (the sample with each element id cut to its store-local number),
        without the database's name, id and creation time. The same graph loaded again
        into a new database (same store order) keeps it; used to tell whether an agent
        run's cached tool results still hold (:mod:`kgbench.predict.agent`)."""
        text = json.dumps(
            [self.nodes, self.relationships, self.labels, self.types, self.content_sample],
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def as_json(self) -> dict[str, Any]:
        """The fields as a JSON-serialisable dict."""
        return {
            "database": self.database,
            "database_id": self.database_id,
            "created": self.created,
            "nodes": self.nodes,
            "relationships": self.relationships,
            "labels": dict(self.labels),
            "types": dict(self.types),
            "sample": self.sample,
        }

    def summary(self) -> str:
        """``"11 nodes, 11 relationships"``."""
        return f"{self.nodes} nodes, {self.relationships} relationships"


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def database_fingerprint(
    driver: Any,
    database: str | None = None,
    *,
    timeout_s: float | None = 120.0,
    sample: int = FINGERPRINT_SAMPLE,
) -> DatabaseFingerprint:
    """Fingerprint the content of ``database`` (None: the server's default) read-only.

    Reads ``CALL db.info()`` (the database's id and creation time: a new store, e.g. after an
    offline import, has a new id), the node and relationship counts in total, per label and per
    relationship type (Neo4j's count store: constant time), and a SHA-256 of the first
    ``sample`` nodes and relationships in store order with their element ids, labels or types,
    end points and properties (element ids matter: cached provenance results hold them).

    Raises:
        ConnectionLostError: the server cannot be reached (or became unavailable).
        KgbenchError: a query was refused (e.g. a user without the right to call
            ``db.info()``); the message names it.
    """
    import neo4j

    def rows(session: Any, query: str, **params: Any) -> list[list[Any]]:
        result = session.run(neo4j.Query(query, timeout=timeout_s), **params)
        return [[to_plain(v) for v in record.values()] for record in result]

    where = f"database {database!r}" if database else "the default database"
    try:
        with read_session(driver, database) as session:
            ((db_id, name, created),) = rows(
                session, "CALL db.info() YIELD id, name, creationDate RETURN id, name, creationDate"
            )
            ((nodes,),) = rows(session, "MATCH (n) RETURN count(n)")
            ((rels,),) = rows(session, "MATCH ()-[r]->() RETURN count(r)")
            labels = sorted(r[0] for r in rows(session, "CALL db.labels() YIELD label RETURN *"))
            types = sorted(
                r[0]
                for r in rows(
                    session, "CALL db.relationshipTypes() YIELD relationshipType RETURN *"
                )
            )
            per_label: dict[str, int] = {}
            if labels:
                query = " UNION ALL ".join(
                    f"MATCH (n:{_quote(label)}) RETURN {i} AS i, count(n) AS c"
                    for i, label in enumerate(labels)
                )
                per_label = {labels[i]: c for i, c in rows(session, query)}
            per_type: dict[str, int] = {}
            if types:
                query = " UNION ALL ".join(
                    f"MATCH ()-[r:{_quote(rtype)}]->() RETURN {i} AS i, count(r) AS c"
                    for i, rtype in enumerate(types)
                )
                per_type = {types[i]: c for i, c in rows(session, query)}
            digest = hashlib.sha256()
            content = hashlib.sha256()
            for query, ids in (
                (
                    "MATCH (n) WITH n LIMIT $k RETURN elementId(n), labels(n), properties(n)",
                    (0,),
                ),
                (
                    "MATCH ()-[r]->() WITH r LIMIT $k RETURN elementId(r), type(r), "
                    "elementId(startNode(r)), elementId(endNode(r)), properties(r)",
                    (0, 2, 3),
                ),
            ):
                for row in rows(session, query, k=sample):
                    digest.update(json.dumps(row, sort_keys=True, default=str).encode("utf-8"))
                    digest.update(b"\n")
                    local = [
                        str(v).rsplit(":", 1)[-1] if i in ids else v for i, v in enumerate(row)
                    ]
                    content.update(json.dumps(local, sort_keys=True, default=str).encode("utf-8"))
                    content.update(b"\n")
    except Exception as exc:
        message = " ".join(str(getattr(exc, "message", None) or exc).split())
        if classify(exc) == CONNECTION:
            raise ConnectionLostError(f"cannot reach Neo4j ({where}): {message}") from exc
        raise KgbenchError(f"cannot fingerprint {where}: {message}") from exc
    return DatabaseFingerprint(
        database=str(name),
        database_id=str(db_id),
        created=str(created),
        nodes=int(nodes),
        relationships=int(rels),
        labels=per_label,
        types=per_type,
        sample=digest.hexdigest(),
        content_sample=content.hexdigest(),
    )


@dataclass(frozen=True)
class CacheReport:
    """What a :class:`QueryExecutor` found in its cache file at start.

    ``status``: ``"new"`` (no usable line), ``"reused"`` (``entries`` results for the current
    content), ``"invalidated"`` (``discarded`` lines written for other content were dropped and
    the file rewritten; ``change`` says what changed) or ``"unchecked"`` (no fingerprint given:
    every line is used, whatever the content). ``corrupt`` counts the lines that were not
    cache lines (a file cut short by a crash, or damaged); they are dropped and the file is
    rewritten without them, and ``damage`` names the first (``"line 7: ..."``).
    """

    path: Path
    status: str
    entries: int = 0
    discarded: int = 0
    change: str = ""
    corrupt: int = 0
    damage: str = ""


def _describe_change(old: Any, new: DatabaseFingerprint) -> str:
    if not isinstance(old, dict):
        return "the cache was written without a database fingerprint"
    parts = []
    for field_name in ("nodes", "relationships"):
        before, after = old.get(field_name), getattr(new, field_name)
        if before != after:
            parts.append(f"{field_name} {before} -> {after}")
    if parts:
        return ", ".join(parts)
    return (
        f"same counts ({new.summary()}), but other content (database id, counts per label or "
        "type, or the sampled nodes and relationships differ)"
    )


def _db_hits(plan: Any) -> int:
    """The ``dbHits`` of a profiled plan (a dict with ``children``), summed over its operators."""
    if not isinstance(plan, dict):
        return 0
    own = plan.get("dbHits", 0)
    total = int(own) if isinstance(own, (int, float)) else 0
    return total + sum(_db_hits(child) for child in plan.get("children") or [])


class QueryExecutor:
    """Run read-only Cypher queries concurrently against one database.

    ``driver`` is a ``neo4j.Driver``; ``database`` the database name (None: the server's
    default); ``timeout_s`` the per-transaction timeout in seconds (SPEC.md §4: 120; None: the
    server's own limit);
    ``workers`` the number of concurrent sessions (SPEC.md §4: 8). With ``cache_path`` a JSONL
    file caches results keyed by (``graph``, query text, ``timeout_s``): existing lines are
    read at start and new results appended. Results of the classes in
    :data:`UNCACHED_ERRORS` (``timeout``, ``connection``) are never cached: a later run sends
    them again. Several executors may share one file (each line carries its own key).
    ``graph`` defaults to ``database`` or ``""``. With ``fingerprint``
    (:func:`database_fingerprint`) the cache is also keyed by the database's content: each
    line records the fingerprint, lines written for another content are discarded (and the
    file rewritten without them). Lines that are not cache lines (a file cut short, or
    damaged) are dropped the same way and counted in the report. :attr:`cache_report` says
    what was found, :attr:`cache_hits` counts the answers taken from the cache and
    :attr:`sent` the queries sent to the server.
    ``dialect`` (``"5"`` or ``"25"``) is the server's Cypher version for the read-only gate;
    None: asked of the server before the first query (:attr:`dialect`).

    Raises:
        ValueError: ``workers`` < 1, ``timeout_s`` <= 0, or an unknown ``dialect``.
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
        fingerprint: DatabaseFingerprint | None = None,
        dialect: str | None = None,
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
        self.fingerprint = fingerprint
        self.cache_report: CacheReport | None = None
        self.cache_hits = 0
        #: Queries sent to the server (not refused before sending, not from the cache).
        self.sent = 0
        #: Wall seconds from sending each query to its last record, summed over the queries.
        self.neo4j_s = 0.0
        self._cache: dict[str, QueryResult] = {}
        self._lock = threading.Lock()
        if dialect is not None and dialect not in ("5", "25"):
            raise ValueError(f'dialect must be "5" or "25", got {dialect!r}')
        self._dialect = dialect
        if self.cache_path is not None:
            self.cache_report = self._read_cache(self.cache_path)

    @property
    def server_info(self) -> ServerInfo:
        """The server's version, edition and Cypher dialect for this executor's database
        (:func:`server_info`; one query per driver and database, then cached)."""
        return server_info(self.driver, self.database)

    @property
    def dialect(self) -> str:
        """The Cypher dialect (``"5"`` or ``"25"``) this executor's queries run in: as given,
        else asked of the server once (:func:`cypher_dialect`; ``"5"`` when the server cannot
        be asked). The read-only gate and the PSJS provenance builder parse for it."""
        if self._dialect is None:
            try:
                found = cypher_dialect(self.driver, self.database)
            except Exception:  # an unreachable server fails the queries themselves
                found = "5"
            with self._lock:
                self._dialect = found
        return self._dialect

    @property
    def cypher_dialect(self) -> str:
        """The same as :attr:`dialect`."""
        return self.dialect

    def _read_cache(self, path: Path) -> CacheReport:
        kept: list[str] = []
        discarded = corrupt = stale = 0
        damage = ""
        old_db: Any = None
        want = self.fingerprint.key if self.fingerprint is not None else None
        try:
            data = path.read_bytes() if path.exists() else b""
        except OSError as exc:
            data, corrupt, damage = b"", 1, f"unreadable ({exc})"
        for lineno, raw in enumerate(data.splitlines(keepends=True), 1):
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8")
                d = json.loads(line)
                res = QueryResult(
                    query=str(d["query"]),
                    columns=list(d["columns"]),
                    rows=[list(r) for r in d["rows"]],
                    error_class=d.get("error_class"),
                    error=d.get("error"),
                    elapsed_s=float(d.get("elapsed_s", 0.0)),
                )
                limit = d.get("timeout_s")
                key = _cache_key(
                    str(d["graph"]), res.query, None if limit is None else float(limit)
                )
                db = d.get("db")
                if not raw.endswith(b"\n"):
                    raise ValueError("the last line is cut short")
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                corrupt += 1
                damage = damage or f"line {lineno}: {' '.join(str(exc).split())[:120]}"
                continue
            if res.error_class in UNCACHED_ERRORS:
                discarded += 1  # written by an older version, which kept timeouts
                continue
            if want is not None and (not isinstance(db, dict) or db.get("key") != want):
                discarded += 1
                stale += 1
                old_db = db
                continue
            self._cache[key] = res
            kept.append(line)
        if discarded or corrupt:
            try:
                tmp = path.with_name(path.name + ".tmp")
                tmp.write_text("".join(kept), encoding="utf-8")
                os.replace(tmp, path)
            except OSError as exc:
                damage = f"{damage}; cannot rewrite it ({exc})" if damage else damage
        if want is None:
            status = "unchecked"
        elif stale:
            status = "invalidated"
        else:
            status = "reused" if self._cache else "new"
        return CacheReport(
            path,
            status,
            entries=len(self._cache),
            discarded=discarded,
            change=_describe_change(old_db, self.fingerprint)
            if status == "invalidated" and self.fingerprint is not None
            else "",
            corrupt=corrupt,
            damage=damage,
        )

    def _store(self, res: QueryResult) -> None:
        if self.cache_path is None or res.error_class in UNCACHED_ERRORS:
            return
        record: dict[str, Any] = {"graph": self.graph, **res.to_json()}
        record["timeout_s"] = self.timeout_s
        if self.fingerprint is not None:
            fp = self.fingerprint
            record["db"] = {"key": fp.key, "nodes": fp.nodes, "relationships": fp.relationships}
        line = json.dumps(record, ensure_ascii=False)
        with self._lock:
            self._cache[_cache_key(self.graph, res.query, self.timeout_s)] = res
            try:
                with open(self.cache_path, "a", encoding="utf-8") as f:
                    f.write(line + "\n")
            except OSError:
                pass  # an unwritable cache costs the next run its answers, not this run

    def run(self, query: str) -> QueryResult:
        """Run one query; never raises for query or connection failures (see ``error_class``)."""
        if self.cache_path is not None:
            hit = self._cache.get(_cache_key(self.graph, query, self.timeout_s))
            if hit is not None:
                with self._lock:
                    self.cache_hits += 1
                return hit
        res = self._execute(query)
        self._store(res)
        return res

    def fetch(
        self, query: str, params: dict[str, Any] | None = None, timeout_s: float | None = None
    ) -> list[Any]:
        """Run ``query`` with ``params`` in a READ session and return its ``neo4j.Record``
        list, native values kept (a ``neo4j.time.Date`` stays a Date): the raising form of
        :meth:`run` for callers that need the driver's values (the generators). ``timeout_s``:
        None the executor's limit, 0 none set by the client. No cache and no client-side
        deadline; counted in :attr:`sent` and :attr:`neo4j_s`.

        Raises:
            QueryFailed: a write query (refused before sending, class ``write``) or a failed
                query (its error class, :func:`classify`, and the server's message).
            KgbenchError: the connection was lost ("lost the connection to Neo4j: ...").
        """
        import neo4j

        writes = write_clauses_of(query, self.dialect)
        if writes:
            raise QueryFailed(
                f"refused before sending: write clause(s) {', '.join(writes)} in {query[:200]!r}",
                "write",
            )
        timeout = self.timeout_s if timeout_s is None else (timeout_s or None)
        t0 = time.perf_counter()
        with self._lock:
            self.sent += 1
        try:
            with read_session(self.driver, self.database) as session:
                return list(session.run(neo4j.Query(query, timeout=timeout), params or {}))
        except Exception as exc:
            raise _raised_failure(exc) from exc
        finally:
            with self._lock:
                self.neo4j_s += time.perf_counter() - t0

    def _refuse_writes(self, query: str) -> None:
        writes = write_clauses_of(query, self.dialect)
        if writes:
            raise QueryFailed(
                f"refused before sending: write clause(s) {', '.join(writes)} in {query[:200]!r}",
                "write",
            )

    def time_query(self, query: str) -> float:
        """The wall seconds of one execution of ``query`` with all its records fetched, in a
        READ session opened (and its connection taken from the pool) before the clock starts:
        BIRD's VES timing (metrics.md, "VES"). No cache; counted in :attr:`sent`.

        Raises:
            QueryFailed: a write query (refused before sending, class ``write``) or a failed
                query (its error class and the server's message).
            KgbenchError: the connection was lost.
        """
        import neo4j

        self._refuse_writes(query)
        with self._lock:
            self.sent += 1
        try:
            with read_session(self.driver, self.database) as session:
                t0 = time.perf_counter()
                result = session.run(neo4j.Query(query, timeout=self.timeout_s))
                for _record in result:
                    pass
                elapsed = time.perf_counter() - t0
        except Exception as exc:
            raise _raised_failure(exc) from exc
        with self._lock:
            self.neo4j_s += elapsed
        return elapsed

    def profile(self, query: str) -> tuple[int, int]:
        """``(db_hits, rows)`` of ``PROFILE <query>`` run in a READ session after the
        read-only gate: the sum of ``dbHits`` over every operator of the plan (the driver's
        ``ResultSummary.profile``) and the records returned. No cache; counted in
        :attr:`sent`.

        Raises:
            QueryFailed: a write query (refused before sending, class ``write``), a query
                that already starts with ``EXPLAIN`` / ``PROFILE`` (class ``client``) or a
                failed query.
            KgbenchError: the connection was lost.
        """
        import neo4j

        self._refuse_writes(query)
        head = query.lstrip().split(None, 1)[0].upper() if query.strip() else ""
        if head in ("EXPLAIN", "PROFILE"):
            raise QueryFailed(f"the query already starts with {head}: not profiled", "client")
        with self._lock:
            self.sent += 1
        t0 = time.perf_counter()
        try:
            with read_session(self.driver, self.database) as session:
                result = session.run(neo4j.Query("PROFILE " + query, timeout=self.timeout_s))
                rows = sum(1 for _record in result)
                plan = result.consume().profile
        except Exception as exc:
            raise _raised_failure(exc) from exc
        finally:
            with self._lock:
                self.neo4j_s += time.perf_counter() - t0
        return _db_hits(plan), rows

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
        writes = write_clauses_of(query, self.dialect)
        if writes:
            return QueryResult(
                query=query,
                columns=[],
                rows=[],
                error_class="write",
                error="refused before sending: the query contains write clause(s) "
                + ", ".join(writes),
            )
        deadline = client_deadline_s(self.timeout_s)
        if deadline is None:
            return self._send(query)
        # the query runs on its own thread, so that the caller can stop waiting at the
        # deadline even when the server does not answer (the driver has no read timeout)
        box: list[QueryResult] = []
        done = threading.Event()

        def work() -> None:
            try:
                box.append(self._send(query))
            finally:
                done.set()

        t0 = time.perf_counter()
        threading.Thread(target=work, name="kgbench-query", daemon=True).start()
        if done.wait(deadline) and box:
            return box[0]
        if not done.is_set():
            assert self.timeout_s is not None
            return QueryResult(
                query=query,
                columns=[],
                rows=[],
                error_class="timeout",
                error=(
                    f"no answer from the server within {deadline:.1f} s (the {self.timeout_s:g} s "
                    "transaction timeout and a margin): the client stopped waiting. Neo4j does "
                    "not apply its timeout while it parses and plans a query (e.g. one so long "
                    "or deeply nested that its parser overflows its stack)"
                ),
                elapsed_s=time.perf_counter() - t0,
            )
        return QueryResult(  # the worker died without a result (not expected)
            query=query,
            columns=[],
            rows=[],
            error_class="client",
            error="the query's worker thread ended without a result",
            elapsed_s=time.perf_counter() - t0,
        )

    def _send(self, query: str) -> QueryResult:
        """Send ``query`` and wait for its whole result (no client-side limit)."""
        import neo4j

        with self._lock:
            self.sent += 1
        t0 = time.perf_counter()
        try:
            with read_session(self.driver, self.database) as session:
                result = session.run(neo4j.Query(query, timeout=self.timeout_s))
                columns = list(result.keys())
                rows = [[to_plain(v) for v in record.values()] for record in result]
        except Exception as exc:  # classified, reported in the result
            message = str(getattr(exc, "message", None) or str(exc) or type(exc).__name__)
            elapsed = time.perf_counter() - t0
            with self._lock:
                self.neo4j_s += elapsed
            error_class = classify(exc)
            if error_class == CONNECTION and self._server_answers():
                # the server is up: it dropped this query's connection (the driver stops
                # reading after the server's receive timeout hint, e.g. while the server's
                # parser overflows its stack), so the query failed, not the connection
                over = self.timeout_s is not None and elapsed >= self.timeout_s
                error_class = "timeout" if over else "database"
                message = (
                    f"the connection of this query failed after {elapsed:.1f} s while the "
                    f"server stayed up ({message})"
                )
            return QueryResult(
                query=query,
                columns=[],
                rows=[],
                error_class=error_class,
                error=message,
                elapsed_s=elapsed,
            )
        elapsed = time.perf_counter() - t0
        with self._lock:
            self.neo4j_s += elapsed
        return QueryResult(query=query, columns=columns, rows=rows, elapsed_s=elapsed)

    def _server_answers(self, within_s: float = 10.0) -> bool:
        """True when ``RETURN 1`` runs on a fresh connection within ``within_s`` seconds: the
        server and the database are up (after a query's connection failed)."""
        import neo4j

        ok: list[bool] = []
        done = threading.Event()

        def probe() -> None:
            try:
                with read_session(self.driver, self.database) as session:
                    result = session.run(neo4j.Query("RETURN 1 AS ok", timeout=within_s))
                    ok.append([r[0] for r in result] == [1])
            except Exception:
                ok.append(False)
            finally:
                done.set()

        threading.Thread(target=probe, name="kgbench-probe", daemon=True).start()
        return done.wait(within_s) and ok == [True]

    def run_many(
        self, queries: Sequence[str] | Iterable[str], progress: bool | str = False
    ) -> list[QueryResult]:
        """Run ``queries`` on ``workers`` threads; results in input order (one per query).

        ``progress=True`` (or a label for the bar, e.g. ``"gold"``) shows a bar on stderr
        (only when it is a terminal).
        """
        items = list(queries)
        out: list[QueryResult | None] = [None] * len(items)
        from tqdm import tqdm

        with (
            ThreadPoolExecutor(max_workers=self.workers) as pool,
            tqdm(
                total=len(items),
                desc=progress if isinstance(progress, str) else "queries",
                disable=None if progress else True,
            ) as bar,
        ):
            futures = {pool.submit(self.run, q): i for i, q in enumerate(items)}
            for fut in futures:
                out[futures[fut]] = fut.result()
                bar.update(1)
        return [r for r in out if r is not None]


class GraphReader:
    """The generators' name for a :class:`QueryExecutor` on one database: one session at a
    time, a 30 s default timeout and the Cypher 5 read-only gate; :meth:`run` is the
    executor's :meth:`QueryExecutor.fetch` (``neo4j.Record`` lists, :class:`QueryFailed` for a
    failed query). :attr:`queries` counts the queries sent (:attr:`QueryExecutor.sent`) and
    :attr:`neo4j_s` the wall seconds spent waiting for Neo4j.

    ``driver`` is a ``neo4j.Driver`` (:func:`connect`); ``database`` the database name (None:
    the server's default); ``timeout_s`` the default transaction timeout in seconds (None:
    the server's own limit).
    """

    def __init__(
        self, driver: Any, database: str | None = None, timeout_s: float | None = 30.0
    ) -> None:
        self.executor = QueryExecutor(driver, database, timeout_s=timeout_s, workers=1, dialect="5")

    @classmethod
    def connect(
        cls,
        uri: str,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        timeout_s: float | None = 30.0,
    ) -> GraphReader:
        """A reader on a driver from :func:`connect` (``verify=True``): raises
        :class:`kgbench.errors.KgbenchError` with one line when ``uri`` is not a Neo4j URI,
        or the server cannot be reached or refuses the credentials."""
        return cls(connect(uri, user, password, verify=True), database, timeout_s)

    @property
    def driver(self) -> Any:
        """The ``neo4j.Driver``."""
        return self.executor.driver

    @property
    def database(self) -> str | None:
        """The database name (None: the server's default)."""
        return self.executor.database

    @property
    def timeout_s(self) -> float | None:
        """The default transaction timeout in seconds."""
        return self.executor.timeout_s

    @property
    def queries(self) -> int:
        """Queries sent to the server (write queries refused before sending not counted)."""
        return self.executor.sent

    @property
    def neo4j_s(self) -> float:
        """Wall seconds from sending each query to its last record, summed."""
        return self.executor.neo4j_s

    @neo4j_s.setter
    def neo4j_s(self, seconds: float) -> None:
        self.executor.neo4j_s = seconds

    def run(
        self, query: str, params: dict[str, Any] | None = None, timeout_s: float | None = None
    ) -> list[Any]:
        """:meth:`QueryExecutor.fetch`: the records of ``query``; ``timeout_s`` None the
        reader's default, 0 none."""
        return self.executor.fetch(query, params, timeout_s)

    def close(self) -> None:
        """Close the driver."""
        self.executor.driver.close()
