"""Value redaction of exported PIPE-Cypher rows and its audit (spec ``pipe-cypher.md`` §4
"Redaction"; facts from PIPE-Cypher's ``pipecypher/privacy.py`` and ``redaction_audit.py``).

:func:`redact_rows` replaces every graph value a row carries with a placeholder:

- **Cypher string literals** become ``'__VALUE_001__'``, ``'__VALUE_002__'``, ... (numbered per
  row from 1, three digits at least, in order of first appearance), or — when a ``salt`` is
  given, for placeholders that must be stable across rows and runs — ``'__VALUE_<h>__'`` with
  ``h`` the first 12 hex digits of ``sha256(json.dumps({"salt": salt, "value": value},
  sort_keys=True))`` (the original's serialisation). The literal tokens are found by the
  Cypher parser (:func:`kgbench.generate.pipe.features.query_features`, its
  ``string_literals`` spans: UTF-8 byte offsets, quotes included, values unescaped) and
  replaced exactly, so a name such as ``O'Hearn`` written ``'O\\'Hearn'`` or ``"O'Hearn"`` is
  replaced as one token, quotes in comments and backquoted names are never touched, and a
  value inside another literal is never split. The quote character is kept. A query that does
  not parse has no literals and keeps its text; the audit then reports every known value
  (``string_literals``, ``entity_values``) it still holds.
- The same values (the Cypher literals, then ``string_literals`` and ``entity_values`` not
  seen in the Cypher, in that order) are replaced in the **question**, the template text and
  the string leaves of ``template_metadata`` and of the **result rows** (a cell equal to a value
  becomes its placeholder; a value inside a longer cell is replaced as a substring). One pass
  per text, longest value first, so a value that is a substring of another (``Kant`` within
  ``Kantor``) never splits the longer one, and placeholders are never scanned again. Values
  shorter than 3 characters are replaced only where no letter or digit touches them (a
  one-letter code must not erase every such letter of the question).
- ``entity_values`` and ``string_literals`` become their placeholders; ``normalized_cypher``
  and ``reverse_cypher`` are redacted like the Cypher (their new literals extend the numbering).

Other string results (names the query returns but the question does not contain) are not
replaced (spec §4 replaces "the same values"; the original replaced every string result).

:func:`audit_redaction` then checks that no raw value of at least 3 characters survives as a
case-sensitive substring of any value-bearing field (:data:`AUDITED_FIELDS`; placeholders are
masked first, so a raw value such as ``VALUE`` does not match inside one); failures raise
:class:`RedactionAuditError` through :func:`check_redaction`.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kgbench.errors import InputError, KgbenchError
from kgbench.generate.pipe.features import query_features

#: Placeholder prefix (the original's ``placeholder_prefix`` default).
PLACEHOLDER_PREFIX = "VALUE"

#: A placeholder as :func:`placeholder` writes it (numbered or salted).
PLACEHOLDER_RE = re.compile(r"__VALUE_(?:[0-9]{3,}|[0-9a-f]{12})__")

#: Raw values shorter than this are not audited (the original's ``min_sensitive_chars``).
MIN_AUDIT_CHARS = 3

#: Fields :func:`audit_redaction` searches (strings, or lists/dicts searched leaf by leaf).
AUDITED_FIELDS = (
    "question",
    "cypher",
    "normalized_cypher",
    "reverse_cypher",
    "template",
    "template_metadata",
    "entity_values",
    "string_literals",
    "result_rows_sample",
)

_CYPHER_FIELDS = ("cypher", "normalized_cypher", "reverse_cypher")
_TEXT_FIELDS = ("question", "template")
_PREVIEW_CHARS = 24
_MESSAGE_FINDINGS = 5


class RedactionAuditError(KgbenchError):
    """A redacted export still holds raw values; ``findings`` lists them all (see
    :func:`audit_redaction`), the message the first few."""

    def __init__(self, findings: Sequence[Mapping[str, Any]]) -> None:
        self.findings = [dict(f) for f in findings]
        shown = "; ".join(
            f"row {f['row']} ({f.get('id') or 'no id'}) {f['field']}: {f['value']!r}"
            for f in self.findings[:_MESSAGE_FINDINGS]
        )
        more = len(self.findings) - _MESSAGE_FINDINGS
        tail = f"; and {more} more" if more > 0 else ""
        super().__init__(
            f"redaction audit failed: {len(self.findings)} raw value(s) survive redaction: "
            f"{shown}{tail}"
        )


def placeholder(value: str, index: int, salt: str | None = None) -> str:
    """The placeholder of ``value``, the ``index``-th (1-based) distinct value of its row.

    ``__VALUE_001__`` (``index`` in at least three digits) without a salt; with one,
    ``__VALUE_`` + sha256 of ``{"salt": salt, "value": value}`` (``json.dumps`` with
    ``sort_keys=True``, default separators, ASCII escapes) cut to 12 hex digits + ``__``, the
    same in every row and run (PIPE-Cypher ``privacy.py``, ``_hash_value``).
    """
    if salt is None:
        return f"__{PLACEHOLDER_PREFIX}_{index:03d}__"
    payload = json.dumps({"salt": salt, "value": value}, sort_keys=True).encode("utf-8")
    return f"__{PLACEHOLDER_PREFIX}_{hashlib.sha256(payload).hexdigest()[:12]}__"


#: A Cypher literal as the parser reports it: (start, end, value), byte offsets into the
#: UTF-8 text, quotes included.
_Literal = tuple[int, int, str]


def _parsed_literals(texts: Iterable[str]) -> dict[str, list[_Literal]]:
    """The string literals of each distinct Cypher text, in source order, from one
    :func:`~kgbench.generate.pipe.features.query_features` call (no literals for a text that
    does not parse)."""
    unique = list(dict.fromkeys(texts))
    analyses = query_features(unique) if unique else []
    return {
        text: sorted(
            (int(lit["start"]), int(lit["end"]), str(lit["value"]))
            for lit in analysis.get("string_literals") or []
        )
        for text, analysis in zip(unique, analyses, strict=True)
    }


class _Placeholders:
    """The value -> placeholder map of one row, numbered in order of first appearance."""

    def __init__(self, salt: str | None) -> None:
        self.salt = salt
        self.mapping: dict[str, str] = {}

    def get(self, value: str) -> str:
        found = self.mapping.get(value)
        if found is None:
            found = placeholder(value, len(self.mapping) + 1, self.salt)
            self.mapping[value] = found
        return found

    def pattern(self) -> re.Pattern[str] | None:
        """One alternation of every non-empty value, longest first (ties: first seen)."""
        values = sorted((v for v in self.mapping if v), key=len, reverse=True)
        if not values:
            return None
        parts = [
            re.escape(v) if len(v) >= MIN_AUDIT_CHARS else rf"(?<![^\W_]){re.escape(v)}(?![^\W_])"
            for v in values
        ]
        return re.compile("|".join(parts))


def _redact_cypher(cypher: str, literals: Sequence[_Literal], names: _Placeholders) -> str:
    """``cypher`` with each parser literal (byte spans, in source order) replaced by its
    placeholder in the literal's own quotes."""
    data = cypher.encode("utf-8")
    pieces: list[bytes] = []
    last = 0
    for start, end, value in literals:
        quote = data[start : start + 1]
        if not last <= start < end <= len(data) or quote not in (b"'", b'"'):
            raise KgbenchError(
                f"the parser's literal span [{start}, {end}) is not a quoted literal of {cypher!r}"
            )
        pieces += [data[last:start], quote, names.get(value).encode("utf-8"), quote]
        last = end
    pieces.append(data[last:])
    return b"".join(pieces).decode("utf-8")


def _replace_text(text: str, pattern: re.Pattern[str] | None, names: _Placeholders) -> str:
    if pattern is None:
        return text
    return pattern.sub(lambda m: names.mapping[m.group(0)], text)


def _replace_leaves(value: Any, pattern: re.Pattern[str] | None, names: _Placeholders) -> Any:
    """``value`` with every string leaf redacted: an exact value match becomes its
    placeholder, otherwise values are replaced as substrings."""
    if isinstance(value, str):
        if value in names.mapping and value:
            return names.mapping[value]
        return _replace_text(value, pattern, names)
    if isinstance(value, dict):
        return {k: _replace_leaves(v, pattern, names) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_replace_leaves(v, pattern, names) for v in value]
    return value


def _string_list(row: Mapping[str, Any], name: str) -> list[str]:
    values = row.get(name) or []
    if not isinstance(values, (list, tuple)):
        raise InputError(f"field {name!r} must be a list of strings, got {values!r}")
    return [str(v) for v in values if v is not None]


def redact_rows(
    rows: Sequence[Mapping[str, Any]], *, salt: str | None = None
) -> list[tuple[dict[str, Any], dict[str, str]]]:
    """A redacted copy of each export (or ledger) row and its ``{raw value: placeholder}`` map.

    Redacts ``cypher``, ``normalized_cypher`` and ``reverse_cypher`` at the string literals
    the parser finds in them (one parser call for the whole batch), then ``question``,
    ``template``, ``template_metadata``, ``entity_values``, ``string_literals`` (a list of
    value strings) and ``result_rows_sample`` as the module docstring describes; other fields
    are copied. The maps are private: keep them out of shared artefacts. Raises
    :class:`~kgbench.errors.InputError` for ``string_literals`` or ``entity_values`` that are
    not lists.
    """
    literals = _parsed_literals(
        row[name] for row in rows for name in _CYPHER_FIELDS if isinstance(row.get(name), str)
    )
    return [_redact_one(row, literals, salt) for row in rows]


def redact_row(
    row: Mapping[str, Any], *, salt: str | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """:func:`redact_rows` of one row (prefer :func:`redact_rows` for many: it parses once)."""
    return redact_rows([row], salt=salt)[0]


def _redact_one(
    row: Mapping[str, Any], literals: Mapping[str, Sequence[_Literal]], salt: str | None
) -> tuple[dict[str, Any], dict[str, str]]:
    out = copy.deepcopy(dict(row))
    names = _Placeholders(salt)
    # numbering: the Cypher's literals, the value lists, then literals only in the other
    # Cypher fields
    cypher = row.get("cypher")
    if isinstance(cypher, str):
        for _, _, value in literals[cypher]:
            names.get(value)
    string_literals = _string_list(row, "string_literals")
    entity_values = _string_list(row, "entity_values")
    for value in [*string_literals, *entity_values]:
        names.get(value)
    for name in _CYPHER_FIELDS:
        text = row.get(name)
        if isinstance(text, str):
            out[name] = _redact_cypher(text, literals[text], names)
    pattern = names.pattern()
    for name in _TEXT_FIELDS:
        if isinstance(row.get(name), str):
            out[name] = _replace_text(row[name], pattern, names)
    if "template_metadata" in row:
        out["template_metadata"] = _replace_leaves(row["template_metadata"], pattern, names)
    if "result_rows_sample" in row:
        out["result_rows_sample"] = _replace_leaves(row["result_rows_sample"], pattern, names)
    if "string_literals" in row:
        out["string_literals"] = [names.mapping[v] for v in string_literals]
    if "entity_values" in row:
        out["entity_values"] = [names.mapping[v] for v in entity_values]
    return out, dict(names.mapping)


def _leaves(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for child in value.values():
            yield from _leaves(child)
    elif isinstance(value, (list, tuple)):
        for child in value:
            yield from _leaves(child)


def _preview(value: str) -> str:
    return value if len(value) <= _PREVIEW_CHARS else value[: _PREVIEW_CHARS - 3] + "..."


def audit_redaction(
    rows: Sequence[Mapping[str, Any]],
    raw_values_by_row: Sequence[Iterable[Any]],
    *,
    min_chars: int = MIN_AUDIT_CHARS,
) -> list[dict[str, Any]]:
    """Raw values that survive in redacted ``rows`` (spec §4: none of ≥ 3 chars may).

    ``raw_values_by_row[i]`` holds the raw values of ``rows[i]`` (for :func:`redact_rows`, the
    keys of its map). A value counts when it has at least ``min_chars`` characters after
    stripping whitespace; it is a finding wherever it occurs as a case-sensitive substring of a
    field in :data:`AUDITED_FIELDS` (placeholders masked). One finding per (row, value, field):
    ``{"row": i, "id": row id or None, "field": name, "value": the value (cut to 24 chars)}``,
    in row, field, value order. An empty list means the redaction passed. Raises
    :class:`~kgbench.errors.InputError` when the two sequences differ in length.
    """
    if len(rows) != len(raw_values_by_row):
        raise InputError(
            f"audit_redaction: {len(rows)} rows but {len(raw_values_by_row)} raw value lists"
        )
    findings: list[dict[str, Any]] = []
    for i, (row, raw) in enumerate(zip(rows, raw_values_by_row, strict=True)):
        values = sorted(
            {s for s in (str(v).strip() for v in raw if v is not None) if len(s) >= min_chars}
        )
        if not values:
            continue
        for name in AUDITED_FIELDS:
            if name not in row:
                continue
            texts = [PLACEHOLDER_RE.sub("\x00", t) for t in _leaves(row[name])]
            for value in values:
                if any(value in t for t in texts):
                    findings.append(
                        {"row": i, "id": row.get("id"), "field": name, "value": _preview(value)}
                    )
    return findings


def check_redaction(
    rows: Sequence[Mapping[str, Any]],
    raw_values_by_row: Sequence[Iterable[Any]],
    *,
    min_chars: int = MIN_AUDIT_CHARS,
) -> None:
    """Run :func:`audit_redaction`; raise :class:`RedactionAuditError` on any finding."""
    findings = audit_redaction(rows, raw_values_by_row, min_chars=min_chars)
    if findings:
        raise RedactionAuditError(findings)
