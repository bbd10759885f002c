"""Result comparison: execution accuracy (EX) of query results, one pair, a batch, or two
JSONL files (SPEC.md §4; seed cypherbench.txt §5.1 and Appendix B.7).

Value model (SPEC.md §4, CypherBench ``to_hashable``): a cell is ``None``, ``bool``,
``int``, ``float``, ``str``, a date/time (``neo4j.time`` values via ``iso_format()``,
``datetime`` values via ``isoformat()``: compared as their ISO strings), a list
(``list``/``tuple``/``set``; element order ignored, at any depth) or a ``dict`` with string
keys (key order ignored) — nested freely.

Float policy: equality is exact by default, as in the reference: ``1 == 1.0``,
``-0.0 == 0``, but ``2**53 + 1 != 2.0**53``; floats are never rounded. An optional
``rel_tol`` (every EX function, ``kgbench score --rel-tol``) treats two numbers as equal when
``|a - b| <= rel_tol * max(|a|, |b|)`` (``math.isclose`` with ``abs_tol=0``); strings,
booleans and nulls stay exact, lists are compared element-wise after sorting (numbers by
value), and — closeness not being transitive — rows and columns are paired by bipartite
matching instead of hashing (worst case ``O(k! · n² · k)``: for small tables). Deliberate
differences from CypherBench, each making the verdict exact where the reference's is
accidental:

* the reference pre-rejects with each row's values sorted by ``str(v) + str(type(v))``; with
  ints and floats of equal value beside other values (``(1, 1.5)`` vs ``(1.0, 1.5)``) the
  orders differ and equal tables are called different. kgbench calls them equal;
* booleans are not numbers (the reference inherits Python's ``True == 1``; Cypher's
  ``true = 1`` is false);
* a map never equals a list (the reference turns ``{"a": "b"}`` and ``[["a", "b"]]`` into the
  same tuple);
* lists mixing types or holding several ``None`` are compared (the reference's ``sorted``
  raises ``TypeError`` there and the prediction scores 0);
* NaN equals NaN (two NaN results are never equal in the reference);
* column permutations are searched exactly and deterministically (the reference samples 20
  random rows to prune them when there are more than 3 columns: sound, but its run time
  varies). The search and its worst case are described in ``rust/kgbench-core/src/evaluate/ex.rs``:
  at most ``e·k!`` partial assignments for ``k`` columns, each ``O(n log n)`` for ``n`` rows,
  reached only by adversarial tables whose columns share one value multiset.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy is imported on first use: `kgbench score` starts faster
    import numpy as np

from kgbench._core import evaluate as _core

__all__ = [
    "ScoreResult",
    "canonical_key",
    "execution_accuracy",
    "execution_accuracy_batch",
    "order_matters",
    "score_files",
    "set_equal",
    "soft_f1",
    "values_equal",
]


def canonical_key(value: Any) -> bytes:
    """Return the canonical key of one result value: two values are equal under SPEC.md §4
    iff their keys are equal bytes (see the module docstring for the value model).

    Raises ``TypeError`` for values outside the model (e.g. ``neo4j.graph.Node``, paths),
    which the reference also cannot hash (it scores such predictions 0).
    """
    return _core.canonical_key(value)


def values_equal(a: Any, b: Any) -> bool:
    """True iff two result values are equal under SPEC.md §4 (``1 == 1.0``, lists unordered,
    maps by key). Raises ``TypeError`` like :func:`canonical_key`."""
    return _core.canonical_key(a) == _core.canonical_key(b)


def order_matters(gold_cypher: str) -> bool:
    """Whether row order counts for EX: ``'order by' in gold_cypher.lower()``, exactly as
    CypherBench decides it (SPEC.md §4; a plain substring test, so ``order by`` inside a
    string literal also counts)."""
    return _core.order_matters(gold_cypher)


#: The reasons :func:`uninformative_reason` gives, in the order its rules are tried.
UNINFORMATIVE_REASONS = ("empty", "all_null", "single_zero", "single_false", "single_empty_list")


def uninformative_reason(gold_rows: Iterable[Any]) -> str | None:
    """Why a gold result cannot tell a right prediction from many wrong ones on its graph, or
    ``None`` when it can (``shared/spec/test-suite.md``, "Uninformative tasks"; metrics.md §1).

    ``gold_rows``: rows as for :func:`execution_accuracy`. First rule that holds: no row ->
    ``"empty"``; every cell null -> ``"all_null"``; one row of one cell equal to 0 (``0``,
    ``0.0``, ``-0.0``) -> ``"single_zero"``; ``false`` -> ``"single_false"``; an empty list ->
    ``"single_empty_list"``. Decided in Rust on the canonical cell keys
    (``kgbench_core::evaluate::informative``).

    Raises the errors of :func:`execution_accuracy` for rows it cannot read.
    """
    return _core.uninformative_reason(gold_rows)


def execution_accuracy(
    gold_rows: Iterable[Any],
    pred_rows: Iterable[Any],
    order_matters: bool,
    *,
    rel_tol: float | None = None,
) -> float:
    """Execution accuracy of one pair of query results: 1.0 if equal, else 0.0 (SPEC.md §4).

    ``gold_rows`` / ``pred_rows``: sequences of rows, each a list/tuple of values, or a dict
    (record: column name -> value; every record of a table must have the same keys; column
    order is irrelevant since any column permutation is allowed). Rules: both empty -> 1;
    exactly one empty -> 0; different row or column counts -> 0; otherwise 1 iff some
    column permutation makes the bags of rows equal (duplicates count), or the row
    sequences equal when ``order_matters`` (use :func:`order_matters` on the gold query).
    Identical query strings scoring 1 without execution is the caller's rule. ``rel_tol``:
    optional relative tolerance on numbers (module docstring); ``None`` compares exactly.

    Raises ``kgbench.errors.InputError`` for rows of unequal width, records with different
    keys, a negative ``rel_tol``, or tables whose column-bijection search stops at its
    bound without a verdict (metrics.md §1); ``ValueError`` for a list or dict nested
    deeper than 256 levels and ``TypeError`` for a value outside the model (each message
    names row and column).
    """
    return _core.execution_accuracy(gold_rows, pred_rows, bool(order_matters), rel_tol)


def execution_accuracy_batch(
    gold_tables: Sequence[Iterable[Any]],
    pred_tables: Sequence[Iterable[Any]],
    order_matters: bool | Sequence[bool],
    *,
    rel_tol: float | None = None,
) -> np.ndarray:
    """EX of many table pairs, compared in parallel (Rust, rayon; GIL released).

    ``gold_tables[i]`` / ``pred_tables[i]`` are row sequences as for
    :func:`execution_accuracy`; ``order_matters`` is one bool for all pairs or one per pair;
    ``rel_tol`` as for :func:`execution_accuracy`.
    Returns a ``float64`` array of shape ``(len(gold_tables),)`` with values 0.0 or 1.0, or
    NaN for a pair the column-bijection search could not decide within its bound
    (metrics.md §1; :func:`execution_accuracy` raises ``InputError`` for it instead).

    Raises ``kgbench.errors.InputError`` when the sequences differ in length or a table is
    ragged (message names the table index), ``TypeError`` for unsupported values;
    ``KeyboardInterrupt`` promptly on Ctrl-C during the comparisons (as
    :func:`execution_accuracy` does for tables of more than 10,000 cells).
    """
    if not isinstance(order_matters, bool):
        order_matters = [bool(x) for x in order_matters]
    raw = _core.execution_accuracy_batch(gold_tables, pred_tables, order_matters, rel_tol)
    import numpy as np

    return np.frombuffer(raw, dtype="<f8").copy()


@dataclass(frozen=True)
class ScoreResult:
    """Outcome of :func:`score_files`.

    ``ex``: ``float64`` array, one EX per gold line in gold-file order. ``summary``: counts
    ``n_gold``, ``n_pred``, ``n_match``, ``n_mismatch``, ``n_identical_query``,
    ``n_missing`` (no prediction; scored 0), ``n_pred_error`` (prediction carries an
    ``error``; 0), ``n_gold_error`` (gold carries an ``error``; 0), ``n_undecided`` (the
    column-bijection search stopped at its bound, metrics.md §1; 0), ``n_extra_pred``
    (predictions whose qid is not in the gold file; not scored), ``ex`` (mean EX),
    ``n_informative`` (gold lines without an error whose result is informative, metrics.md
    §1), ``n_uninformative`` (``{reason: count}`` of the others without an error, only the
    reasons that occur) and ``ex_informative`` (mean EX over the ``n_informative`` lines; 0
    when there are none).
    """

    summary: dict[str, Any]
    ex: np.ndarray


def score_files(
    gold: str | os.PathLike[str],
    pred: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    rel_tol: float | None = None,
) -> ScoreResult:
    """EX of every gold result line against the prediction with the same qid (the
    ``kgbench score`` command). Parsed and compared in Rust, in parallel, without Python
    objects per value.

    Line format (JSONL, one object per line, blank lines skipped)::

        {"qid": str|int, "columns": [str]?, "rows": [[v, ...]] | [{col: v}], "error": any?}

    Gold lines may add ``"order_matters": bool`` or ``"gold_cypher": str`` (order matters
    iff it contains ``order by``; with neither, rows are unordered); prediction lines may
    add ``"pred_cypher": str`` — a prediction whose query string equals ``gold_cypher``
    scores 1 without comparison, as in CypherBench. Unknown fields are ignored. ``out``:
    optional JSONL written in gold order, ``{"qid", "ex", "status"}`` with status one of
    ``match``, ``mismatch``, ``identical_query``, ``missing``, ``pred_error``,
    ``gold_error``, ``undecided``, plus ``"uninformative": reason`` when the gold result is
    uninformative (:func:`uninformative_reason`). ``rel_tol``: optional relative tolerance
    on numbers (module docstring).

    Gold lines are parsed and compared with their predictions chunk by chunk, in parallel
    and cache-friendly: predictions in the same order are paired by line, others by qid
    (for lines whose first member is ``"qid"``, the shape ``json.dumps`` writes); anything
    else, and every error, takes the general path, which parses both files whole.

    Raises ``kgbench.errors.InputError`` naming the file and line for malformed JSON, a
    missing ``qid``/``rows``, rows of unequal width (or not matching ``columns``) and
    duplicate qids; ``OSError`` for unreadable or unwritable files.
    """
    summary, raw = _core.score_files(
        os.fspath(gold), os.fspath(pred), None if out is None else os.fspath(out), rel_tol
    )
    import numpy as np

    return ScoreResult(summary=dict(summary), ex=np.frombuffer(raw, dtype="<f8").copy())


def _row_keys(rows: Iterable[Any]) -> list[tuple[bytes, ...]]:
    """Each row as the tuple of its cells' canonical keys (a dict row: its values in order)."""
    out = []
    for row in rows:
        cells = row.values() if isinstance(row, dict) else row
        out.append(tuple(_core.canonical_key(v) for v in cells))
    return out


def soft_f1(gold_rows: Iterable[Any], pred_rows: Iterable[Any]) -> float:
    """BIRD Mini-Dev's Soft-F1 of one pair of results, in 0..1 (``calculate_f1_score`` of
    ``evaluation/evaluation_f1.py`` in bird-bench/mini_dev at 4d970a9a; metrics.md, "Soft-F1").

    ``gold_rows`` / ``pred_rows``: rows as for :func:`execution_accuracy`; cells are compared
    by their canonical keys (:func:`canonical_key`: ``1 == 1.0``, ``None == None``, booleans
    are not numbers). The arithmetic is BIRD's: both results empty -> 1; duplicate rows
    dropped, the first occurrence kept; rows paired by position; for the pair ``(p, g)``,
    ``matched`` = cells of ``p`` found in ``g``, ``pred_only`` = cells of ``p`` not in ``g``,
    ``gold_only`` = cells of ``g`` not in ``p`` (column order free, each a count divided by
    the width of ``g``); a gold row without a partner adds ``gold_only`` 1, a predicted row
    without one ``pred_only`` 1; ``tp, fp, fn`` are the sums, ``P = tp / (tp + fp)``, ``R =
    tp / (tp + fn)`` (0 on a zero denominator) and ``F1 = 2PR / (P + R)`` (0 when ``P + R``
    is 0). A gold row of no column (BIRD divides by zero, its run scores the task 0) -> 0.
    BIRD's README example (gold ``('Apple', 325), ('Orange', NULL), ('Banana', 119)``,
    prediction ``(325, 'Apple'), (191, 'Orange'), (NULL, 'Banana')``) gives 2/3 here, as in
    BIRD's code; the README's table says 0.8 (it does not count the NULLs).

    Pure Python over the Rust canonical keys (EX itself is in Rust): the per-row loops are
    BIRD's and cost ``O(rows * width^2)``.

    Raises:
        TypeError: a value outside the value model (:func:`canonical_key`).
    """
    gold = list(dict.fromkeys(_row_keys(gold_rows)))
    pred = list(dict.fromkeys(_row_keys(pred_rows)))
    if not gold and not pred:
        return 1.0
    tp = fp = fn = 0.0
    for i, g in enumerate(gold):
        if i >= len(pred):
            fn += 1
            continue
        p = pred[i]
        width = len(g)
        if width == 0:
            return 0.0
        matched = sum(1 for v in p if v in g)
        tp += matched / width
        fp += (len(p) - matched) / width
        fn += sum(1 for v in g if v not in p) / width
    fp += max(0, len(pred) - len(gold))
    precision = tp / (tp + fp) if tp + fp > 0 else 0.0
    recall = tp / (tp + fn) if tp + fn > 0 else 0.0
    if precision + recall <= 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def set_equal(gold_rows: Iterable[Any], pred_rows: Iterable[Any]) -> bool:
    """BIRD's execution test, ``set(predicted_res) == set(ground_truth_res)``: the sets of
    rows are equal, each row a tuple of canonical cell keys (:func:`canonical_key`), so
    column order counts and duplicates and row order do not. The gate of the VES metrics
    (metrics.md, "VES").

    Raises:
        TypeError: a value outside the value model (:func:`canonical_key`).
    """
    return set(_row_keys(gold_rows)) == set(_row_keys(pred_rows))
