"""Where each graph lives: a Bolt URI, database and credentials per graph name
(:class:`GraphTarget`), read from ``--graph-uris`` JSON maps (:func:`load_graph_targets`).
Used by ``kgbench evaluate`` (which server runs each graph's queries) and ``kgbench predict``
(which server a graph's schema is fetched from), both above this module."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgbench.errors import InputError


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
    ``{"full": {graph: {"host", "port", "username"?, "password"?, "database"?}}}``.
    ``user``/``password`` fill in missing credentials.

    Raises:
        InputError: unreadable file or an entry without a URI (names the graph).
    """
    where = "graph map"
    if isinstance(source, Mapping):
        data: Any = source
    else:
        where = str(source)
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(f"{source}: cannot read: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise InputError(f"{source}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
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
            uri = f"bolt://{value['host']}:{value.get('port', 7687)}"
        if not isinstance(uri, str) or not uri:
            raise InputError(f"{where}: graph {graph!r}: no 'uri' (or 'host'/'port') given")
        out[graph] = GraphTarget(
            uri,
            value.get("database"),
            value.get("user", value.get("username", user)),
            value.get("password", password),
        )
    return out
