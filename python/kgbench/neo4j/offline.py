"""Offline bulk import of a CypherBench graph into the local Neo4j server's database.

The standard Neo4j route for big loads: the graph (SPEC.md §2) is written as the import tool's
CSV files (one file per entity label and per relation key, header on the first line, typed
columns: ``long``, ``double``, ``boolean``, ``date``, ``string[]``, ``long[]``, ``double[]``,
``date[]``) and Neo4j's own importer (``neo4j-admin database import full``, from the
``org.neo4j:neo4j-import-tool`` artifact, a dependency of the launcher in ``neo4j-local/``)
writes the store files of the stopped server's database directly. The server is then started
on the data directory, the loader's constraints and indexes are created, and the counts are
verified — the same database contents as :func:`kgbench.neo4j.load_graph` gives (tests compare
both on every node and relationship, with property types).

The import tool's CSV syntax has no empty list (it drops empty array fields, and ``[""]`` reads
as empty), while the Bolt loader stores ``[]`` for e.g. an entity without aliases. The import
therefore runs through the launcher's ``org.kgbench.neo4j.KgbenchImport``: the stock
``import full`` command whose input is wrapped so that one extra string-array column
(:data:`EMPTY_LISTS_COLUMN`, not stored) names the properties to store as ``[]`` or ``[""]``.
Source of the import tool's CSV format: Neo4j Operations Manual 5, "Import" (header format,
array delimiter, ``--overwrite-destination``).

Only for the project's local server (:class:`kgbench.neo4j.LocalNeo4j`, a data directory it
created, or an empty / new directory), while no server runs on it: the import replaces the
database, so an existing database is only replaced with ``wipe=True``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from kgbench._core import neo4j as _core_neo4j
from kgbench.neo4j.loader import (
    GraphValidationError,
    LoadReport,
    create_schema,
    graph_json_bytes,
    graph_json_path,
    read_graph_file,
    verify_counts,
)
from kgbench.neo4j.server import (
    LOG_FILE,
    LocalNeo4j,
    Neo4jServerError,
    background_status,
    ensure_built,
    launcher_home,
    require_java,
)

#: The launcher's import command: ``neo4j-admin database import full`` keeping empty lists.
IMPORT_CLASS = "org.kgbench.neo4j.KgbenchImport"
#: Import-tool column types per SPEC.md §2 datatype.
CSV_TYPES: dict[str, str] = dict(_core_neo4j.CSV_TYPES)
#: Array delimiters tried in order; the first one no list element contains is used.
ARRAY_DELIMITERS: tuple[str, ...] = tuple(_core_neo4j.ARRAY_DELIMITERS)
#: Column naming an entity's ``[]`` / ``[""]`` lists, read by ``KgbenchImport`` (not stored).
EMPTY_LISTS_COLUMN: str = _core_neo4j.EMPTY_LISTS_COLUMN


class OfflineImportError(Neo4jServerError):
    """The import tool failed, or the data directory cannot be imported into."""


def _dir_in_use(data_dir: Path) -> str | None:
    """Why ``data_dir`` is in use by a running server, or None."""
    state = background_status(data_dir)
    if state is not None:
        return f"a local Neo4j server (pid {state['pid']}, {state['uri']}) runs on it"
    # Neo4j holds a POSIX lock on these files while a database (or the DBMS) is open.
    databases = data_dir / "data" / "databases"
    locks = [databases / "store_lock", *sorted(databases.glob("*/database_lock"))]
    for lock in locks:
        if not lock.is_file():
            continue
        if sys.platform == "win32":
            # Windows locks are mandatory: a file a running Neo4j holds cannot be opened
            try:
                with open(lock, "r+b"):
                    pass
            except OSError:
                return f"a Neo4j process holds {lock}"
            continue
        import fcntl

        try:
            with open(lock, "r+b") as f:
                fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.lockf(f, fcntl.LOCK_UN)
        except OSError:
            return f"a Neo4j process holds {lock}"
    return None


def check_data_dir(data_dir: str | os.PathLike[str], database: str, wipe: bool) -> Path:
    """Check that ``data_dir`` can receive an offline import of ``database``; return it resolved.

    Raises :class:`OfflineImportError` when a server runs on it, when it is not a data directory
    of the local server (it must be new, empty, or hold ``kgbench-neo4j.log``), or when the
    database already exists there and ``wipe`` is False.
    """
    path = Path(data_dir).resolve()
    if path.exists() and not path.is_dir():
        raise OfflineImportError(f"{path}: not a directory")
    if path.is_dir() and any(path.iterdir()) and not (path / LOG_FILE).is_file():
        hint = ""
        if (path / "bin" / "neo4j-admin").exists() or (path / "conf" / "neo4j.conf").exists():
            hint = " (it looks like a Neo4j installation: use its own bin/neo4j-admin)"
        raise OfflineImportError(
            f"{path} is not a data directory of kgbench's local Neo4j (no {LOG_FILE}){hint}; "
            "the offline import only writes into a local server's directory or a new/empty one"
        )
    if path.is_dir():
        why = _dir_in_use(path)
        if why is not None:
            raise OfflineImportError(
                f"{path} is in use: {why}; the offline import needs the server stopped "
                f"(kgbench neo4j stop --data {path}), or load through Bolt instead"
            )
    store = path / "data" / "databases" / database
    if store.is_dir() and any(store.iterdir()) and not wipe:
        raise OfflineImportError(
            f"{path}: database {database!r} already exists and the offline import replaces it; "
            "pass wipe=True (--wipe) to replace it"
        )
    return path


# ---------------------------------------------------------------------------------------------
# CSV files
# ---------------------------------------------------------------------------------------------
#: How nodes are identified in the CSV files: ``"string"`` (``eid:ID``, the import tool's
#: default) or ``"actual"`` (``:ID`` = the entity's index in the graph, ``--id-type=ACTUAL``).
ID_TYPES = ("string", "actual")


def _graph_input(graph: Mapping[str, Any] | str | os.PathLike[str]) -> tuple[bytes | str, str]:
    """What the native writer reads: a ``graph.json`` path (never read into Python objects) or
    the JSON text of a dict / Parquet pair; and the graph's source for messages."""
    if isinstance(graph, Mapping):
        return graph_json_bytes(graph), "graph"
    path = graph_json_path(graph)
    if path is None:  # the Parquet pair of `kgbench convert`
        return graph_json_bytes(read_graph_file(graph)), str(graph)
    return str(path), str(graph)


def _write_csv_checked(
    graph: bytes | str, source: str, out_dir: str | os.PathLike[str], id_type: str
) -> Any:
    if id_type not in ID_TYPES:
        raise ValueError(f"id_type must be one of {ID_TYPES}, not {id_type!r}")
    try:
        check = _core_neo4j.write_import_csv(graph, os.fspath(out_dir), id_type=id_type)
    except _core_neo4j.ArrayDelimiterError as exc:
        raise OfflineImportError(str(exc)) from exc
    if check.total:
        raise GraphValidationError(source, list(check.problems), check.total)
    return check


def write_import_csv(
    graph: Mapping[str, Any] | str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    id_type: str = "string",
) -> list[str]:
    """Validate a graph (dict, ``graph.json`` path, or converter output directory) and write the
    import tool's CSV files into ``out_dir``; return the import tool's arguments.

    Arguments: ``--nodes=LABEL=FILE``, ``--relationships=TYPE=FILE``, ``--array-delimiter=...``
    (the first of :data:`ARRAY_DELIMITERS` no string list element contains),
    ``--multiline-fields=true`` when some string has a line break, ``--id-type=ACTUAL`` with
    ``id_type="actual"``. Node files: ``eid:ID,name,aliases:string[],description,
    provenance:string[],<prop>:<type>...`` (``:ID,eid,...`` with actual node ids); relationship
    files: ``:START_ID,:END_ID,rid,provenance:string[],<prop>:<type>...``; both end with the
    :data:`EMPTY_LISTS_COLUMN` naming the properties whose value is ``[]`` or ``[""]``. A null
    value is an empty unquoted field (no property); strings are always quoted; floats as
    Python's ``repr``. Written natively and in parallel (rust/kgbench-core/src/neo4j/csv.rs),
    byte-identical for any thread count.

    Raises :class:`GraphValidationError` (nothing written) and :class:`OfflineImportError` when
    no array delimiter is free.
    """
    data, source = _graph_input(graph)
    return list(_write_csv_checked(data, source, out_dir, id_type).tool_args)


# ---------------------------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------------------------
def import_tool_options(
    database: str,
    tool_args: list[str],
    work_dir: Path,
    *,
    max_off_heap: str = "2g",
    threads: int | None = None,
) -> list[str]:
    """The full ``import full`` argument list: ``tool_args`` (input files and CSV options from
    :func:`write_import_csv`), ``--overwrite-destination``, ``--threads`` (default: the CPU
    count), ``--max-off-heap-memory``, a report file ``work_dir/import.report``, and the
    database name last."""
    return [
        *tool_args,
        "--overwrite-destination=true",
        f"--threads={threads or os.cpu_count() or 2}",
        f"--max-off-heap-memory={max_off_heap}",
        f"--report-file={work_dir / 'import.report'}",
        database,
    ]


def _bad_entries(work_dir: Path) -> str:
    report = work_dir / "import.report"
    bad = report.read_text(encoding="utf-8", errors="replace")[:2000] if report.is_file() else ""
    return f"\n--- {report} ---\n{bad}" if bad else ""


def _remove_store(data_dir: Path, database: str) -> None:
    """Delete the store and transaction logs of ``database`` (a failed import's leftovers)."""
    for part in ("databases", "transactions"):
        shutil.rmtree(data_dir / "data" / part / database, ignore_errors=True)


def run_import_tool(
    data_dir: Path,
    database: str,
    tool_args: list[str],
    work_dir: Path,
    *,
    heap: str = "1g",
    max_off_heap: str = "2g",
    threads: int | None = None,
) -> str:
    """Run ``neo4j-admin database import full`` (``--overwrite-destination``) in its own JVM with
    ``NEO4J_HOME=data_dir``; return its output. Raises :class:`OfflineImportError` with the
    output tail when it fails. (:func:`import_graph` runs the same import inside the server's
    JVM instead, see :class:`~kgbench.neo4j.LocalNeo4j` ``import_args``.)"""
    from kgbench.neo4j.server import class_archive_flags, launcher_classpath

    home = ensure_built(launcher_home())
    java = require_java()
    conf_dir = work_dir / "conf"
    conf_dir.mkdir(exist_ok=True)
    (conf_dir / "neo4j.conf").write_text("", encoding="utf-8")
    cmd = [java, f"-Xmx{heap}", "-XX:+UseG1GC", "-Dfile.encoding=UTF-8"]
    cmd += [*class_archive_flags(home), "-cp", launcher_classpath(home)]
    cmd += [IMPORT_CLASS, str(data_dir), str(conf_dir)]
    cmd += import_tool_options(
        database, tool_args, work_dir, max_off_heap=max_off_heap, threads=threads
    )
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        tail = "\n".join(line for line in output.splitlines() if line.strip())
        tail = "\n".join(tail.splitlines()[-25:])
        raise OfflineImportError(
            f"the Neo4j import tool failed (exit {proc.returncode}) on {data_dir}:\n{tail}"
            + _bad_entries(work_dir)
        )
    return output


def import_graph(
    graph: Mapping[str, Any] | str | os.PathLike[str],
    data_dir: str | os.PathLike[str],
    *,
    database: str = "neo4j",
    wipe: bool = False,
    heap: str | None = None,
    pagecache: str | None = None,
    threads: int | None = None,
    verify: bool = True,
    csv_dir: str | os.PathLike[str] | None = None,
    log: Callable[[str], None] | None = None,
    id_type: str = "actual",
    version: str | None = None,
) -> LoadReport:
    """Bulk-import a graph (SPEC.md §2) into the local server's database on ``data_dir``.

    The server must be stopped; the database is replaced (an existing one only with
    ``wipe=True``). Steps: validate (nothing is written when invalid), write the import tool's
    CSV files (into ``csv_dir`` if given and kept, else a temporary directory), run
    ``neo4j-admin database import full``, start :class:`LocalNeo4j` on ``data_dir`` (``heap`` /
    ``pagecache`` as there), create the loader's constraints and indexes, set the empty lists,
    verify the counts per label / relationship type, stop the server.

    The result equals :func:`kgbench.neo4j.load_graph` with ``wipe=True`` on the same graph.
    ``node_seconds`` and ``relationship_seconds`` of the report are both the whole wall time of
    the call, from reading the graph to verified counts (the import tool does nodes and
    relationships in one run); ``extra`` has the phase times in seconds (``csv_s``: reading,
    validation and CSV files, done natively in one call: a ``graph.json`` path is read by Rust,
    never into Python objects; ``native``: its parts; ``import_tool_s`` as timed by the
    launcher; ``server_start_s`` the rest of the JVM's start: JVM and DBMS start, Bolt ready).
    The import tool runs inside the server's JVM (one JVM start; the DBMS start reuses its
    classes and compiled code). ``id_type`` (:data:`ID_TYPES`) chooses the CSV node ids:
    ``"actual"`` (default; the import tool then needs no id index: 32 s instead of 40 s for 1M
    nodes / 2M relationships, BENCHMARKS.md) or ``"string"``; both give the same database.
    ``version`` is the Neo4j release whose import tool and server run, as ``kgbench neo4j start
    --version`` (:func:`kgbench.neo4j.versions.resolve_version`: ``"5.26"``, ``"2026.08.1"``,
    ``"latest"``, ...; an unknown one raises
    :class:`~kgbench.neo4j.versions.UnknownNeo4jVersionError` before anything is written); None:
    the release ``data_dir`` was created with, else the default 5.26 LTS. When
    the import, the server start or the schema creation fails, the server is stopped and the
    partial database removed. Raises :class:`GraphValidationError`,
    :class:`OfflineImportError` (data directory in use / not a local server's / a graph
    without entities / import failed)
    and :class:`~kgbench.neo4j.LoadVerificationError`.
    """
    from kgbench.neo4j.versions import resolve_version

    t0 = time.perf_counter()
    release = resolve_version(version) if version is not None else None
    data, source = _graph_input(graph)
    path = check_data_dir(data_dir, database, wipe)

    phases: dict[str, float] = {}
    with contextlib.ExitStack() as stack:
        if csv_dir is None:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kgbench-import-")))
        else:
            work = Path(csv_dir)
            work.mkdir(parents=True, exist_ok=True)
        # validation (nothing is written to data_dir when invalid) and the CSV files, natively
        check = _write_csv_checked(data, source, work, id_type)
        if check.entities == 0:  # the import tool needs a node file: its usage text otherwise
            raise OfflineImportError(
                f"{source}: the graph has no entities; nothing to import offline (an empty "
                "database needs no import: `kgbench load` over Bolt gives one)"
            )
        tool_args = list(check.tool_args)
        ent_props, rel_props = dict(check.entity_properties), dict(check.relation_properties)
        path.mkdir(parents=True, exist_ok=True)
        with open(path / LOG_FILE, "a", encoding="utf-8") as f:  # marks the directory as ours
            f.write(f"kgbench offline import of {source} into database {database!r}\n")
        t1 = time.perf_counter()
        phases["csv_s"] = t1 - t0  # reading, validation and CSV files
        server = _import_and_start(
            path, database, tool_args, work, heap, pagecache, threads, release
        )
        t3 = time.perf_counter()
        # the launcher times its import (from before the import tool's start to its end)
        phases["import_tool_s"] = server.import_seconds or 0.0
        phases["server_start_s"] = t3 - t1 - phases["import_tool_s"]
    from kgbench.neo4j.loader import LoadVerificationError

    try:
        with (
            server.driver() as driver,
            driver.session(database=database, notifications_min_severity="OFF") as session,
        ):
            create_schema(session, ent_props)
            t5 = time.perf_counter()
            phases["constraints_s"] = t5 - t3
            got_nodes, got_rels = verify_counts(
                session,
                check.nodes_by_label,
                check.relationships_by_type,
                ent_props,
                rel_props,
                verify,
            )
            t6 = time.perf_counter()
            phases["verify_s"] = t6 - t5
    except LoadVerificationError:  # counts differ: the database stays for inspection
        server.stop()
        raise
    except BaseException:
        server.stop()
        _remove_store(path, database)  # no database without its constraints that looks complete
        raise
    server.stop()
    total = time.perf_counter() - t0
    phases["stop_s"] = t0 + total - t6
    if log is not None:
        log(
            f"imported {check.entities} nodes and {check.relations} relationships "
            f"offline in {total:.2f} s"
        )
    return LoadReport(
        nodes_by_label=got_nodes,
        relationships_by_type=got_rels,
        nodes=check.entities,
        relationships=check.relations,
        node_seconds=total,
        relationship_seconds=total,
        wiped=True,
        extra={**phases, "total_s": total, "native": dict(check.timings)},
    )


def _import_and_start(
    path: Path,
    database: str,
    tool_args: list[str],
    work: Path,
    heap: str | None,
    pagecache: str | None,
    threads: int | None,
    version: str | None = None,
) -> LocalNeo4j:
    """Start :class:`LocalNeo4j` (Neo4j release ``version``, None: the data directory's, else the
    default) on ``path`` with the import tool run first in its JVM; return
    the running server. Raises :class:`OfflineImportError` (output tail, bad entries) when the
    import fails; on any failure no server runs and the partial database is removed."""
    from kgbench.neo4j.server import ImportToolError

    server = LocalNeo4j(
        data_dir=path, heap=heap, pagecache=pagecache, import_dir=work, version=version
    )
    server.import_args = import_tool_options(
        database, tool_args, work, max_off_heap=server.pagecache, threads=threads
    )
    try:
        server.start()
    except ImportToolError as exc:
        _remove_store(path, database)
        raise OfflineImportError(f"{exc}{_bad_entries(work)}") from exc
    except BaseException:
        _remove_store(path, database)
        raise
    return server
