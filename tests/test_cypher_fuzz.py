"""Fuzzing the read-only gate and the provenance builder (issue 18).

Inputs come from tests/cypher_gen.py (random Neo4j 5 read queries, write queries and
damaged queries), driven by hypothesis. Each input must be handled within
:data:`DEADLINE_MS` without a crash; generated read queries must pass the gate and give
provenance queries; generated write queries must be refused. ``test_verdicts_agree_with_neo4j``
checks a sample against the local Neo4j server.

``KGBENCH_FUZZ_INPUTS`` sets the number of queries per test (default
:data:`DEFAULT_INPUTS`, a few seconds for CI); the full run (1M queries through the gate and
the provenance builder) is
``KGBENCH_FUZZ_INPUTS=500000 pytest -q tests/test_cypher_fuzz.py -m "not neo4j" -s``
(in hypothesis runs of :data:`CHUNK` examples; the counts and times are printed).
``KGBENCH_FUZZ_NEO4J_SAMPLE`` sets the number of generated read queries (with as many
damaged copies and half as many write queries) checked against Neo4j.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cypher_gen import mutate, read_query, write_query
from kgbench._core import cypher

DEFAULT_INPUTS = 600
#: Queries per test (each hypothesis example checks a generated query and a damaged copy).
INPUTS = int(os.environ.get("KGBENCH_FUZZ_INPUTS", DEFAULT_INPUTS))
#: Examples per hypothesis run (a run keeps per-example data; 500k in one run would not fit).
CHUNK = 20_000
#: Longest time one example (two queries) may take (hypothesis fails the example beyond it).
DEADLINE_MS = 1000
NEO4J_SAMPLE = int(os.environ.get("KGBENCH_FUZZ_NEO4J_SAMPLE", 25))


def fuzz(check: Callable[[random.Random], int], inputs: int = INPUTS) -> int:
    """Run ``check`` on ``random.Random`` instances seeded by hypothesis until it has
    checked ``inputs`` queries (``check`` returns how many it checked); the count.

    (A hypothesis-driven ``st.randoms()`` costs ~7 ms per query; a seed is as
    reproducible: a failure names it.)"""
    count = 0

    @settings(
        max_examples=min(max(1, inputs // 2), CHUNK),
        deadline=DEADLINE_MS,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.integers(min_value=0, max_value=2**64 - 1))
    def run(seed: int) -> None:
        nonlocal count
        count += check(random.Random(seed))

    start = time.perf_counter()
    while count < inputs:
        before = count
        run()
        if count == before:  # pragma: no cover - hypothesis found nothing more to try
            break
    elapsed = time.perf_counter() - start
    print(
        f"\n{check.__name__}: {count} queries in {elapsed:.1f} s "
        f"({1e6 * elapsed / max(count, 1):.0f} us per query)",
        file=sys.stderr,
    )
    return count


def provenance_or_syntax_error(query: str) -> list[str] | None:
    """Provenance queries of ``query``; ``None`` on a syntax error (other errors raise)."""
    try:
        return cypher.provenance_queries(query)
    except cypher.CypherSyntaxError:
        return None


def check_read(rnd: random.Random) -> int:
    query = read_query(rnd)
    assert cypher.write_clauses(query) == [], query
    provenance = cypher.provenance_queries(query)
    assert provenance, query
    # A damaged query: any verdict, but no crash.
    damaged = mutate(rnd, query)
    assert isinstance(cypher.write_clauses(damaged), list)
    provenance_or_syntax_error(damaged)
    return 2


def check_write(rnd: random.Random) -> int:
    query, clause = write_query(rnd)
    assert clause in cypher.write_clauses(query), query
    provenance_or_syntax_error(query)
    damaged = mutate(rnd, query)
    assert isinstance(cypher.write_clauses(damaged), list)
    provenance_or_syntax_error(damaged)
    return 2


def test_read_queries() -> None:
    assert fuzz(check_read) >= INPUTS


def test_write_queries() -> None:
    assert fuzz(check_write) >= INPUTS


# --- Neo4j agreement ----------------------------------------------------------------------

#: Neo4j's error code for a write attempted in a READ session.
ACCESS_MODE = "Neo.ClientError.Statement.AccessMode"


def neo4j_verdict(driver: Any, query: str) -> tuple[str, str]:
    """``"syntax"`` (EXPLAIN fails in a READ session), ``"write"`` (running it in a READ
    session is refused as a write) or ``"read"`` (Neo4j accepts it read-only; a runtime
    error or timeout after the access check still counts as read); and Neo4j's message."""
    import neo4j

    with driver.session(
        default_access_mode=neo4j.READ_ACCESS, notifications_min_severity="OFF"
    ) as session:
        try:
            session.run(neo4j.Query("EXPLAIN " + query, timeout=5)).consume()  # type: ignore[arg-type]
        except neo4j.exceptions.Neo4jError as exc:
            return "syntax", str(exc.message)
    with driver.session(
        default_access_mode=neo4j.READ_ACCESS, notifications_min_severity="OFF"
    ) as session:
        try:
            session.run(neo4j.Query(query, timeout=2)).consume()  # type: ignore[arg-type]
        except neo4j.exceptions.Neo4jError as exc:
            if exc.code == ACCESS_MODE:
                return "write", str(exc.message)
        except neo4j.exceptions.DriverError:
            pass
    return "read", ""


@pytest.mark.neo4j
def test_verdicts_agree_with_neo4j(neo4j_driver: Any) -> None:
    """On a sample of generated read, write and damaged queries: what Neo4j accepts as
    read-only the gate does not refuse, and what the gate passes Neo4j does not refuse as a
    write. Nearly all generated read queries must be valid Neo4j (the generator's check)."""
    rnd = random.Random(18)
    sample: list[tuple[str, str]] = []
    for _ in range(NEO4J_SAMPLE):
        read = read_query(rnd)
        sample.append(("read", read))
        sample.append(("damaged", mutate(rnd, read)))
        if rnd.random() < 0.5:
            sample.append(("write", write_query(rnd)[0]))
    tally: Counter[tuple[str, str]] = Counter()
    contradictions: list[str] = []
    for kind, query in sample:
        verdict, message = neo4j_verdict(neo4j_driver, query)
        tally[kind, verdict] += 1
        refused = cypher.write_clauses(query)
        if verdict == "read" and refused:
            contradictions.append(f"Neo4j reads, gate refuses {refused}: {query}")
        if verdict == "write" and not refused:
            contradictions.append(f"Neo4j writes, gate passes: {query}")
        if kind == "read" and verdict != "read":
            contradictions.append(
                f"generated read query is {verdict} for Neo4j: {query}: {message}"
            )
    print(f"\nNeo4j verdicts on {len(sample)} queries: {dict(tally)}", file=sys.stderr)
    assert not contradictions, "\n".join(contradictions)
    assert tally["write", "write"] > 0
