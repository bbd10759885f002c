"""pass@k (Chen et al. 2021) and `kgbench run` with sampled predictions, end to end.

The estimator is checked against its definition with exact binomials; the end-to-end test
runs `kgbench run --family spider4sparql --samples 3` against the chat-completions test
double on the shipped Spider concert_singer database (converted by kgbench rdb) and the
shipped Spider4SPARQL gold pairs, with replies scripted to be right for chosen samples.
"""

from __future__ import annotations

import json
import math
import threading
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chat_completions_double import ChatCompletionsTestDouble, Messages, last_user_content
from kgbench.cli import main
from kgbench.demo import demo_files
from kgbench.evaluate.passk import pass_at_k


@given(
    st.integers(1, 12).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))
    )
)
def test_pass_at_k_is_the_unbiased_estimator(nck: tuple[int, int, int]) -> None:
    n, c, k = nck
    expected = 1.0 - math.comb(n - c, k) / math.comb(n, k)
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


def test_pass_at_k_small_cases_and_errors() -> None:
    assert pass_at_k(2, 1, 1) == 0.5
    assert pass_at_k(2, 1, 2) == 1.0
    assert pass_at_k(3, 0, 3) == 0.0
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)  # pass@1 = c / n
    with pytest.raises(ValueError, match="1 <= k <= n"):
        pass_at_k(2, 1, 3)


def test_run_spider4sparql_with_samples_reports_pass_at_k(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = demo_files()
    gold = json.loads(files.s4s_gold.read_text(encoding="utf-8"))[:4]
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps(gold))
    rdf = tmp_path / "rdf"
    assert (
        main(
            [
                "rdb",
                str(files.spider_db),
                "--tables",
                str(files.spider_tables),
                "--out",
                str(rdf / "concert_singer"),
            ]
        )
        == 0
    )
    capsys.readouterr()
    # question i is answered right by its first `right[i]` samples (requests of one question
    # are numbered in arrival order; the replies of one question differ only by that order)
    right = [3, 1, 0, 2]
    seen: dict[str, int] = defaultdict(int)
    lock = threading.Lock()

    def reply(messages: Messages) -> str:
        text = last_user_content(messages)
        i = next(n for n, g in enumerate(gold) if f"SPARQL: {g['question']}  " in text)
        with lock:
            nth = seen[text]
            seen[text] += 1
        return gold[i]["query"] if nth < right[i] else "SELECT ?x WHERE { ?x a :nothing }"

    out = tmp_path / "run"
    with ChatCompletionsTestDouble(reply=reply) as server:
        code = main(
            [
                "run",
                "--family",
                "spider4sparql",
                "--tasks",
                str(tasks),
                "--rdf-dir",
                str(rdf),
                "--base-url",
                server.url,
                "--model",
                "m",
                "--samples",
                "3",
                "--temperature",
                "0.8",
                "--concurrency",
                "1",
                "--out",
                str(out),
            ]
        )
        assert code == 0
        assert len(server.requests) == 12
    printed = capsys.readouterr().out
    agg = json.loads((out / "evaluation" / "aggregated_metrics.json").read_text())
    n = 3
    expected = {k: sum(pass_at_k(n, c, k) for c in right) / 4 for k in (1, 2, 3)}
    for k in (1, 2, 3):
        assert agg["overall"][f"pass@{k}"] == pytest.approx(round(expected[k], 4))
        assert f"pass@{k}" in printed
    # EX is that of the first sample of each question: right for questions 0, 1 and 3
    assert agg["overall"]["execution_accuracy"] == 0.75
    records = json.loads((out / "evaluation" / "result_with_metrics.json").read_text())
    assert [r["metrics"]["pass@3"] for r in records] == [1.0, 1.0, 0.0, 1.0]
    preds = json.loads((out / "predict" / "predictions.json").read_text())
    assert all(len(p["predicted_sparql_samples"]) == 3 for p in preds)
    assert (out / "report.html").is_file() and (out / "predict" / "run.json").is_file()
    # the same command again sends no request: every reply is in the cache
    with ChatCompletionsTestDouble(reply=reply) as server:
        argv = ["run", "--family", "spider4sparql", "--tasks", str(tasks), "--rdf-dir", str(rdf)]
        argv += ["--base-url", server.url, "--model", "m", "--samples", "3"]
        argv += ["--temperature", "0.8", "--out", str(out)]
        assert main(argv) == 0
        assert server.requests == []
    agg2 = json.loads((out / "evaluation" / "aggregated_metrics.json").read_text())
    assert agg2["overall"] == agg["overall"]
