"""The PIPE-Cypher judge (gate G10): the offline deterministic judge, the LLM judge, the
categorical-value override and judge calibration against human labels (spec ``pipe-cypher.md``
§3 G10, §5, §6 "Judge calibration", §7; facts from PIPE-Cypher's ``pipecypher/judge.py``,
``prompts.py`` and ``calibration.py``).

A verdict is a dict ``{"passed": bool, "ambiguity_score": float, "semantic_alignment_score":
float, "schema_use_score": float, "difficulty": str, "failure_reason": str}`` (scores in
[0, 1]; ambiguity lower is better; ``failure_reason`` is ``""`` when nothing failed), the
ledger's ``judge`` field (spec §2.7).

Thresholds (spec §5): ambiguity ≤ 0.35, semantic alignment ≥ 0.75, schema use ≥ 0.8. The
deterministic judge always applies them; the LLM judge only with ``strict=True`` — the
original's LLM judge takes the model's ``pass`` flag alone (spec §7), which stays the default.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kgbench.llm import LLMClient

#: Pass thresholds (spec §5; the original's ``DeterministicJudge`` defaults).
MAX_AMBIGUITY = 0.35
MIN_SEMANTIC_ALIGNMENT = 0.75
MIN_SCHEMA_USE = 0.8

#: Failure reasons this module writes.
PARSE_ERROR = "judge_parse_error"
BELOW_THRESHOLD = "below judge threshold"
VALIDATION_FAILED = "deterministic validation failed"
EMPTY_RESULT = "execution returned no rows"

#: Name of the override rule (the original's ``override`` tag).
OVERRIDE_RULE = "categorical_result_value_guard"

#: Result rows shown to the judge (spec §5).
JUDGE_ROWS = 5

_DIFFICULTIES = ("easy", "medium", "hard")

#: Wording that marks a rejection as a complaint about categorical values (original list).
_CATEGORICAL_TERMS = (
    "categorical",
    "valid value",
    "valid values",
    "allowed value",
    "allowed values",
    "schema defines",
    "schema-defined",
)
#: Wording that points at the result rows (original list).
_RESULT_TERMS = ("execution sample", "result row", "result rows", "returns a value")
_QUOTED = re.compile(r"(?<![^\W_])'([^'\n]{1,100}?)'(?![^\W_])|\"([^\"\n]{1,100}?)\"")
_FENCE = re.compile(r"```[A-Za-z]*\s*(.*?)```", re.DOTALL)

_SYSTEM = (
    "You are an expert benchmark engineer reviewing text-to-Cypher benchmark examples. "
    "Answer with one JSON object only: no markdown, no text around it."
)

_INSTRUCTIONS = """\
Decide whether the question and its Cypher query make an acceptable benchmark example.

Graph schema (the part the query uses):
{schema}

Question:
{question}

Cypher:
{cypher}

Result sample (at most 5 rows):
{rows}

Validation summary:
{validation}

Answer with a JSON object with these keys:
- "pass": true or false
- "ambiguity_score": from 0 to 1, lower is better: how open the question is to other readings
- "semantic_alignment_score": from 0 to 1: how exactly the Cypher answers the question
- "schema_use_score": from 0 to 1: whether labels, relationship types, properties and \
directions are used as the schema defines them
- "difficulty": "easy", "medium" or "hard"
- "failure_reason": a short reason, or "" when pass is true

Pass only when the question is unambiguous, the Cypher answers exactly it, the schema is used \
correctly and the example would be a useful benchmark question."""


def _verdict(
    passed: bool,
    ambiguity: float,
    semantic: float,
    schema_use: float,
    difficulty: str,
    reason: str,
) -> dict[str, Any]:
    return {
        "passed": passed,
        "ambiguity_score": ambiguity,
        "semantic_alignment_score": semantic,
        "schema_use_score": schema_use,
        "difficulty": difficulty,
        "failure_reason": reason,
    }


def within_thresholds(verdict: Mapping[str, Any]) -> bool:
    """Whether a verdict's scores meet the spec §5 thresholds (ambiguity ≤ 0.35, semantic
    alignment ≥ 0.75, schema use ≥ 0.8)."""
    return (
        float(verdict["ambiguity_score"]) <= MAX_AMBIGUITY
        and float(verdict["semantic_alignment_score"]) >= MIN_SEMANTIC_ALIGNMENT
        and float(verdict["schema_use_score"]) >= MIN_SCHEMA_USE
    )


def deterministic_judge(
    *,
    schema_valid: bool,
    execution_success: bool,
    empty: bool,
    difficulty: str = "unknown",
) -> dict[str, Any]:
    """The offline judge's verdict (``--no-llm``; spec §5, the original's
    ``DeterministicJudge``).

    Fixed scores: ambiguity 0.2; semantic alignment 0.85, or 0.65 when the query ran and
    returned no rows (``execution_success and empty``), or 0.0 when validation failed
    (``schema_valid`` false; the reason is then ``"deterministic validation failed"``); schema
    use 1.0 if ``schema_valid`` else 0.0. It passes when nothing failed and the thresholds
    hold, so an empty result fails (``"execution returned no rows"``). As in the original, a
    failed execution alone does not fail the judge: acceptance checks execution separately.
    ``difficulty`` is copied into the verdict.
    """
    semantic = 0.85
    reason = ""
    if not schema_valid:
        semantic, reason = 0.0, VALIDATION_FAILED
    elif execution_success and empty:
        semantic, reason = 0.65, EMPTY_RESULT
    verdict = _verdict(False, 0.2, semantic, 1.0 if schema_valid else 0.0, difficulty, "")
    verdict["passed"] = not reason and within_thresholds(verdict)
    verdict["failure_reason"] = "" if verdict["passed"] else reason or BELOW_THRESHOLD
    return verdict


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def judge_messages(
    *,
    question: str,
    cypher: str,
    schema_slice: Any,
    rows: Sequence[Any],
    validation_summary: Any,
) -> list[dict[str, str]]:
    """The judge's chat (spec §5): a system message asking for JSON only, then one user message
    with the schema slice, question, Cypher, the first 5 result rows and the validation summary
    (non-strings as compact JSON) and the verdict keys to return (the original's
    ``JUDGE_PROMPT`` contents, kgbench's wording)."""
    prompt = _INSTRUCTIONS.format(
        schema=_as_text(schema_slice),
        question=question,
        cypher=cypher,
        rows=json.dumps(list(rows)[:JUDGE_ROWS], ensure_ascii=False, default=str),
        validation=_as_text(validation_summary),
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": prompt}]


def _json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object with a ``pass`` key in ``text`` (fenced blocks first, then the
    whole text; text around the object is ignored), else None."""
    decoder = json.JSONDecoder()
    for body in [*(m.group(1) for m in _FENCE.finditer(text)), text]:
        start = body.find("{")
        while start >= 0:
            try:
                data, _ = decoder.raw_decode(body, start)
            except ValueError:
                data = None
            if isinstance(data, dict) and "pass" in data:
                return data
            start = body.find("{", start + 1)
    return None


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"'pass' must be true or false, got {value!r}")


def _score(data: Mapping[str, Any], name: str, default: float) -> float:
    value = data.get(name)
    if value is None:
        return default
    if isinstance(value, str):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name!r} must be a number, got {value!r}")
    return float(value)


def parse_judge_reply(text: str, *, difficulty: str = "unknown") -> dict[str, Any]:
    """The verdict in a judge reply, before any threshold (see :func:`llm_judge`).

    Reads the first JSON object holding a ``pass`` key, inside a Markdown fence or not, with
    any text around it. ``pass`` must be a boolean (or ``"true"``/``"false"``); missing scores
    default as in the original (ambiguity 1.0, the others 0.0) and must otherwise be numbers;
    a ``difficulty`` other than easy/medium/hard is replaced by ``difficulty``;
    ``failure_reason`` is the model's text (``""`` if absent). Raises ``ValueError`` naming the
    problem when there is no such object or a field has the wrong type.
    """
    data = _json_object(text)
    if data is None:
        raise ValueError(f"no JSON object with a 'pass' key in the reply: {text[:120]!r}")
    said = data.get("difficulty")
    reason = data.get("failure_reason")
    return _verdict(
        _flag(data["pass"]),
        _score(data, "ambiguity_score", 1.0),
        _score(data, "semantic_alignment_score", 0.0),
        _score(data, "schema_use_score", 0.0),
        said.strip().lower()
        if isinstance(said, str) and said.strip().lower() in _DIFFICULTIES
        else difficulty,
        "" if reason is None else str(reason).strip(),
    )


def llm_judge(
    client: LLMClient,
    *,
    question: str,
    cypher: str,
    schema_slice: Any,
    rows: Sequence[Any],
    validation_summary: Any,
    difficulty: str = "unknown",
    strict: bool = False,
) -> dict[str, Any]:
    """The LLM judge's verdict on one candidate (spec §5, §7).

    Sends :func:`judge_messages` through ``client.complete`` (so the client's replay cache
    makes reruns exact) and parses the reply with :func:`parse_judge_reply`. Compat mode
    (default, the original): ``passed`` is the model's ``pass`` flag alone. ``strict=True``
    also requires the thresholds; a passing flag with scores outside them fails with
    ``"below judge threshold"``. A reply that cannot be parsed gives ``passed`` False, scores
    ambiguity 1.0 / semantic 0.0 / schema 0.0 and ``failure_reason`` ``"judge_parse_error"``
    (never an exception). ``difficulty`` (the structural difficulty) is used when the model
    gives none. The categorical-value override is separate: :func:`apply_override`. Raises
    :class:`kgbench.llm.LLMError` when the endpoint fails.
    """
    reply = client.complete(
        judge_messages(
            question=question,
            cypher=cypher,
            schema_slice=schema_slice,
            rows=rows,
            validation_summary=validation_summary,
        )
    )
    try:
        verdict = parse_judge_reply(reply, difficulty=difficulty)
    except ValueError:
        return _verdict(False, 1.0, 0.0, 0.0, difficulty, PARSE_ERROR)
    if strict and verdict["passed"] and not within_thresholds(verdict):
        verdict["passed"] = False
        verdict["failure_reason"] = BELOW_THRESHOLD
    return verdict


def _result_strings(rows: Sequence[Any]) -> set[str]:
    """String cells (stripped, 2–100 chars) of the first 5 rows (the original's
    ``_execution_string_values``)."""
    out: set[str] = set()
    for row in list(rows)[:JUDGE_ROWS]:
        cells = row.values() if isinstance(row, Mapping) else row
        if isinstance(cells, str) or not isinstance(cells, Iterable):
            cells = [cells]
        for cell in cells:
            if isinstance(cell, str) and 2 <= len(cell.strip()) <= 100:
                out.add(cell.strip())
    return out


def _categorical_strings(categorical_values: Any) -> set[str]:
    if categorical_values is None:
        return set()
    if isinstance(categorical_values, Mapping):
        groups = list(categorical_values.values())
    else:
        groups = [categorical_values]
    out: set[str] = set()
    for group in groups:
        items = [group] if isinstance(group, str) else group
        out.update(str(v).strip().lower() for v in items if v is not None)
    return out


def _number(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def apply_override(
    verdict: Mapping[str, Any],
    rows: Sequence[Any],
    categorical_values: Mapping[str, Iterable[Any]] | Iterable[Any] | None,
    *,
    cypher: str = "",
    issues: Iterable[Mapping[str, Any]] = (),
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Gate G10's override (spec §3): ``(final verdict, override info or None)``.

    A judge rejection is a false rejection about categorical values when (the original's
    ``_is_categorical_result_value_false_rejection``): the result ``rows`` are not empty; no
    validation issue has code ``invalid_categorical_value``; the ``failure_reason``
    (lower-cased) uses categorical wording ("categorical", "valid value(s)", "allowed
    value(s)", "schema defines", "schema-defined"); and it names a string cell of the first 5
    rows (2–100 chars) that is not in ``cypher`` — or it points at the rows ("execution
    sample", "result row(s)", "returns a value"). kgbench adds the "only" of spec §3: every
    value the reason quotes (``'...'`` or ``"..."``) must be such a result cell or one of
    ``categorical_values`` (the schema's ``{"L.p": [values]}`` or a flat list), so a reason
    that also cites, say, an entity of the question is not overridden.

    The overriding verdict passes with ambiguity ``min(a, 0.2)``, semantic alignment
    ``max(s, 0.85)``, schema use ``max(u, 1.0)``, the same difficulty and ``failure_reason``
    ``""`` (the original's values). Both verdicts are kept: the info is ``{"rule":
    "categorical_result_value_guard", "original": the given verdict, "cited_values": [result
    cells named in the reason]}``. A passing verdict, or any other rejection, is returned as it
    is with None.
    """
    original = dict(verdict)
    reason = str(original.get("failure_reason") or "").strip().lower()
    if original.get("passed") or not reason or not rows:
        return original, None
    if any(isinstance(i, Mapping) and i.get("code") == "invalid_categorical_value" for i in issues):
        return original, None
    if not any(term in reason for term in _CATEGORICAL_TERMS):
        return original, None
    cells = _result_strings(rows)
    cypher_lower = cypher.lower()
    cited = sorted(v for v in cells if v.lower() in reason and v.lower() not in cypher_lower)
    if not cited and not any(term in reason for term in _RESULT_TERMS):
        return original, None
    allowed = {v.lower() for v in cells} | _categorical_strings(categorical_values)
    quoted = [(a or b).strip().lower() for a, b in _QUOTED.findall(reason)]
    if any(q and q not in allowed for q in quoted):
        return original, None
    final = _verdict(
        True,
        min(_number(original.get("ambiguity_score"), 1.0), 0.2),
        max(_number(original.get("semantic_alignment_score"), 0.0), 0.85),
        max(_number(original.get("schema_use_score"), 0.0), 1.0),
        str(original.get("difficulty", "unknown")),
        "",
    )
    return final, {"rule": OVERRIDE_RULE, "original": original, "cited_values": cited}


def judge_calibration(pairs: Iterable[tuple[bool, bool]]) -> dict[str, Any]:
    """Agreement of judge and human accept decisions (spec §6; the original's
    ``analyze_audit_csv``).

    ``pairs`` are ``(judge_accepted, human_accepted)``. Returns ``{"n", "true_accept",
    "false_accept", "false_reject", "true_reject", "agreement", "precision", "recall",
    "kappa"}``: agreement = (TA + TR) / n; precision = TA / judge accepts; recall = TA / human
    accepts (0.0 when the denominator is 0); Cohen's κ = (p_o − p_e) / (1 − p_e) with p_e from
    the two accept rates (1.0 when p_e = 1). No pairs: all 0. Example: TA 40, FA 0, FR 16,
    TR 24 → agreement 0.80, precision 1.00, recall 0.714, κ 0.60.
    """
    counts = {"true_accept": 0, "false_accept": 0, "false_reject": 0, "true_reject": 0}
    for judge_ok, human_ok in pairs:
        if judge_ok:
            counts["true_accept" if human_ok else "false_accept"] += 1
        else:
            counts["false_reject" if human_ok else "true_reject"] += 1
    ta, fa, fr, tr = (counts[k] for k in counts)
    n = ta + fa + fr + tr
    out: dict[str, Any] = {"n": n, **counts}
    if n == 0:
        return {**out, "agreement": 0.0, "precision": 0.0, "recall": 0.0, "kappa": 0.0}
    judge_yes, human_yes = ta + fa, ta + fr
    observed = (ta + tr) / n
    expected = (judge_yes / n) * (human_yes / n) + ((n - judge_yes) / n) * ((n - human_yes) / n)
    return {
        **out,
        "agreement": observed,
        "precision": ta / judge_yes if judge_yes else 0.0,
        "recall": ta / human_yes if human_yes else 0.0,
        "kappa": (observed - expected) / (1 - expected) if expected < 1.0 else 1.0,
    }
