"""Stub of ``kgbench._core.cypher``: Cypher analysis in Rust (rust/kgbench-core/src/cypher).

Every function parses through one front end (``kgbench_core::cypher::frontend``): the
``open-cypher`` crate (openCypher 2024.3) with Neo4j 5's additions (``CALL { }``
subqueries, ``EXISTS``/``COUNT``/``COLLECT`` subqueries, type predicates, keyword- and
function-named variables such as ``count``, the deprecated ``[:A|:B]``), ``\\uXXXX``
escapes decoded first, and the forms Neo4j 5 refuses (``!=``, ``size()`` of a pattern,
``[r:A|:B]``) refused. ``dialect`` is the server's Cypher version: ``"5"`` (default) or
``"25"`` (which also refuses ``[:A|:B]``); another value raises
``kgbench.errors.InputError``.
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

def write_clauses(query: str, dialect: str = "5") -> list[str]:
    """Write clauses of ``query`` in order of first appearance, without duplicates;
    ``[]`` means read-only. Never raises.

    Names: ``CREATE``, ``INSERT``, ``MERGE``, ``SET``, ``DELETE``, ``DETACH DELETE``,
    ``REMOVE``, ``FOREACH``, ``LOAD CSV``, ``CALL <procedure>`` for procedures not in
    :data:`READ_ONLY_PROCEDURES`. Nested clauses (``CALL { }``, ``FOREACH``,
    subquery expressions) count. ``\\uXXXX`` escapes are decoded first, as Neo4j
    decodes them before tokenizing (``\\u0043REATE`` is ``CREATE``). Neo4j 5 read
    syntax (type predicates, ``CALL () { } IN TRANSACTIONS``, quantified paths,
    variables named ``set`` or ``create``) parses. When the query does not parse,
    the result of :func:`lexical_write_clauses` (of the decoded text) is returned
    instead; callers that must not trust an unparsed query check
    :func:`syntax_error`.
    """

def syntax_error(query: str, dialect: str = "5") -> str | None:
    """The front end's one-line error for ``query`` (``"Cypher syntax error at byte N:
    reason"``, N a UTF-8 byte offset in ``query`` as given), or ``None`` when it parses.
    The same text as :class:`CypherSyntaxError` and the gate ledgers' ``syntax_error``."""

def lexical_write_clauses(query: str) -> list[str]:
    """Conservative token scan (strings, comments and backtick names ignored):
    reports ``CREATE INSERT MERGE SET REMOVE FOREACH DROP ALTER RENAME GRANT DENY
    REVOKE TERMINATE``, ``DELETE``/``DETACH DELETE``, ``LOAD CSV``, ``START
    DATABASE``/``STOP DATABASE`` and ``CALL <procedure>`` (not read-only) wherever
    they occur, except in positions only a name can take: after ``.``, ``:``, ``::``,
    ``(``, ``[``, ``,``, ``AS``, ``RETURN``, an operator or inside a label expression,
    and before ``.``, ``)``, ``]``, ``}``, ``,``, ``:``, an operator or the end.
    Never raises."""

def provenance_queries(query: str, dialect: str = "5") -> list[str]:
    """Provenance queries of ``query`` for PSJS (SPEC.md §4), one per UNION branch
    (top level, or inside a leading ``CALL { }``) that starts with a MATCH part.

    Each returns the distinct element ids (column ``element_id``) of the nodes
    bound by the MATCH / OPTIONAL MATCH clauses of the branch's MATCH part,
    anonymous nodes included. ``[]`` when no branch has a MATCH part. A query whose
    first syntax error lies after its MATCH part (in the RETURN part, or a WITH with
    aliases) still gets the provenance of its MATCH part (CypherBench §5.2).

    Raises:
        CypherSyntaxError: the query does not parse (or the error lies in its MATCH
            part).
    """

def gate_and_provenance(
    query: str, dialect: str = "5"
) -> tuple[list[str], list[str] | None, str | None]:
    """:func:`write_clauses` and :func:`provenance_queries` of ``query`` from one parse:
    ``(write_clauses, provenance queries or None, error or None)``; the error is the text
    :func:`provenance_queries` would raise as :class:`CypherSyntaxError`. Never raises."""

def provenance_details(query: str, dialect: str = "5") -> list[dict[str, object]]:
    """Like :func:`provenance_queries`; each item has ``cypher`` (str),
    ``match_cypher`` (str, the MATCH part with fresh variables on anonymous nodes)
    , ``node_variables`` (list[str]) and ``relationship_cypher`` (str, the MATCH part
    with fresh variables ``__kgb_r<i>`` on anonymous relationships too, returning the
    distinct element ids of the matched relationships in the column ``element_id``;
    variable-length relationship lists unwound).

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
    dialect: str = "5",
) -> list[dict[str, Any]]: ...
@overload
def analyze_queries(
    queries: list[str],
    schema_json: str | None,
    questions: list[str] | None,
    entity_values: list[list[str]] | None,
    allowed_procedures: list[str],
    as_json: Literal[True],
    dialect: str = "5",
) -> list[tuple[str, bool, bool, bool, str, str, str, list[str]]]: ...
def neighbour_queries(
    gold: str,
    schema_json: str | None = None,
    seed: int = 0,
    max_count: int = 64,
    dialect: str = "5",
) -> list[tuple[str, str]]:
    """Up to ``max_count`` seeded neighbour queries ``(kind, query)`` of ``gold`` for
    test-suite EX (``kgbench_core::cypher::neighbours``): one edit each (``drop_predicate``,
    ``negate_predicate``, ``comparison``, ``constant``, ``distinct``, ``aggregate``,
    ``order``, ``limit``, ``direction``, ``label``, ``type``, ``property``), re-parsed and
    read-only, deduplicated. ``schema_json``: ``{"labels": [...], "types": [...],
    "node_properties": {label: {key: type}}, "relationship_properties": {type: {key:
    type}}}``. Raises ``CypherSyntaxError`` when ``gold`` does not parse, ``InputError``
    for a bad schema or dialect."""
