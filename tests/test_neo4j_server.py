"""The local Neo4j server (kgbench.neo4j.LocalNeo4j) against the real JVM.

Each test starts, stops or restarts a server of its own: the lifecycle is what is tested
(the session's server in tests/conftest.py serves the tests that only query)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from kgbench.neo4j import LocalNeo4j, Neo4jServerError
from kgbench.neo4j.server import free_port

pytestmark = pytest.mark.neo4j


def test_session_server_answers_cypher(neo4j_server: Any, neo4j_driver: Any) -> None:
    assert neo4j_server.uri.startswith("bolt://127.0.0.1:")
    records, _, _ = neo4j_driver.execute_query(
        "RETURN date('2020-02-29') + duration('P1D') AS d, valueType([1, 2]) AS t"
    )
    assert records[0]["d"].iso_format() == "2020-03-01"
    assert records[0]["t"] == "LIST<INTEGER NOT NULL> NOT NULL"
    # Community edition, version 5.26
    rec = neo4j_driver.execute_query("CALL dbms.components() YIELD versions, edition RETURN *")[0][
        0
    ]
    assert rec["edition"] == "community"
    assert rec["versions"][0].startswith("5.26.")


def test_port_taken_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        with pytest.raises(Neo4jServerError, match=f"port {port} on 127.0.0.1 is already in use"):
            LocalNeo4j(data_dir=tmp_path, port=port).start()


@pytest.mark.slow
def test_restart_keeps_data(tmp_path: Path) -> None:
    import neo4j

    data = tmp_path / "db"
    port = free_port()
    with LocalNeo4j(data_dir=data, port=port, heap="512m", pagecache="64m") as server:
        assert server.uri == f"bolt://127.0.0.1:{port}"
        with neo4j.GraphDatabase.driver(server.uri, auth=None) as drv:
            drv.execute_query("CREATE (:Kept {eid: 'Kept#1', born: date('1999-12-31')})")
        pid = server.pid
    assert not server.running()
    assert (data / "data" / "databases" / "neo4j").is_dir()  # data dir is kept
    with LocalNeo4j(data_dir=data, heap="512m", pagecache="64m") as again:
        assert again.pid != pid
        with neo4j.GraphDatabase.driver(again.uri, auth=None) as drv:
            recs = drv.execute_query("MATCH (n:Kept) RETURN n.eid AS eid, n.born AS born")[0]
    assert [(r["eid"], r["born"].iso_format()) for r in recs] == [("Kept#1", "1999-12-31")]
    launcher_log = (data / "kgbench-neo4j.log").read_text()
    assert launcher_log.count("kgbench-neo4j stopped") == 2  # clean SIGTERM shutdowns


@pytest.mark.slow
def test_server_dying_during_start_shows_log_tail(tmp_path: Path) -> None:
    # An invalid Neo4j setting value makes the embedded DBMS refuse to start.
    server = LocalNeo4j(
        data_dir=tmp_path,
        heap="256m",
        pagecache="16m",
        extra_settings={"db.transaction.timeout": "not-a-duration"},
    )
    with pytest.raises(Neo4jServerError) as info:
        server.start()
    msg = str(info.value)
    assert "exited with code 1 during start" in msg
    assert "kgbench-neo4j failed" in msg and "db.transaction.timeout" in msg
    assert not server.running()


def test_uri_before_start_is_an_error() -> None:
    server = LocalNeo4j(port=None)
    assert server.data_dir is None
    with pytest.raises(Neo4jServerError, match="not started"):
        _ = server.uri


@pytest.mark.slow
def test_temporary_data_dir_is_removed_at_stop() -> None:
    with LocalNeo4j(heap="256m", pagecache="16m") as server:
        data = server.data_dir
        assert data is not None and (data / "data").is_dir()
        with server.driver() as drv:
            assert drv.execute_query("RETURN 40 + 2 AS x")[0][0]["x"] == 42
    assert not data.exists()
    assert server.data_dir is None and not server.running()


def test_java_missing_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no java, no mvn
    with pytest.raises(Neo4jServerError, match=r"Java \('java'\) was not found on PATH"):
        LocalNeo4j(data_dir=tmp_path / "db").start()


def test_maven_missing_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from kgbench.neo4j.server import ensure_built, launcher_home

    # an unbuilt copy of the launcher project, and a PATH with java but without mvn
    home = tmp_path / "neo4j-local"
    shutil.copytree(launcher_home(), home, ignore=shutil.ignore_patterns("target"))
    java = shutil.which("java")
    assert java is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "java").symlink_to(java)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("KGBENCH_NEO4J_LOCAL", str(home))
    with pytest.raises(Neo4jServerError, match=r"Maven \('mvn'\) was not found on PATH"):
        ensure_built()
    with pytest.raises(Neo4jServerError, match=r"Maven \('mvn'\) was not found on PATH"):
        LocalNeo4j(data_dir=tmp_path / "db").start()


def test_server_jvm_uses_the_class_data_sharing_archive(neo4j_server: Any) -> None:
    """The launcher's class archive is made with the build and mapped by the server's JVM."""
    from kgbench.neo4j.server import CLASS_ARCHIVE, class_archive_flags, launcher_home

    archive = launcher_home() / "target" / CLASS_ARCHIVE
    assert class_archive_flags(launcher_home()) == [f"-XX:SharedArchiveFile={archive}"]
    maps = Path(f"/proc/{neo4j_server.pid}/maps")
    if not maps.is_file():
        pytest.skip("no /proc on this platform")
    assert str(archive) in maps.read_text(encoding="utf-8")


@pytest.mark.slow
def test_stop_then_start_on_the_same_port_at_once(tmp_path: Path) -> None:
    """Issue 32: `kgbench neo4j stop` then `start --port P` on the same port succeeds at once;
    the stopped server's connections in TIME_WAIT do not count as a use of the port."""
    import neo4j

    from convert_helpers import run_kgbench

    data = tmp_path / "srv"
    port = free_port()
    args = ("--data", str(data), "--heap", "512m", "--pagecache", "64m", "--port", str(port))
    first = run_kgbench("neo4j", "start", *args)
    assert first.returncode == 0, first.stderr
    try:
        assert first.stdout.strip() == f"bolt://127.0.0.1:{port}"
        # Connections open when the server stops: the server closes them first, so their
        # server side (port P) stays in TIME_WAIT once the client has closed too. The driver's
        # pooled Bolt connections do so when the driver answers the close in time; the plain TCP
        # connection reads to the end and closes, so that at least one always does.
        raw = socket.create_connection(("127.0.0.1", port), timeout=60)
        with neo4j.GraphDatabase.driver(first.stdout.strip(), auth=None) as drv:
            for _ in range(4):
                with drv.session() as session:
                    assert session.run("RETURN 1 AS x").single()["x"] == 1
            stop = run_kgbench("neo4j", "stop", "--data", str(data))
        with raw:
            while raw.recv(4096):
                pass
    finally:
        run_kgbench("neo4j", "stop", "--data", str(data))
    assert stop.returncode == 0, stop.stderr
    if sys.platform.startswith("linux"):  # the situation of the issue: a plain bind fails
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as plain, pytest.raises(OSError):
            plain.bind(("127.0.0.1", port))
    second = run_kgbench("neo4j", "start", *args)
    try:
        assert second.returncode == 0, second.stderr
        assert second.stdout.strip() == f"bolt://127.0.0.1:{port}"
        with neo4j.GraphDatabase.driver(second.stdout.strip(), auth=None) as drv:
            assert drv.execute_query("RETURN 2 AS x")[0][0]["x"] == 2
    finally:
        run_kgbench("neo4j", "stop", "--data", str(data))


def test_port_check_ignores_time_wait_but_not_a_listener() -> None:
    """The free-port check binds as the server does (SO_REUSEADDR on POSIX): a port whose last
    connection the listening side closed (TIME_WAIT there) is free; one with a listener is not."""
    from kgbench.neo4j.server import port_is_free

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        conn, _ = listener.accept()
        assert not port_is_free(port)  # listening
        conn.close()  # the server side closes first: its end goes to TIME_WAIT
        client.recv(1)
        client.close()
    if sys.platform != "win32":
        # what the old check saw
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as plain, pytest.raises(OSError):
            plain.bind(("127.0.0.1", port))
    assert port_is_free(port)
