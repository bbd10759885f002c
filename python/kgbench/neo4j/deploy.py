"""``kgbench deploy``: every graph of a published CypherBench benchmark directory as a local
Neo4j data directory, by the offline bulk import (:func:`kgbench.neo4j.import_graph`), and
the graph map that says where each one is (issue 38).

The benchmark directory is read as CypherBench publishes it (the Hugging Face dataset
``megagonlabs/cypherbench`` cloned as ``benchmark/``): ``graphs/simplekg/<graph>_simplekg.json``
(SPEC.md §2), ``graphs/schemas/<graph>_schema.json``, ``test.json`` and ``train.json``. Nothing
in it is changed. The graphs deployed are those named by ``graphs=`` (``--graphs``), else every
``graphs/simplekg/*_simplekg.json`` and every graph ``test.json``'s tasks name.

The deployment directory (``--data DIR``, default ``BENCH_DIR/.kgbench``, :data:`DEFAULT_DATA`)
holds one data directory of the local server per graph, ``DIR/graphs/<graph>/`` (stopped; start
it with ``kgbench neo4j start --data DIR/graphs/<graph> --port PORT``), and the map
``DIR/neo4j_info.json`` (:data:`MAP_FILE`) in the form of CypherBench's own ``neo4j_info.json``:

``{"train_domains": [...], "test_domains": [...], "full": {graph: {"host", "port", "username",
"password"}}, "kgbench": {"format": 1, "graphs": {graph: record}}}``

CypherBench's evaluation reads ``test_domains`` and passes each ``full`` entry to its
``Neo4jConnector`` as keyword arguments, so the entries carry exactly its four keys (the local
server has authentication disabled and accepts any credentials; ``neo4j`` / ``cypherbench`` are
written, CypherBench's own). ``test_domains`` lists the deployed graphs that ``test.json``'s
tasks name, ``train_domains`` the others. kgbench's own record per graph sits under the
top-level ``kgbench`` key, which CypherBench never reads: ``data_dir`` (relative to ``DIR``),
``graph_file`` (absolute), ``fingerprint`` (below), ``nodes``, ``relationships``, ``imported``
(ISO 8601, UTC), ``import_s`` (seconds), ``neo4j_version``. A graph is in the map only once its
import finished and its counts were verified: a graph without a record is not deployed,
whatever its data directory holds.

Fingerprint of a graph file: ``{"size", "mtime_ns", "sha256"}`` (bytes, nanoseconds since the
epoch, SHA-256 of the bytes, all taken at import). A later deploy skips a graph whose record
exists and whose store is present when the file's size and mtime equal the record's (no read);
when only the mtime differs, the file's SHA-256 decides (equal: skipped, the new mtime
recorded; a ``touch`` or a fresh clone costs one read, not an import). Any other difference,
a missing store or ``force=True`` imports the graph again.

Ports: a graph keeps the port its record had; a new graph gets the lowest port from
:data:`BASE_PORT` (15060, the first of CypherBench's Docker deployment, whose 11 graphs in name
order are 15060-15070) that no other graph of the map has.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError, KgbenchError

#: Default deployment directory, relative to the benchmark directory.
DEFAULT_DATA = ".kgbench"
#: The graph map in the deployment directory (CypherBench's ``neo4j_info.json`` form).
MAP_FILE = "neo4j_info.json"
#: Where the graphs' data directories are, inside the deployment directory.
GRAPHS_DIR = "graphs"
#: Version of the map's ``kgbench`` section.
MAP_FORMAT = 1
#: The first port given to a graph (CypherBench's Docker deployment starts there).
BASE_PORT = 15060
#: Host written into the map: the local server listens on the loopback interface only.
HOST = "127.0.0.1"
#: Credentials written into the map: CypherBench's, for its ``Neo4jConnector`` (the local
#: server has authentication disabled and accepts any).
USERNAME, PASSWORD = "neo4j", "cypherbench"
#: File name of a graph in ``graphs/simplekg/`` of a CypherBench benchmark directory.
GRAPH_SUFFIX = "_simplekg.json"
#: Free disk space a graph's import needs at least: Neo4j's fixed store and transaction log
#: files (about 520 MiB for a small graph, measured) plus this many times the graph file (the
#: import tool's CSV files and the store).
DISK_FIXED_BYTES = 640 << 20
DISK_FACTOR = 4
#: Start of a Git LFS pointer file (a clone without ``git lfs``): not a graph.
_LFS_POINTER = b"version https://git-lfs"


class DeployError(KgbenchError):
    """A deploy cannot start: a graph file missing, the deployment directory unusable."""


@dataclass
class GraphOutcome:
    """What deploy did with one graph: ``status`` is ``"imported"``, ``"skipped"`` (already
    imported with the same content) or ``"failed"`` (``error`` says why); ``seconds`` its
    wall time; ``record`` its map record (None when failed)."""

    graph: str
    status: str
    seconds: float = 0.0
    error: str = ""
    record: dict[str, Any] | None = None


@dataclass
class DeployResult:
    """One deploy: the outcome per graph (in name order), the map file written and its
    deployment directory."""

    outcomes: list[GraphOutcome] = field(default_factory=list)
    map_path: Path | None = None
    data_dir: Path | None = None

    @property
    def failed(self) -> list[GraphOutcome]:
        """The graphs that failed."""
        return [o for o in self.outcomes if o.status == "failed"]

    def count(self, status: str) -> int:
        """How many graphs have ``status``."""
        return sum(1 for o in self.outcomes if o.status == status)


def graph_file(bench_dir: str | os.PathLike[str], graph: str) -> Path:
    """``BENCH_DIR/graphs/simplekg/<graph>_simplekg.json``."""
    return Path(bench_dir) / "graphs" / "simplekg" / f"{graph}{GRAPH_SUFFIX}"


def test_graphs(bench_dir: str | os.PathLike[str]) -> list[str]:
    """The graph names ``BENCH_DIR/test.json``'s tasks name, sorted (none without the file).
    Raises :class:`kgbench.errors.InputError` for an unreadable or malformed file."""
    path = Path(bench_dir) / "test.json"
    if not path.is_file():
        return []
    from kgbench.tasks import read_records

    names = set()
    for where, record in read_records(path):
        graph = record.get("graph")
        if not isinstance(graph, str) or not graph:
            raise InputError(f"{where}: no 'graph' name")
        names.add(graph)
    return sorted(names)


def select_graphs(
    bench_dir: str | os.PathLike[str], graphs: Sequence[str] | None = None
) -> tuple[list[str], list[str]]:
    """``(graphs to deploy, graphs test.json names)``: ``graphs`` when given (duplicates
    dropped, order kept), else every ``graphs/simplekg/*_simplekg.json`` and every graph the
    tasks of ``test.json`` name, sorted.

    Raises:
        DeployError: ``bench_dir`` is not a directory, or some graph files are missing or are
            Git LFS pointers (one message naming every such file and who named it), before
            anything is imported.
    """
    bench = Path(bench_dir)
    if not bench.is_dir():
        raise DeployError(f"{bench}: not a directory (a CypherBench benchmark directory)")
    in_tests = test_graphs(bench)
    if graphs:
        chosen = list(dict.fromkeys(graphs))
        named = {g: "--graphs" for g in chosen}
    else:
        files = sorted((bench / "graphs" / "simplekg").glob(f"*{GRAPH_SUFFIX}"))
        present = [p.name[: -len(GRAPH_SUFFIX)] for p in files]
        chosen = sorted(set(present) | set(in_tests))
        named = {g: "test.json" for g in in_tests}
    problems = []
    for g in chosen:
        path = graph_file(bench, g)
        why = f" (named by {named[g]})" if g in named else ""
        if not path.is_file():
            problems.append(f"{path}{why}")
            continue
        with open(path, "rb") as fh:
            if fh.read(len(_LFS_POINTER)) == _LFS_POINTER:
                problems.append(f"{path}{why} is a Git LFS pointer: run `git lfs pull` there")
    if problems:
        raise DeployError(
            f"missing graph file{'s' if len(problems) > 1 else ''}, nothing imported: "
            + "; ".join(problems)
        )
    return chosen, in_tests


def fingerprint(path: str | os.PathLike[str], *, sha256: bool = True) -> dict[str, Any]:
    """``{"size", "mtime_ns", "sha256"}`` of a file (bytes, ns since the epoch, 64 hex digits;
    ``sha256`` None when not asked for). Raises ``OSError`` when it cannot be read."""
    from kgbench.fileio import sha256_file

    st = os.stat(path)
    return {
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "sha256": sha256_file(path) if sha256 else None,
    }


def same_content(path: Path, recorded: Mapping[str, Any]) -> tuple[bool, dict[str, Any] | None]:
    """Whether ``path`` holds what ``recorded`` (a :func:`fingerprint`) describes, and the
    fingerprint to record when only the mtime changed (else None). Size and mtime equal: True
    without reading the file; size equal, mtime not: the SHA-256 decides."""
    st = os.stat(path)
    if st.st_size != recorded.get("size"):
        return False, None
    if st.st_mtime_ns == recorded.get("mtime_ns"):
        return True, None
    now = fingerprint(path)
    if now["sha256"] == recorded.get("sha256"):
        return True, now
    return False, None


def read_map(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A deployment's map file (:data:`MAP_FILE`) as a dict, or an empty map when the file does
    not exist. Raises :class:`kgbench.errors.InputError` for an unreadable or malformed file."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{p}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise InputError(f"{p}: expected a JSON object (a kgbench deploy map)")
    return data


def deployed_graphs(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """graph -> kgbench's record of a deploy map file (see the module docstring), with
    ``data_dir`` made absolute and ``port`` added from the ``full`` entry. Empty for a map
    without a ``kgbench`` section (e.g. CypherBench's own ``neo4j_info.json``). Raises
    :class:`kgbench.errors.InputError` as :func:`read_map`."""
    p = Path(path)
    data = read_map(p)
    records = _section(_section(data, "kgbench"), "graphs")
    full = _section(data, "full")
    out: dict[str, dict[str, Any]] = {}
    for graph, record in records.items():
        if not isinstance(record, Mapping):
            continue
        entry = dict(record)
        entry["data_dir"] = str((p.parent / str(record.get("data_dir", ""))).resolve())
        entry["port"] = _section(full, graph).get("port")
        out[graph] = entry
    return out


def _section(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """``data[key]`` when it is an object, else an empty one."""
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}


def _store_present(data_dir: Path) -> bool:
    store = data_dir / "data" / "databases" / "neo4j"
    return store.is_dir() and any(store.iterdir())


def _byte_offset(path: Path, message: str) -> str:
    """`` (byte offset N)`` (from 0: where reading stopped) for a JSON error message naming
    ``line L column C`` of ``path``
    (columns counted in bytes from 1, as the native reader reports them), else ``""``."""
    m = re.search(r"line (\d+) column (\d+)", message)
    if m is None:
        return ""
    line, column = int(m.group(1)), int(m.group(2))
    offset = 0
    try:
        with open(path, "rb") as fh:
            for _ in range(line - 1):
                chunk = fh.readline()
                if not chunk:
                    break
                offset += len(chunk)
    except OSError:
        return ""
    return f" (byte offset {offset + max(column - 1, 0)})"


def _check_disk(graph: str, path: Path, where: Path) -> None:
    """Raise :class:`DeployError` when ``where``'s file system has less free space than a
    graph file of this size needs (:data:`DISK_FIXED_BYTES` + :data:`DISK_FACTOR` x size)."""
    need = DISK_FIXED_BYTES + DISK_FACTOR * path.stat().st_size
    probe = where
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    if free < need:
        raise DeployError(
            f"not enough disk space for graph {graph!r} on {probe}: about {need / 2**30:.1f} GiB "
            f"needed ({path.stat().st_size / 2**30:.2f} GiB graph file), "
            f"{free / 2**30:.1f} GiB free; free some or deploy elsewhere with --data DIR"
        )


def _assign_port(graph: str, full: Mapping[str, Any]) -> int:
    own = full.get(graph)
    if isinstance(own, Mapping) and isinstance(own.get("port"), int):
        return int(own["port"])
    taken = {int(v["port"]) for v in full.values() if isinstance(v, Mapping) and "port" in v}
    port = BASE_PORT
    while port in taken:
        port += 1
    return port


def _write_map(
    map_path: Path,
    data: dict[str, Any],
    records: Mapping[str, Mapping[str, Any]],
    ports: Mapping[str, int],
    in_tests: Iterable[str],
) -> None:
    """Write the map: CypherBench's keys from ``records`` / ``ports``, other top-level keys of
    ``data`` kept."""
    from kgbench.fileio import write_json_atomic

    tests = set(in_tests)
    names = sorted(records)
    out = {k: v for k, v in data.items() if k not in ("train_domains", "test_domains", "full")}
    out = {
        "train_domains": [g for g in names if g not in tests],
        "test_domains": [g for g in names if g in tests],
        "full": {
            g: {"host": HOST, "port": ports[g], "username": USERNAME, "password": PASSWORD}
            for g in names
        },
        **{k: v for k, v in out.items() if k != "kgbench"},
        "kgbench": {"format": MAP_FORMAT, "graphs": {g: dict(records[g]) for g in names}},
    }
    write_json_atomic(map_path, out)


def deploy(
    bench_dir: str | os.PathLike[str],
    *,
    graphs: Sequence[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    force: bool = False,
    heap: str | None = None,
    pagecache: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> DeployResult:
    """Deploy the graphs of a CypherBench benchmark directory (module docstring) into
    ``data_dir`` (default ``bench_dir/.kgbench``); return the outcome per graph.

    Graphs are imported one at a time, in name order, each by
    :func:`kgbench.neo4j.import_graph` (validation, Neo4j's import tool, constraints and
    indexes, verified counts; the server is stopped afterwards) into ``data_dir/graphs/<graph>``
    (``heap`` / ``pagecache`` as there). A graph already imported with the same content is
    skipped without starting a server (``force``: imported again). The map is written after
    every graph that changes it, so an interruption keeps what finished.

    A graph that fails (an invalid or cut JSON file: the message names the file and the byte
    offset; not enough disk space; its data directory in use by a running server; the import
    failing) has no record in the map and no store left behind when it had none; the other
    graphs still deploy. ``progress`` receives one line per step.

    Raises:
        DeployError: a graph file is missing (before anything is imported), the map cannot be
            written.
        InputError: a malformed ``test.json`` or map file.
    """
    from kgbench.neo4j.offline import check_data_dir, import_graph

    bench = Path(bench_dir).resolve()
    chosen, in_tests = select_graphs(bench, graphs)
    out = Path(data_dir).resolve() if data_dir is not None else bench / DEFAULT_DATA
    map_path = out / MAP_FILE
    data = read_map(map_path)
    records: dict[str, dict[str, Any]] = {
        g: dict(r)
        for g, r in _section(_section(data, "kgbench"), "graphs").items()
        if isinstance(r, Mapping)
    }
    full = _section(data, "full")
    ports: dict[str, int] = {
        g: int(v["port"]) for g, v in full.items() if g in records and isinstance(v, Mapping)
    }
    for g in sorted(records):
        if g not in ports:
            ports[g] = _assign_port(g, {h: {"port": p} for h, p in ports.items()})
    say = progress or (lambda _line: None)
    result = DeployResult(map_path=map_path, data_dir=out)
    changed = False

    def save() -> None:
        try:
            _write_map(map_path, data, records, ports, in_tests)
        except InputError as exc:
            raise DeployError(f"cannot write the graph map: {exc}") from exc

    for i, graph in enumerate(chosen, 1):
        t0 = time.perf_counter()
        path = graph_file(bench, graph)
        store = out / GRAPHS_DIR / graph
        head = f"[{i}/{len(chosen)}] {graph}"

        def log(line: str, head: str = head) -> None:
            say(f"{head}: {line}")

        record = records.get(graph)
        if record is not None and not force and _store_present(store):
            same, refreshed = same_content(path, record.get("fingerprint") or {})
            if same:
                if refreshed is not None:
                    record["fingerprint"] = refreshed
                    changed = True
                say(f"{head}: already imported, same content; skipped")
                result.outcomes.append(
                    GraphOutcome(graph, "skipped", time.perf_counter() - t0, record=record)
                )
                continue
        size = path.stat().st_size
        say(f"{head}: importing {path.name} ({size / 2**20:,.1f} MiB)")
        had_store = _store_present(store)
        clean = False  # whether a failure removes the graph's data directory
        try:
            if store.is_dir():
                check_data_dir(store, "neo4j", wipe=True)  # in use: the record stays
            clean = not had_store
            if record is not None and not (
                force and had_store and same_content(path, record.get("fingerprint") or {})[0]
            ):  # the record no longer describes the file: gone even if this import fails
                records.pop(graph, None)
                save()
            _check_disk(graph, path, out)
            fp = fingerprint(path)  # of the bytes about to be imported
            if records.pop(graph, None) is not None:
                save()  # no record while the store is being replaced
            report = import_graph(
                path,
                store,
                wipe=True,
                heap=heap,
                pagecache=pagecache,
                csv_dir=out / f".import-{graph}",
                log=log,
            )
            if fingerprint(path, sha256=False) != {**fp, "sha256": None}:
                raise DeployError(f"{path} changed while it was imported; deploy again")
        except KgbenchError as exc:
            message = " ".join(str(exc).split())
            if "not JSON" in message:
                message += _byte_offset(path, message)
            if clean:
                shutil.rmtree(store, ignore_errors=True)  # nothing of a failed first import
            say(f"{head}: failed: {message}")
            result.outcomes.append(GraphOutcome(graph, "failed", time.perf_counter() - t0, message))
            continue
        finally:
            shutil.rmtree(out / f".import-{graph}", ignore_errors=True)
        from kgbench.neo4j.server import VERSION_FILE

        seconds = time.perf_counter() - t0
        records[graph] = {
            "data_dir": f"{GRAPHS_DIR}/{graph}",
            "graph_file": str(path),
            "fingerprint": fp,
            "nodes": report.nodes,
            "relationships": report.relationships,
            "imported": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "import_s": round(seconds, 2),
            "neo4j_version": (store / VERSION_FILE).read_text(encoding="utf-8").strip(),
        }
        ports[graph] = _assign_port(graph, {g: {"port": p} for g, p in ports.items()})
        save()
        changed = False
        result.outcomes.append(GraphOutcome(graph, "imported", seconds, record=records[graph]))
    if changed or not map_path.is_file() or _domains_stale(data, records, in_tests):
        save()
    return result


def _domains_stale(
    data: Mapping[str, Any], records: Mapping[str, Any], in_tests: Iterable[str]
) -> bool:
    """Whether the map file's CypherBench keys differ from what the records give."""
    tests = set(in_tests)
    names = sorted(records)
    return data.get("test_domains") != [g for g in names if g in tests] or data.get(
        "train_domains"
    ) != [g for g in names if g not in tests]
