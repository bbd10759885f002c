"""NGDBench noise on real relational data (issue 15 "Real data"): Spider's concert_singer
database converted by ``kgbench rdb`` (kgbench.rdb.convert), then ``kgbench.noise`` with the
default profile and seed 42 (spec ngdbench.md §3: E' = x + ⌊0.1x⌋, x = E − deleted)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kgbench._core.neo4j import validate
from kgbench.noise import GRAPH_FILE, LOG_FILE, inject_noise
from kgbench.rdb.convert import convert_rdb

SPIDER = Path(__file__).parent / "data" / "spider"
MARKERS = ("is_noise", "noise_similarity", "original_name")


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def spider(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("spider_noise")
    conv = convert_rdb(
        SPIDER / "concert_singer.sqlite",
        SPIDER / "concert_singer.tables.json",
        "concert_singer",
        root / "clean",
    )
    graph = Path(conv["files"]["graph"])
    report = inject_noise(graph, root / "noisy", profile="default", seed=42)
    return {"root": root, "conv": conv, "graph": graph, "report": report}


def test_clean_spider_graph_validates(spider: dict[str, Any]) -> None:
    check = validate(str(spider["graph"]))
    assert check.problems == []
    clean = _load(spider["graph"])
    assert len(clean["entities"]) == spider["conv"]["nodes"]
    assert len(clean["relations"]) == spider["conv"]["relationships"]


def test_edge_count_arithmetic_on_real_counts(spider: dict[str, Any]) -> None:
    report = spider["report"]
    clean = _load(spider["graph"])
    noisy = _load(spider["root"] / "noisy" / GRAPH_FILE)
    log = _load(spider["root"] / "noisy" / LOG_FILE)
    stats = log["summary"]["noise_statistics"]
    e, n = len(clean["relations"]), len(clean["entities"])
    assert report["before"] == {"nodes": n, "edges": e}
    deleted = stats["deleted_edges_count"]
    assert deleted == len(log["detailed_records"]["deleted_edges"])
    x = e - deleted
    # E' = x + floor(0.1 x), from the log's counts; nodes are unchanged
    assert len(noisy["relations"]) == x + x // 10 == report["after"]["edges"]
    assert stats["added_edges_count"] == x // 10
    assert len(noisy["entities"]) == n == report["after"]["nodes"]
    by_type = {t["type"]: t for t in report["types"]}
    assert by_type["incomplete_edges"]["target"] == int(e * 0.05)
    assert by_type["incomplete_edges"]["applied"] == deleted <= int(e * 0.05)
    assert by_type["false_edges"]["edges_before"] == x
    assert by_type["false_edges"]["applied"] == int(x * 0.1)
    assert by_type["relation_type_noise"]["applied"] == int((x + x // 10) * 0.1)
    assert by_type["name_typos"]["target"] == int(n * 0.2)
    # relabels whose new label declares a property with another datatype are skipped
    node_type = next(
        t["summary"]
        for t in log["summary"]["perturbation_logs"]
        if t["perturbation_type"] == "node_type_noise"
    )
    skipped = node_type["skipped_datatype_clash"]
    assert by_type["node_type_noise"]["applied"] + skipped == int(n * 0.1)
    # the real numbers of concert_singer (4 tables, 31 rows → 31 nodes, 26 foreign-key edges)
    assert (n, e, deleted, len(noisy["relations"])) == (31, 26, 0, 28)


def test_no_markers_and_ids_kept(spider: dict[str, Any]) -> None:
    text = (spider["root"] / "noisy" / GRAPH_FILE).read_text(encoding="utf-8")
    assert not any(m in text for m in MARKERS)
    clean = _load(spider["graph"])
    noisy = json.loads(text)
    assert [e["eid"] for e in noisy["entities"]] == [e["eid"] for e in clean["entities"]]


def test_same_seed_same_bytes(spider: dict[str, Any], tmp_path: Path) -> None:
    again = inject_noise(spider["graph"], tmp_path / "again", profile="default", seed=42)
    first = spider["root"] / "noisy"
    for name in (GRAPH_FILE, LOG_FILE):
        assert (tmp_path / "again" / name).read_bytes() == (first / name).read_bytes()
    assert again["noisy_sha256"] == spider["report"]["noisy_sha256"]
    other = inject_noise(spider["graph"], tmp_path / "other", profile="default", seed=43)
    assert other["noisy_sha256"] != spider["report"]["noisy_sha256"]


def test_noisy_spider_graph_validates(spider: dict[str, Any]) -> None:
    """Regression: node_type_noise relabelled stadium#Stadium_ID=6 as ``concert``, whose
    schema declares Stadium_ID as str (Spider's concert.Stadium_ID is text) while the node
    keeps the int 6, and the noisy graph failed validation. Such nodes now keep their label
    and are counted."""
    check = validate(str(spider["root"] / "noisy" / GRAPH_FILE))
    assert check.problems == []
    log = json.loads((spider["root"] / "noisy" / "noise_log.json").read_text(encoding="utf-8"))
    node_type = next(
        p
        for p in log["summary"]["perturbation_logs"]
        if p["perturbation_type"] == "node_type_noise"
    )
    assert node_type["summary"]["skipped_datatype_clash"] >= 1
