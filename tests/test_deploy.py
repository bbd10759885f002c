"""``kgbench deploy`` (kgbench.neo4j.deploy, issue 38): a CypherBench benchmark directory laid
out as published (graphs/simplekg/<graph>_simplekg.json, test.json) deployed into local Neo4j
data directories by the offline import, the map in neo4j_info.json form, and its readers.

The layout's graphs: the demo graph (converted from the package's demo RDF), a Spider database
converted by ``kgbench rdb`` (tests/data/spider/concert_singer) and the hand-written
``tests/data/graphs/mini_company.json``; test.json is the demo's tasks (graph wikidata_demo).
The imports run once per module (three JVMs); the tests that import again or start a server are
marked ``neo4j``.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from kgbench.cli import main
from kgbench.neo4j.deploy import (
    BASE_PORT,
    MAP_FILE,
    DeployError,
    deploy,
    deployed_graphs,
    graph_file,
)
from kgbench.neo4j.targets import load_graph_targets

DATA = Path(__file__).parent / "data"
GRAPHS = ("concert_singer", "mini_company", "wikidata_demo")


def _graph_sources(tmp: Path) -> dict[str, Path]:
    from kgbench.convert import convert
    from kgbench.demo.run import demo_files
    from kgbench.rdb.convert import convert_rdb

    files = demo_files()
    convert(str(files.schema), [str(p) for p in files.inputs], str(tmp / "demo"))
    spider = DATA / "spider"
    convert_rdb(
        spider / "concert_singer.sqlite",
        spider / "concert_singer.tables.json",
        "concert_singer",
        tmp / "spider",
    )
    return {
        "wikidata_demo": tmp / "demo" / "graph.json",
        "concert_singer": tmp / "spider" / "graph.json",
        "mini_company": DATA / "graphs" / "mini_company.json",
    }


def _layout(bench: Path, sources: dict[str, Path], graphs: tuple[str, ...] = GRAPHS) -> Path:
    """A benchmark directory as CypherBench publishes it (the parts deploy reads)."""
    from kgbench.demo.run import demo_files

    (bench / "graphs" / "simplekg").mkdir(parents=True, exist_ok=True)
    (bench / "graphs" / "schemas").mkdir(parents=True, exist_ok=True)
    for g in graphs:
        shutil.copyfile(sources[g], graph_file(bench, g))
    shutil.copyfile(demo_files().tasks, bench / "test.json")
    (bench / "train.json").write_text("[]\n", encoding="utf-8")
    return bench


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _graph_sources(tmp_path_factory.mktemp("deploy-sources"))


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory, sources: dict[str, Path]) -> dict[str, Any]:
    """The layout deployed once through the CLI (three offline imports)."""
    bench = _layout(tmp_path_factory.mktemp("deploy") / "benchmark", sources)
    t0 = time.perf_counter()
    code = main(["deploy", str(bench), "--heap", "1g", "--pagecache", "256m"])
    seconds = time.perf_counter() - t0
    print(f"\nfirst deploy of {len(GRAPHS)} graphs: {seconds:.1f} s")
    return {"bench": bench, "code": code, "seconds": seconds, "map": bench / ".kgbench" / MAP_FILE}


@pytest.mark.neo4j
def test_first_deploy_imports_every_graph_and_writes_the_map(deployed: dict[str, Any]) -> None:
    assert deployed["code"] == 0
    data = json.loads(deployed["map"].read_text(encoding="utf-8"))
    # CypherBench's form: test_domains are the graphs test.json names, full has its four keys
    assert data["test_domains"] == ["wikidata_demo"]
    assert data["train_domains"] == ["concert_singer", "mini_company"]
    assert sorted(data["full"]) == list(GRAPHS)
    for entry in data["full"].values():
        assert sorted(entry) == ["host", "password", "port", "username"]
    assert sorted(e["port"] for e in data["full"].values()) == [BASE_PORT + i for i in range(3)]
    records = deployed_graphs(deployed["map"])
    for g in GRAPHS:
        rec = records[g]
        assert Path(rec["data_dir"]) == deployed["bench"] / ".kgbench" / "graphs" / g
        assert (Path(rec["data_dir"]) / "data" / "databases" / "neo4j").is_dir()
        assert rec["fingerprint"]["size"] == graph_file(deployed["bench"], g).stat().st_size
        assert len(rec["fingerprint"]["sha256"]) == 64
        assert rec["nodes"] > 0
    # the map reads in load_graph_targets, as a file and as its directory
    for source in (deployed["map"], deployed["map"].parent):
        targets = load_graph_targets(source)
        assert sorted(targets) == list(GRAPHS)
        t = targets["mini_company"]
        assert t.uri == f"bolt://127.0.0.1:{data['full']['mini_company']['port']}"
        assert (t.user, t.password) == ("neo4j", "cypherbench")
    assert not list((deployed["bench"] / ".kgbench").glob(".import-*"))  # CSV files removed


@pytest.mark.neo4j
def test_second_deploy_imports_nothing(deployed: dict[str, Any]) -> None:
    before = deployed["map"].read_bytes()
    t0 = time.perf_counter()
    result = deploy(deployed["bench"])
    seconds = time.perf_counter() - t0
    print(f"\nsecond deploy (everything imported): {seconds:.3f} s")
    assert [o.status for o in result.outcomes] == ["skipped"] * 3
    assert deployed["map"].read_bytes() == before  # nothing to write
    # a new mtime with the same bytes: the SHA-256 decides, the new mtime is recorded
    path = graph_file(deployed["bench"], "mini_company")
    os.utime(path, ns=(time.time_ns(), time.time_ns()))
    result = deploy(deployed["bench"])
    assert [o.status for o in result.outcomes] == ["skipped"] * 3
    rec = deployed_graphs(deployed["map"])["mini_company"]
    assert rec["fingerprint"]["mtime_ns"] == path.stat().st_mtime_ns


def _bench_tasks(path: Path) -> list[dict[str, Any]]:
    """Tasks over the layout's three graphs with a prediction each (some wrong): the demo's
    40 with its shipped predictions, and four per other graph."""
    from kgbench.demo.run import demo_files

    tasks = json.loads((demo_files().tasks.parent / "predictions.json").read_text())
    count_nodes, count_rels = "MATCH (n) RETURN count(n) AS n", "MATCH ()-[r]->() RETURN count(r)"
    by_label = "MATCH (n) RETURN labels(n)[0] AS label, count(*) AS c"
    for graph in ("mini_company", "concert_singer"):
        pairs = [
            (count_nodes, count_nodes),
            (count_rels, count_rels),
            (by_label, by_label + " ORDER BY c"),
            (count_nodes, count_rels),  # a wrong prediction
        ]
        for i, (gold, pred) in enumerate(pairs):
            tasks.append(
                {
                    "qid": f"{graph}-{i}",
                    "graph": graph,
                    "gold_cypher": gold,
                    "nl_question": f"question {i}",
                    "pred_cypher": pred,
                }
            )
    tasks.sort(key=lambda t: str(t["qid"])[::-1])  # the graphs interleaved
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return tasks


def _servers_alive(where: Path) -> int:
    """Processes whose command line runs a Neo4j on a data directory under ``where``."""
    needle = f"--data\0{where}".encode()
    alive = 0
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and needle in (proc / "cmdline").read_bytes():
                alive += 1
        except OSError:
            continue
    return alive


@pytest.mark.neo4j
def test_evaluate_bench_runs_a_graph_at_a_time_and_equals_servers_by_hand(
    deployed: dict[str, Any], tmp_path: Path
) -> None:
    """`evaluate --bench --max-servers 1` on tasks over three deployed graphs, interleaved:
    the per-task metrics equal those of each graph scored alone on a server started by hand
    on its data directory, and the process table never shows two servers at once."""
    import threading

    from kgbench.neo4j import LocalNeo4j

    tasks_path = tmp_path / "tasks.json"
    tasks = _bench_tasks(tasks_path)
    graphs_dir = deployed["bench"] / ".kgbench" / "graphs"
    peak, stop = [0], threading.Event()

    def watch() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _servers_alive(graphs_dir))
            stop.wait(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        argv = ["evaluate", "--tasks", str(tasks_path), "--bench", str(deployed["bench"])]
        code = main([*argv, "--max-servers", "1", "--no-cache", "--out", str(tmp_path / "b")])
    finally:
        stop.set()
        watcher.join()
    assert code == 0
    assert peak[0] == 1, f"{peak[0]} servers were alive at once"
    assert _servers_alive(graphs_dir) == 0  # all stopped
    bench = json.loads((tmp_path / "b" / "result_with_metrics.json").read_text())
    assert len(bench) == len(tasks)

    records = deployed_graphs(deployed["map"])
    by_hand: dict[str, Any] = {}
    for graph in GRAPHS:
        rec = records[graph]
        subset = tmp_path / f"{graph}.json"
        subset.write_text(json.dumps([t for t in tasks if t["graph"] == graph]))
        with LocalNeo4j(rec["data_dir"], rec["port"], heap="1g", pagecache="256m") as server:
            argv = ["evaluate", "--tasks", str(subset), "--uri", server.uri, "--no-cache"]
            assert main([*argv, "--out", str(tmp_path / graph)]) == 0
        for r in json.loads((tmp_path / graph / "result_with_metrics.json").read_text()):
            by_hand[r["qid"]] = r["metrics"]
    assert {r["qid"]: r["metrics"] for r in bench} == by_hand
    ex = [m["execution_accuracy"] for m in by_hand.values()]
    assert 0 < sum(ex) < len(ex)  # right and wrong predictions both scored


def test_bench_inputs_are_checked_before_any_server(
    deployed: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A graph the map lacks, a memory budget below a server's smallest size, no deploy map,
    and --max-servers without --bench: one line each, no server started."""
    from kgbench.errors import InputError
    from kgbench.neo4j.bench import BenchServers, parse_size

    bench = deployed["bench"]
    with pytest.raises(InputError, match=r"needs at least 1024m of memory.*--memory gives 600m"):
        BenchServers(bench, memory=parse_size("600m"))
    with pytest.raises(InputError, match="'nba' not deployed"):
        BenchServers(bench, graphs=["nba", "mini_company"])
    with pytest.raises(InputError, match="no graph deployed there"):
        BenchServers(tmp_path)
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"qid": "a", "graph": "nba", "gold_cypher": "RETURN 1"}]))
    argv = ["evaluate", "--tasks", str(tasks), "--out", str(tmp_path / "o")]
    assert main([*argv, "--bench", str(bench)]) != 0
    assert main([*argv, "--max-servers", "1", "--uri", "bolt://127.0.0.1:9"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2
    assert "unknown graph 'nba'" in err[0] and "--bench DIR" in err[1]
    assert _servers_alive(bench / ".kgbench" / "graphs") == 0


@pytest.mark.neo4j
def test_force_reimports_and_a_running_store_is_refused(deployed: dict[str, Any]) -> None:
    from kgbench.neo4j import LocalNeo4j
    from kgbench.neo4j.targets import neo4j_executor_factory

    before = deployed_graphs(deployed["map"])["mini_company"]
    result = deploy(deployed["bench"], graphs=["mini_company"], force=True, pagecache="256m")
    assert [(o.graph, o.status) for o in result.outcomes] == [("mini_company", "imported")]
    after = deployed_graphs(deployed["map"])
    assert after["mini_company"]["port"] == before["port"]  # a graph keeps its port
    assert sorted(after) == list(GRAPHS)

    # the graph's server on the mapped port answers through the map's target
    rec = after["mini_company"]
    server = LocalNeo4j(data_dir=rec["data_dir"], port=rec["port"], heap="1g", pagecache="256m")
    server.start()
    try:
        make, close = neo4j_executor_factory()
        try:
            target = load_graph_targets(deployed["map"])["mini_company"]
            executor = make("mini_company", target, 30.0, 1, None)
            res = executor.run("MATCH (n) RETURN count(n) AS n")
            assert res.rows == [[rec["nodes"]]]
        finally:
            close()
        # a store in use is not imported into, and keeps its record
        result = deploy(deployed["bench"], graphs=["mini_company"], force=True)
        (outcome,) = result.outcomes
        assert outcome.status == "failed" and "in use" in outcome.error
        assert "mini_company" in deployed_graphs(deployed["map"])
    finally:
        server.stop()


@pytest.mark.neo4j
def test_changed_graph_is_not_skipped(deployed: dict[str, Any]) -> None:
    # runs after the tests above (module order): the deployed demo graph's file is cut
    path = graph_file(deployed["bench"], "wikidata_demo")
    text = path.read_bytes()
    path.write_bytes(text[:1000])
    try:
        result = deploy(deployed["bench"])
        status = {o.graph: o.status for o in result.outcomes}
        assert status == {
            "concert_singer": "skipped",
            "mini_company": "skipped",
            "wikidata_demo": "failed",
        }
        (failed,) = result.failed
        assert str(path) in failed.error and "byte offset" in failed.error
        data = json.loads(deployed["map"].read_text(encoding="utf-8"))
        assert sorted(data["full"]) == ["concert_singer", "mini_company"]
        assert data["test_domains"] == []  # the test graph is no longer deployed
    finally:
        path.write_bytes(text)


@pytest.mark.neo4j
def test_cut_graph_fails_alone_with_file_and_offset(
    tmp_path: Path, sources: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _layout(tmp_path / "benchmark", sources, ("mini_company", "wikidata_demo"))
    cut = graph_file(bench, "wikidata_demo")
    text = cut.read_bytes()
    cut.write_bytes(text[: len(text) // 2])
    code = main(["deploy", str(bench), "--data", str(tmp_path / "dep"), "--pagecache", "256m"])
    out = capsys.readouterr()
    assert code == 3
    line = next(x for x in out.out.splitlines() if x.startswith("wikidata_demo\tfailed"))
    assert str(cut) in line and "byte offset" in line
    records = deployed_graphs(tmp_path / "dep" / MAP_FILE)
    assert sorted(records) == ["mini_company"]
    assert not (tmp_path / "dep" / "graphs" / "wikidata_demo").exists()


def test_missing_graph_file_is_named_before_any_import(
    tmp_path: Path, sources: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _layout(tmp_path / "benchmark", sources, ("mini_company",))  # test.json names
    with pytest.raises(DeployError) as err:  # wikidata_demo, whose file is absent
        deploy(bench)
    assert str(graph_file(bench, "wikidata_demo")) in str(err.value)
    assert "test.json" in str(err.value)
    code = main(["deploy", str(bench), "--graphs", "mini_company,ghost"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(lines) == 1
    assert str(graph_file(bench, "ghost")) in lines[0] and "nothing imported" in lines[0]
    assert not (bench / ".kgbench").exists()


def test_not_enough_disk_is_an_error_before_the_import(
    tmp_path: Path, sources: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import kgbench.neo4j.deploy as mod

    bench = _layout(tmp_path / "benchmark", sources, ("mini_company", "wikidata_demo"))
    monkeypatch.setattr(mod, "DISK_FIXED_BYTES", 1 << 60)  # more than any disk has free
    result = deploy(bench, graphs=["mini_company"])
    (outcome,) = result.outcomes
    assert outcome.status == "failed"
    assert "not enough disk space for graph 'mini_company'" in outcome.error
    assert "GiB free" in outcome.error
    assert not (bench / ".kgbench" / "graphs" / "mini_company").exists()
    assert deployed_graphs(bench / ".kgbench" / MAP_FILE) == {}


def test_cypherbench_neo4j_info_is_read_unchanged(tmp_path: Path) -> None:
    # the shape of megagonlabs/cypherbench's neo4j_info.json (two graphs of each section)
    info = {
        "train_domains": ["art"],
        "test_domains": ["company"],
        "full": {
            "art": {"host": "localhost", "port": 15060, "username": "neo4j", "password": "cb"},
            "company": {"host": "localhost", "port": 15062, "username": "neo4j", "password": "cb"},
        },
        "sampled": {
            "art": {"host": "localhost", "port": 15080, "username": "neo4j", "password": "cb"},
        },
    }
    path = tmp_path / "neo4j_info.json"
    path.write_text(json.dumps(info, indent=2), encoding="utf-8")
    targets = load_graph_targets(path)
    assert sorted(targets) == ["art", "company"]
    assert targets["company"].uri == "bolt://localhost:15062"
    assert (targets["art"].user, targets["art"].password) == ("neo4j", "cb")
    assert deployed_graphs(path) == {}  # no kgbench section
