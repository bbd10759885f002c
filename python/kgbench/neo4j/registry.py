"""The registry of background local Neo4j servers, so that commands find them without ``--data``.

``kgbench neo4j start --data DIR`` records the server it leaves running in one well-known file,
``servers.json`` in kgbench's state directory; ``kgbench neo4j stop`` removes the entry. The
commands that need a server (``neo4j status|stop``, ``load``, ``schema``, the ``generate``
commands) look there when neither ``--uri`` nor ``$KGBENCH_NEO4J_URI`` nor ``--data`` is given.

The state directory is ``$KGBENCH_STATE_DIR`` when set, else ``$XDG_STATE_HOME/kgbench``, else
``~/.local/state/kgbench`` (``%LOCALAPPDATA%\\kgbench`` on Windows).

The file holds ``{"servers": [{"data_dir", "pid", "uri", "port", "started"}, ...]}`` with
absolute data directories. An entry whose server is gone (a crash, a reboot, a ``kill``) is
ignored by every reader and dropped at the next write. A server counts as running when its
process is alive, the data directory's own state file (``kgbench-neo4j.json``) names the same
pid and, where ``/proc`` exists, that process is the launcher JVM.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Environment variable overriding the state directory (tests point it at a temporary one).
STATE_DIR_ENV = "KGBENCH_STATE_DIR"
#: The registry file in the state directory.
REGISTRY_FILE = "servers.json"
_LOCK_FILE = "servers.lock"


@dataclass(frozen=True)
class ServerEntry:
    """One background server: its absolute data directory, JVM pid, Bolt URI, port and start
    time (ISO 8601, UTC)."""

    data_dir: Path
    pid: int
    uri: str
    port: int
    started: str = ""

    def to_json(self) -> dict[str, Any]:
        """The entry as stored in ``servers.json``."""
        return {
            "data_dir": str(self.data_dir),
            "pid": self.pid,
            "uri": self.uri,
            "port": self.port,
            "started": self.started,
        }


def state_dir() -> Path:
    """kgbench's state directory (see the module docstring); not created here."""
    env = os.environ.get(STATE_DIR_ENV)
    if env:
        return Path(env)
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "kgbench"
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "state"
    return base / "kgbench"


def registry_path() -> Path:
    """The registry file, ``state_dir() / "servers.json"``."""
    return state_dir() / REGISTRY_FILE


def _same_dir(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def _read_entries() -> list[ServerEntry]:
    try:
        data = json.loads(registry_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    entries: list[ServerEntry] = []
    for item in data.get("servers", []) if isinstance(data, dict) else []:
        try:
            entries.append(
                ServerEntry(
                    data_dir=Path(item["data_dir"]),
                    pid=int(item["pid"]),
                    uri=str(item["uri"]),
                    port=int(item["port"]),
                    started=str(item.get("started", "")),
                )
            )
        except (KeyError, TypeError, ValueError):
            continue  # a malformed entry is dropped at the next write
    return entries


def _write_entries(entries: list[ServerEntry]) -> None:
    path = registry_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"servers": [e.to_json() for e in entries]}, indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{REGISTRY_FILE}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _locked() -> Any:
    from kgbench.neo4j.process import exclusive_file_lock

    directory = state_dir()
    directory.mkdir(parents=True, exist_ok=True)
    with exclusive_file_lock(directory / _LOCK_FILE):
        yield


def is_running(entry: ServerEntry) -> bool:
    """True when the server of ``entry`` still runs (see the module docstring)."""
    from kgbench.neo4j.process import MAIN_CLASS, read_state
    from kgbench.neo4j.process import pid_alive as _pid_alive

    if not _pid_alive(entry.pid):
        return False
    state = read_state(entry.data_dir)
    if state is None or int(state.get("pid", -1)) != entry.pid:
        return False
    cmdline = Path("/proc") / str(entry.pid) / "cmdline"
    try:
        return MAIN_CLASS.encode() in cmdline.read_bytes()
    except OSError:  # no /proc (macOS, Windows) or no access: trust the pid
        return True


def register(data_dir: str | os.PathLike[str], pid: int, uri: str, port: int) -> ServerEntry:
    """Record a background server on ``data_dir`` (replacing an older entry for that directory
    and dropping entries of servers that are gone); returns the new entry.

    Raises :class:`OSError` when the state directory cannot be written.
    """
    entry = ServerEntry(
        data_dir=Path(data_dir).resolve(),
        pid=int(pid),
        uri=uri,
        port=int(port),
        started=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    )
    with _locked():
        keep = [
            e
            for e in _read_entries()
            if not _same_dir(e.data_dir, entry.data_dir) and is_running(e)
        ]
        _write_entries([*keep, entry])
    return entry


def unregister(data_dir: str | os.PathLike[str]) -> bool:
    """Remove the entry of ``data_dir`` (and entries of servers that are gone); returns True when
    ``data_dir`` had an entry. A missing or unwritable registry is not an error (False)."""
    try:
        with _locked():
            entries = _read_entries()
            if not entries:
                return False
            keep = [e for e in entries if not _same_dir(e.data_dir, data_dir) and is_running(e)]
            found = any(_same_dir(e.data_dir, data_dir) for e in entries)
            if len(keep) != len(entries):
                _write_entries(keep)
            return found
    except OSError:
        return False


def running_servers() -> list[ServerEntry]:
    """The registered servers that still run, the most recently started first. Entries of
    servers that are gone are dropped from the file when it is writable."""
    entries = _read_entries()
    alive = [e for e in entries if is_running(e)]
    if len(alive) != len(entries):
        with contextlib.suppress(OSError), _locked():
            current = _read_entries()
            keep = [e for e in current if is_running(e)]
            if len(keep) != len(current):
                _write_entries(keep)
    return sorted(alive, key=lambda e: e.started, reverse=True)


def find_server(data_dir: str | os.PathLike[str]) -> ServerEntry | None:
    """The running registered server on ``data_dir``, or None."""
    for entry in running_servers():
        if _same_dir(entry.data_dir, data_dir):
            return entry
    return None
