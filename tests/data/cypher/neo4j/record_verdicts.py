"""Record Neo4j's verdict on every query of ``corpus.jsonl`` (issue 29; see README.md here).

Each query is sent as ``EXPLAIN <query>`` (nothing is executed) in a READ-access-mode session
to a database loaded with ``tests/data/cypher/graph.json``. One line per query goes to
``verdicts-neo4j-<server version>.jsonl``::

    {"id", "accepted": bool, "query_type": "r" | "rw" | "w" | "s" | null,
     "code": Neo4j status code | null,
     "message": first line of the error (at most 200 characters) | null,
     "class": refusal class | null}

``query_type`` is the EXPLAIN summary's (``r`` read, ``rw`` read-write, ``w`` write, ``s``
schema or DBMS: index and constraint commands, DBMS-mode procedures, ``SHOW``). Neo4j plans a
write under EXPLAIN in a READ session without complaint (the access mode is checked when a
write operator runs, and EXPLAIN runs none), so ``query_type`` is how the server reports a
write. ``class`` is
:func:`classify`'s: ``syntax``, one of :data:`SEMANTIC_CLASSES` (the server parsed the query
and refused it in its semantic analysis), or ``write_in_read_mode``, ``administration``,
``other``.

Usage (from the repository root, kgbench built)::

    python tests/data/cypher/neo4j/record_verdicts.py            # starts kgbench's local Neo4j
    python tests/data/cypher/neo4j/record_verdicts.py --uri bolt://host:7687 --load \\
        [--user neo4j --password ...] [--out DIR_OR_FILE]

Without ``--uri`` the project's own server (:class:`kgbench.neo4j.LocalNeo4j`, Neo4j 5.26,
``make neo4j`` builds it) is started in a temporary directory and the tiny graph loaded with
:func:`kgbench.neo4j.load_graph`; it is stopped at the end. With ``--uri`` the graph is loaded
only with ``--load``, which WIPES that database first: use it only on a disposable server.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GRAPH = HERE.parent / "graph.json"
CORPUS = HERE / "corpus.jsonl"
#: Seconds one EXPLAIN may take.
TIMEOUT_S = 10.0
#: Longest error message kept (Neo4j's parse errors list every expected token).
MESSAGE_CHARS = 200

#: Refusal classes that come from Neo4j's semantic analysis (the text parsed), in the order
#: :func:`classify` tries them: ``(class, pattern of the error's first line)``. A front end
#: that parses without resolving names or types may accept these queries.
SEMANTIC_PATTERNS: list[tuple[str, str]] = [
    ("undefined_variable", r"Variable `.*` not defined"),
    ("variable_already_declared", r"Variable `.*` already declared"),
    ("type_mismatch", r"Type mismatch|expected .* but was|Cannot be used with"),
    ("unknown_function", r"Unknown function|Invalid use of DISTINCT with function"),
    ("unknown_procedure", r"There is no procedure|Unknown procedure|ProcedureNotFound"),
    (
        "aggregation",
        r"aggregat|Aggregation|not possible to access variables declared before|"
        r"implicit grouping",
    ),
    ("alias_required", r"must be aliased"),
    ("duplicate_column", r"Multiple result columns with the same name"),
    ("union_columns", r"UNION must have the same|same return column names|same column names"),
    ("query_end", r"Query cannot conclude with|must be a RETURN clause|cannot end with"),
    (
        "pattern_expression",
        r"pattern expression should only be used|PatternExpressions are not allowed|"
        r"pattern expressions? .*not allowed|can no longer be used inside",
    ),
    ("removed_feature", r"no longer supported|is not supported anymore|has been replaced by"),
    ("unsupported_feature", r"not supported yet"),
    ("union_mix", r"Invalid combination of UNION and UNION ALL"),
    (
        "function_arguments",
        r"Insufficient parameters for function|Too many parameters for function",
    ),
    ("label_expression_mix", r"Mixing label expression symbols|mixing .* colon"),
    ("invalid_value", r"is not a valid value|must be a non-negative integer|Invalid input for"),
    ("subquery_scope", r"Importing WITH|subquery|Subquery|CALL \{|scope clause"),
    ("parameter_missing", r"Expected parameter|parameter.*missing"),
    ("invalid_option", r"is not a valid option"),
]
SEMANTIC_CLASSES: tuple[str, ...] = tuple(c for c, _ in SEMANTIC_PATTERNS)
_SEMANTIC = [(c, re.compile(p)) for c, p in SEMANTIC_PATTERNS]

ACCESS_MODE_CODE = "Neo.ClientError.Statement.AccessMode"


def classify(code: str | None, message: str) -> str:
    """The refusal class of a Neo4j error (status ``code``, its whole ``message``).

    Neo4j reports parse errors and most semantic errors alike as
    ``Neo.ClientError.Statement.SyntaxError``; the message tells them apart: a parse error
    starts with ``Invalid input '<token>'`` or matches no pattern of :data:`SEMANTIC_PATTERNS`.
    """
    code = code or ""
    if code == ACCESS_MODE_CODE or "read access mode" in message:
        return "write_in_read_mode"
    if code.endswith("ProcedureNotFound"):
        return "unknown_procedure"
    if "administration command" in message or code.endswith("NotSystemDatabaseError"):
        return "administration"
    if (
        code.endswith("Statement.SyntaxError")
        or code.endswith("Statement.TypeError")
        or (code.endswith("Statement.ArgumentError"))
    ):
        if message.startswith("Invalid input '"):
            return "syntax"
        for cls, pattern in _SEMANTIC:
            if pattern.search(message):
                return cls
        return "syntax"
    if code.endswith("ParameterMissing"):
        return "parameter_missing"
    return "other"


def _first_line(message: str) -> str:
    """The first line of an error message, cut at :data:`MESSAGE_CHARS` characters."""
    first = message.splitlines()[0] if message else ""
    return first if len(first) <= MESSAGE_CHARS else first[: MESSAGE_CHARS - 1] + "…"


def read_corpus(path: Path) -> Iterator[dict[str, str]]:
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            try:
                rec = json.loads(line)
                yield {"id": str(rec["id"]), "query": str(rec["query"])}
            except (ValueError, KeyError) as exc:
                raise SystemExit(f"{path}:{n}: not a corpus record ({exc})") from None


def server_version(driver: Any) -> str:
    """The Neo4j kernel version, e.g. ``5.26.12``."""
    with driver.session() as session:
        for rec in session.run("CALL dbms.components() YIELD name, versions"):
            if rec["name"] == "Neo4j Kernel":
                return str(rec["versions"][0])
    raise SystemExit("the server does not report a 'Neo4j Kernel' component")


def verdict(driver: Any, query: str, database: str | None = None) -> dict[str, Any]:
    """Neo4j's verdict on ``query``: EXPLAIN in a READ session (see the module docs)."""
    import neo4j

    out: dict[str, Any] = {
        "accepted": False,
        "query_type": None,
        "code": None,
        "message": None,
        "class": None,
    }
    with driver.session(
        database=database,
        default_access_mode=neo4j.READ_ACCESS,
        notifications_min_severity="OFF",
    ) as session:
        try:
            summary = session.run(neo4j.Query("EXPLAIN " + query, timeout=TIMEOUT_S)).consume()  # type: ignore[arg-type]
        except neo4j.exceptions.Neo4jError as exc:
            message = (exc.message or "").strip()
            out.update(
                code=exc.code,
                message=_first_line(message),
                **{"class": classify(exc.code, message)},
            )
            return out
        out["accepted"] = True
        out["query_type"] = summary.query_type
    return out


def record(
    driver: Any, corpus: Path, out: Path, database: str | None = None
) -> tuple[Path, Counter[str]]:
    """EXPLAIN every corpus query; write the verdicts file (atomically); its path and tally."""
    version = server_version(driver)
    if out.is_dir():
        out = out / f"verdicts-neo4j-{version}.jsonl"
    tally: Counter[str] = Counter()
    tmp = out.with_name(f".{out.name}.tmp")
    start = time.perf_counter()
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        for n, rec in enumerate(read_corpus(corpus), 1):
            v = {"id": rec["id"], **verdict(driver, rec["query"], database)}
            tally[v["query_type"] if v["accepted"] else f"refused:{v['class']}"] += 1
            fh.write(json.dumps(v, ensure_ascii=False, separators=(",", ":")) + "\n")
            if n % 500 == 0:
                print(f"  {n} queries ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    tmp.replace(out)
    return out, tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uri", help="Bolt URI of a running server (default: start one)")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--database", help="database name (default: the server's default)")
    parser.add_argument(
        "--load",
        action="store_true",
        help="with --uri: wipe the database and load graph.json first (disposable servers only)",
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--out",
        type=Path,
        default=HERE,
        help="output file, or a directory for verdicts-neo4j-<version>.jsonl (default: here)",
    )
    args = parser.parse_args(argv)

    import neo4j

    from kgbench.neo4j import LocalNeo4j, load_graph

    server = None
    if args.uri is None:
        server = LocalNeo4j(heap="1g", pagecache="256m")
        server.start()
        uri = server.uri
    else:
        uri = args.uri
    auth = (args.user, args.password) if args.user else None
    try:
        with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
            if server is not None or args.load:
                load_graph(GRAPH, driver, database=args.database, wipe=True, progress=False)
            path, tally = record(driver, args.corpus, args.out, args.database)
    finally:
        if server is not None:
            server.stop()
    total = sum(tally.values())
    print(f"{path}: {total} verdicts")
    for key, n in sorted(tally.items()):
        print(f"  {key}\t{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
