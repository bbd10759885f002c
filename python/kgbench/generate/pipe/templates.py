"""PIPE-Cypher stage 3: question templates (spec ``pipe-cypher.md`` §2.3, §4).

A :class:`Template` is ``{template, category, slots{slot: "Label.property"}, cypher,
reverse_cypher, metadata{schema_template_kind, source, ...}}``:

- ``template`` — the question text with ``{slot}`` placeholders, written ``'{slot}'`` as the
  original's templates are ("Which accounts are owned by person '{personName}'?");
- ``cypher`` — the deterministic Cypher, with the same ``{slot}`` placeholders standing for
  string literals ("" when the template has none: an LLM writes it);
- ``reverse_cypher`` — the read-only grounding query, only ``MATCH`` / ``WHERE`` /
  ``RETURN DISTINCT <slot expr> AS <slot>, ...`` / ``LIMIT {limit}`` ("" without slots);
- ``metadata["source"]`` — ``seed``, ``schema``, ``llm`` or ``cypherbench``;
  ``metadata["schema_template_kind"]`` — the kind below (None for seed templates). Boolean
  templates may carry ``metadata["negative_reverse_cypher"]``, a reverse query grounding
  bindings whose answer is false (spec §7: the original grounds booleans only positively).

:func:`schema_templates` derives templates from a profile (:mod:`.profile`). Its kinds, per
relationship pattern ``(S)-[:R]->(E)`` and two-hop chain ``(A)-[:R1]->(B)-[:R2]->(C)``
(``startValue`` binds a name-like property of the start, ``targetValue`` of the end; "scoped"
kinds bind a categorical property instead, as the original's ``*_scoped`` kinds do):

=====================  ====================================================================
simple_retrieval       ``retrieval_outgoing``, ``retrieval_incoming`` — one hop, identity and
                       context columns, ``LIMIT 50``
complex_retrieval      ``two_hop_outgoing``, ``two_hop_incoming`` (chains);
                       ``shared_target``, ``shared_source`` (a join on a common neighbour)
simple_aggregation     ``count_outgoing_anchored``, ``count_incoming_anchored`` —
                       ``COUNT(DISTINCT x)`` over one hop from a named entity
complex_aggregation    the original's ``count_outgoing``, ``count_incoming`` (whole relation,
                       no slot) and ``count_outgoing_scoped``, ``count_incoming_scoped``;
                       ``count_two_hop`` (chains); ``sum_outgoing_anchored`` (``SUM`` of a
                       numeric property over a named entity's neighbours)
boolean_existence      ``exists_outgoing``, ``exists_incoming`` (positive and negative
                       bindings), ``exists_pair`` (two slots, positive only) — one row
                       ``COUNT(x) > 0 AS answer``
negation_difference    the original's ``negation_outgoing``, ``negation_incoming`` and their
                       ``*_scoped`` forms; ``negation_anchored`` (chains: "Which B linked from
                       A 'x' have no outgoing :R2 ...") — ``WHERE NOT (a)-[:R]->()``
path_temporal          ``path_outgoing``, ``path_incoming`` — ``[:R*1..2]`` over a relation
                       between nodes of one label; ``temporal_outgoing``,
                       ``temporal_incoming``, ``temporal_relationship`` — a hop returning a
                       date-like property (a temporal type, or a name with ``date``/``year``)
ranking_topk           the original's ``topk_outgoing``, ``topk_incoming`` and ``*_scoped``
                       forms (``ORDER BY ... DESC LIMIT 10``); ``top1_outgoing``,
                       ``top1_incoming``, ``top1_two_hop_anchored`` (``LIMIT 1``)
=====================  ====================================================================

Wording follows the original's schema templates ("How many distinct country records are linked
from person records through :citizenOf?"); rankings break count ties by the first returned
column so their answers are deterministic.

:func:`fill` puts a binding into a template: in the question the value appears once in single
quotes (``'Barry'``; a bare ``{slot}`` gets the quotes too), in the Cypher as a string literal
with ``\\`` and ``'`` escaped (``'O\\'Hearn'``). :func:`mask_question` is the masked form used
to skip repeated questions (spec §4 quotas).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.generate.patterns import TemplateError
from kgbench.generate.pipe.features import CATEGORIES
from kgbench.neo4j.executor import write_clauses_of

#: Where a template came from (``metadata["source"]``).
SOURCES = ("seed", "schema", "llm", "cypherbench")

#: ``metadata`` key naming a schema template's kind (the original's ``SCHEMA_TEMPLATE_KIND``).
KIND = "schema_template_kind"
#: ``metadata`` key of a boolean template's reverse query for false answers.
NEGATIVE_REVERSE = "negative_reverse_cypher"
#: The placeholder of the reverse query's row limit.
LIMIT_PLACEHOLDER = "{limit}"

#: Slot names of the schema templates (the original's).
START_SLOT = "startValue"
TARGET_SLOT = "targetValue"

#: Name-like properties preferred as slot properties, in order.
NAME_PROPERTIES = ("name", "title", "label")
#: Properties preferred as identity columns of a returned node (the original's list, minus
#: FinBench's own keys), in order.
IDENTITY_PROPERTIES = ("node_id", "id", "name", "title", "label")
#: Properties never used as slots (the original's ``UNSAFE_SLOT_PROPERTY_PARTS``, as parts).
UNSAFE_SLOT_PARTS = ("address", "comment", "note", "original", "description")

_SLOT_RE = re.compile(r"'\{([A-Za-z_][A-Za-z0-9_]*)\}'|\{([A-Za-z_][A-Za-z0-9_]*)\}")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TEMPORAL_TYPES = (
    "DATE",
    "DATETIME",
    "LOCAL DATETIME",
    "ZONED DATETIME",
    "LOCAL TIME",
    "ZONED TIME",
    "TIME",
)


@dataclass(frozen=True)
class Template:
    """One question template (module docstring). ``slots`` maps each slot to
    ``"Label.property"``; ``cypher`` and ``reverse_cypher`` may be "" (none). Templates
    compare by value but do not hash (dict fields): key them by :attr:`template_id`."""

    template: str
    category: str
    slots: dict[str, str] = field(default_factory=dict)
    cypher: str = ""
    reverse_cypher: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def template_id(self) -> str:
        """``"tpl_"`` + sha256 of the template's JSON (category, text, slots, both queries)
        [:12]: a stable key for offsets and logs."""
        blob = json.dumps(
            [self.category, self.template, self.slots, self.cypher, self.reverse_cypher],
            sort_keys=True,
            ensure_ascii=False,
        )
        return "tpl_" + hashlib.sha256(blob.encode()).hexdigest()[:12]

    @property
    def kind(self) -> str | None:
        """``metadata["schema_template_kind"]`` (None for seed and LLM templates)."""
        kind = self.metadata.get(KIND)
        return str(kind) if kind else None

    def to_dict(self) -> dict[str, Any]:
        """The template as the spec's JSON object."""
        return {
            "template": self.template,
            "category": self.category,
            "slots": dict(self.slots),
            "cypher": self.cypher,
            "reverse_cypher": self.reverse_cypher,
            "metadata": dict(self.metadata),
        }


# -- filling -------------------------------------------------------------------------------


def cypher_string(value: str) -> str:
    """A Cypher string literal for ``value``: single quotes, ``\\`` → ``\\\\`` and ``'`` →
    ``\\'`` (``O'Hearn`` → ``'O\\'Hearn'``)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _substitute(text: str, binding: Mapping[str, str], render: Any) -> str:
    # one pass, so a value that itself looks like "{slot}" is never substituted again
    def repl(m: re.Match[str]) -> str:
        slot = m.group(1) or m.group(2)
        return str(render(binding[slot])) if slot in binding else m.group(0)

    return _SLOT_RE.sub(repl, text)


def placeholders(text: str) -> list[str]:
    """The ``{slot}`` names in ``text`` in order of first appearance."""
    return list(dict.fromkeys(m.group(1) or m.group(2) for m in _SLOT_RE.finditer(text)))


def fill(template: Template, binding: Mapping[str, str]) -> tuple[str, str, list[str]]:
    """``(question, cypher, entity_values)`` for ``binding`` (slot → value).

    The question gets each value in single quotes (``'{slot}'`` and bare ``{slot}`` alike);
    the Cypher gets :func:`cypher_string` literals ("" stays ""); ``entity_values`` are the
    values in slot order. Raises :class:`kgbench.errors.InputError` (``TemplateError``) when
    a slot of the template is unbound.
    """
    missing = [slot for slot in template.slots if slot not in binding]
    if missing:
        raise TemplateError(
            f"template {template.template!r}: no value for slot(s) {', '.join(missing)}"
        )
    question = _substitute(template.template, binding, lambda v: f"'{v}'")
    cypher = _substitute(template.cypher, binding, cypher_string) if template.cypher else ""
    return question, cypher, [str(binding[slot]) for slot in template.slots]


def mask_question(question: str, binding: Mapping[str, str] | None = None) -> str:
    """The masked form of a question (or of an unfilled template): bound values (longest
    first), ``{slot}`` placeholders and any other quoted text become ``'<VALUE>'``, numbers
    ``<NUMBER>``; lower case, whitespace collapsed. Two questions of one template with
    different values mask alike (the original's ``question_signature``)."""
    text = question
    for value in sorted({v for v in (binding or {}).values() if v}, key=len, reverse=True):
        text = text.replace(f"'{value}'", "'<VALUE>'")
    text = _SLOT_RE.sub("'<VALUE>'", text)
    text = re.sub(r"'[^']+'", "'<VALUE>'", text)
    text = re.sub(r"\b\d+(?:\.\d+)?\b", "<NUMBER>", text)
    return " ".join(text.lower().split())


def question_key(category: str, question: str) -> tuple[str, str]:
    """The duplicate key of an accepted question: (category, lower-cased question with
    whitespace collapsed) — the original's ``question_key``."""
    return category, " ".join(question.lower().split())


# -- profile access ------------------------------------------------------------------------


def _q(name: str) -> str:
    """A Cypher identifier, backquoted when needed."""
    if _IDENT_RE.fullmatch(name):
        return name
    return "`" + name.replace("`", "``") + "`"


def _words(name: str) -> list[str]:
    parts = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)
    return parts or [name]


def label_phrase(label: str) -> str:
    """``TVSeries`` → ``TV series``, ``MusicalGroup`` → ``musical group``."""
    return " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in _words(label))


def property_phrase(prop: str) -> str:
    """``date_of_birth`` → ``date of birth``, ``accountType`` → ``account type``."""
    return " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in _words(prop))


def _alias(name: str) -> str:
    alias = "".join(w[:1].upper() + w[1:] for w in _words(name) if w)
    return alias if _IDENT_RE.fullmatch(alias or "") else "Value"


def _column(label: str, prop: str) -> str:
    """The alias of ``label``'s property ``prop``: ``PersonName``; ``AccountId`` for
    ``Account.accountId`` (no repeated label)."""
    head, tail = _alias(label), _alias(prop)
    return tail if tail.startswith(head) and tail != head else head + tail


def _is_string(type_: str) -> bool:
    return type_.upper() in ("STRING", "STR")


def _is_list(type_: str) -> bool:
    t = type_.upper()
    return t.startswith("LIST") or t.endswith("[]") or t.endswith("ARRAY")


def _is_temporal(prop: str, type_: str) -> bool:
    t = type_.upper()
    if _is_list(t):
        return False
    if t in _TEMPORAL_TYPES:
        return True
    name = prop.lower()
    return ("date" in name or "year" in name) and t in ("STRING", "INTEGER")


def _is_numeric(prop: str, type_: str) -> bool:
    name = prop.lower()
    return (
        type_.upper() in ("INTEGER", "FLOAT")
        and not _is_temporal(prop, type_)
        and not (name == "id" or name.endswith("_id") or prop.endswith("Id"))
    )


@dataclass(frozen=True)
class _Rel:
    start: str
    type: str
    end: str
    count: int


class _Schema:
    """The parts of a profile the templates use."""

    def __init__(self, profile: Mapping[str, Any]) -> None:
        self.props: dict[str, dict[str, str]] = {}
        for item in profile.get("node_properties", []):
            self.props.setdefault(item["label"], {})[item["property"]] = str(item.get("type", ""))
        self.rel_props: dict[str, dict[str, str]] = {}
        for item in profile.get("relationship_properties", []):
            self.rel_props.setdefault(item["type"], {})[item["property"]] = str(
                item.get("value_type", "")
            )
        self.categorical: dict[str, list[str]] = {}
        for key, values in sorted(profile.get("categorical_properties", {}).items()):
            label, _, prop = key.partition(".")
            if prop and values:
                self.categorical.setdefault(label, []).append(prop)
        seen: dict[tuple[str, str, str], int] = {}
        for item in profile.get("relationships", []):
            key = (item["start_label"], item["type"], item["end_label"])
            seen[key] = max(seen.get(key, 0), int(item.get("count") or 0))
        self.rels = sorted(
            (_Rel(s, t, e, c) for (s, t, e), c in seen.items()),
            key=lambda r: (-r.count, r.start, r.type, r.end),
        )

    def slot_property(self, label: str) -> str | None:
        """A name-like STRING property of ``label`` (name, title, label, else the first
        non-categorical STRING property not looking like an address or note)."""
        props = self.props.get(label, {})
        for name in NAME_PROPERTIES:
            if name in props and _is_string(props[name]):
                return name
        categorical = set(self.categorical.get(label, []))
        for name, type_ in sorted(props.items()):
            lowered = name.lower()
            if (
                _is_string(type_)
                and name not in categorical
                and not any(part in lowered for part in UNSAFE_SLOT_PARTS)
            ):
                return name
        return None

    def scope_properties(self, label: str, n: int) -> list[str]:
        """Up to ``n`` categorical properties of ``label`` (sorted), not its slot property
        (a small graph's names can be categorical; the anchored kinds cover those)."""
        slot = self.slot_property(label)
        return [p for p in self.categorical.get(label, []) if p != slot][:n]

    def temporal_properties(self, label: str) -> list[str]:
        return [p for p, t in sorted(self.props.get(label, {}).items()) if _is_temporal(p, t)]

    def temporal_rel_properties(self, rtype: str) -> list[str]:
        return [p for p, t in sorted(self.rel_props.get(rtype, {}).items()) if _is_temporal(p, t)]

    def numeric_properties(self, label: str) -> list[str]:
        return [p for p, t in sorted(self.props.get(label, {}).items()) if _is_numeric(p, t)]

    def projection(self, label: str, var: str) -> list[tuple[str, str]]:
        """``(expression, alias)`` columns identifying a ``label`` node: identity properties
        (≤3) plus categorical context properties (≤2), e.g. ``p.name AS PersonName``."""
        props = self.props.get(label, {})
        scalar = {p for p, t in props.items() if not _is_list(t)}
        chosen = [p for p in IDENTITY_PROPERTIES if p in scalar][:3]
        if not chosen:
            chosen = sorted(scalar)[:2]
        chosen += [p for p in self.categorical.get(label, []) if p not in chosen][:2]
        if not chosen:
            return [(f"elementId({var})", f"{_alias(label)}ElementId")]
        return [(f"{var}.{_q(p)}", _column(label, p)) for p in chosen]


def _cols(columns: list[tuple[str, str]]) -> str:
    return ", ".join(f"{expr} AS {alias}" for expr, alias in columns)


def _node(var: str, label: str, prop: str | None = None, slot: str | None = None) -> str:
    if prop is None or slot is None:
        return f"({var}:{_q(label)})"
    return f"({var}:{_q(label)} {{{_q(prop)}: {{{slot}}}}})"


def _reverse(match: str, where: list[str], returns: list[tuple[str, str]]) -> str:
    cond = f" WHERE {' AND '.join(where)}" if where else ""
    cols = ", ".join(f"{expr} AS {alias}" for expr, alias in returns)
    return f"MATCH {match}{cond} RETURN DISTINCT {cols} LIMIT {LIMIT_PLACEHOLDER}"


# -- schema-derived templates --------------------------------------------------------------


class _Builder:
    """Collects the templates of each (category, kind), in relationship rank order."""

    def __init__(self, schema: _Schema, result_limit: int) -> None:
        self.s = schema
        self.limit = result_limit
        self.out: dict[str, dict[str, list[Template]]] = {c: {} for c in CATEGORIES}

    def add(
        self,
        category: str,
        kind: str,
        text: str,
        cypher: str,
        *,
        slots: dict[str, str] | None = None,
        reverse: str = "",
        meta: dict[str, Any] | None = None,
    ) -> None:
        metadata: dict[str, Any] = {KIND: kind, "source": "schema"}
        metadata.update(meta or {})
        self.out[category].setdefault(kind, []).append(
            Template(
                template=text,
                category=category,
                slots=dict(slots or {}),
                cypher=cypher,
                reverse_cypher=reverse,
                metadata=metadata,
            )
        )

    # one hop ------------------------------------------------------------------------------

    def relationship(self, rel: _Rel) -> None:
        s = self.s
        S, E, R = label_phrase(rel.start), label_phrase(rel.end), rel.type
        qs, qe, qr = _q(rel.start), _q(rel.end), _q(rel.type)
        base = {"start_label": rel.start, "relationship_type": rel.type, "end_label": rel.end}
        sp, ep = s.slot_property(rel.start), s.slot_property(rel.end)
        lim = self.limit
        src, dst = s.projection(rel.start, "s"), s.projection(rel.end, "e")
        count_end, count_start = f"{_alias(rel.end)}Count", f"{_alias(rel.start)}Count"
        hop = f"(s:{qs})-[:{qr}]->(e:{qe})"

        # slot-free: the original's count / negation / top-k kinds
        self.add(
            "complex_aggregation",
            "count_outgoing",
            f"How many distinct {E} records are linked from {S} records through :{R}?",
            f"MATCH {hop} RETURN COUNT(DISTINCT e) AS {count_end}",
            meta=base,
        )
        self.add(
            "complex_aggregation",
            "count_incoming",
            f"How many distinct {S} records link to {E} records through :{R}?",
            f"MATCH {hop} RETURN COUNT(DISTINCT s) AS {count_start}",
            meta=base,
        )
        self.add(
            "negation_difference",
            "negation_outgoing",
            f"Which {S} records have no outgoing :{R} relationship to {E} records?",
            f"MATCH (s:{qs}) WHERE NOT (s)-[:{qr}]->(:{qe}) "
            f"RETURN DISTINCT {_cols(src)} LIMIT {lim}",
            meta=base,
        )
        self.add(
            "negation_difference",
            "negation_incoming",
            f"Which {E} records are not linked from any {S} record through :{R}?",
            f"MATCH (e:{qe}) WHERE NOT (:{qs})-[:{qr}]->(e) "
            f"RETURN DISTINCT {_cols(dst)} LIMIT {lim}",
            meta=base,
        )
        self.add(
            "ranking_topk",
            "topk_outgoing",
            f"Which {S} records are linked to the most {E} records through :{R}?",
            self._ranking(hop, "s", "e", src, 10),
            meta=base,
        )
        self.add(
            "ranking_topk",
            "topk_incoming",
            f"Which {E} records are linked from the most {S} records through :{R}?",
            self._ranking(hop, "e", "s", dst, 10),
            meta=base,
        )
        self.add(
            "ranking_topk",
            "top1_outgoing",
            f"Which {S} record is linked to the most {E} records through :{R}?",
            self._ranking(hop, "s", "e", src, 1),
            meta=base,
        )
        self.add(
            "ranking_topk",
            "top1_incoming",
            f"Which {E} record is linked from the most {S} records through :{R}?",
            self._ranking(hop, "e", "s", dst, 1),
            meta=base,
        )

        # scoped by a categorical value (the original's *_scoped kinds)
        for end_side, props in (
            (False, s.scope_properties(rel.start, 3)),
            (True, s.scope_properties(rel.end, 2)),
        ):
            for prop in props:
                self._scoped(rel, prop, end_side, base)

        if sp is not None:
            self._anchored_start(rel, sp, base)
        if ep is not None:
            self._anchored_end(rel, ep, base)
        if sp is not None and ep is not None:
            slot_meta = {**base, "slot_properties": {START_SLOT: sp, TARGET_SLOT: ep}}
            self.add(
                "boolean_existence",
                "exists_pair",
                f"Is {S} '{{{START_SLOT}}}' linked to {E} '{{{TARGET_SLOT}}}' through :{R}?",
                f"MATCH {_node('s', rel.start, sp, START_SLOT)}, "
                f"{_node('e', rel.end, ep, TARGET_SLOT)} "
                f"OPTIONAL MATCH (s)-[r:{qr}]->(e) RETURN COUNT(r) > 0 AS answer",
                slots={START_SLOT: f"{rel.start}.{sp}", TARGET_SLOT: f"{rel.end}.{ep}"},
                reverse=_reverse(
                    hop,
                    [f"s.{_q(sp)} IS NOT NULL", f"e.{_q(ep)} IS NOT NULL"],
                    [(f"s.{_q(sp)}", START_SLOT), (f"e.{_q(ep)}", TARGET_SLOT)],
                ),
                meta=slot_meta,
            )

    def _ranking(
        self,
        match: str,
        keep: str,
        other: str,
        cols: list[tuple[str, str]],
        k: int,
        prefix: str = "MATCH ",
    ) -> str:
        tie = f", {cols[0][1]}" if cols else ""
        return (
            f"{prefix}{match} WITH {keep}, COUNT(DISTINCT {other}) AS relatedCount "
            f"RETURN DISTINCT {_cols(cols)}, relatedCount "
            f"ORDER BY relatedCount DESC{tie} LIMIT {k}"
        )

    def _scoped(self, rel: _Rel, prop: str, end_side: bool, base: dict[str, Any]) -> None:
        s = self.s
        S, E, R = label_phrase(rel.start), label_phrase(rel.end), rel.type
        qs, qe, qr = _q(rel.start), _q(rel.end), _q(rel.type)
        P, qp, lim = property_phrase(prop), _q(prop), self.limit
        slot = TARGET_SLOT if end_side else START_SLOT
        label = rel.end if end_side else rel.start
        meta = {**base, "slot": slot, "slot_property": prop}
        slots = {slot: f"{label}.{prop}"}
        src, dst = s.projection(rel.start, "s"), s.projection(rel.end, "e")
        if not end_side:
            hop = f"{_node('s', rel.start, prop, slot)}-[:{qr}]->(e:{qe})"
            rev = _reverse(
                f"(s:{qs})-[:{qr}]->(:{qe})", [f"s.{qp} IS NOT NULL"], [(f"s.{qp}", slot)]
            )
            self.add(
                "complex_aggregation",
                "count_outgoing_scoped",
                f"How many distinct {E} records are linked from {S} records with {P} "
                f"'{{{slot}}}' through :{R}?",
                f"MATCH {hop} RETURN COUNT(DISTINCT e) AS {_alias(rel.end)}Count",
                slots=slots,
                reverse=rev,
                meta=meta,
            )
            self.add(
                "ranking_topk",
                "topk_outgoing_scoped",
                f"Among {S} records with {P} '{{{slot}}}', which records are linked to "
                f"the most {E} records through :{R}?",
                self._ranking(hop, "s", "e", src, 10),
                slots=slots,
                reverse=rev,
                meta=meta,
            )
            self.add(
                "negation_difference",
                "negation_outgoing_scoped",
                f"Which {S} records with {P} '{{{slot}}}' have no outgoing :{R} "
                f"relationship to {E} records?",
                f"MATCH {_node('s', rel.start, prop, slot)} WHERE NOT (s)-[:{qr}]->(:{qe}) "
                f"RETURN DISTINCT {_cols(src)} LIMIT {lim}",
                slots=slots,
                reverse=_reverse(
                    f"(s:{qs})",
                    [f"s.{qp} IS NOT NULL", f"NOT (s)-[:{qr}]->(:{qe})"],
                    [(f"s.{qp}", slot)],
                ),
                meta=meta,
            )
        else:
            hop = f"(s:{qs})-[:{qr}]->{_node('e', rel.end, prop, slot)}"
            rev = _reverse(
                f"(:{qs})-[:{qr}]->(e:{qe})", [f"e.{qp} IS NOT NULL"], [(f"e.{qp}", slot)]
            )
            self.add(
                "complex_aggregation",
                "count_incoming_scoped",
                f"How many distinct {S} records link to {E} records with {P} "
                f"'{{{slot}}}' through :{R}?",
                f"MATCH {hop} RETURN COUNT(DISTINCT s) AS {_alias(rel.start)}Count",
                slots=slots,
                reverse=rev,
                meta=meta,
            )
            self.add(
                "ranking_topk",
                "topk_incoming_scoped",
                f"Among {E} records with {P} '{{{slot}}}', which records are linked from "
                f"the most {S} records through :{R}?",
                self._ranking(hop, "e", "s", dst, 10),
                slots=slots,
                reverse=rev,
                meta=meta,
            )
            self.add(
                "negation_difference",
                "negation_incoming_scoped",
                f"Which {E} records with {P} '{{{slot}}}' are not linked from any {S} "
                f"record through :{R}?",
                f"MATCH {_node('e', rel.end, prop, slot)} WHERE NOT (:{qs})-[:{qr}]->(e) "
                f"RETURN DISTINCT {_cols(dst)} LIMIT {lim}",
                slots=slots,
                reverse=_reverse(
                    f"(e:{qe})",
                    [f"e.{qp} IS NOT NULL", f"NOT (:{qs})-[:{qr}]->(e)"],
                    [(f"e.{qp}", slot)],
                ),
                meta=meta,
            )

    def _anchored_start(self, rel: _Rel, sp: str, base: dict[str, Any]) -> None:
        s = self.s
        S, E, R = label_phrase(rel.start), label_phrase(rel.end), rel.type
        qs, qe, qr, qsp = _q(rel.start), _q(rel.end), _q(rel.type), _q(sp)
        lim, slot = self.limit, START_SLOT
        slots = {slot: f"{rel.start}.{sp}"}
        meta = {**base, "slot": slot, "slot_property": sp}
        anchor = _node("s", rel.start, sp, slot)
        dst = s.projection(rel.end, "e")
        rev = _reverse(f"(s:{qs})-[:{qr}]->(:{qe})", [f"s.{qsp} IS NOT NULL"], [(f"s.{qsp}", slot)])
        self.add(
            "simple_retrieval",
            "retrieval_outgoing",
            f"Which {E} records are linked from {S} '{{{slot}}}' through :{R}?",
            f"MATCH {anchor}-[:{qr}]->(e:{qe}) RETURN DISTINCT {_cols(dst)} LIMIT {lim}",
            slots=slots,
            reverse=rev,
            meta=meta,
        )
        self.add(
            "simple_aggregation",
            "count_outgoing_anchored",
            f"How many distinct {E} records are linked from {S} '{{{slot}}}' through :{R}?",
            f"MATCH {anchor}-[:{qr}]->(e:{qe}) RETURN COUNT(DISTINCT e) AS {_alias(rel.end)}Count",
            slots=slots,
            reverse=rev,
            meta=meta,
        )
        self.add(
            "boolean_existence",
            "exists_outgoing",
            f"Does {S} '{{{slot}}}' have any :{R} link to a {E} record?",
            f"MATCH {anchor} OPTIONAL MATCH (s)-[:{qr}]->(e:{qe}) RETURN COUNT(e) > 0 AS answer",
            slots=slots,
            reverse=rev,
            meta={
                **meta,
                NEGATIVE_REVERSE: _reverse(
                    f"(s:{qs})",
                    [f"s.{qsp} IS NOT NULL", f"NOT (s)-[:{qr}]->(:{qe})"],
                    [(f"s.{qsp}", slot)],
                ),
            },
        )
        for num in s.numeric_properties(rel.end)[:2]:
            qn = _q(num)
            self.add(
                "complex_aggregation",
                "sum_outgoing_anchored",
                f"What is the total {property_phrase(num)} of the {E} records linked from "
                f"{S} '{{{slot}}}' through :{R}?",
                f"MATCH {anchor}-[:{qr}]->(e:{qe}) WITH DISTINCT e "
                f"RETURN SUM(e.{qn}) AS Total{_alias(num)}",
                slots=slots,
                reverse=_reverse(
                    f"(s:{qs})-[:{qr}]->(e:{qe})",
                    [f"s.{qsp} IS NOT NULL", f"e.{qn} IS NOT NULL"],
                    [(f"s.{qsp}", slot)],
                ),
                meta={**meta, "aggregated_property": num},
            )
        for prop in s.temporal_properties(rel.end)[:2]:
            if _column(rel.end, prop) in {alias for _, alias in dst}:
                continue  # already a returned column
            qp = _q(prop)
            self.add(
                "path_temporal",
                "temporal_outgoing",
                f"Which {E} records are linked from {S} '{{{slot}}}' through :{R}, and "
                f"what is their {property_phrase(prop)}?",
                f"MATCH {anchor}-[:{qr}]->(e:{qe}) WHERE e.{qp} IS NOT NULL "
                f"RETURN DISTINCT {_cols(dst)}, e.{qp} AS {_column(rel.end, prop)} "
                f"LIMIT {lim}",
                slots=slots,
                reverse=_reverse(
                    f"(s:{qs})-[:{qr}]->(e:{qe})",
                    [f"s.{qsp} IS NOT NULL", f"e.{qp} IS NOT NULL"],
                    [(f"s.{qsp}", slot)],
                ),
                meta={**meta, "temporal_property": prop},
            )
        for prop in s.temporal_rel_properties(rel.type)[:2]:
            if _column(rel.type, prop) in {alias for _, alias in dst}:
                continue
            qp = _q(prop)
            self.add(
                "path_temporal",
                "temporal_relationship",
                f"Which {E} records are linked from {S} '{{{slot}}}' through :{R}, and "
                f"what is the {property_phrase(prop)} of each link?",
                f"MATCH {anchor}-[r:{qr}]->(e:{qe}) WHERE r.{qp} IS NOT NULL "
                f"RETURN DISTINCT {_cols(dst)}, r.{qp} AS {_column(rel.type, prop)} "
                f"LIMIT {lim}",
                slots=slots,
                reverse=_reverse(
                    f"(s:{qs})-[r:{qr}]->(:{qe})",
                    [f"s.{qsp} IS NOT NULL", f"r.{qp} IS NOT NULL"],
                    [(f"s.{qsp}", slot)],
                ),
                meta={**meta, "temporal_property": prop},
            )
        if rel.start == rel.end:
            self.add(
                "path_temporal",
                "path_outgoing",
                f"Which {S} records are within two :{R} hops of {S} '{{{slot}}}'?",
                f"MATCH {anchor}-[:{qr}*1..2]->(e:{qe}) WHERE e <> s "
                f"RETURN DISTINCT {_cols(dst)} LIMIT {lim}",
                slots=slots,
                reverse=_reverse(
                    f"(s:{qs})-[:{qr}]->(x:{qe})",
                    [f"s.{qsp} IS NOT NULL", "x <> s"],
                    [(f"s.{qsp}", slot)],
                ),
                meta=meta,
            )

    def _anchored_end(self, rel: _Rel, ep: str, base: dict[str, Any]) -> None:
        s = self.s
        S, E, R = label_phrase(rel.start), label_phrase(rel.end), rel.type
        qs, qe, qr, qep = _q(rel.start), _q(rel.end), _q(rel.type), _q(ep)
        lim, slot = self.limit, TARGET_SLOT
        slots = {slot: f"{rel.end}.{ep}"}
        meta = {**base, "slot": slot, "slot_property": ep}
        anchor = _node("e", rel.end, ep, slot)
        src = s.projection(rel.start, "s")
        rev = _reverse(f"(:{qs})-[:{qr}]->(e:{qe})", [f"e.{qep} IS NOT NULL"], [(f"e.{qep}", slot)])
        self.add(
            "simple_retrieval",
            "retrieval_incoming",
            f"Which {S} records link to {E} '{{{slot}}}' through :{R}?",
            f"MATCH (s:{qs})-[:{qr}]->{anchor} RETURN DISTINCT {_cols(src)} LIMIT {lim}",
            slots=slots,
            reverse=rev,
            meta=meta,
        )
        self.add(
            "simple_aggregation",
            "count_incoming_anchored",
            f"How many distinct {S} records link to {E} '{{{slot}}}' through :{R}?",
            f"MATCH (s:{qs})-[:{qr}]->{anchor} "
            f"RETURN COUNT(DISTINCT s) AS {_alias(rel.start)}Count",
            slots=slots,
            reverse=rev,
            meta=meta,
        )
        self.add(
            "boolean_existence",
            "exists_incoming",
            f"Is {E} '{{{slot}}}' linked from any {S} record through :{R}?",
            f"MATCH {anchor} OPTIONAL MATCH (s:{qs})-[:{qr}]->(e) RETURN COUNT(s) > 0 AS answer",
            slots=slots,
            reverse=rev,
            meta={
                **meta,
                NEGATIVE_REVERSE: _reverse(
                    f"(e:{qe})",
                    [f"e.{qep} IS NOT NULL", f"NOT (:{qs})-[:{qr}]->(e)"],
                    [(f"e.{qep}", slot)],
                ),
            },
        )
        for prop in s.temporal_properties(rel.start)[:2]:
            if _column(rel.start, prop) in {alias for _, alias in src}:
                continue
            qp = _q(prop)
            self.add(
                "path_temporal",
                "temporal_incoming",
                f"Which {S} records link to {E} '{{{slot}}}' through :{R}, and what is "
                f"their {property_phrase(prop)}?",
                f"MATCH (s:{qs})-[:{qr}]->{anchor} WHERE s.{qp} IS NOT NULL "
                f"RETURN DISTINCT {_cols(src)}, s.{qp} AS {_column(rel.start, prop)} "
                f"LIMIT {lim}",
                slots=slots,
                reverse=_reverse(
                    f"(s:{qs})-[:{qr}]->(e:{qe})",
                    [f"e.{qep} IS NOT NULL", f"s.{qp} IS NOT NULL"],
                    [(f"e.{qep}", slot)],
                ),
                meta={**meta, "temporal_property": prop},
            )
        if rel.start == rel.end:
            self.add(
                "path_temporal",
                "path_incoming",
                f"Which {S} records reach {E} '{{{slot}}}' within two :{R} hops?",
                f"MATCH (s:{qs})-[:{qr}*1..2]->{anchor} WHERE s <> e "
                f"RETURN DISTINCT {_cols(src)} LIMIT {lim}",
                slots=slots,
                reverse=_reverse(
                    f"(x:{qs})-[:{qr}]->(e:{qe})",
                    [f"e.{qep} IS NOT NULL", "x <> e"],
                    [(f"e.{qep}", slot)],
                ),
                meta=meta,
            )
        # a join on a shared start node: other end nodes sharing a start with the anchor
        self.add(
            "complex_retrieval",
            "shared_source",
            f"Which other {E} records are linked through :{R} from a {S} record that also "
            f"links to {E} '{{{slot}}}'?",
            f"MATCH {anchor}<-[:{qr}]-(s:{qs})-[:{qr}]->(o:{qe}) WHERE o <> e "
            f"RETURN DISTINCT {_cols(s.projection(rel.end, 'o'))} LIMIT {lim}",
            slots=slots,
            reverse=_reverse(
                f"(e:{qe})<-[:{qr}]-(:{qs})-[:{qr}]->(o:{qe})",
                [f"e.{qep} IS NOT NULL", "o <> e"],
                [(f"e.{qep}", slot)],
            ),
            meta=meta,
        )

    def shared_target(self, rel: _Rel) -> None:
        """A join on a shared end node, anchored at a start node."""
        sp = self.s.slot_property(rel.start)
        if sp is None:
            return
        S, E, R = label_phrase(rel.start), label_phrase(rel.end), rel.type
        qs, qe, qr, qsp = _q(rel.start), _q(rel.end), _q(rel.type), _q(sp)
        slot = START_SLOT
        self.add(
            "complex_retrieval",
            "shared_target",
            f"Which other {S} records have a :{R} link to a {E} record that {S} "
            f"'{{{slot}}}' also links to?",
            f"MATCH {_node('s', rel.start, sp, slot)}-[:{qr}]->(e:{qe})<-[:{qr}]-(o:{qs}) "
            f"WHERE o <> s RETURN DISTINCT {_cols(self.s.projection(rel.start, 'o'))} "
            f"LIMIT {self.limit}",
            slots={slot: f"{rel.start}.{sp}"},
            reverse=_reverse(
                f"(s:{qs})-[:{qr}]->(:{qe})<-[:{qr}]-(o:{qs})",
                [f"s.{qsp} IS NOT NULL", "o <> s"],
                [(f"s.{qsp}", slot)],
            ),
            meta={
                "start_label": rel.start,
                "relationship_type": rel.type,
                "end_label": rel.end,
                "slot": slot,
                "slot_property": sp,
            },
        )

    # two hops -----------------------------------------------------------------------------

    def chain(self, r1: _Rel, r2: _Rel) -> None:
        s = self.s
        A, B, C = label_phrase(r1.start), label_phrase(r1.end), label_phrase(r2.end)
        R1, R2 = r1.type, r2.type
        qa, qb, qc, q1, q2 = _q(r1.start), _q(r1.end), _q(r2.end), _q(r1.type), _q(r2.type)
        lim = self.limit
        base = {
            "start_label": r1.start,
            "relationship_type": r1.type,
            "end_label": r1.end,
            "second_relationship_type": r2.type,
            "second_end_label": r2.end,
        }
        ap, cp = s.slot_property(r1.start), s.slot_property(r2.end)
        loop = r1.start == r2.end
        path = f"(a:{qa})-[:{q1}]->(b:{qb})-[:{q2}]->(c:{qc})"
        if ap is not None:
            slot, qap = START_SLOT, _q(ap)
            slots = {slot: f"{r1.start}.{ap}"}
            meta = {**base, "slot": slot, "slot_property": ap}
            anchored = f"{_node('a', r1.start, ap, slot)}-[:{q1}]->(b:{qb})-[:{q2}]->(c:{qc})"
            not_self = " WHERE c <> a" if loop else ""
            rev = _reverse(
                path, [f"a.{qap} IS NOT NULL"] + (["c <> a"] if loop else []), [(f"a.{qap}", slot)]
            )
            self.add(
                "complex_retrieval",
                "two_hop_outgoing",
                f"Which {C} records are reached from {A} '{{{slot}}}' through :{R1} and "
                f"then :{R2}?",
                f"MATCH {anchored}{not_self} "
                f"RETURN DISTINCT {_cols(s.projection(r2.end, 'c'))} LIMIT {lim}",
                slots=slots,
                reverse=rev,
                meta=meta,
            )
            self.add(
                "complex_aggregation",
                "count_two_hop",
                f"How many distinct {C} records are reached from {A} '{{{slot}}}' through "
                f":{R1} and then :{R2}?",
                f"MATCH {anchored}{not_self} RETURN COUNT(DISTINCT c) AS {_alias(r2.end)}Count",
                slots=slots,
                reverse=rev,
                meta=meta,
            )
            self.add(
                "ranking_topk",
                "top1_two_hop_anchored",
                f"Among the {B} records linked from {A} '{{{slot}}}' through :{R1}, which "
                f"one has the most :{R2} links to {C} records?",
                self._ranking(anchored, "b", "c", s.projection(r1.end, "b"), 1),
                slots=slots,
                reverse=_reverse(path, [f"a.{qap} IS NOT NULL"], [(f"a.{qap}", slot)]),
                meta=meta,
            )
            self.add(
                "negation_difference",
                "negation_anchored",
                f"Which {B} records linked from {A} '{{{slot}}}' through :{R1} have no "
                f"outgoing :{R2} relationship to {C} records?",
                f"MATCH {_node('a', r1.start, ap, slot)}-[:{q1}]->(b:{qb}) "
                f"WHERE NOT (b)-[:{q2}]->(:{qc}) "
                f"RETURN DISTINCT {_cols(s.projection(r1.end, 'b'))} LIMIT {lim}",
                slots=slots,
                reverse=_reverse(
                    f"(a:{qa})-[:{q1}]->(b:{qb})",
                    [f"a.{qap} IS NOT NULL", f"NOT (b)-[:{q2}]->(:{qc})"],
                    [(f"a.{qap}", slot)],
                ),
                meta=meta,
            )
        if cp is not None:
            slot, qcp = TARGET_SLOT, _q(cp)
            self.add(
                "complex_retrieval",
                "two_hop_incoming",
                f"Which {A} records reach {C} '{{{slot}}}' through :{R1} and then :{R2}?",
                f"MATCH (a:{qa})-[:{q1}]->(b:{qb})-[:{q2}]->{_node('c', r2.end, cp, slot)}"
                f"{' WHERE a <> c' if loop else ''} "
                f"RETURN DISTINCT {_cols(s.projection(r1.start, 'a'))} LIMIT {lim}",
                slots={slot: f"{r2.end}.{cp}"},
                reverse=_reverse(
                    path,
                    [f"c.{qcp} IS NOT NULL"] + (["a <> c"] if loop else []),
                    [(f"c.{qcp}", slot)],
                ),
                meta={**base, "slot": slot, "slot_property": cp},
            )


def _interleave(kinds: dict[str, list[Template]]) -> list[Template]:
    """Round-robin over the kinds (in the order first added): the first template of every
    kind, then the second, ...; so a cap keeps every kind."""
    lists = list(kinds.values())
    out: list[Template] = []
    for i in range(max((len(x) for x in lists), default=0)):
        out.extend(x[i] for x in lists if i < len(x))
    return out


def dedupe_templates(templates: Iterable[Template]) -> list[Template]:
    """``templates`` without repeats of (category, lower-cased text), first kept (the
    original's ``_dedupe_templates``)."""
    seen: set[tuple[str, str]] = set()
    out: list[Template] = []
    for t in templates:
        key = (t.category, t.template.lower())
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


def schema_templates(
    profile: Mapping[str, Any],
    *,
    max_per_category: int = 48,
    max_chains: int = 64,
    result_limit: int = 50,
) -> list[Template]:
    """Schema-derived templates (kinds: module docstring) for the profile (spec §2.1 dict),
    category by category in :data:`CATEGORIES` order.

    Relationships are ranked by count (descending, then start label, type, end label); two-hop
    chains by the smaller count of their two relationships (the first ``max_chains``). Within
    a category the kinds are interleaved, so the first ``max_per_category`` templates keep
    every kind; duplicates of (category, text) are dropped. ``result_limit`` is the ``LIMIT``
    of row-returning Cypher. Categories the schema cannot support (e.g. path_temporal without
    a relation between nodes of one label and without date-like properties) get none.
    Deterministic: the same profile gives the same list.
    """
    schema = _Schema(profile)
    b = _Builder(schema, result_limit)
    for rel in schema.rels:
        b.relationship(rel)
    for rel in schema.rels:
        b.shared_target(rel)
    chains = sorted(
        ((r1, r2) for r1 in schema.rels for r2 in schema.rels if r1.end == r2.start),
        key=lambda c: (
            -min(c[0].count, c[1].count),
            -max(c[0].count, c[1].count),
            c[0].start,
            c[0].type,
            c[0].end,
            c[1].type,
            c[1].end,
        ),
    )
    for r1, r2 in chains[:max_chains]:
        b.chain(r1, r2)
    out: list[Template] = []
    for category in CATEGORIES:
        out.extend(dedupe_templates(_interleave(b.out[category]))[:max_per_category])
    return out


# -- seed template files -------------------------------------------------------------------


def generic_reverse_cypher(slots: Mapping[str, str]) -> str:
    """A reverse query binding each slot to any value of its ``Label.property`` (the
    original's fallback ``_generic_slot_lookup_query``; unrelated slots form a product)."""
    parts, where, cols = [], [], []
    for i, (slot, label_prop) in enumerate(slots.items()):
        label, _, prop = label_prop.partition(".")
        var = f"v{i}"
        parts.append(f"({var}:{_q(label)})")
        where.append(f"{var}.{_q(prop)} IS NOT NULL")
        cols.append((f"{var}.{_q(prop)}", slot))
    return _reverse(", ".join(parts), where, cols)


_SEED_KEYS = {"template", "category", "slots", "cypher", "reverse_cypher", "metadata"}


def _seed(item: Any, path: Path, where: str) -> Template:
    def bad(at: str, msg: str) -> TemplateError:
        return TemplateError(f"{path}: {at}: {msg}")

    if not isinstance(item, dict):
        raise bad(where, "expected an object")
    unknown = sorted(set(item) - _SEED_KEYS)
    if unknown:
        raise bad(where, f"unknown key(s) {', '.join(map(repr, unknown))}")
    for key in ("template", "category"):
        if key not in item:
            raise bad(where, f"missing key {key!r}")
        if not isinstance(item[key], str) or not item[key].strip():
            raise bad(f"{where}.{key}", "expected a non-empty string")
    category = item["category"]
    if category not in CATEGORIES:
        raise bad(
            f"{where}.category", f"unknown category {category!r} (one of: {', '.join(CATEGORIES)})"
        )
    slots = item.get("slots", {})
    if not isinstance(slots, dict):
        raise bad(f"{where}.slots", 'expected an object of slot: "Label.property"')
    for slot, label_prop in slots.items():
        if not _IDENT_RE.fullmatch(slot):
            raise bad(f"{where}.slots.{slot}", "a slot name must be an identifier")
        label, _, prop = label_prop.partition(".") if isinstance(label_prop, str) else ("", "", "")
        if not label or not prop:
            raise bad(f"{where}.slots.{slot}", 'expected a string "Label.property"')
    text = item["template"]
    used = placeholders(text)
    for slot in used:
        if slot not in slots:
            raise bad(f"{where}.template", f"placeholder {{{slot}}} is not a declared slot")
    for slot in slots:
        if slot not in used:
            raise bad(f"{where}.slots.{slot}", "the template text does not use this slot")
    queries: dict[str, str] = {}
    for key in ("cypher", "reverse_cypher"):
        value = item.get(key, "")
        if not isinstance(value, str):
            raise bad(f"{where}.{key}", "expected a string")
        writes = write_clauses_of(value) if value else []
        if writes:
            raise bad(f"{where}.{key}", f"not read-only (write clause(s) {', '.join(writes)})")
        queries[key] = value.strip()
    for slot in placeholders(queries["cypher"]):
        if slot not in slots:
            raise bad(f"{where}.cypher", f"placeholder {{{slot}}} is not a declared slot")
    metadata = item.get("metadata", {})
    if not isinstance(metadata, dict):
        raise bad(f"{where}.metadata", "expected an object")
    metadata = {KIND: None, "source": "seed", **metadata}
    if metadata["source"] not in SOURCES:
        raise bad(f"{where}.metadata.source", f"expected one of: {', '.join(SOURCES)}")
    reverse = queries["reverse_cypher"]
    if slots and not reverse:
        reverse = generic_reverse_cypher(slots)
        metadata.setdefault("reverse_source", "generic")
    return Template(
        template=text,
        category=category,
        slots=dict(slots),
        cypher=queries["cypher"],
        reverse_cypher=reverse,
        metadata=metadata,
    )


def load_seed_templates(path: str | Path) -> list[Template]:
    """Read a seed template file: a JSON list of ``{template, category, slots?, cypher?,
    reverse_cypher?, metadata?}`` (spec §2.3).

    Checks keys and types, that ``category`` is one of :data:`CATEGORIES`, that every slot is
    ``"Label.property"`` and used by the text and every ``{placeholder}`` of the text and the
    Cypher is a slot, and that both queries are read-only. A slotted template without
    ``reverse_cypher`` gets :func:`generic_reverse_cypher`. ``metadata`` defaults to
    ``{"schema_template_kind": None, "source": "seed"}``.

    Raises :class:`kgbench.generate.patterns.TemplateError` (an
    :class:`kgbench.errors.InputError`) naming the file and the JSON path, e.g.
    ``seeds.json: $[2].category: unknown category 'lookup' (one of: ...)``.
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise TemplateError(f"seed template file not found: {p}") from exc
    except json.JSONDecodeError as exc:
        raise TemplateError(
            f"{p}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError(f"{p}: cannot read the seed template file ({exc})") from exc
    if not isinstance(data, list):
        raise TemplateError(f"{p}: $: expected a list of template objects")
    return [_seed(item, p, f"$[{i}]") for i, item in enumerate(data)]
