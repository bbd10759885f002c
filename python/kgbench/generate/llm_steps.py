"""The two LLM steps of CypherBench's task generator: question rewrite and rewrite verification.

Spec ``cypherbench-taskgen.md`` §4, after CypherBench's ``taskgen/rewrite_question_llm.py`` and
``taskgen/verify_question_llm.py`` (megagonlabs/cypherbench @9460518) and the round structure of
its ``scripts/run_benchmark_generation.sh``; the prompt wording here is kgbench's own.

Samples are ``Nl2CypherSample`` dicts (SPEC.md §3): ``qid``, ``gold_cypher``,
``nl_question_raw`` (the template text) and ``nl_question`` (the rewritten question).

- **Rewrite** (:func:`rewrite_questions`): one chat per sample — a system message with the
  rewriting rules and two worked examples, then a user message ``Cypher: <gold>`` /
  ``question: <raw>`` / ``rewritten_question:``. The reply, stripped (and without a leading
  ``rewritten_question:`` label), becomes ``nl_question``; an empty reply keeps the raw question.
- **Verify** (:func:`verify_rewrites`): the LLM judges each (gold Cypher, raw question,
  rewritten question) and answers a JSON object ``{has_same_meaning: bool, is_realistic: bool,
  explanation: str|null, correct_rewrite: str|null}`` (:func:`parse_verdict`). A verdict fails
  when either flag is false, or when it cannot be parsed (reason ``invalid_llm_out``). Every
  round verifies every remaining sample. Test split (CypherBench: ``rounds=3``,
  ``drop_failures=False``): a failed verdict's ``correct_rewrite`` becomes the new
  ``nl_question`` for the next round (an invalid verdict, or one without a ``correct_rewrite``,
  keeps the question). Train split (``rounds=1``, ``drop_failures=True``): failures are dropped.

With the client's replay cache a question that did not change between rounds replays its
verdict, so only changed questions cost a request. Errors: :class:`kgbench.llm.LLMError` from
the client; :class:`kgbench.errors.InputError` for a sample without the needed string fields.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from typing import Any

from kgbench.errors import InputError
from kgbench.llm import LLMClient, LLMError

#: Reason recorded for a verdict that could not be parsed.
INVALID_LLM_OUT = "invalid_llm_out"

_REWRITE_RULES = """\
You turn template-generated questions from a text-to-Cypher dataset into natural English \
questions. Each task gives a Cypher query and the question the template produced for it; \
reply with one rewritten question.

Rules:
1. Keep the meaning exactly: the rewritten question must ask for the same thing as the \
Cypher query and the template question. Never add a condition and never drop one.
2. Read relation directions carefully. In Cypher, `(a)-[:hasMother]->(b)` means b is the \
mother of a, and `(a)<-[:hasMother]-(b)` means a is the mother of b. In the template \
question, `Person that "Ada" hasMother` means "Ada" is the subject (the person asked for is \
Ada's mother), while `Person that hasMother "Ada"` asks for the people whose mother is Ada.
3. Write grammatical, fluent English that a person would actually ask.
4. Square brackets in the template question only show how it groups; leave them out. A \
remark in parentheses such as "(at some point, past or present)" is part of the meaning \
(e.g. "has ever played for", not "plays for").
5. Put relation types, entity types and property names into plain words and vary the \
phrasing from question to question: `Film directedBy Person` can become "films made by", \
"movies that someone directed", ...; `FlightAccident` can be "plane crash" or "air \
disaster"; `elevation_m` can be "height above sea level in metres". Spell out units.
6. A chain of relations may be said more briefly when the meaning is the same, e.g. "the \
mother of the father of X" -> "X's paternal grandmother".
7. Names and string values: drop the quotation marks but keep the text exactly as given.
8. Numbers and dates must keep their value, though you may write them differently \
(1969-07-20 -> "20 July 1969" or "July 20, 1969"; 15000 -> "15,000" or "fifteen thousand").
9. Put comparison and list operators into words (`>=` -> "at least"; `NOT 'Spanish' IN \
n.official_languages` -> "where Spanish is not an official language"), and say \
ascending/descending naturally ("from oldest to newest", "largest first").
10. Reply with the rewritten question only: no label, no quotes, no explanation.

Worked examples:

Cypher: MATCH (n:Taxon)<-[r0:hasParent]-(m0:Taxon)-[r1:hasConservationStatus]->\
(m1:ConservationStatus {name: 'Near Threatened'}) WITH DISTINCT n RETURN count(DISTINCT n)
question: List the number of Taxon that [some Taxon that hasConservationStatus \
"Near Threatened"] hasParent
rewritten_question: How many taxa are the parent taxon of at least one taxon whose \
conservation status is Near Threatened?

Cypher: MATCH (n:Character)<-[r0:hasFather]-(m0:Character),(n:Character)<-[r1:killedBy]-\
(m0:Character) WITH DISTINCT n RETURN n.name
question: List the names of Character that a Character [hasFather and killedBy]
rewritten_question: Which characters killed one of their own children?"""

_VERIFY_RULES = """\
You check rewritten questions of a text-to-Cypher dataset. Each task gives a Cypher query, \
the template-generated original question for it, and a rewritten question. Decide:
(1) has_same_meaning: does the rewritten question ask for exactly what the Cypher query and \
the original question ask for, with no condition added or lost?
(2) is_realistic: is it a sensible question someone could really ask?

Notes:
- Square brackets in the original question only show how it groups.
- Read relation directions carefully: `(a)-[:hasMother]->(b)` means b is the mother of a; \
`(a)<-[:hasMother]-(b)` means a is the mother of b. `MATCH (n:Taxon)-[:preysOn]->(m:Taxon) \
RETURN n` returns predators, `MATCH (n:Taxon)<-[:preysOn]-(m:Taxon) RETURN n` returns prey.

Answer with one JSON object and nothing else:
{"has_same_meaning": true|false, "is_realistic": true|false, "explanation": string or null, \
"correct_rewrite": string or null}
If either answer is false, say why in "explanation" and give a corrected rewritten question \
in "correct_rewrite"; otherwise both may be null.

Worked examples:

Cypher: MATCH (n:Person)<-[r0:composedBy]-(m0:Opera {name: 'Tosca'}) WITH DISTINCT n \
RETURN n.name ORDER BY n.date_of_birth DESC
Original question: List the names of Person that "Tosca" composedBy, ordered by \
date_of_birth in descending order
Rewritten question: Who composed the opera Tosca? List them from the most recently born \
to the earliest born.
Output:
{"has_same_meaning": true, "is_realistic": true, "explanation": null, "correct_rewrite": null}

Cypher: MATCH (n:Character)<-[r0:hasFather]-(m0:Character) WITH DISTINCT n \
RETURN count(DISTINCT n)
Original question: List the number of Character that Character hasFather
Rewritten question: How many characters have a father?
Output:
{"has_same_meaning": false, "is_realistic": true, "explanation": "The query counts \
characters who are the father of some character, not characters who have a father.", \
"correct_rewrite": "How many characters are the father of another character?"}"""

_LABEL = re.compile(r"^\s*rewritten[ _]question\s*:\s*", re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _field(sample: dict[str, Any], name: str, index: int) -> str:
    value = sample.get(name)
    if not isinstance(value, str) or not value.strip():
        qid = sample.get("qid", f"#{index}")
        raise InputError(f"sample {qid}: '{name}' must be a non-empty string, got {value!r}")
    return value


def rewrite_prompt(gold_cypher: str, raw_question: str) -> list[dict[str, str]]:
    """The chat that asks for a natural rewrite of ``raw_question`` (the template text) of
    ``gold_cypher``: ``[{"role": "system", ...}, {"role": "user", ...}]``."""
    user = f"Cypher: {gold_cypher}\nquestion: {raw_question}\nrewritten_question:"
    return [{"role": "system", "content": _REWRITE_RULES}, {"role": "user", "content": user}]


def clean_rewrite(reply: str) -> str:
    """The rewritten question in an LLM reply: stripped, without a leading
    ``rewritten_question:`` label (an empty string when nothing is left)."""
    return _LABEL.sub("", reply.strip(), count=1).strip()


def rewrite_questions(
    client: LLMClient, samples: Sequence[dict[str, Any]], progress: bool = False
) -> list[str]:
    """Rewritten questions for ``samples`` (one per sample, in order), from
    :func:`rewrite_prompt` of each sample's ``gold_cypher`` and ``nl_question_raw``.

    The caller stores them as ``nl_question``. An empty reply gives the raw question back.
    Raises :class:`~kgbench.errors.InputError` for a sample without those string fields and
    :class:`~kgbench.llm.LLMError` when the client fails.
    """
    prompts = []
    raws = []
    for i, sample in enumerate(samples):
        raw = _field(sample, "nl_question_raw", i)
        raws.append(raw)
        prompts.append(rewrite_prompt(_field(sample, "gold_cypher", i), raw))
    replies = client.complete_many(prompts, progress=progress)
    return [clean_rewrite(reply) or raw for reply, raw in zip(replies, raws, strict=True)]


def verify_prompt(sample: dict[str, Any]) -> list[dict[str, str]]:
    """The chat that asks whether ``sample["nl_question"]`` keeps the meaning of
    ``gold_cypher`` and ``nl_question_raw`` and is realistic; the reply is a JSON verdict
    (:func:`parse_verdict`). Raises :class:`~kgbench.errors.InputError` if a field is missing."""
    user = (
        f"Cypher: {_field(sample, 'gold_cypher', 0)}\n"
        f"Original question: {_field(sample, 'nl_question_raw', 0)}\n"
        f"Rewritten question: {_field(sample, 'nl_question', 0)}\n"
        "Output:"
    )
    return [{"role": "system", "content": _VERIFY_RULES}, {"role": "user", "content": user}]


def _flag(verdict: dict[str, Any], name: str) -> bool:
    value = verdict.get(name)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise LLMError(f"the verdict's '{name}' must be true or false, got {value!r}")


def _optional_text(verdict: dict[str, Any], name: str) -> str | None:
    value = verdict.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise LLMError(f"the verdict's '{name}' must be a string or null, got {value!r}")
    return value.strip() or None


def parse_verdict(text: str) -> dict[str, Any]:
    """The verdict in an LLM reply: ``{"has_same_meaning": bool, "is_realistic": bool,
    "explanation": str | None, "correct_rewrite": str | None}``.

    Tolerates a Markdown code fence (```` ```json ... ``` ````) and text around the JSON object
    (the outermost ``{...}`` is read); the flags may also be the strings "true"/"false". Raises
    :class:`~kgbench.llm.LLMError` naming the problem when no such object can be read.
    """
    body = text.strip()
    fenced = _FENCE.search(body)
    if fenced:
        body = fenced.group(1).strip()
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        raise LLMError(f"no JSON object in the verdict: {body[:120]!r}")
    try:
        data = json.loads(body[start : end + 1])
    except ValueError as exc:
        raise LLMError(f"the verdict is not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise LLMError("the verdict is not a JSON object")
    return {
        "has_same_meaning": _flag(data, "has_same_meaning"),
        "is_realistic": _flag(data, "is_realistic"),
        "explanation": _optional_text(data, "explanation"),
        "correct_rewrite": _optional_text(data, "correct_rewrite"),
    }


def _failure_reason(verdict: dict[str, Any]) -> str | None:
    reasons = [
        name
        for name, ok in (
            ("not_same_meaning", verdict["has_same_meaning"]),
            ("not_realistic", verdict["is_realistic"]),
        )
        if not ok
    ]
    return "+".join(reasons) or None


def verify_rewrites(
    client: LLMClient,
    samples: Sequence[dict[str, Any]],
    *,
    rounds: int,
    drop_failures: bool,
    progress: bool = False,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Verify the rewritten questions of ``samples`` over ``rounds`` rounds (spec §4).

    Each round sends :func:`verify_prompt` for every remaining sample. A failed verdict
    (a flag false, or unparseable: reason ``invalid_llm_out``) drops the sample when
    ``drop_failures`` (train: ``rounds=1, drop_failures=True``); otherwise (test: ``rounds=3,
    drop_failures=False``) the verdict's ``correct_rewrite`` becomes the sample's
    ``nl_question`` (kept unchanged when there is none or the verdict is invalid).

    Returns ``(samples, bad_samples)``: deep copies of the kept samples in input order, and one
    record per failed verdict ``{"qid", "round" (1-based), "nl_question" (the question that was
    judged), "reason" ("not_same_meaning", "not_realistic", both joined by "+", or
    "invalid_llm_out"), "verdict"}`` where ``verdict`` is the parsed verdict or, when invalid,
    ``{"error": <why>, "llm_output": <reply>}``. The input is not modified. Raises
    :class:`~kgbench.errors.InputError` for a sample without ``gold_cypher``,
    ``nl_question_raw`` or ``nl_question``, and :class:`~kgbench.llm.LLMError` when the client
    fails.
    """
    if rounds < 1:
        raise InputError(f"rounds must be >= 1, got {rounds}")
    current = [copy.deepcopy(s) for s in samples]
    bad: list[dict[str, Any]] = []
    for round_no in range(1, rounds + 1):
        prompts = [verify_prompt(s) for s in current]
        replies = client.complete_many(prompts, progress=progress)
        kept: list[dict[str, Any]] = []
        for sample, reply in zip(current, replies, strict=True):
            record: dict[str, Any] = {
                "qid": sample.get("qid"),
                "round": round_no,
                "nl_question": sample["nl_question"],
            }
            try:
                verdict = parse_verdict(reply)
            except LLMError as exc:
                bad.append(
                    {
                        **record,
                        "reason": INVALID_LLM_OUT,
                        "verdict": {"error": str(exc), "llm_output": reply},
                    }
                )
                if not drop_failures:
                    kept.append(sample)
                continue
            reason = _failure_reason(verdict)
            if reason is None:
                kept.append(sample)
                continue
            bad.append({**record, "reason": reason, "verdict": verdict})
            if drop_failures:
                continue
            if verdict["correct_rewrite"]:
                sample["nl_question"] = verdict["correct_rewrite"]
            kept.append(sample)
        current = kept
    return current, bad


def aggregate_verdicts(n_verified: int, bad_samples: Sequence[dict[str, Any]]) -> dict[str, float]:
    """CypherBench's ``aggregated`` verifier report for one round: the fractions of the
    ``n_verified`` verdicts that pass both checks (``both``), ``has_same_meaning`` and
    ``is_realistic``, given that round's ``bad_samples`` records (an invalid verdict fails
    both). Returns zeros for ``n_verified == 0``."""
    if n_verified <= 0:
        return {"both": 0.0, "has_same_meaning": 0.0, "is_realistic": 0.0}
    not_same = sum(
        1
        for b in bad_samples
        if b["reason"] == INVALID_LLM_OUT or "not_same_meaning" in b["reason"]
    )
    not_real = sum(
        1 for b in bad_samples if b["reason"] == INVALID_LLM_OUT or "not_realistic" in b["reason"]
    )
    return {
        "both": 1.0 - len(bad_samples) / n_verified,
        "has_same_meaning": 1.0 - not_same / n_verified,
        "is_realistic": 1.0 - not_real / n_verified,
    }
