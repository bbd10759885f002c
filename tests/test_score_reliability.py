"""Issue 18, defects 9, 10, 12 and 13: ``kgbench score`` and the EX API never crash, hang or
compare loosely on hostile but well-formed input.

- values nested 50k / 100k deep are an error naming the file, line and column (or row and
  column), not a SIGSEGV (defect 9);
- 2 rows x 100k columns are scored in seconds, not minutes and gigabytes (defect 10);
- integers beyond 64 bits compare exactly, as Python's ``int`` (defect 13);
- the input is read, not memory-mapped: see the Rust test
  ``score::tests::truncated_input_after_loading`` (defect 12).

Each check runs the real command in a subprocess, so a crash shows as a signal exit code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kgbench.evaluate import execution_accuracy

KGBENCH = [sys.executable, "-m", "kgbench"]


def _score(
    tmp_path: Path, gold: list[dict], pred: list[dict], *extra: str
) -> subprocess.CompletedProcess[str]:
    g, p = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    g.write_text("".join(json.dumps(r) + "\n" for r in gold), "utf-8")
    p.write_text("".join(json.dumps(r) + "\n" for r in pred), "utf-8")
    return subprocess.run(
        [*KGBENCH, "score", "--gold", str(g), "--pred", str(p), *extra],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [257, 50_000])
def test_score_deep_nesting_is_an_error(tmp_path: Path, depth: int) -> None:
    g, p = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    g.write_text('{"qid": 1, "rows": [[1]]}\n{"qid": 2, "rows": [[' + _nested(depth) + "]]}\n")
    p.write_text('{"qid": 1, "rows": [[1]]}\n{"qid": 2, "rows": [[1]]}\n')
    r = subprocess.run(
        [*KGBENCH, "score", "--gold", str(g), "--pred", str(p)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert f"{g}:2: invalid result record: value nested deeper than 256 levels" in r.stderr
    assert "column" in r.stderr


def test_score_nesting_at_the_limit_is_scored(tmp_path: Path) -> None:
    cell = json.loads(_nested(254))  # rows and row arrays add two levels
    r = _score(tmp_path, [{"qid": 1, "rows": [[cell]]}], [{"qid": 1, "rows": [[cell]]}])
    assert r.returncode == 0, r.stderr
    assert "EX                1.0000  (1 / 1)" in r.stdout


def test_execution_accuracy_deep_list_is_an_error() -> None:
    # run in a subprocess: before the fix the interpreter died (SIGSEGV)
    code = (
        "from kgbench.evaluate import execution_accuracy\n"
        "x = []\n"
        "for _ in range(100_000):\n"
        "    x = [x]\n"
        "try:\n"
        "    execution_accuracy([[1], [x]], [[1], [1]], False)\n"
        "except ValueError as e:\n"
        "    print('error:', e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert "error: gold_rows: row 1, column 0: value nested deeper than 256 levels" in r.stdout


def test_wide_rows_are_scored_quickly(tmp_path: Path) -> None:
    k = 100_000
    gold = [[c % 1000 for c in range(k)], [(c * 7 + 3) % 1000 for c in range(k)]]
    pred = [gold[1][::-1], gold[0][::-1]]  # columns reversed, rows swapped
    bad = [row[:] for row in pred]
    # exchange one column's cells between the rows: same column multisets, not equal
    c = next(c for c in range(k) if bad[0][c] != bad[1][c])
    bad[0][c], bad[1][c] = bad[1][c], bad[0][c]
    r = _score(
        tmp_path,
        [{"qid": 1, "rows": gold}, {"qid": 2, "rows": gold}],
        [{"qid": 1, "rows": pred}, {"qid": 2, "rows": bad}],
        "--out",
        str(tmp_path / "scores.jsonl"),
    )
    assert r.returncode == 0, r.stderr
    assert "EX                0.5000  (1 / 2)" in r.stdout
    lines = [json.loads(x) for x in (tmp_path / "scores.jsonl").read_text().splitlines()]
    assert [x["status"] for x in lines] == ["match", "mismatch"]


def test_big_integers_compare_exactly(tmp_path: Path) -> None:
    big, big1 = 123456789012345678901234567890, 123456789012345678901234567891
    assert float(big) == float(big1)  # one float for both
    gold = [{"qid": q, "rows": [[v]]} for q, v in enumerate([big, big, 2**64, -(2**63) - 1])]
    pred = [
        {"qid": 0, "rows": [[big]]},
        {"qid": 1, "rows": [[big1]]},
        {"qid": 2, "rows": [[float(2**64)]]},  # exactly 2**64: equal, as in Python
        {"qid": 3, "rows": [[-(2**63)]]},
    ]
    r = _score(tmp_path, gold, pred, "--out", str(tmp_path / "s.jsonl"))
    assert r.returncode == 0, r.stderr
    got = [json.loads(x)["ex"] for x in (tmp_path / "s.jsonl").read_text().splitlines()]
    want = [float(g["rows"][0][0] == p["rows"][0][0]) for g, p in zip(gold, pred, strict=True)]
    assert want == [1.0, 0.0, 1.0, 0.0]
    assert got == want
    # the Python API agrees (values straight from Python)
    for g, p in zip(gold, pred, strict=True):
        assert execution_accuracy(g["rows"], p["rows"], False) == float(
            g["rows"][0][0] == p["rows"][0][0]
        )


def test_input_truncated_while_scoring(tmp_path: Path) -> None:
    """A gold file truncated by another process during ``kgbench score`` gives a result or an
    error naming the file, never SIGBUS (it was memory-mapped). The deterministic check is
    the Rust test ``score::tests::truncated_input_after_loading``."""
    g, p = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    line = '{"qid": %d, "rows": [["a value that fills the pages", 1, 2.5, [1, 2]]]}\n'
    with open(g, "w") as gf, open(p, "w") as pf:
        for q in range(600_000):
            gf.write(line % q)
            pf.write(line % q)
    for delay in (0.05, 0.3):
        proc = subprocess.Popen(
            [*KGBENCH, "score", "--gold", str(g), "--pred", str(p)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(delay + 0.5)  # start-up, then into the read or the scoring
        os.truncate(g, 0)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode in (0, 1), (proc.returncode, err)
        if proc.returncode == 1:
            assert str(g) in err, err
        with open(g, "w") as gf:
            for q in range(600_000):
                gf.write(line % q)
