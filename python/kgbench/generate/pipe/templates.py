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

from kgbench.generate.patterns import TemplateError, read_json_file
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


def cypher_ident(name: str) -> str:
    """``name`` (a label, relationship type or property name) as a Cypher identifier: as it
    is when it is a plain identifier (``[A-Za-z_][A-Za-z0-9_]*``), else in backquotes with each
    backquote doubled (Cypher Manual, "Naming rules": escaped names)."""
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

    @property
    def meta(self) -> dict[str, Any]:
        """The template metadata naming the relationship."""
        return {"start_label": self.start, "relationship_type": self.type, "end_label": self.end}


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
        return [(f"{var}.{cypher_ident(p)}", _column(label, p)) for p in chosen]


def _cols(columns: list[tuple[str, str]]) -> str:
    return ", ".join(f"{expr} AS {alias}" for expr, alias in columns)


def _node(var: str, label: str, prop: str | None = None, slot: str | None = None) -> str:
    if prop is None or slot is None:
        return f"({var}:{cypher_ident(label)})"
    return f"({var}:{cypher_ident(label)} {{{cypher_ident(prop)}: {{{slot}}}}})"


def _reverse(match: str, where: list[str], returns: list[tuple[str, str]]) -> str:
    cond = f" WHERE {' AND '.join(where)}" if where else ""
    cols = ", ".join(f"{expr} AS {alias}" for expr, alias in returns)
    return f"MATCH {match}{cond} RETURN DISTINCT {cols} LIMIT {LIMIT_PLACEHOLDER}"


# -- schema-derived templates --------------------------------------------------------------


@dataclass(frozen=True)
class _Way:
    """A direction of the paired kinds: the ``*_outgoing`` kinds anchor (name, scope, rank or
    negate) the start of a pattern ``(S)-[:R]->(E)``, the ``*_incoming`` kinds its end. The
    wording fields are the question words that differ between the two: ``str.format`` strings
    over ``A`` and ``O`` (the label phrases of the anchored and of the other end), ``R`` (the
    relationship as the question names it) and ``anchor`` (the anchored end's own words,
    ``person '{startValue}'`` or ``person records``)."""

    name: str
    slot: str
    scopes: int  # how many categorical properties of the anchored end give *_scoped kinds
    linked: str  # "Which {O} records <linked>?"
    reached: str  # the same over a two-hop chain
    most: str  # "Which {A} records are <most>?"
    no_link: str  # "Which {A} records <no_link>?"
    exists: str
    path: str
    shared: str


_OUTGOING = _Way(
    name="outgoing",
    slot=START_SLOT,
    scopes=3,
    linked="are linked from {anchor} through :{R}",
    reached="are reached from {anchor} through :{R}",
    most="linked to the most {O} records through :{R}",
    no_link="have no outgoing :{R} relationship to {O} records",
    exists="Does {anchor} have any :{R} link to a {O} record?",
    path="Which {O} records are within two :{R} hops of {anchor}?",
    shared="Which other {A} records have a :{R} link to a {O} record that {anchor} also links to?",
)
_INCOMING = _Way(
    name="incoming",
    slot=TARGET_SLOT,
    scopes=2,
    linked="link to {anchor} through :{R}",
    reached="reach {anchor} through :{R}",
    most="linked from the most {O} records through :{R}",
    no_link="are not linked from any {O} record through :{R}",
    exists="Is {anchor} linked from any {O} record through :{R}?",
    path="Which {O} records reach {anchor} within two :{R} hops?",
    shared="Which other {A} records are linked through :{R} from a {O} record that also links "
    "to {anchor}?",
)


@dataclass(frozen=True)
class _Side:
    """A pattern ``(start)-[middle]->(end)`` seen from the end ``way`` anchors: ``var`` and
    ``label`` are that end's, ``other_var`` and ``other`` the other end's; ``words`` names the
    relationship in questions (``OWNS``; ``OWNS and then :TRANSFER`` for a chain)."""

    way: _Way
    var: str
    label: str
    other_var: str
    other: str
    middle: str
    words: str

    @property
    def phrase(self) -> str:
        return label_phrase(self.label)

    @property
    def other_phrase(self) -> str:
        return label_phrase(self.other)

    def say(self, wording: str, anchor: str = "") -> str:
        """One of :attr:`way`'s wording fields, filled for this pattern."""
        return wording.format(A=self.phrase, O=self.other_phrase, R=self.words, anchor=anchor)

    def named(self) -> str:
        """The anchored end named by its slot: ``person '{startValue}'``."""
        return f"{self.phrase} '{{{self.way.slot}}}'"

    def node(self, prop: str | None = None) -> str:
        """The anchored end's node, ``(s:Person {name: {startValue}})`` given a ``prop``."""
        return _node(self.var, self.label, prop, self.way.slot)

    def hop(self, anchor: str = "", other: str = "", middle: str = "") -> str:
        """The pattern, start first, with ``anchor`` (default :meth:`node`) at the anchored
        end, ``other`` (default ``(o:Label)``) at the other and ``middle`` between."""
        ends = (anchor or self.node(), other or _node(self.other_var, self.other))
        start, end = ends if self.way is _OUTGOING else ends[::-1]
        return f"{start}-{middle or self.middle}->{end}"

    @property
    def unlinked(self) -> str:
        """``NOT (s)-[:R]->(:E)``: the anchored node has no such link."""
        return f"NOT {self.hop(f'({self.var})', f'(:{cypher_ident(self.other)})')}"

    def bind(self, prop: str, base: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
        """``slots`` and ``meta`` of a template naming the anchored end by ``prop``."""
        slot = self.way.slot
        return {slot: f"{self.label}.{prop}"}, {**base, "slot": slot, "slot_property": prop}

    def reverse(self, prop: str, match: str = "", where: Iterable[str] = ()) -> str:
        """The reverse query binding the slot to the anchored end's ``prop`` over ``match``
        (default: the pattern with the other end anonymous), with more ``where`` conditions."""
        value = f"{self.var}.{cypher_ident(prop)}"
        return _reverse(
            match or self.hop(other=f"(:{cypher_ident(self.other)})"),
            [f"{value} IS NOT NULL", *where],
            [(value, self.way.slot)],
        )


def _sides(
    start_var: str, start: str, middle: str, end_var: str, end: str, words: str
) -> tuple[_Side, _Side]:
    """``(start_var:start)-[middle]->(end_var:end)`` seen from its start and from its end."""
    return (
        _Side(_OUTGOING, start_var, start, end_var, end, middle, words),
        _Side(_INCOMING, end_var, end, start_var, start, middle, words),
    )


def _rel_sides(rel: _Rel) -> tuple[_Side, _Side]:
    """``(s:S)-[:R]->(e:E)`` seen from its start and from its end."""
    return _sides("s", rel.start, f"[:{cypher_ident(rel.type)}]", "e", rel.end, rel.type)


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

    def _columns(self, label: str, var: str) -> str:
        return _cols(self.s.projection(label, var))

    def _ranking(self, match: str, keep: str, label: str, other: str, k: int) -> str:
        """The ``k`` ``label`` nodes ``keep`` of ``match`` with the most distinct ``other``."""
        cols = self.s.projection(label, keep)
        tie = f", {cols[0][1]}" if cols else ""
        return (
            f"MATCH {match} WITH {keep}, COUNT(DISTINCT {other}) AS relatedCount "
            f"RETURN DISTINCT {_cols(cols)}, relatedCount "
            f"ORDER BY relatedCount DESC{tie} LIMIT {k}"
        )

    def _count(
        self, category: str, kind: str, side: _Side, anchor: str, subject: str, **extra: Any
    ) -> None:
        """A count of the other ends linked with ``subject`` (the anchored end's words; its
        node is ``anchor``): "How many distinct O records are linked from ...?"."""
        self.add(
            category,
            kind,
            f"How many distinct {side.other_phrase} records {side.say(side.way.linked, subject)}?",
            f"MATCH {side.hop(anchor)} "
            f"RETURN COUNT(DISTINCT {side.other_var}) AS {_alias(side.other)}Count",
            **extra,
        )

    def _negation(self, kind: str, side: _Side, anchor: str, subject: str, **extra: Any) -> None:
        """The anchored nodes ``anchor`` (in words ``subject``) without a link: "Which
        ``subject`` have no outgoing :R relationship to ...?"."""
        self.add(
            "negation_difference",
            kind,
            f"Which {subject} {side.say(side.way.no_link)}?",
            f"MATCH {anchor} WHERE {side.unlinked} "
            f"RETURN DISTINCT {self._columns(side.label, side.var)} LIMIT {self.limit}",
            **extra,
        )

    # one hop ------------------------------------------------------------------------------

    def relationship(self, rel: _Rel) -> None:
        s, base = self.s, rel.meta
        out, inc = sides = _rel_sides(rel)

        # slot-free: the original's count / negation / top-k kinds
        for side in sides:
            records, name = f"{side.phrase} records", side.way.name
            self._count(
                "complex_aggregation", f"count_{name}", side, side.node(), records, meta=base
            )
            self._negation(f"negation_{name}", side, side.node(), records, meta=base)
        for kind, which, k in (("topk", "records are", 10), ("top1", "record is", 1)):
            for side in sides:
                self.add(
                    "ranking_topk",
                    f"{kind}_{side.way.name}",
                    f"Which {side.phrase} {which} {side.say(side.way.most)}?",
                    self._ranking(side.hop(), side.var, side.label, side.other_var, k),
                    meta=base,
                )

        # scoped by a categorical value (the original's *_scoped kinds)
        for side in sides:
            for prop in s.scope_properties(side.label, side.way.scopes):
                self._scoped(rel, side, prop)

        # named by a slot property
        sp, ep = s.slot_property(rel.start), s.slot_property(rel.end)
        if sp is not None:
            self._anchored(rel, out, sp)
        if ep is not None:
            self._anchored(rel, inc, ep)
            self._shared(rel, inc, ep)
        if sp is not None and ep is not None:
            qsp, qep = cypher_ident(sp), cypher_ident(ep)
            self.add(
                "boolean_existence",
                "exists_pair",
                f"Is {out.phrase} '{{{START_SLOT}}}' linked to {inc.phrase} '{{{TARGET_SLOT}}}' "
                f"through :{rel.type}?",
                f"MATCH {out.node(sp)}, {inc.node(ep)} "
                f"OPTIONAL MATCH (s)-[r:{cypher_ident(rel.type)}]->(e) "
                "RETURN COUNT(r) > 0 AS answer",
                slots={START_SLOT: f"{rel.start}.{sp}", TARGET_SLOT: f"{rel.end}.{ep}"},
                reverse=_reverse(
                    out.hop(),
                    [f"s.{qsp} IS NOT NULL", f"e.{qep} IS NOT NULL"],
                    [(f"s.{qsp}", START_SLOT), (f"e.{qep}", TARGET_SLOT)],
                ),
                meta={**base, "slot_properties": {START_SLOT: sp, TARGET_SLOT: ep}},
            )

    def _scoped(self, rel: _Rel, side: _Side, prop: str) -> None:
        """The ``*_scoped`` kinds: the anchored end limited to one value of categorical
        ``prop``."""
        slots, meta = side.bind(prop, rel.meta)
        scope = f"{side.phrase} records with {property_phrase(prop)} '{{{side.way.slot}}}'"
        rev = side.reverse(prop)
        self._count(
            "complex_aggregation",
            f"count_{side.way.name}_scoped",
            side,
            side.node(prop),
            scope,
            slots=slots,
            reverse=rev,
            meta=meta,
        )
        self.add(
            "ranking_topk",
            f"topk_{side.way.name}_scoped",
            f"Among {scope}, which records are {side.say(side.way.most)}?",
            self._ranking(side.hop(side.node(prop)), side.var, side.label, side.other_var, 10),
            slots=slots,
            reverse=rev,
            meta=meta,
        )
        self._negation(
            f"negation_{side.way.name}_scoped",
            side,
            side.node(prop),
            scope,
            slots=slots,
            reverse=side.reverse(prop, side.node(), [side.unlinked]),
            meta=meta,
        )

    def _anchored(self, rel: _Rel, side: _Side, prop: str) -> None:
        """The kinds naming the anchored end by its slot property ``prop``: retrieval, count,
        existence, date-like properties of the other end, paths over a relation between nodes
        of one label; outgoing only (as the original): sums and date-like properties of the
        relationship."""
        s, lim, ov, name = self.s, self.limit, side.other_var, side.way.name
        slots, meta = side.bind(prop, rel.meta)
        anchor, named, hop = side.node(prop), side.named(), side.hop(side.node(prop))
        cols = s.projection(side.other, ov)
        returned = {alias for _, alias in cols}
        rev = side.reverse(prop)
        linked = side.say(side.way.linked, named)
        self.add(
            "simple_retrieval",
            f"retrieval_{name}",
            f"Which {side.other_phrase} records {linked}?",
            f"MATCH {hop} RETURN DISTINCT {_cols(cols)} LIMIT {lim}",
            slots=slots,
            reverse=rev,
            meta=meta,
        )
        self._count(
            "simple_aggregation",
            f"count_{name}_anchored",
            side,
            anchor,
            named,
            slots=slots,
            reverse=rev,
            meta=meta,
        )
        self.add(
            "boolean_existence",
            f"exists_{name}",
            side.say(side.way.exists, named),
            f"MATCH {anchor} OPTIONAL MATCH {side.hop(f'({side.var})')} "
            f"RETURN COUNT({ov}) > 0 AS answer",
            slots=slots,
            reverse=rev,
            meta={**meta, NEGATIVE_REVERSE: side.reverse(prop, side.node(), [side.unlinked])},
        )
        if side.way is _OUTGOING:
            for num in s.numeric_properties(side.other)[:2]:
                qn = cypher_ident(num)
                self.add(
                    "complex_aggregation",
                    "sum_outgoing_anchored",
                    f"What is the total {property_phrase(num)} of the {side.other_phrase} "
                    f"records linked from {named} through :{rel.type}?",
                    f"MATCH {hop} WITH DISTINCT {ov} RETURN SUM({ov}.{qn}) AS Total{_alias(num)}",
                    slots=slots,
                    reverse=side.reverse(prop, side.hop(), [f"{ov}.{qn} IS NOT NULL"]),
                    meta={**meta, "aggregated_property": num},
                )
        for date in s.temporal_properties(side.other)[:2]:
            column, qd = _column(side.other, date), cypher_ident(date)
            if column in returned:
                continue  # already a returned column
            self.add(
                "path_temporal",
                f"temporal_{name}",
                f"Which {side.other_phrase} records {linked}, and what is their "
                f"{property_phrase(date)}?",
                f"MATCH {hop} WHERE {ov}.{qd} IS NOT NULL "
                f"RETURN DISTINCT {_cols(cols)}, {ov}.{qd} AS {column} LIMIT {lim}",
                slots=slots,
                reverse=side.reverse(prop, side.hop(), [f"{ov}.{qd} IS NOT NULL"]),
                meta={**meta, "temporal_property": date},
            )
        if side.way is _OUTGOING:
            link = f"[r:{cypher_ident(rel.type)}]"
            for date in s.temporal_rel_properties(rel.type)[:2]:
                column, qd = _column(rel.type, date), cypher_ident(date)
                if column in returned:
                    continue
                self.add(
                    "path_temporal",
                    "temporal_relationship",
                    f"Which {side.other_phrase} records {linked}, and what is the "
                    f"{property_phrase(date)} of each link?",
                    f"MATCH {side.hop(anchor, middle=link)} WHERE r.{qd} IS NOT NULL "
                    f"RETURN DISTINCT {_cols(cols)}, r.{qd} AS {column} LIMIT {lim}",
                    slots=slots,
                    reverse=side.reverse(
                        prop,
                        side.hop(other=f"(:{cypher_ident(side.other)})", middle=link),
                        [f"r.{qd} IS NOT NULL"],
                    ),
                    meta={**meta, "temporal_property": date},
                )
        if rel.start == rel.end:
            self.add(
                "path_temporal",
                f"path_{name}",
                side.say(side.way.path, named),
                f"MATCH {side.hop(anchor, middle=f'[:{cypher_ident(rel.type)}*1..2]')} "
                f"WHERE {ov} <> {side.var} RETURN DISTINCT {_cols(cols)} LIMIT {lim}",
                slots=slots,
                reverse=side.reverse(
                    prop, side.hop(other=f"(x:{cypher_ident(side.other)})"), [f"x <> {side.var}"]
                ),
                meta=meta,
            )

    def _shared(self, rel: _Rel, side: _Side, prop: str) -> None:
        """A join on a shared other end: the anchored label's other nodes ``o`` linked with a
        node the named anchor is linked with (``shared_target`` anchors the start,
        ``shared_source`` the end)."""
        slots, meta = side.bind(prop, rel.meta)
        link = f"[:{cypher_ident(rel.type)}]"
        there, back = f"-{link}->", f"<-{link}-"
        if side.way is _INCOMING:
            there, back = back, there
        qa, qo = cypher_ident(side.label), cypher_ident(side.other)
        self.add(
            "complex_retrieval",
            "shared_target" if side.way is _OUTGOING else "shared_source",
            side.say(side.way.shared, side.named()),
            f"MATCH {side.node(prop)}{there}({side.other_var}:{qo}){back}(o:{qa}) "
            f"WHERE o <> {side.var} RETURN DISTINCT {self._columns(side.label, 'o')} "
            f"LIMIT {self.limit}",
            slots=slots,
            reverse=side.reverse(
                prop, f"{side.node()}{there}(:{qo}){back}(o:{qa})", [f"o <> {side.var}"]
            ),
            meta=meta,
        )

    def shared_target(self, rel: _Rel) -> None:
        """A join on a shared end node, anchored at a start node (a pass of its own after
        every relationship's other kinds, so the kinds keep the original's order)."""
        sp = self.s.slot_property(rel.start)
        if sp is not None:
            self._shared(rel, _rel_sides(rel)[0], sp)

    # two hops -----------------------------------------------------------------------------

    def chain(self, r1: _Rel, r2: _Rel) -> None:
        s, lim = self.s, self.limit
        qa, qb, qc, q1, q2 = (
            cypher_ident(r1.start),
            cypher_ident(r1.end),
            cypher_ident(r2.end),
            cypher_ident(r1.type),
            cypher_ident(r2.type),
        )
        base = {**r1.meta, "second_relationship_type": r2.type, "second_end_label": r2.end}
        sides = _sides(
            "a",
            r1.start,
            f"[:{q1}]->(b:{qb})-[:{q2}]",
            "c",
            r2.end,
            f"{r1.type} and then :{r2.type}",
        )
        for side in sides:
            prop = s.slot_property(side.label)
            if prop is None:
                continue
            slots, meta = side.bind(prop, base)
            named, anchored = side.named(), side.hop(side.node(prop))
            reached = side.say(side.way.reached, named)
            not_self = [f"{side.other_var} <> {side.var}"] if r1.start == r2.end else []
            where = f" WHERE {not_self[0]}" if not_self else ""
            rev = side.reverse(prop, side.hop(), not_self)
            self.add(
                "complex_retrieval",
                f"two_hop_{side.way.name}",
                f"Which {side.other_phrase} records {reached}?",
                f"MATCH {anchored}{where} "
                f"RETURN DISTINCT {self._columns(side.other, side.other_var)} LIMIT {lim}",
                slots=slots,
                reverse=rev,
                meta=meta,
            )
            if side.way is not _OUTGOING:
                continue
            B, C = label_phrase(r1.end), side.other_phrase
            self.add(
                "complex_aggregation",
                "count_two_hop",
                f"How many distinct {C} records {reached}?",
                f"MATCH {anchored}{where} RETURN COUNT(DISTINCT c) AS {_alias(r2.end)}Count",
                slots=slots,
                reverse=rev,
                meta=meta,
            )
            self.add(
                "ranking_topk",
                "top1_two_hop_anchored",
                f"Among the {B} records linked from {named} through :{r1.type}, which "
                f"one has the most :{r2.type} links to {C} records?",
                self._ranking(anchored, "b", r1.end, "c", 1),
                slots=slots,
                reverse=side.reverse(prop, side.hop()),
                meta=meta,
            )
            self.add(
                "negation_difference",
                "negation_anchored",
                f"Which {B} records linked from {named} through :{r1.type} have no "
                f"outgoing :{r2.type} relationship to {C} records?",
                f"MATCH {side.node(prop)}-[:{q1}]->(b:{qb}) WHERE NOT (b)-[:{q2}]->(:{qc}) "
                f"RETURN DISTINCT {self._columns(r1.end, 'b')} LIMIT {lim}",
                slots=slots,
                reverse=side.reverse(
                    prop, f"(a:{qa})-[:{q1}]->(b:{qb})", [f"NOT (b)-[:{q2}]->(:{qc})"]
                ),
                meta=meta,
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
        parts.append(f"({var}:{cypher_ident(label)})")
        where.append(f"{var}.{cypher_ident(prop)} IS NOT NULL")
        cols.append((f"{var}.{cypher_ident(prop)}", slot))
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
    data = read_json_file(p, "seed template")
    if not isinstance(data, list):
        raise TemplateError(f"{p}: $: expected a list of template objects")
    return [_seed(item, p, f"$[{i}]") for i, item in enumerate(data)]
