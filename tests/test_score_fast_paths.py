"""The fast paths of ``kgbench score`` (memory-mapped inputs, the register loop for plain
strings / short numbers / literals in array rows, short-string copies, maps already in key
order, the hashed EX path with packed row keys) give the verdicts of the general path: the
same tables compared from Python objects by ``execution_accuracy_batch``, which converts
values without the JSON reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgbench.evaluate import execution_accuracy_batch, score_files

# the hard cases: 1 vs 1.0, -0.0, integers beyond 2**53 and beyond i64, long decimals,
# escaped and non-ASCII strings (short and longer than 16 bytes), nested lists and maps
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, 2, -3, 2**53 + 1, 2**63 - 1, -(2**63), 2**63, 2**64 + 5, 10**20]),
    st.sampled_from([1.0, -0.0, 0.0, 2.5, 2.0**53, 1e300, 0.1, 123456789.123456, 1e-7]),
    st.sampled_from(
        [
            "",
            "a",
            "Ann",
            "2020-01-31",
            "exactly sixteen!",
            "seventeen bytes!!",
            'quote " and \\ backslash',
            "tab\tnew\nline",
            "é",
            "日本語のテキスト",
            "emoji \U0001f600",
            "\u0001 control",
        ]
    ),
)
cells = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(st.tuples(st.sampled_from(["a", "b", "n", "name", "é"]), inner), max_size=3),
    ),
    max_leaves=6,
)


def _cell_obj(c: Any) -> Any:
    """Tuples of (key, value) pairs stand for maps, possibly with repeated keys."""
    if isinstance(c, list) and c and all(isinstance(x, tuple) for x in c):
        return {k: _cell_obj(v) for k, v in c}
    if isinstance(c, list):
        return [_cell_obj(x) for x in c]
    return c


def _cell_json(c: Any, spaced: bool, ascii_only: bool) -> str:
    """JSON text of a cell; maps keep repeated keys (the last one wins on reading)."""
    sep = ", " if spaced else ","
    if isinstance(c, list) and c and all(isinstance(x, tuple) for x in c):
        colon = ": " if spaced else ":"
        items = (
            json.dumps(k, ensure_ascii=ascii_only) + colon + _cell_json(v, spaced, ascii_only)
            for k, v in c
        )
        return "{" + sep.join(items) + "}"
    if isinstance(c, list):
        return "[" + sep.join(_cell_json(x, spaced, ascii_only) for x in c) + "]"
    return json.dumps(c, ensure_ascii=ascii_only)


def _rows_json(t: list[list[Any]], spaced: bool, ascii_only: bool) -> str:
    sep = ", " if spaced else ","
    return (
        "["
        + sep.join(
            "[" + sep.join(_cell_json(c, spaced, ascii_only) for c in row) + "]" for row in t
        )
        + "]"
    )


@st.composite
def pairs(draw: st.DrawFn) -> tuple[list[list[Any]], list[list[Any]], bool]:
    k = draw(st.integers(1, 5))
    n = draw(st.integers(0, 5))
    gold = [[draw(cells) for _ in range(k)] for _ in range(n)]
    rnd = draw(st.randoms(use_true_random=False))
    perm = list(range(k))
    rnd.shuffle(perm)
    pred = [[row[p] for p in perm] for row in gold]
    ordered = draw(st.booleans())
    if not ordered:
        rnd.shuffle(pred)
    if pred and draw(st.booleans()):
        r, c = rnd.randrange(len(pred)), rnd.randrange(k)
        pred[r][c] = draw(cells)
    return gold, pred, ordered


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    batch=st.lists(pairs(), min_size=1, max_size=30),
    spaced=st.booleans(),
    ascii_only=st.booleans(),
)
def test_score_files_agrees_with_python_objects(
    tmp_path: Path, batch: list[tuple[Any, Any, bool]], spaced: bool, ascii_only: bool
) -> None:
    gold_lines, pred_lines = [], []
    for i, (g, p, ordered) in enumerate(batch):
        om = "true" if ordered else "false"
        gold_lines.append(
            f'{{"qid": "q{i}", "rows": {_rows_json(g, spaced, ascii_only)}, "order_matters": {om}}}'
        )
        pred_lines.append(f'{{"qid": "q{i}", "rows": {_rows_json(p, spaced, ascii_only)}}}')
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    gold.write_text("\n".join(gold_lines) + "\n", encoding="utf-8")
    pred.write_text("\n".join(pred_lines) + "\n", encoding="utf-8")
    res = score_files(gold, pred)
    want = execution_accuracy_batch(
        [[[_cell_obj(c) for c in row] for row in g] for g, _, _ in batch],
        [[[_cell_obj(c) for c in row] for row in p] for _, p, _ in batch],
        [o for _, _, o in batch],
    )
    assert res.ex.tolist() == want.tolist()
    # the same files in reverse prediction order take the general (qid-matched) path
    pred.write_text("\n".join(reversed(pred_lines)) + "\n", encoding="utf-8")
    assert score_files(gold, pred).ex.tolist() == want.tolist()
