"""Stub of ``kgbench._core.cypher``: Cypher analysis in Rust (rust/kgbench-core/src/cypher).

Parsing uses the ``open-cypher`` crate (openCypher 2024.3 plus Neo4j's ``CALL { }``
subqueries, ``EXISTS``/``COUNT``/``COLLECT`` subqueries and ``!=``).
"""

from typing import Any, Literal, overload

#: Procedures whose ``CALL`` does not count as a write clause (exact names).
READ_ONLY_PROCEDURES: tuple[str, ...]
#: Name of the single column returned by every provenance query.
ELEMENT_ID_COLUMN: str

class CypherSyntaxError(ValueError):
    """The text is not one openCypher query (syntax error, empty, several
    statements, over 1 MiB or nested over 2000 brackets).

    ``offset`` is the byte offset of the first syntax error, or ``None``.
    """

    offset: int | None

def write_clauses(query: str) -> list[str]:
    """Write clauses of ``query`` in order of first appearance, without duplicates;
    ``[]`` means read-only. Never raises.

    Names: ``CREATE``, ``INSERT``, ``MERGE``, ``SET``, ``DELETE``, ``DETACH DELETE``,
    ``REMOVE``, ``FOREACH``, ``LOAD CSV``, ``CALL <procedure>`` for procedures not in
    :data:`READ_ONLY_PROCEDURES`. Nested clauses (``CALL { }``, ``FOREACH``,
    subquery expressions) count. ``\\uXXXX`` escapes are decoded first, as Neo4j
    decodes them before tokenizing (``\\u0043REATE`` is ``CREATE``). Neo4j 5 read
    syntax (type predicates, ``CALL () { } IN TRANSACTIONS``, quantified paths,
    variables named ``set`` or ``create``) parses. When the query does not parse,
    the result of :func:`lexical_write_clauses` is returned instead.
    """

def lexical_write_clauses(query: str) -> list[str]:
    """Conservative token scan (strings, comments and backtick names ignored):
    reports ``CREATE INSERT MERGE SET REMOVE FOREACH DROP ALTER RENAME GRANT DENY
    REVOKE TERMINATE``, ``DELETE``/``DETACH DELETE``, ``LOAD CSV``, ``START
    DATABASE``/``STOP DATABASE`` and ``CALL <procedure>`` (not read-only) wherever
    they occur, except in positions only a name can take: after ``.``, ``:``, ``::``,
    ``(``, ``[``, ``,``, ``AS``, ``RETURN``, an operator or inside a label expression,
    and before ``.``, ``)``, ``]``, ``}``, ``,``, ``:``, an operator or the end.
    Never raises."""

def provenance_queries(query: str) -> list[str]:
    """Provenance queries of ``query`` for PSJS (SPEC.md §4), one per UNION branch
    (top level, or inside a leading ``CALL { }``) that starts with a MATCH part.

    Each returns the distinct element ids (column ``element_id``) of the nodes
    bound by the MATCH / OPTIONAL MATCH clauses of the branch's MATCH part,
    anonymous nodes included. ``[]`` when no branch has a MATCH part.

    Raises:
        CypherSyntaxError: the query does not parse.
    """

def provenance_details(query: str) -> list[dict[str, object]]:
    """Like :func:`provenance_queries`; each item has ``cypher`` (str),
    ``match_cypher`` (str, the MATCH part with fresh variables on anonymous nodes)
    and ``node_variables`` (list[str]).

    Raises:
        CypherSyntaxError: the query does not parse.
    """

CATEGORIES: tuple[str, ...]

@overload
def analyze_queries(
    queries: list[str],
    schema_json: str | None = None,
    questions: list[str] | None = None,
    entity_values: list[list[str]] | None = None,
    allowed_procedures: list[str] = ...,
    as_json: Literal[False] = False,
) -> list[dict[str, Any]]: ...
@overload
def analyze_queries(
    queries: list[str],
    schema_json: str | None,
    questions: list[str] | None,
    entity_values: list[list[str]] | None,
    allowed_procedures: list[str],
    as_json: Literal[True],
) -> list[tuple[str, bool, bool, bool, str, str, str, list[str]]]: ...
