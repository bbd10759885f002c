"""``kgbench generate ngdbench`` (spec ngdbench.md §4): analytic and Boolean tasks around the
noise of ``kgbench noise``, gold on the clean graph and ``noise_answer`` on the noisy one, on
real data — Spider's concert_singer (relational → property graph) and kgbench's conversion of
the real WD50K Wikidata dump."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from kgbench.convert import read_graph
from kgbench.errors import InputError
from kgbench.generate.ngdbench.analytic import (
    CleanIndex,
    collect_anchors,
    instantiate,
    load_templates,
    multiset_equal,
)
from kgbench.generate.ngdbench.build import read_noisy_dir
from kgbench.noise import inject_noise

DATA = Path(__file__).parent / "data"
WD50K = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "wikidata" / "wd50k" / "wd50k.nt.gz"
)
WD50K_SCHEMA = DATA / "wd50k" / "wd50k.wd2neo4j.json"


@pytest.fixture(scope="module")
def spider(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """concert_singer as a property graph (kgbench rdb) and its noise (default profile)."""
    from kgbench.rdb.convert import convert_rdb

    d = tmp_path_factory.mktemp("ngd_spider")
    convert_rdb(
        DATA / "spider" / "concert_singer.sqlite",
        DATA / "spider" / "concert_singer.tables.json",
        "concert_singer",
        d / "clean",
    )
    inject_noise(d / "clean" / "graph.json", d / "noisy")
    return d / "clean" / "graph.json", d / "noisy"


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_template_library_is_checked(tmp_path: Path) -> None:
    lib = load_templates()
    assert {t.family for t in lib} == {"noagg", "agg", "boolean"}
    assert {t.type for t in lib} >= {"basic", "chain", "anti", "union", "join", "triadic"}
    bad = [
        (
            {
                "id": "T1",
                "family": "noagg",
                "anchor": "node",
                "template": "RETURN $X",
                "nl": "x",
                "parameters": {"X": "colour"},
            },
            "unknown kind",
        ),
        (
            {
                "id": "T1",
                "family": "noagg",
                "anchor": "node",
                "template": "RETURN $X",
                "nl": "x",
                "parameters": {},
            },
            "not declared",
        ),
        (
            {
                "id": "T1",
                "family": "boolean",
                "anchor": "node",
                "template": "RETURN 1",
                "nl": "x",
                "parameters": {},
            },
            "anti_template",
        ),
        (
            {
                "id": "T1",
                "family": "sum",
                "anchor": "node",
                "template": "RETURN 1",
                "nl": "x",
                "parameters": {},
            },
            "family",
        ),
    ]
    for template, message in bad:
        f = tmp_path / "t.json"
        f.write_text(json.dumps([{"type": "basic", "templates": [template]}]), encoding="utf-8")
        with pytest.raises(InputError, match=message) as info:
            load_templates(f)
        assert str(f) in str(info.value)


def test_anchors_follow_the_noise_log(spider: tuple[Path, Path]) -> None:
    clean, noisy = spider
    log = _json(noisy / "noise_log.json")
    index = CleanIndex.of(_json(clean))
    anchors, counts = collect_anchors(log, index, seed=42)
    noisy_nodes = set(log["detailed_records"]["noisy_nodes_list"])
    assert counts["noisy_nodes"] == len(noisy_nodes)
    assert [a.id for a in anchors if a.noisy and a.kind == "node"] == sorted(noisy_nodes)
    n_noisy = counts["noisy_nodes"] + counts["noisy_edges"]
    assert counts["clean_nodes"] + counts["clean_edges"] == n_noisy // 4
    assert counts["clean_nodes"] == round((n_noisy // 4) * 0.7)
    assert not any(a.id in noisy_nodes for a in anchors if not a.noisy and a.kind == "node")
    again, _ = collect_anchors(log, index, seed=42)
    assert again == anchors
    # an added (false) edge is an anchor with its noisy type
    added = {r["edge_key"]: r["new_attrs"]["label"] for r in log["detailed_records"]["added_edges"]}
    for a in anchors:
        if a.kind == "edge" and a.id in added:
            assert a.rel == added[a.id]


def test_every_template_instantiates_to_valid_cypher(spider: tuple[Path, Path]) -> None:
    from kgbench._core import cypher

    clean, noisy = spider
    index = CleanIndex.of(_json(clean))
    anchors, _ = collect_anchors(_json(noisy / "noise_log.json"), index)
    used = set()
    for t in load_templates():
        for a in anchors:
            c = instantiate(t, a, index, seed=42)
            if isinstance(c, str):
                continue
            used.add(t.template_id)
            for q in (c.query, c.anti_query):
                if q is None:
                    continue
                assert "$" not in q, q
                assert cypher.write_clauses(q) == [], q
            assert "$" not in c.nlp, c.nlp
            assert c == instantiate(t, a, index, seed=42)
    # the filter template needs a numeric property on a node with out-edges: all others fit
    missing = {t.template_id for t in load_templates()} - used
    assert missing <= {"filter_T1", "aggregate_T4", "aggregate_T6", "triadic_T1"}, missing


def test_same_as_cleangraph_is_multiset_equality() -> None:
    assert multiset_equal(["a", "b", "a"], ["a", "a", "b"])
    assert not multiset_equal(["a", "b"], ["a", "b", "b"])
    assert multiset_equal(3, [3.0])
    assert not multiset_equal(["a", "b"], ["b", "a"], ordered=True)
    assert multiset_equal([{"a": 1, "b": "x"}], [{"b": "x", "a": 1}])


def test_noisy_dir_must_belong_to_the_clean_graph(
    spider: tuple[Path, Path], tmp_path: Path
) -> None:
    clean, noisy = spider
    clean_graph, noisy_graph, log = read_noisy_dir(noisy, clean)
    assert clean_graph == read_graph(clean) and noisy_graph == read_graph(noisy / "graph.json")
    assert log["seed"] == 42
    other = tmp_path / "other.json"
    other.write_bytes(clean.read_bytes() + b"\n")
    with pytest.raises(InputError, match="not the clean graph"):
        read_noisy_dir(noisy, other)
    with pytest.raises(InputError, match="output directory of `kgbench noise`"):
        read_noisy_dir(tmp_path, clean)


def test_noisy_dir_reads_each_graph_once(spider: tuple[Path, Path], tmp_path: Path) -> None:
    """The SHA-256 checked is that of the bytes parsed: a clean graph that can be read only
    once (a named pipe, written once by a thread) is checked and parsed."""
    clean, noisy = spider
    fifo = tmp_path / "clean.fifo"
    os.mkfifo(fifo)
    data = clean.read_bytes()

    def feed() -> None:
        with open(fifo, "wb") as f:
            f.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    result: list[Any] = []
    reader = threading.Thread(
        target=lambda: result.append(read_noisy_dir(noisy, fifo)[0]), daemon=True
    )
    reader.start()
    reader.join(timeout=60)
    assert not reader.is_alive(), "read_noisy_dir opened the clean graph a second time"
    assert result == [read_graph(clean)]


def _check_answers(tasks: list[dict[str, Any]], driver: Any, key: str) -> None:
    """Every analytic task's ``key`` (``answer`` / ``noise_answer``) is its query's answer on
    the graph behind ``driver``, and same_as_cleangraph is the multiset equality of the two."""
    from kgbench.evaluate.ngdbench import answer_from_rows
    from kgbench.neo4j import QueryExecutor

    analytic = [t for t in tasks if t.get("family") in ("noagg", "agg")]
    results = QueryExecutor(driver).run_many([t["query"] for t in analytic])
    for t, r in zip(analytic, results, strict=True):
        got = answer_from_rows(r.columns, r.rows) if r.rows else []
        assert multiset_equal(t[key], got), (t["qid"], key)
        assert t["same_as_cleangraph"] == multiset_equal(t["answer"], t["noise_answer"])


@pytest.mark.neo4j
def test_generate_on_spider_concert_singer(
    spider: tuple[Path, Path],
    tmp_path: Path,
    neo4j_server: Any,
    neo4j_driver: Any,
    neo4j_load: Any,
) -> None:
    from kgbench.cli import main
    from kgbench.evaluate.ngdbench import evaluate_ngdbench

    clean, noisy = spider
    out = tmp_path / "out"
    neo4j_load(noisy / "graph.json")
    args = ["generate", "ngdbench", "--clean", str(clean), "--noisy", str(noisy)]
    args += ["--out", str(out), "--quiet", "--noisy-uri", neo4j_server.uri]
    # 2 management batches per operator (default 10): the batches themselves are
    # test_ngdbench_management's; here they only have to reach tasks.json
    args += ["--management-batches", "2"]
    assert main(args) == 0
    tasks = _json(out / "tasks.json")
    report = _json(out / "report.json")
    fams = {str(t.get("family", "management")) for t in tasks}
    assert {"noagg", "agg", "boolean", "management"} <= fams
    assert report["tasks"] == {
        f: sum(1 for t in tasks if t.get("family", "management") == f) for f in report["tasks"]
    }
    analytic = [t for t in tasks if t.get("family") in ("noagg", "agg")]
    assert any(t["same_as_cleangraph"] for t in analytic)
    assert any(not t["same_as_cleangraph"] for t in analytic)
    assert any(t["is_noise_query"] for t in analytic) and any(
        not t["is_noise_query"] for t in analytic
    )
    for t in tasks:
        if t.get("family") == "noagg":
            assert len(t["answer"]) <= 32 if isinstance(t["answer"], list) else True
        if t.get("family") == "boolean":
            side = t["clean_answer"]
            assert side["valid_answer"] and side["invalid_answer"]
            assert len(side["valid_answer"]) <= 20 and len(side["invalid_answer"]) <= 20
    # the gold answers are the queries' answers on each graph
    _check_answers(tasks, neo4j_driver, "noise_answer")
    neo4j_load(clean)
    _check_answers(tasks, neo4j_driver, "answer")
    # the oracle row: the gold queries on the noisy graph, scored against the clean answers
    result = evaluate_ngdbench(out / "tasks.json")
    oracle = result.aggregated["oracle"]
    assert 0 < oracle["noagg"]["jaccard"] < 1
    assert oracle["agg"]["smape"] is not None


@pytest.mark.realdata
@pytest.mark.neo4j
def test_generate_is_deterministic_on_wd50k(
    tmp_path: Path, neo4j_server: Any, neo4j_driver: Any, neo4j_load: Any
) -> None:
    """On the converted WD50K dump: two runs give byte-identical tasks.json; the answers are
    the queries' answers on the noisy graph. Both runs share one clean disposable database
    (``clean_db``), which refuses a graph it was not loaded with."""
    if not WD50K.exists():
        pytest.skip(f"the shared WD50K dump is absent ({WD50K})")
    from kgbench.convert import convert
    from kgbench.generate.ngdbench.build import generate_ngdbench
    from kgbench.neo4j.disposable import DisposableNeo4j

    convert(str(WD50K_SCHEMA), [str(WD50K)], str(tmp_path / "g"))
    inject_noise(tmp_path / "g" / "graph.json", tmp_path / "n")
    neo4j_load(tmp_path / "n" / "graph.json")
    kwargs: dict[str, Any] = {
        "max_anchors": 100,
        "management": False,
        "noisy_uri": neo4j_server.uri,
        "log": lambda _m: None,
    }
    with DisposableNeo4j(tmp_path / "g" / "graph.json") as clean_db:
        kwargs["clean_db"] = clean_db
        a = generate_ngdbench(tmp_path / "g", tmp_path / "n", tmp_path / "a", **kwargs)
        generate_ngdbench(tmp_path / "g", tmp_path / "n", tmp_path / "b", **kwargs)
        with pytest.raises(InputError, match=r"holds .* not the graph's"):
            clean_db.require_graph({"entities": [], "relations": []})
    ta, tb = (tmp_path / d / "tasks.json" for d in ("a", "b"))
    assert ta.read_bytes() == tb.read_bytes()
    tasks = _json(ta)
    assert a["anchors"]["noisy_nodes"] + a["anchors"]["noisy_edges"] == 100
    assert a["tasks"]["noagg"] > 40 and a["tasks"]["agg"] > 40 and a["tasks"]["boolean"] > 5
    _check_answers(tasks, neo4j_driver, "noise_answer")
    differs = sum(
        1 for t in tasks if t.get("family") in ("noagg", "agg") and not t["same_as_cleangraph"]
    )
    assert differs > 20
