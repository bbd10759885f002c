"""Where each graph lives: a Bolt URI, database and credentials per graph name
(:class:`GraphTarget`), read from ``--graph-uris`` JSON maps (:func:`load_graph_targets`).
Used by ``kgbench evaluate`` (which server runs each graph's queries) and ``kgbench predict``
(which server a graph's schema is fetched from), both above this module; and the executors
over those servers (:func:`neo4j_executor_factory`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgbench.errors import InputError, KgbenchError


@dataclass(frozen=True)
class GraphTarget:
    """Where one graph lives: Bolt URI, database (``None`` = server default), auth."""

    uri: str
    database: str | None = None
    user: str | None = None
    password: str | None = None


def load_graph_targets(
    source: str | Path | Mapping[str, Any],
    user: str | None = None,
    password: str | None = None,
) -> dict[str, GraphTarget]:
    """Graph name -> :class:`GraphTarget` from a mapping or a JSON file.

    Accepted values per graph: a Bolt URI string; an object ``{"uri", "database"?,
    "user"?, "password"?}``; or CypherBench's ``neo4j_info.json`` form
    ``{"full": {graph: {"host", "port", "username"?, "password"?, "database"?}}, ...}``
    (megagonlabs/cypherbench ``neo4j_info.json``: its other keys, ``train_domains``,
    ``test_domains``, ``sampled``, are not read; a port given as a string of digits is
    accepted), which is also the form of the map ``kgbench deploy`` writes (its ``kgbench``
    key is not read either). A directory stands for its ``neo4j_info.json`` (a ``kgbench
    deploy`` directory). ``user``/``password`` fill in missing credentials.

    Raises:
        InputError: unreadable file, a directory without ``neo4j_info.json``, or an entry
            without a URI or with a port that is not a number (names the graph).
    """
    where = "graph map"
    if isinstance(source, Mapping):
        data: Any = source
    else:
        path = Path(source)
        if path.is_dir():
            path = path / "neo4j_info.json"
            if not path.is_file():
                raise InputError(f"{source}: a directory without neo4j_info.json (no graph map)")
        where = str(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected a JSON object mapping graph names to Bolt URIs")
    if isinstance(data.get("full"), Mapping):
        data = data["full"]
    out: dict[str, GraphTarget] = {}
    for graph, value in data.items():
        if isinstance(value, str):
            out[graph] = GraphTarget(value, None, user, password)
            continue
        if not isinstance(value, Mapping):
            raise InputError(f"{where}: graph {graph!r}: expected a URI string or an object")
        uri = value.get("uri")
        if uri is None and "host" in value:
            port = value.get("port", 7687)
            if isinstance(port, str) and port.isdigit():
                port = int(port)
            if not isinstance(port, int) or isinstance(port, bool):
                raise InputError(f"{where}: graph {graph!r}: 'port' is not a number: {port!r}")
            uri = f"bolt://{value['host']}:{port}"
        if not isinstance(uri, str) or not uri:
            raise InputError(f"{where}: graph {graph!r}: no 'uri' (or 'host'/'port') given")
        out[graph] = GraphTarget(
            uri,
            value.get("database"),
            value.get("user", value.get("username", user)),
            value.get("password", password),
        )
    return out


class AcquiringExecutor:
    """An executor whose every use first makes sure its graph's server runs
    (:meth:`kgbench.neo4j.bench.BenchServers.acquire`); everything else is the wrapped
    executor's."""

    def __init__(self, inner: Any, servers: Any, graph: str) -> None:
        self._inner = inner
        self._servers = servers
        self._graph = graph

    def __getattr__(self, name: str) -> Any:
        self._servers.acquire(self._graph)
        return getattr(self._inner, name)


def neo4j_executor_factory(
    servers: Any = None,
) -> tuple[Callable[[str, GraphTarget, float, int, Path | None], Any], Callable[[], None]]:
    """Executors of :class:`kgbench.neo4j.QueryExecutor` over shared drivers, and a closer:
    ``make(graph, target, timeout_s, workers, cache_path) -> QueryExecutor`` (one driver per
    URI and credentials, closed by ``close()``). Used by evaluation and by the repair rounds of
    model runs.

    A new driver is checked with ``verify_connectivity`` (an unreachable server raises
    :class:`ConnectionLostError` before anything runs). An executor with a cache gets the
    database's fingerprint (:func:`kgbench.neo4j.executor.database_fingerprint`), so its
    cache is keyed by the content; when the fingerprint cannot be read (e.g. a user without
    the right to call ``db.info()``) the cache is not used and ``cache_report`` says why.

    With ``servers`` (``--bench``: :class:`kgbench.neo4j.bench.BenchServers`), ``make``
    starts the graph's server first and the executor it returns starts it again on any use
    once it was stopped for another graph (:class:`AcquiringExecutor`).
    """
    from kgbench.neo4j.executor import (
        CONNECTION,
        CacheReport,
        ConnectionLostError,
        QueryExecutor,
        classify,
        connect,
        database_fingerprint,
    )

    drivers: dict[tuple[str, str | None, str | None], Any] = {}

    def driver_for(target: GraphTarget) -> Any:
        key = (target.uri, target.user, target.password)
        if key not in drivers:
            driver = connect(target.uri, target.user, target.password)
            try:
                driver.verify_connectivity()
            except Exception as exc:
                driver.close()
                message = " ".join(str(getattr(exc, "message", None) or exc).split())
                if classify(exc) == CONNECTION:
                    raise ConnectionLostError(message) from exc
                raise KgbenchError(f"Neo4j at {target.uri}: {message}") from exc
            drivers[key] = driver
        return drivers[key]

    def make(
        graph: str, target: GraphTarget, timeout_s: float, workers: int, cache: Path | None
    ) -> Any:
        if servers is not None:
            servers.acquire(graph)
        driver = driver_for(target)
        fingerprint = None
        refused = ""
        if cache is not None:
            try:
                fingerprint = database_fingerprint(driver, target.database, timeout_s=timeout_s)
            except ConnectionLostError:
                raise
            except KgbenchError as exc:
                refused = str(exc)
        executor = QueryExecutor(
            driver,
            database=target.database,
            timeout_s=timeout_s,
            workers=workers,
            cache_path=None if refused else cache,
            graph=graph,
            fingerprint=fingerprint,
        )
        if refused and cache is not None:
            executor.cache_report = CacheReport(cache, "disabled", change=refused)
        if servers is not None and graph in servers.records:
            return AcquiringExecutor(executor, servers, graph)
        return executor

    def close() -> None:
        for driver in drivers.values():
            driver.close()

    return make, close
