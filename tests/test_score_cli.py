"""``kgbench score`` and :func:`kgbench.evaluate.score_files` on JSONL result files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.evaluate import score_files

GOLD = [
    {
        "qid": "q1",
        "columns": ["n"],
        "rows": [["Ann"], ["Bob"]],
        "gold_cypher": "MATCH (p:Person) RETURN p.name AS n ORDER BY n",
    },
    {
        "qid": "q2",
        "columns": ["n", "c"],
        "rows": [{"n": "Ann", "c": 2}, {"n": "Bob", "c": 1}],
        "gold_cypher": "MATCH (p:Person) RETURN p.name AS n, count(*) AS c",
    },
    {"qid": "q3", "columns": ["d"], "rows": [["2020-01-31"]], "order_matters": False},
    {"qid": "q4", "columns": ["x"], "rows": [[[1, 2]]]},
    {"qid": "q5", "columns": ["x"], "rows": []},
    {"qid": "q6", "columns": ["x"], "rows": [[1]], "gold_cypher": "RETURN 1 AS x"},
    {"qid": 7, "columns": ["x"], "rows": [[1.5]]},
]
PRED = [
    {"qid": "q1", "columns": ["n"], "rows": [["Bob"], ["Ann"]]},  # order matters: 0
    {"qid": "q2", "columns": ["c", "n"], "rows": [[1, "Bob"], [2.0, "Ann"]]},  # 1
    {"qid": "q3", "columns": ["d"], "rows": [["2020-01-30"]]},  # 0
    {"qid": "q4", "columns": ["x"], "rows": None, "error": "CypherSyntaxError: ..."},  # 0
    {"qid": "q6", "columns": ["y"], "rows": [[2]], "pred_cypher": "RETURN 1 AS x"},  # 1
    {"qid": "7", "columns": ["x"], "rows": [[1.5]]},  # 1
    {"qid": "extra", "columns": ["x"], "rows": []},
]


def _write(path: Path, records: list[dict[str, Any]], blank_line: bool = False) -> Path:
    lines = [json.dumps(r) for r in records]
    if blank_line:
        lines.insert(1, "")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_score_files(tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold.jsonl", GOLD, blank_line=True)
    pred = _write(tmp_path / "pred.jsonl", PRED)
    out = tmp_path / "scores.jsonl"
    res = score_files(gold, pred, out)
    assert res.ex.dtype == np.float64
    assert res.ex.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    s = res.summary
    assert s["n_gold"] == 7 and s["n_pred"] == 7
    assert s["n_match"] == 2 and s["n_mismatch"] == 2
    assert s["n_identical_query"] == 1
    assert s["n_missing"] == 1  # q5
    assert s["n_pred_error"] == 1  # q4
    assert s["n_gold_error"] == 0
    assert s["n_extra_pred"] == 1
    assert s["ex"] == pytest.approx(3 / 7)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["qid"] for x in lines] == ["q1", "q2", "q3", "q4", "q5", "q6", "7"]
    assert [x["status"] for x in lines] == [
        "mismatch",
        "match",
        "mismatch",
        "pred_error",
        "missing",
        "identical_query",
        "match",
    ]
    assert [x["ex"] for x in lines] == res.ex.tolist()


def test_cli_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = _write(tmp_path / "gold.jsonl", GOLD)
    pred = _write(tmp_path / "pred.jsonl", PRED)
    out = tmp_path / "s.jsonl"
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "EX                0.4286  (3 / 7)" in text
    assert "missing         1  (scored 0)" in text
    assert "extra predictions 1" in text
    assert len(out.read_text().splitlines()) == 7


def test_duplicate_qid_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = _write(tmp_path / "gold.jsonl", GOLD)
    pred = _write(tmp_path / "pred.jsonl", [*PRED, PRED[1]])
    with pytest.raises(InputError, match=r'pred.jsonl:8: duplicate qid "q2" \(first on line 2\)'):
        score_files(gold, pred)
    assert main(["score", "--gold", str(gold), "--pred", str(pred)]) == 1
    err = capsys.readouterr().err
    assert "kgbench score: error:" in err and 'pred.jsonl:8: duplicate qid "q2"' in err


def test_malformed_lines(tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold.jsonl", GOLD)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"qid": "q1", "rows": [["a"]]}\n{"qid": "q2", "rows": [[1], [2, 3]]}\n')
    with pytest.raises(InputError, match=r"bad.jsonl:2: .*row 1 has 2 columns, expected 1"):
        score_files(gold, bad)
    bad.write_text('{"qid": "q1", "rows": [["a"]]}\nnot json\n')
    with pytest.raises(InputError, match=r"bad.jsonl:2: invalid result record"):
        score_files(gold, bad)
    bad.write_text('{"qid": "q1", "columns": ["a", "b"], "rows": [["a"]]}\n')
    with pytest.raises(InputError, match=r"bad.jsonl:1: .*expected 2"):
        score_files(gold, bad)
    bad.write_text('{"qid": "q1"}\n')
    with pytest.raises(InputError, match=r'bad.jsonl:1: .*missing field "rows"'):
        score_files(gold, bad)
    with pytest.raises(OSError, match=r"nope\.jsonl"):
        score_files(gold, tmp_path / "nope.jsonl")


def test_all_missing_and_gold_errors(tmp_path: Path) -> None:
    gold = _write(
        tmp_path / "gold.jsonl",
        [{"qid": "a", "rows": [[1]]}, {"qid": "b", "rows": None, "error": "timeout"}],
    )
    pred = _write(tmp_path / "pred.jsonl", [{"qid": "b", "rows": [[1]]}])
    res = score_files(gold, pred)
    assert res.ex.tolist() == [0.0, 0.0]
    assert res.summary["n_missing"] == 1 and res.summary["n_gold_error"] == 1


def test_rel_tol(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = _write(tmp_path / "gold.jsonl", [{"qid": "a", "rows": [[0.1 + 0.2], [3]]}])
    pred = _write(tmp_path / "pred.jsonl", [{"qid": "a", "rows": [[3.0], [0.3]]}])
    assert score_files(gold, pred).ex.tolist() == [0.0]
    assert score_files(gold, pred, rel_tol=1e-9).ex.tolist() == [1.0]
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--rel-tol", "1e-9"]) == 0
    assert "EX                1.0000  (1 / 1)" in capsys.readouterr().out


def test_console_script(tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold.jsonl", GOLD)
    exe = Path(sys.executable).with_name("kgbench")
    proc = subprocess.run(
        [str(exe), "score", "--gold", str(gold), "--pred", str(gold)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "EX                1.0000  (7 / 7)" in proc.stdout


def _many(tmp_path: Path, n: int) -> tuple[Path, Path]:
    """n aligned pairs (more than one parallel chunk): equal, permuted, changed, errors."""
    gold, pred = [], []
    for i in range(n):
        rows = [[i % 7, f"s{i % 5}", [i % 3, None]], [1.5, "x", {"k": i % 2}]]
        g: dict[str, Any] = {"qid": f"q{i}", "rows": rows, "order_matters": i % 9 == 0}
        if i % 4 == 0:
            p_rows = [list(reversed(r)) for r in reversed(rows)]
        elif i % 4 == 1:
            p_rows = [[*rows[0][:2], [None, i % 3]], [1.5, "x", {"k": i % 2 + 0.0}]]
        elif i % 4 == 2:
            p_rows = [[*rows[0][:2], "changed"], rows[1]]
        else:
            p_rows = rows
        p: dict[str, Any] = {"qid": f"q{i}", "rows": p_rows, "error": "E" if i % 13 == 0 else None}
        gold.append(g)
        pred.append(p)
    return _write(tmp_path / "gold.jsonl", gold), _write(tmp_path / "pred.jsonl", pred)


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_parallel_output_identical_to_sequential(tmp_path: Path, threads: str) -> None:
    """The command's --out bytes do not depend on the number of threads, nor on the order
    of the prediction file (aligned fast path vs. matching by qid)."""
    gold, pred = _many(tmp_path, 10_000)
    exe = Path(sys.executable).with_name("kgbench")

    def run(pred_file: Path, n_threads: str, out: Path) -> bytes:
        subprocess.run(
            [str(exe), "score", "--gold", str(gold), "--pred", str(pred_file), "--out", str(out)],
            check=True,
            capture_output=True,
            env={**os.environ, "RAYON_NUM_THREADS": n_threads},
        )
        return out.read_bytes()

    sequential = run(pred, "1", tmp_path / "seq.jsonl")
    assert run(pred, threads, tmp_path / "par.jsonl") == sequential
    shuffled = tmp_path / "shuffled.jsonl"
    lines = pred.read_text().splitlines()
    shuffled.write_text("\n".join(lines[1::2] + lines[::2]) + "\n")
    assert run(shuffled, threads, tmp_path / "par2.jsonl") == sequential
    scores = [json.loads(line) for line in sequential.decode().splitlines()]
    assert [s["qid"] for s in scores] == [f"q{i}" for i in range(10_000)]
    statuses = {s["status"] for s in scores}
    assert statuses == {"match", "mismatch", "pred_error"}
    assert scores == [{"qid": s["qid"], "ex": s["ex"], "status": s["status"]} for s in scores]
    res = score_files(gold, pred)
    assert res.ex.tolist() == [s["ex"] for s in scores]


def test_errors_deep_in_large_files_name_file_and_line(tmp_path: Path) -> None:
    gold, pred = _many(tmp_path, 9_000)
    lines = pred.read_text().splitlines()
    lines[8_500] = '{"qid": "q8500", "rows": [[1], [2, 3]]}'
    pred.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"pred.jsonl:8501: .*row 1 has 2 columns, expected 1"):
        score_files(gold, pred)
    lines = gold.read_text().splitlines()
    lines[8_700] = lines[4_321]
    gold.write_text("\n".join(lines) + "\n")
    pred.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        InputError, match=r'gold.jsonl:8701: duplicate qid "q4321" \(first on line 4322\)'
    ):
        score_files(gold, pred)
    pred.write_bytes(pred.read_bytes().replace(b'"q20"', b'"q\xff20"', 1))
    with pytest.raises(InputError, match=r"pred.jsonl:21: invalid UTF-8"):
        score_files(gold, pred)
