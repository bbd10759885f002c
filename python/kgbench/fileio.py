"""Atomic output files: a temporary file beside the target, then a rename, so a reader never
sees a partial file and a failed run leaves the previous file (or none) in place (JSON Lines
gzip-compressed under a ``.gz`` name, :func:`write_jsonl_atomic`); the SHA-256
of a file (:func:`sha256_file`); and input files read through gzip or bzip2 when their bytes
say so (:func:`open_decompressed`, for the readers in Python: pyoxigraph loads, JSON Lines)."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any, Literal, cast, overload

from kgbench.errors import InputError


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: The process umask, read once at import (reading it means setting it, which is not
#: thread-safe).
_UMASK = _read_umask()


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically, creating the parent directory; returns
    the path.

    Raises:
        InputError: the file cannot be written (the message names it); nothing is left
            behind.
    """
    return _write_atomic(Path(path), lambda fh: fh.write(text))


def _write_atomic(p: Path, write: Callable[[IO[str]], object], *, gzipped: bool = False) -> Path:
    """``write(fh)`` into a temporary file beside ``p`` (UTF-8 text; through gzip when
    ``gzipped``), then renamed to ``p``; the parent directory is created. Errors as
    :func:`write_text_atomic`."""
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
    except OSError as exc:
        raise InputError(f"{p}: cannot write: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as raw:
            # the gzip member is named after the target, not the temporary file
            binary = gzip.GzipFile(p.name, "wb", fileobj=raw) if gzipped else raw
            with io.TextIOWrapper(binary, encoding="utf-8") as fh:
                write(fh)
            # mkstemp creates the file 0600; give it the mode a plain open() would
            os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, p)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(f"{p}: cannot write: {exc.strerror or exc}") from exc
        raise
    return p


def write_json_atomic(path: str | os.PathLike[str], data: Any, *, sort_keys: bool = False) -> Path:
    """``data`` as indented JSON (2 spaces, UTF-8, final newline), atomically; values JSON
    cannot encode are written as ``str(value)``. Errors as :func:`write_text_atomic`."""
    text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=sort_keys, default=str)
    return write_text_atomic(path, text + "\n")


def write_jsonl_atomic(
    path: str | os.PathLike[str], rows: Iterable[Any], *, sort_keys: bool = False
) -> Path:
    """One compact JSON object per line (``json.dumps`` separators, non-ASCII kept, ``\\n``
    after each line; values JSON cannot encode as ``str(value)``), atomically, written as the
    rows come; a ``path`` ending in ``.gz`` is gzip-compressed (level 9, the member named
    after ``path`` without ``.gz``; :func:`open_decompressed` reads it). Errors as
    :func:`write_text_atomic`."""

    def write(fh: IO[str]) -> None:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=sort_keys, default=str))
            fh.write("\n")

    p = Path(path)
    return _write_atomic(p, write, gzipped=p.suffix == ".gz")


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes, as 64 lowercase hex digits (read in 1 MiB blocks).
    Raises ``OSError`` when the file cannot be read."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


#: Magic bytes of the compressed forms :func:`open_decompressed` reads (RFC 1952 §2.3.1;
#: bzip2's stream header ``BZh``), as the Rust reader (``kgbench_core::convert::decompress``)
#: detects them.
_GZIP_MAGIC = b"\x1f\x8b"
_BZIP2_MAGIC = b"BZh"


@overload
def open_decompressed(path: str | os.PathLike[str], *, text: Literal[False] = ...) -> IO[bytes]: ...


@overload
def open_decompressed(path: str | os.PathLike[str], *, text: Literal[True]) -> IO[str]: ...


def open_decompressed(path: str | os.PathLike[str], *, text: bool = False) -> IO[Any]:
    """``path`` opened for reading, through gzip or bzip2 when its first bytes are their magic
    numbers (``1f 8b``, ``BZh``; the name does not matter), else as it is: bytes, or with
    ``text`` UTF-8 text (universal newlines).

    Raises:
        OSError: the file cannot be opened or read (``gzip.BadGzipFile`` / ``EOFError`` come
            later, from reading a corrupt or truncated stream).
    """
    with open(path, "rb") as probe:
        magic = probe.read(3)
    mode = "rt" if text else "rb"
    encoding = "utf-8" if text else None
    if magic[:2] == _GZIP_MAGIC:
        # GzipFile / BZ2File are binary streams that typeshed does not declare as IO[bytes]
        return cast(IO[Any], gzip.open(path, mode, encoding=encoding))
    if magic == _BZIP2_MAGIC:
        return cast(IO[Any], bz2.open(path, mode, encoding=encoding))
    return open(path, mode, encoding=encoding)
