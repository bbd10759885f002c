"""The CLI as a pip user meets it (issue 17): the registry of background servers, one-line
errors without the Neo4j driver's raw log lines, advice that fits the machine, progress on long
steps, and why a conversion kept no entity.

Everything runs for real: a local Neo4j started with ``kgbench neo4j start``, the driver
against a closed port and against a peer that drops the connection, a pseudo-terminal for the
spinner, the shipped Wikidata files for ``convert``.
"""

from __future__ import annotations

import gzip
import json
import os
import pty
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgbench.neo4j.server import free_port

DATA = Path(__file__).parent / "data"
WIKIDATA = DATA / "wikidata"
MINI_COMPANY = DATA / "graphs" / "mini_company.json"


def _env(state: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "KGBENCH_NEO4J_URI"}
    env.pop("KGBENCH_LOG_LEVEL", None)
    env["KGBENCH_STATE_DIR"] = str(state)
    env.update(extra)
    return env


def kgbench(
    *args: str, cwd: Path, env: dict[str, str], stderr_tty: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m kgbench ARGS``; with ``stderr_tty`` its stderr is a pseudo-terminal
    (read completely by a thread, returned as ``stderr``)."""
    cmd = [sys.executable, "-m", "kgbench", *args]
    if not stderr_tty:
        return subprocess.run(
            cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600
        )
    master, slave = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the slave side is closed: the process ended
                    return
                if not data:
                    return
                chunks.append(data)
            elif proc.poll() is not None:
                return

    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    out, _ = proc.communicate(timeout=600)
    reader.join(timeout=10)
    os.close(master)
    err = b"".join(chunks).decode("utf-8", errors="replace")
    return subprocess.CompletedProcess(cmd, proc.returncode, out.decode(), err)


# --------------------------------------------------------------------------- the registry


@pytest.mark.neo4j
@pytest.mark.slow
def test_registry_finds_the_background_server_without_data(tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = _env(state)
    # a stale entry (its process is gone) is ignored and dropped
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    state.mkdir()
    stale = {
        "data_dir": str(tmp_path / "old"),
        "pid": int(gone.stdout),
        "uri": "bolt://x:1",
        "port": 1,
        "started": "2020-01-01T00:00:00+00:00",
    }
    (state / "servers.json").write_text(json.dumps({"servers": [stale]}), encoding="utf-8")
    status = kgbench("neo4j", "status", cwd=tmp_path, env=env)
    assert (status.returncode, status.stdout.strip()) == (3, "stopped")

    data = tmp_path / "srv"
    start = kgbench(
        "neo4j",
        "start",
        "--data",
        str(data),
        "--heap",
        "512m",
        "--pagecache",
        "64m",
        cwd=tmp_path,
        env=env,
        stderr_tty=True,
    )
    try:
        assert start.returncode == 0, start.stderr
        uri = start.stdout.strip()
        assert uri.startswith("bolt://127.0.0.1:")
        # the spinner said what the start was doing, with the elapsed time, then was erased
        assert f"kgbench neo4j: starting Neo4j on {uri}" in start.stderr
        assert " s\x1b[K" in start.stderr and start.stderr.endswith("\r\x1b[K")
        registry = json.loads((state / "servers.json").read_text(encoding="utf-8"))
        assert [(e["data_dir"], e["uri"]) for e in registry["servers"]] == [
            (str(data.resolve()), uri)
        ]

        status = kgbench("neo4j", "status", cwd=tmp_path, env=env)
        assert (status.returncode, status.stdout.strip()) == (0, uri)
        load = kgbench("load", str(MINI_COMPANY), "--wipe", cwd=tmp_path, env=env)
        assert load.returncode == 0, load.stderr
        assert "nodes\tCompany\t5" in load.stdout.splitlines()
        schema = kgbench("schema", "--name", "mini", cwd=tmp_path, env=env)
        assert schema.returncode == 0, schema.stderr
        assert "Company" in {e["label"] for e in json.loads(schema.stdout)["entities"]}
        tasks = Path(__file__).parent / "data" / "cypher" / "tasks.json"
        ev = kgbench("evaluate", "--tasks", str(tasks), "--out", "ev", cwd=tmp_path, env=env)
        assert ev.returncode == 0, ev.stderr
        assert (tmp_path / "ev" / "aggregated_metrics.json").is_file()
        # --uri and $KGBENCH_NEO4J_URI still win over the registry
        closed = f"bolt://127.0.0.1:{free_port()}"
        wins = kgbench("schema", "--uri", closed, cwd=tmp_path, env=env)
        assert wins.returncode == 1 and f"cannot reach Neo4j at {closed}" in wins.stderr
        wins = kgbench("schema", cwd=tmp_path, env={**env, "KGBENCH_NEO4J_URI": closed})
        assert wins.returncode == 1 and f"cannot reach Neo4j at {closed}" in wins.stderr
        # --data DIR names a server explicitly
        other = kgbench("schema", "--data", str(tmp_path / "none"), cwd=tmp_path, env=env)
        assert other.returncode == 1
        assert f"no local Neo4j server runs in {tmp_path / 'none'}" in other.stderr
    finally:
        stop = kgbench("neo4j", "stop", cwd=tmp_path, env=env)
    assert stop.returncode == 0
    assert stop.stderr.strip() == f"stopped the server in {data.resolve()}"
    assert json.loads((state / "servers.json").read_text(encoding="utf-8")) == {"servers": []}
    status = kgbench("neo4j", "status", cwd=tmp_path, env=env)
    assert (status.returncode, status.stdout.strip()) == (3, "stopped")
    missing = kgbench("schema", cwd=tmp_path, env=env)
    assert missing.returncode == 1
    assert "no local Neo4j server started by `kgbench neo4j start` runs" in missing.stderr


# --------------------------------------------------------------------------- errors


def test_closed_port_is_one_line_without_the_drivers_log(tmp_path: Path) -> None:
    uri = f"neo4j://127.0.0.1:{free_port()}"  # routing: the driver logs its failure
    env = _env(tmp_path / "state")
    proc = kgbench("load", str(MINI_COMPANY), "--uri", uri, cwd=tmp_path, env=env)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"kgbench load: error: cannot reach Neo4j at {uri}: Unable to retrieve routing information"
    ]
    # -v shows the driver's own line
    verbose = kgbench("-v", "load", str(MINI_COMPANY), "--uri", uri, cwd=tmp_path, env=env)
    assert "kgbench: neo4j.pool: ERROR: Unable to retrieve routing information" in (
        verbose.stderr.splitlines()
    )


@pytest.fixture
def dropping_peer() -> Iterator[int]:
    """A TCP peer that accepts the Bolt handshake (version 5.4), reads the HELLO message and
    closes the connection: the driver then fails with "Failed to read from defunct
    connection"."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(5)
                try:
                    conn.recv(20)
                    conn.sendall(b"\x00\x00\x04\x05")
                    conn.recv(4096)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        server.close()


def test_dropped_connection_is_one_line_without_the_drivers_log(
    tmp_path: Path, dropping_peer: int
) -> None:
    uri = f"bolt://127.0.0.1:{dropping_peer}"
    env = _env(tmp_path / "state")
    proc = kgbench("schema", "--uri", uri, cwd=tmp_path, env=env)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"kgbench schema: error: lost the connection to Neo4j at {uri}: ")
    assert "Failed to read from defunct connection" in lines[0]
    verbose = kgbench("-v", "schema", "--uri", uri, cwd=tmp_path, env=env)
    assert any(line.startswith("kgbench: neo4j.io: ERROR:") for line in verbose.stderr.splitlines())


def test_no_server_advice_fits_the_machine(tmp_path: Path) -> None:
    from kgbench.neo4j.server import local_server_problems

    env = _env(tmp_path / "state")
    if not local_server_problems():  # Java, the launcher project (and Maven if not built)
        can = kgbench("schema", cwd=tmp_path, env=env)
        assert can.returncode == 1
        assert "start one with: kgbench neo4j start" in can.stderr
    # no Java on PATH: `kgbench neo4j start` cannot work, so it is not advised
    no_java = kgbench("schema", cwd=tmp_path, env={**env, "PATH": str(Path(sys.executable).parent)})
    assert no_java.returncode == 1
    assert "start one with" not in no_java.stderr
    assert "give a running Neo4j 5 server's Bolt URI with --uri or $KGBENCH_NEO4J_URI" in (
        no_java.stderr
    )
    assert "it needs Java 17 or 21 ('java' on PATH)" in no_java.stderr
    # a pip install without the checkout's launcher project
    no_launcher = kgbench(
        "load",
        str(MINI_COMPANY),
        cwd=tmp_path,
        env={**env, "KGBENCH_NEO4J_LOCAL": str(tmp_path / "nowhere")},
    )
    assert no_launcher.returncode == 1
    assert "start one with" not in no_launcher.stderr
    assert "the launcher project neo4j-local/ of a kgbench checkout" in no_launcher.stderr


# --------------------------------------------------------------------------- progress


def test_activity_spinner_on_a_terminal() -> None:
    from kgbench.progress import Activity

    master, slave = pty.openpty()
    try:
        with os.fdopen(slave, "w", encoding="utf-8") as stream:
            with Activity("score: comparing", stream=stream, delay_s=0.0) as activity:
                time.sleep(0.35)
                activity.update("score: still comparing")
                time.sleep(0.25)
            written = b""
            while select.select([master], [], [], 0.1)[0]:
                written += os.read(master, 65536)
    finally:
        os.close(master)
    text = written.decode()
    frames = [part for part in text.split("\r") if part.startswith(tuple(Activity.FRAMES))]
    assert len(frames) >= 3
    assert frames[0].startswith("| kgbench: score: comparing  0 s")
    assert any("kgbench: score: still comparing" in f for f in frames)
    assert text.endswith("\r\x1b[K")  # erased at the end


def test_activity_lines_when_not_a_terminal(tmp_path: Path) -> None:
    from kgbench.progress import Activity

    path = tmp_path / "log.txt"
    with path.open("w", encoding="utf-8") as stream:
        with Activity("quick", stream=stream):
            pass  # a short step writes nothing
        with Activity("building", stream=stream, every_s=0.3, prefix="x: ") as activity:
            time.sleep(0.5)
            activity.update("building: 3 files")  # same headline: no line of its own
            activity.update("starting")  # a new step: written at once
            time.sleep(0.05)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("x: building (") and lines[0].endswith(" s)")
    assert lines[-1] == "x: starting"
    assert len(lines) == 2


@pytest.mark.neo4j
def test_load_progress_lines_when_not_a_terminal(
    neo4j_driver: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgbench.neo4j import load_graph, loader

    monkeypatch.setattr(loader, "PROGRESS_LINE_EVERY_S", 0.0)  # a line per batch
    load_graph(MINI_COMPANY, neo4j_driver, wipe=True, batch_size=4)
    err = capsys.readouterr().err.splitlines()
    assert any(line.startswith("kgbench load: nodes 14/14 (100%), ") for line in err), err
    assert any(line.startswith("kgbench load: relationships 16/16 (100%), ") for line in err)
    assert all(line.endswith(" s") for line in err)
    assert not any("\r" in line for line in err)


# --------------------------------------------------------------------------- convert


def _schema(tmp_path: Path, *entities: dict[str, Any]) -> Path:
    path = tmp_path / "schema.json"
    path.write_text(
        json.dumps({"name": "t", "entities": list(entities), "relations": []}), encoding="utf-8"
    )
    return path


def test_convert_keeping_no_entity_says_which_classes_the_input_has(tmp_path: Path) -> None:
    # the 2022-05 triples of 23 entities as gzipped N-Triples
    nt = tmp_path / "triples.nt.gz"
    with (
        (WIKIDATA / "triples-2022-05.jsonl").open(encoding="utf-8") as f,
        gzip.open(nt, "wt", encoding="utf-8") as g,
    ):
        for line in f:
            d = json.loads(line)
            g.write(f"{d['subject']} {d['predicate']} {d['object']} .\n")
    schema = _schema(tmp_path, {"label": "Article", "wd_source": "Q7318358", "properties": []})
    proc = kgbench(
        "convert",
        "--schema",
        str(schema),
        str(nt),
        "--out",
        str(tmp_path / "out"),
        cwd=tmp_path,
        env=_env(tmp_path / "state"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "kept 0 entities" in proc.stdout
    assert proc.stderr.splitlines() == [
        "kgbench convert: warning: kept 0 entities: no item matched class Q7318358 for Article "
        "(wdt:P31 Q7318358, or a subclass of it by wdt:P279*); the most frequent wdt:P31 "
        "classes in the input were: Q11424 (8 items), Q7187 (6 items), Q5 (5 items), "
        "Q427087 (3 items), Q21199 (2 items)"
    ]
    assert (tmp_path / "out" / "graph.json").is_file()


def test_convert_keeping_no_entity_names_the_constraint(tmp_path: Path) -> None:
    from kgbench.convert import convert, explain_empty_entities

    female = {
        "label": "Person",
        "wd_source": "Q5",
        "wd_include_subclasses": False,
        "wd_constraints": ["$LINKED_TO(P21,Q6581072)"],
        "properties": [],
    }
    article = {"label": "Article", "wd_source": "Q7318358", "properties": []}
    schema = {"name": "t", "entities": [female, article], "relations": []}
    inputs = [WIKIDATA / "Q42.ttl", WIKIDATA / "Q24628793.ttl"]  # Douglas Adams, an article
    _, report = convert(schema, inputs)
    assert report["entities"] == {"Person": 0, "Article": 1}
    assert explain_empty_entities(schema, report) == [
        "1 item of the input matched class Q5 for Person (wdt:P31 Q5), but none passed its "
        "wd_constraints $LINKED_TO(P21,Q6581072)"
    ]
    # an input without truthy P31 statements (the Wikibase test vocabulary)
    _, report = convert(schema, WIKIDATA / "kgbench" / "acme_classes.nt")
    reasons = explain_empty_entities(schema, report)
    assert reasons[0] == (
        "no item matched class Q5 for Person: the input has no wdt:P31 triples "
        "(<http://www.wikidata.org/prop/direct/P31>); class membership is read from these "
        "truthy statements"
    )
