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
import fcntl
import os
import shutil
import subprocess
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from kgbench.neo4j.loader import (
    LoadReport,
    _create_schema,
    _verify_counts,
    declared_properties,
    read_valid_graph,
)
from kgbench.neo4j.server import (
    LOG_FILE,
    LocalNeo4j,
    Neo4jServerError,
    _require_java,
    background_status,
    ensure_built,
    launcher_home,
)

#: The launcher's import command: ``neo4j-admin database import full`` keeping empty lists.
IMPORT_CLASS = "org.kgbench.neo4j.KgbenchImport"
#: Import-tool column types per SPEC.md §2 datatype.
CSV_TYPES = {
    "str": "string",
    "int": "long",
    "float": "double",
    "bool": "boolean",
    "date": "date",
    "list[str]": "string[]",
    "list[int]": "long[]",
    "list[float]": "double[]",
    "list[date]": "date[]",
}
#: Array delimiters tried in order; the first one no list element contains is used.
ARRAY_DELIMITERS = ("\x1f", "\x1e", "\x1d", "\x1c", ";", "|", "\t")
#: Column naming an entity's ``[]`` / ``[""]`` lists, read by ``KgbenchImport`` (not stored).
EMPTY_LISTS_COLUMN = "kgbench-empty-lists"


class OfflineImportError(Neo4jServerError):
    """The import tool failed, or the data directory cannot be imported into."""


class _Null:
    """A CSV field written as nothing at all (``,,``): the import tool stores no property.

    ``csv`` quotes every non-numeric field under ``QUOTE_NONNUMERIC`` (also ``None`` on Python
    3.11); this object counts as numeric (``__index__``) and prints as the empty string.
    """

    __slots__ = ()

    def __index__(self) -> int:  # pragma: no cover - only its presence matters to csv
        return 0

    def __str__(self) -> str:
        return ""


NULL = _Null()


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
def _pick_array_delimiter(graph: Mapping[str, Any], list_keys: Iterable[str]) -> str:
    """The first of :data:`ARRAY_DELIMITERS` that occurs in no string list element."""
    used: set[str] = set()
    candidates = set(ARRAY_DELIMITERS)
    keys = tuple(list_keys)
    for item in (*graph["entities"], *graph["relations"]):
        values: list[Any] = [item.get("aliases"), item.get("provenance")]
        props = item.get("properties") or {}
        values += [props.get(k) for k in keys]
        for val in values:
            if isinstance(val, list):
                for v in val:
                    if isinstance(v, str):
                        used.update(c for c in candidates if c in v)
        if len(used) == len(candidates):
            break
    for delim in ARRAY_DELIMITERS:
        if delim not in used:
            return delim
    raise OfflineImportError(
        "every array delimiter candidate occurs in some list element; load through Bolt instead"
    )


def _has_newline(graph: Mapping[str, Any]) -> bool:
    for item in (*graph["entities"], *graph["relations"]):
        for val in item.values():
            if isinstance(val, str) and ("\n" in val or "\r" in val):
                return True
            if isinstance(val, list) and any(
                isinstance(v, str) and ("\n" in v or "\r" in v) for v in val
            ):
                return True
            if isinstance(val, dict):
                for v in val.values():
                    if isinstance(v, str) and ("\n" in v or "\r" in v):
                        return True
                    if isinstance(v, list) and any(
                        isinstance(x, str) and ("\n" in x or "\r" in x) for x in v
                    ):
                        return True
    return False


def _field(value: Any, dtype: str, delim: str) -> Any:
    """One CSV field for a non-null value of SPEC datatype ``dtype``."""
    if dtype.startswith("list["):
        if not value or value == [""]:
            return NULL  # not expressible in CSV: named in the EMPTY_LISTS_COLUMN instead
        if dtype == "list[float]":
            return delim.join(repr(float(v)) for v in value)
        return delim.join(str(v) for v in value)
    if dtype == "bool":
        return "true" if value else "false"
    if dtype == "float":
        return float(value)
    return value


def _empty_list_entry(key: str, value: list[Any]) -> str | None:
    """The :data:`EMPTY_LISTS_COLUMN` entry for a list the CSV syntax cannot carry, or None."""
    if not value:
        return key
    if value == [""]:
        return key + "="
    return None


def _append_properties(
    row: list[Any],
    empty: list[str | None],
    props: Mapping[str, Any],
    declared: Mapping[str, str],
    names: list[str],
    lists: list[str],
    delim: str,
) -> None:
    """Append the declared property fields of one node or relationship row (``names`` in
    header order; ``NULL`` when absent), then its :data:`EMPTY_LISTS_COLUMN` field: the
    ``empty`` entries already collected plus every list property in ``lists`` whose value is
    ``[]`` or ``[""]``."""
    for k in names:
        v = props.get(k)
        row.append(NULL if v is None else _field(v, declared[k], delim))
    for k in lists:
        v = props.get(k)
        if v is not None and (not v or v == [""]):
            empty.append(_empty_list_entry(k, v))
    entries = [e for e in empty if e is not None]
    row.append(delim.join(entries) if entries else NULL)


def write_import_csv(
    graph: Mapping[str, Any],
    out_dir: str | os.PathLike[str],
    ent_props: dict[str, dict[str, str]],
    rel_props: dict[tuple[str, str, str], dict[str, str]],
) -> list[str]:
    """Write the import tool's CSV files for a validated ``graph`` into ``out_dir``.

    Returns the import tool's arguments (``--nodes=LABEL=FILE``, ``--relationships=TYPE=FILE``,
    ``--array-delimiter=...``, and ``--multiline-fields=true`` when some string has a line break).
    Node files: ``eid:ID,name,aliases:string[],description,provenance:string[],<prop>:<type>...``;
    relationship files: ``:START_ID,:END_ID,rid,provenance:string[],<prop>:<type>...``; both end
    with the :data:`EMPTY_LISTS_COLUMN` naming the properties whose value is ``[]`` or ``[""]``.
    A null value is an empty unquoted field (no property); strings are always quoted.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    list_keys = {
        k
        for props in (*ent_props.values(), *rel_props.values())
        for k, t in props.items()
        if t.startswith("list[")
    }
    delim = _pick_array_delimiter(graph, list_keys)
    args: list[str] = []
    marker = f"{EMPTY_LISTS_COLUMN}:string[]"

    by_label: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    eid_label: dict[str, str] = {}
    for ent in graph["entities"]:
        by_label[ent["label"]].append(ent)
        eid_label[ent["eid"]] = ent["label"]
    for n, label in enumerate(sorted(by_label)):
        declared = ent_props[label]
        names = sorted(declared)
        lists = [k for k in names if declared[k].startswith("list[")]
        path = out / f"nodes_{n}.csv"
        header = ["eid:ID", "name", "aliases:string[]", "description", "provenance:string[]"]
        header += [f"{k}:{CSV_TYPES[declared[k]]}" for k in names] + [marker]
        join = delim.join
        rows = []
        for ent in by_label[label]:
            aliases = ent.get("aliases") or []
            prov = ent.get("provenance") or []
            desc = ent.get("description")
            props = ent.get("properties") or {}
            row: list[Any] = [ent["eid"], ent["name"], join(aliases) or NULL]
            row.append(NULL if desc is None else desc)
            row.append(join(prov) or NULL)
            empty = []
            if not aliases or aliases == [""]:
                empty.append(_empty_list_entry("aliases", aliases))
            if not prov or prov == [""]:
                empty.append(_empty_list_entry("provenance", prov))
            _append_properties(row, empty, props, declared, names, lists, delim)
            rows.append(row)
        _write_csv(path, header, rows)
        args.append(f"--nodes={label}={path}")

    by_key: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for rel in graph["relations"]:
        by_key[(rel["label"], eid_label[rel["subj_id"]], eid_label[rel["obj_id"]])].append(rel)
    for n, key in enumerate(sorted(by_key)):
        declared = rel_props[key]
        names = sorted(declared)
        lists = [k for k in names if declared[k].startswith("list[")]
        path = out / f"relationships_{n}.csv"
        header = [":START_ID", ":END_ID", "rid", "provenance:string[]"]
        header += [f"{k}:{CSV_TYPES[declared[k]]}" for k in names] + [marker]
        join = delim.join
        rows = []
        for rel in by_key[key]:
            prov = rel.get("provenance") or []
            props = rel.get("properties") or {}
            row = [rel["subj_id"], rel["obj_id"], rel["rid"], join(prov) or NULL]
            empty = []
            if not prov or prov == [""]:
                empty.append(_empty_list_entry("provenance", prov))
            _append_properties(row, empty, props, declared, names, lists, delim)
            rows.append(row)
        _write_csv(path, header, rows)
        args.append(f"--relationships={key[0]}={path}")

    args.append(f"--array-delimiter=U+{ord(delim):04X}")
    if _has_newline(graph):
        args.append("--multiline-fields=true")
    return args


def _write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    import csv

    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


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
    java = _require_java()
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
) -> LoadReport:
    """Bulk-import a graph (SPEC.md §2) into the local server's database on ``data_dir``.

    The server must be stopped; the database is replaced (an existing one only with
    ``wipe=True``). Steps: validate (nothing is written when invalid), write the import tool's
    CSV files (into ``csv_dir`` if given and kept, else a temporary directory), run
    ``neo4j-admin database import full``, start :class:`LocalNeo4j` on ``data_dir`` (``heap`` /
    ``pagecache`` as there), create the loader's constraints and indexes, set the empty lists,
    verify the counts per label / relationship type, stop the server.

    The result equals :func:`kgbench.neo4j.load_graph` with ``wipe=True`` on the same graph.
    ``node_seconds`` and ``relationship_seconds`` of the report are both the whole wall time from
    CSV writing to verified counts (the import tool does nodes and relationships in one run);
    ``extra`` has the phase times in seconds (``import_tool_s`` as timed by the launcher,
    ``server_start_s`` the rest of the JVM's start: JVM and DBMS start, Bolt ready). The import
    tool runs inside the server's JVM (one JVM start; the DBMS start reuses its classes and
    compiled code). When the import, the server
    start or the schema creation fails, the server is stopped and the partial database removed.
    Raises :class:`GraphValidationError`,
    :class:`OfflineImportError` (data directory in use / not a local server's / import failed)
    and :class:`~kgbench.neo4j.LoadVerificationError`.
    """
    graph, source = read_valid_graph(graph)
    path = check_data_dir(data_dir, database, wipe)
    path.mkdir(parents=True, exist_ok=True)
    with open(path / LOG_FILE, "a", encoding="utf-8") as f:  # marks the directory as ours
        f.write(f"kgbench offline import of {source} into database {database!r}\n")
    ent_props, rel_props = declared_properties(graph)

    phases: dict[str, float] = {}
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if csv_dir is None:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kgbench-import-")))
        else:
            work = Path(csv_dir)
            work.mkdir(parents=True, exist_ok=True)
        tool_args = write_import_csv(graph, work, ent_props, rel_props)
        t1 = time.perf_counter()
        phases["csv_s"] = t1 - t0
        server = _import_and_start(path, database, tool_args, work, heap, pagecache, threads)
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
            _create_schema(session, ent_props)
            t5 = time.perf_counter()
            phases["constraints_s"] = t5 - t3
            got_nodes, got_rels = _verify_counts(session, graph, ent_props, rel_props, verify)
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
    if log is not None:
        log(
            f"imported {len(graph['entities'])} nodes and {len(graph['relations'])} relationships "
            f"offline in {total:.2f} s"
        )
    return LoadReport(
        nodes_by_label=got_nodes,
        relationships_by_type=got_rels,
        nodes=len(graph["entities"]),
        relationships=len(graph["relations"]),
        node_seconds=total,
        relationship_seconds=total,
        wiped=True,
        extra={**phases, "total_s": total},
    )


def _import_and_start(
    path: Path,
    database: str,
    tool_args: list[str],
    work: Path,
    heap: str | None,
    pagecache: str | None,
    threads: int | None,
) -> LocalNeo4j:
    """Start :class:`LocalNeo4j` on ``path`` with the import tool run first in its JVM; return
    the running server. Raises :class:`OfflineImportError` (output tail, bad entries) when the
    import fails; on any failure no server runs and the partial database is removed."""
    from kgbench.neo4j.server import ImportToolError

    server = LocalNeo4j(data_dir=path, heap=heap, pagecache=pagecache, import_dir=work)
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
