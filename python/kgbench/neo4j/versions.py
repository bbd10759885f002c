"""The Neo4j releases kgbench's local server offers (``kgbench neo4j start --version V``).

Each offered release has a lock file of its runtime jars in the package data (written by
``neo4j-local/lock.py`` from the Maven build, see :mod:`kgbench.neo4j.artifacts`):
``neo4j-artifacts.lock`` for the default release (the version of ``neo4j-local/pom.xml``, the
Neo4j 5.26 LTS) and ``neo4j-artifacts-VERSION.lock`` for each further one. The lock files are
the list of offered releases: adding one is ``make -C neo4j-local lib-VERSION`` and
``make neo4j-lock``.

Facts these rules follow (Neo4j documentation):

- Java: Neo4j 5.26 runs on Java 17 and 21; Neo4j 2025.01 and later need Java 21 (Java 17 is no
  longer supported); Java 25 is supported from 2025.10 (Upgrade and Migration Guide, "Changes
  from Neo4j 5.26 LTS to Neo4j 2025.01 and later", software requirements).
- Cypher: Neo4j moved to calendar versions (``YYYY.MM.P``) in 2025. Cypher 25 exists from
  2025.06 on, beside Cypher 5 (Cypher Manual, "Select Cypher version"). A server runs a query in
  its database's default language unless the query starts with ``CYPHER 5`` / ``CYPHER 25``. The
  DBMS-wide default for databases created from then on is the setting
  ``db.query.default_language``, whose default value is ``CYPHER_5`` (only the ``neo4j.conf``
  distributed with 2026.02 and later sets ``CYPHER_25``; the embedded server kgbench runs reads
  no such file); changing the setting later does not change existing databases (Operations
  Manual, "Configure the Cypher default version"). kgbench therefore starts a release with
  Cypher 25 with ``db.query.default_language=CYPHER_25`` (:func:`server_settings`), so that its
  databases, created at the first start, run Cypher 25.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from kgbench.errors import KgbenchError

#: The package data directory holding the lock files.
DATA_DIR = Path(__file__).resolve().parent / "data"
#: The lock file of the default release.
DEFAULT_LOCK = DATA_DIR / "neo4j-artifacts.lock"
_LOCK_PATTERN = re.compile(r"neo4j-artifacts-(\d+(?:\.\d+)+)\.lock")
#: The first release with Cypher 25 (calendar version ``(year, month)``).
CYPHER_25_SINCE = (2025, 6)


class UnknownNeo4jVersionError(KgbenchError, ValueError):
    """A Neo4j version the local server does not offer; the message lists the offered ones."""


def version_key(version: str) -> tuple[int, ...]:
    """``"2025.10.1"`` → ``(2025, 10, 1)``, for ordering releases. Raises :class:`ValueError`
    for a version that is not dot-separated integers."""
    return tuple(int(part) for part in version.split("."))


def is_calendar(version: str) -> bool:
    """True for Neo4j's calendar versions (``2025.01.0`` and later, ``YYYY.MM.P``)."""
    return version_key(version)[0] >= 2025


@functools.lru_cache(maxsize=1)
def default_version() -> str:
    """The default release: the version of ``org.neo4j:neo4j`` in :data:`DEFAULT_LOCK` (the
    Neo4j 5.26 LTS of ``neo4j-local/pom.xml``). Raises :class:`KgbenchError` when the lock file
    is unreadable or names no ``org.neo4j:neo4j``."""
    try:
        text = DEFAULT_LOCK.read_text(encoding="utf-8")
    except OSError as exc:
        raise KgbenchError(f"the lock file of Neo4j's jars is unreadable: {exc}") from exc
    for line in text.splitlines():
        if line.startswith("org.neo4j:neo4j:"):
            return line.split()[0].split(":")[2]
    raise KgbenchError(f"{DEFAULT_LOCK} names no org.neo4j:neo4j jar")


def offered_versions() -> tuple[str, ...]:
    """The releases ``kgbench neo4j start --version`` offers: the default first, then the others
    of the package's lock files, oldest to newest."""
    others = sorted(
        {
            m.group(1)
            for p in DATA_DIR.glob("neo4j-artifacts-*.lock")
            if (m := _LOCK_PATTERN.fullmatch(p.name))
        },
        key=version_key,
    )
    default = default_version()
    return (default, *(v for v in others if v != default))


def newest_version() -> str:
    """The newest offered release."""
    return max(offered_versions(), key=version_key)


def lock_path(version: str | None = None) -> Path:
    """The lock file of ``version`` (default: the default release); it exists for every offered
    release."""
    if version is None or version == default_version():
        return DEFAULT_LOCK
    return DATA_DIR / f"neo4j-artifacts-{version}.lock"


def describe_offered() -> str:
    """The offered releases as one phrase: ``5.26.30 (default, Cypher 5), 2026.08.1 (Cypher
    25)``."""
    default = default_version()
    parts = []
    for version in offered_versions():
        notes = (["default"] if version == default else []) + [
            f"Cypher {cypher_dialect_of(version)}"
        ]
        parts.append(f"{version} ({', '.join(notes)})")
    return ", ".join(parts)


def resolve_version(requested: str | None) -> str:
    """The offered release ``requested`` names: None → the default; an exact version; a prefix
    of whole components (``"5"``, ``"5.26"``, ``"2026"``, ``"2026.08"``) naming one offered
    release; ``"latest"`` → the newest.

    Raises :class:`UnknownNeo4jVersionError` (one line listing the offered releases) for anything
    else."""
    offered = offered_versions()
    if requested is None:
        return offered[0]
    text = requested.strip()
    if text.lower() == "latest":
        return newest_version()
    if text in offered:
        return text
    matches = [v for v in offered if v.startswith(text + ".")]
    if len(matches) == 1:
        return matches[0]
    raise UnknownNeo4jVersionError(
        f"unknown Neo4j version {requested!r} for the local server; offered: "
        f"{describe_offered()} (or 'latest')"
    )


def java_releases(version: str) -> tuple[int, ...]:
    """The Java feature releases ``version`` runs on: ``(17, 21)`` for Neo4j 5, ``(21,)`` for
    2025.01–2025.09, ``(21, 25)`` from 2025.10 (see the module docstring)."""
    key = version_key(version)
    if key[0] < 2025:
        return (17, 21)
    return (21,) if key[:2] < (2025, 10) else (21, 25)


def cypher_dialect_of(version: str) -> str:
    """The Cypher kgbench's local server of ``version`` runs by default: ``"25"`` from 2025.06
    (started with ``db.query.default_language=CYPHER_25``), else ``"5"``."""
    return "25" if version_key(version)[:2] >= CYPHER_25_SINCE else "5"


def server_settings(version: str) -> dict[str, str]:
    """Neo4j settings the local server of ``version`` gets on top of the common ones: Cypher 25
    as the default language of its databases where the release has it."""
    if cypher_dialect_of(version) == "25":
        return {"db.query.default_language": "CYPHER_25"}
    return {}
