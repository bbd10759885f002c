"""A disposable local Neo4j for NGDBench management (write) batches (spec ngdbench.md §4, §7).

**Safe writes** (spec §7): the read-only gate stays on for user databases. Management gold
(:mod:`kgbench.generate.ngdbench.management`) and the scoring of management predictions given
as Cypher (:mod:`kgbench.evaluate.ngdbench`) run only here: on a
:class:`kgbench.neo4j.server.LocalNeo4j` that :class:`DisposableNeo4j` starts in a directory
kgbench creates (a fresh temporary directory, or a given path that must not exist or be
empty), with a marker file :data:`MARKER_FILE` written there, loaded once with the clean graph
(:func:`kgbench.neo4j.loader.load_graph`).

Each batch (:meth:`DisposableNeo4j.run_batch`) runs as **one explicit transaction**
(``session.begin_transaction()``, WRITE mode): validation 0, then for i = 1..K op i and
validation i (which see the transaction's own writes), then **ROLLBACK**, always — no rebuild
between batches, no leaked state, order kept. Per step it returns the validation answer
(normalised as scoring does: :func:`kgbench.evaluate.ngdbench.answer_from_rows`, floats
rounded to 15 significant digits: :func:`round_float`), the op's
non-zero write counters (``result.consume().counters``: the expected state change) and the
error, if any. A failure at step i (the op or the validation raising) marks step i
``failed`` and every later step ``not_run``; the rollback leaves the database unchanged.

:func:`require_disposable` is the guard every write path calls first: it raises
:class:`WriteRefusedError` — before anything is sent — for any target (a URI, a plain
:class:`~kgbench.neo4j.server.LocalNeo4j`, a driver, …) that is not a running
:class:`DisposableNeo4j` this process created, with its marker file intact.

Neo4j Community has one user database, so each instance is one server (one JVM).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kgbench.errors import InputError, KgbenchError
from kgbench.neo4j.server import StartStop

__all__ = [
    "COUNTER_NAMES",
    "MARKER_FILE",
    "BatchRun",
    "DisposableNeo4j",
    "StepRun",
    "WriteRefusedError",
    "require_disposable",
    "round_float",
    "run_batch",
]

#: Marker file in the root directory of a disposable database.
MARKER_FILE = "kgbench-disposable.json"
#: The ``kgbench`` field of the marker file.
MARKER_KIND = "ngdbench-disposable-neo4j"
#: Write counters of a query summary (``neo4j.SummaryCounters``), in report order.
COUNTER_NAMES = (
    "nodes_created",
    "nodes_deleted",
    "relationships_created",
    "relationships_deleted",
    "properties_set",
    "labels_added",
    "labels_removed",
    "indexes_added",
    "indexes_removed",
    "constraints_added",
    "constraints_removed",
    "system_updates",
)
#: Default timeout of one batch transaction, in seconds.
DEFAULT_TIMEOUT_S = 60.0
#: Write clauses refused in an op (the op fails before it is sent).
REFUSED_CLAUSES = frozenset({"LOAD CSV"})

#: The disposable databases of this process, by Bolt URI.
_LIVE: dict[str, DisposableNeo4j] = {}

StepStatus = Literal["ok", "failed", "not_run"]


class WriteRefusedError(KgbenchError):
    """A write aimed at a database that is not a disposable database kgbench created in this
    process (spec ngdbench.md §7 "Safe writes"). Raised before anything is sent."""


# --------------------------------------------------------------------------- results


def counters_of(summary_counters: Any) -> dict[str, int]:
    """The non-zero write counters of a ``neo4j.SummaryCounters`` as ``{name: count}`` in
    :data:`COUNTER_NAMES` order."""
    out: dict[str, int] = {}
    for name in COUNTER_NAMES:
        value = getattr(summary_counters, name, 0)
        if isinstance(value, int) and not isinstance(value, bool) and value:
            out[name] = value
    return out


@dataclass
class StepRun:
    """One step of a batch run (``step`` 0 = the initial validation, which has no op).

    ``status``: ``ok``, ``failed`` (the op or the validation raised, or was refused) or
    ``not_run`` (an earlier step failed). ``answer``: the validation's rows normalised as
    :func:`kgbench.evaluate.ngdbench.answer_from_rows` (None unless ``ok``). ``counters``: the
    op's non-zero write counters. ``rerun_counters``: with the MERGE idempotence check, the
    counters of the op's second run (spec §4: a MERGE re-run changes nothing), else None.
    ``write_clauses``: the op's write clauses (``kgbench._core.cypher.write_clauses``).
    ``failed_in``: ``operate`` / ``validation`` for a failed step. ``error_class``: one of
    :data:`kgbench.neo4j.executor.ERROR_CLASSES`, or ``refused``."""

    step: int
    operate_query: str | None
    valid_query: str | None
    status: StepStatus = "not_run"
    answer: Any = None
    counters: dict[str, int] = field(default_factory=dict)
    rerun_counters: dict[str, int] | None = None
    write_clauses: list[str] = field(default_factory=list)
    failed_in: str | None = None
    error: str | None = None
    error_class: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The step as a JSON-ready dict (every field)."""
        return {
            "step": self.step,
            "operate_query": self.operate_query,
            "valid_query": self.valid_query,
            "status": self.status,
            "answer": self.answer,
            "counters": dict(self.counters),
            "rerun_counters": self.rerun_counters,
            "write_clauses": list(self.write_clauses),
            "failed_in": self.failed_in,
            "error": self.error,
            "error_class": self.error_class,
        }


@dataclass
class BatchRun:
    """A batch run in one rolled-back transaction: ``initial`` (step 0, None without an
    initial validation) and ``steps`` (1..K)."""

    initial: StepRun | None
    steps: list[StepRun]

    @property
    def ok(self) -> bool:
        """True when the initial validation and every step succeeded."""
        runs = ([self.initial] if self.initial is not None else []) + self.steps
        return all(s.status == "ok" for s in runs)

    @property
    def failed_step(self) -> int | None:
        """The number of the failed step (0 = the initial validation), or None."""
        runs = ([self.initial] if self.initial is not None else []) + self.steps
        for s in runs:
            if s.status == "failed":
                return s.step
        return None

    @property
    def answers(self) -> list[Any]:
        """The answers of steps 1..K (None for a failed or not-run step)."""
        return [s.answer if s.status == "ok" else None for s in self.steps]

    def to_json(self) -> dict[str, Any]:
        """The run as a JSON-ready dict."""
        return {
            "initial": self.initial.to_json() if self.initial is not None else None,
            "steps": [s.to_json() for s in self.steps],
            "ok": self.ok,
            "failed_step": self.failed_step,
        }


# --------------------------------------------------------------------------- the guard


def _describe(target: Any) -> str:
    if isinstance(target, str):
        return target
    try:
        uri = getattr(target, "uri", None)
    except Exception:  # a stopped server's uri property raises
        uri = None
    if isinstance(uri, str):
        return f"{type(target).__name__} at {uri}"
    try:
        return f"{type(target).__name__} {target!r}"
    except Exception:  # a repr that needs a running server
        return type(target).__name__


def require_disposable(target: Any) -> DisposableNeo4j:
    """Return the :class:`DisposableNeo4j` that ``target`` designates, or refuse.

    ``target`` is a :class:`DisposableNeo4j` or the Bolt URI of one. It is accepted only when
    it is an instance this process created and registered at its start, still running, on
    the same URI, with its marker file (:data:`MARKER_FILE`: kind, token, process id, URI)
    intact. Nothing is sent to any server: the check is local.

    Raises:
        WriteRefusedError: for anything else — another URI, a plain
            :class:`~kgbench.neo4j.server.LocalNeo4j`, a driver, a stopped or tampered
            disposable database (spec ngdbench.md §7 "Safe writes").
    """
    what = _describe(target)
    db: DisposableNeo4j | None
    if isinstance(target, DisposableNeo4j):
        db = target
    elif isinstance(target, str):
        db = _LIVE.get(target.strip())
    else:
        db = None
    if db is None:
        raise WriteRefusedError(
            f"refusing to write to {what}: not a disposable database that kgbench created in "
            "this process; management batches and their predictions run only on a "
            "kgbench.neo4j.disposable.DisposableNeo4j (spec ngdbench.md §7 'Safe writes'), "
            "never on a user's database"
        )
    problem = db._integrity_problem()
    if problem is not None:
        raise WriteRefusedError(f"refusing to write to {what}: {problem}")
    return db


def run_batch(
    target: Any,
    operate_queries: Sequence[str],
    valid_queries: Sequence[str],
    **kwargs: Any,
) -> BatchRun:
    """:func:`require_disposable` ``(target)``, then :meth:`DisposableNeo4j.run_batch` with
    the other arguments. Raises :class:`WriteRefusedError` before anything is sent when
    ``target`` is not a disposable database of this process."""
    db = require_disposable(target)
    return db.run_batch(operate_queries, valid_queries, **kwargs)


# --------------------------------------------------------------------------- the database


def _tx_memory_max(heap: str | None) -> str:
    """Half the JVM heap (at least 64 MiB) as ``db.memory.transaction.max``: a runaway op
    fails with a memory-pool error instead of exhausting the heap."""
    from kgbench.neo4j.server import DEFAULT_HEAP, size_bytes

    size = heap or os.environ.get("KGBENCH_NEO4J_HEAP", DEFAULT_HEAP)
    try:
        n = size_bytes(size)
    except ValueError:
        return "256m"
    return f"{max(64 << 20, n // 2) >> 20}m"


class DisposableNeo4j(StartStop):
    """A local Neo4j that kgbench creates, loads once and only ever writes to in rolled-back
    transactions (module docstring; spec ngdbench.md §7).

    Use as a context manager — ``with DisposableNeo4j("graph.json") as db: db.run_batch(…)``
    — or call :meth:`start` / :meth:`stop`.

    Args:
        graph: the clean graph (a SPEC.md §2 dict, a ``graph.json`` path or a converter
            output directory), loaded at :meth:`start`; None to call :meth:`load` later.
        data_dir: the directory to create the database in; it must not exist or be an empty
            directory. None: a fresh temporary directory.
        keep: keep the directory at :meth:`stop` (default: it is removed).
        heap: JVM heap size (``"512m"``, ``"2g"``); None: the
            :class:`~kgbench.neo4j.server.LocalNeo4j` default.
        pagecache: page cache size, same form; None: the ``LocalNeo4j`` default.
        extra_settings: further Neo4j settings; ``db.memory.transaction.max`` defaults to
            half the heap.
        start_timeout_s: seconds to wait for the server to answer.
        version: the Neo4j release to start, as ``kgbench neo4j start --version``
            (:func:`kgbench.neo4j.versions.resolve_version`: an offered release such as
            ``"5.26.30"`` or ``"2026.08.1"``, a prefix such as ``"5.26"`` or ``"2026"``, or
            ``"latest"``); None: the default 5.26 LTS (Cypher 5). A release with Cypher 25
            starts with Cypher 25 as its default language, and the executors on
            :attr:`driver` then parse for Cypher 25.

    Raises:
        InputError: ``data_dir`` exists and is not an empty directory.
        UnknownNeo4jVersionError: ``version`` names no offered release (one line listing
            them), before anything is started.
    """

    def __init__(
        self,
        graph: Mapping[str, Any] | str | os.PathLike[str] | None = None,
        *,
        data_dir: str | os.PathLike[str] | None = None,
        keep: bool = False,
        heap: str | None = None,
        pagecache: str | None = None,
        extra_settings: Mapping[str, str] | None = None,
        start_timeout_s: float = 300.0,
        version: str | None = None,
    ) -> None:
        from kgbench.neo4j.versions import resolve_version

        #: The Neo4j release this database runs (resolved from ``version``).
        self.version = resolve_version(version)
        if data_dir is not None:
            p = Path(data_dir)
            if p.exists() and (not p.is_dir() or any(p.iterdir())):
                raise InputError(
                    f"{p}: the directory of a disposable database must not exist or be empty "
                    "(kgbench creates it and may delete it)"
                )
        self._requested_dir = Path(data_dir) if data_dir is not None else None
        self.root: Path | None = None
        self.keep = keep
        self.heap = heap
        self.pagecache = pagecache
        self.extra_settings = {
            "db.memory.transaction.max": _tx_memory_max(heap),
            **(extra_settings or {}),
        }
        self.start_timeout_s = start_timeout_s
        self._graph = graph
        self._token = secrets.token_hex(16)
        self.server: Any = None
        self._driver: Any = None
        self._uri: str | None = None
        #: Counts verified after the load: ``{"nodes": n, "relationships": m}`` (None before).
        self.loaded_counts: dict[str, int] | None = None
        #: What was loaded (a path, or "graph dict").
        self.loaded_from: str | None = None

    # -- properties -----------------------------------------------------------------------
    @property
    def uri(self) -> str:
        """The Bolt URI. Raises :class:`kgbench.neo4j.server.Neo4jServerError` when stopped."""
        if self._uri is None:
            from kgbench.neo4j.server import Neo4jServerError

            raise Neo4jServerError("the disposable Neo4j is not started")
        return self._uri

    @property
    def marker_path(self) -> Path | None:
        """The marker file (None before :meth:`start`)."""
        return self.root / MARKER_FILE if self.root is not None else None

    @property
    def driver(self) -> Any:
        """The ``neo4j.Driver`` to this database (no authentication), owned by this object
        and closed at :meth:`stop`: do not close it. For reads — :func:`kgbench.neo4j.executor.
        read_session`, a :class:`~kgbench.neo4j.QueryExecutor` (whose ``cypher_dialect``
        follows :attr:`version`) — and for :func:`kgbench.neo4j.server_info`. Writes go
        through :meth:`run_batch` / :meth:`run_rolled_back` only, which roll back.

        Raises:
            WriteRefusedError: the database is not running.
        """
        if self._driver is None:
            raise WriteRefusedError("the disposable database is not running")
        return self._driver

    def running(self) -> bool:
        """True while the server started by this object is alive."""
        return self.server is not None and bool(self.server.running())

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> DisposableNeo4j:
        """Create the directory and the marker, start the server, register it for
        :func:`require_disposable` and load the graph given at construction; return self.

        Raises :class:`kgbench.neo4j.server.Neo4jServerError` when the server does not start,
        and the loader's errors (:class:`~kgbench.neo4j.loader.GraphValidationError`, …)."""
        from kgbench.neo4j.server import LocalNeo4j

        if self.running():
            return self
        if self._requested_dir is None:
            self.root = Path(tempfile.mkdtemp(prefix="kgbench-disposable-"))
        else:
            p = self._requested_dir
            if p.exists() and (not p.is_dir() or any(p.iterdir())):
                raise InputError(
                    f"{p}: the directory of a disposable database must not exist or be empty"
                )
            p.mkdir(parents=True, exist_ok=True)
            self.root = p.resolve()
        self._write_marker(None)
        try:
            self.server = LocalNeo4j(
                data_dir=self.root / "neo4j",
                heap=self.heap,
                pagecache=self.pagecache,
                extra_settings=dict(self.extra_settings),
                start_timeout_s=self.start_timeout_s,
                version=self.version,
            )
            self.server.start()
            self._uri = self.server.uri
            self._write_marker(self._uri)
            self._driver = self.server.driver()
            _LIVE[self._uri] = self
            if self._graph is not None:
                graph, self._graph = self._graph, None
                self.load(graph)
        except BaseException:
            self.stop()
            raise
        return self

    def _write_marker(self, uri: str | None) -> None:
        assert self.root is not None
        marker = {
            "kgbench": MARKER_KIND,
            "token": self._token,
            "pid": os.getpid(),
            "uri": uri,
            "note": "a disposable database kgbench created; it is deleted at stop",
        }
        (self.root / MARKER_FILE).write_text(json.dumps(marker) + "\n", encoding="utf-8")

    def _integrity_problem(self) -> str | None:
        """Why this instance may not be written to, or None (see :func:`require_disposable`)."""
        if self._uri is None or not self.running():
            return "the disposable database is not running"
        if _LIVE.get(self._uri) is not self:
            return "the disposable database is not registered in this process"
        path = self.marker_path
        try:
            assert path is not None
            marker = json.loads(path.read_text(encoding="utf-8"))
        except (AssertionError, OSError, ValueError):
            return f"its marker file {path} is missing or unreadable"
        if not isinstance(marker, dict) or marker.get("kgbench") != MARKER_KIND:
            return f"its marker file {path} is not a kgbench disposable-database marker"
        if marker.get("token") != self._token or marker.get("pid") != os.getpid():
            return f"its marker file {path} belongs to another disposable database or process"
        if marker.get("uri") != self._uri:
            return f"its marker file {path} names {marker.get('uri')!r}, not {self._uri}"
        return None

    def load(self, graph: Mapping[str, Any] | str | os.PathLike[str]) -> Any:
        """Load the clean graph (once); return the loader's
        :class:`~kgbench.neo4j.loader.LoadReport`.

        Raises:
            WriteRefusedError: the guard failed (not running, marker gone).
            InputError: a graph is already loaded (a disposable database is loaded once).
            GraphValidationError / LoadVerificationError: from
                :func:`kgbench.neo4j.loader.load_graph`.
        """
        from kgbench.neo4j.loader import load_graph

        require_disposable(self)
        if self.loaded_counts is not None:
            raise InputError(
                f"the disposable database at {self._uri} already holds a graph "
                f"({self.loaded_from}); it is loaded once"
            )
        report = load_graph(graph, self._driver, progress=False)
        self.loaded_from = "graph dict" if isinstance(graph, Mapping) else str(graph)
        self.loaded_counts = self.counts()
        return report

    def require_graph(self, graph: Mapping[str, Any]) -> DisposableNeo4j:
        """Check that this running database was loaded with ``graph`` (a graph dict, SPEC.md
        §2): its node and relationship counts after the load equal the graph's entity and
        relation counts; return self.

        Raises:
            WriteRefusedError: the guard failed (not running, marker gone).
            InputError: it holds another graph (both counts named), or none.
        """
        require_disposable(self)
        want = {
            "nodes": len(graph.get("entities") or []),
            "relationships": len(graph.get("relations") or []),
        }
        if self.loaded_counts != want:
            raise InputError(
                f"the disposable database at {self._uri} holds {self.loaded_counts}, not the "
                f"graph's {want}: load the same clean graph (DisposableNeo4j(graph))"
            )
        return self

    def stop(self) -> None:
        """Unregister, stop the server and (unless ``keep``) remove the directory. Calling it
        twice is harmless."""
        if self._uri is not None and _LIVE.get(self._uri) is self:
            del _LIVE[self._uri]
        if self._driver is not None:
            try:
                self._driver.close()
            finally:
                self._driver = None
        if self.server is not None:
            try:
                self.server.stop()
            finally:
                self.server = None
        self._uri = None
        root = self.root
        if root is not None and not self.keep and (root / MARKER_FILE).is_file():
            shutil.rmtree(root, ignore_errors=True)
            self.root = None

    def __repr__(self) -> str:
        where = self._uri or "stopped"
        return f"DisposableNeo4j(root={str(self.root)!r}, {where})"

    # -- reads ----------------------------------------------------------------------------
    def read(self, query: str, params: Mapping[str, Any] | None = None) -> Any:
        """Run a read-only query (READ access mode, its own transaction) and return its
        normalised answer (:func:`kgbench.evaluate.ngdbench.answer_from_rows`). Raises the
        driver's errors; a write is refused by the server's READ mode."""
        return _answer(*self.read_rows(query, params))

    def read_rows(
        self, query: str, params: Mapping[str, Any] | None = None
    ) -> tuple[list[str], list[list[Any]]]:
        """Run a read-only query (READ access mode, its own transaction) with ``params`` and
        return ``(columns, rows)``: the column names and the rows as lists of raw driver
        values (``neo4j.graph.Node``, ``neo4j.time.Date``, ...), in the server's order.

        Raises:
            WriteRefusedError: the database is not running.
            neo4j.exceptions.Neo4jError: the driver's errors; a write is refused by the
                server's READ mode.
        """
        from kgbench.neo4j.executor import read_session

        with read_session(self.driver, None) as session:
            result = session.run(query, dict(params or {}))
            keys = list(result.keys())
            rows = [list(r.values()) for r in result]
        return keys, rows

    def counts(self) -> dict[str, int]:
        """``{"nodes": n, "relationships": m}`` in the database now (count store, O(1))."""
        nodes = self.read("MATCH (n) RETURN count(n) AS c")
        rels = self.read("MATCH ()-[r]->() RETURN count(r) AS c")
        return {"nodes": int(nodes), "relationships": int(rels)}

    # -- batches --------------------------------------------------------------------------
    def run_batch(
        self,
        operate_queries: Sequence[str],
        valid_queries: Sequence[str],
        *,
        initial_query: str | None = None,
        timeout_s: float | None = DEFAULT_TIMEOUT_S,
        check_merge_idempotence: bool = False,
        verify_rollback: bool = True,
    ) -> BatchRun:
        """Run one management batch in ONE explicit transaction, then roll it back (spec
        ngdbench.md §4 "Gold", §7 "Safe writes").

        Order: ``initial_query`` (validation 0, if given), then for i = 1..K
        ``operate_queries[i-1]`` and ``valid_queries[i-1]``; the validations see the
        transaction's own writes. The transaction is rolled back in every case, so the
        database is unchanged afterwards.

        Args:
            operate_queries: op 1..K (Cypher write queries).
            valid_queries: validation 1..K (read-only Cypher); step i pairs op i with
                validation i. A validation with a write clause fails its step (refused,
                not sent); so does an op with ``LOAD CSV``.
            initial_query: validation 0, run before op 1 (None: no initial state).
            timeout_s: timeout of the whole transaction in seconds (None: the server's).
            check_merge_idempotence: run every op that contains MERGE a second time right
                after the first and record the second run's counters as ``rerun_counters``
                (spec §4: a MERGE re-run changes nothing).
            verify_rollback: after the rollback, compare the node and relationship counts
                with those after the load and raise if they differ.

        Returns:
            A :class:`BatchRun`: per step its status, answer, counters and error. A failure
            at step i (op or validation raising) makes step i ``failed`` and the later
            steps ``not_run``; a failed initial validation makes every step ``not_run``.

        Raises:
            WriteRefusedError: this instance fails :func:`require_disposable` (nothing sent).
            InputError: the two query lists differ in length or hold a non-string.
            KgbenchError: the counts differ after the rollback (``verify_rollback``).
        """
        require_disposable(self)
        ops, valids = list(operate_queries), list(valid_queries)
        if len(ops) != len(valids):
            raise InputError(
                f"a batch pairs op i with validation i: {len(ops)} ops but {len(valids)} "
                "validations"
            )
        for what, queries in (("operate", ops), ("validation", valids)):
            for i, q in enumerate(queries, start=1):
                if not isinstance(q, str):
                    raise InputError(f"step {i}: the {what} query must be a string, got {q!r}")
        if initial_query is not None and not isinstance(initial_query, str):
            raise InputError(f"the initial validation must be a string, got {initial_query!r}")
        initial = (
            StepRun(step=0, operate_query=None, valid_query=initial_query)
            if initial_query is not None
            else None
        )
        steps = [
            StepRun(step=i, operate_query=op, valid_query=v)
            for i, (op, v) in enumerate(zip(ops, valids, strict=True), start=1)
        ]
        import neo4j

        with self._driver.session(
            default_access_mode=neo4j.WRITE_ACCESS, notifications_min_severity="OFF"
        ) as session:
            tx = session.begin_transaction(timeout=timeout_s)
            try:
                ok = True
                if initial is not None:
                    ok = self._validate(tx, initial)
                for s in steps:
                    if not ok:
                        break
                    ok = self._operate(tx, s, check_merge_idempotence) and self._validate(tx, s)
            finally:
                _rollback(tx)
        if verify_rollback and self.loaded_counts is not None:
            after = self.counts()
            if after != self.loaded_counts:
                raise KgbenchError(
                    f"the disposable database at {self._uri} changed although the batch was "
                    f"rolled back: {self.loaded_counts} after the load, {after} now"
                )
        return BatchRun(initial, steps)

    def run_rolled_back(
        self,
        ops: Sequence[tuple[str, Mapping[str, Any]]],
        queries: Sequence[str],
        *,
        timeout_s: float | None = DEFAULT_TIMEOUT_S,
    ) -> list[tuple[list[str], list[list[Any]]] | BaseException]:
        """Apply the write statements ``ops`` (``(query, parameters)`` pairs, in order) in ONE
        explicit transaction, run each read query of ``queries`` inside it (seeing the writes),
        then roll the transaction back (test-suite EX's neighbour graphs, issue 31).

        Returns, per query, ``(columns, rows)`` of raw driver values, or the exception it
        raised. A failed query ends the transaction on the server: the ops are applied again
        in a fresh transaction for the queries after it. A query with a write clause is never
        sent (its entry is an :class:`InputError`).

        Raises:
            WriteRefusedError: this instance fails :func:`require_disposable` (nothing sent).
            Exception: an op failed (the driver's error; the transaction is rolled back).
        """
        require_disposable(self)
        import neo4j

        out: list[tuple[list[str], list[list[Any]]] | BaseException] = []
        todo = list(queries)
        with self._driver.session(
            default_access_mode=neo4j.WRITE_ACCESS, notifications_min_severity="OFF"
        ) as session:
            while todo:
                tx = session.begin_transaction(timeout=timeout_s)
                try:
                    for q, params in ops:
                        tx.run(q, dict(params)).consume()
                    while todo:
                        q = todo.pop(0)
                        writes = _write_clauses(q)
                        if writes:
                            out.append(
                                InputError(f"a write query is never run ({', '.join(writes)})")
                            )
                            continue
                        try:
                            result = tx.run(q)
                            keys = list(result.keys())
                            rows = [list(r.values()) for r in result]
                        except Exception as exc:
                            out.append(exc)
                            break
                        out.append((keys, rows))
                finally:
                    _rollback(tx)
        return out

    def _operate(self, tx: Any, s: StepRun, rerun: bool) -> bool:
        assert s.operate_query is not None
        s.write_clauses = _write_clauses(s.operate_query)
        refused = sorted(REFUSED_CLAUSES.intersection(s.write_clauses))
        if refused:
            return _fail(
                s,
                "operate",
                "refused",
                f"{', '.join(refused)} is not allowed in a management op (not sent)",
            )
        if not s.operate_query.strip():
            return _fail(s, "operate", "client", "empty operate query")
        try:
            s.counters = _consume(tx, s.operate_query)
            if rerun and any("MERGE" in c for c in s.write_clauses):
                s.rerun_counters = _consume(tx, s.operate_query)
        except Exception as exc:
            return _fail_exc(s, "operate", exc)
        return True

    def _validate(self, tx: Any, s: StepRun) -> bool:
        q = s.valid_query
        if q is None or not q.strip():
            return _fail(s, "validation", "client", "empty validation query")
        writes = _write_clauses(q)
        if writes:
            return _fail(
                s,
                "validation",
                "write",
                f"the validation query writes ({', '.join(writes)}); a validation must be "
                "read-only (not sent)",
            )
        try:
            result = tx.run(q)
            keys = list(result.keys())
            rows = [list(r.values()) for r in result]
            result.consume()
        except Exception as exc:
            return _fail_exc(s, "validation", exc)
        try:
            s.answer = _answer(keys, rows)
        except (TypeError, ValueError) as exc:  # not expected: plain values only
            return _fail(s, "validation", "client", f"answer not representable: {exc}")
        s.status = "ok"
        return True


#: Significant digits floats in answers are rounded to (:func:`round_float`).
FLOAT_DIGITS = 15


def round_float(x: float) -> float:
    """``x`` rounded to :data:`FLOAT_DIGITS` significant digits. An aggregate over floats
    (``sum``, ``avg``) depends in its last bits on the order Neo4j scans the rows in, which the
    transaction's own writes can change; rounding makes answers reproducible (gold and
    replayed predictions are rounded alike). Non-finite values are kept."""
    if x != x or x in (float("inf"), float("-inf")):
        return x
    return float(f"{x:.{FLOAT_DIGITS}g}")


def _rounded(v: Any) -> Any:
    if isinstance(v, float):
        return round_float(v)
    if isinstance(v, list):
        return [_rounded(x) for x in v]
    if isinstance(v, dict):
        return {k: _rounded(x) for k, x in v.items()}
    return v


def _answer(keys: Sequence[str], rows: Sequence[Sequence[Any]]) -> Any:
    """Rows of driver values as a normalised answer, as scoring normalises them
    (:func:`kgbench.query.ngdbench_answer.answer_from_rows`), floats rounded
    (:func:`round_float`)."""
    from kgbench.query.ngdbench_answer import answer_from_rows, neo4j_value

    return answer_from_rows(list(keys), [[_rounded(neo4j_value(v)) for v in row] for row in rows])


def _write_clauses(query: str) -> list[str]:
    from kgbench.neo4j.executor import write_clauses_of

    try:
        return write_clauses_of(query)
    except Exception:  # the parser gave up: the server reports the error
        return []


def _consume(tx: Any, query: str) -> dict[str, int]:
    result = tx.run(query)
    return counters_of(result.consume().counters)


def _fail(s: StepRun, where: str, error_class: str, message: str) -> bool:
    s.status, s.failed_in, s.error_class, s.error = "failed", where, error_class, message
    s.answer = None
    return False


def _fail_exc(s: StepRun, where: str, exc: BaseException) -> bool:
    from kgbench.neo4j.executor import classify

    message = str(getattr(exc, "message", None) or exc).strip().splitlines()
    return _fail(s, where, classify(exc), message[0] if message else type(exc).__name__)


def _rollback(tx: Any) -> None:
    """Roll the transaction back (never commit): a failed transaction is already rolled back
    by the server; closing it (which rolls back an open one) is then enough."""
    with contextlib.suppress(Exception):
        if not tx.closed():
            tx.rollback()
    with contextlib.suppress(Exception):
        tx.close()
