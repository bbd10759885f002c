"""Test-suite EX for Cypher on Neo4j (issue 31; spec test-suite.md): the Rust neighbour
queries, the Cypher suite backend on a disposable Neo4j (deltas in rolled-back transactions),
and `kgbench evaluate --test-suite`, on CypherBench tasks generated on the shared WD50K
statements.

Wrong predictions that coincide with the gold on the graph (a filter every row passes, a count
without duplicates, `>` where no value sits on the boundary, empty versus empty) must fall to
TS-EX 0; truly equivalent rewrites (alias names, the pattern written the other way, `{name:
'x'}` versus `WHERE n.name = 'x'`, split MATCH clauses) must keep TS-EX 1."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgbench._core import cypher

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
WD50K = ROOT.parent / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"

needs_wd50k = pytest.mark.skipif(
    not WD50K.exists(), reason=f"the shared WD50K dump is absent ({WD50K})"
)


def test_neighbour_queries_binding_is_seeded_and_read_only() -> None:
    schema = json.dumps(
        {
            "labels": ["Person", "City"],
            "types": ["bornIn", "livesIn"],
            "node_properties": {"Person": {"name": "str", "age": "int", "height": "int"}},
        }
    )
    gold = "MATCH (p:Person)-[:bornIn]->(c:City) WHERE p.age > 30 RETURN count(DISTINCT c.name)"
    a = cypher.neighbour_queries(gold, schema, 3, 20)
    assert a == cypher.neighbour_queries(gold, schema, 3, 20)
    assert len(a) == 20 and len({q for _, q in a}) == 20
    kinds = {k for k, _ in a}
    assert {"comparison", "constant", "aggregate", "distinct", "direction", "type"} <= kinds
    assert all(cypher.write_clauses(q) == [] and q != gold for _, q in a)
    assert ("property", gold.replace("p.age", "p.height")) in cypher.neighbour_queries(
        gold, schema, 0, 500
    )
    with pytest.raises(cypher.CypherSyntaxError):
        cypher.neighbour_queries("MATCH (n RETURN n", schema)
    from kgbench.errors import InputError

    with pytest.raises(InputError, match="neighbour schema"):
        cypher.neighbour_queries(gold, "{not json")


# -- real data -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wd50k(wd50k_cypherbench: dict[str, Any]) -> dict[str, Any]:
    """The session's WD50K conversion in its disposable Neo4j and the CypherBench tasks
    generated on it (conftest ``wd50k_cypherbench``), with a suite backend on it."""
    from kgbench.evaluate.suites.cypher import CypherSuiteBackend

    env = wd50k_cypherbench
    backend = CypherSuiteBackend(env["db"], env["graph"], env["fingerprint"])
    return {"db": env["db"], "backend": backend, "tasks": env["tasks"], "dir": env["dir"]}


def _coinciding(
    env: dict[str, Any], make: Callable[[str], str | None], limit: int = 2
) -> list[tuple[str, str]]:
    """(gold, prediction) pairs of WD50K tasks where ``make`` gives a prediction other than
    the gold that EX scores 1 on the graph."""
    backend = env["backend"]
    out: list[tuple[str, str]] = []
    for t in env["tasks"]:
        gold = t["gold_cypher"]
        pred = make(gold)
        if pred is None or pred == gold:
            continue
        g, p = backend.run_with(None, [gold, pred])
        if g.error is None and backend.same(gold, g, p):
            out.append((gold, pred))
            if len(out) >= limit:
                break
    return out


def _gt_pairs(env: dict[str, Any], limit: int = 2) -> list[tuple[str, str]]:
    """The generated WD50K golds hold no comparison, so a group-by gold (``WITH n,
    count(DISTINCT m0) AS num``) gets a filter ``WHERE num > B`` on a bound B that no group's
    count equals, and the prediction writes ``>=``: both return the same rows on the graph."""
    backend = env["backend"]
    out: list[tuple[str, str]] = []
    for t in env["tasks"]:
        gold = t["gold_cypher"]
        m = re.search(r"AS (num|relatedCount) ", gold)
        if m is None or " WHERE " in gold[m.end() :]:
            continue
        (res,) = backend.run_with(None, [gold])
        col = next((i for i, c in enumerate(res.columns) if c == m.group(1)), None)
        if res.error is not None or col is None:
            continue
        counts = {int(r[col]) for r in res.rows}
        lo, hi = min(counts, default=0), max(counts, default=0)
        bound = next((b for b in range(lo + 1, hi) if b not in counts), None)
        if bound is None:
            continue
        g = gold[: m.end()] + f"WHERE {m.group(1)} > {bound} " + gold[m.end() :]
        out.append((g, g.replace(f"{m.group(1)} > {bound}", f"{m.group(1)} >= {bound}")))
        if len(out) >= limit:
            break
    return out


def _empty_pair(gold: str) -> tuple[str, str] | None:
    """A gold on a name no node has, and a prediction with the relationship reversed: both
    return nothing on the graph."""
    m = re.search(r"\{name: '([^']*)'\}", gold)
    rel = re.search(r"\)-\[([^\]]*)\]->\(", gold)
    if m is None or rel is None:
        return None
    g = gold.replace(m.group(0), "{name: 'Nobody Of That Name'}", 1)
    p = g[: rel.start()] + f")<-[{rel.group(1)}]-(" + g[rel.end() :]
    return g, p


def _pairs(
    env: dict[str, Any], build: Callable[[str], tuple[str, str] | None], limit: int = 2
) -> list[tuple[str, str]]:
    """(gold, prediction) pairs that ``build`` makes from WD50K golds, kept where the two
    results coincide on the graph (EX 1) and the gold's is not empty."""
    backend = env["backend"]
    out: list[tuple[str, str]] = []
    for t in env["tasks"]:
        pair = build(t["gold_cypher"])
        if pair is None:
            continue
        g, p = backend.run_with(None, list(pair))
        if g.error is None and g.rows and backend.same(pair[0], g, p):
            out.append(pair)
            if len(out) >= limit:
                break
    return out


_GROUPED = re.compile(
    r"^(MATCH \(n:\w+\)-\[r0:\w+\]->\(m0:\w+ \{name: '[^']*'\}\)) WITH DISTINCT n "
)


def _filter_pair(gold: str) -> tuple[str, str] | None:
    """A gold that keeps the nodes other than the one it names (``WHERE n.name <> 'X'``; no
    node is linked to itself, so every row passes) and the prediction that forgets the
    filter."""
    m = _GROUPED.match(gold)
    if m is None:
        return None
    name = re.search(r"\{name: ('[^']*')\}", m.group(1))
    assert name is not None
    return gold[: m.end(1)] + f" WHERE n.name <> {name.group(1)}" + gold[m.end(1) :], gold


def _count_pair(gold: str) -> tuple[str, str] | None:
    """``count(DISTINCT n)`` over a one-hop pattern and the prediction's ``count(n)``: equal
    while no matched node has two such relationships."""
    m = _GROUPED.match(gold)
    if m is None:
        return None
    g = m.group(1) + " RETURN count(DISTINCT n) AS n_count"
    return g, g.replace("count(DISTINCT n)", "count(n)")


@pytest.mark.realdata
@pytest.mark.neo4j
@pytest.mark.slow
@needs_wd50k
@pytest.mark.parametrize(
    "kind", ["filter_every_row_passes", "count_without_duplicates", "gt_vs_ge", "empty_vs_empty"]
)
def test_wrong_predictions_that_coincide_fall_to_ts_ex(wd50k: dict[str, Any], kind: str) -> None:
    from kgbench.evaluate.suites.core import distil, ts_verdict

    backend = wd50k["backend"]
    if kind == "empty_vs_empty":
        pairs = []
        for t in wd50k["tasks"]:
            pair = _empty_pair(t["gold_cypher"])
            if pair is None:
                continue
            g, p = backend.run_with(None, list(pair))
            if g.error is None and not g.rows and not p.rows and p.error is None:
                # the relationship's direction matters on the graph (not a symmetric type)
                real = t["gold_cypher"]
                rel = re.search(r"\)-\[([^\]]*)\]->\(", real)
                assert rel is not None
                rev = real[: rel.start()] + f")<-[{rel.group(1)}]-(" + real[rel.end() :]
                rg, rr = backend.run_with(None, [real, rev])
                if rg.error is not None or backend.same(real, rg, rr):
                    continue
                pairs.append(pair)
                if len(pairs) >= 2:
                    break
    elif kind == "gt_vs_ge":
        pairs = _gt_pairs(wd50k)
    else:
        build = {"filter_every_row_passes": _filter_pair, "count_without_duplicates": _count_pair}
        pairs = _pairs(wd50k, build[kind])
    assert pairs, f"no WD50K task gives a coinciding prediction of kind {kind}"
    for gold, pred in pairs:
        suite = distil(backend, gold, max_size=8, seed=0)
        verdict = ts_verdict(backend, suite, gold, pred)
        assert verdict.on_original, (gold, pred)  # EX 1 on the graph itself
        assert not verdict.correct, (kind, gold, pred, suite.to_json())
        assert verdict.separated_by is not None
        assert verdict.separated_by in suite.deltas


def _rename_aliases(gold: str) -> str | None:
    names = sorted(set(re.findall(r"\((\w+)[:)]", gold)) | set(re.findall(r"\[(\w+)[:\]]", gold)))
    if not names:
        return None
    if any(re.search(rf"'[^']*\b{n}\b[^']*'", gold) for n in names):
        return None
    out = gold
    for n in names:
        out = re.sub(rf"(?<![\w.`'])\b{n}\b(?![\w`'(])", f"{n}_renamed", out)
    return out


def _reverse_pattern(gold: str) -> str | None:
    m = re.match(r"MATCH (\([^()]*\))-(\[[^\]]*\])->(\([^()]*\))(?=\s|,)", gold)
    if m is None:
        return None
    return f"MATCH {m.group(3)}<-{m.group(2)}-{m.group(1)}" + gold[m.end() :]


def _map_to_where(gold: str) -> str | None:
    m = re.match(r"MATCH \((\w+)(:\w+) \{name: ('(?:[^'\\]|\\.)*')\}\)", gold)
    if m is None:
        return None
    rest = gold[m.end() :]
    cut = re.search(r" (WHERE|WITH|RETURN|MATCH|OPTIONAL) ", rest)
    if cut is None:
        return None
    cond = f"{m.group(1)}.name = {m.group(3)}"
    head = f"MATCH ({m.group(1)}{m.group(2)})" + rest[: cut.start()]
    if cut.group(1) == "WHERE":
        return f"{head} WHERE {cond} AND {rest[cut.end() :]}"
    return f"{head} WHERE {cond} {rest[cut.start() + 1 :]}"


def _split_match(gold: str) -> str | None:
    m = re.match(
        r"MATCH (\([^()]*\))-(\[[^\]]*:(\w+)[^\]]*\])->\((\w+)([^()]*)\)"
        r"(<?-)(\[[^\]]*:(\w+)[^\]]*\])(->?)(\([^()]*\))",
        gold,
    )
    if m is None or m.group(3) == m.group(8):
        return None
    a, r1, _, b, b_rest, l2, r2, _, e2, c = m.groups()
    return f"MATCH {a}-{r1}->({b}{b_rest}) MATCH ({b}){l2}{r2}{e2}{c}" + gold[m.end() :]


@pytest.mark.realdata
@pytest.mark.neo4j
@pytest.mark.slow
@needs_wd50k
@pytest.mark.parametrize("kind", ["alias_names", "pattern_reversed", "map_vs_where", "split_match"])
def test_equivalent_rewrites_keep_ts_ex(wd50k: dict[str, Any], kind: str) -> None:
    from kgbench.evaluate.suites.core import distil, ts_verdict

    make = {
        "alias_names": _rename_aliases,
        "pattern_reversed": _reverse_pattern,
        "map_vs_where": _map_to_where,
        "split_match": _split_match,
    }[kind]
    backend = wd50k["backend"]
    pairs = _coinciding(wd50k, lambda g: None if "LIMIT" in g else make(g))
    assert pairs, f"no WD50K task takes a rewrite of kind {kind}"
    for gold, pred in pairs:
        suite = distil(backend, gold, max_size=8, seed=0)
        assert suite.distinguished > 0  # the suite tells the gold from near misses
        verdict = ts_verdict(backend, suite, gold, pred)
        assert verdict.correct, (kind, gold, pred, verdict.separated_by)


@pytest.mark.realdata
@pytest.mark.neo4j
@pytest.mark.slow
@needs_wd50k
def test_suites_are_deterministic_and_rolled_back(wd50k: dict[str, Any]) -> None:
    from kgbench.evaluate.suites.core import distil

    backend, db = wd50k["backend"], wd50k["db"]
    before = db.counts()
    gold = next(
        t["gold_cypher"]
        for t in wd50k["tasks"]
        if "count(" in t["gold_cypher"] and "{name: '" in t["gold_cypher"]
    )
    a = distil(backend, gold, max_size=8, seed=0)
    b = distil(backend, gold, max_size=8, seed=0)
    assert a.to_json() == b.to_json()
    assert a.neighbours > 0 and a.distinguished > 0
    assert db.counts() == before  # every delta was rolled back
    kinds = {d.kind for d in backend.candidate_deltas(gold, 0, 32)}
    assert {"delete_relationship", "set_property", "add_node", "delete_node"} <= kinds
    # a write query is never sent, even inside a rolled-back transaction
    (res,) = backend.run_with(None, ["MATCH (n) DETACH DELETE n"])
    assert res.error is not None and "never run" in res.error
    assert db.counts() == before


@pytest.mark.realdata
@pytest.mark.neo4j
@pytest.mark.slow
@needs_wd50k
def test_cli_test_suite_scores_caches_and_refuses_writes(
    wd50k: dict[str, Any], neo4j_server: Any, neo4j_load: Any, tmp_path: Path
) -> None:
    """`kgbench evaluate --test-suite` on the user's server (read only) with the suite graph
    in a disposable database: TS-EX beside EX, the EX-1-TS-0 list, the cache reused by a
    second run, a write prediction never run."""
    from kgbench.cli import main

    graph_dir = wd50k["dir"]
    neo4j_load(graph_dir / "graph.json")
    tasks = []
    preds = []
    wrong = _pairs(wd50k, _count_pair, limit=1)
    assert wrong
    by_pair = {_count_pair(t["gold_cypher"]): t for t in wd50k["tasks"]}
    t_wrong = {**by_pair[wrong[0]], "gold_cypher": wrong[0][0]}
    tasks.append(t_wrong)
    preds.append({"qid": t_wrong["qid"], "pred_cypher": wrong[0][1]})
    others = [t for t in wd50k["tasks"] if t["qid"] != t_wrong["qid"]][:2]
    tasks += others
    preds.append({"qid": others[0]["qid"], "pred_cypher": others[0]["gold_cypher"]})
    preds.append({"qid": others[1]["qid"], "pred_cypher": "MATCH (n) DETACH DELETE n"})
    (tmp_path / "tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    with (tmp_path / "preds.jsonl").open("w", encoding="utf-8") as f:
        for p in preds:
            f.write(json.dumps(p) + "\n")
    args = [
        "evaluate", "--tasks", str(tmp_path / "tasks.json"),
        "--predictions", str(tmp_path / "preds.jsonl"), "--uri", neo4j_server.uri,
        "--metrics", "ex", "--test-suite", "4", "--suite-graph", str(graph_dir),
    ]  # fmt: skip
    assert main([*args, "--out", str(tmp_path / "out1")]) == 0
    agg = json.loads((tmp_path / "out1" / "aggregated_metrics.json").read_text())
    recs = json.loads((tmp_path / "out1" / "result_with_metrics.json").read_text())
    by_qid = {r["qid"]: r for r in recs}
    r0 = by_qid[t_wrong["qid"]]
    assert r0["metrics"]["execution_accuracy"] == 1.0
    assert r0["metrics"]["ts_execution_accuracy"] == 0.0
    assert r0["test_suite"]["separated_by"]["kind"]
    assert by_qid[others[0]["qid"]]["metrics"]["ts_execution_accuracy"] == 1.0
    assert by_qid[others[1]["qid"]]["metrics"]["ts_execution_accuracy"] == 0.0
    assert by_qid[others[1]["qid"]]["errors"]["execution_accuracy"]["error_class"] == "write"
    assert agg["ts_execution_accuracy"] == pytest.approx(1 / 3, abs=1e-4)
    assert [e["qid"] for e in agg["test_suite"]["ex_not_ts_tasks"]] == [t_wrong["qid"]]
    assert agg["test_suite"]["suites"] == {"reused": 0, "distilled": 3, "rebuilt": 0}
    cache = tmp_path / "out1" / "test_suite_cache.json"
    assert cache.exists()
    # a second run (another output directory, the same cache) reuses every suite
    assert main([*args, "--suite-cache", str(cache), "--out", str(tmp_path / "out2")]) == 0
    agg2 = json.loads((tmp_path / "out2" / "aggregated_metrics.json").read_text())
    assert agg2["test_suite"]["suites"] == {"reused": 3, "distilled": 0, "rebuilt": 0}
    recs2 = json.loads((tmp_path / "out2" / "result_with_metrics.json").read_text())
    assert [r["metrics"] for r in recs2] == [r["metrics"] for r in recs]


def test_cli_test_suite_without_suite_graph_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kgbench.cli import main

    (tmp_path / "t.json").write_text("[]", encoding="utf-8")
    code = main(
        [
            "evaluate", "--tasks", str(tmp_path / "t.json"), "--uri", "bolt://127.0.0.1:1",
            "--test-suite", "--out", str(tmp_path / "o"),
        ]
    )  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 1
    assert len(err.splitlines()) == 1 and "--suite-graph" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.neo4j
def test_suite_backend_on_the_mini_company_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    """A quick end-to-end check on the shipped mini_company graph: empty versus empty falls to
    TS-EX 0 (a company renamed to the gold's constant separates them), an equivalent rewrite
    keeps TS-EX 1, and every delta is rolled back. Then the server's process is killed: a
    read is tried again after each wait and ends in ConnectionLostError, and a rolled-back
    transaction is refused (never scored as a differing result or a failed delta)."""
    import signal

    from kgbench.evaluate import ConnectionLostError
    from kgbench.evaluate.suites import cypher as tsc
    from kgbench.evaluate.suites.core import distil, ts_verdict
    from kgbench.evaluate.suites.cypher import CypherSuiteBackend, open_suite_graph
    from kgbench.neo4j.disposable import WriteRefusedError

    db, graph, fingerprint = open_suite_graph(DATA / "graphs" / "mini_company.json")
    try:
        backend = CypherSuiteBackend(db, graph, fingerprint, neighbours=24)
        before = db.counts()
        gold = "MATCH (c:Company {name: 'Nobody'})-[:foundedBy]->(p:Person) RETURN p.name"
        wrong = "MATCH (c:Company {name: 'Nobody'})<-[:foundedBy]-(p:Person) RETURN p.name"
        suite = distil(backend, gold, max_size=8, seed=0, candidates=16)
        verdict = ts_verdict(backend, suite, gold, wrong)
        assert verdict.on_original and not verdict.correct
        assert verdict.separated_by is not None
        assert verdict.separated_by.kind == "set_property"
        assert "'Nobody'" in verdict.separated_by.description
        gold = "MATCH (c:Company {name: 'Google'})-[:foundedBy]->(p:Person) RETURN p.name"
        same = "MATCH (p:Person)<-[:foundedBy]-(x:Company) WHERE x.name = 'Google' RETURN p.name"
        suite = distil(backend, gold, max_size=8, seed=0, candidates=16)
        assert suite.neighbours > 0 and suite.distinguished > 0
        assert ts_verdict(backend, suite, gold, same).correct
        assert distil(backend, gold, max_size=8, seed=0, candidates=16) == suite
        assert db.counts() == before
        assert backend.reconnects == 0
        monkeypatch.setattr(tsc, "RECONNECT_WAITS_S", (0.01, 0.02))
        os.kill(db.server.pid, signal.SIGKILL)
        db.server._proc.wait(timeout=60)
        with pytest.raises(ConnectionLostError, match="lost 3 times in a row"):
            backend.candidate_deltas(gold, 0, 16)
        assert backend.reconnects == 2
        with pytest.raises(WriteRefusedError, match="not running"):
            backend.run_with(None, [gold])
    finally:
        db.stop()


@pytest.mark.neo4j
def test_cli_test_suite_with_several_prediction_files(
    neo4j_server: Any, neo4j_load: Any, tmp_path: Path
) -> None:
    """`--test-suite` with two `--predictions NAME=FILE`: each gold's suite is distilled once
    (by the first run) and reused by the second from the one cache; each run's files hold its
    own TS-EX, EX-1-TS-0 list and counters, and the leaderboard adds TS-EX."""
    from kgbench.cli import main

    graph = DATA / "graphs" / "mini_company.json"
    neo4j_load(graph)
    nobody = "MATCH (c:Company {name: 'Nobody'})-[:foundedBy]->(p:Person) RETURN p.name"
    google = "MATCH (c:Company {name: 'Google'})-[:foundedBy]->(p:Person) RETURN p.name"
    tasks = [
        {"qid": "nobody", "graph": "mini_company", "gold_cypher": nobody},
        {"qid": "google", "graph": "mini_company", "gold_cypher": google},
    ]
    (tmp_path / "tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    runs = {
        # empty against empty by coincidence (TS-EX 0); an equivalent rewrite (TS-EX 1)
        "a": {
            "nobody": nobody.replace("-[:foundedBy]->", "<-[:foundedBy]-"),
            "google": "MATCH (p:Person)<-[:foundedBy]-(x:Company) WHERE x.name = 'Google' "
            "RETURN p.name",
        },
        # the gold itself (TS-EX 1); wrong on the graph already (EX 0, TS-EX 0)
        "b": {"nobody": nobody, "google": google + " LIMIT 0"},
    }
    args = ["evaluate", "--tasks", str(tmp_path / "tasks.json"), "--uri", neo4j_server.uri]
    for name, preds in runs.items():
        with (tmp_path / f"{name}.jsonl").open("w", encoding="utf-8") as f:
            for qid, pred in preds.items():
                f.write(json.dumps({"qid": qid, "pred_cypher": pred}) + "\n")
        args += ["--predictions", f"{name}={tmp_path / f'{name}.jsonl'}"]
    out = tmp_path / "out"
    args += ["--metrics", "ex", "--test-suite", "4", "--suite-graph", str(graph)]
    assert main([*args, "--out", str(out)]) == 0
    expected = {
        "a": ({"nobody": 1.0, "google": 1.0}, {"nobody": 0.0, "google": 1.0}),
        "b": ({"nobody": 1.0, "google": 0.0}, {"nobody": 1.0, "google": 0.0}),
    }
    suites = {}
    for name, (ex, ts) in expected.items():
        recs = json.loads((out / name / "result_with_metrics.json").read_text(encoding="utf-8"))
        agg = json.loads((out / name / "aggregated_metrics.json").read_text(encoding="utf-8"))
        assert {r["qid"]: r["metrics"]["execution_accuracy"] for r in recs} == ex
        assert {r["qid"]: r["metrics"]["ts_execution_accuracy"] for r in recs} == ts
        assert agg["ts_execution_accuracy"] == sum(ts.values()) / 2
        listed = [e["qid"] for e in agg["test_suite"]["ex_not_ts_tasks"]]
        assert listed == (["nobody"] if name == "a" else [])
        suites[name] = agg["test_suite"]["suites"]
        for r in recs:  # the same suite for both runs
            assert r["test_suite"]["size"] >= 0 and r["test_suite"]["neighbours"] > 0
    assert suites == {
        "a": {"reused": 0, "distilled": 2, "rebuilt": 0},
        "b": {"reused": 2, "distilled": 0, "rebuilt": 0},
    }
    cache = json.loads((out / "test_suite_cache.json").read_text(encoding="utf-8"))
    assert len(cache["entries"]) == 2
    board = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert board["metrics"] == ["execution_accuracy", "ts_execution_accuracy"]
    overall = {r["name"]: r["overall"]["ts_execution_accuracy"] for r in board["runs"]}
    assert overall == {"a": 0.5, "b": 0.5}
    for run in board["runs"]:  # TS-EX has its bootstrap interval beside EX's
        low, high = run["ci95"]["ts_execution_accuracy"]
        assert 0.0 <= low <= 0.5 <= high <= 1.0
    (pair,) = board["pairs"]
    ts_pair = pair["metrics"]["ts_execution_accuracy"]
    assert ts_pair["difference"] == 0.0 and ts_pair["a_only"] == ts_pair["b_only"] == 1


@pytest.mark.neo4j
def test_relationship_property_deltas_separate_a_coinciding_filter() -> None:
    """A filter on a relationship property (`hasCEO.start_year`) that coincides on the graph
    (no CEO started in 2017: `> 2016` and `> 2017` give the same rows) is told apart only
    by a delta on the relationship's property; the relationships are restored."""
    from kgbench.evaluate.suites.core import distil, ts_verdict
    from kgbench.evaluate.suites.cypher import CypherSuiteBackend, open_suite_graph

    db, graph, fingerprint = open_suite_graph(DATA / "graphs" / "mini_company.json")
    try:
        backend = CypherSuiteBackend(db, graph, fingerprint, neighbours=24)
        before = backend.run_with(
            None, ["MATCH ()-[r:hasCEO]->() RETURN r.rid, r.start_year ORDER BY r.rid"]
        )
        gold = "MATCH (c:Company)-[r:hasCEO]->(p:Person) WHERE r.start_year > 2016 RETURN p.name"
        wrong = gold.replace("> 2016", "> 2017")
        g, w = backend.run_with(None, [gold, wrong])
        assert backend.same(gold, g, w) and g.rows  # EX 1, not empty against empty
        pool = backend.candidate_deltas(gold, 0, 64)
        rel = [d for d in pool if d.kind == "set_relationship_property"]
        assert rel and all("start_year" in d.description for d in rel)
        suite = distil(backend, gold, max_size=8, seed=0, candidates=64)
        verdict = ts_verdict(backend, suite, gold, wrong)
        assert verdict.on_original and not verdict.correct
        assert verdict.separated_by is not None
        assert verdict.separated_by.kind == "set_relationship_property"
        assert "start_year = 2017" in verdict.separated_by.description
        # a gold naming no relationship property gets no such delta
        plain = "MATCH (c:Company {name: 'Google'})-[:foundedBy]->(p:Person) RETURN p.name"
        assert all(
            d.kind != "set_relationship_property" for d in backend.candidate_deltas(plain, 0, 64)
        )
        after = backend.run_with(
            None, ["MATCH ()-[r:hasCEO]->() RETURN r.rid, r.start_year ORDER BY r.rid"]
        )
        assert after == before
    finally:
        db.stop()
