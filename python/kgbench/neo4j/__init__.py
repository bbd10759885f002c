"""kgbench.neo4j — a local Neo4j server, the graph loader, schema fetch and the query executor.

- :class:`LocalNeo4j` — Neo4j Community 5.26 LTS, or a newer release with Cypher 25
  (``version=``, :func:`offered_versions`), embedded, Bolt on 127.0.0.1, no authentication,
  built from Maven Central by the project's launcher in ``neo4j-local/``.
- :func:`load_graph` / :func:`validate_graph` — load a CypherBench graph (SPEC.md §2).
- :func:`import_graph` — offline bulk import (Neo4j's import tool) into the local server.
- :mod:`kgbench.neo4j.deploy` — ``kgbench deploy``: a CypherBench benchmark directory's graphs
  as local data directories (offline import, once per content) and their ``neo4j_info.json``.
- :func:`fetch_schema` — CypherBench's exact schema queries (seed Appendix B.4) without APOC.
- :class:`QueryExecutor` / :class:`QueryResult` — concurrent read-only query execution with
  timeouts, error classes and plain-Python values (SPEC.md §4): the one way kgbench reads
  Neo4j; :class:`GraphReader` is its name under the generators' defaults (``neo4j.Record``
  lists, :class:`QueryFailed`).
- :func:`connect` — the one place a ``neo4j.Driver`` is opened (authentication, a one-line
  error for a bad URI or an unreachable server).
- :func:`server_version` / :func:`cypher_dialect` / :func:`server_info` — the version and the
  Cypher dialect (``"5"`` or ``"25"``) of the server behind a driver, read once per driver.
"""

from kgbench.neo4j.executor import (
    ERROR_CLASSES,
    GraphReader,
    QueryExecutor,
    QueryFailed,
    QueryResult,
    ServerInfo,
    connect,
    cypher_dialect,
    server_info,
    server_version,
    to_plain,
)
from kgbench.neo4j.loader import (
    GraphValidationError,
    LoadReport,
    LoadVerificationError,
    load_graph,
    read_graph_file,
    validate_graph,
    wipe_database,
)
from kgbench.neo4j.offline import OfflineImportError, import_graph
from kgbench.neo4j.schema import fetch_schema
from kgbench.neo4j.server import LocalNeo4j, Neo4jServerError, ensure_built
from kgbench.neo4j.versions import UnknownNeo4jVersionError, offered_versions

__all__ = [
    "ERROR_CLASSES",
    "GraphReader",
    "GraphValidationError",
    "LoadReport",
    "LoadVerificationError",
    "LocalNeo4j",
    "Neo4jServerError",
    "OfflineImportError",
    "QueryExecutor",
    "QueryFailed",
    "QueryResult",
    "ServerInfo",
    "UnknownNeo4jVersionError",
    "connect",
    "cypher_dialect",
    "ensure_built",
    "fetch_schema",
    "import_graph",
    "load_graph",
    "offered_versions",
    "read_graph_file",
    "server_info",
    "server_version",
    "to_plain",
    "validate_graph",
    "wipe_database",
]
