"""``kgbench demo`` end to end on the shipped real Wikidata data, against the local Neo4j.

The expected numbers come from ``kgbench/demo/data/expected_metrics.json``,
computed by hand for the shipped predictions (each task's reasoning is in the
file; ``test_expected_metrics_are_consistent`` re-derives the aggregates from
the per-task values, so the two cannot drift apart).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from kgbench.cli import main
from kgbench.demo import demo_files

FILES = demo_files()
EXPECTED = json.loads(FILES.expected_metrics.read_text(encoding="utf-8"))
METRICS = ("execution_accuracy", "psjs", "executable")
COMBINED = {"n_prop", "n_name_prop", "n_prop_distinct", "n_prop_array_distinct"}


def _mean(rows: list[dict[str, Any]], metric: str) -> float:
    return round(sum(r[metric] for r in rows) / len(rows), 4)


def test_shipped_files_are_consistent() -> None:
    """Tasks and predictions pair up, cover the required patterns, and mix outcomes."""
    tasks = json.loads(FILES.tasks.read_text(encoding="utf-8"))
    preds = json.loads(FILES.predictions.read_text(encoding="utf-8"))
    assert len(tasks) >= 30
    assert [t["qid"] for t in tasks] == [p["qid"] for p in preds]
    for t, p in zip(tasks, preds, strict=True):
        assert "pred_cypher" not in t
        assert {k: v for k, v in p.items() if k != "pred_cypher"} == t
        tpl = t["from_template"]
        assert t["gold_cypher"].startswith(tpl["match_cypher"] + " ")
    golds = " ".join(t["gold_cypher"] for t in tasks)
    for needle in ("ORDER BY", "OPTIONAL MATCH", "UNION", "count(", "max("):
        assert needle in golds
    cats = {t["from_template"]["match_category"] for t in tasks}
    assert {"basic_(n)", "basic_(n*)", "basic_(n)-(m0)", "basic_(n)-(m0*)"} <= cats
    rids = {t["from_template"]["return_pattern_id"] for t in tasks}
    assert {
        "n_name",
        "n_prop",
        "n_name_prop",
        "n_prop_distinct",
        "n_prop_array_distinct",
        "n_order_by",
        "n_argmax",
        "n_where",
        "n_agg",
        "n_group_by",
    } <= rids
    per = EXPECTED["per_task"]
    assert [r["qid"] for r in per] == [t["qid"] for t in tasks]
    outcomes = {(r["executable"], r["execution_accuracy"]) for r in per}
    assert outcomes == {(1.0, 1.0), (1.0, 0.0), (0.0, 0.0)}
    assert any("columns reordered" in r["why"] for r in per)


def test_expected_metrics_are_consistent() -> None:
    """The aggregates in expected_metrics.json are the means of its per-task values."""
    per = EXPECTED["per_task"]
    assert EXPECTED["n_tasks"] == len(per)
    for m in METRICS:
        assert EXPECTED["overall"][m] == _mean(per, m)
    by_match: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_return: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in per:
        by_match[r["match_category"]].append(r)
        rid = r["return_pattern_id"]
        by_return["n_prop_combined" if rid in COMBINED else rid].append(r)
    for key, groups in (("by_match", by_match), ("by_return", by_return)):
        assert set(EXPECTED[key]) == set(groups)
        for name, rows in groups.items():
            for m in METRICS:
                assert EXPECTED[key][name][m] == _mean(rows, m), (key, name, m)
    # the headline numbers, as computed by hand
    assert EXPECTED["overall"] == {
        "execution_accuracy": 0.525,
        "psjs": 0.7333,
        "executable": 0.875,
        "count": 40,
    }


def _printed_row(text: str, key: str) -> list[float]:
    """The EX/PSJS/Exec cells of the printed table row starting with ``key``."""
    for line in text.splitlines():
        if line.startswith(key + " "):
            cells = re.findall(r"-?\d+\.\d{4}", line[len(key) :])
            if len(cells) >= 3:
                return [float(c) for c in cells[:3]]
    raise AssertionError(f"no printed row {key!r} in:\n{text}")


@pytest.mark.neo4j
@pytest.mark.slow
def test_demo_end_to_end(
    neo4j_server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run ``kgbench demo --uri <local server>`` and check every number it prints and writes."""
    out = tmp_path / "demo-out"
    assert main(["demo", "--uri", neo4j_server.uri, "--out", str(out)]) == 0
    printed = capsys.readouterr().out

    # conversion: the graph written is the one the shipped data supports
    graph = json.loads((out / "graph" / "graph.json").read_text(encoding="utf-8"))
    labels: dict[str, int] = defaultdict(int)
    for e in graph["entities"]:
        labels[e["label"]] += 1
    assert dict(labels) == {
        "Album": 1,
        "Article": 1,
        "Film": 5,
        "Gene": 6,
        "Person": 6,
        "Position": 1,
        "PrimeNumber": 2,
    }
    assert sorted(r["label"] for r in graph["relations"]) == ["hasPrimeFactor", "hasPrimeFactor"]
    assert (out / "graph" / "report.json").is_file()
    assert "entities: 22  relations: 2" in printed

    # evaluation files: every task's metrics as computed by hand
    results = json.loads(
        (out / "evaluation" / "result_with_metrics.json").read_text(encoding="utf-8")
    )
    assert [r["qid"] for r in results] == [r["qid"] for r in EXPECTED["per_task"]]
    for got, want in zip(results, EXPECTED["per_task"], strict=True):
        for m in METRICS:
            assert got["metrics"][m] == pytest.approx(want[m], abs=1e-6), (
                want["qid"],
                m,
                want["why"],
            )
    # aggregated_metrics.json as CypherBench writes it: every metric overall, EX per group,
    # by_return only for the basic RETURN templates
    agg = json.loads((out / "evaluation" / "aggregated_metrics.json").read_text(encoding="utf-8"))
    assert agg["overall"] == {m: EXPECTED["overall"][m] for m in METRICS}
    assert agg["by_graph"] == {"wikidata_demo": EXPECTED["overall"]["execution_accuracy"]}
    assert agg["by_match"] == {k: v["execution_accuracy"] for k, v in EXPECTED["by_match"].items()}
    basic = {
        "n_name",
        "n_prop_combined",
        "n_order_by",
        "n_argmax",
        "n_where",
        "n_agg",
        "n_group_by",
    }
    assert agg["by_return"] == {
        k: v["execution_accuracy"] for k, v in EXPECTED["by_return"].items() if k in basic
    }

    # the printed tables carry the same numbers
    assert _printed_row(printed, "overall") == [EXPECTED["overall"][m] for m in METRICS]
    for key in ("by_match", "by_return"):
        for name, metrics in EXPECTED[key].items():
            assert _printed_row(printed, name) == [metrics[m] for m in METRICS], name
    assert str(out / "evaluation" / "aggregated_metrics.json") in printed

    # SynthKGQA on the shipped WD50K sample: the printed type distribution is the items'
    items = [
        json.loads(line)
        for line in (out / "synth" / "items.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert len(items) == 50
    section = printed.split("== SynthKGQA")[1].split("== Outputs")[0]
    types: dict[str, int] = defaultdict(int)
    for item in items:
        types[item["graph_isomorphism"]] += 1
    assert len(types) >= 4
    for t, n in types.items():
        row = next(line for line in section.splitlines() if line.startswith(t + " "))
        assert row.split()[-2] == str(n), row

    # Spider's concert_singer: the question's SQL, SPARQL and Cypher give the same rows
    spider = printed.split("== Spider4SPARQL")[1].split("\n== ")[0]
    assert "Show the stadium name and the number of concerts in each stadium." in spider
    assert "-- SQL" in spider and "-- SPARQL" in spider and "-- CYPHER" in spider
    assert (out / "spider" / "concert_singer.nt").is_file()
    rows = spider.split("Cypher on Neo4j")[1].strip().splitlines()
    import sqlite3

    db = sqlite3.connect(Path(__file__).parent / "data" / "spider" / "concert_singer.sqlite")
    stadiums = db.execute("SELECT count(DISTINCT Stadium_ID) FROM concert").fetchone()[0]
    db.close()
    assert len(rows) == stadiums  # one row per stadium holding concerts
    for row in rows:
        cells = [c for c in row.split("  ") if c.strip()]
        assert len(cells) == 3 and len({c.strip() for c in cells}) == 1, row

    # NGDBench: the noise summary, and the oracle row is the oracle evaluation of the tasks
    from kgbench.demo.run import oracle_row
    from kgbench.evaluate.ngdbench import evaluate_ngdbench

    ngd = printed.split("== NGDBench")[1].split("\n== ")[0]
    log = json.loads((out / "ngdbench" / "noisy" / "noise_log.json").read_text(encoding="utf-8"))
    assert log["seed"] == 8 and "name_typos" in ngd and "check: E' = x + floor" in ngd
    # on concert_singer's 31 nodes and 26 edges every edge perturbation changes something:
    # the printed counts are the log's, and none of them is 0
    assert "nodes: 31 -> 31   edges: 26 -> 27" in ngd
    changed = {
        p["perturbation_type"]: len(p["records"]) for p in log["summary"]["perturbation_logs"]
    }
    for noise_type, verb in (
        ("incomplete_edges", "edges deleted"),
        ("false_edges", "edges added"),
        ("relation_type_noise", "edge types swapped"),
    ):
        line = next(x for x in ngd.splitlines() if x.strip().startswith(noise_type + " "))
        applied, target = line.split(" rate ")[1].split()[1:4:2]
        assert int(applied) == changed[noise_type] > 0 and int(target) >= int(applied), line
        assert line.endswith(verb), line
    aggregated = evaluate_ngdbench(out / "ngdbench" / "tasks" / "tasks.json").aggregated
    oracle = aggregated["oracle"]
    row = next(line for line in ngd.splitlines() if line.startswith("Oracle Cypher"))
    assert row == oracle_row(aggregated).splitlines()[1]
    assert row.split()[2:4] == [f"{oracle['noagg'][m]:.3f}" for m in ("jaccard", "f1")]
    tasks = json.loads((out / "ngdbench" / "tasks" / "tasks.json").read_text(encoding="utf-8"))
    assert any(t.get("family") == "noagg" for t in tasks)
    assert any("steps" in t for t in tasks)  # management batches

    # the model run: GPT-3.5's published run replayed offline, its EX beside the paper's
    replay = printed.split("== Model run")[1].split("\n== ")[0]
    assert "45 prompts rebuilt by kgbench, 45 replies from the replay cache, 0 requests" in replay
    assert "EX 8% (25% syntax errors; Table V)" in replay
    # ... and beside it the agent run replayed from the shipped cache
    assert (
        "agent (a scripted model with tools, replayed offline from the shipped cache): EX 2/4 "
        "in 11 turns, 7 queries run (answered 3, turns 1); one-shot on the same questions: "
        "EX 1/4"
    ) in replay
    agg = json.loads(
        (out / "predict" / "agent" / "evaluation" / "aggregated_metrics.json").read_text()
    )
    assert agg["by_turns"] == AGENT_BY_TURNS
    assert (out / "predict" / "run" / "predictions.json").is_file()

    # the HTML report (kgbench report) is written and its path printed
    html = out / "report.html"
    assert html.is_file() and str(html) in printed
    # its inputs: the three scored runs (the replayed model run among them), the four
    # generations and the noise; runs of different families are never compared
    from kgbench.report import load_inputs
    from kgbench.report.render import comparable_groups

    report_dirs = [
        out / d
        for d in (
            "evaluation",
            "generation",
            "pipe",
            "synth",
            "ngdbench/noisy",
            "ngdbench/tasks",
            "ngdbench/evaluation",
            "predict/evaluation",
        )
    ]
    inputs = load_inputs(report_dirs)
    text = html.read_text(encoding="utf-8")
    for d in report_dirs:
        assert str(d) in text, d
    kinds = [r.kind for r in inputs.runs]
    assert "evaluate --language sparql" in kinds and "evaluate (CypherBench)" in kinds
    sparql = next(r for r in inputs.runs if r.kind == "evaluate --language sparql")
    assert len(sparql.rows) == 45 and sparql.overall["execution_accuracy"] == pytest.approx(
        3 / 45, abs=1e-4
    )
    assert all(len({r.kind for r in group}) == 1 for group in comparable_groups(inputs.runs))
    assert "runs of different families, or with no task in common, are never paired" in text


def test_demo_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert "--uri" in text and "--out" in text and "CC0" in text


def test_replayed_published_run_scores_as_the_published_file(tmp_path: Path) -> None:
    """The demo's model-run step (no Neo4j needed): every one of the 45 shipped prompts is
    rebuilt by kgbench and answered from the replay cache, and the replayed predictions
    score exactly as the published file itself does."""
    from kgbench.demo.run import replay_published_run
    from kgbench.evaluate.sparql_runner import evaluate_sparql
    from kgbench.rdb.convert import convert_rdb

    rdf = tmp_path / "spider"
    convert_rdb(FILES.spider_db, FILES.spider_tables, "concert_singer", rdf)
    replay = replay_published_run(FILES, rdf, tmp_path / "predict")
    assert (replay["tasks"], replay["replies"], replay["requests"]) == (45, 45, 0)
    published = evaluate_sparql(FILES.s4s_gold, FILES.s4s_published, rdf)
    assert replay["execution_accuracy"] == published.aggregated["overall"]["execution_accuracy"]
    assert 0 < replay["correct"] < 45
    preds = json.loads((tmp_path / "predict" / "run" / "predictions.json").read_text())
    shipped = json.loads(FILES.s4s_published.read_text(encoding="utf-8"))
    assert [p["predicted_sparql"] for p in preds] == [r["predicted_sparql"] for r in shipped]
    assert [p["prompt"] for p in preds] == [r["prompt"] for r in shipped]


#: EX of the demo's agent run by number of turns (tests/make_demo_agent_cache.py: q0 2 turns
#: right, q1 1 turn wrong, q2 4 turns right, q3 4 turns without an answer).
AGENT_BY_TURNS = {
    "1": {"n": 1, "execution_accuracy": 0.0},
    "2": {"n": 1, "execution_accuracy": 1.0},
    "4": {"n": 2, "execution_accuracy": 0.5},
}


def test_agent_run_replays_the_shipped_cache(tmp_path: Path) -> None:
    """The demo's agent step (no Neo4j needed): the scripted model's shipped cache replays
    offline (no request), EX by turns as the script decides, printed beside the one-shot run;
    and the recording script regenerates the shipped cache byte for byte."""
    from kgbench.demo.run import (
        AGENT_CACHE,
        format_agent,
        replay_agent_run,
        replay_published_run,
    )
    from kgbench.rdb.convert import convert_rdb
    from make_demo_agent_cache import record

    rdf = tmp_path / "spider"
    convert_rdb(FILES.spider_db, FILES.spider_tables, "concert_singer", rdf)
    one_shot = replay_published_run(FILES, rdf, tmp_path / "predict")
    agent = replay_agent_run(FILES, rdf, tmp_path / "predict" / "agent", one_shot["ex_by_qid"])
    assert agent == {
        "tasks": 4,
        "turns": 11,
        "queries": 7,
        "requests": 0,
        "correct": 2,
        "endings": {"answered": 3, "turns": 1},
        "by_turns": AGENT_BY_TURNS,
        "one_shot_correct": 1,
    }
    assert format_agent(agent).endswith(
        "EX 2/4 in 11 turns, 7 queries run (answered 3, turns 1); one-shot on the same "
        "questions: EX 1/4"
    )
    lines = (tmp_path / "predict" / "agent" / "run" / "trajectories.jsonl").read_text()
    trajectories = [json.loads(x) for x in lines.splitlines()]
    assert [t["turns"] for t in trajectories] == [2, 1, 4, 4]
    # the one-shot run's first question, wrong; the agent's, right after one query
    assert one_shot["ex_by_qid"]["0"] == 0.0 and trajectories[0]["ending"] == "answered"
    assert record(tmp_path / "cache.jsonl").read_bytes() == AGENT_CACHE.read_bytes()
