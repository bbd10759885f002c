"""Prompt → response replay cache of :class:`kgbench.llm.LLMClient`: one JSON Lines file.

Each line is one answered prompt::

    {"key": "<sha256 hex>", "model": "...", "temperature": 0.0,
     "messages": [{"role": "...", "content": "..."}, ...], "response": "..."}

``key`` is :func:`cache_key` of (model, messages, temperature): the SHA-256 hex digest of the
canonical JSON (keys sorted, no whitespace, UTF-8, temperature as a float, or null when the
request carries no temperature) of ``{"model", "messages", "temperature"}``, plus the request
options that change the reply when they are set (``stop``, ``max_tokens``,
``max_completion_tokens``, ``seed``, ``reasoning_effort``, ``tools``: the function
definitions of a tool-calling request) and ``sample`` (the index of a repeated sample, from
1; sample 0 has none), so a request without options keeps the key it
always had and a request with other parameters has another key. A line may also
hold ``usage`` (``{"prompt_tokens", "completion_tokens"}`` as the endpoint reported them),
``finish_reason``, ``unusable`` (why an empty response is empty: ``"no_content"``,
``"refusal"``) and ``tool_calls`` (the calls of a tool-calling reply, as the endpoint sent
them); they are replayed with the response. Messages of a tool-calling conversation are kept
as sent (an assistant message may carry ``tool_calls`` and null content, a ``tool`` message a
``tool_call_id``). The file is read once at start; new
answers are appended, one ``write`` per line under a lock and flushed, so a killed run keeps
every answer it got (the file stays open for appending until :meth:`ReplayCache.close`). A
prompt has one answer per cache: when a key is already present the first answer stays and is
the one returned (so a run and its offline replay give the same text).

Errors: :class:`kgbench.llm.LLMError` naming ``file:line`` for a line that is not a JSON object
with a 64-hex ``key`` and a string ``response``, or whose ``key`` does not match its own model,
messages and temperature.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from kgbench.llm.errors import LLMError

_HEX64 = re.compile(r"[0-9a-f]{64}")


#: Reply metadata a line may carry besides the response (module docstring).
META_KEYS = ("usage", "finish_reason", "unusable", "tool_calls")

#: Request options that are part of the key when set (module docstring).
OPTION_KEYS = (
    "stop",
    "max_tokens",
    "max_completion_tokens",
    "seed",
    "reasoning_effort",
    "sample",
    "tools",
)


def canonical_request(
    model: str,
    messages: Sequence[dict[str, str]],
    temperature: float | None,
    options: Mapping[str, Any] | None = None,
) -> dict[str, object]:
    """The cached part of a chat-completions request: ``{"model", "messages", "temperature"}``
    with ``messages`` copied as a list of dicts and ``temperature`` as a float (None when the
    request carries none), plus each of ``options`` (:data:`OPTION_KEYS`) whose value is not
    None (``sample`` 0 counts as unset)."""
    out: dict[str, object] = {
        "model": model,
        "messages": [dict(m) for m in messages],
        "temperature": None if temperature is None else float(temperature),
    }
    for name in OPTION_KEYS:
        value = (options or {}).get(name)
        if value is not None and not (name == "sample" and value == 0):
            out[name] = list(value) if isinstance(value, (list, tuple)) else value
    return out


def cache_key(
    model: str,
    messages: Sequence[dict[str, str]],
    temperature: float | None,
    options: Mapping[str, Any] | None = None,
) -> str:
    """SHA-256 hex digest (64 lowercase hex characters) of the canonical JSON of
    :func:`canonical_request` (sorted keys, compact separators, UTF-8)."""
    text = json.dumps(
        canonical_request(model, messages, temperature, options),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ReplayCache:
    """The JSONL replay cache at ``path`` (created, with its parent folders, on first append).

    Thread-safe. :meth:`get` looks a key up in memory; :meth:`put` records a new answer.
    Raises :class:`~kgbench.llm.LLMError` at construction for a bad line (``file:line``).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._entries: dict[str, str] = {}
        self._meta: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._needs_newline = False
        self._file: TextIO | None = None
        if self.path.exists():
            self._read()

    def __len__(self) -> int:
        return len(self._entries)

    def _read(self) -> None:
        with open(self.path, encoding="utf-8") as f:
            text = f.read()
        self._needs_newline = bool(text) and not text.endswith("\n")
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            where = f"{self.path}:{lineno}"
            try:
                entry = json.loads(line)
            except ValueError as exc:
                raise LLMError(f"{where}: not a JSON line of the LLM replay cache ({exc})") from exc
            if not isinstance(entry, dict):
                raise LLMError(f"{where}: an LLM replay cache line must be a JSON object")
            key, response = entry.get("key"), entry.get("response")
            if not isinstance(key, str) or not _HEX64.fullmatch(key):
                raise LLMError(f"{where}: 'key' must be a 64-character lowercase sha256 hex")
            if not isinstance(response, str):
                raise LLMError(f"{where}: 'response' must be a string")
            if {"model", "messages", "temperature"} <= entry.keys():
                options = {k: entry[k] for k in OPTION_KEYS if k in entry}
                try:
                    expected = cache_key(
                        entry["model"], entry["messages"], entry["temperature"], options
                    )
                except (TypeError, ValueError) as exc:
                    raise LLMError(f"{where}: bad model/messages/temperature ({exc})") from exc
                if expected != key:
                    raise LLMError(f"{where}: 'key' does not match the line's model/messages")
            if key not in self._entries:
                self._entries[key] = response
                meta = {k: entry[k] for k in META_KEYS if k in entry}
                if meta:
                    self._meta[key] = meta

    def close(self) -> None:
        """Close the file kept open for appending (a later :meth:`put` opens it again)."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def __del__(self) -> None:
        f = getattr(self, "_file", None)
        if f is not None:
            f.close()

    def get(self, key: str) -> str | None:
        """The cached response for ``key``, or None."""
        with self._lock:
            return self._entries.get(key)

    def get_meta(self, key: str) -> dict[str, Any]:
        """The ``usage``, ``finish_reason`` and ``unusable`` recorded with ``key`` (an empty
        dict if none)."""
        with self._lock:
            return dict(self._meta.get(key, {}))

    def put(
        self,
        key: str,
        model: str,
        messages: Sequence[dict[str, str]],
        temperature: float | None,
        response: str,
        options: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> str:
        """Record ``response`` for ``key`` (appended to the file and flushed) unless the key is
        already cached; returns the cached response (the first one recorded). ``options`` are
        the request options of the key (:func:`canonical_request`); ``meta`` holds ``usage``,
        ``finish_reason`` and ``unusable`` when known (None values are not written)."""
        with self._lock:
            old = self._entries.get(key)
            if old is not None:
                return old
            extra = {k: v for k, v in (meta or {}).items() if v is not None}
            line = json.dumps(
                {
                    "key": key,
                    **canonical_request(model, messages, temperature, options),
                    "response": response,
                    **extra,
                },
                ensure_ascii=False,
            )
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
            f = self._file
            if self._needs_newline:
                f.write("\n")
                self._needs_newline = False
            f.write(line + "\n")
            f.flush()
            self._entries[key] = response
            if extra:
                self._meta[key] = extra
            return response
