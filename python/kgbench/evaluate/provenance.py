"""Provenance Subgraph Jaccard Similarity (PSJS) and Executable (Exec).

Definitions (SPEC.md §4; seed cypherbench.txt §5.2): the *provenance subgraph* of
a query is the set of nodes bound by its MATCH part (clauses from the start while
they are MATCH / OPTIONAL MATCH / WHERE / WITH without aliases; every node pattern,
named or anonymous; UNION branches, top level or inside ``CALL { }``, united).
kgbench finds the MATCH part with a real Cypher parser
(:func:`kgbench._core.cypher.provenance_queries`) instead of CypherBench's regular
expressions, and compares Neo4j element ids::

    PSJS = |G ∩ Ĝ| / |G ∪ Ĝ|    (0 when the union is empty)

Identical query strings score 1 without execution. A prediction scores 0 when it
is empty, is a write query (:func:`kgbench._core.cypher.write_clauses`), its MATCH
part does not parse, or its provenance query fails or times out — as in CypherBench,
PSJS depends only on the MATCH part, so a prediction whose RETURN part fails, or has a
syntax error after the MATCH part (``... WITH DISTINCT n RETRUN n.name``), can still
score while its Exec and EX are 0. Queries are parsed for the Cypher dialect of the
executor's server (``executor.dialect``, ``"5"`` or ``"25"``).

Exec is 1 when the predicted query runs without error within the timeout.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kgbench._core import cypher as _cypher
from kgbench.query.gate import Failure, prediction_failure

CypherSyntaxError = _cypher.CypherSyntaxError
provenance_queries = _cypher.provenance_queries
write_clauses = _cypher.write_clauses

#: Error classes kgbench assigns itself; the others come from the query executor
#: (``kgbench.neo4j.executor.ERROR_CLASSES``: ``syntax``, ``semantic/type``, ``timeout``,
#: ``client``, ``database``, ``connection``, ``write``).
#: (``missing``, ``empty`` and ``write`` for a prediction not sent at all come from the
#: prediction gate, :mod:`kgbench.query.gate`.)
#: kgbench's Cypher parser cannot find the MATCH part (PSJS only).
PARSE_ERROR = "parse"
#: The gold query (or its provenance query) failed: the task, not the prediction, is at fault.
GOLD_QUERY_ERROR = "gold"


class QueryResultLike(Protocol):
    """What kgbench needs from ``kgbench.neo4j.QueryResult``."""

    @property
    def rows(self) -> Sequence[Sequence[Any]]:
        """The result rows as plain Python values (empty on failure)."""
        ...

    @property
    def columns(self) -> Sequence[str]:
        """The result's column names (empty on failure)."""
        ...

    @property
    def error_class(self) -> str | None:
        """``None`` on success, else the error class (``kgbench.neo4j.ERROR_CLASSES``)."""
        ...

    @property
    def error(self) -> str | None:
        """``None`` on success, else the one-line error message."""
        ...

    @property
    def ok(self) -> bool:
        """True when the query ran without error."""
        ...


class ExecutorLike(Protocol):
    """What kgbench needs from ``kgbench.neo4j.QueryExecutor``."""

    def run_many(self, queries: Sequence[str], progress: bool | str = False) -> Sequence[Any]:
        """Results of ``queries`` in order; ``progress``: a progress bar (or its label)."""
        ...


@dataclass
class Provenance:
    """Provenance of one query: its branch queries, or why there are none."""

    queries: list[str] = field(default_factory=list)
    failure: Failure | None = None


def jaccard(gold: set[str], pred: set[str]) -> float:
    """``|gold ∩ pred| / |gold ∪ pred|``; 0.0 when both are empty."""
    union = len(gold | pred)
    return len(gold & pred) / union if union else 0.0


def dialect_of(executor: object) -> str:
    """The Cypher dialect (``"5"``/``"25"``) of ``executor``'s server (its ``dialect``
    attribute, :attr:`kgbench.neo4j.QueryExecutor.dialect`), ``"5"`` when it has none."""
    dialect = getattr(executor, "dialect", None)
    return dialect if dialect in ("5", "25") else "5"


def provenance_of(query: str, dialect: str = "5") -> Provenance:
    """Parse ``query`` (Cypher ``dialect``) into its provenance queries; a parse error
    becomes a failure whose message is the front end's one line (``Cypher syntax error at
    byte N: ...``). A syntax error after the MATCH part still yields the MATCH part's
    provenance (CypherBench §5.2)."""
    try:
        return Provenance(queries=provenance_queries(query, dialect))
    except CypherSyntaxError as exc:
        return Provenance(failure=Failure(PARSE_ERROR, str(exc)))


def run_queries(
    executor: ExecutorLike, queries: Iterable[str], progress: bool | str = False
) -> dict[str, QueryResultLike]:
    """Run the distinct ``queries`` once each (in first-seen order); query -> result.

    ``progress`` asks the executor for a progress bar (stderr, terminals only); a string
    is the bar's label."""
    unique = list(dict.fromkeys(queries))
    if not unique:
        return {}
    return dict(zip(unique, executor.run_many(unique, progress=progress), strict=True))


def element_ids(
    queries: Sequence[str], results: dict[str, QueryResultLike]
) -> tuple[set[str], Failure | None]:
    """Union of the ``element_id`` column over the results of ``queries``.

    Returns the set and the first failure (an unsuccessful result), if any.
    """
    ids: set[str] = set()
    for q in queries:
        res = results[q]
        if not res.ok:
            return set(), Failure(res.error_class or "QueryError", res.error or "query failed")
        for row in res.rows:
            if row and row[0] is not None:
                ids.add(str(row[0]))
    return ids, None


def provenance_subgraph(query: str, executor: ExecutorLike) -> set[str]:
    """Element ids of the provenance subgraph of ``query``.

    Raises:
        CypherSyntaxError: the query does not parse.
        RuntimeError: a provenance query failed (message has the executor's error).
    """
    queries = provenance_queries(query, dialect_of(executor))
    results = run_queries(executor, queries)
    ids, failure = element_ids(queries, results)
    if failure is not None:
        raise RuntimeError(f"{failure.error_class}: {failure.error}")
    return ids


def psjs(
    gold_cypher: str,
    pred_cypher: str | None,
    executor: ExecutorLike,
    gold_executor: ExecutorLike | None = None,
) -> tuple[float, Failure | None]:
    """PSJS of one prediction (see the module documentation).

    ``gold_executor`` (default ``executor``) runs the gold provenance queries, so a
    caching executor can be used for them. Returns ``(score, failure)``; a gold
    query that cannot be analysed gives ``(0.0, Failure(GoldQueryError, ...))``.
    Never raises on a bad prediction.
    """
    if pred_cypher == gold_cypher:
        return 1.0, None
    dialect = dialect_of(executor)
    failure = prediction_failure(pred_cypher, dialect)
    if failure is not None:
        return 0.0, failure
    assert pred_cypher is not None
    gold = provenance_of(gold_cypher, dialect_of(gold_executor or executor))
    if gold.failure is not None:
        return 0.0, Failure(GOLD_QUERY_ERROR, gold.failure.error)
    pred = provenance_of(pred_cypher, dialect)
    if pred.failure is not None:
        return 0.0, pred.failure
    gold_results = run_queries(gold_executor or executor, gold.queries)
    gold_ids, gold_fail = element_ids(gold.queries, gold_results)
    if gold_fail is not None:
        return 0.0, Failure(GOLD_QUERY_ERROR, f"{gold_fail.error_class}: {gold_fail.error}")
    pred_results = run_queries(executor, pred.queries)
    pred_ids, pred_fail = element_ids(pred.queries, pred_results)
    if pred_fail is not None:
        return 0.0, pred_fail
    return jaccard(gold_ids, pred_ids), None


def executable(pred_cypher: str | None, executor: ExecutorLike) -> tuple[float, Failure | None]:
    """Exec of one prediction: 1.0 when it runs without error within the executor's
    timeout, else ``(0.0, failure)``. Empty and write queries are not sent."""
    failure = prediction_failure(pred_cypher, dialect_of(executor))
    if failure is not None:
        return 0.0, failure
    assert pred_cypher is not None
    (res,) = executor.run_many([pred_cypher])
    if res.ok:
        return 1.0, None
    return 0.0, Failure(res.error_class or "QueryError", res.error or "query failed")
