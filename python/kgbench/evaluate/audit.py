"""``kgbench audit``: the gold queries a benchmark number should not be trusted on (issue 37).

Every gold query of a Cypher task file runs once on its graph's Neo4j server (READ sessions
through :class:`kgbench.neo4j.QueryExecutor`, after the prediction gate
:func:`kgbench.query.gate.prediction_failure`: a gold with write clauses is never sent) and
gets zero or more flags, each ``{flag, reason, details}``:

- ``gold_error`` — reason ``write`` (refused by the gate, not sent), or the executor's error
  class (``syntax``, ``semantic/type``, ``timeout``, ``database``, ...); ``details.error`` is
  the server's message. A failing gold is listed, never dropped.
- ``nondeterministic`` —
  ``limit_ties``: the final ``RETURN ... ORDER BY ... SKIP/LIMIT`` cuts through rows tied on
  every sort key (found by running the query again without its final ``SKIP``/``LIMIT`` and
  comparing the keys at the boundary; only queries with such a clause are run twice);
  ``details.tied_values`` are the tied keys. ``limit_without_order``: a ``SKIP``/``LIMIT``
  whose projection (and the projections right before it, with no reading clause between) has
  no ``ORDER BY``. ``collect_order``: a returned list built by ``collect()`` with no ``ORDER
  BY`` before it, when the result holds a list of two or more elements. ``element_ids``:
  ``elementId()`` or ``id()`` in a projection (their values depend on the store).
- ``slow`` — the gold took more than a quarter of the timeout (CypherBench set its 120 s
  timeout at 4x its slowest gold); timed alone (a gold over the threshold in the parallel pass
  runs again by itself, and that time decides). ``details``: ``elapsed_s``, ``threshold_s``.
- ``version_sensitive`` — with ``versions`` (two offered Neo4j releases): ``different_results``
  (EX 0 between the gold's results on the two) or ``error_in_one`` (it fails on one only);
  :func:`version_flags`.
- ``uninformative`` — the reason of :func:`kgbench.evaluate.uninformative_reason` (``empty``,
  ``all_null``, ``single_zero``, ...), the same flag evaluation puts on its records.
- ``large`` — more than ``max_rows`` result rows (default :data:`DEFAULT_MAX_ROWS`).
- ``duplicate_question`` — another task of the same graph has the same question text
  (``nl_question``, stripped) and a different gold result (EX of one against the other is 0);
  ``details.qids`` names them.

The clause analysis is lexical (strings, comments and backtick names skipped, bracket depth
tracked): the Rust Cypher front end (:mod:`kgbench._core.cypher`) exposes no rewrite of the
final clause, so the trailing top-level ``SKIP``/``LIMIT`` is cut from the text, and the cut
query is checked with :func:`kgbench._core.cypher.syntax_error` before it is sent. Ties are
checked only for a ``SKIP``/``LIMIT`` of the final ``RETURN`` with its own ``ORDER BY`` and
integer literal counts; sort keys are read from the result column of the same name, else
from extra columns the rerun adds (a ``RETURN`` without ``DISTINCT`` or aggregation).

``audit.json``: ``{kgbench_version, timeout_s, max_rows, versions (with them only), counts:
{tasks, flagged, by_flag: {flag: n}, by_reason: {"flag/reason": n}}, tasks: [{qid, graph,
question, elapsed_s, rows, flags: [{flag, reason, details}]}]}`` — tasks in input order, flags
in :data:`FLAGS` order.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.gold_flags import FLAGS  # defined beside evaluate --audit's reader
from kgbench.neo4j.executor import CONNECTION, ConnectionLostError

#: Default of ``max_rows`` (``--max-rows``): a gold with more rows is flagged ``large``.
#: 1000 rows is beyond what a question's answer is read as, and where CypherBench-style EX
#: starts to be dominated by result transfer.
DEFAULT_MAX_ROWS = 1000

#: A gold is ``slow`` above this share of the timeout (CypherBench: timeout = 4x slowest gold).
SLOW_SHARE = 0.25

#: Prefix of the sort-key columns the limit-free rerun adds.
KEY_COLUMN = "__kgb_sort_"

_AGGREGATES = frozenset(
    {
        "count",
        "collect",
        "sum",
        "avg",
        "min",
        "max",
        "stdev",
        "stdevp",
        "percentilecont",
        "percentiledisc",
    }
)
_READING = frozenset({"MATCH", "OPTIONAL", "UNWIND", "CALL", "UNION", "LOAD"})
_TOKEN = re.compile(
    r"""\s+|//[^\n]*|/\*.*?\*/|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`]|``)*`"""
    r"""|[A-Za-z_][A-Za-z0-9_$]*|\d+(?:\.\d+)?|.""",
    re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    """One lexical token: its text, start / end offsets and bracket depth."""

    text: str
    start: int
    end: int
    depth: int

    @property
    def word(self) -> str:
        """The upper-cased text of a bare word, else ``""``."""
        c = self.text[:1]
        return self.text.upper() if c.isalpha() or c == "_" else ""


def tokens(query: str) -> list[Token]:
    """The tokens of ``query`` without whitespace and comments; strings and backtick names are
    single tokens. Never raises (an unclosed string becomes punctuation)."""
    out: list[Token] = []
    depth = 0
    for m in _TOKEN.finditer(query):
        text = m.group()
        if text.isspace() or text.startswith(("//", "/*")):
            continue
        if text in ")]}":
            depth = max(0, depth - 1)
        out.append(Token(text, m.start(), m.end(), depth))
        if text in "([{":
            depth += 1
    return out


@dataclass
class Projection:
    """A ``WITH`` / ``RETURN`` clause: token indexes of its keyword, ``ORDER BY`` (after
    ``BY``), ``SKIP``/``OFFSET`` and ``LIMIT``, its end, and whether a reading clause comes
    between it and the projection before it at the same depth."""

    kind: str
    depth: int
    start: int
    end: int = -1
    order: int | None = None
    skip: int | None = None
    limit: int | None = None
    reading_before: bool = True


#: Tokens after which a word is a name (a variable, alias, key), not a clause keyword.
_NAME_AFTER = frozenset(
    {".", ":", "(", ",", "[", "$", "=", "<", ">", "+", "-", "*", "/", "%", "^", "|"}
    | {"AS", "BY", "AND", "OR", "XOR", "NOT", "IN", "IS", "WHERE", "DISTINCT", "RETURN"}
    | {"WITH", "CASE", "WHEN", "THEN", "ELSE", "SKIP", "LIMIT", "OFFSET", "UNWIND", "YIELD"}
)
#: Tokens before which a word is a name.
_NAME_BEFORE = frozenset({".", ":", ")", ",", "]", "}", "=", "<", ">", "+", "/", "%", "^", "|"})


def is_clause_keyword(toks: Sequence[Token], i: int) -> bool:
    """Whether the word ``toks[i]`` is used as a clause keyword (``MATCH``, ``RETURN``,
    ``LIMIT``, ...) rather than as a name: Cypher lets ``limit``, ``skip``, ``order`` or
    ``return`` be variables and aliases, so the tokens around it decide (after ``AS``, ``,``,
    ``(``, ``.``, ``BY``, an operator ... it is a name; so it is before ``.``, ``:``, ``)``,
    ``,``, ``=`` ...). ``*`` after it is a name's only for ``SKIP`` / ``LIMIT``."""
    prev = toks[i - 1] if i > 0 else None
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    # a keyword-like word right after AS, ``.`` or ``$`` is itself a name (``AS limit ORDER BY``)
    prev_is_name = (
        prev is not None
        and i >= 2
        and (toks[i - 2].word or toks[i - 2].text)
        in (
            "AS",
            ".",
            "$",
        )
    )
    if prev is not None and not prev_is_name and (prev.word or prev.text) in _NAME_AFTER:
        return False
    if nxt is None:
        return False
    star_name = nxt.text == "*" and toks[i].word not in ("RETURN", "WITH")
    return nxt.text not in _NAME_BEFORE and not star_name


def projections(toks: Sequence[Token]) -> list[Projection]:
    """The ``WITH`` / ``RETURN`` clauses of the tokens, at any bracket depth, in order."""
    out: list[Projection] = []
    open_at: dict[int, Projection] = {}
    reading: dict[int, bool] = {}
    for i, t in enumerate(toks):
        if t.text in ")]}":
            for d in [d for d in open_at if d > t.depth]:
                open_at.pop(d).end = i
                reading.pop(d, None)
        w = t.word
        if not w or not is_clause_keyword(toks, i):
            continue
        d = t.depth
        if w in ("WITH", "RETURN"):
            if d in open_at:
                open_at[d].end = i
            p = Projection(w, d, i, reading_before=reading.get(d, True))
            reading[d] = False
            open_at[d] = p
            out.append(p)
        elif w in _READING:
            if d in open_at:
                open_at[d].end = i
                del open_at[d]
            reading[d] = True
        elif d in open_at:
            p = open_at[d]
            nxt = toks[i + 1].word if i + 1 < len(toks) else ""
            if w == "ORDER" and nxt == "BY":
                p.order = i + 2
            elif w in ("SKIP", "OFFSET"):
                p.skip = i
            elif w == "LIMIT":
                p.limit = i
    for p in out:
        if p.end < 0:
            p.end = len(toks)
    return out


def _split_top(toks: Sequence[Token], start: int, end: int) -> list[tuple[int, int]]:
    """Token ranges of the comma-separated items of ``toks[start:end]`` at its own depth."""
    if start >= end:
        return []
    base = toks[start].depth
    items, first = [], start
    for i in range(start, end):
        if toks[i].text == "," and toks[i].depth == base:
            items.append((first, i))
            first = i + 1
    items.append((first, end))
    return [(a, b) for a, b in items if a < b]


def _text(query: str, toks: Sequence[Token], a: int, b: int) -> str:
    return query[toks[a].start : toks[b - 1].end]


@dataclass
class LimitCut:
    """The final ``RETURN``'s ``SKIP``/``LIMIT`` of a query: the query without them
    (``unlimited``), the counts (None when not an integer literal), the sort key texts and
    whether the ``RETURN`` has ``DISTINCT`` or an aggregate, and its item texts."""

    unlimited: str
    skip: int | None
    limit: int | None
    keys: list[tuple[str, bool]]
    grouped: bool
    clause_end: int


def _count(query: str, toks: Sequence[Token], a: int, b: int) -> int | None:
    text = _text(query, toks, a, b) if a < b else ""
    return int(text) if text.isdigit() else None


def limit_cut(query: str) -> LimitCut | None:
    """The final top-level ``RETURN``'s trailing ``SKIP``/``LIMIT`` cut off, or None when the
    query ends otherwise. ``keys``: ``(key text, descending)`` of its ``ORDER BY``."""
    toks = tokens(query)
    while toks and toks[-1].text == ";":
        toks = toks[:-1]
    top = [p for p in projections(toks) if p.depth == 0]
    if not top or top[-1].kind != "RETURN" or top[-1].end != len(toks):
        return None
    p = top[-1]
    cuts = [i for i in (p.skip, p.limit) if i is not None]
    if not cuts:
        return None
    first = min(cuts)
    skip = limit = None
    if p.skip is not None:
        skip = _count(query, toks, p.skip + 1, p.limit if p.limit and p.limit > p.skip else p.end)
    if p.limit is not None:
        limit = _count(query, toks, p.limit + 1, p.skip if p.skip and p.skip > p.limit else p.end)
    keys: list[tuple[str, bool]] = []
    if p.order is not None:
        for a, b in _split_top(toks, p.order, first):
            desc = toks[b - 1].word in ("DESC", "DESCENDING")
            if toks[b - 1].word in ("ASC", "ASCENDING", "DESC", "DESCENDING"):
                b -= 1
            keys.append((_text(query, toks, a, b), desc))
    items_end = p.order - 2 if p.order is not None else first
    grouped = any(
        t.word == "DISTINCT"
        or (t.word.lower() in _AGGREGATES and j + 1 < items_end and toks[j + 1].text == "(")
        for j, t in enumerate(toks[p.start : items_end], start=p.start)
    )
    return LimitCut(
        unlimited=query[: toks[first].start].rstrip(),
        skip=skip if p.skip is not None else 0,
        limit=limit if p.limit is not None else None,
        keys=keys,
        grouped=grouped,
        clause_end=toks[items_end - 1].end,
    )


def static_flags(query: str) -> list[dict[str, Any]]:
    """The ``nondeterministic`` flags read from the text alone: ``limit_without_order`` and
    ``element_ids`` (``collect_order`` needs the result: :func:`collect_unordered`)."""
    toks = tokens(query)
    flags: list[dict[str, Any]] = []
    projs = projections(toks)
    for k, p in enumerate(projs):
        cut = p.limit if p.limit is not None else p.skip
        if cut is None:
            continue
        ordered = p.order is not None
        j = k
        while not ordered and not projs[j].reading_before and j > 0:
            j -= 1
            ordered = projs[j].depth == p.depth and projs[j].order is not None
        if not ordered:
            flags.append(
                {
                    "flag": "nondeterministic",
                    "reason": "limit_without_order",
                    "details": {
                        "clause": _text(query, toks, p.start, p.end)[:200],
                        "message": f"{toks[cut].text.upper()} with no ORDER BY: the rows kept "
                        "are the server's choice",
                    },
                }
            )
    ids = sorted(
        {
            toks[i].text
            for p in projs
            for i in range(p.start, p.order - 2 if p.order is not None else p.end)
            if toks[i].word in ("ELEMENTID", "ID")
            and i + 1 < len(toks)
            and toks[i + 1].text == "("
            and (i == 0 or toks[i - 1].text != ".")
        }
    )
    if ids:
        flags.append(
            {
                "flag": "nondeterministic",
                "reason": "element_ids",
                "details": {
                    "functions": [f"{f}()" for f in ids],
                    "message": "element ids in a projection depend on the store, not the data",
                },
            }
        )
    return flags


def collect_unordered(query: str) -> list[str]:
    """The ``collect(...)`` calls of projections with no ``ORDER BY`` in any projection before
    (or at) them and not directly under ``size(``: their list order is the server's."""
    toks = tokens(query)
    out: list[str] = []
    ordered_at = min((p.order for p in projections(toks) if p.order is not None), default=len(toks))
    for i, t in enumerate(toks):
        if t.word != "COLLECT" or i + 1 >= len(toks) or toks[i + 1].text != "(":
            continue
        if i > 0 and toks[i - 1].text in (".", "{"):
            continue
        if i >= 2 and toks[i - 1].text == "(" and toks[i - 2].word == "SIZE":
            continue
        if i >= ordered_at:
            continue
        depth = toks[i + 1].depth
        end = next(
            (j for j in range(i + 2, len(toks)) if toks[j].text == ")" and toks[j].depth == depth),
            len(toks) - 1,
        )
        out.append(query[t.start : toks[end].end])
    return out


def _has_long_list(value: Any) -> bool:
    if isinstance(value, list):
        return len(value) >= 2 or any(_has_long_list(v) for v in value)
    if isinstance(value, dict):
        return any(_has_long_list(v) for v in value.values())
    return False


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


@dataclass
class AuditResult:
    """The audited tasks (``audit.json``'s ``tasks``) and the options that made them."""

    tasks: list[dict[str, Any]]
    timeout_s: float
    max_rows: int
    versions: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, Any]:
        """``{tasks, flagged, by_flag: {flag: tasks}, by_reason: {"flag/reason": flags}}``
        (every flag listed, in :data:`FLAGS` order; reasons sorted)."""
        by_flag = {f: 0 for f in FLAGS}
        by_reason: dict[str, int] = {}
        for t in self.tasks:
            for f in {x["flag"] for x in t["flags"]}:
                by_flag[f] += 1
            for x in t["flags"]:
                key = f"{x['flag']}/{x['reason']}"
                by_reason[key] = by_reason.get(key, 0) + 1
        return {
            "tasks": len(self.tasks),
            "flagged": sum(1 for t in self.tasks if t["flags"]),
            "by_flag": by_flag,
            "by_reason": dict(sorted(by_reason.items())),
        }

    def as_json(self) -> dict[str, Any]:
        """The content of ``audit.json`` (module docstring)."""
        from kgbench import __version__

        out: dict[str, Any] = {
            "kgbench_version": __version__,
            "timeout_s": self.timeout_s,
            "max_rows": self.max_rows,
        }
        if self.versions:
            out["versions"] = self.versions
        return {**out, "counts": self.counts(), "tasks": self.tasks}

    def write(self, out_dir: str | Path) -> Path:
        """Write ``out_dir/audit.json`` atomically (:func:`kgbench.fileio.write_json_atomic`);
        return its path."""
        from kgbench.fileio import write_json_atomic

        return write_json_atomic(Path(out_dir) / "audit.json", self.as_json())

    def table(self) -> str:
        """The printed summary: tasks per flag, then per reason."""
        c = self.counts()
        lines = [f"audited {c['tasks']} gold queries: {c['flagged']} flagged", ""]
        lines.append(f"{'flag':<20} {'tasks':>7}")
        lines += [f"{f:<20} {n:>7d}" for f, n in c["by_flag"].items()]
        if c["by_reason"]:
            lines += ["", f"{'flag/reason':<40} {'flags':>7}"]
            lines += [f"{r:<40} {n:>7d}" for r, n in c["by_reason"].items()]
        return "\n".join(lines)


def _flag(flag: str, reason: str, **details: Any) -> dict[str, Any]:
    return {"flag": flag, "reason": reason, "details": details}


def _tie_flags(cut: LimitCut, res: Any) -> list[dict[str, Any]]:
    """``limit_ties`` flags of one limit-free result (rows in the ``ORDER BY`` order)."""
    n_keys = len(cut.keys)
    extra = [c for c in res.columns if c.startswith(KEY_COLUMN)]
    width = len(res.columns) - len(extra)
    index: list[int] = []
    for k, (text, _desc) in enumerate(cut.keys):
        if f"{KEY_COLUMN}{k}" in res.columns:
            index.append(res.columns.index(f"{KEY_COLUMN}{k}"))
        elif text in res.columns[:width]:
            index.append(res.columns.index(text))
    if len(index) != n_keys:
        return []
    rows = res.rows
    keys = [_canon([r[i] for i in index]) for r in rows]
    values = [r[:width] for r in rows]
    skip = cut.skip or 0
    bounds = []
    if skip > 0:
        bounds.append(("SKIP", skip))
    if cut.limit is not None:
        bounds.append(("LIMIT", skip + cut.limit))
    flags = []
    for what, b in bounds:
        if b <= 0 or b >= len(rows):
            continue
        if keys[b - 1] != keys[b]:
            continue
        tied = [i for i, k in enumerate(keys) if k == keys[b]]
        if len({_canon(values[i]) for i in tied}) < 2:
            continue  # every tied row is the same: the kept rows do not depend on the choice
        end = len(rows) if cut.limit is None else skip + cut.limit
        kept = sum(1 for i in tied if skip <= i < end)
        tied_values = {text: rows[b][i] for (text, _), i in zip(cut.keys, index, strict=True)}
        flags.append(
            _flag(
                "nondeterministic",
                "limit_ties",
                boundary=what,
                tied_values=tied_values,
                tied_rows=len(tied),
                kept=kept,
                rows_without_limit=len(rows),
                message=f"{what} {b if what == 'SKIP' else cut.limit} cuts through "
                f"{len(tied)} rows tied on "
                + ", ".join(f"{k} = {json.dumps(v, default=str)}" for k, v in tied_values.items())
                + f"; {kept} of them kept",
            )
        )
    return flags


def _with_key_columns(query: str, cut: LimitCut, columns: Sequence[str]) -> str | None:
    """The limit-free query with a column per sort key not already a result column, or None
    when it needs none, or cannot have them (``DISTINCT`` or an aggregate in the RETURN)."""
    missing = [(k, text) for k, (text, _) in enumerate(cut.keys) if text not in columns]
    if not missing or cut.grouped:
        return None
    extra = "".join(f", {text} AS {KEY_COLUMN}{k}" for k, text in missing)
    return cut.unlimited[: cut.clause_end] + extra + cut.unlimited[cut.clause_end :]


ExecutorFactory = Callable[[str, Any, float, int, Path | None], Any]


def check_versions(
    versions: Sequence[str],
    graphs: Sequence[str],
    version_graphs: Mapping[str, Any] | None,
    version_uris: Mapping[str, str] | None,
) -> list[str]:
    """The two offered releases ``versions`` names (``[]`` for none), checked before anything
    runs.

    Raises:
        InputError: not two different releases; ``version_uris`` for several graphs or
            without an entry per release; a graph with no ``version_graphs`` entry.
        UnknownNeo4jVersionError: a release kgbench does not offer (lists the offered ones).
    """
    from kgbench.neo4j.versions import resolve_version

    if not versions:
        return []
    releases = [resolve_version(v) for v in versions]
    if len(releases) != 2 or releases[0] == releases[1]:
        raise InputError(
            f"--versions needs two different Neo4j releases, e.g. 5.26,2026.08.1; got "
            f"{','.join(versions)!r}"
        )
    if version_uris is not None:
        missing = [v for v in releases if v not in version_uris]
        if missing or len(graphs) != 1:
            raise InputError(
                "version_uris holds one running server per release (missing: "
                f"{', '.join(missing) or 'none'}) and is for tasks of one graph"
            )
        return releases
    lacking = [g for g in graphs if g not in (version_graphs or {})]
    if lacking:
        raise InputError(
            f"--versions runs each graph in disposable servers of both releases: give its data "
            f"with --version-graph GRAPH=PATH (no data for graph(s) {', '.join(lacking)})"
        )
    return releases


def version_results(
    version: str,
    by_graph: Mapping[str, tuple[Any, list[dict[str, Any]]]],
    timeout_s: float,
    workers: int,
    version_graphs: Mapping[str, Any] | None,
    version_uris: Mapping[str, str] | None,
) -> dict[tuple[str, str], Any]:
    """(graph, gold) -> the :class:`~kgbench.neo4j.QueryResult` of every gold on Neo4j
    ``version`` (see :func:`audit`); golds the gate refuses are not sent.

    Raises:
        ConnectionLostError: a server was lost.
    """
    from kgbench.neo4j.disposable import DisposableNeo4j
    from kgbench.neo4j.executor import QueryExecutor, connect
    from kgbench.query.gate import prediction_failure

    out: dict[tuple[str, str], Any] = {}
    for graph, (_target, graph_tasks) in by_graph.items():
        golds = list(dict.fromkeys(t["gold_cypher"] for t in graph_tasks))
        with contextlib.ExitStack() as stack:
            if version_uris is not None:
                driver = connect(version_uris[version], None, None)
                stack.callback(driver.close)
            else:
                assert version_graphs is not None
                db = stack.enter_context(DisposableNeo4j(version_graphs[graph], version=version))
                driver = db.driver
            ex = QueryExecutor(driver, timeout_s=timeout_s, workers=workers, graph=graph)
            sendable = [g for g in golds if prediction_failure(g, ex.dialect) is None]
            for g, res in zip(sendable, ex.run_many(sendable), strict=True):
                if res.error_class == CONNECTION:
                    raise ConnectionLostError(
                        f"lost the Neo4j {version} server of graph {graph!r}: {res.error}"
                    )
                out[(graph, g)] = res
    return out


def version_flags(
    graph: str, gold: str, per_version: Mapping[str, Mapping[Any, Any]]
) -> list[dict[str, Any]]:
    """The ``version_sensitive`` flag of one gold (``[]`` or one flag), from
    :func:`version_results` of the two releases: reason ``different_results`` (both ran, EX 0
    between the results) or ``error_in_one`` (it fails on one release only)."""
    from kgbench.evaluate import execution_accuracy, order_matters

    (va, ra), (vb, rb) = [(v, res.get((graph, gold))) for v, res in per_version.items()]
    if ra is None or rb is None:
        return []
    if ra.ok and rb.ok:
        if execution_accuracy(ra.rows, rb.rows, order_matters(gold)):
            return []
        return [
            _flag(
                "version_sensitive",
                "different_results",
                versions=[va, vb],
                rows={va: len(ra.rows), vb: len(rb.rows)},
                message=f"the gold's result on Neo4j {va} differs from its result on {vb}",
            )
        ]
    if ra.ok == rb.ok:
        return []
    bad_v, bad = (va, ra) if not ra.ok else (vb, rb)
    return [
        _flag(
            "version_sensitive",
            "error_in_one",
            versions=[va, vb],
            failed_on=bad_v,
            error_class=bad.error_class,
            error=" ".join(str(bad.error or "").split()),
        )
    ]


def audit(
    tasks: Sequence[dict[str, Any]],
    *,
    uri: str | None = None,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
    graph_uris: str | Path | Mapping[str, Any] | None = None,
    timeout_s: float = 120.0,
    max_rows: int = DEFAULT_MAX_ROWS,
    workers: int = 8,
    executor_factory: ExecutorFactory | None = None,
    log: Callable[[str], None] | None = None,
    progress: bool = False,
    versions: Sequence[str] = (),
    version_graphs: Mapping[str, Any] | None = None,
    version_uris: Mapping[str, str] | None = None,
) -> AuditResult:
    """Audit the gold queries of ``tasks`` (normalised Cypher task records: ``qid``,
    ``graph``, ``gold_cypher``, ``nl_question``) on their graphs' servers (``graph_uris`` map,
    else ``uri``; :func:`kgbench.evaluate.runner.tasks_by_graph`); flags: module docstring.

    ``versions``: two offered Neo4j releases (:func:`kgbench.neo4j.versions.resolve_version`
    names) to run every gold on as well (flag ``version_sensitive``, :func:`version_flags`):
    each graph in a :class:`kgbench.neo4j.disposable.DisposableNeo4j` of each release, loaded
    from ``version_graphs[graph]`` (a graph.json path, convert directory or graph dict), one
    server at a time; or, with ``version_uris`` (release -> Bolt URI of a running server that
    already holds the tasks' one graph), on those servers.

    Raises:
        InputError: no task, ``max_rows`` < 0, ``timeout_s`` <= 0, a graph without a target,
            ``versions`` not two releases, a graph with no ``version_graphs`` entry.
        UnknownNeo4jVersionError: a release kgbench does not offer (lists the offered ones).
        ConnectionLostError: a server cannot be reached or is lost (nothing is returned).
    """
    from kgbench._core.cypher import syntax_error
    from kgbench.evaluate import execution_accuracy, order_matters, uninformative_reason
    from kgbench.evaluate.runner import tasks_by_graph
    from kgbench.neo4j.targets import neo4j_executor_factory
    from kgbench.query.gate import prediction_failure

    emit = log or (lambda msg: print(msg, file=sys.stderr))
    if not tasks:
        raise InputError("no task records: nothing to audit")
    if max_rows < 0:
        raise InputError(f"--max-rows must be >= 0, not {max_rows}")
    if timeout_s <= 0:
        raise InputError("--timeout must be positive")
    by_graph = tasks_by_graph(tasks, graph_uris, uri, database, user, password)
    releases = check_versions(versions, list(by_graph), version_graphs, version_uris)
    close: Callable[[], None] = lambda: None  # noqa: E731
    factory = executor_factory
    if factory is None:
        factory, close = neo4j_executor_factory()
    threshold = SLOW_SHARE * timeout_s
    records: dict[str, dict[str, Any]] = {}
    results: dict[str, Any] = {}
    try:
        for graph, (target, graph_tasks) in by_graph.items():
            try:
                ex = factory(graph, target, timeout_s, workers, None)
            except ConnectionLostError as exc:
                raise ConnectionLostError(
                    f"cannot reach Neo4j at {target.uri} for graph {graph!r}: {exc}"
                ) from exc
            dialect = ex.dialect
            golds = list(dict.fromkeys(t["gold_cypher"] for t in graph_tasks))
            refused = {g: prediction_failure(g, dialect) for g in golds}
            sendable = [g for g in golds if refused[g] is None]
            got = dict(
                zip(sendable, ex.run_many(sendable, "gold" if progress else False), strict=True)
            )
            # the parallel pass's time is inflated by its neighbours: a gold over the threshold
            # is timed again alone
            again = [g for g, r in got.items() if r.ok and r.elapsed_s > threshold]
            for g in again:
                got[g] = ex.run(g)
            lost = [r for r in got.values() if r.error_class == CONNECTION]
            if lost:
                raise ConnectionLostError(
                    f"lost the connection to Neo4j at {target.uri} (graph {graph!r}): "
                    f"{lost[0].error}"
                )
            cuts = {g: limit_cut(g) for g in sendable if got[g].ok}
            reruns: dict[str, str] = {}
            for g, cut in cuts.items():
                if cut is None or not cut.keys:
                    continue
                q = _with_key_columns(g, cut, got[g].columns) or cut.unlimited
                if syntax_error(q, dialect) is None and prediction_failure(q, dialect) is None:
                    reruns[g] = q
            rerun_res = dict(
                zip(
                    reruns,
                    ex.run_many(list(reruns.values()), "rerun" if progress else False),
                    strict=True,
                )
            )
            for t in graph_tasks:
                g = t["gold_cypher"]
                flags: list[dict[str, Any]] = []
                block = refused[g]
                res = got.get(g)
                if block is not None:
                    flags.append(_flag("gold_error", block.error_class, error=block.error))
                elif res is not None and not res.ok:
                    flags.append(
                        _flag(
                            "gold_error",
                            res.error_class,
                            error=" ".join(str(res.error or "").split()),
                        )
                    )
                else:
                    assert res is not None
                    cut = cuts.get(g)
                    if cut is not None and g in rerun_res:
                        rr = rerun_res[g]
                        if rr.ok:
                            flags += _tie_flags(cut, rr)
                    flags += static_flags(g)
                    if any(_has_long_list(v) for row in res.rows for v in row):
                        calls = collect_unordered(g)
                        if calls:
                            flags.append(
                                _flag(
                                    "nondeterministic",
                                    "collect_order",
                                    calls=calls,
                                    message="a returned list built by collect() with no "
                                    "ORDER BY before it: its order is the server's",
                                )
                            )
                    if res.elapsed_s > threshold:
                        flags.append(
                            _flag(
                                "slow",
                                "over_quarter_timeout",
                                elapsed_s=round(res.elapsed_s, 3),
                                threshold_s=threshold,
                                timeout_s=timeout_s,
                            )
                        )
                    why = uninformative_reason(res.rows)
                    if why:
                        flags.append(_flag("uninformative", why))
                    if len(res.rows) > max_rows:
                        flags.append(
                            _flag("large", "over_max_rows", rows=len(res.rows), max_rows=max_rows)
                        )
                    results[t["qid"]] = res
                records[t["qid"]] = {
                    "qid": t["qid"],
                    "graph": graph,
                    "question": t.get("nl_question"),
                    "elapsed_s": round(res.elapsed_s, 3) if res is not None else None,
                    "rows": len(res.rows) if res is not None and res.ok else None,
                    "flags": flags,
                }
    finally:
        close()

    # duplicate questions: same graph, same text, a different gold result
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for task in tasks:
        question = task.get("nl_question")
        if isinstance(question, str) and question.strip() and task["qid"] in results:
            groups.setdefault((task["graph"], question.strip()), []).append(task)
    for group in groups.values():
        for t in group:
            differs = [
                o["qid"]
                for o in group
                if o["qid"] != t["qid"]
                and not execution_accuracy(
                    results[t["qid"]].rows,
                    results[o["qid"]].rows,
                    order_matters(t["gold_cypher"]),
                )
            ]
            if differs:
                records[t["qid"]]["flags"].append(
                    _flag(
                        "duplicate_question",
                        "different_results",
                        qids=differs,
                        message="the same question has another gold with a different result",
                    )
                )
    if releases:
        per_version = {
            v: version_results(v, by_graph, timeout_s, workers, version_graphs, version_uris)
            for v in releases
        }
        for task in tasks:
            records[task["qid"]]["flags"] += version_flags(
                task["graph"], task["gold_cypher"], per_version
            )
    ordered = []
    for task in tasks:
        r = records[task["qid"]]
        r["flags"].sort(key=lambda x: FLAGS.index(x["flag"]))
        ordered.append(r)
    n_err = sum(1 for r in ordered if any(f["flag"] == "gold_error" for f in r["flags"]))
    if n_err:
        emit(f"warning: {n_err} gold quer{'y' if n_err == 1 else 'ies'} failed (flag gold_error)")
    return AuditResult(ordered, timeout_s, max_rows, list(releases))


__all__ = [
    "DEFAULT_MAX_ROWS",
    "FLAGS",
    "SLOW_SHARE",
    "AuditResult",
    "LimitCut",
    "audit",
    "check_versions",
    "collect_unordered",
    "limit_cut",
    "static_flags",
    "version_flags",
    "version_results",
]
