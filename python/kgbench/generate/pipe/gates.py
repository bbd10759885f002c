"""PIPE-Cypher's gates G1-G11 and the audit ledger (spec ``pipe-cypher.md`` §3, §2.7).

:func:`gate_candidates` runs every candidate ``{question, cypher, category?, graph_profile,
entity_values?, template?, template_metadata?, reverse_cypher?, model?}`` through the gates
in order and returns one ledger row each, accepted or not:

- **G11 diversity** (checked first, against the rows accepted so far): a duplicate
  (category, normalised question), or an entity value already used ``max(2, ⌊target·0.15⌋)``
  times in the category (``value_cap_share``; 0.08 in the paper).
- **G1 read-only**: no write clause and no procedure call outside the allow-list (empty by
  default). A write query is never sent to the server.
- **G2 syntax**: the front end parses it (`syntax_valid`) and no reserved word (`exists`,
  `create`, ...) is a variable name (`policy_error`, a PIPE-Cypher policy: Neo4j accepts such
  names); both give `g2_valid`.
- **G3-G5 schema, direction, literals** and **G6 context columns** (warnings): the Rust
  analysis against the graph profile (:mod:`kgbench.generate.pipe.features`).
- **G7 rewrite**: ``RETURN DISTINCT`` is inserted when the analysis finds it safe (no CASE,
  UNION, CALL, UNWIND, ``WHERE [NOT] EXISTS`` or second WHERE); both queries run and the
  rewrite is kept only when the answer sets are equal (otherwise logged). Skips are logged.
- **G8 execution** within ``timeout_s`` (60 s) in a READ session through
  :class:`~kgbench.neo4j.GraphReader`.
- **G9 non-empty**; an empty result gets a prefix-``count(*)`` diagnosis: ``literal_miss``
  (a string literal of the query is no node's property value), ``impossible_path`` (the
  MATCH part matches nothing although every literal exists), ``aggregation_collapse`` or
  ``over_restrictive`` (the MATCH part matches, the rest of the query removes every row).
  kgbench extends G9 to every *uninformative* result (all null, a single 0 / false / empty
  list: :func:`kgbench.evaluate.uninformative_reason`, metrics.md §1), rejected at
  ``uninformative`` with the reason, unless ``allow_uninformative``; the ledger's
  ``execution.uninformative`` carries the reason either way. (A Boolean-existence question
  whose answer is ``false`` is such a result: many wrong queries also return false.)
- **G10 judge**: the deterministic judge offline, or the LLM judge; the categorical-value
  override keeps both verdicts.

A rejected row's ``rejected_at`` is the first failing bucket in :data:`REJECTION_BUCKETS`
order: diversity, read_only, syntax, schema, execution, empty, uninformative, judge. A query
kgbench's Cypher front end cannot parse is never ``read_only``; without write clauses it is
rejected at ``syntax`` with the front end's one-line error.

Executions run on ``parallel`` sessions ahead of the sequential gate decisions (a query is
sent only when its static gates pass); the decisions, and so the ledger, do not depend on
timing.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.generate.pipe.features import query_features
from kgbench.generate.pipe.judge import apply_override, deterministic_judge
from kgbench.neo4j.executor import GraphReader, QueryFailed, to_plain

#: Rejection buckets in the order the first failing one is chosen (spec §3).
REJECTION_BUCKETS = (
    "diversity",
    "read_only",
    "syntax",
    "schema",
    "execution",
    "empty",
    "uninformative",
    "judge",
)

#: Result rows kept in a ledger row (spec §2.7).
LEDGER_ROWS = 25

#: A judge: ``(candidate, ledger row so far) -> verdict dict`` (see
#: :mod:`kgbench.generate.pipe.judge`).
Judge = Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]


def normalize_question(question: str) -> str:
    """The question lower-cased with whitespace collapsed (G11's duplicate key)."""
    return " ".join(question.casefold().split())


@dataclass
class DiversityGate:
    """G11 state: accepted (category, normalised question) keys and entity-value uses.

    ``target``: the per-category target; the value cap is ``max(2, ⌊target·share⌋)``.
    """

    target: int
    value_cap_share: float = 0.15
    seen: set[tuple[str, str]] = field(default_factory=set)
    uses: Counter[tuple[str, str]] = field(default_factory=Counter)

    @property
    def value_cap(self) -> int:
        """Uses allowed per entity value and category."""
        return max(2, math.floor(self.target * self.value_cap_share))

    def check(self, category: str, question: str, values: Iterable[str]) -> str | None:
        """Why the candidate fails G11, or None."""
        if (category, normalize_question(question)) in self.seen:
            return "duplicate question in category"
        if values:
            cap = self.value_cap
            for v in values:
                if self.uses[(category, " ".join(str(v).casefold().split()))] >= cap:
                    return f"entity value {v!r} already used {cap} times in {category}"
        return None

    def add(self, category: str, question: str, values: Iterable[str]) -> None:
        """Record an accepted candidate."""
        self.seen.add((category, normalize_question(question)))
        for v in {" ".join(str(x).casefold().split()) for x in values}:
            self.uses[(category, v)] += 1


@dataclass
class GateSettings:
    """Settings of :func:`gate_candidates`.

    ``target``: per-category target (G11 cap); ``allowed_procedures``: G1's allow-list;
    ``timeout_s``: G8's limit; ``judge``: None for the deterministic judge; ``execute``:
    False runs the static gates only (G1-G6, G11; execution, emptiness and judge are then
    not checked and ``execution`` is null); ``judge_gate``: False skips G10 (``kgbench
    gate`` runs G1-G9 and G11); ``parallel``: sessions executing ahead; ``dialect``: the
    Cypher version (``"5"`` or ``"25"``) queries are parsed for (G1, G2);
    ``allow_uninformative``: keep non-empty uninformative results (G9, module docstring).
    """

    target: int = 100
    value_cap_share: float = 0.15
    allowed_procedures: Sequence[str] = ()
    timeout_s: float = 60.0
    judge: Judge | None = None
    execute: bool = True
    rewrite: bool = True
    judge_gate: bool = True
    parallel: int = 4
    dialect: str = "5"
    allow_uninformative: bool = False


def _answer_set(rows: Sequence[Sequence[Any]]) -> set[str]:
    return {json.dumps(list(r), sort_keys=True, default=str) for r in rows}


def _run(reader: GraphReader, cypher: str, timeout_s: float) -> dict[str, Any]:
    """Execute one query: ``{success, columns, rows, error, error_class}``."""
    try:
        records = reader.run(cypher, timeout_s=timeout_s)
    except QueryFailed as exc:
        return {
            "success": False,
            "columns": [],
            "rows": [],
            "error": str(exc),
            "error_class": exc.error_class,
        }
    columns = list(records[0].keys()) if records else []
    rows = [[to_plain(v) for v in r.values()] for r in records]
    return {"success": True, "columns": columns, "rows": rows, "error": None, "error_class": None}


def _execute(
    reader: GraphReader, analysis: Mapping[str, Any], cypher: str, s: GateSettings
) -> dict[str, Any]:
    """G7 + G8: run the query (and its DISTINCT rewrite when eligible)."""
    base = _run(reader, cypher, s.timeout_s)
    rewrite = analysis.get("rewrite") or {}
    info: dict[str, Any] = {"applied": False, "skip_reason": rewrite.get("skip_reason")}
    if s.rewrite and base["success"] and rewrite.get("eligible") and rewrite.get("cypher"):
        other = _run(reader, rewrite["cypher"], s.timeout_s)
        equal = other["success"] and _answer_set(other["rows"]) == _answer_set(base["rows"])
        info = {
            "applied": bool(equal),
            "skip_reason": None if equal else "answers_differ",
            "cypher": rewrite["cypher"],
        }
        if not other["success"]:
            # e.g. ORDER BY on a variable RETURN DISTINCT no longer projects: not a
            # difference of answers, the rewrite is not valid Cypher for the server
            info["skip_reason"] = "rewrite_failed"
            info["error"] = other["error"]
        if equal:
            base = dict(other)
    elif not s.rewrite:
        info["skip_reason"] = "disabled"
    base["rewrite"] = info
    return base


def diagnose_empty(reader: GraphReader, cypher: str, analysis: Mapping[str, Any]) -> str:
    """G9's diagnosis of a query that returned no rows (see the module docstring)."""
    from kgbench._core.cypher import provenance_details

    literals = [lit["value"] for lit in analysis.get("string_literals") or []]
    if literals:
        probe = (
            "UNWIND $values AS v CALL (v) { MATCH (n) WHERE any(k IN keys(n) WHERE n[k] = v) "
            "RETURN count(n) > 0 AS found LIMIT 1 } RETURN v, found"
        )
        try:
            found = {r["v"]: r["found"] for r in reader.run(probe, {"values": literals})}
        except QueryFailed:
            found = {}
        if any(not found.get(v, True) for v in literals):
            return "literal_miss"
    try:
        parts = provenance_details(cypher)
    except ValueError:
        parts = []
    for part in parts:
        try:
            n = reader.run(f"{part['match_cypher']} RETURN count(*) AS n")[0]["n"]
        except (QueryFailed, IndexError, KeyError):
            continue
        if n > 0:
            features = analysis.get("structural_features") or {}
            return "aggregation_collapse" if features.get("aggregation") else "over_restrictive"
    return "impossible_path"


def gate_candidates(
    candidates: Sequence[Mapping[str, Any]],
    *,
    reader: GraphReader | None,
    profile: Mapping[str, Any],
    settings: GateSettings | None = None,
    diversity: DiversityGate | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """Gate ``candidates`` in order; one ledger row each (spec §2.7, kgbench's additions:
    ``rejected_at``, ``difficulty``, ``signature``, ``string_literals``, ``template``,
    ``template_metadata``, ``rewrite`` in ``validation``, ``diagnosis`` in ``execution``).

    ``profile``: the graph profile (``schema.json``); ``reader``: None only with
    ``settings.execute`` False. ``diversity``: a G11 state to continue (the pipeline passes
    one across batches). ``progress(n)`` is called after each candidate.

    Raises:
        ValueError: ``reader`` is None while ``settings.execute`` is true.
        KgbenchError: the server became unreachable.
    """
    s = settings or GateSettings()
    if s.execute and reader is None:
        raise ValueError("gate_candidates needs a reader to execute queries")
    div = diversity if diversity is not None else DiversityGate(s.target, s.value_cap_share)
    analyses = query_features(
        [str(c.get("cypher") or "") for c in candidates],
        schema=profile,
        questions=[str(c.get("question") or "") for c in candidates],
        entity_values=[[str(v) for v in c.get("entity_values") or []] for c in candidates],
        allowed_procedures=s.allowed_procedures,
        dialect=s.dialect,
    )
    views = [_view(a) for a in analyses]
    static_ok = [bool(v["read_only"] and v["g2_valid"] and v["schema_valid"]) for v in views]
    ledger: list[dict[str, Any]] = []
    pool = cf.ThreadPoolExecutor(max_workers=max(1, s.parallel)) if s.execute else None
    futures: dict[int, cf.Future[dict[str, Any]]] = {}
    try:
        if pool is not None and reader is not None:
            for i, c in enumerate(candidates):
                if static_ok[i]:
                    futures[i] = pool.submit(_execute, reader, analyses[i], str(c["cypher"]), s)
        for i, c in enumerate(candidates):
            ledger.append(_decide(c, views[i], futures.get(i), reader, div, s))
            if progress is not None:
                progress(i + 1)
    finally:
        if pool is not None:
            for f in futures.values():
                f.cancel()
            pool.shutdown(wait=True)
    return ledger


#: The static bucket of an error issue code (any other code is a G3-G5 schema error).
_BUCKET_OF_CODE = {"not_read_only": "read_only", "syntax": "syntax"}


def _first_error(issues: Iterable[Mapping[str, Any]]) -> dict[str, str | None]:
    """The first error message of each static bucket (read_only, syntax, schema), so that a
    row is rejected with the reason of the bucket it lands in (a write query that also fails
    to parse is rejected at read_only with its write clauses, not with the syntax error)."""
    first: dict[str, str | None] = {"read_only": None, "syntax": None, "schema": None}
    for issue in issues:
        if issue.get("level") != "error":
            continue
        bucket = _BUCKET_OF_CODE.get(str(issue.get("code")), "schema")
        if first[bucket] is None:
            first[bucket] = str(issue["message"])
    return first


def _view(a: dict[str, Any]) -> dict[str, Any]:
    """What the gate decisions read from an analysis dict."""
    return {
        "validation": a,
        "read_only": bool(a["read_only"]),
        "g2_valid": bool(a["g2_valid"]),
        "schema_valid": bool(a["schema_valid"]),
        "category": a["category"],
        "difficulty": a["difficulty"],
        "signature": a["signature"],
        "literals": [lit["value"] for lit in a["string_literals"]],
        "first_error": _first_error(a["issues"]),
    }


#: Candidates per Rust analysis call in :func:`gate_static_file` (pipelined).
STATIC_CHUNK = 8192

#: Stands for the raw validation JSON in :func:`gate_static_file`'s lines.
_RAW = "\x00validation\x00"


def gate_static_file(
    candidates: Sequence[Mapping[str, Any]],
    *,
    profile: Mapping[str, Any],
    path: str | os.PathLike[str],
    settings: GateSettings | None = None,
) -> dict[str, int]:
    """The static gates (G1-G6, G11) of ``candidates``, written as ledger lines to ``path``
    (JSON Lines, atomically); returns :func:`rejection_counts`. The same decisions and row
    fields as :func:`gate_candidates` with ``execute=False``; the analysis is serialised in
    Rust and embedded as is, so large task files gate fast. Raises InputError for a bad
    profile."""
    from kgbench._core.cypher import analyze_queries

    s = settings or GateSettings(execute=False)
    div = DiversityGate(s.target, s.value_cap_share)
    profile_json = json.dumps(profile)

    def analyse(chunk: Sequence[Mapping[str, Any]]) -> list[Any]:
        return analyze_queries(
            [str(c.get("cypher") or "") for c in chunk],
            profile_json,
            [str(c.get("question") or "") for c in chunk],
            [[str(v) for v in c.get("entity_values") or []] for c in chunk],
            list(s.allowed_procedures),
            True,
            dialect=s.dialect,
        )

    counts: Counter[str] = Counter()
    out = Path(path)
    tmp = out.with_name(f".{out.name}.tmp")
    marker = json.dumps(_RAW)
    chunks = [candidates[i : i + STATIC_CHUNK] for i in range(0, len(candidates), STATIC_CHUNK)]
    # the Rust analysis of chunk k+1 (GIL released, all cores) overlaps the Python
    # decisions and writing of chunk k
    with tmp.open("w", encoding="utf-8") as fh, cf.ThreadPoolExecutor(max_workers=1) as ahead:
        pending = ahead.submit(analyse, chunks[0]) if chunks else None
        for k, chunk in enumerate(chunks):
            assert pending is not None
            analysed = pending.result()
            pending = ahead.submit(analyse, chunks[k + 1]) if k + 1 < len(chunks) else None
            for c, (raw, ro, syn, sch, cat, diff, sig, lits) in zip(chunk, analysed, strict=True):
                view = {
                    "validation": _RAW,
                    "read_only": ro,
                    "g2_valid": syn,
                    "schema_valid": sch,
                    "category": cat,
                    "difficulty": diff,
                    "signature": sig,
                    "literals": lits,
                    "first_error": None,
                }
                if not (ro and syn and sch):
                    view["first_error"] = _first_error(json.loads(raw)["issues"])
                row = _decide(c, view, None, None, div, s)
                counts[str(row["rejected_at"]) if not row["accepted"] else "accepted"] += 1
                line = json.dumps(row, ensure_ascii=False, default=str)
                fh.write(line.replace(marker, raw, 1) + "\n")
    os.replace(tmp, out)
    funnel = {"candidates": len(candidates), "accepted": counts["accepted"]}
    funnel.update({b: counts.get(b, 0) for b in REJECTION_BUCKETS})
    return funnel


def _decide(
    c: Mapping[str, Any],
    a: Mapping[str, Any],
    future: cf.Future[dict[str, Any]] | None,
    reader: GraphReader | None,
    div: DiversityGate,
    s: GateSettings,
) -> dict[str, Any]:
    """One candidate's gate decisions and ledger row."""
    question = str(c.get("question") or "")
    cypher = str(c.get("cypher") or "")
    category = str(c.get("category") or a["category"])
    values = [str(v) for v in c.get("entity_values") or []]
    validation = a["validation"]
    row: dict[str, Any] = {
        "question": question,
        "cypher": cypher,
        "category": category,
        "graph_profile": str(c.get("graph_profile") or ""),
        "accepted": False,
        "rejected_at": None,
        "rejection_reason": None,
        "validation": validation,
        "execution": None,
        "judge": None,
        "entity_values": values,
        "reverse_cypher": c.get("reverse_cypher"),
        "model": c.get("model"),
        "template": c.get("template"),
        "template_metadata": c.get("template_metadata") or {},
        "difficulty": a["difficulty"],
        "signature": a["signature"],
        "string_literals": a["literals"],
    }
    for key in ("qid", "source"):
        if c.get(key) is not None:
            row[key] = c[key]
    reason = div.check(category, question, values)
    if reason is not None:
        row["rejected_at"] = "diversity"
        row["rejection_reason"] = reason
        return row
    first_error = a["first_error"] or {}
    for bucket, ok in (
        ("read_only", a["read_only"]),
        ("syntax", a["g2_valid"]),
        ("schema", a["schema_valid"]),
    ):
        # An unparseable query without write clauses is not read-only, but its reason is
        # the syntax error: it is rejected at ``syntax``.
        if not ok and not (bucket == "read_only" and first_error.get(bucket) is None):
            row["rejected_at"] = bucket
            row["rejection_reason"] = first_error.get(bucket)
            return row
    if future is None or reader is None:
        # static gates only
        row["accepted"] = True
        div.add(category, question, values)
        return row
    ex = future.result()
    assert isinstance(validation, dict)
    rewrite = ex.pop("rewrite", None)
    if rewrite is not None:
        validation["rewrite"] = rewrite
        if rewrite.get("applied"):
            _adopt_rewrite(row, rewrite["cypher"])
    execution = {
        "success": ex["success"],
        "columns": ex["columns"],
        "rows": ex["rows"][:LEDGER_ROWS],
        "row_count": len(ex["rows"]),
        "error": ex["error"],
    }
    row["execution"] = execution
    if not ex["success"]:
        execution["error_class"] = ex["error_class"]
        row["rejected_at"] = "execution"
        row["rejection_reason"] = ex["error"]
        return row
    empty = not ex["rows"]
    if empty:
        # the analysis of the row's (possibly rewritten) Cypher, not the decision view
        execution["diagnosis"] = diagnose_empty(reader, row["cypher"], row["validation"])
        uninformative = None
    else:
        from kgbench.query.compare import uninformative_reason

        execution["uninformative"] = uninformative_reason(ex["rows"])
        uninformative = None if s.allow_uninformative else execution["uninformative"]
    if not s.judge_gate:
        if empty:
            row["rejected_at"] = "empty"
            row["rejection_reason"] = execution["diagnosis"]
        elif uninformative:
            row["rejected_at"] = "uninformative"
            row["rejection_reason"] = uninformative
        else:
            row["accepted"] = True
            div.add(category, question, values)
        return row
    if s.judge is None:
        verdict = deterministic_judge(
            schema_valid=a["schema_valid"],
            execution_success=True,
            empty=empty,
            difficulty=a["difficulty"],
        )
    else:
        verdict = s.judge(c, row)
    override = None
    if not verdict.get("passed") and not empty:
        verdict, override = apply_override(
            verdict,
            ex["rows"],
            c.get("categorical_values"),
            cypher=row["cypher"],
            issues=row["validation"]["issues"],
        )
    row["judge"] = verdict
    if override is not None:
        row["judge_override"] = override
    if empty:
        row["rejected_at"] = "empty"
        row["rejection_reason"] = execution["diagnosis"]
        return row
    if uninformative:
        row["rejected_at"] = "uninformative"
        row["rejection_reason"] = uninformative
        return row
    if not verdict.get("passed"):
        row["rejected_at"] = "judge"
        row["rejection_reason"] = verdict.get("failure_reason")
        return row
    row["accepted"] = True
    div.add(category, question, values)
    return row


def _adopt_rewrite(row: dict[str, Any], cypher: str) -> None:
    """Make the G7 rewrite the row's Cypher, with its own analysis (the rewrite record and
    the schema-gate issues are kept)."""
    a = query_features([cypher])[0]
    old = row["validation"]
    a["rewrite"] = old["rewrite"]
    a["issues"] = old["issues"]
    a["schema_valid"] = old["schema_valid"]
    row["cypher"] = cypher
    row["validation"] = a
    row["signature"] = a["signature"]
    row["difficulty"] = a["difficulty"]


def rejection_counts(ledger: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """``{"candidates", "accepted", <bucket>: n ...}`` in :data:`REJECTION_BUCKETS` order."""
    rows = list(ledger)
    counts = Counter(str(r.get("rejected_at")) for r in rows if not r.get("accepted"))
    out = {"candidates": len(rows), "accepted": sum(1 for r in rows if r.get("accepted"))}
    out.update({b: counts.get(b, 0) for b in REJECTION_BUCKETS})
    return out
