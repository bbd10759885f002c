"""SynthKGQA's dedup, circularity flag and train/test split (spec ``synthkgqa.md`` §3.4,
§3.5; seed synthkgqa-gtsqa.txt §4, App. B). The paper's split script is unpublished: this
is a reconstruction, and the choices where the spec is silent are listed below.

**Dedup** (:func:`dedup`, §3.4): one item per (seed set, answer node, G as a set of
triples), the item with the lowest ``id`` kept. Entities and relations are compared by the
id in the trailing parentheses of a ``"label (ID)"`` string (a relabelled QID is the same
entity), else by the whole value. Ids are ordered numerically when they are integers or
digit strings, else "naturally" (digit runs as numbers: ``q9`` < ``q10``); numeric ids sort
before the others.

**Circular** (:func:`circular`, §3.4): the question contains the answer node's label (case
folded, as a whole word: not preceded or followed by a letter, digit or underscore) at a
place not covered by an occurrence of a seed label. ``paraphrased_question`` is checked too
when it is a string. Circular items are flagged (listed in the split report), not dropped.

**Split** (:func:`assign_splits`, §3.5), over the items given (deduplicate first):

1. Relations are ranked by their number of occurrences over all GT triples
   (``answer_subgraph``) of all items, ties broken by the relation id in natural order
   (``P17`` < ``P131``). The top ``n_train_relations`` (paper: 200 of 368) may occur in
   train; the rest are test-only. ``train_relation_share`` (a fraction in [0, 1]; the
   paper's share is 200/368 ≈ 0.543) overrides it with share · #relations rounded half up, so
   the rule scales to small item sets; a count above the number of relations keeps every
   relation in train.
2. An item whose type (``graph_isomorphism``, canonical spelling) is held out is
   ``unseen_graph_type``; an item with a test-only relation is ``unseen_relation_type``;
   ``test_type`` lists both when both apply (in that order). Such an item goes to test
   when it is not ``redundant``. A redundant one cannot go to test (test is minimal items
   only) and must not go to train (its type or relation would leak), so it is **dropped**
   (logged as ``redundant_unseen_graph_type`` when its type is held out, else as
   ``redundant_unseen_relation_type``).
3. Of the remaining non-redundant items of each ``in_distribution_types`` type,
   ``in_distribution_per_type`` are drawn (``random.Random(seed).sample`` over the items
   sorted by id, types in the order given) as ``in_distribution`` test items; fewer when
   fewer exist (the report gives the pool sizes). Everything else is a train candidate
   (redundant items of the in-distribution types included, as in the spec's example).
4. No test answer is a train answer: a train candidate whose answers (every
   ``all_answers*`` field and the answer node) meet the answers of any test item is
   **dropped**, not moved to test: moving would grow the in-distribution categories past
   their quota, could bring in redundant items or types outside the listed ones, and its
   answers could in turn exclude further train items. The test split is fixed first.
5. Cells: the applicable (type, category) cells are (t, ``in_distribution``) for the
   in-distribution types, (t, ``unseen_graph_type``) for the held-out types and
   (t, ``unseen_relation_type``) for every type of the input that is not held out. A test
   item counts in each applicable cell of its categories, so an item that is both
   ``unseen_graph_type`` and ``unseen_relation_type`` counts as ``unseen_graph_type`` (the
   paper's tables do the same). Cells with fewer than ``min_cell`` items are reported,
   not enforced.

The result does not depend on the input order: decisions are taken over the items sorted
by id, and the items are returned in the input order (dropped ones left out) as copies
with ``test_type`` set (``["training"]`` for train). The paper's last filter (an LLM must
answer each test question from G) is not applied here.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgbench.errors import InputError
from kgbench.generate.synth.records import (
    answer_ids,
    entity_id,
    entity_label,
    gt_triples,
    isomorphism_field,
    item_where,
    list_field,
    redundant_field,
    required_field,
)

__all__ = [
    "HELD_OUT_TYPES",
    "IN_DISTRIBUTION",
    "IN_DISTRIBUTION_TYPES",
    "TRAINING",
    "UNSEEN_GRAPH_TYPE",
    "UNSEEN_RELATION_TYPE",
    "assign_splits",
    "circular",
    "dedup",
    "dedup_key",
]

TRAINING = "training"
IN_DISTRIBUTION = "in_distribution"
UNSEEN_GRAPH_TYPE = "unseen_graph_type"
UNSEEN_RELATION_TYPE = "unseen_relation_type"

#: The 8 isomorphism types held out of train (spec §3.5).
HELD_OUT_TYPES: tuple[str, ...] = (
    "((1)(1))",
    "(2)(2)",
    "(3)(1)",
    "((2)(1))",
    "((1)(1))(1)",
    "(2(1)(1))",
    "(4)",
    "(1)(1)(1)(1)",
)
#: The types sampled into the in-distribution test category (spec §3.5).
IN_DISTRIBUTION_TYPES: tuple[str, ...] = ("(1)", "(2)", "(1)(1)", "(2)(1)", "(3)", "(1)(1)(1)")

#: Drop reasons of the split report, in reporting order.
DROP_REASONS = (
    "redundant_unseen_graph_type",
    "redundant_unseen_relation_type",
    "answer_in_test",
)

_DIGITS = re.compile(r"(\d+)")


def _natural(text: str) -> tuple[Any, ...]:
    """Natural sort key: digit runs compare as numbers."""
    parts = _DIGITS.split(text)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


def _id_order(value: Any) -> tuple[Any, ...]:
    """Sort key of an item id (module docstring)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (0, value, "")
    text = str(value)
    if text.isdigit():
        return (0, int(text), text)
    return (1, _natural(text), text)


def dedup_key(item: Mapping[str, Any]) -> Hashable:
    """(seed set, answer node, G as a set of triples), by ids (module docstring)."""
    where = item_where(item)
    return (
        frozenset(entity_id(s) for s in list_field(where, item, "seed_entities")),
        entity_id(required_field(where, item, "answer_node")),
        frozenset(gt_triples(where, item)),
    )


def dedup(items: Iterable[Mapping[str, Any]]) -> tuple[list[Any], list[Any]]:
    """One item per :func:`dedup_key`, the lowest id kept (spec §3.4). Returns (kept items
    in the input order, ids of the dropped items in the input order). Items with equal key
    and equal id keep the first.

    Raises:
        InputError: an item lacks ``id``, ``seed_entities``, ``answer_node`` or
            ``answer_subgraph``, or has one of the wrong type.
    """
    items = list(items)
    best: dict[Hashable, int] = {}
    for i, item in enumerate(items):
        ident = required_field(item_where(item), item, "id")
        k = dedup_key(item)
        j = best.get(k)
        if j is None or _id_order(ident) < _id_order(items[j]["id"]):
            best[k] = i
    keep = set(best.values())
    kept = [item for i, item in enumerate(items) if i in keep]
    dropped = [item["id"] for i, item in enumerate(items) if i not in keep]
    return kept, dropped


def circular(item: Mapping[str, Any]) -> bool:
    """Whether the question names the answer outside any seed label (spec §3.4; module
    docstring)."""
    answer = entity_label(item.get("answer_node", "")).casefold()
    if not answer.strip():
        return False
    seeds = {entity_label(s).casefold() for s in item.get("seed_entities") or []}
    seeds.discard("")
    word = re.compile(rf"(?<!\w){re.escape(answer)}(?!\w)")
    for name in ("question", "paraphrased_question"):
        text = item.get(name)
        if not isinstance(text, str):
            continue
        text = text.casefold()
        covered = [span for s in seeds for span in _starts(s, text)]
        for m in word.finditer(text):
            if not any(a <= m.start() and m.end() <= b for a, b in covered):
                return True
    return False


def _starts(needle: str, text: str) -> list[tuple[int, int]]:
    """Every (possibly overlapping) occurrence of ``needle`` in ``text``."""
    out = []
    i = text.find(needle)
    while i >= 0:
        out.append((i, i + len(needle)))
        i = text.find(needle, i + 1)
    return out


@dataclass
class _Info:
    index: int
    id: Any
    order: tuple[Any, ...]
    type: str
    redundant: bool
    relations: frozenset[str]
    answers: frozenset[str]


def _canonical_types(types: Iterable[str], what: str) -> list[str]:
    from kgbench.iso import InvalidIsomorphismType, canonical_isomorphism_type

    out: list[str] = []
    for t in types:
        try:
            c = canonical_isomorphism_type(t)
        except InvalidIsomorphismType as exc:
            raise InputError(f"{what}: {exc}") from exc
        if c not in out:
            out.append(c)
    return out


def _info(index: int, item: Mapping[str, Any]) -> _Info:
    where = item_where(item)
    ident = required_field(where, item, "id")
    return _Info(
        index=index,
        id=ident,
        order=_id_order(ident),
        type=isomorphism_field(where, item),
        redundant=redundant_field(where, item),
        relations=frozenset(r for _h, r, _t in gt_triples(where, item)),
        answers=answer_ids(where, item),
    )


def assign_splits(
    items: Iterable[Mapping[str, Any]],
    *,
    seed: int,
    n_train_relations: int = 200,
    train_relation_share: float | None = None,
    held_out_types: Sequence[str] = HELD_OUT_TYPES,
    in_distribution_per_type: int = 50,
    in_distribution_types: Sequence[str] = IN_DISTRIBUTION_TYPES,
    min_cell: int = 45,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The train/test split of spec §3.5 (module docstring). Returns (the kept items in
    the input order, copies with ``test_type`` set; a report).

    The report (JSON-ready): ``seed``; ``parameters`` (``n_train_relations`` is the count
    used); ``counts`` (``items`` given, ``train``, ``test``, ``dropped``,
    ``test_categories``: items listing each category, ``test_categories_table``: ugt+urt
    counted as ugt, ``unseen_graph_and_relation_type``); ``relations`` (``total``,
    ``train`` and ``test_only`` in rank order, ``frequency`` per relation);
    ``in_distribution`` (per type: ``pool`` of eligible items and ``chosen``); ``dropped``
    (ids per reason: ``redundant_unseen_graph_type``, ``redundant_unseen_relation_type``,
    ``answer_in_test``); ``cells`` and ``cells_under_min_cell`` ([{type, category,
    count}]); ``circular`` (ids of kept items flagged by :func:`circular`, by id). Every
    id list is in id order.

    Raises:
        InputError: a bad parameter (negative count, share outside [0, 1], malformed or
            overlapping type lists), duplicate item ids, or an item lacking a field.
    """
    if n_train_relations < 0 or in_distribution_per_type < 0 or min_cell < 0:
        raise InputError(
            "n_train_relations, in_distribution_per_type and min_cell must be non-negative"
        )
    if train_relation_share is not None and not 0.0 <= train_relation_share <= 1.0:
        raise InputError(f"train_relation_share must be in [0, 1], got {train_relation_share}")
    held = _canonical_types(held_out_types, "held_out_types")
    id_types = _canonical_types(in_distribution_types, "in_distribution_types")
    overlap = sorted(set(held) & set(id_types))
    if overlap:
        raise InputError(f"types both held out and in-distribution: {', '.join(overlap)}")

    records = list(items)
    infos = sorted((_info(i, it) for i, it in enumerate(records)), key=lambda x: x.order)
    seen: set[tuple[Any, ...]] = set()
    for info in infos:
        if info.order in seen:
            raise InputError(f"duplicate item id {info.id!r} (ids must be unique)")
        seen.add(info.order)

    # 1. relations
    frequency: Counter[str] = Counter()
    for it in records:
        frequency.update(r for _h, r, _t in gt_triples(item_where(it), it))
    ranked = sorted(frequency, key=lambda r: (-frequency[r], _natural(r), r))
    if train_relation_share is None:
        n_train = min(n_train_relations, len(ranked))
    else:
        n_train = min(int(train_relation_share * len(ranked) + 0.5), len(ranked))
    test_only = set(ranked[n_train:])

    # 2.-3. categories, drops, in-distribution pools
    categories: dict[int, list[str]] = {}
    dropped: dict[str, list[Any]] = {r: [] for r in DROP_REASONS}
    pools: dict[str, list[_Info]] = {t: [] for t in id_types}
    train: list[_Info] = []
    held_set = set(held)
    for info in infos:
        cats = []
        if info.type in held_set:
            cats.append(UNSEEN_GRAPH_TYPE)
        if info.relations & test_only:
            cats.append(UNSEEN_RELATION_TYPE)
        if cats:
            if info.redundant:
                dropped[f"redundant_{cats[0]}"].append(info.id)
            else:
                categories[info.index] = cats
        elif not info.redundant and info.type in pools:
            pools[info.type].append(info)
        else:
            train.append(info)
    rng = random.Random(seed)
    in_distribution: dict[str, dict[str, int]] = {}
    for t in id_types:
        pool = pools[t]
        chosen = rng.sample(pool, min(in_distribution_per_type, len(pool)))
        chosen_ids = {c.index for c in chosen}
        for info in pool:
            if info.index in chosen_ids:
                categories[info.index] = [IN_DISTRIBUTION]
            else:
                train.append(info)
        in_distribution[t] = {"pool": len(pool), "chosen": len(chosen)}

    # 4. no test answer is a train answer
    by_index = {info.index: info for info in infos}
    test_answers: set[str] = set()
    for index in categories:
        test_answers |= by_index[index].answers
    train_kept: set[int] = set()
    for info in sorted(train, key=lambda x: x.order):
        if info.answers & test_answers:
            dropped["answer_in_test"].append(info.id)
        else:
            train_kept.add(info.index)

    out: list[dict[str, Any]] = []
    for i, it in enumerate(records):
        if i in categories:
            out.append({**it, "test_type": list(categories[i])})
        elif i in train_kept:
            out.append({**it, "test_type": [TRAINING]})

    # 5. cells
    input_types = sorted({info.type for info in infos}, key=lambda t: (len(t), t))
    applicable: list[tuple[str, str]] = [(t, IN_DISTRIBUTION) for t in id_types]
    applicable += [(t, UNSEEN_GRAPH_TYPE) for t in held]
    applicable += [(t, UNSEEN_RELATION_TYPE) for t in input_types if t not in held_set]
    cell_counts = Counter((by_index[i].type, c) for i, cats in categories.items() for c in cats)
    cells: list[dict[str, Any]] = [
        {"type": t, "category": c, "count": cell_counts[(t, c)]} for t, c in applicable
    ]
    per_category = Counter(c for cats in categories.values() for c in cats)
    table = Counter(
        UNSEEN_GRAPH_TYPE if UNSEEN_GRAPH_TYPE in cats else cats[0] for cats in categories.values()
    )
    test_categories = (IN_DISTRIBUTION, UNSEEN_RELATION_TYPE, UNSEEN_GRAPH_TYPE)
    report: dict[str, Any] = {
        "seed": seed,
        "parameters": {
            "n_train_relations": n_train,
            "n_train_relations_requested": n_train_relations,
            "train_relation_share": train_relation_share,
            "held_out_types": held,
            "in_distribution_types": id_types,
            "in_distribution_per_type": in_distribution_per_type,
            "min_cell": min_cell,
        },
        "counts": {
            "items": len(records),
            "train": len(train_kept),
            "test": len(categories),
            "dropped": sum(len(v) for v in dropped.values()),
            "test_categories": {c: per_category[c] for c in test_categories},
            "test_categories_table": {c: table[c] for c in test_categories},
            "unseen_graph_and_relation_type": sum(
                1 for cats in categories.values() if len(cats) == 2
            ),
        },
        "relations": {
            "total": len(ranked),
            "train": ranked[:n_train],
            "test_only": ranked[n_train:],
            "frequency": {r: frequency[r] for r in ranked},
        },
        "in_distribution": in_distribution,
        "dropped": dropped,
        "cells": cells,
        "cells_under_min_cell": [c for c in cells if c["count"] < min_cell],
        "circular": [
            i.id
            for i in infos
            if (i.index in categories or i.index in train_kept) and circular(records[i.index])
        ],
    }
    return out, report
