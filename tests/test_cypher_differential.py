"""Neo4j is the oracle for the Cypher kgbench accepts (issue 29): the differential replay.

The corpus ``tests/data/cypher/neo4j/corpus.jsonl`` (written by ``make_corpus.py`` there) was
``EXPLAIN``ed on Neo4j in a READ session by ``record_verdicts.py``; every
``verdicts-neo4j-<version>.jsonl`` next to it holds one server's verdicts. For each file, the
answers of kgbench's Python API must agree with the server's (rules in :data:`RULES`):

- ``read_parses``: a query the server accepts as a read (``query_type`` ``r``) parses
  (``syntax_valid`` of the analysis behind ``kgbench gate`` and ``generate pipe``);
- ``read_passes_gate``: it is read-only for the evaluation gate
  (``kgbench._core.cypher.write_clauses``, which ``kgbench evaluate`` checks before sending);
- ``read_passes_g1``: it is read-only for PIPE-Cypher's G1 (the analysis' ``read_only``, the
  procedure allow-list set to ``READ_ONLY_PROCEDURES`` as the evaluation gate uses);
- ``read_gets_provenance``: ``provenance_queries`` does not fail on it, and gives at least one
  provenance query when it starts with MATCH (PSJS, SPEC.md §4);
- ``write_refused``: a query the server plans as a write (``w`` / ``rw``) is refused by the
  gate and by G1;
- ``write_parses``: it also parses for the analysis (the syntax verdict agrees; schema and
  DBMS commands, ``s``, are outside the front end's grammar and not checked);
- ``schema_refused``: a schema or DBMS query (``s``: index and constraint commands, DBMS-mode
  procedures, ``SHOW``) is refused by the gate and G1, except ``SHOW`` commands and calls of
  the procedures kgbench allows (``READ_ONLY_PROCEDURES``, e.g. ``dbms.components``), which
  read metadata;
- ``policy_refused``: the ``policy`` category (reads by Neo4j that kgbench refuses by design:
  ``LOAD CSV`` reads files, procedures off the allow-list) is refused by the gate and G1;
- ``syntax_refused``: a query the server refuses as a syntax error does not parse for the
  analysis; a semantic refusal (``SEMANTIC_CLASSES`` of ``record_verdicts.py``: undefined
  variable, type mismatch, unknown function, ...) may be accepted by kgbench, which does not
  resolve names or types;
- ``paths_agree``: the provenance builder parses every query the analysis parses (the other
  way round is allowed: PSJS recovers the MATCH part of a query whose syntax error lies after
  it, issue 29);
- ``same_error``: where both fail, the analysis and the provenance builder report the same
  error text (byte offset and reason);
- ``unparseable_not_read_only``: a query the analysis cannot parse never gets
  ``read_only: true``.

A failure lists, per corpus category, the ids and queries that break the rule. Rules kgbench
breaks today are marked ``xfail`` in
:data:`KNOWN_FAILURES`, with the classes of queries that fail; the ids that break them are
listed in ``known-failures.json`` next to the corpus, and
``test_no_disagreement_beyond_known`` (never xfail) fails on any other id, so a change can
only shrink the list. After a fix, rewrite the list with
``.venv/bin/python tests/test_cypher_differential.py --write-known``.

``test_recorded_verdicts_hold_on_live_server`` re-EXPLAINs a seeded sample of
:data:`LIVE_SAMPLE` queries on the test session's Neo4j and checks that the recorded verdicts
of the same server version still hold; ``test_record_verdicts_script`` runs
``record_verdicts.py --uri ... --load`` on a corpus slice against the same server.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
from collections import defaultdict
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kgbench._core import cypher
from kgbench.generate.pipe.features import query_features

HERE = Path(__file__).parent / "data" / "cypher" / "neo4j"
CORPUS = HERE / "corpus.jsonl"
VERDICT_FILES = sorted(HERE.glob("verdicts-*.jsonl"))
#: Queries re-checked on the live server per verdict file.
LIVE_SAMPLE = 200
#: Most failing queries listed per category in a failure message.
SHOWN = 8


def _recorder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("record_verdicts", HERE / "record_verdicts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORDER = _recorder()
SEMANTIC_CLASSES: frozenset[str] = frozenset(RECORDER.SEMANTIC_CLASSES)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@cache
def corpus() -> dict[str, dict[str, str]]:
    """The corpus records by id."""
    return {r["id"]: r for r in _read_jsonl(CORPUS)}


@cache
def verdicts(path: Path) -> dict[str, dict[str, Any]]:
    """One verdict file by id (every id must be a corpus id)."""
    out = {v["id"]: v for v in _read_jsonl(path)}
    unknown = sorted(set(out) - set(corpus()))
    assert not unknown, f"{path.name}: ids not in the corpus: {unknown[:5]}"
    return out


def dialect_of(path: Path) -> str:
    """The Cypher dialect of the server a verdict file was recorded on, as kgbench's executor
    finds it (``kgbench.neo4j.executor.cypher_dialect``): ``"25"`` for Neo4j 2025.06 and
    later (kgbench starts them with Cypher 25 as the default language), else ``"5"``."""
    version = path.stem.removeprefix("verdicts-neo4j-")
    parts = tuple(int(p) for p in re.findall(r"\d+", version)[:2])
    return "25" if parts >= (2025, 6) else "5"


@cache
def kgbench_answers(dialect: str = "5") -> dict[str, dict[str, Any]]:
    """kgbench's answers per corpus id for a server speaking ``dialect``: the gate's write
    clauses, the analysis and the provenance builder's outcome (``None`` = syntax error, else
    the queries)."""
    ids = list(corpus())
    queries = [corpus()[i]["query"] for i in ids]
    features = query_features(
        queries, allowed_procedures=list(cypher.READ_ONLY_PROCEDURES), dialect=dialect
    )
    out: dict[str, dict[str, Any]] = {}
    for i, q, f in zip(ids, queries, features, strict=True):
        try:
            prov: list[str] | None = list(cypher.provenance_queries(q, dialect))
            prov_error = None
        except cypher.CypherSyntaxError as exc:
            prov, prov_error = None, str(exc)
        out[i] = {
            "gate": list(cypher.write_clauses(q, dialect)),
            "syntax_valid": bool(f["syntax_valid"]),
            "syntax_error": f["syntax_error"],
            "read_only": bool(f["read_only"]),
            "provenance": prov,
            "provenance_error": prov_error,
        }
    return out


_STARTS_WITH_MATCH = re.compile(r"^\s*(?:OPTIONAL\s+)?MATCH\b", re.IGNORECASE)
_SHOW = re.compile(r"^\s*SHOW\b", re.IGNORECASE)
_CALL = re.compile(r"^\s*CALL\s+([A-Za-z_][\w.]*)", re.IGNORECASE)


def _is_read(v: dict[str, Any]) -> bool:
    return bool(v["accepted"]) and v["query_type"] == "r"


def _is_policy(rec: dict[str, str]) -> bool:
    return rec["category"] == "policy"


# A rule: (applies to this verdict and record?, kgbench's answers -> None or a complaint).
Rule = tuple[
    Callable[[dict[str, Any], dict[str, str]], bool],
    Callable[[dict[str, Any], dict[str, Any], dict[str, str]], str | None],
]


def _read_parses(v: dict[str, Any], a: dict[str, Any], r: dict[str, str]) -> str | None:
    return None if a["syntax_valid"] else "analysis: syntax error"


def _read_passes_gate(v: dict[str, Any], a: dict[str, Any], r: dict[str, str]) -> str | None:
    return f"gate refuses {a['gate']}" if a["gate"] else None


def _read_passes_g1(v: dict[str, Any], a: dict[str, Any], r: dict[str, str]) -> str | None:
    return None if a["read_only"] else "G1: not read_only"


def _read_gets_provenance(v: dict[str, Any], a: dict[str, Any], r: dict[str, str]) -> str | None:
    if a["provenance"] is None:
        return f"provenance: {a['provenance_error']}"
    if not a["provenance"] and _STARTS_WITH_MATCH.match(r["query"]):
        return "provenance: no query for a MATCH part"
    return None


def _metadata_read(query: str) -> bool:
    """A ``SHOW`` command or a call of an allowed read-only procedure."""
    call = _CALL.match(query)
    return bool(_SHOW.match(query)) or (
        call is not None and call.group(1) in cypher.READ_ONLY_PROCEDURES
    )


def _write_refused(v: dict[str, Any], a: dict[str, Any], r: dict[str, str]) -> str | None:
    problems = []
    if not a["gate"]:
        problems.append("the gate passes it")
    if a["read_only"]:
        problems.append("G1 read_only")
    return "; ".join(problems) or None


def _policy_refused(v: dict[str, Any], a: dict[str, Any], r: dict[str, str]) -> str | None:
    problems = []
    if not a["gate"]:
        problems.append("the gate passes it")
    if a["read_only"]:
        problems.append("G1 read_only")
    return "; ".join(problems) or None


def _syntax_refused(v: dict[str, Any], a: dict[str, Any], r: dict[str, str]) -> str | None:
    return "analysis parses it" if a["syntax_valid"] else None


def _paths_agree(v: dict[str, Any], a: dict[str, Any], r: dict[str, str]) -> str | None:
    if a["syntax_valid"] and a["provenance"] is None:
        return f"analysis parses it, provenance: {a['provenance_error']}"
    return None


def _same_error(v: dict[str, Any], a: dict[str, Any], r: dict[str, str]) -> str | None:
    if a["syntax_valid"] or a["provenance"] is not None:
        return None
    if a["syntax_error"] != a["provenance_error"]:
        return f"analysis {a['syntax_error']!r} vs provenance {a['provenance_error']!r}"
    return None


def _unparseable_not_read_only(
    v: dict[str, Any], a: dict[str, Any], r: dict[str, str]
) -> str | None:
    if not a["syntax_valid"] and a["read_only"]:
        return "syntax_valid false but read_only true"
    return None


RULES: dict[str, Rule] = {
    "read_parses": (lambda v, r: _is_read(v), _read_parses),
    "read_passes_gate": (lambda v, r: _is_read(v) and not _is_policy(r), _read_passes_gate),
    "read_passes_g1": (lambda v, r: _is_read(v) and not _is_policy(r), _read_passes_g1),
    "read_gets_provenance": (lambda v, r: _is_read(v), _read_gets_provenance),
    "write_refused": (
        lambda v, r: bool(v["accepted"]) and v["query_type"] in ("w", "rw") and not _is_policy(r),
        _write_refused,
    ),
    "write_parses": (
        lambda v, r: bool(v["accepted"]) and v["query_type"] in ("w", "rw") and not _is_policy(r),
        _read_parses,
    ),
    "schema_refused": (
        lambda v, r: (
            bool(v["accepted"])
            and v["query_type"] == "s"
            and not _is_policy(r)
            and not _metadata_read(r["query"])
        ),
        _write_refused,
    ),
    "policy_refused": (lambda v, r: _is_policy(r), _policy_refused),
    "syntax_refused": (lambda v, r: not v["accepted"] and v["class"] == "syntax", _syntax_refused),
    "paths_agree": (lambda v, r: True, _paths_agree),
    "same_error": (lambda v, r: True, _same_error),
    "unparseable_not_read_only": (lambda v, r: True, _unparseable_not_read_only),
}

#: Rules kgbench breaks today, and the classes of queries that break them (issue 29; the
#: front end rework removes these marks).
KNOWN_FAILURES: dict[str, str] = {
    "read_parses": (
        "forms Neo4j accepts that the front end does not parse yet: `is` / `case` / `not` / "
        "`null` / `true` / `then` as variable names; Cypher 25 only: conditional `WHEN ... "
        "THEN ... ELSE` queries, `GROUP BY`"
    ),
    "read_passes_g1": (
        "the same forms: an unparseable query is never read_only (issue 29), so a read the "
        "front end cannot parse fails G1"
    ),
    "read_gets_provenance": "the same forms",
    "syntax_refused": "mutations the front end accepts and Neo4j refuses (`RETURN all all(...)`)",
}


def check_rule(path: Path, rule: str) -> tuple[int, dict[str, list[str]]]:
    """Apply ``rule`` to every verdict of ``path``: the number checked and the failures per
    corpus category (``id: complaint: query``)."""
    applies, check = RULES[rule]
    answers = kgbench_answers(dialect_of(path))
    failures: dict[str, list[str]] = defaultdict(list)
    checked = 0
    for qid, v in verdicts(path).items():
        rec = corpus()[qid]
        if not applies(v, rec):
            continue
        checked += 1
        complaint = check(v, answers[qid], rec)
        if complaint is not None:
            failures[rec["category"]].append(f"{qid}: {complaint}: {rec['query']!r}")
    return checked, dict(failures)


def failure_report(path: Path, rule: str, failures: dict[str, list[str]]) -> str:
    lines = [f"{path.name}: rule {rule!r} broken by {sum(map(len, failures.values()))} queries"]
    for category in sorted(failures):
        items = failures[category]
        lines.append(f"  {category} ({len(items)}):")
        lines += [f"    {x}" for x in items[:SHOWN]]
        if len(items) > SHOWN:
            lines.append(f"    ... and {len(items) - SHOWN} more")
    return "\n".join(lines)


KNOWN_FILE = HERE / "known-failures.json"


def known_failures() -> dict[str, dict[str, list[str]]]:
    """``{verdict file stem: {rule: [ids kgbench fails today]}}`` (``known-failures.json``)."""
    if not KNOWN_FILE.exists():
        return {}
    with KNOWN_FILE.open(encoding="utf-8") as fh:
        known: dict[str, dict[str, list[str]]] = json.load(fh)
    return known


def write_known_failures() -> None:
    """Rewrite ``known-failures.json`` with today's failing ids of every rule and file."""
    out: dict[str, dict[str, list[str]]] = {}
    for path in VERDICT_FILES:
        per_rule = {}
        for rule in RULES:
            _, failures = check_rule(path, rule)
            ids = sorted(x.split(":", 1)[0] for items in failures.values() for x in items)
            if ids:
                per_rule[rule] = ids
        out[path.stem] = per_rule
    with KNOWN_FILE.open("w", encoding="utf-8", newline="\n") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")


def _cases(xfail: bool) -> list[Any]:
    cases = []
    known = known_failures()
    for path in VERDICT_FILES:
        for rule in RULES:
            marks = []
            if xfail and known.get(path.stem, {}).get(rule):
                n = len(known[path.stem][rule])
                what = KNOWN_FAILURES.get(rule, "known disagreements")
                reason = f"{what} ({n} queries in known-failures.json)"
                marks.append(pytest.mark.xfail(strict=False, reason=reason))
            cases.append(pytest.param(path, rule, id=f"{path.stem}-{rule}", marks=marks))
    return cases


def test_verdict_files_present() -> None:
    """At least the Neo4j 5.26 verdicts ship, and every file covers the whole corpus."""
    assert any(p.name.startswith("verdicts-neo4j-5.26.") for p in VERDICT_FILES), VERDICT_FILES
    for path in VERDICT_FILES:
        v = verdicts(path)
        missing = sorted(set(corpus()) - set(v))
        assert not missing, f"{path.name}: no verdict for {len(missing)} ids: {missing[:5]}"
        for qid, rec in v.items():
            assert isinstance(rec["accepted"], bool), qid
            if rec["accepted"]:
                assert rec["query_type"] in ("r", "rw", "w", "s"), (qid, rec)
                assert rec["code"] is None and rec["class"] is None, (qid, rec)
            else:
                assert rec["query_type"] is None and rec["code"] and rec["class"], (qid, rec)


def test_both_verdicts_exercised() -> None:
    """Every category the server should split is split: accepted reads, writes, syntax and
    semantic refusals are all present (a corpus that the server accepts wholesale tests
    nothing)."""
    for path in VERDICT_FILES:
        by_kind: dict[str, set[str]] = defaultdict(set)
        for qid, v in verdicts(path).items():
            cat = corpus()[qid]["category"]
            if v["accepted"]:
                kind = "read" if v["query_type"] == "r" else "write"
            else:
                kind = "syntax" if v["class"] == "syntax" else "other_refusal"
            by_kind[cat].add(kind)
        assert {"read", "syntax", "other_refusal"} <= by_kind["deprecated"], by_kind
        assert {"read", "syntax"} <= by_kind["mutations"], by_kind
        assert "write" in by_kind["writes"], by_kind
        assert "read" in by_kind["not_writes"] and "write" not in by_kind["not_writes"], by_kind
        assert "read" in by_kind["keyword_names"], by_kind


@pytest.mark.parametrize(("path", "rule"), _cases(xfail=True))
def test_kgbench_agrees_with_neo4j(path: Path, rule: str) -> None:
    checked, failures = check_rule(path, rule)
    assert checked > 0, f"{path.name}: rule {rule!r} applies to no query"
    assert not failures, failure_report(path, rule, failures)


@pytest.mark.parametrize(("path", "rule"), _cases(xfail=False))
def test_no_disagreement_beyond_known(path: Path, rule: str) -> None:
    """No query breaks ``rule`` unless ``known-failures.json`` lists it (a ratchet: the list
    may only shrink)."""
    known = set(known_failures().get(path.stem, {}).get(rule, []))
    _, failures = check_rule(path, rule)
    new = {
        cat: [x for x in items if x.split(":", 1)[0] not in known]
        for cat, items in failures.items()
    }
    new = {cat: items for cat, items in new.items() if items}
    assert not new, "not in known-failures.json:\n" + failure_report(path, rule, new)


@pytest.mark.neo4j
@pytest.mark.parametrize("path", VERDICT_FILES, ids=[p.stem for p in VERDICT_FILES])
def test_recorded_verdicts_hold_on_live_server(
    path: Path, neo4j_driver: Any, neo4j_load: Callable[[Any], Any]
) -> None:
    """A seeded sample of the corpus, re-EXPLAINed (READ session, nothing executed) on the test
    server: the recorded verdict (accepted, query type, refusal class) still holds."""
    version = RECORDER.server_version(neo4j_driver)
    recorded_version = path.stem.removeprefix("verdicts-neo4j-")
    if version.split(".")[:2] != recorded_version.split(".")[:2]:
        pytest.skip(
            f"{path.name} was recorded on Neo4j {recorded_version}; this server is {version}"
        )
    neo4j_load(HERE.parent / "graph.json")
    recorded = verdicts(path)
    ids = sorted(random.Random(29).sample(sorted(recorded), min(LIVE_SAMPLE, len(recorded))))
    changed = []
    for qid in ids:
        now = RECORDER.verdict(neo4j_driver, corpus()[qid]["query"])
        old = recorded[qid]
        keys = ("accepted", "query_type", "class")
        if any(now[k] != old[k] for k in keys):
            was = {k: old[k] for k in keys}
            got = {k: now[k] for k in keys}
            changed.append(f"{qid}: recorded {was}, now {got}: {corpus()[qid]['query']!r}")
    assert not changed, f"{len(changed)} of {len(ids)} verdicts changed:\n" + "\n".join(changed)


@pytest.mark.neo4j
def test_record_verdicts_script(neo4j_server: Any, tmp_path: Path) -> None:
    """``record_verdicts.py --uri ... --load`` (the way another server's verdicts are made)
    writes, for a corpus slice, the verdicts recorded here (same server version)."""
    path = next(p for p in VERDICT_FILES if p.name.startswith("verdicts-neo4j-5.26."))
    recorded = verdicts(path)
    ids = sorted(random.Random(30).sample(sorted(recorded), 30))
    small = tmp_path / "corpus.jsonl"
    small.write_text("".join(json.dumps(corpus()[i]) + "\n" for i in ids), encoding="utf-8")
    assert RECORDER.main(["--uri", neo4j_server.uri, "--load", "--corpus", str(small),
                          "--out", str(tmp_path)]) == 0  # fmt: skip
    written = list(tmp_path.glob("verdicts-neo4j-*.jsonl"))
    assert len(written) == 1 and written[0].name.startswith("verdicts-neo4j-5.26."), written
    got = {v["id"]: v for v in _read_jsonl(written[0])}
    assert list(got) == ids
    keys = ("accepted", "query_type", "code", "class")
    for qid in ids:
        assert {k: got[qid][k] for k in keys} == {k: recorded[qid][k] for k in keys}, qid


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--write-known"]:
        sys.exit("usage: python tests/test_cypher_differential.py --write-known")
    write_known_failures()
    print(f"wrote {KNOWN_FILE}")
