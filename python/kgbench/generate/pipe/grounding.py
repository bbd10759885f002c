"""PIPE-Cypher stages 2 and 4: per-category quotas and reverse grounding (spec
``pipe-cypher.md`` §2.2, §2.4, §4 "Quotas").

- :func:`ground` runs a template's reverse query once (read-only, through
  :class:`kgbench.neo4j.GraphReader`) and keeps the answerable bindings: every slot
  a string of 1–160 characters, equal to its trimmed form, without tab or newline.
- :func:`capacity_warnings` — the plan check: slotted templates × binding limit + slot-free
  templates below the target.
- :class:`Planner` drives the candidate loop as an iterator of :class:`Candidate` (template,
  binding, filled question and Cypher). The pipeline judges each candidate and reports back
  with :meth:`Planner.mark_accepted` or :meth:`Planner.mark_rejected` before asking for the
  next one.

The planner follows the original's ``PipeCypherPipeline.run`` (``pipecypher/pipeline.py``):
per category at most ``max(4·target, #templates)`` attempts; the first pass tries each
template once in order, skipping a template whose masked text repeats an earlier one (the
skip uses an attempt, as there); then non-exhausted templates are drawn with
``random.Random(seed)``. Top-up rounds re-run the categories still under target with a fresh
attempt budget (random draws only). Differences, each deliberate:

- a template's reverse query runs once per planner (the original re-ran it at every attempt);
  its bindings are sorted and shuffled with a per-template seeded RNG, so the order does not
  depend on the order Neo4j returned them in;
- the round-robin offset walks the bindings once: a binding whose question is already
  accepted (in that category) is skipped, and a binding offered once is not offered again
  (the original wraps around and re-offers rejected bindings, which with deterministic Cypher
  repeats the same rejection; ``retry_rejected=True`` restores that). A template with no
  binding left is *exhausted*: recorded in :attr:`Planner.exhausted` and
  :attr:`Planner.events` and never drawn again;
- boolean templates with a ``negative_reverse_cypher`` alternate positive and negative
  bindings (spec §7), starting with either (seeded per template), so the first pass does
  not ask only true questions; :attr:`Candidate.expected_answer` tells which.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgbench.generate.pipe.templates import (
    CATEGORIES,
    LIMIT_PLACEHOLDER,
    NEGATIVE_REVERSE,
    Template,
    fill,
    generic_reverse_cypher,
    mask_question,
    question_key,
)
from kgbench.neo4j.executor import GraphReader, QueryFailed

#: The reverse query's default row limit (the original's ``generated_query_limit``; the
#: paper used 300).
BINDING_LIMIT = 50
#: The longest answerable slot value, in characters (spec §2.4).
MAX_VALUE_CHARS = 160


def is_answerable(value: Any) -> bool:
    """A usable slot value: a string of 1–:data:`MAX_VALUE_CHARS` characters, equal to its
    trimmed form, without tab, carriage return or newline (spec §2.4)."""
    return (
        isinstance(value, str)
        and 1 <= len(value) <= MAX_VALUE_CHARS
        and value == value.strip()
        and not any(c in value for c in "\t\r\n")
    )


def reverse_query(template: Template, *, limit: int = BINDING_LIMIT, negative: bool = False) -> str:
    """The reverse query of ``template`` with its ``{limit}`` filled ("" when there is none:
    no slots, or ``negative`` without a ``negative_reverse_cypher``). A slotted template
    without a reverse query gets :func:`kgbench.generate.pipe.templates.generic_reverse_cypher`.
    """
    if not template.slots:
        return ""
    if negative:
        query = str(template.metadata.get(NEGATIVE_REVERSE) or "")
    else:
        query = template.reverse_cypher or generic_reverse_cypher(template.slots)
    return query.replace(LIMIT_PLACEHOLDER, str(int(limit)))


def ground(
    reader: GraphReader,
    template: Template,
    *,
    limit: int = BINDING_LIMIT,
    offset: int = 0,
    negative: bool = False,
) -> list[dict[str, str]]:
    """Answerable bindings (slot → value) of ``template`` from one run of its reverse query
    with ``LIMIT limit`` (``negative``: of its ``negative_reverse_cypher``, [] without one).

    Rows missing a slot column or with an unanswerable value (:func:`is_answerable`) are
    dropped, repeats removed; the list starts at ``offset`` (mod its length) and wraps
    around (round-robin). A slot-free template gives ``[{}]`` without a query.

    Raises :class:`kgbench.neo4j.QueryFailed` when the query fails (or is refused
    as a write), :class:`kgbench.errors.KgbenchError` when the server is unreachable.
    """
    if not template.slots:
        return [{}]
    query = reverse_query(template, limit=limit, negative=negative)
    if not query:
        return []
    out: list[dict[str, str]] = []
    seen: set[tuple[str, ...]] = set()
    for rec in reader.run(query):
        row = rec.data()
        values = tuple(row.get(slot) for slot in template.slots)
        if not all(is_answerable(v) for v in values) or values in seen:
            continue
        seen.add(values)
        out.append(dict(zip(template.slots, values, strict=True)))
    if out and offset:
        k = offset % len(out)
        out = out[k:] + out[:k]
    return out


def capacity_warnings(
    templates: Sequence[Template],
    target_per_category: int,
    binding_limit: int = BINDING_LIMIT,
    categories: Sequence[str] = CATEGORIES,
) -> list[str]:
    """One warning per category whose template capacity (slotted templates × binding limit
    + slot-free templates; the original's ``estimate_seed_capacity``) is below
    ``target_per_category``, e.g. ``"ranking_topk: capacity 3 < target 10 (0 slotted
    templates × binding limit 50 + 3 slot-free)"`` (spec §2.2)."""
    out = []
    for category in categories:
        slotted = sum(1 for t in templates if t.category == category and t.slots)
        free = sum(1 for t in templates if t.category == category and not t.slots)
        capacity = slotted * binding_limit + free
        if capacity < target_per_category:
            out.append(
                f"{category}: capacity {capacity} < target {target_per_category} "
                f"({slotted} slotted templates × binding limit {binding_limit} + {free} slot-free)"
            )
    return out


@dataclass(frozen=True)
class Candidate:
    """One (template, binding) attempt: the filled ``question`` and deterministic ``cypher``
    ("" when the template has none), ``entity_values`` in slot order, the ``reverse_cypher``
    that produced the binding ("" for slot-free templates), the 1-based ``attempt`` number in
    its category (counted over all rounds) and ``round`` (0 = main pass, 1.. = top-ups).
    ``expected_answer`` is True or False for bindings of a boolean template with negative
    grounding, else None."""

    template: Template
    binding: dict[str, str]
    question: str
    cypher: str
    entity_values: list[str]
    reverse_cypher: str
    attempt: int
    round: int = 0
    expected_answer: bool | None = None

    @property
    def category(self) -> str:
        """The template's category."""
        return self.template.category


@dataclass
class _Grounded:
    bindings: list[tuple[dict[str, str], bool | None, str]] = field(default_factory=list)
    offset: int = 0


class Planner:
    """The candidate loop of one graph (spec §2.2 and §4 quotas; behaviour: module docstring).

    ``templates`` — all templates (any category order; within a category their order is the
    first pass's); ``reader`` — the graph; ``target_per_category`` — accepted questions
    wanted per category; ``seed`` — seeds the template draws and the binding order;
    ``binding_limit`` — the reverse queries' ``LIMIT``; ``categories`` — which categories and
    in which order; ``top_up_rounds`` — extra rounds for categories under target;
    ``seen_questions`` — (category, question) pairs already accepted (e.g. by an earlier run);
    ``retry_rejected`` — re-offer rejected bindings round-robin, as the original does.

    Use::

        planner = Planner(templates, reader, 25, seed=13)
        for cand in planner.candidates():
            if judge(cand):                      # the pipeline's gates
                planner.mark_accepted(cand)
            else:
                planner.mark_rejected(cand, "empty")

    A candidate with no verdict when the next one is requested counts as rejected.
    :attr:`warnings` holds the capacity warnings (from the start), reverse queries that failed
    and, once the iterator is done, the categories left under target. :attr:`events` logs
    ``skipped_masked``, ``exhausted``, ``reverse_failed`` and ``top_up`` events as dicts.
    """

    def __init__(
        self,
        templates: Iterable[Template],
        reader: GraphReader,
        target_per_category: int,
        seed: int = 13,
        binding_limit: int = BINDING_LIMIT,
        *,
        categories: Sequence[str] = CATEGORIES,
        top_up_rounds: int = 1,
        seen_questions: Iterable[tuple[str, str]] = (),
        retry_rejected: bool = False,
    ) -> None:
        self.templates = list(templates)
        self.reader = reader
        self.target = int(target_per_category)
        self.seed = seed
        self.binding_limit = int(binding_limit)
        self.categories = list(categories)
        self.top_up_rounds = int(top_up_rounds)
        self.retry_rejected = retry_rejected
        self.by_category: dict[str, list[Template]] = {c: [] for c in self.categories}
        for t in self.templates:
            if t.category in self.by_category:
                self.by_category[t.category].append(t)
        self.rng = random.Random(seed)
        self.accepted: Counter[str] = Counter()
        self.rejected: Counter[str] = Counter()
        self.attempts: Counter[str] = Counter()
        self.reject_reasons: Counter[str] = Counter()
        self.accepted_keys: set[tuple[str, str]] = {question_key(c, q) for c, q in seen_questions}
        self.exhausted: list[Template] = []
        self.events: list[dict[str, Any]] = []
        self.warnings: list[str] = [
            f"{c}: no templates" for c in self.categories if not self.by_category[c]
        ]
        self.warnings += capacity_warnings(
            self.templates,
            self.target,
            self.binding_limit,
            [c for c in self.categories if self.by_category[c]],
        )
        self._grounded: dict[str, _Grounded] = {}
        self._exhausted_ids: set[str] = set()
        self._pending: Candidate | None = None
        self._verdict: bool | None = None

    # -- verdicts ---------------------------------------------------------------------------

    def mark_accepted(self, candidate: Candidate) -> None:
        """Record that ``candidate`` was accepted: it counts towards its category's target and
        its question is never offered again in that category. Raises ValueError unless
        ``candidate`` is the last one yielded and still without a verdict."""
        self._check(candidate)
        self._verdict = True
        self.accepted[candidate.category] += 1
        self.accepted_keys.add(question_key(candidate.category, candidate.question))

    def mark_rejected(self, candidate: Candidate, reason: str = "") -> None:
        """Record that ``candidate`` was rejected (``reason`` is tallied in
        :attr:`reject_reasons`). Raises ValueError as :meth:`mark_accepted` does."""
        self._check(candidate)
        self._verdict = False
        self.rejected[candidate.category] += 1
        self.reject_reasons[reason or "unspecified"] += 1

    def _check(self, candidate: Candidate) -> None:
        if candidate is not self._pending:
            raise ValueError("a verdict must be for the candidate the planner yielded last")
        if self._verdict is not None:
            raise ValueError("this candidate already has a verdict")

    # -- the loop ---------------------------------------------------------------------------

    def candidates(self) -> Iterator[Candidate]:
        """Yield candidates until every category reaches its target or runs out of attempts
        and top-up rounds (module docstring)."""
        for round_ in range(1 + max(0, self.top_up_rounds)):
            for category in self.categories:
                temps = self.by_category[category]
                if not temps or self.accepted[category] >= self.target:
                    continue
                if round_ and not self._reusable(temps):
                    continue
                if round_:
                    self.events.append(
                        {
                            "event": "top_up",
                            "category": category,
                            "round": round_,
                            "accepted": self.accepted[category],
                        }
                    )
                yield from self._category(category, temps, round_)
        for category in self.categories:
            if self.by_category[category] and self.accepted[category] < self.target:
                temps = self.by_category[category]
                spent = sum(1 for t in temps if t.template_id in self._exhausted_ids)
                self.warnings.append(
                    f"{category}: {self.accepted[category]} of {self.target} accepted after "
                    f"{self.attempts[category]} attempts ({spent} of {len(temps)} templates "
                    "exhausted)"
                )

    def _reusable(self, temps: list[Template]) -> list[Template]:
        return [t for t in temps if t.template_id not in self._exhausted_ids]

    def _category(self, category: str, temps: list[Template], round_: int) -> Iterator[Candidate]:
        max_attempts = max(4 * self.target, len(temps))
        masks: set[str] = set()
        attempts = 0
        while self.accepted[category] < self.target and attempts < max_attempts:
            first_pass = round_ == 0 and attempts < len(temps)
            reusable = [] if first_pass else self._reusable(temps)
            if not first_pass and not reusable:
                break  # every template exhausted: no attempt left to make
            attempts += 1
            self.attempts[category] += 1
            if first_pass:
                template = temps[attempts - 1]
                mask = mask_question(template.template)
                if mask in masks:
                    self.events.append(
                        {
                            "event": "skipped_masked",
                            "category": category,
                            "template": template.template,
                            "template_id": template.template_id,
                        }
                    )
                    continue
                masks.add(mask)
            else:
                template = self.rng.choice(reusable)
            candidate = self._next(template, self.attempts[category], round_)
            if candidate is None:
                continue
            self._pending, self._verdict = candidate, None
            yield candidate
            if self._verdict is None:
                self.rejected[category] += 1
                self.reject_reasons["no verdict"] += 1
            self._pending = None

    def _ground(self, template: Template) -> _Grounded:
        key = template.template_id
        state = self._grounded.get(key)
        if state is not None:
            return state
        state = self._grounded[key] = _Grounded()
        rng = random.Random(f"{self.seed}:{key}")
        lists: list[list[tuple[dict[str, str], bool | None, str]]] = []
        polarities: tuple[bool | None, ...] = (
            (True, False) if template.slots and template.metadata.get(NEGATIVE_REVERSE) else (None,)
        )
        found: dict[bool | None, list[dict[str, str]]] = {}
        for polarity in polarities:
            try:
                found[polarity] = ground(
                    self.reader, template, limit=self.binding_limit, negative=polarity is False
                )
            except QueryFailed as exc:
                found[polarity] = []
                self.warnings.append(
                    f"{template.category}: reverse query of {template.template!r} failed "
                    f"({exc.error_class}): {exc}"
                )
                self.events.append(
                    {
                        "event": "reverse_failed",
                        "category": template.category,
                        "template": template.template,
                        "template_id": key,
                        "error_class": exc.error_class,
                        "error": str(exc),
                    }
                )
        if len(found) == 2:  # a value grounded both ways is ambiguous: drop it
            both = {tuple(b.items()) for b in found[True]} & {
                tuple(b.items()) for b in found[False]
            }
            for polarity in found:
                found[polarity] = [b for b in found[polarity] if tuple(b.items()) not in both]
        for polarity, bindings in found.items():
            ordered = sorted(bindings, key=lambda b: [b[s] for s in template.slots])
            rng.shuffle(ordered)
            query = reverse_query(template, limit=self.binding_limit, negative=polarity is False)
            lists.append([(b, polarity, query) for b in ordered])
        if len(lists) == 2 and rng.random() < 0.5:  # which polarity comes first
            lists.reverse()
        for i in range(max((len(x) for x in lists), default=0)):
            state.bindings.extend(x[i] for x in lists if i < len(x))
        return state

    def _next(self, template: Template, attempt: int, round_: int) -> Candidate | None:
        key = template.template_id
        if key in self._exhausted_ids:
            return None
        state = self._ground(template)
        n = len(state.bindings)
        steps = n if self.retry_rejected else max(0, n - state.offset)
        for step in range(steps):
            index = (state.offset + step) % n if n else 0
            binding, expected, query = state.bindings[index]
            question, cypher, values = fill(template, binding)
            if question_key(template.category, question) in self.accepted_keys:
                continue
            state.offset += step + 1
            return Candidate(
                template=template,
                binding=dict(binding),
                question=question,
                cypher=cypher,
                entity_values=values,
                reverse_cypher=query,
                attempt=attempt,
                round=round_,
                expected_answer=expected,
            )
        state.offset += steps
        self._exhausted_ids.add(key)
        self.exhausted.append(template)
        self.events.append(
            {
                "event": "exhausted",
                "category": template.category,
                "template": template.template,
                "template_id": key,
                "bindings": n,
                "attempt": attempt,
            }
        )
        return None

    def stats(self) -> dict[str, dict[str, int]]:
        """Per category: ``target``, ``templates``, ``attempts``, ``accepted``, ``rejected``,
        ``exhausted`` (templates), ``bindings`` (grounded so far)."""
        out = {}
        for category in self.categories:
            temps = self.by_category[category]
            out[category] = {
                "target": self.target,
                "templates": len(temps),
                "attempts": self.attempts[category],
                "accepted": self.accepted[category],
                "rejected": self.rejected[category],
                "exhausted": sum(1 for t in temps if t.template_id in self._exhausted_ids),
                "bindings": sum(
                    len(self._grounded[t.template_id].bindings)
                    for t in temps
                    if t.template_id in self._grounded
                ),
            }
        return out
