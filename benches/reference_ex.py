"""A straightforward pure-Python port of CypherBench's execution-accuracy comparison
(``cypherbench/metrics/execution_accuracy.py``, itself adapted from the Spider test-suite
``result_eq``), written from its description for tests and the score benchmark.

Algorithm, as in the reference:

1. every cell goes through ``to_hashable``: lists -> tuples of sorted hashable elements,
   dicts -> tuples of sorted ``(key, value)`` pairs, dates -> ISO strings, scalars as is
   (Python equality: ``1 == 1.0`` and also ``True == 1``);
2. both empty -> equal; one empty, different row counts or column counts -> different;
3. quick rejection: each row's values sorted by ``str(v) + str(type(v))``; the sequences
   (ordered) or sets (unordered) of those sorted rows must be equal;
4. column permutations are enumerated; one making the row sequences (ordered) or the row
   bags (unordered) equal makes the tables equal.

Difference from the reference: step 4 enumerates *all* permutations instead of pruning them
with 20 randomly sampled rows when there are more than 3 columns. The pruning only drops
permutations that cannot succeed (a sampled predicted value absent from the candidate gold
column), so the verdict is the same; only the run time differs.

``result_eq(..., quick_reject=False)`` skips step 3: that is the reference without its
str-sort pre-rejection, which kgbench matches exactly on the reference's own domain.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any


def to_hashable(obj: Any) -> Any:
    """The reference's cell canonicalisation (raises ``TypeError`` where it does, e.g.
    when ``sorted`` meets values of incomparable types)."""
    if isinstance(obj, (tuple, int, float, str, bool, type(None))):
        return obj
    if hasattr(obj, "iso_format"):  # neo4j.time.Date
        return obj.iso_format()
    if isinstance(obj, list):
        return tuple(sorted(to_hashable(x) for x in obj))
    if isinstance(obj, set):
        return tuple(sorted(to_hashable(x) for x in obj))
    if isinstance(obj, dict):
        return tuple(sorted((to_hashable(k), to_hashable(v)) for k, v in obj.items()))
    raise TypeError(f"Unhashable type: {type(obj)}")


def _unorder_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(sorted(row, key=lambda v: str(v) + str(type(v))))


def _quick_reject_passes(
    t1: list[tuple[Any, ...]], t2: list[tuple[Any, ...]], ordered: bool
) -> bool:
    s1 = [_unorder_row(r) for r in t1]
    s2 = [_unorder_row(r) for r in t2]
    if ordered:
        return s1 == s2
    return set(s1) == set(s2)


def _bag_equal(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> bool:
    return len(a) == len(b) and Counter(a) == Counter(b)


def result_eq(
    t1: list[tuple[Any, ...]],
    t2: list[tuple[Any, ...]],
    order_matters: bool,
    *,
    quick_reject: bool = True,
) -> bool:
    """Whether two tables of hashable tuples are equal (reference ``result_eq``)."""
    if not t1 and not t2:
        return True
    if len(t1) != len(t2):
        return False
    k = len(t1[0])
    if len(t2[0]) != k:
        return False
    if quick_reject and not _quick_reject_passes(t1, t2, order_matters):
        return False
    for perm in itertools.permutations(range(k)):
        t2p = [tuple(row[i] for i in perm) for row in t2]
        if order_matters:
            if t1 == t2p:
                return True
        elif set(t1) == set(t2p) and _bag_equal(t1, t2p):
            return True
    return False


def _distinct_bools(obj: Any) -> Any:
    """Booleans as tagged strings, so that ``True != 1`` (kgbench's rule) in the port."""
    if isinstance(obj, bool):
        return f"\x00bool:{obj}"
    if isinstance(obj, list):
        return [_distinct_bools(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _distinct_bools(v) for k, v in obj.items()}
    return obj


def _to_tuples(rows: list[Any], bools_are_numbers: bool) -> list[tuple[Any, ...]]:
    conv = to_hashable if bools_are_numbers else (lambda v: to_hashable(_distinct_bools(v)))
    if rows and isinstance(rows[0], dict):
        keys = list(rows[0].keys())
        return [tuple(conv(r[key]) for key in keys) for r in rows]
    return [tuple(conv(v) for v in r) for r in rows]


def execution_accuracy(
    gold_rows: list[Any],
    pred_rows: list[Any],
    order_matters: bool,
    *,
    quick_reject: bool = True,
    bools_are_numbers: bool = True,
) -> float:
    """Reference EX of two row lists (rows: sequences or dicts). A prediction whose values
    cannot be made hashable scores 0, as in the reference; a gold one raises.
    ``bools_are_numbers=False`` applies kgbench's rule ``True != 1`` (for comparisons)."""
    if not gold_rows and not pred_rows:
        return 1.0
    if not gold_rows or not pred_rows:
        return 0.0
    gold = _to_tuples(gold_rows, bools_are_numbers)
    try:
        pred = _to_tuples(pred_rows, bools_are_numbers)
    except TypeError:
        return 0.0
    return float(result_eq(gold, pred, order_matters, quick_reject=quick_reject))


def order_matters(gold_cypher: str) -> bool:
    """The reference's rule: ``'order by' in gold_cypher.lower()``."""
    return "order by" in gold_cypher.lower()
