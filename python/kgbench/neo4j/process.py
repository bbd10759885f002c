"""The local Neo4j server's processes and files, below :mod:`kgbench.neo4j.server`,
:mod:`kgbench.neo4j.artifacts` and :mod:`kgbench.neo4j.registry` (which all use them): the
error type, the progress callback type, the inter-process file lock, the launcher's main class,
the state file of a background server and the check that a process is alive."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kgbench.errors import KgbenchError

#: Java class of the launcher.
MAIN_CLASS = "org.kgbench.neo4j.LocalNeo4jServer"
#: File in the data directory recording a background server (``kgbench neo4j start``).
STATE_FILE = "kgbench-neo4j.json"
#: A progress callback: receives one line saying what is being done.
Progress = Callable[[str], None]


class Neo4jServerError(KgbenchError):
    """The local Neo4j server could not be built, started or stopped."""


@contextlib.contextmanager
def exclusive_file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (created if missing) while the block
    runs, waiting for another process that holds it: ``fcntl.flock`` on POSIX,
    ``msvcrt.locking`` on Windows (where ``fcntl`` does not exist)."""
    with open(path, "a+b") as fh:
        if sys.platform == "win32":
            import msvcrt

            fh.seek(0)
            while True:
                try:
                    msvcrt.locking(fh.fileno(), msvcrt.LK_LOCK, 1)
                    break
                except OSError:  # LK_LOCK gives up after 10 s: keep waiting
                    time.sleep(1)
            try:
                yield
            finally:
                fh.seek(0)
                msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)


def pid_alive(pid: int) -> bool:
    """Whether a process with id ``pid`` exists (signal 0; a process of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_state(data_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The state file of a background server on ``data_dir`` (pid, uri, port), or None."""
    path = Path(data_dir) / STATE_FILE
    try:
        state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state
