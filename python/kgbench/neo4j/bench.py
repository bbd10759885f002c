"""Graph-at-a-time local servers over a ``kgbench deploy`` directory (issue 38): ``--bench``.

``kgbench deploy BENCH_DIR`` leaves one stopped data directory per graph and a map
(:mod:`kgbench.neo4j.deploy`). :class:`BenchServers` starts a graph's server when its first
query comes (:meth:`BenchServers.acquire`) and stops the least recently used one when starting
another would exceed ``max_servers`` servers or the ``memory`` budget, so a multi-graph task
file (CypherBench's 7 test graphs: 2.7M entities) is scored on one machine whose RAM holds a
few graphs at a time. The evaluation goes graph by graph (:func:`kgbench.evaluate.evaluate`),
so each graph's server starts once.

Sizes per graph, from its store (the bytes under ``data/databases/neo4j`` of its data
directory): page cache ``1.1 x store + 64 MiB`` (at least :data:`MIN_PAGECACHE`), heap
``1 GiB + store / 2`` (between :data:`MIN_HEAP` and :data:`MAX_HEAP`), plus
:data:`JVM_OVERHEAD` for the JVM itself. A graph whose sizes exceed the budget is given a
smaller page cache, then a smaller heap, down to :data:`MIN_HEAP` + :data:`MIN_PAGECACHE`;
if even that does not fit, :class:`BenchServers` raises before any server starts, saying how
much the graph needs. ``memory`` defaults to 3/4 of the machine's RAM (:func:`machine_memory`);
``max_servers`` defaults to as many servers as the budget holds for the largest graphs (at
least one).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgbench.errors import InputError

MIB = 1 << 20
GIB = 1 << 30
#: The smallest heap and page cache a graph's server is given.
MIN_HEAP = 512 * MIB
MIN_PAGECACHE = 128 * MIB
#: The largest heap a graph's server is given (the rest of its memory is page cache).
MAX_HEAP = 8 * GIB
#: Memory of a Neo4j JVM beside its heap and page cache (metaspace, threads, native buffers).
JVM_OVERHEAD = 384 * MIB


def parse_size(text: str, where: str = "--memory") -> int:
    """Bytes of a size such as ``"18g"``, ``"512m"``, ``"1.5G"`` or a plain number of bytes.

    Raises:
        InputError: not a size (names ``where``)."""
    s = text.strip().lower().removesuffix("b").removesuffix("i")
    factor = {"k": 1 << 10, "m": MIB, "g": GIB, "t": 1 << 40}.get(s[-1:], 1)
    number = s[:-1] if s[-1:] in "kmgt" and s[-1:] else s
    try:
        value = float(number)
    except ValueError:
        raise InputError(f"{where} {text!r}: not a size (e.g. 18g, 512m)") from None
    if value <= 0:
        raise InputError(f"{where} {text!r}: must be positive")
    return int(value * factor)


def size_text(n: int) -> str:
    """``n`` bytes as a Neo4j / JVM size: whole MiB (``"1536m"``)."""
    return f"{max(1, -(-n // MIB))}m"


def machine_memory() -> int:
    """The machine's RAM in bytes (``MemTotal`` of ``/proc/meminfo``, else ``sysconf``)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def store_bytes(data_dir: str | os.PathLike[str]) -> int:
    """Bytes of the graph store of a server data directory (``data/databases/neo4j``)."""
    total = 0
    for root, _dirs, files in os.walk(Path(data_dir) / "data" / "databases" / "neo4j"):
        for name in files:
            with contextlib.suppress(OSError):  # a file removed while walking
                total += os.path.getsize(os.path.join(root, name))
    return total


@dataclass(frozen=True)
class ServerSize:
    """Heap and page cache (bytes) of one graph's server; :attr:`total` adds the JVM's own."""

    heap: int
    pagecache: int

    @property
    def total(self) -> int:
        """Bytes the server takes: heap, page cache and :data:`JVM_OVERHEAD`."""
        return self.heap + self.pagecache + JVM_OVERHEAD


def size_for(store: int, budget: int) -> ServerSize | None:
    """The sizes of a server for a store of ``store`` bytes within ``budget`` bytes (module
    docstring), or None when even the smallest sizes do not fit."""
    heap = min(MAX_HEAP, max(MIN_HEAP, GIB + store // 2))
    pagecache = max(MIN_PAGECACHE, store + store // 10 + 64 * MIB)
    room = budget - JVM_OVERHEAD
    if heap + pagecache > room:
        pagecache = max(MIN_PAGECACHE, room - heap)
    if heap + pagecache > room:
        heap = max(MIN_HEAP, room - pagecache)
    if heap + pagecache > room:
        return None
    return ServerSize(heap, pagecache)


def find_map(bench: str | os.PathLike[str]) -> Path:
    """The deploy map of ``bench``: the directory's ``neo4j_info.json`` with a ``kgbench``
    section (a deployment directory), else that of its ``.kgbench`` directory (a benchmark
    directory deployed with the default ``--data``), or a map file given directly.

    Raises:
        InputError: neither holds a map written by ``kgbench deploy``."""
    from kgbench.neo4j.deploy import DEFAULT_DATA, MAP_FILE, deployed_graphs

    p = Path(bench)
    candidates = [p] if p.is_file() else [p / MAP_FILE, p / DEFAULT_DATA / MAP_FILE]
    for c in candidates:
        if c.is_file() and deployed_graphs(c):
            return c
    raise InputError(
        f"--bench {bench}: no graph deployed there (no {MAP_FILE} written by kgbench deploy in "
        f"it or in {p / DEFAULT_DATA}); run `kgbench deploy BENCH_DIR` first"
    )


class BenchServers:
    """The deployed graphs of a ``kgbench deploy`` map (module docstring): ``bench`` as
    :func:`find_map` reads it; ``graphs`` limits the servers to those graphs (None: all);
    ``max_servers`` (None: what the budget allows), ``memory`` a byte budget (None: 3/4 of
    the machine's RAM); ``log`` gets a line per start and stop (default: stderr).

    :attr:`targets` maps each graph to its :class:`kgbench.neo4j.targets.GraphTarget` (the
    port of the map); :meth:`acquire` starts a graph's server; :meth:`close` stops them all.
    :attr:`peak` is the most servers alive at once, :attr:`started` the starts.

    Raises:
        InputError: no map, a graph of ``graphs`` not deployed, a bad limit, or a graph whose
            smallest server does not fit in ``memory`` (how much it needs, before any start).
    """

    def __init__(
        self,
        bench: str | os.PathLike[str],
        *,
        graphs: Sequence[str] | None = None,
        max_servers: int | None = None,
        memory: int | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        from kgbench.neo4j.deploy import deployed_graphs
        from kgbench.neo4j.targets import GraphTarget

        self.map_path = find_map(bench)
        records = deployed_graphs(self.map_path)
        wanted = sorted(records) if graphs is None else sorted(set(graphs))
        missing = [g for g in wanted if g not in records]
        if missing:
            raise InputError(
                f"--bench {bench}: graph(s) {', '.join(map(repr, missing))} not deployed "
                f"(deployed: {', '.join(sorted(records)) or 'none'}); run `kgbench deploy "
                f"BENCH_DIR --graphs {','.join(missing)}`"
            )
        if max_servers is not None and max_servers < 1:
            raise InputError(f"--max-servers must be at least 1, got {max_servers}")
        self.memory = machine_memory() * 3 // 4 if memory is None else memory
        self.records = {g: records[g] for g in wanted}
        self.sizes: dict[str, ServerSize] = {}
        for g in wanted:
            fitted = size_for(store_bytes(self.records[g]["data_dir"]), self.memory)
            if fitted is None:
                need = MIN_HEAP + MIN_PAGECACHE + JVM_OVERHEAD
                raise InputError(
                    f"graph {g!r}: its server needs at least {size_text(need)} of memory "
                    f"(heap {size_text(MIN_HEAP)}, page cache {size_text(MIN_PAGECACHE)}, JVM "
                    f"{size_text(JVM_OVERHEAD)}); --memory gives {size_text(self.memory)}"
                )
            self.sizes[g] = fitted
        if max_servers is None:
            max_servers, used = 0, 0
            for need in sorted((s.total for s in self.sizes.values()), reverse=True):
                if used + need > self.memory:
                    break
                used += need
                max_servers += 1
        self.max_servers = max(1, max_servers)
        self.targets: dict[str, GraphTarget] = {
            g: GraphTarget(f"bolt://127.0.0.1:{int(rec['port'])}", None, None, None)
            for g, rec in self.records.items()
        }
        self._log = log or (lambda msg: print(msg, file=sys.stderr))
        self._alive: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.RLock()
        self.peak = 0
        self.started = 0

    def graph_map(self) -> dict[str, dict[str, Any]]:
        """graph -> ``{"uri"}``: the map :func:`kgbench.neo4j.targets.load_graph_targets`
        reads (``graph_uris=``)."""
        return {g: {"uri": t.uri} for g, t in self.targets.items()}

    def alive(self) -> list[str]:
        """The graphs whose server runs now, least recently used first."""
        with self._lock:
            return list(self._alive)

    def acquire(self, graph: str) -> None:
        """Make sure ``graph``'s server runs: start it (stopping the least recently used
        servers first while the count or the memory budget would be exceeded), else mark it
        used. A graph this object does not manage is left alone (a user's own server).

        Raises:
            Neo4jServerError: the server does not start (its log's tail in the message)."""
        from kgbench.neo4j.server import LocalNeo4j

        if graph not in self.records:
            return
        with self._lock:
            if graph in self._alive:
                self._alive.move_to_end(graph)
                return
            size = self.sizes[graph]
            while self._alive and (
                len(self._alive) >= self.max_servers
                or sum(self.sizes[g].total for g in self._alive) + size.total > self.memory
            ):
                self._stop(next(iter(self._alive)))
            rec = self.records[graph]
            server = LocalNeo4j(
                data_dir=rec["data_dir"],
                port=int(rec["port"]),
                heap=size_text(size.heap),
                pagecache=size_text(size.pagecache),
            )
            self._log(
                f"bench: starting graph {graph!r} on port {rec['port']} (heap "
                f"{size_text(size.heap)}, page cache {size_text(size.pagecache)}; "
                f"{len(self._alive) + 1} of at most {self.max_servers} servers)"
            )
            server.start()
            self._alive[graph] = server
            self.started += 1
            self.peak = max(self.peak, len(self._alive))

    def _stop(self, graph: str) -> None:
        server = self._alive.pop(graph)
        self._log(f"bench: stopping graph {graph!r}")
        server.stop()

    def close(self) -> None:
        """Stop every server this object started."""
        with self._lock:
            while self._alive:
                self._stop(next(iter(self._alive)))

    def __enter__(self) -> BenchServers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def graphs_of(tasks: Sequence[Mapping[str, Any]]) -> list[str]:
    """The distinct ``graph`` fields of ``tasks``, sorted."""
    return sorted({str(t["graph"]) for t in tasks})


def schema_dir(bench: str | os.PathLike[str]) -> Path | None:
    """The ``graphs/schemas`` directory of the benchmark a deploy map came from (beside the
    ``graphs/simplekg`` of its graph files), or None when it does not exist.

    Raises:
        InputError: as :func:`find_map`."""
    from kgbench.neo4j.deploy import deployed_graphs

    for rec in deployed_graphs(find_map(bench)).values():
        graph_file = rec.get("graph_file")
        if graph_file:
            candidate = Path(str(graph_file)).parent.parent / "schemas"
            if candidate.is_dir():
                return candidate
    return None
