"""Dataset statistics of GTSQA-format item files: the seed's Table 1 (spec ``synthkgqa.md``
§2 record names, §5 Table 1), overall and per split.

Per split (train: ``test_type == ["training"]``; test: any other ``test_type``) and for
all items:

- ``questions``: items;
- ``relations``: distinct relations of the ground-truth (GT) triples ``answer_subgraph``;
- ``entities``: distinct nodes (heads and tails) of the GT triples;
- ``isomorphism_types``: distinct ``graph_isomorphism`` values, compared in canonical
  spelling (``(1)(2)`` and ``(2)(1)`` are one type);
- ``non_minimal``: items with ``redundant`` true;
- means of ``len(seed_entities)``, ``n_hops``, ``len(all_answers_<kg>)`` and
  ``len(answer_subgraph)`` (GT edges); ``None`` for an empty split.

Relations and entities are keyed by the id in the trailing parentheses of a
``"label (ID)"`` string (so a relabelled QID counts once), else by the whole value
(property-graph eids and relation labels). The paper's notebook hard-codes its relation and
entity counts; these are kgbench's definitions. Test items are also counted by category as
the paper's tables do: an item that is both ``unseen_graph_type`` and
``unseen_relation_type`` counts as ``unseen_graph_type``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.generate.synth.records import (
    answers_name,
    gt_triples,
    isomorphism_field,
    list_field,
    redundant_field,
)

__all__ = [
    "TEST_CATEGORIES",
    "ItemStats",
    "SplitStats",
    "format_item_stats",
    "item_stats",
    "item_stats_of_records",
]

#: ``test_type`` values of test items, in reporting order (spec synthkgqa.md §2, §3.5).
TEST_CATEGORIES = ("in_distribution", "unseen_relation_type", "unseen_graph_type")
#: ``test_type`` of a train item.
TRAINING = "training"


@dataclass(frozen=True)
class SplitStats:
    """Table 1 statistics of one split (module docstring)."""

    questions: int
    relations: int
    entities: int
    isomorphism_types: int
    non_minimal: int
    mean_seeds: float | None
    mean_hops: float | None
    mean_answers: float | None
    mean_gt_edges: float | None


@dataclass(frozen=True)
class ItemStats:
    """Table 1 statistics of an item file: ``train``, ``test`` and ``all`` splits, and
    ``test_categories`` (test items per category, ugt+urt counted as ugt)."""

    train: SplitStats
    test: SplitStats
    all: SplitStats
    test_categories: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the ``--json`` output of ``kgbench synth stats``)."""
        return {
            "train": asdict(self.train),
            "test": asdict(self.test),
            "all": asdict(self.all),
            "test_categories": dict(self.test_categories),
        }


class _Acc:
    """Running totals of one split."""

    def __init__(self) -> None:
        self.n = 0
        self.relations: set[Any] = set()
        self.entities: set[Any] = set()
        self.types: set[str] = set()
        self.non_minimal = 0
        self.seeds = 0
        self.hops = 0
        self.answers = 0
        self.edges = 0

    def add(self, item: _Item) -> None:
        self.n += 1
        self.relations.update(item.relations)
        self.entities.update(item.entities)
        self.types.add(item.type)
        self.non_minimal += item.redundant
        self.seeds += item.n_seeds
        self.hops += item.n_hops
        self.answers += item.n_answers
        self.edges += item.n_edges

    def result(self) -> SplitStats:
        def mean(total: int) -> float | None:
            return total / self.n if self.n else None

        return SplitStats(
            questions=self.n,
            relations=len(self.relations),
            entities=len(self.entities),
            isomorphism_types=len(self.types),
            non_minimal=self.non_minimal,
            mean_seeds=mean(self.seeds),
            mean_hops=mean(self.hops),
            mean_answers=mean(self.answers),
            mean_gt_edges=mean(self.edges),
        )


@dataclass(frozen=True)
class _Item:
    split: str
    category: str | None
    relations: list[Any]
    entities: list[Any]
    type: str
    redundant: bool
    n_seeds: int
    n_hops: int
    n_answers: int
    n_edges: int


def _item(where: str, record: Mapping[str, Any], kg: str | None) -> _Item:
    triples = gt_triples(where, record)
    seeds = list_field(where, record, "seed_entities")
    answers = list_field(where, record, answers_name(where, record, kg))
    hops = record.get("n_hops")
    if isinstance(hops, bool) or not isinstance(hops, int) or hops < 0:
        raise InputError(f"{where}: field 'n_hops' must be a non-negative integer, got {hops!r}")
    redundant = redundant_field(where, record)
    canonical = isomorphism_field(where, record)

    test_type = record.get("test_type")
    if isinstance(test_type, str):
        test_type = [test_type]
    if (
        not isinstance(test_type, list)
        or not test_type
        or not all(isinstance(t, str) for t in test_type)
    ):
        raise InputError(
            f"{where}: field 'test_type' must be a non-empty list of strings, got {test_type!r}"
        )
    unknown = sorted(set(test_type) - {TRAINING, *TEST_CATEGORIES})
    if unknown:
        raise InputError(
            f"{where}: unknown test_type {', '.join(map(repr, unknown))} (expected "
            f"{TRAINING!r} or {', '.join(map(repr, TEST_CATEGORIES))})"
        )
    if TRAINING in test_type:
        if len(test_type) > 1:
            raise InputError(f"{where}: test_type mixes 'training' with test categories")
        split, category = "train", None
    else:
        split = "test"
        category = next(c for c in reversed(TEST_CATEGORIES) if c in test_type)
    return _Item(
        split=split,
        category=category,
        relations=[r for _h, r, _t in triples],
        entities=[e for h, _r, t in triples for e in (h, t)],
        type=canonical,
        redundant=redundant,
        n_seeds=len(seeds),
        n_hops=hops,
        n_answers=len(answers),
        n_edges=len(triples),
    )


def item_stats_of_records(
    records: Iterable[tuple[str, Mapping[str, Any]]], *, kg: str | None = None
) -> ItemStats:
    """Table 1 statistics of ``(where, record)`` pairs (as
    :func:`kgbench.tasks.read_records` yields them; ``where`` prefixes error
    messages). ``kg`` selects the answers field ``all_answers_<kg>``; by default
    ``all_answers_wikidata``, else the record's only ``all_answers*`` field.

    Raises:
        InputError: a record lacks a field or has one of the wrong type; the message
            names the record.
    """
    accs = {"train": _Acc(), "test": _Acc(), "all": _Acc()}
    categories = dict.fromkeys(TEST_CATEGORIES, 0)
    for where, record in records:
        item = _item(where, record, kg)
        accs[item.split].add(item)
        accs["all"].add(item)
        if item.category is not None:
            categories[item.category] += 1
    return ItemStats(
        train=accs["train"].result(),
        test=accs["test"].result(),
        all=accs["all"].result(),
        test_categories=categories,
    )


def item_stats(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *, kg: str | None = None
) -> ItemStats:
    """Table 1 statistics of one or more GTSQA-format item files (JSON Lines or a JSON
    array; several files are pooled, e.g. a train and a test file). See
    :func:`item_stats_of_records` for ``kg``.

    Raises:
        InputError: unreadable file, invalid JSON, or a bad record; the message names the
            file and line.
    """
    from kgbench.tasks import read_records

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    records: list[tuple[str, dict[str, Any]]] = []
    for p in paths:
        records += read_records(Path(p))
    return item_stats_of_records(records, kg=kg)


#: Table rows: (label, SplitStats attribute, is a mean).
_ROWS = (
    ("questions", "questions", False),
    ("relations", "relations", False),
    ("entities", "entities", False),
    ("isomorphism types", "isomorphism_types", False),
    ("non-minimal (redundant)", "non_minimal", False),
    ("mean seeds", "mean_seeds", True),
    ("mean hops", "mean_hops", True),
    ("mean answers", "mean_answers", True),
    ("mean GT edges", "mean_gt_edges", True),
)


def format_item_stats(stats: ItemStats) -> str:
    """The statistics as a text table (rows of the seed's Table 1; columns train, test,
    all; means with 2 decimals, ``-`` for an empty split) and a line of test categories."""
    width = max(len(label) for label, _, _ in _ROWS)
    lines = [f"{'statistic':<{width}}  {'train':>9}  {'test':>9}  {'all':>9}"]
    for label, attr, is_mean in _ROWS:
        cells = []
        for split in (stats.train, stats.test, stats.all):
            v = getattr(split, attr)
            cells.append("-" if v is None else f"{v:.2f}" if is_mean else str(v))
        lines.append(f"{label:<{width}}  " + "  ".join(f"{c:>9}" for c in cells))
    cats = ", ".join(f"{c} {n}" for c, n in stats.test_categories.items())
    lines.append(f"test categories: {cats} (unseen_graph_type includes ugt+urt items)")
    return "\n".join(lines) + "\n"
