"""Benchmark of kgbench's Cypher front end (issue 29): parse + read-only gate + PSJS
provenance of many real-shaped queries.

Queries (seeded, ``--queries`` of them, 100,000 by default): 60 % CypherBench-shaped queries
(the seed's templates: basic, special-condition, grouping, aggregation, time-sensitive,
comparison, union via ``CALL { }``; labels, relationship types and names of the demo graph's
kind), 25 % random Neo4j 5 read queries of ``tests/cypher_gen.py`` (type predicates, ``CALL
{ }`` subqueries, quantified paths, keyword-named variables, escapes), and 15 % model-style
variants: ``count(x) AS count ORDER BY count DESC``, ``[:A|:B]``, a syntax error after the
MATCH part (``RETRUN``), a typo inside it, and write queries.

Timed, each on every query, single-threaded, in this process:

- **one parse** — ``gate_and_provenance(q)``: the front end parses once and gives both the
  gate's write clauses and the provenance queries (what evaluation needs per prediction);
- **two parses** — ``write_clauses(q)`` then ``provenance_queries(q)``: the gate and the
  provenance builder called separately, each parsing the query (today's evaluation path:
  ``prediction_failure`` then ``provenance_of``);
- for reference, ``analyze_queries`` (PIPE-Cypher's analysis, the third consumer) in one
  parallel batch.

Printed: queries/s of each and the ratio one-parse / two-parse (target: ≥ 1.0, no slower than
today's fastest path). The verdicts of both paths are compared query by query.

Usage: ``python benches/bench_cypher.py [--queries 100000] [--seed 29]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from kgbench._core import cypher

LABELS = ["Person", "Movie", "Team", "Player", "Company", "Country", "Award", "River", "Taxon"]
TYPES = ["actedIn", "playsFor", "receivesAward", "locatedIn", "hasParent", "operatesIn"]
PROPS = ["name", "height_cm", "launch_year", "population", "release_date", "elevation_m"]
NAMES = ["Toronto Raptors", "Nepal", "Leporidae", "Law and Justice", "Bardel Entertainment"]


def cypherbench_query(rnd: random.Random) -> str:
    """A query of one of CypherBench's template shapes."""
    a, b, c = rnd.sample(LABELS, 3)
    r0, r1 = rnd.choice(TYPES), rnd.choice(TYPES)
    p = rnd.choice(PROPS)
    name = rnd.choice(NAMES).replace("'", "\\'")
    arrow = rnd.choice(["->", "<-"])
    left, right = ("-", "->") if arrow == "->" else ("<-", "-")
    m0 = f"(m0:{b} {{name: '{name}'}})"
    shape = rnd.randrange(8)
    if shape == 0:
        return f"MATCH (n:{a}){left}[r0:{r0}]{right}{m0} WITH DISTINCT n RETURN n.name"
    if shape == 1:
        return (
            f"MATCH (n:{a}){left}[r0:{r0}]{right}(m0:{b})<-[r1:{r1}]-(m1:{c} {{name: '{name}'}})"
            " WITH DISTINCT n RETURN n.name"
        )
    if shape == 2:
        return (
            f"MATCH (n:{a}){left}[r0:{r0}]{right}{m0} WITH DISTINCT n "
            f"WHERE n.{p} > {rnd.randint(1, 2000)} RETURN n.name"
        )
    if shape == 3:
        return (
            f"MATCH (n:{a})<-[r0:{r0}]-(m0:{b}) WITH n, count(DISTINCT m0) AS num "
            "RETURN n.name, num ORDER BY num DESC LIMIT 5"
        )
    if shape == 4:
        return (
            f"MATCH (n:{a}){left}[r0:{r0}]{right}{m0} WHERE r0.start_year <= 1999 AND "
            "(r0.end_year >= 1999 OR r0.end_year IS NULL) WITH DISTINCT n RETURN n.name"
        )
    if shape == 5:
        return (
            f"MATCH (n:{a} {{name: '{name}'}}), (m0:{a} {{name: 'X'}}) RETURN CASE WHEN "
            f"n.{p} > m0.{p} THEN n.name ELSE m0.name END AS answer"
        )
    if shape == 6:
        return (
            f"CALL {{ MATCH (n:{a})-[r0:{r0}]->(m0:{b} {{name: '{name}'}}) RETURN n, m0 AS m "
            f"UNION MATCH (n:{a})-[r1:{r1}]->(m1:{c}) RETURN n, m1 AS m }} "
            "WITH DISTINCT n RETURN n.name"
        )
    return f"MATCH (n:{a}){left}[r0:{r0}]{right}{m0} WITH DISTINCT n RETURN avg(n.{p})"


def model_variant(rnd: random.Random) -> str:
    """Forms LLMs write: keyword-named aliases, `[:A|:B]`, typos, writes."""
    a, b = rnd.sample(LABELS, 2)
    r0, r1 = rnd.sample(TYPES, 2)
    kind = rnd.randrange(5)
    if kind == 0:
        return (
            f"MATCH (t:{a})<-[:{r0}]-(p:{b}) RETURN t.name, count(p) AS count "
            "ORDER BY count DESC LIMIT 3"
        )
    if kind == 1:
        return f"MATCH (n:{a})-[:{r0}|:{r1}]->(m:{b}) RETURN DISTINCT m.name"
    if kind == 2:
        return f"MATCH (n:{a})-[:{r0}]->(m:{b}) WITH DISTINCT n RETRUN n.name"
    if kind == 3:
        return f"MATCH (n:{a})-[:{r0}]->(m:{b}) WHER m.name = 'x' RETURN n.name"
    return f"MATCH (n:{a}) SET n.seen = true RETURN n"


def queries(n: int, seed: int) -> list[str]:
    import cypher_gen

    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        u = rnd.random()
        if u < 0.60:
            out.append(cypherbench_query(rnd))
        elif u < 0.85:
            out.append(cypher_gen.read_query(rnd))
        else:
            out.append(model_variant(rnd))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=29)
    args = ap.parse_args(argv)
    qs = queries(args.queries, args.seed)
    n = len(qs)
    print(f"{n} queries ({len(set(qs))} distinct), mean {sum(map(len, qs)) / n:.0f} chars")

    t0 = time.perf_counter()
    one = [cypher.gate_and_provenance(q) for q in qs]
    t_one = time.perf_counter() - t0

    t0 = time.perf_counter()
    two = []
    for q in qs:
        writes = cypher.write_clauses(q)
        try:
            prov: list[str] | None = cypher.provenance_queries(q)
            error = None
        except cypher.CypherSyntaxError as exc:
            prov, error = None, str(exc)
        two.append((writes, prov, error))
    t_two = time.perf_counter() - t0

    t0 = time.perf_counter()
    rows = cypher.analyze_queries(qs, as_json=True)
    t_analyze = time.perf_counter() - t0

    agree = sum(x == y for x, y in zip(one, two, strict=True))
    refused = sum(1 for w, _, _ in one if w)
    no_prov = sum(1 for _, p, _ in one if p is None)
    parsed = sum(1 for r in rows if r[2])
    print(
        f"verdicts: {agree}/{n} identical on both paths; {refused} refused by the gate, "
        f"{no_prov} without provenance (syntax error in the MATCH part), {parsed} pass G2"
    )
    print(f"one parse  (gate_and_provenance):           {n / t_one:10,.0f} queries/s")
    print(f"two parses (write_clauses + provenance):    {n / t_two:10,.0f} queries/s")
    print(f"analyze_queries (parallel batch, for ref.): {n / t_analyze:10,.0f} queries/s")
    ratio = t_two / t_one
    print(
        f"ratio one-parse / two-parse throughput: {ratio:.2f}x "
        f"(target >= 1.00: {'met' if ratio >= 1.0 else 'NOT met'})"
    )
    return 0 if agree == n else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
