"""Write the differential Cypher corpus ``corpus.jsonl`` (issue 29; see README.md here).

Every query was written for kgbench, over the schema of the tiny graph
``tests/data/cypher/graph.json`` (labels ``Player``, ``Team``, ``Award``, ``Division``;
relationship types ``playsFor``, ``receivesAward``, ``partOf``), so that most reads are
semantically valid on a database loaded with it. Categories (``category`` field):

- ``manual``: one query per construct in the style of the examples of Neo4j's Cypher
  manual (clauses, subqueries, comprehensions, CASE, quantified and shortest paths, label
  expressions, type predicates, functions, map projections, parameters), each instantiated on
  the three relationship types of the schema;
- ``keyword_names``: keywords and function names used as variables, aliases, labels,
  relationship types, property keys and map keys, in every clause;
- ``deprecated``: forms Neo4j 5 deprecates but still accepts, and forms it removed (both
  verdicts are exercised);
- ``dialect``: Cypher 5 and Cypher 25 novelties (what one of the two dialects refuses);
- ``writes``: queries that write (every writing clause, nested, escaped, in any case);
- ``not_writes``: write keywords inside strings, comments, names and backticks (reads);
- ``policy``: reads that kgbench refuses by design (``LOAD CSV`` reads files; procedure calls
  off the allow-list), checked separately by the replay test;
- ``cypherbench``: the MATCH/RETURN templates of CypherBench's generator instantiated on
  the graph (the gold-query shape of SPEC.md §3);
- ``llm_style``: what models write around those (``count(p) AS count ORDER BY count DESC``,
  lower-case keywords, fences, end tokens, APOC calls, regexes, semicolons);
- ``mutations``: seeded token-level damage of reads from the other categories (dropped,
  swapped and duplicated tokens, keyword typos such as ``RETRUN``, unbalanced brackets).

Run ``python tests/data/cypher/neo4j/make_corpus.py`` (no arguments: the output sits next to
this script; ``--out FILE`` elsewhere). The output depends only on :data:`SEED` and this file.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

SEED = 29
HERE = Path(__file__).resolve().parent

# --- the schema of tests/data/cypher/graph.json -------------------------------------------------

#: One relationship type with its end labels, a property of each end, names that exist and a
#: relationship property (``None``: the type has none).
BINDINGS = [
    {
        "S": "Player",
        "R": "playsFor",
        "O": "Team",
        "sp": "height_cm",
        "op": "inception_year",
        "sn": "Alice Archer",
        "on": "Toronto Raptors",
        "rp": "start_year",
        "num": "200",
        "slist": "nicknames",
    },
    {
        "S": "Player",
        "R": "receivesAward",
        "O": "Award",
        "sp": "date_of_birth",
        "op": "name",
        "sn": "Carl Cole",
        "on": "MVP",
        "rp": "year",
        "num": "2004",
        "slist": "nicknames",
    },
    {
        "S": "Team",
        "R": "partOf",
        "O": "Division",
        "sp": "inception_year",
        "op": "name",
        "sn": "Boston Celtics",
        "on": "Atlantic",
        "rp": None,
        "num": "1960",
        "slist": "aliases",
    },
]

# --- manual-style constructs ---------------------------------------------------------------------

#: Templates over a binding: ``{S}``/``{O}`` labels, ``{R}`` type, ``{sp}``/``{op}`` properties,
#: ``{sn}``/``{on}`` names, ``{rp}`` a relationship property, ``{num}`` a number, ``{slist}`` a
#: list property. Braces of Cypher are doubled.
MANUAL = [
    # MATCH, WHERE, RETURN
    "MATCH (n) RETURN n",
    "MATCH (n:{S}) RETURN n.name",
    "MATCH (n:{S} {{name: '{sn}'}}) RETURN n.{sp}",
    "MATCH (n:{S}) WHERE n.name = '{sn}' RETURN n",
    "MATCH (a:{S})-[:{R}]->(b:{O}) RETURN a.name, b.name",
    "MATCH (a:{S})-[r:{R}]->(b:{O}) RETURN type(r), a.name",
    "MATCH (a:{S})<-[:{R}]-(b) RETURN a.name",
    "MATCH (a:{S})-[:{R}]-(b) RETURN a.name, b.name",
    "MATCH (a)-->(b:{O}) RETURN count(a)",
    "MATCH (a)--(b) RETURN count(*) AS pairs",
    "MATCH (a:{S})-[r]->(b) RETURN a.name, type(r), b.name",
    "MATCH (a:{S}), (b:{O}) RETURN a.name, b.name LIMIT 3",
    "MATCH (a:{S})-[:{R}]->(b:{O}) WHERE b.name = '{on}' RETURN a.name",
    "MATCH (a:{S})-[:{R}]->(b:{O} {{name: '{on}'}}) RETURN DISTINCT a.name",
    "MATCH (n:{S}) WHERE n.{sp} IS NOT NULL RETURN n.name, n.{sp}",
    "MATCH (n:{S}) WHERE n.{sp} IS NULL RETURN n.name",
    "MATCH (n:{S}) WHERE n.name STARTS WITH 'A' RETURN n.name",
    "MATCH (n:{S}) WHERE n.name ENDS WITH 's' RETURN n.name",
    "MATCH (n:{S}) WHERE n.name CONTAINS 'o' RETURN n.name",
    "MATCH (n:{S}) WHERE n.name =~ '(?i).*{sn0}.*' RETURN n.name",
    "MATCH (n:{S}) WHERE n.name IN ['{sn}', 'nobody'] RETURN n.name",
    "MATCH (n:{S}) WHERE NOT n.name = '{sn}' RETURN n.name",
    "MATCH (n:{S}) WHERE n.name <> '{sn}' AND n.{sp} IS NOT NULL RETURN n.name",
    "MATCH (n:{S}) WHERE n.name = '{sn}' OR n.name = 'x' RETURN n.name",
    "MATCH (n:{S}) WHERE n.name = '{sn}' XOR n.{sp} IS NULL RETURN n.name",
    "MATCH (n:{S} WHERE n.name = '{sn}') RETURN n.{sp}",
    "MATCH (a:{S})-[r:{R} WHERE r.{rp} > 0]->(b) RETURN a.name",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.name",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.name DESC",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.{sp} ASC, n.name DESCENDING",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.name SKIP 1 LIMIT 2",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.name OFFSET 1 LIMIT 2",
    "MATCH (n:{S}) RETURN n.name SKIP 1",
    "MATCH (n:{S}) RETURN n.name LIMIT 1",
    "MATCH (n:{S}) RETURN n.name LIMIT $limit",
    "MATCH (n:{S}) RETURN DISTINCT n.{sp}",
    "MATCH (n:{S}) RETURN n.name AS name, n.{sp} AS value",
    "MATCH (n:{S}) RETURN *",
    "MATCH p = (a:{S})-[:{R}]->(b) RETURN p",
    "MATCH p = (a:{S})-[:{R}]->(b) RETURN length(p), nodes(p), relationships(p)",
    # OPTIONAL MATCH
    "MATCH (a:{S}) OPTIONAL MATCH (a)-[:{R}]->(b) RETURN a.name, b.name",
    "MATCH (a:{S}) OPTIONAL MATCH (a)-[r:{R}]->(b:{O}) RETURN a.name, r.{rp}",
    "OPTIONAL MATCH (n:{S} {{name: 'nobody'}}) RETURN n",
    # WITH
    "MATCH (a:{S})-[:{R}]->(b) WITH a, count(b) AS degree WHERE degree > 0 RETURN a.name, degree",
    "MATCH (a:{S}) WITH a ORDER BY a.name LIMIT 2 RETURN a.name",
    "MATCH (a:{S}) WITH DISTINCT a RETURN a.name",
    "MATCH (a:{S}) WITH a.name AS name WHERE name STARTS WITH 'B' RETURN name",
    "MATCH (a:{S}) WITH * RETURN a.name",
    "WITH '{sn}' AS name MATCH (a:{S} {{name: name}}) RETURN a.{sp}",
    "MATCH (a:{S}) WITH collect(a.name) AS names RETURN size(names)",
    # UNWIND
    "UNWIND [1, 2, 3] AS x RETURN x",
    "UNWIND ['{sn}', '{on}'] AS name MATCH (n {{name: name}}) RETURN labels(n)",
    "MATCH (n:{S}) UNWIND n.{slist} AS item RETURN DISTINCT item",
    "UNWIND [[1, 2], [3]] AS inner UNWIND inner AS x RETURN sum(x)",
    "UNWIND $names AS name RETURN name",
    "UNWIND [] AS empty RETURN empty",
    # aggregation
    "MATCH (n:{S}) RETURN count(n)",
    "MATCH (n:{S}) RETURN count(*)",
    "MATCH (n:{S}) RETURN count(DISTINCT n.{sp})",
    "MATCH (a:{S})-[:{R}]->(b:{O}) RETURN b.name, count(a) AS total ORDER BY total DESC",
    "MATCH (a:{S})-[:{R}]->(b:{O}) RETURN b.name, collect(a.name) AS names",
    "MATCH (a:{S})-[:{R}]->(b:{O}) RETURN b.name, collect(DISTINCT a.name)[0..2] AS names",
    "MATCH (n:Player) RETURN avg(n.height_cm), min(n.height_cm), max(n.height_cm)",
    "MATCH (n:Player) RETURN sum(n.height_cm) / count(n) AS mean",
    "MATCH (n:Player) RETURN stDev(n.height_cm), percentileCont(n.height_cm, 0.5)",
    "MATCH (n:Player) RETURN percentileDisc(n.height_cm, 0.9), stDevP(n.height_cm)",
    "MATCH (n:{S}) RETURN n.{sp}, count(*) AS c ORDER BY c DESC LIMIT 1",
    # UNION
    "MATCH (n:{S}) RETURN n.name AS name UNION MATCH (m:{O}) RETURN m.name AS name",
    "MATCH (n:{S}) RETURN n.name AS name UNION ALL MATCH (m:{O}) RETURN m.name AS name",
    "MATCH (n:{S}) RETURN n.name AS name UNION MATCH (m:{O}) RETURN m.name AS other",
    # CALL subqueries
    "CALL {{ MATCH (n:{S}) RETURN n }} RETURN n.name",
    "MATCH (b:{O}) CALL {{ WITH b MATCH (a)-[:{R}]->(b) RETURN count(a) AS c }} RETURN b.name, c",
    "MATCH (b:{O}) CALL (b) {{ MATCH (a)-[:{R}]->(b) RETURN count(a) AS c }} RETURN b.name, c",
    "MATCH (b:{O}) CALL (*) {{ MATCH (a)-[:{R}]->(b) RETURN count(a) AS c }} RETURN b.name, c",
    "MATCH (b:{O}) CALL () {{ MATCH (x:{S}) RETURN count(x) AS c }} RETURN b.name, c",
    "CALL {{ MATCH (n:{S}) RETURN n.name AS name UNION MATCH (m:{O}) RETURN m.name AS name }} "
    "RETURN name ORDER BY name",
    "MATCH (b:{O}) OPTIONAL CALL (b) {{ MATCH (a)-[:{R}]->(b) RETURN a }} RETURN b.name, a.name",
    "MATCH (b:{O}) CALL (b) {{ MATCH (a)-[:{R}]->(b) RETURN a LIMIT 1 }} RETURN b.name, a.name",
    "CALL db.labels() YIELD label RETURN label",
    "CALL db.labels() YIELD label WHERE label STARTS WITH 'P' RETURN label",
    "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType",
    "CALL db.propertyKeys()",
    "CALL db.schema.visualization()",
    "CALL db.labels",
    "CALL dbms.components() YIELD name, versions RETURN name, versions",
    "CALL db.info()",
    "CALL db.ping()",
    "CALL db.schema.nodeTypeProperties()",
    "MATCH (n:{S}) CALL db.labels() YIELD label RETURN n.name, label",
    # subquery expressions
    "MATCH (a:{S}) WHERE EXISTS {{ (a)-[:{R}]->(:{O}) }} RETURN a.name",
    "MATCH (a:{S}) WHERE EXISTS {{ MATCH (a)-[:{R}]->(b) WHERE b.name = '{on}' }} RETURN a.name",
    "MATCH (a:{S}) WHERE NOT EXISTS {{ (a)-[:{R}]->() }} RETURN a.name",
    "MATCH (a:{S}) RETURN a.name, COUNT {{ (a)-[:{R}]->() }} AS degree",
    "MATCH (a:{S}) WHERE COUNT {{ (a)-->() }} > 1 RETURN a.name",
    "MATCH (a:{S}) RETURN a.name, COLLECT {{ MATCH (a)-[:{R}]->(b) RETURN b.name }} AS targets",
    "MATCH (a:{S}) RETURN a.name, EXISTS {{ MATCH (a)-[:{R}]->(b) RETURN b }} AS has",
    "MATCH (a:{S}) WHERE EXISTS {{ MATCH (a)-[:{R}]->(b) RETURN b.name UNION "
    "MATCH (a)<-[:{R}]-(b) RETURN b.name }} RETURN a.name",
    # comprehensions, CASE
    "RETURN [x IN range(0, 10) WHERE x % 2 = 0 | x ^ 2] AS squares",
    "MATCH (b:{O}) RETURN b.name, [(a)-[:{R}]->(b) | a.name] AS names",
    "MATCH (b:{O}) RETURN b.name, [(a)-[:{R}]->(b) WHERE a.name STARTS WITH 'A' | a.name] AS n",
    "MATCH (n:{S}) RETURN CASE WHEN n.{sp} IS NULL THEN 'none' ELSE 'some' END AS kind",
    "MATCH (n:{S}) RETURN CASE n.name WHEN '{sn}' THEN 1 WHEN 'x' THEN 2 ELSE 0 END AS code",
    "MATCH (n:{S}) RETURN CASE n.name WHEN '{sn}', 'x' THEN 1 ELSE 0 END AS code",
    "MATCH (n:Player) RETURN CASE n.height_cm WHEN > 200 THEN 'tall' ELSE 'short' END AS h",
    "RETURN all(x IN [1, 2] WHERE x > 0) AS a, any(x IN [1] WHERE x = 1) AS b",
    "RETURN none(x IN [1, 2] WHERE x > 5) AS a, single(x IN [1, 2] WHERE x = 1) AS b",
    "RETURN reduce(total = 0, x IN [1, 2, 3] | total + x) AS total",
    "RETURN [1, 2, 3][1] AS second, [1, 2, 3][-1] AS last, [1, 2, 3][0..2] AS slice",
    "RETURN {{a: 1, b: 'x'}}.a AS a, {{a: 1}}['a'] AS b",
    "MATCH (n:{S}) RETURN n {{.name, .{sp}}} AS m",
    "MATCH (n:{S}) RETURN n {{.*, kind: 'x'}} AS m",
    "MATCH (a:{S})-[:{R}]->(b) RETURN a {{.name, targets: collect(b.name)}} AS m",
    "MATCH (n:{S}) WITH n, 'x' AS extra RETURN n {{.name, extra}} AS m",
    # paths
    "MATCH (a:{S})-[:{R}*1..2]->(b) RETURN a.name, b.name",
    "MATCH (a:{S})-[*]-(b) RETURN count(b)",
    "MATCH (a:{S})-[*0..1]-(b) RETURN DISTINCT b.name",
    "MATCH (a:{S})-[r:{R}*..3]->(b) RETURN size(r)",
    "MATCH p = shortestPath((a:{S} {{name: '{sn}'}})-[*]-(b:{O} {{name: '{on}'}})) "
    "RETURN length(p)",
    "MATCH p = allShortestPaths((a:{S})-[*..4]-(b:{O})) RETURN p",
    "MATCH p = SHORTEST 1 (a:{S})-[:{R}]-+(b:{O}) RETURN p",
    "MATCH p = ANY SHORTEST (a:{S})-[:{R}]-+(b:{O}) RETURN length(p)",
    "MATCH p = ALL SHORTEST (a:{S})--+(b:{O}) RETURN p",
    "MATCH p = SHORTEST 2 GROUPS (a:{S})--{{1,3}}(b:{O}) RETURN p",
    "MATCH p = ANY (a:{S})--+(b:{O}) RETURN p",
    "MATCH (a:{S}) ((x)-[:{R}]->(y)){{1,2}} (b) RETURN a.name, b.name",
    "MATCH (a:{S}) ((x)-[r:{R}]->(y) WHERE r.{rp} > 0)+ (b) RETURN b.name",
    "MATCH (a:{S}) (()-[:{R}]->()){{1}} (b:{O}) RETURN a.name",
    "MATCH (a:{S})-[:{R}]->{{1,2}}(b) RETURN b.name",
    "MATCH (a:{S})-[:{R}]->+(b) RETURN b.name",
    "MATCH (a:{S})-[:{R}]->*(b) RETURN b.name",
    "MATCH (a:{S}) ((x)--(y)){{,2}} (b) RETURN size(x)",
    "MATCH REPEATABLE ELEMENTS (a:{S})-[:{R}]->{{1,2}}(b) RETURN b.name",
    "MATCH DIFFERENT RELATIONSHIPS (a:{S})-[:{R}]->(b) RETURN b.name",
    # label expressions, type predicates
    "MATCH (n:{S}|{O}) RETURN n.name",
    "MATCH (n:{S}&{O}) RETURN n.name",
    "MATCH (n:!{S}) RETURN n.name",
    "MATCH (n:%) RETURN count(n)",
    "MATCH (n:!%) RETURN count(n)",
    "MATCH (n:({S}|{O})&!Award) RETURN n.name",
    "MATCH (n) WHERE n:{S} RETURN n.name",
    "MATCH (n) WHERE n:{S}|{O} RETURN n.name",
    "MATCH (n:{S}:{O}) RETURN n",
    "MATCH (a)-[r:{R}|partOf]->(b) RETURN type(r)",
    "MATCH (a)-[r:!{R}]->(b) RETURN type(r)",
    "MATCH (a)-[r:%]->(b) RETURN count(r)",
    "MATCH (a)-[r]->(b) WHERE r:{R} RETURN count(r)",
    "MATCH (n:{S}) WHERE n.{sp} IS :: INTEGER RETURN n.name",
    "MATCH (n:{S}) WHERE n.{sp} IS NOT :: STRING RETURN n.name",
    "MATCH (n:{S}) WHERE n.{sp} :: FLOAT | INTEGER RETURN n.name",
    "MATCH (n:{S}) RETURN n.name IS :: STRING NOT NULL AS s",
    "MATCH (n:{S}) WHERE n.{slist} IS :: LIST<STRING> RETURN n.name",
    "MATCH (n:{S}) WHERE n.name IS NORMALIZED RETURN n.name",
    "MATCH (n:{S}) WHERE n.name IS NOT NFC NORMALIZED RETURN n.name",
    # functions
    "MATCH (n:{S}) RETURN toUpper(n.name), toLower(n.name), trim(n.name)",
    "MATCH (n:{S}) RETURN substring(n.name, 0, 3), left(n.name, 2), right(n.name, 2)",
    "MATCH (n:{S}) RETURN replace(n.name, 'a', 'b'), split(n.name, ' '), reverse(n.name)",
    "MATCH (n:{S}) RETURN ltrim(n.name), rtrim(n.name), btrim(n.name, 'A')",
    "MATCH (n:{S}) RETURN size(n.name), char_length(n.name), character_length(n.name)",
    "MATCH (n:{S}) RETURN lower(n.name), upper(n.name), normalize(n.name)",
    "MATCH (n:{S}) RETURN toString(n.{sp}), toInteger('42'), toFloat('1.5'), toBoolean('true')",
    "MATCH (n:{S}) RETURN toIntegerOrNull(n.name), toFloatOrNull(n.name), toStringOrNull(n)",
    "MATCH (n:{S}) RETURN coalesce(n.{sp}, n.name), valueType(n.{sp})",
    "MATCH (n:{S}) RETURN elementId(n), labels(n), keys(n), properties(n)",
    "MATCH (a:{S})-[r:{R}]->(b) RETURN startNode(r).name, endNode(r).name, type(r)",
    "MATCH (n:{S}) RETURN head(collect(n.name)), last(collect(n.name)), tail([1, 2])",
    "RETURN range(1, 10, 3), size([1, 2]), isEmpty([]), reverse([1, 2])",
    "RETURN abs(-1), ceil(1.2), floor(1.8), round(1.5), round(1.25, 1), sign(-2)",
    "RETURN sqrt(16), exp(1), log(10), log10(100), e(), pi(), rand() < 1",
    "RETURN sin(0), cos(0), tan(0), asin(0), acos(1), atan(0), atan2(0, 1), degrees(pi())",
    "RETURN isNaN(0.0 / 0.0), 10 % 3, 2 ^ 10, -1 * 3",
    "RETURN date(), datetime(), localdatetime(), time(), localtime()",
    "RETURN date('2020-01-02').year, datetime('2020-01-02T03:04:05Z').hour",
    "MATCH (n:Player) RETURN n.date_of_birth.year, n.date_of_birth.month",
    "MATCH (n:Player) WHERE n.date_of_birth < date('1985-01-01') RETURN n.name",
    "MATCH (n:Player) RETURN duration.between(n.date_of_birth, date('2020-01-01')).years AS age",
    "MATCH (n:Player) RETURN duration.inDays(n.date_of_birth, date()).days",
    "RETURN duration('P1Y2M'), duration({{days: 3}}), date('2020-01-01') + duration('P1D')",
    "RETURN date.truncate('month', date('2020-05-17')), datetime.fromepoch(0, 0)",
    "RETURN timestamp() > 0, date.statement(), datetime.transaction()",
    "RETURN point({{x: 1, y: 2}}), point.distance(point({{x: 0, y: 0}}), point({{x: 3, y: 4}}))",
    "RETURN point({{latitude: 1.0, longitude: 2.0}}).latitude",
    "RETURN randomUUID() IS NOT NULL, toString(1.5), 'a' + 'b', 'x' || 'y'",
    "RETURN [1, 2] + [3], 1 IN [1, 2], [1, 2] = [1, 2]",
    "RETURN 'ab' STARTS WITH 'a', 'ab' < 'b', null IS NULL, 1 < 2 <= 3",
    "RETURN 0x1F, 0o17, 1e3, .5, 1_000, -0.0, 'quote\\'s', \"double\"",
    "RETURN [x IN [1, null] WHERE x IS NOT NULL] AS l, size([]) AS z",
    "MATCH (n:{S}) RETURN nullIf(n.name, '{sn}'), n.name IS NOT NULL AS has",
    "RETURN vector.similarity.cosine([1.0, 0.0], [1.0, 0.0]) AS sim",
    # parameters, USE, CYPHER prefix, FINISH, comments
    "MATCH (n:{S}) WHERE n.name = $name RETURN n.{sp}",
    "MATCH (n:{S} {{name: $name}}) RETURN n",
    "MATCH (n:{S}) WHERE n.name IN $names RETURN n.name",
    "MATCH (n:{S}) WHERE n.{sp} > $0 RETURN n.name",
    "MATCH (n:{S}) WITH n SKIP $s LIMIT $l RETURN n.name",
    "USE neo4j MATCH (n:{S}) RETURN n.name",
    "CYPHER MATCH (n:{S}) RETURN n.name",
    "CYPHER runtime=slotted MATCH (n:{S}) RETURN n.name",
    "CYPHER 5 MATCH (n:{S}) RETURN n.name",
    "CYPHER 25 MATCH (n:{S}) RETURN n.name",
    "MATCH (n:{S}) FINISH",
    "MATCH (n:{S}) // a comment\nRETURN n.name",
    "/* leading comment */ MATCH (n:{S}) RETURN n.name",
    "MATCH (n:{S}) RETURN n.name; ",
    "MATCH (`my node`:{S}) RETURN `my node`.name AS `the name`",
    "MATCH (n:`{S}`)-[:`{R}`]->(m:`{O}`) RETURN n.`name`",
    "match (n:{S}) where n.name = '{sn}' return n.name",
    "Match (n:{S}) Return Distinct n.name Order By n.name Limit 2",
    "MATCH (n:{S}) WHERE n.name = '{sn}' RETURN n.name AS name\nORDER BY name",
    "SHOW FUNCTIONS YIELD name RETURN count(name)",
    "SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'db.' RETURN name",
    "SHOW INDEXES",
    "SHOW CONSTRAINTS YIELD name RETURN name",
    "SHOW TRANSACTIONS",
    "SHOW DATABASES",
    "EXPLAIN MATCH (n:{S}) RETURN n",
    # scope after DISTINCT / aggregation, ORDER BY on what is not returned
    "MATCH (n:{S}) RETURN DISTINCT n.name ORDER BY n.{sp}",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.{sp}",
    "MATCH (n:{S}) RETURN count(n) AS c ORDER BY n.name",
    "MATCH (n:{S}) WITH DISTINCT n.name AS name RETURN name ORDER BY name",
    "MATCH (n:{S}) RETURN n.name AS name ORDER BY toLower(name) LIMIT toInteger('2')",
    "MATCH (n:{S}) RETURN n.name SKIP $skip LIMIT $limit",
    # more subqueries and combinations
    "MATCH (n:{S}) WITH n, COUNT {{ (n)-[:{R}]->() }} AS degree RETURN n.name ORDER BY degree DESC",
    "MATCH (n:{S}) WHERE COLLECT {{ MATCH (n)-[:{R}]->(m) RETURN m.name }} <> [] RETURN n.name",
    "MATCH (n:{S}) RETURN n.name, [(n)-[:{R}]->(m) | m.name][0] AS first",
    "MATCH (n:{S}) CALL (n) {{ MATCH (n)-[:{R}]->(m) RETURN m.name AS x UNION "
    "MATCH (n)<-[:{R}]-(m) RETURN m.name AS x }} RETURN n.name, collect(x) AS xs",
    "MATCH (n:{S}) CALL (n) {{ RETURN n.name AS nm }} IN TRANSACTIONS RETURN nm",
    "CALL db.labels() YIELD * RETURN *",
    "UNWIND range(1, 3) AS i WITH i WHERE i > 1 RETURN collect(i) AS l, sum(i) AS s",
    "MATCH (n:{S}) RETURN keys(n), size(keys(n)), n.name + ' (' + toString(n.{sp}) + ')' AS label",
    "MATCH (n:{S}) WITH n.name AS name, n.{sp} AS value ORDER BY value DESC RETURN collect(name)",
    "MATCH (a:{S})-[:{R}]->(b:{O}) WITH b, collect(a) AS members "
    "RETURN b.name, [m IN members | m.name] AS names, size(members) AS n",
    "MATCH (a:{S})-[:{R}]->(b:{O}) RETURN b.name, count(*) AS n ORDER BY n DESC, b.name ASC",
]


def manual_queries() -> Iterator[str]:
    for template in MANUAL:
        for b in BINDINGS:
            if "{rp}" in template and b["rp"] is None:
                continue
            values = {**b, "sn0": b["sn"].split()[0]}
            yield template.format(**values)


# --- keywords as names -----------------------------------------------------------------------

#: Keywords and function names models use as names (Neo4j 5 reserves none of them as a name).
KEYWORDS = [
    "count", "Count", "COUNT", "exists", "EXISTS", "collect", "size", "type", "labels",
    "keys", "contains", "order", "limit", "skip", "offset", "set", "match", "return",
    "create", "delete", "merge", "remove", "detach", "foreach", "load", "csv", "all", "any",
    "none", "single", "in", "is", "as", "by", "where", "with", "union", "case", "when",
    "then", "else", "end", "not", "and", "or", "xor", "distinct", "optional", "unwind",
    "call", "yield", "on", "starts", "ends", "asc", "desc", "null", "true", "false",
    "shortestPath", "nodes", "length", "id", "date", "duration", "point", "sum", "avg",
    "min", "max", "head", "last", "reduce", "properties", "value", "key", "node", "path",
    "list", "map", "string", "integer", "elementId", "range", "coalesce", "use", "finish",
    "filter", "extract", "shortest", "repeatable", "different", "let", "next", "total",
]  # fmt: skip

#: Positions a name can take, one query each (``{x}``: the name).
KEYWORD_POSITIONS = [
    "MATCH ({x}:Player) RETURN {x}.name",
    "MATCH ({x}:Player)-[:playsFor]->(t:Team) RETURN t.name, {x}.name",
    "MATCH (p:Player)-[{x}:playsFor]->(t:Team) RETURN {x}.start_year",
    "MATCH (p:Player) RETURN p.name AS {x}",
    "MATCH (t:Team)<-[:playsFor]-(p:Player) RETURN t.name, count(p) AS {x} ORDER BY {x} DESC",
    "MATCH (t:Team)<-[:playsFor]-(p:Player) WITH t, count(p) AS {x} WHERE {x} > 1 "
    "RETURN t.name, {x}",
    "MATCH (p:Player) WITH p, size(p.nicknames) AS {x} ORDER BY {x} DESC LIMIT 2 "
    "RETURN p.name, {x}",
    "MATCH (p:Player) WITH count(p) AS {x} RETURN {x} + 1 AS total",
    "UNWIND [1, 2, 3] AS {x} RETURN {x}",
    "UNWIND [1, 2, 3] AS {x} WITH {x} WHERE {x} > 1 RETURN {x}",
    "MATCH (n:{x}) RETURN n.name",
    "MATCH (n:Player|{x}) RETURN n.name",
    "MATCH (n) WHERE n:{x} RETURN count(n)",
    "MATCH (a)-[:{x}]->(b) RETURN a.name",
    "MATCH (n:Player) RETURN n.{x}",
    "MATCH (n:Team) WHERE n.{x} = 1 RETURN n.name",
    "MATCH (n:Player) WHERE n.{x} IS NOT NULL RETURN n.name ORDER BY n.{x}",
    "MATCH (n:Player {{{x}: 'a'}}) RETURN n.name",
    "RETURN {{{x}: 1}} AS m",
    "RETURN {{{x}: 1}}.{x} AS v",
    "MATCH (n:Team) RETURN n {{.name, {x}: n.inception_year}} AS m",
    "MATCH (n:Team) RETURN n {{.name, .{x}}} AS m",
    "RETURN [{x} IN range(1, 3) | {x} * 2] AS l",
    "RETURN [{x} IN range(1, 3) WHERE {x} > 1] AS l",
    "RETURN reduce({x} = 0, i IN [1, 2] | {x} + i) AS s",
    "RETURN all({x} IN [1, 2] WHERE {x} > 0) AS ok",
    "MATCH (t:Team) CALL (t) {{ MATCH (p:Player)-[:playsFor]->(t) RETURN count(p) AS {x} }} "
    "RETURN t.name, {x}",
    "MATCH ({x}:Team) WHERE EXISTS {{ MATCH (:Player)-[:playsFor]->({x}) }} RETURN {x}.name",
    "MATCH ({x}:Team) RETURN {x}.name, COUNT {{ ({x})<-[:playsFor]-() }} AS players",
    "MATCH (`{x}`:Player) RETURN `{x}`.name",
    "MATCH {x} = (p:Player)-[:playsFor]->(:Team) RETURN length({x})",
    "MATCH (t:Team) WITH t.name AS {x} ORDER BY {x} LIMIT 2 RETURN {x}",
    "MATCH (n:Player) WHERE n.name = ${x} RETURN n.name",
    "MATCH (p:Player) WITH p.height_cm AS {x} "
    "RETURN CASE WHEN {x} > 200 THEN 'tall' ELSE 'short' END AS h",
    "CALL db.labels() YIELD label AS {x} RETURN {x}",
    "MATCH (t:Team) RETURN [({x}:Player)-[:playsFor]->(t) | {x}.name] AS players",
    "MATCH (n:Player) RETURN n.name AS name, n.height_cm AS {x} "
    "ORDER BY {x} DESC, name SKIP 1 LIMIT 2",
    "MATCH (p:Player) RETURN p.name AS {x} UNION MATCH (t:Team) RETURN t.name AS {x}",
    "MATCH (p:Player) RETURN count(DISTINCT p) AS {x}, collect(p.name) AS names",
    "MATCH (p:Player) RETURN p {{.name, {x}: size(p.nicknames)}} AS {x}",
]


#: The names every position gets (the rest of :data:`KEYWORDS` is sampled per position).
CORE_KEYWORDS = [
    "count", "Count", "exists", "collect", "size", "type", "labels", "keys", "contains",
    "order", "limit", "set", "match", "return", "create", "delete", "all", "any", "none",
    "in", "is", "by", "where", "end", "null", "id",
]  # fmt: skip


def keyword_queries(rnd: random.Random) -> Iterator[str]:
    rest = [w for w in KEYWORDS if w not in CORE_KEYWORDS]
    for position in KEYWORD_POSITIONS:
        for word in CORE_KEYWORDS + sorted(rnd.sample(rest, 14), key=rest.index):
            yield position.format(x=word)


# --- deprecated, removed and dialect forms ---------------------------------------------------

DEPRECATED = [
    # deprecated in Neo4j 5, still accepted
    "MATCH (a:{S})-[:{R}|:partOf]->(b) RETURN b.name",
    "MATCH (a:{S})-[:{R}|partOf]->(b) RETURN b.name",
    "MATCH (a:{S})-[r:{R}|:partOf]->(b) RETURN type(r)",
    "MATCH (a:{S})-[r:{R}|:partOf*1..3]->(b) RETURN b.name",
    "MATCH (a:{S})-[:{R}|:partOf*]->(b) RETURN count(b)",
    "MATCH (a:{S})-[:{R}|:receivesAward|:partOf]-(b) RETURN count(b)",
    "MATCH (a:{S})<-[:{R}|:partOf]-(b) RETURN b.name",
    "MATCH (b:{O}) RETURN b.name, [(a)-[:{R}|:partOf]->(b) | a.name] AS names",
    "MATCH (a:{S}) WHERE EXISTS {{ (a)-[:{R}|:partOf]->() }} RETURN a.name",
    "MATCH p = shortestPath((a:{S})-[:{R}|:partOf*]-(b:{O})) RETURN length(p)",
    "RETURN size([1, 2, 3]) AS n",
    "MATCH (n:{S}) RETURN size(n.{slist}) AS n",
    "MATCH (n:{S}) RETURN size(n.name)",
    "MATCH (n:{S}) RETURN id(n)",
    "MATCH (n:{S}) WHERE id(n) >= 0 RETURN n.name",
    "MATCH (a:{S})-[r:{R}]->(b) RETURN id(r), id(a) < id(b)",
    "MATCH (n:{S}) RETURN n.name ORDER BY id(n)",
    "MATCH (a:{S}) WHERE (a)-[:{R}]->() RETURN a.name",
    "MATCH (a:{S}) WHERE NOT (a)-[:{R}]->(:{O}) RETURN a.name",
    "MATCH (a:{S}), (b:{O}) WHERE (a)-[:{R}]->(b) RETURN a.name, b.name",
    "MATCH (a:{S}) RETURN a.name, (a)-[:{R}]->() AS has",
    "MATCH (a:{S}) WHERE exists((a)-[:{R}]->()) RETURN a.name",
    "MATCH (b:{O}) CALL {{ WITH b MATCH (a)-[:{R}]->(b) RETURN a }} RETURN b.name, a.name",
    "MATCH (a:{S})-[r:{R}*]->(b) WHERE all(x IN r WHERE type(x) = '{R}') RETURN b.name",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.name DESC NULLS LAST",
    "MATCH (n) WHERE n:{S}:{O} RETURN n",
    # removed in Neo4j 5 (refused)
    "MATCH (a:{S}) RETURN a.name, size((a)-[:{R}]->()) AS degree",
    "MATCH (a:{S}) WHERE size((a)-[:{R}]->()) > 0 RETURN a.name",
    "MATCH (a:{S}) RETURN length((a)-[:{R}]->())",
    "MATCH (n:{S}) WHERE exists(n.{sp}) RETURN n.name",
    "MATCH (n:{S}) WHERE n.name != '{sn}' RETURN n.name",
    "MATCH (n:{S}) WHERE n.name == '{sn}' RETURN n.name",
    "MATCH (n:{S}) WHERE n.name = {{name}} RETURN n.name",
    "START n=node(0) RETURN n",
    "MATCH (n:{S}) RETURN filter(x IN [1, 2] WHERE x > 1)",
    "MATCH (n:{S}) RETURN extract(x IN [1, 2] | x * 2)",
    "MATCH p = (a:{S})-[:{R}]->(b) RETURN rels(p)",
    "MATCH (n:{S}) RETURN toInt('1')",
    "RETURN distance(point({{x: 0, y: 0}}), point({{x: 1, y: 1}}))",
    "MATCH (a:{S})-[r:{R}*1..2 {{x: 1}}]->(b) RETURN b",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.name LIMIT -1",
    "USING PERIODIC COMMIT LOAD CSV FROM 'file:///x.csv' AS row RETURN row",
    "MATCH (a:{S})-[:{R}|:partOf&receivesAward]->(b) RETURN b",
    "MATCH (n:{S}|:{O}) RETURN n.name",
    "MATCH (n:{S}) RETURN n.name AS name ORDER BY name DESC NULLS FIRST",
    "MATCH (a:{S})-[:{R}*1..2]->(b) WITH a, b MATCH (a)-[*]->(b) RETURN b",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.{sp} LIMIT 1.5",
    "MATCH (n:{S}) WHERE n.name IN ('{sn}', 'x') RETURN n",
    "MATCH (n:{S}) RETURN n.name, n.name",
    "MATCH (n:{S}) WITH n.name RETURN n",
    "MATCH (n:{S}) RETURN count(n) AS c, n.name AS c",
    "MATCH (n:{S}) RETURN m.name",
    "MATCH (n:{S}) RETURN n.name + 1 - 'x' * 2",
    "MATCH (n:{S}) RETURN count(count(n))",
    "MATCH (n:{S}) WHERE count(n) > 1 RETURN n",
    "MATCH (n:{S}) RETURN n.name, count(n) + n.{sp}",
    "MATCH (n:{S}) MATCH (n:{O}) RETURN n",
    "MATCH (n:{S}) WITH n, n AS n RETURN n",
    "MATCH (n:{S})",
    "MATCH (n:{S}) WITH n",
    "RETURN 1 AS a UNION RETURN 2 AS b",
    "RETURN 1 AS a UNION ALL RETURN 2 AS a UNION RETURN 3 AS a",
    "MATCH (n:{S}) RETURN n.name ORDER BY missing",
    "MATCH (n:{S}) RETURN apoc.text.join(collect(n.name), ', ')",
    "MATCH (n:{S}) RETURN NotAFunction(n)",
    "CALL apoc.meta.schema() YIELD value RETURN value",
    "CALL db.nonexistentProcedure()",
    "MATCH (a:{S})-[*]-(b) WHERE a = b RETURN a",
    "MATCH (a:{S}) RETURN [(a)-[:{R}]->(b) | b]",
    "MATCH (a:{S}) RETURN [p = (a)-->() | length(p)]",
    "MATCH (a:{S})-[r:{R}]->() RETURN r.{rp}[0]",
    "MATCH (n:{S}) RETURN n[0]",
    "RETURN 1 + true",
    "RETURN 'a' + 1",
    "RETURN [1, 2][1.5]",
    "RETURN date(1)",
    "MATCH (n) RETURN n AS `",
    "MATCH (n) RETURN n AS ``",
    "MATCH (n) RETURN `a``b` AS x",
]

DIALECT = [
    # Cypher 25 (newer than 5.26) or 5.x-only syntax: a dialect refuses
    "MATCH (n:{S}) LET x = n.name RETURN x",
    "MATCH (n:{S}) FILTER n.name = '{sn}' RETURN n.name",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.name NULLS LAST",
    "WHEN true THEN RETURN 1 AS x ELSE RETURN 2 AS x",
    "MATCH (n:{S}) RETURN n.name NEXT RETURN 1 AS x",
    "MATCH (n:{S}) RETURN coll.sort(collect(n.name)) AS sorted",
    "RETURN coll.distinct([1, 1, 2]) AS d",
    "MATCH (n:{S}) WHERE n.name IS :: STRING NOT NULL RETURN n",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.name LIMIT 1 + 1",
    "MATCH (n:{S}) WITH n ORDER BY n.name RETURN n.name",
    "MATCH (n:{S}) ORDER BY n.name RETURN n.name",
    "MATCH (n:{S}) RETURN n.name SKIP 1 OFFSET 1",
    "MATCH (n:{S}) WITH n LIMIT 1 WHERE n.name IS NOT NULL RETURN n.name",
    "MATCH (n:{S}) SEARCH n IN (VECTOR INDEX idx FOR [1.0] LIMIT 2) RETURN n",
    "MATCH (n:{S}) RETURN n.name, lower(n.name) AS l ORDER BY l COLLATE x",
    "MATCH (n:{S}) RETURN trim(BOTH 'A' FROM n.name)",
    "MATCH (n:{S}) RETURN trim(LEADING ' ' FROM n.name)",
    "MATCH (n:{S}) RETURN n.name || '!' AS s",
    "MATCH (n:{S}) RETURN elementId(n) = elementId(n)",
    "MATCH (a:{S})-[r:{R}]->(b) RETURN r {{.*}}",
    "MATCH (n:{S}) WHERE n.{sp} IS TYPED INTEGER RETURN n",
    "MATCH (n:{S}) WHERE n.{sp} IS NOT TYPED STRING RETURN n",
    "MATCH (n:{S}) RETURN n.name ORDER BY n.name ASC NULLS FIRST",
    "CALL (x) {{ RETURN 1 AS y }} RETURN y",
    "MATCH (n:{S}) CALL {{ WITH n RETURN n.name AS nm }} RETURN nm",
    "MATCH (n:{S}) CALL (n) {{ WITH n RETURN n.name AS nm }} RETURN nm",
    "MATCH (n:{S}) RETURN n:{S} AS isIt",
    "MATCH (n:$({label})) RETURN n",
    "MATCH (n:$any(['{S}', '{O}'])) RETURN n.name",
    "MATCH (n)-[r:$all(['{R}'])]->() RETURN r",
    "MATCH (n:{S}) RETURN n[$key] AS v",
    "MATCH (n:{S}) RETURN n['name'] AS v",
    # added in session 14 (issue 29): FILTER after WITH, LET variables referenced later
    "MATCH (n:{S}) WITH n FILTER n.name = '{sn}' RETURN n.name",
    "MATCH (n:{S}) LET x = n.name, y = 1 RETURN x, y",
    "MATCH (n:{S}) LET x = n.name WITH x FILTER x IS NOT NULL RETURN x",
    # added in session 15 (issue 29): FILTER after UNWIND, CALL, LET, FILTER, WITH .. WHERE,
    # at the start, and FILTER WHERE
    "MATCH (n:{S}) UNWIND [n.name] AS x FILTER x = '{sn}' RETURN x",
    "MATCH (n:{S}) WITH n WHERE n.name IS NOT NULL FILTER n.name = '{sn}' RETURN n.name",
    "MATCH (n:{S}) LET x = n.name FILTER x = '{sn}' RETURN x",
    "MATCH (n:{S}) CALL (n) {{ RETURN n.name AS nm }} FILTER nm = '{sn}' RETURN nm",
    "MATCH (n:{S}) FILTER n.name IS NOT NULL FILTER n.name = '{sn}' RETURN n.name",
    "MATCH (n:{S}) FILTER WHERE n.name = '{sn}' RETURN n.name",
    "UNWIND ['{sn}'] AS x FILTER WHERE x = '{sn}' RETURN x",
    "MATCH (n:{S}) UNWIND [1] AS x FILTER x > RETURN x",
    # conditional queries whose conditions are parsed (a broken one is refused)
    "WHEN EXISTS {{ MATCH (n:{S} {{name: '{sn}'}}) }} THEN RETURN 1 AS x ELSE RETURN 2 AS x",
    "WHEN '{sn}' = THEN MATCH (n:{S}) RETURN n.name AS x ELSE RETURN 'none' AS x",
]


def deprecated_queries(table: list[str]) -> Iterator[str]:
    for template in table:
        for b in BINDINGS:
            if "{rp}" in template and b["rp"] is None:
                continue
            yield template.format(**b, label="'" + b["S"] + "'")


# --- writes and not-writes -------------------------------------------------------------------

WRITES = [
    "CREATE (n:{S} {{name: 'x'}})",
    "CREATE (n:{S} {{name: 'x'}}) RETURN n",
    "CREATE (a:{S})-[:{R}]->(b:{O}) RETURN a, b",
    "MATCH (a:{S} {{name: '{sn}'}}), (b:{O} {{name: '{on}'}}) CREATE (a)-[:{R}]->(b)",
    "MERGE (n:{S} {{name: '{sn}'}}) RETURN n",
    "MERGE (n:{S} {{name: 'x'}}) ON CREATE SET n.created = true ON MATCH SET n.seen = true",
    "MATCH (a:{S}), (b:{O}) MERGE (a)-[r:{R}]->(b) RETURN count(r)",
    "MATCH (n:{S}) SET n.flag = true",
    "MATCH (n:{S}) SET n.flag = true RETURN n.name",
    "MATCH (n:{S}) SET n += {{flag: true}}",
    "MATCH (n:{S}) SET n = {{name: 'x'}}",
    "MATCH (n:{S}) SET n:Extra",
    "MATCH (n:{S}) SET n:$('Extra')",
    "MATCH (n:{S}) SET n['flag'] = 1",
    "MATCH (n:{S}) REMOVE n.{sp}",
    "MATCH (n:{S}) REMOVE n:{S}",
    "MATCH (n:{S}) DELETE n",
    "MATCH (n:{S}) DETACH DELETE n",
    "MATCH (n:{S}) NODETACH DELETE n",
    "MATCH (a:{S})-[r:{R}]->() DELETE r",
    "MATCH (n:{S}) WITH collect(n) AS ns FOREACH (x IN ns | SET x.flag = 1)",
    "FOREACH (i IN range(1, 3) | CREATE (:{S} {{name: toString(i)}}))",
    "MATCH (n:{S}) CALL (n) {{ SET n.flag = 1 }}",
    "MATCH (n:{S}) CALL {{ WITH n SET n.flag = 1 RETURN n.name AS name }} RETURN name",
    "CALL {{ CREATE (n:{S}) RETURN n }} RETURN n",
    "MATCH (n:{S}) CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF 10 ROWS",
    "UNWIND [1, 2] AS i CALL (i) {{ CREATE (:{S} {{v: i}}) }} IN TRANSACTIONS",
    "MATCH (n:{S}) WHERE EXISTS {{ MATCH (n)-->(m) }} SET n.flag = 1",
    "LOAD CSV FROM 'file:///players.csv' AS row CREATE (:{S} {{name: row[0]}})",
    "LOAD CSV WITH HEADERS FROM 'https://example.com/x.csv' AS row MERGE (:{S} {{name: row.name}})",
    "MATCH (n:{S}) \\u0043REATE (m:Thing) RETURN n",
    "MATCH (n:{S}) \\u0053ET n.flag = 1 RETURN n",
    "MATCH (n:{S}) \\u0044ELETE n",
    "MATCH (n:{S}) DETACH \\u0044ELETE n",
    "\\u004dERGE (n:{S} {{name: 'x'}})",
    "MATCH (n:{S}) \\u0052EMOVE n.{sp}",
    "MATCH (n:{S}) create (m:Thing) return n",
    "MATCH (n:{S}) CrEaTe (m:Thing) RETURN n",
    "match (n:{S}) set n.flag = 1 return n",
    "MATCH (n:{S}) WITH n /* read */ SET n.flag = 1",
    "MATCH (n:{S}) RETURN n.name UNION MATCH (m:{O}) SET m.flag = 1 RETURN m.name",
    "CALL db.createLabel('Extra')",
    "CALL db.createProperty('extraKey')",
    "CALL db.createRelationshipType('EXTRA')",
    "CALL db.clearQueryCaches()",
    "CREATE INDEX extra_idx FOR (n:{S}) ON (n.name)",
    "CREATE CONSTRAINT extra_c FOR (n:{S}) REQUIRE n.eid IS UNIQUE",
    "DROP INDEX extra_idx IF EXISTS",
    "CREATE DATABASE extra",
    "MATCH (n:{S}) INSERT (m:Thing)",
    "INSERT (m:{S} {{name: 'x'}})",
    "MATCH (n:{S}) SET n.flag = 1 RETURN count(*) AS count",
    "MATCH (n:{S}) WITH n, count(*) AS count SET n.count = count",
    "MATCH (n:{S}) SET n.set = 1, n.create = 2",
    "MATCH (n:{S}) FOREACH (x IN CASE WHEN true THEN [1] ELSE [] END | SET n.flag = x)",
    "\\u004DERGE (n:{S} {{name: 'x'}})",
    "MATCH (n:{S}) \\u0063reate (m:Thing) RETURN n",
    "MATCH (n:{S}) C\\u0052EATE (m:Thing) RETURN n",
    "MATCH (n:{S}) /* read only */ CREATE (m:Thing) RETURN n // really",
    "MATCH (n:{S}) WHERE n.name = 'x' WITH n LIMIT 1 DELETE n",
    "OPTIONAL MATCH (n:{S}) SET n.flag = 1 RETURN count(*)",
    "MATCH (n:{S}) CALL (n) {{ CALL (n) {{ SET n.flag = 1 }} }} RETURN n.name",
    "MATCH (n:{S}) MERGE (n)-[:{R}]->(:{O} {{name: 'x'}})",
    "MATCH (n:{S}) SET n.name = toUpper(n.name) RETURN n.name AS count ORDER BY count",
]

NOT_WRITES = [
    "MATCH (n:{S}) WHERE n.name = 'CREATE (x)' RETURN n.name",
    'MATCH (n:{S}) WHERE n.name = "SET n.x = 1" RETURN n.name',
    "MATCH (n:{S}) RETURN 'DELETE n' AS text",
    "MATCH (n:{S}) RETURN n.name // DELETE n",
    "MATCH (n:{S}) /* CREATE (m) */ RETURN n.name",
    "MATCH (n:{S}) RETURN n.name /* MERGE (x) SET x.y = 1 */",
    "MATCH (n:{S}) // SET n.flag = 1\nRETURN n.name",
    "MATCH (create:{S}) RETURN create.name",
    "MATCH (set:{S}) RETURN set.name AS set",
    "MATCH (delete:{S})-[merge:{R}]->(remove) RETURN delete.name, remove.name",
    "MATCH (n:{S}) RETURN n.create, n.set, n.delete, n.merge",
    "MATCH (n:{S}) RETURN n.name AS create ORDER BY create",
    "MATCH (n:{S}) WITH n AS set RETURN set.name",
    "MATCH (n:{S}) RETURN {{create: 1, set: 2, delete: 3}} AS m",
    "MATCH (n:`CREATE`) RETURN n",
    "MATCH (n:{S}) RETURN n.`SET n.x = 1` AS v",
    "MATCH (n:{S}) RETURN `DELETE`.name",
    "MATCH (`DELETE`:{S}) RETURN `DELETE`.name",
    "MATCH (n:Create)-[:SET]->(m:Merge) RETURN m",
    "MATCH (n:{S}) WHERE n.name CONTAINS '\\u0043REATE' RETURN n",
    "MATCH (n:{S}) RETURN '\\\\u0043REATE' AS s",
    "MATCH (n:{S}) RETURN [foreach IN [1] | foreach] AS l",
    "MATCH (n:{S}) WITH n, 1 AS load RETURN load",
    "MATCH (n:{S}) UNWIND [1] AS detach RETURN detach",
    "MATCH (n:{S}) WHERE n.name =~ '.*SET.*' RETURN n",
    "MATCH (n:{S}) RETURN n.name AS `CREATE (m)`",
    "MATCH (n:{S}) RETURN n {{.name, create: 1}} AS created",
    "MATCH (n:{S}) CALL (n) {{ RETURN n.name AS set }} RETURN set",
    "MATCH (n:{S}) WHERE EXISTS {{ MATCH (n)-[:SET]->(create) }} RETURN n",
    "MATCH (n:{S}) RETURN count(n) AS delete ORDER BY delete DESC",
    "MATCH (n:{S}) RETURN n.name, 'x' + \"y\" + '// not a comment' AS s",
    "MATCH (n:{S}) RETURN '/* not a comment' AS a, n.name AS b",
    'MATCH (n:{S}) RETURN \'it\\\'s\' AS a, "SET \\"x\\"" AS b',
]

POLICY = [
    "LOAD CSV FROM 'file:///players.csv' AS row RETURN row",
    "LOAD CSV WITH HEADERS FROM 'file:///players.csv' AS row RETURN row.name",
    "LOAD CSV FROM 'https://example.com/x.csv' AS row FIELDTERMINATOR ';' RETURN count(row)",
    "MATCH (n:{S}) LOAD CSV FROM 'file:///x.csv' AS row RETURN n.name, row",
    "CALL dbms.listConfig() YIELD name RETURN name",
    "CALL tx.getMetaData()",
    "CALL dbms.queryJmx('*:*') YIELD name RETURN count(name)",
    "CALL dbms.info() YIELD id RETURN id",
    "CALL db.stats.retrieve('GRAPH COUNTS') YIELD data RETURN data",
    "CALL dbms.listConnections() YIELD connectionId RETURN count(*)",
    "CALL db.awaitIndexes()",
]


def table_queries(table: list[str]) -> Iterator[str]:
    for template in table:
        for b in BINDINGS:
            if "{rp}" in template and b["rp"] is None:
                continue
            yield template.format(**b)


# --- CypherBench templates --------------------------------------------------------------------

#: The MATCH shapes of CypherBench's generator (``nl2cypher_generator_config.json``), with
#: ``{...}`` slots filled from a binding.
CB_MATCH = [
    ("basic_(n)", "MATCH (n:{S})"),
    ("basic_(n*)", "MATCH (n:{S} {{name: '{sn}'}})"),
    ("basic_(n)-(m0)", "MATCH (n:{S})-[r0:{R}]->(m0:{O})"),
    ("basic_(n)-(m0)", "MATCH (n:{O})<-[r0:{R}]-(m0:{S})"),
    ("basic_(n)-(m0*)", "MATCH (n:{S})-[r0:{R}]->(m0:{O} {{name: '{on}'}})"),
    ("basic_(n)-(m0*)", "MATCH (n:{O})<-[r0:{R}]-(m0:{S} {{name: '{sn}'}})"),
    (
        "basic_(n)-(m0)-(m1*)",
        "MATCH (n:Player)-[r0:playsFor]->(m0:Team)-[r1:partOf]->(m1:Division {{name: 'Atlantic'}})",
    ),
    (
        "basic_(n)-(m0)-(m1*)",
        "MATCH (n:Award)<-[r0:receivesAward]-(m0:Player)-[r1:playsFor]->"
        "(m1:Team {{name: 'Toronto Raptors'}})",
    ),
    (
        "basic_(n)-(m0*),(n)-(m1*)",
        "MATCH (n:Player)-[r0:playsFor]->(m0:Team {{name: 'Toronto Raptors'}}),"
        "(n)-[r1:receivesAward]->(m1:Award {{name: 'MVP'}})",
    ),
    ("basic_(n)=(m0)", "MATCH (n:{S})-[r0:{R}]->(m0:{O}),(n)-[r1:{R}]->(m0)"),
    (
        "special_optional-match",
        "MATCH (n:{S})-[r1:{R}]->(m1:{O} {{name: '{on}'}}) OPTIONAL MATCH (n)<-[r0]-(m0)",
    ),
    (
        "special_time-sensitive",
        "MATCH (n:Player)-[r0:playsFor]->(m0:Team {{name: 'Toronto Raptors'}}) "
        "WHERE r0.start_year IS NOT NULL AND r0.end_year IS NULL",
    ),
    (
        "special_time-sensitive",
        "MATCH (n:Player)-[r0:playsFor]->(m0:Team {{name: 'Toronto Raptors'}}) "
        "WHERE r0.start_year <= 2004 AND (r0.end_year >= 2004 OR r0.end_year IS NULL)",
    ),
    (
        "special_union",
        "CALL {{ MATCH (n:{S})-[r0:{R}]->(m0:{O} {{name: '{on}'}}) RETURN n, m0 AS m UNION "
        "MATCH (n:{S})-[r1:{R}]->(m1:{O}) RETURN n, m1 AS m }}",
    ),
]

CB_RETURN = [
    "{m} WITH DISTINCT n RETURN n.name",
    "{m} WITH DISTINCT n RETURN n.{p}",
    "{m} WITH DISTINCT n RETURN n.name, n.{p}",
    "{m} WITH DISTINCT n RETURN DISTINCT n.{p}",
    "{m} WITH DISTINCT n UNWIND n.aliases AS prop RETURN DISTINCT prop",
    "{m} WITH DISTINCT n RETURN n.name ORDER BY n.{p} DESC",
    "{m} WITH DISTINCT n RETURN n.name ORDER BY n.{p} ASC LIMIT 1",
    "{m} WITH DISTINCT n WHERE n.{p} IS NOT NULL RETURN n.name",
    "{m} WITH DISTINCT n RETURN count(DISTINCT n.{p})",
    "{m} WITH DISTINCT n RETURN count(n)",
    "{m} WITH DISTINCT n WITH n.{p} AS key, count(n) AS agg RETURN key, agg",
    "{m} WITH n, count(DISTINCT m0) AS num RETURN n.name, num",
]


def cypherbench_queries() -> Iterator[str]:
    for _, match in CB_MATCH:
        for b in BINDINGS:
            m = match.format(**b)
            label = re.match(r"(?:CALL \{ )?MATCH \(n:(\w+)", m)
            prop = {"Player": "height_cm", "Team": "inception_year"}.get(
                label.group(1) if label else "", "name"
            )
            for ret in CB_RETURN:
                if "m0" in ret and "m0" not in m:
                    continue
                yield ret.format(m=m, p=prop)
            if "m0" in m and "(n)" not in m[:12]:
                case = "CASE WHEN n.name > m0.name THEN n.name ELSE m0.name END"
                yield f"{m} RETURN {case} AS answer"


# --- model-output realism ----------------------------------------------------------------------

LLM = [
    "MATCH (t:Team)<-[:playsFor]-(p:Player) RETURN t.name, count(p) AS count ORDER BY count DESC",
    "MATCH (t:Team)<-[:playsFor]-(p:Player) RETURN t.name AS team, COUNT(p) AS Count "
    "ORDER BY Count DESC LIMIT 1",
    "MATCH (t:Team)<-[:playsFor]-(p:Player) WITH t, count(*) AS count RETURN t.name, count",
    "MATCH (t:Team)<-[:playsFor]-(p:Player) WITH t, collect(p.name) AS collect "
    "RETURN t.name, collect",
    "MATCH (p:Player)-[:receivesAward]->(a:Award) RETURN a.name, count(DISTINCT p) AS count "
    "ORDER BY count DESC, a.name",
    "MATCH (p:Player) RETURN p.name AS name, size(p.nicknames) AS size ORDER BY size DESC",
    "MATCH (p:Player) WITH p, size(p.nicknames) AS size WHERE size > 0 RETURN p.name",
    "MATCH (p:Player)-[r:playsFor]->(t:Team) RETURN p.name, type(r) AS type",
    "MATCH (n) RETURN labels(n) AS labels, count(*) AS count ORDER BY count DESC",
    "MATCH (n) RETURN DISTINCT labels(n)[0] AS label, count(n) AS total",
    "MATCH (p:Player) WHERE toLower(p.name) CONTAINS 'alice' RETURN p.name",
    "MATCH (p:Player) WHERE p.name =~ '(?i).*archer.*' RETURN p.name",
    "MATCH (t:Team {name: 'Toronto Raptors'})<-[:playsFor]-(p:Player) RETURN p.name;",
    'MATCH (t:Team {name: "Toronto Raptors"})<-[:playsFor]-(p:Player) RETURN p.name',
    "MATCH (p:Player)-[:playsFor]->(t:Team) WHERE t.name = 'Toronto Raptors' "
    "RETURN p.name ORDER BY p.height_cm DESC LIMIT 1",
    "match (p:Player)-[:playsFor]->(t:Team) where t.name = 'Boston Celtics' return p.name",
    "MATCH (p:Player) RETURN p.name, p.date_of_birth.year AS year ORDER BY year",
    "MATCH (p:Player) WHERE p.date_of_birth.year < 1985 RETURN p.name",
    "MATCH (p:Player) WHERE date(p.date_of_birth) > date('1980-06-01') RETURN p.name",
    "MATCH (p:Player) RETURN p.name, duration.between(p.date_of_birth, date()).years AS age",
    "MATCH (p:Player) RETURN avg(p.height_cm) AS average_height",
    "MATCH (p:Player) RETURN round(avg(p.height_cm), 2) AS avg",
    "MATCH (p:Player)-[r:playsFor]->(t:Team) WHERE r.end_year IS NULL RETURN p.name, t.name",
    "MATCH (p:Player)-[r:playsFor]->(t:Team) RETURN p.name, r.end_year - r.start_year AS years",
    "MATCH (p:Player)-[:playsFor]->(:Team)-[:partOf]->(d:Division) "
    "RETURN d.name, count(DISTINCT p) AS players",
    "MATCH (p:Player) WITH p ORDER BY p.height_cm DESC LIMIT 3 RETURN collect(p.name) AS tallest",
    "MATCH (p:Player) OPTIONAL MATCH (p)-[:receivesAward]->(a:Award) "
    "RETURN p.name, collect(a.name) AS awards",
    "MATCH (p:Player) WHERE NOT (p)-[:receivesAward]->() RETURN p.name",
    "MATCH (p:Player) WHERE NOT EXISTS { (p)-[:receivesAward]->(:Award) } RETURN p.name",
    "MATCH (p:Player) WHERE size((p)-[:receivesAward]->()) = 0 RETURN p.name",
    "MATCH (p:Player) RETURN p.name, size([(p)-[:receivesAward]->(a) | a]) AS awards",
    "MATCH (p:Player) WHERE exists((p)-[:receivesAward]->()) RETURN p.name",
    "MATCH (p:Player) WHERE p.name != 'Alice Archer' RETURN p.name",
    "MATCH (p:Player)-[:playsFor|:receivesAward]->(x) RETURN p.name, labels(x)",
    "MATCH (p:Player)-[:playsFor|receivesAward]->(x) RETURN DISTINCT p.name",
    "```cypher\nMATCH (p:Player) RETURN p.name\n```",
    "MATCH (p:Player) RETURN p.name<end_of_turn>",
    "Cypher: MATCH (p:Player) RETURN p.name",
    "MATCH (p:Player) RETURN p.name\nRETURN p.height_cm",
    "MATCH (p:Player) RETURN p.name;\nMATCH (t:Team) RETURN t.name;",
    "MATCH (p:Player) RETURN p.name LIMIT 10;",
    "MATCH (p:Player)\nWHERE p.height_cm > 200\nRETURN p.name\nORDER BY p.name",
    "MATCH (p:Player) RETURN apoc.coll.sort(collect(p.name)) AS names",
    "MATCH (p:Player) RETURN apoc.text.capitalize(p.name)",
    "MATCH (p:Player) WITH p CALL apoc.path.expand(p, 'playsFor>', 'Team', 1, 2) YIELD path "
    "RETURN path",
    "MATCH (p:Player) RETURN p.name ORDER BY p.name DESC NULLS LAST",
    "MATCH (p:Player) RETURN p.name AS Name, p.height_cm AS `Height (cm)`",
    "MATCH (p:Player) RETURN p.name, p.height_cm ORDER BY p.height_cm DESC LIMIT 1 OFFSET 1",
    "MATCH (p:Player) RETURN p.name, p.height_cm ORDER BY p.height_cm DESC SKIP 1 LIMIT 1",
    "MATCH (p:Player) WHERE p.height_cm >= 200 AND p.height_cm <= 210 RETURN count(p)",
    "MATCH (p:Player) WHERE 200 <= p.height_cm <= 210 RETURN count(p)",
    "MATCH (p:Player) WHERE p.height_cm BETWEEN 200 AND 210 RETURN count(p)",
    "MATCH (p:Player) WHERE p.name LIKE '%Archer' RETURN p.name",
    "MATCH (p:Player) WHERE p.name ILIKE 'a%' RETURN p.name",
    "SELECT name FROM Player",
    "MATCH (p:Player) RETURN p.name GROUP BY p.name",
    "MATCH (p:Player) WHERE p.nicknames CONTAINS 'Ace' RETURN p.name",
    "MATCH (p:Player) WHERE 'Ace' IN p.nicknames RETURN p.name",
    "MATCH (p:Player) WHERE any(n IN p.nicknames WHERE n STARTS WITH 'C') RETURN p.name",
    "MATCH (p:Player) UNWIND p.nicknames AS nickname RETURN nickname, count(*) AS count",
    "MATCH (p:Player) RETURN p.name, [n IN p.nicknames | toUpper(n)] AS upper",
    "MATCH (t:Team) RETURN t.name, t.inception_year ORDER BY t.inception_year LIMIT 1",
    "MATCH (t:Team) WHERE t.inception_year > 1950 RETURN t.name",
    "MATCH (t:Team) RETURN max(t.inception_year) - min(t.inception_year) AS span",
    "MATCH (t:Team)-[:partOf]->(d:Division {name: 'Atlantic'}) RETURN t.name",
    "MATCH (d:Division)<-[:partOf]-(t:Team)<-[:playsFor]-(p:Player) "
    "RETURN d.name AS division, collect(DISTINCT t.name) AS teams, count(p) AS count",
    "MATCH (a:Player {name: 'Alice Archer'}), (b:Player {name: 'Bob Baker'}) "
    "RETURN a.height_cm > b.height_cm AS taller",
    "MATCH (a:Player {name: 'Alice Archer'}), (b:Player {name: 'Bob Baker'}) "
    "RETURN CASE WHEN a.height_cm > b.height_cm THEN a.name ELSE b.name END AS answer",
    "MATCH (a:Player {name: 'Alice Archer'})-[:playsFor]->(t)<-[:playsFor]-(b:Player) "
    "RETURN b.name",
    "MATCH (a:Player {name: 'Alice Archer'})-[:playsFor]->(t)<-[:playsFor]-(b) "
    "WHERE a <> b RETURN b.name",
    "MATCH p=shortestPath((a:Player {name: 'Alice Archer'})-[*]-(b:Player {name: 'Carl Cole'})) "
    "RETURN [n IN nodes(p) | n.name] AS path",
    "MATCH (p:Player) RETURN p {.name, .height_cm} AS player",
    "MATCH (p:Player) RETURN p",
    "MATCH (p:Player) RETURN p.name AS name, p.eid AS id",
    "MATCH (p:Player)-[:playsFor]->(t:Team) RETURN t.name AS team, "
    "avg(p.height_cm) AS avg ORDER BY avg DESC",
    "MATCH (p:Player)-[:playsFor]->(t:Team) RETURN t.name AS team, "
    "sum(p.height_cm) AS sum, max(p.height_cm) AS max, min(p.height_cm) AS min",
    "MATCH (p:Player)-[:playsFor]->(t:Team) WITH t, count(p) AS num_players "
    "WHERE num_players > 1 RETURN t.name",
    "MATCH (p:Player)-[:playsFor]->(t:Team) WITH t, count(p) AS num_players "
    "RETURN t.name ORDER BY num_players DESC LIMIT 1",
    "MATCH (p:Player)-[:playsFor]->(t:Team) RETURN t.name, count(p) as count order by count desc",
    "MATCH (p:Player)-[:playsFor]->(t:Team) RETURN t.name, count(p) AS count "
    "ORDER BY count DESC LIMIT 1",
    "MATCH (p:Player)-[:playsFor]->(t:Team) RETURN t.name, count(p) AS count "
    "ORDER BY count(p) DESC",
    "MATCH (p:Player)-[:playsFor]->(t:Team) RETURN t.name, COUNT(p) AS COUNT ORDER BY COUNT",
    "MATCH (p:Player)-[:playsFor]->(t:Team) RETURN t.name, count(p) AS exists",
    "MATCH (p:Player)-[:playsFor]->(t:Team) WITH t.name AS team, count(p) AS count "
    "WHERE count > 1 RETURN team, count",
    "MATCH (p:Player) RETURN count(p) AS count, count",
    "MATCH (p:Player) WITH count(p) AS count RETURN count(count) AS count",
    "MATCH (p:Player) WITH count(p) AS count RETURN count { MATCH (t:Team) } AS teams, count",
    "MATCH (p:Player) WITH count(p) AS count RETURN count{(t:Team)} AS teams, count",
    "MATCH (p:Player) WITH 1 AS count RETURN count {(p)-->()} AS degree",
    "MATCH (p:Player) WITH p, 1 AS exists RETURN exists { (p)-->() } AS has, exists",
    "MATCH (p:Player) WITH collect(p.name) AS collect "
    "RETURN collect { UNWIND collect AS x RETURN x }",
    "MATCH (p:Player)-[:playsFor]->(t:Team) RETURN t.name AS Team, COUNT(p) AS Count "
    "ORDER BY Count DESC",
    "MATCH (p:Player)-[:playsFor]->(t:Team) WITH t, COUNT(DISTINCT p) AS count "
    "ORDER BY count DESC LIMIT 1 RETURN t.name",
    "MATCH (p:Player)-[:receivesAward]->(a:Award) WITH a, collect(p.name) AS players, "
    "count(p) AS count RETURN a.name, players, count ORDER BY count DESC",
    "MATCH (p:Player)-[:playsFor]->(t:Team) RETURN t.name, size(collect(p)) AS size ORDER BY size",
    "MATCH (p:Player) RETURN p.name, labels(p) AS type",
    "MATCH (p:Player)-[r]->(x) RETURN type(r) AS type, count(*) AS count ORDER BY count DESC",
    "MATCH (p:Player) WITH p.name AS name, p.height_cm AS height RETURN name, height "
    "ORDER BY height DESC LIMIT 1",
    "MATCH (n:Player)-[r0:playsFor]->(m0:Team {name: 'Toronto Raptors'}) "
    "WITH DISTINCT n RETURN n.name AS name ORDER BY name",
    "MATCH (n:Player)-[r0:playsFor]->(m0:Team) WHERE m0.name = 'Toronto Raptors' "
    "WITH DISTINCT n RETURN count(n) AS count",
    "MATCH (n:Player)-[:playsFor]->(m0:Team {name: 'Toronto Raptors'}) "
    "WITH DISTINCT n RETRUN n.name",
    "MATCH (n:Player)-[:playsFor]->(m0:Team {name: 'Toronto Raptors'}) WITH DISTINCT n "
    "RETURN n.name ORDER BY n.height_cm DESC LIMT 1",
    "MATCH (n:Player)-[:playsFor]->(m0:Team {name: 'Toronto Raptors') RETURN n.name",
    "MATCH (n:Player)-[:playsFor]->(m0:Team {name: 'Toronto Raptors'}) RETURN n.name,",
    "MATCH (n:Player)-[:playsFor]->(m0:Team {name: 'Toronto Raptors'}) RETURN n.name AS name "
    "ORDER BY name DESC;",
    "MATCH (n:Player)-[:playsFor]->(:Team {name: 'Toronto Raptors'}) RETURN DISTINCT n.name AS "
    "name UNION MATCH (n:Player)-[:receivesAward]->(:Award {name: 'MVP'}) RETURN n.name AS name",
]


def llm_queries() -> Iterator[str]:
    yield from LLM


# --- mutations ------------------------------------------------------------------------------

#: Cypher tokens: strings, backtick names, numbers, words, operators, punctuation.
TOKEN = re.compile(
    r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|\d+(?:\.\d+)?|\w+|<>|<=|>=|=~|->|<-|\S"
)
TYPOS = {
    "RETURN": ["RETRUN", "RETUNR", "RERTURN", "RETURNS"],
    "MATCH": ["MATHC", "MACTH", "MTACH"],
    "WHERE": ["WEHRE", "WHRE", "WHEER"],
    "WITH": ["WTIH", "WIHT"],
    "ORDER": ["ODRER", "ORDRE"],
    "BY": ["BYY"],
    "LIMIT": ["LIMTI", "LIMT"],
    "DISTINCT": ["DISTINC", "DISTINTC"],
    "OPTIONAL": ["OPTINAL"],
    "UNWIND": ["UNWIDN"],
    "COUNT": ["COUTN"],
    "count": ["cout", "conut"],
    "collect": ["colect"],
    "AS": ["AZ"],
    "CONTAINS": ["CONTAIN"],
}


def mutate(rnd: random.Random, query: str) -> tuple[str, str]:
    """One seeded token-level damage of ``query`` and its kind."""
    toks = [(m.start(), m.end()) for m in TOKEN.finditer(query)]
    kind = rnd.choice(["drop", "swap", "duplicate", "typo", "unbalanced", "punctuation"])
    if kind == "typo":
        typo = [i for i, (s, e) in enumerate(toks) if query[s:e] in TYPOS]
        if typo:
            i = rnd.choice(typo)
            s, e = toks[i]
            return query[:s] + rnd.choice(TYPOS[query[s:e]]) + query[e:], kind
        kind = "drop"
    if kind == "unbalanced":
        brackets = [i for i, (s, e) in enumerate(toks) if query[s:e] in "()[]{}"]
        if brackets:
            i = rnd.choice(brackets)
            s, e = toks[i]
            if rnd.random() < 0.5:
                return query[:s] + query[e:], kind
            return query[:s] + query[s:e] * 2 + query[e:], kind
        kind = "drop"
    if kind == "punctuation":
        i = rnd.randrange(len(toks))
        s, e = toks[i]
        return query[:s] + rnd.choice([",", ";", ":", ".", "|", "-", "=", "'"]) + query[e:], kind
    if kind == "swap" and len(toks) > 1:
        i = rnd.randrange(len(toks) - 1)
        (s1, e1), (s2, e2) = toks[i], toks[i + 1]
        return query[:s1] + query[s2:e2] + query[e1:s2] + query[s1:e1] + query[e2:], kind
    if kind == "duplicate":
        i = rnd.randrange(len(toks))
        s, e = toks[i]
        return query[:e] + " " + query[s:e] + query[e:], kind
    i = rnd.randrange(len(toks))
    s, e = toks[i]
    return query[:s] + query[e:], "drop"


def mutation_queries(rnd: random.Random, sources: list[str], count: int) -> Iterator[str]:
    for _ in range(count):
        yield mutate(rnd, rnd.choice(sources))[0]


# --- the corpus -----------------------------------------------------------------------------


def corpus() -> list[dict[str, str]]:
    """Every corpus record ``{id, category, query}``, deterministic; duplicate texts dropped
    (first category wins)."""
    rnd = random.Random(SEED)
    parts: list[tuple[str, Iterable[str]]] = [
        ("manual", list(manual_queries())),
        ("keyword_names", list(keyword_queries(rnd))),
        ("deprecated", list(deprecated_queries(DEPRECATED))),
        ("dialect", list(deprecated_queries(DIALECT))),
        ("writes", list(table_queries(WRITES))),
        ("not_writes", list(table_queries(NOT_WRITES))),
        ("policy", list(table_queries(POLICY))),
        ("cypherbench", list(cypherbench_queries())),
        ("llm_style", list(llm_queries())),
    ]
    reads = [
        q
        for name, qs in parts
        if name in ("manual", "keyword_names", "cypherbench", "llm_style")
        for q in qs
    ]
    parts.append(("mutations", list(mutation_queries(rnd, reads, 900))))
    seen: set[str] = set()
    records = []
    for name, queries in parts:
        n = 0
        for q in queries:
            if q in seen:
                continue
            seen.add(q)
            n += 1
            records.append({"id": f"{name}-{n:04d}", "category": name, "query": q})
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "corpus.jsonl")
    args = parser.parse_args()
    records = corpus()
    with open(args.out, "w", encoding="utf-8", newline="\n") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{args.out}: {len(records)} queries")


if __name__ == "__main__":
    main()
