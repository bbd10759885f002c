"""The persistent result cache of ``kgbench evaluate`` (issue 32): every executed query (gold,
predicted, provenance) is kept per graph, keyed by the database's content, the query text and
the timeout. A second pass sends nothing, a sixth prediction file sends only its new distinct
queries, a changed database never gets a cached result, ``--no-cache`` sends everything,
timeouts are not kept and a damaged cache file is a warning, then rebuilt.

Real parts: the session Neo4j (tests/conftest.py), tests/data/cypher (graph.json, tasks.json,
predictions.jsonl), tests/data/graphs/mini_company.json. Queries are counted with the
executors' own counter (``QueryExecutor.sent``, summed in ``queries_sent``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgbench.cli import main
from kgbench.evaluate.multirun import evaluate_runs
from kgbench.evaluate.provenance import prediction_failure, provenance_of
from kgbench.evaluate.runner import cache_file, evaluate
from kgbench.tasks import clean_prediction, load_predictions
from test_evaluate_reliability import _renamed_graph

DATA = Path(__file__).parent / "data" / "cypher"
MINI_COMPANY = Path(__file__).parent / "data" / "graphs" / "mini_company.json"
TASKS = json.loads((DATA / "tasks.json").read_text(encoding="utf-8"))
GOLD = {t["qid"]: t for t in TASKS}

pytestmark = pytest.mark.neo4j


def _write(path: Path, preds: dict[str, str | None]) -> Path:
    path.write_text(
        "".join(json.dumps({"qid": q, "pred_cypher": p}) + "\n" for q, p in preds.items()),
        encoding="utf-8",
    )
    return path


def _model_files(tmp_path: Path) -> list[tuple[str, Path]]:
    """Two overlapping prediction files: the shipped one and the gold (an oracle)."""
    oracle = _write(tmp_path / "oracle.jsonl", {t["qid"]: t["gold_cypher"] for t in TASKS})
    return [("model", DATA / "predictions.jsonl"), ("oracle", oracle)]


def _single(uri: str, preds: Path, **options: Any) -> tuple[Any, int]:
    """One single-run evaluation; its result and the queries its executors sent."""
    result = evaluate(DATA / "tasks.json", preds, uri=uri, **options)
    return result, result.queries_sent


@pytest.fixture
def uri(neo4j_server: Any, neo4j_load: Callable[[Any], Any]) -> str:
    neo4j_load(DATA / "graph.json")
    return str(neo4j_server.uri)


def test_a_second_pass_sends_no_query(uri: str, tmp_path: Path) -> None:
    runs = _model_files(tmp_path)
    cache = tmp_path / "cache"
    first = evaluate_runs(DATA / "tasks.json", runs, uri=uri, workers=2, cache_dir=cache)
    assert first.queries_sent > 0
    notes: list[str] = []
    second = evaluate_runs(
        DATA / "tasks.json", runs, uri=uri, workers=2, cache_dir=cache, log=notes.append
    )
    assert second.queries_sent == 0
    for name, _ in runs:
        assert second.runs[name].records == first.runs[name].records
        assert second.runs[name].aggregated == first.runs[name].aggregated
    assert any("cached results reused (database unchanged" in n for n in notes)
    # a single run of one of the files is answered from the same cache too
    single, sent = _single(uri, runs[0][1], workers=2, cache_dir=cache)
    assert sent == 0 and single.records == first.runs["model"].records
    assert single.cache["nba_mini"]["status"] == "reused" and single.cache["nba_mini"]["hits"] > 0


def _queries_of(preds: dict[str, str | None]) -> set[tuple[str, str]]:
    """(graph, query) of every query an evaluation of ``preds`` (EX, PSJS, Exec) sends: each
    task's gold query; where the prediction differs from it, the gold's provenance queries;
    and each prediction that runs (not missing, empty or a write) and differs from its gold,
    with its provenance queries."""
    out: set[tuple[str, str]] = set()
    for task in TASKS:
        graph, gold = task["graph"], task["gold_cypher"]
        raw = preds.get(task["qid"])
        pred = None if raw is None else clean_prediction(raw)
        out.add((graph, gold))
        if pred == gold:
            continue
        out.update((graph, q) for q in provenance_of(gold).queries)
        if pred is not None and prediction_failure(pred) is None:
            out.add((graph, pred))
            out.update((graph, q) for q in provenance_of(pred).queries)
    return out


def test_a_sixth_file_sends_only_its_new_distinct_queries(uri: str, tmp_path: Path) -> None:
    runs = _model_files(tmp_path)
    cache = tmp_path / "cache"
    first = evaluate_runs(DATA / "tasks.json", runs, uri=uri, workers=2, cache_dir=cache)
    assert first.queries_sent > 0
    earlier = load_predictions(runs[0][1])
    qids = [t["qid"] for t in TASKS]
    sixth = {
        qids[0]: TASKS[0]["gold_cypher"],  # the gold: answered
        qids[1]: earlier[qids[1]],  # the first model's: answered
        qids[2]: "MATCH (p:Player) WHERE p.height_cm > 200 RETURN p.name",  # new
        qids[3]: "MATCH (t:Team) WHERE t.inception_year < 1950 RETURN count(t) AS n",  # new
        qids[4]: "MATCH (t:Team) WHERE t.inception_year < 1950 RETURN count(t) AS n",  # again
        qids[5]: "MATCH (n) DETACH DELETE n",  # a write: never sent
        qids[6]: "MATCH (p:Player RETURN p",  # new, a syntax error (sent, the server says so)
    }
    path = _write(tmp_path / "sixth.jsonl", sixth)
    old = _queries_of(earlier) | _queries_of({t["qid"]: t["gold_cypher"] for t in TASKS})
    assert first.queries_sent == len(old)
    new = _queries_of(sixth) - old
    assert len(new) >= 3
    again = evaluate_runs(
        DATA / "tasks.json", [*runs, ("sixth", path)], uri=uri, workers=2, cache_dir=cache
    )
    assert again.queries_sent == len(new)
    for name, _ in runs:
        assert again.runs[name].records == first.runs[name].records
    # the sixth file scored as a single run without any cache scores it
    alone, _ = _single(uri, path, workers=2)
    assert again.runs["sixth"].records == alone.records


def test_a_changed_database_never_gets_a_cached_result(
    uri: str, neo4j_load: Callable[[Any], Any], tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    preds = DATA / "predictions.jsonl"
    first, sent_a = _single(uri, preds, workers=2, cache_dir=cache)
    for graph in (_renamed_graph(tmp_path), MINI_COMPANY):
        neo4j_load(graph)
        cached, sent = _single(uri, preds, workers=2, cache_dir=cache)
        fresh, sent_fresh = _single(uri, preds, workers=2)
        assert sent == sent_a  # every query sent again, as on a new cache
        assert sent_fresh >= sent  # (without a cache, a text in two phases is sent twice)
        assert cached.records == fresh.records
        assert cached.cache["nba_mini"]["status"] == "invalidated"
        # as on a new cache: only this run's own answers (a text in two phases)
        assert cached.cache["nba_mini"]["hits"] == first.cache["nba_mini"]["hits"]
    lines = [json.loads(x) for x in cache_file(cache, "nba_mini").read_text("utf-8").splitlines()]
    assert lines and all(d["db"]["nodes"] == 14 for d in lines)  # mini_company's content only


def test_no_cache_sends_everything(uri: str, tmp_path: Path, capsys: Any) -> None:
    preds = DATA / "predictions.jsonl"
    _, first = _single(uri, preds, workers=2)
    _, second = _single(uri, preds, workers=2)
    assert first == second > 0
    out = tmp_path / "out"
    argv = ["evaluate", "--tasks", str(DATA / "tasks.json"), "--predictions", str(preds)]
    argv += ["--uri", uri, "--out", str(out), "--no-cache"]
    for _ in range(2):
        assert main(argv) == 0
        assert "result cache" not in capsys.readouterr().err
    assert not (out / "cache").exists()
    assert main([*argv, "--cache", str(tmp_path / "c")]) == 1
    assert "--no-cache and --cache" in capsys.readouterr().err
    # without --no-cache the CLI keeps OUT/cache
    assert main(argv[:-1]) == 0
    assert "result cache" in capsys.readouterr().err and (out / "cache").is_dir()


SLOW = "UNWIND range(1, 3000000000) AS x WITH x WHERE x % 7 = 123 RETURN count(*) AS n"


def test_a_timeout_is_not_cached(neo4j_driver: Any, tmp_path: Path) -> None:
    """A query that timed out is sent again by the next executor (a later pass retries it)."""
    from kgbench.neo4j import QueryExecutor
    from kgbench.neo4j.executor import database_fingerprint

    cache = tmp_path / "g.cache.jsonl"
    fp = database_fingerprint(neo4j_driver)
    for _ in range(2):
        executor = QueryExecutor(neo4j_driver, timeout_s=0.5, cache_path=cache, fingerprint=fp)
        assert executor.run(SLOW).error_class == "timeout"
        assert executor.sent == 1 and executor.cache_hits == 0
    assert not cache.exists() or cache.read_text("utf-8") == ""
    quick = QueryExecutor(neo4j_driver, timeout_s=0.5, cache_path=cache, fingerprint=fp)
    assert quick.run("RETURN 1 AS one").rows == [[1]]
    # the timeout is part of the key: another limit sends the query again
    other = QueryExecutor(neo4j_driver, timeout_s=5.0, cache_path=cache, fingerprint=fp)
    assert other.run("RETURN 1 AS one").rows == [[1]] and other.sent == 1
    same = QueryExecutor(neo4j_driver, timeout_s=0.5, cache_path=cache, fingerprint=fp)
    assert same.run("RETURN 1 AS one").rows == [[1]] and same.sent == 0


def test_a_damaged_cache_file_is_a_warning_and_is_rebuilt(uri: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    preds = DATA / "predictions.jsonl"
    first, _ = _single(uri, preds, workers=2, cache_dir=cache)
    path = cache_file(cache, "nba_mini")
    lines = path.read_text("utf-8").splitlines(keepends=True)
    # a line of garbage in the middle, invalid UTF-8, and a last line cut short by a crash
    path.write_bytes(
        (lines[0] + "not json\n").encode("utf-8")
        + b'{"graph": "\xff"}\n'
        + "".join(lines[1:-1]).encode("utf-8")
        + lines[-1][:20].encode("utf-8")
    )
    notes: list[str] = []
    again = evaluate(
        DATA / "tasks.json", preds, uri=uri, workers=2, cache_dir=cache, log=notes.append
    )
    warnings = [n for n in notes if n.startswith("warning: result cache")]
    assert len(warnings) == 1 and "3 damaged line(s) dropped (line 2:" in warnings[0]
    assert "\n" not in warnings[0]
    assert again.records == first.records
    assert again.cache["nba_mini"]["corrupt"] == 3
    assert again.queries_sent == 1  # only the query of the cut line is sent again
    rebuilt = path.read_text("utf-8").splitlines()
    assert len(rebuilt) == len(lines) and all(json.loads(x)["query"] for x in rebuilt)
