"""Accessors of GTSQA item records (spec ``synthkgqa.md`` §2) shared by :mod:`.split` and
:mod:`.stats`. ``where`` prefixes error messages (e.g. ``"FILE line 3"``, ``"item 'id'"``).

Entities and relations are keyed by the id in the trailing parentheses of a
``"label (ID)"`` string (a relabelled QID is the same entity), else by the whole string;
other JSON values (property-graph eids) by their JSON text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from kgbench.errors import InputError

_ID = re.compile(r"\(([^()\s]+)\)\s*$")


def item_where(item: Mapping[str, Any]) -> str:
    """The error prefix naming an item by its id."""
    return f"item {item.get('id', '?')!r}"


def entity_id(value: Any) -> str:
    """The id of a ``"label (ID)"`` string (``"label (Q42)"`` -> ``"Q42"``), the string
    itself, or the JSON of another value."""
    if isinstance(value, str):
        m = _ID.search(value)
        return m.group(1) if m else value
    return json.dumps(value, sort_keys=True)


def entity_label(value: Any) -> str:
    """The label of a ``"label (ID)"`` string (the whole string when there is no id)."""
    text = str(value)
    m = _ID.search(text)
    return text[: m.start()].rstrip() if m else text


def required_field(where: str, item: Mapping[str, Any], name: str) -> Any:
    """The value of field ``name`` of the record ``item``.

    Raises:
        InputError: the field is missing; the message starts with ``where`` (file and line)."""
    if name not in item:
        raise InputError(f"{where}: missing field {name!r}")
    return item[name]


def list_field(where: str, item: Mapping[str, Any], name: str) -> list[Any]:
    """The value of field ``name`` of the record ``item``, which must be a JSON array.

    Raises:
        InputError: the field is missing or not a list; the message starts with ``where``."""
    value = required_field(where, item, name)
    if not isinstance(value, list):
        raise InputError(f"{where}: field {name!r} must be a list, got {type(value).__name__}")
    return value


def gt_triples(where: str, item: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The GT triples (``answer_subgraph``) as (head, relation, tail) ids."""
    out = []
    for i, t in enumerate(list_field(where, item, "answer_subgraph")):
        if not isinstance(t, (list, tuple)) or len(t) != 3:
            raise InputError(
                f"{where}: answer_subgraph[{i}] must be a [head, relation, tail] list, got {t!r}"
            )
        out.append((entity_id(t[0]), entity_id(t[1]), entity_id(t[2])))
    return out


def isomorphism_field(where: str, item: Mapping[str, Any]) -> str:
    """``graph_isomorphism`` in canonical spelling."""
    from kgbench.iso import InvalidIsomorphismType, canonical_isomorphism_type

    iso = required_field(where, item, "graph_isomorphism")
    if not isinstance(iso, str):
        raise InputError(f"{where}: field 'graph_isomorphism' must be a string, got {iso!r}")
    try:
        return canonical_isomorphism_type(iso)
    except InvalidIsomorphismType as exc:
        raise InputError(f"{where}: field 'graph_isomorphism': {exc}") from exc


def redundant_field(where: str, item: Mapping[str, Any]) -> bool:
    """The record's ``redundant`` flag (SynthKGQA: the answer subgraph is not minimal).

    Raises:
        InputError: the field is missing or not a JSON boolean; the message starts with
            ``where``."""
    value = required_field(where, item, "redundant")
    if not isinstance(value, bool):
        raise InputError(f"{where}: field 'redundant' must be true or false, got {value!r}")
    return value


def answers_name(where: str, item: Mapping[str, Any], kg: str | None = None) -> str:
    """The answers field: ``all_answers_<kg>``; without ``kg``, ``all_answers_wikidata``,
    else the item's only ``all_answers*`` field."""
    if kg is not None:
        return f"all_answers_{kg}"
    if "all_answers_wikidata" in item:
        return "all_answers_wikidata"
    names = sorted(k for k in item if k.startswith("all_answers"))
    if len(names) == 1:
        return names[0]
    if not names:
        raise InputError(f"{where}: missing field 'all_answers_wikidata'")
    raise InputError(
        f"{where}: several answer fields ({', '.join(names)}); choose one with kg (--kg)"
    )


def answer_ids(where: str, item: Mapping[str, Any]) -> frozenset[str]:
    """Every answer id of an item: the answer node and all ``all_answers*`` lists."""
    out = {entity_id(required_field(where, item, "answer_node"))}
    for name, value in item.items():
        if name.startswith("all_answers") and isinstance(value, list):
            out.update(entity_id(a) for a in value)
    return frozenset(out)
