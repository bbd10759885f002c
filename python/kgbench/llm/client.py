"""A small client for any OpenAI-compatible chat-completions endpoint, with a replay cache.

:class:`LLMClient` sends ``POST {base_url}/chat/completions`` (``base_url`` such as
``http://127.0.0.1:8000/v1`` or ``https://api.openai.com/v1``) with the JSON body
``{"model", "messages", "temperature"}`` (temperature 0 by default; ``temperature=None``
sends none, for models that accept only their default) and returns
``choices[0].message.content`` of the reply (the OpenAI chat-completions protocol). With
``reasoning_effort`` the body carries ``reasoning_effort``; :meth:`LLMClient.complete_full`
adds ``stop``, the token limit (as ``max_tokens`` or, with
``max_tokens_field="max_completion_tokens"``, as ``max_completion_tokens``) and ``seed`` when
given. :meth:`LLMClient.request_parameters` is exactly what a request carries besides
``model`` and ``messages``. HTTP goes through ``httpx``; one connection pool is shared by all
threads.

Retries: connection errors, timeouts, HTTP 408, 429 and 5xx are retried up to ``max_retries``
times with exponential backoff ``backoff_s * 2**(attempt-1)`` seconds (capped at
``max_backoff_s``) plus a deterministic jitter of up to 25 % (derived from the prompt's cache
key, so two runs wait alike); a ``Retry-After`` header (seconds or an HTTP date) replaces the
backoff, capped at ``max_backoff_s``. Other statuses are not retried.

With ``cache_path`` every answer is kept in a JSONL replay cache (:mod:`kgbench.llm.cache`): a
prompt already in the cache never contacts the server, so a rerun replays offline and exactly;
``replay_only=True`` never contacts the server at all.

Errors (all :class:`~kgbench.llm.errors.LLMError`, one line): the endpoint could not be reached
(``could not reach the LLM endpoint <url>: <reason>``) or kept failing after the retries; a
non-retryable status (status and a short body excerpt; a 4xx whose error body names a
parameter the request carries, as OpenAI's ``{"error": {"param": "stop", "code":
"unsupported_parameter", ...}}``, raises :class:`~kgbench.llm.errors.RefusedParameterError`
naming it); a malformed reply (not JSON, no
``choices[0].message.content``, content not a string); a bad cache line (``file:line``); a
replay-only miss.
"""

from __future__ import annotations

import email.utils
import hashlib
import os
import re
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from kgbench.errors import InputError
from kgbench.llm.cache import ReplayCache, cache_key
from kgbench.llm.errors import LLMError, RefusedParameterError, RequestRefusedError

#: HTTP statuses that are retried (besides connection errors and timeouts).
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})

_EXCERPT_CHARS = 200

#: The fields that may carry the token limit of :meth:`LLMClient.complete_full`.
MAX_TOKENS_FIELDS = ("max_tokens", "max_completion_tokens")

_UNSUPPORTED = re.compile(r"unsupported (?:parameter|value):\s*'([A-Za-z_][A-Za-z0-9_.]*)'", re.I)


def refused_parameter(text: str, sent: Any) -> tuple[str, str | None, str] | None:
    """(parameter, code, message) when the error body ``text`` names a parameter that the
    request body ``sent`` carries: OpenAI's ``{"error": {"message", "param", "code"}}``
    (``param`` set), or a message starting ``Unsupported parameter: 'NAME'`` / ``Unsupported
    value: 'NAME'`` without ``param`` (some proxies); None otherwise."""
    import json

    try:
        data = json.loads(text)
    except ValueError:
        return None
    err = data.get("error") if isinstance(data, dict) else None
    if not isinstance(err, dict):
        return None
    message = err.get("message")
    message = " ".join(message.split()) if isinstance(message, str) else ""
    code = err.get("code")
    code = code if isinstance(code, str) and code else None
    param = err.get("param")
    if not isinstance(param, str) or not param:
        match = _UNSUPPORTED.search(message)
        param = match.group(1) if match else None
    if param is None or param in ("model", "messages") or not isinstance(sent, dict):
        return None
    if param not in sent:
        return None
    return param, code, message


def _excerpt(text: str) -> str:
    """``text`` on one line (whitespace collapsed), cut to about 200 characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT_CHARS else flat[:_EXCERPT_CHARS] + "..."


def _retry_after_s(value: str | None) -> float | None:
    """Seconds to wait per a ``Retry-After`` header (delta-seconds or HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


@dataclass(frozen=True)
class Completion:
    """One reply of :meth:`LLMClient.complete_full`.

    ``text`` is ``choices[0].message.content`` ("" when the reply carried no usable text:
    content null or not a string, e.g. a refusal); ``unusable`` names why the text is empty
    (``"no_content"``, ``"refusal"``) or is None; ``finish_reason`` as the endpoint sent it;
    ``prompt_tokens`` / ``completion_tokens`` from the reply's ``usage`` (None when absent);
    ``cached`` is True when served from the replay cache (no request sent); ``tool_calls``
    the reply's ``choices[0].message.tool_calls`` of a request with ``tools`` (each
    ``{"id", "type": "function", "function": {"name", "arguments"}}`` as sent, ``arguments``
    a JSON text; :func:`tool_calls_of`), empty when there are none.
    """

    text: str
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    unusable: str | None = None
    cached: bool = False
    tool_calls: tuple[dict[str, Any], ...] = ()


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def tool_calls_of(message: Mapping[str, Any]) -> tuple[dict[str, Any], ...]:
    """The tool calls of a chat-completions reply ``message`` (``message.tool_calls``), each
    as ``{"id", "type": "function", "function": {"name", "arguments"}}``: ``arguments`` kept
    as the endpoint sent it when a string, JSON text of it when an object (some servers send
    one); a missing ``id`` becomes ``call_<index>``; an entry that is not an object, or has no
    ``function`` object, keeps a ``name`` of ``""`` (the caller answers it as malformed).
    Empty when the message has no ``tool_calls`` list."""
    import json

    raw = message.get("tool_calls")
    if not isinstance(raw, list):
        return ()
    calls: list[dict[str, Any]] = []
    for i, entry in enumerate(raw):
        entry = entry if isinstance(entry, dict) else {}
        fn = entry.get("function")
        fn = fn if isinstance(fn, dict) else {}
        name = fn.get("name")
        args = fn.get("arguments")
        if not isinstance(args, str):
            args = "" if args is None else json.dumps(args, ensure_ascii=False)
        ident = entry.get("id")
        calls.append(
            {
                "id": ident if isinstance(ident, str) and ident else f"call_{i}",
                "type": "function",
                "function": {"name": name if isinstance(name, str) else "", "arguments": args},
            }
        )
    return tuple(calls)


def _check_messages(messages: Any, tools: bool = False) -> list[dict[str, Any]]:
    """``messages`` checked: each a dict with a string ``role`` and a string ``content``;
    with ``tools`` also an assistant message whose ``content`` is null beside a
    ``tool_calls`` list, and ``tool`` messages (string ``content`` and ``tool_call_id``)."""
    if not isinstance(messages, list) or not messages:
        raise InputError("messages must be a non-empty list of {'role', 'content'} dicts")
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise InputError(f"messages[{i}] must be a dict with string 'role' and 'content'")
        content = m.get("content")
        if tools and m["role"] == "assistant" and isinstance(m.get("tool_calls"), list):
            if content is not None and not isinstance(content, str):
                raise InputError(f"messages[{i}]: 'content' must be a string or null")
            continue
        if tools and m["role"] == "tool" and not isinstance(m.get("tool_call_id"), str):
            raise InputError(f"messages[{i}]: a tool message needs a string 'tool_call_id'")
        if not isinstance(content, str):
            raise InputError(f"messages[{i}] must be a dict with string 'role' and 'content'")
    return messages


class LLMClient:
    """Chat completions from an OpenAI-compatible endpoint, retried, bounded and cached.

    ``base_url`` is the API root (``.../v1``); ``model`` the model name sent in every request.
    ``api_key`` defaults to the environment variable ``KGBENCH_LLM_API_KEY``, then
    ``OPENAI_API_KEY``; with none (or an empty one) no ``Authorization`` header is sent.
    ``cache_path`` is the JSONL replay cache (None: no cache); ``temperature`` the sampling
    temperature (0.0; None: no ``temperature`` sent); ``reasoning_effort`` is sent as
    ``reasoning_effort`` when given (e.g. ``"low"``; None: not sent); ``max_tokens_field`` the
    request field that carries :meth:`complete_full`'s ``max_tokens`` (``"max_tokens"``, the
    default, or ``"max_completion_tokens"``, which OpenAI's reasoning models require);
    ``max_concurrency`` the most requests in flight at once over all threads
    (4); ``max_retries`` the retries after the first attempt (4); ``timeout_s`` the timeout of
    each request in seconds (120); ``replay_only`` answers from the cache only (needs
    ``cache_path``); ``backoff_s`` (1.0) and ``max_backoff_s`` (60.0) shape the retry delays in
    seconds.

    ``stats`` counts ``requests`` (HTTP requests sent, retries included), ``cache_hits``
    (answers served without contacting the server) and ``retries``; ``usage`` sums the
    ``prompt_tokens`` / ``completion_tokens`` the endpoint reported in the replies it sent to
    :meth:`complete_full`.

    Raises :class:`~kgbench.errors.InputError` for bad arguments and
    :class:`~kgbench.llm.errors.LLMError` for a bad cache file. Use as a context manager or call
    :meth:`close` to release the connection pool.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        cache_path: str | os.PathLike[str] | None = None,
        temperature: float | None = 0.0,
        reasoning_effort: str | None = None,
        max_tokens_field: str = "max_tokens",
        max_concurrency: int = 4,
        max_retries: int = 4,
        timeout_s: float = 120.0,
        replay_only: bool = False,
        backoff_s: float = 1.0,
        max_backoff_s: float = 60.0,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise InputError(f"the LLM base URL must start with http:// or https://: {base_url!r}")
        if not model:
            raise InputError("the LLM model name must not be empty")
        if max_concurrency < 1:
            raise InputError(f"max_concurrency must be >= 1, got {max_concurrency}")
        if max_retries < 0:
            raise InputError(f"max_retries must be >= 0, got {max_retries}")
        if timeout_s <= 0:
            raise InputError(f"timeout_s must be > 0, got {timeout_s}")
        if backoff_s < 0 or max_backoff_s < 0:
            raise InputError("backoff_s and max_backoff_s must be >= 0")
        if max_tokens_field not in MAX_TOKENS_FIELDS:
            raise InputError(
                f"max_tokens_field must be one of {', '.join(MAX_TOKENS_FIELDS)}, "
                f"got {max_tokens_field!r}"
            )
        if reasoning_effort is not None and (
            not isinstance(reasoning_effort, str) or not reasoning_effort
        ):
            raise InputError(
                f"reasoning_effort must be a non-empty string, got {reasoning_effort!r}"
            )
        if replay_only and cache_path is None:
            raise InputError("replay_only needs a cache_path to replay from")
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.model = model
        self.temperature = None if temperature is None else float(temperature)
        self.reasoning_effort = reasoning_effort
        self.max_tokens_field = max_tokens_field
        self.max_concurrency = max_concurrency
        self.max_retries = max_retries
        self.timeout_s = float(timeout_s)
        self.replay_only = replay_only
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        if api_key is None:
            api_key = os.environ.get("KGBENCH_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.cache = ReplayCache(cache_path) if cache_path is not None else None
        self.stats: dict[str, int] = {"requests": 0, "cache_hits": 0, "retries": 0}
        self.usage: dict[str, int] = {"prompt_tokens": 0, "completion_tokens": 0}
        self._stats_lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._http: Any = None
        self._http_lock = threading.Lock()

    # -- lifecycle ------------------------------------------------------------------------

    def close(self) -> None:
        """Close the HTTP connection pool and the replay cache's file."""
        with self._http_lock:
            if self._http is not None:
                self._http.close()
                self._http = None
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _client(self) -> Any:
        with self._http_lock:
            if self._http is None:
                import httpx

                self._http = httpx.Client(
                    timeout=httpx.Timeout(self.timeout_s),
                    limits=httpx.Limits(
                        max_connections=self.max_concurrency,
                        max_keepalive_connections=self.max_concurrency,
                    ),
                    headers=self._headers,
                )
            return self._http

    def _count(self, name: str, n: int = 1) -> None:
        with self._stats_lock:
            self.stats[name] += n

    def _add_usage(self, done: Completion) -> None:
        with self._stats_lock:
            self.usage["prompt_tokens"] += done.prompt_tokens or 0
            self.usage["completion_tokens"] += done.completion_tokens or 0

    # -- public API -----------------------------------------------------------------------

    def complete(self, messages: list[dict[str, str]]) -> str:
        """The assistant's reply text to ``messages`` (``[{"role", "content"}, ...]``).

        Served from the cache when present (the server is not contacted); otherwise requested
        (with retries) and then cached. Raises :class:`~kgbench.llm.errors.LLMError` (see the
        module docstring) and :class:`~kgbench.errors.InputError` for malformed ``messages``.
        """
        messages = _check_messages(messages)
        options = self._options()
        key = cache_key(self.model, messages, self.temperature, options)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self._count("cache_hits")
                return hit
            if self.replay_only:
                raise LLMError(
                    f"no cached response for this prompt in {self.cache.path}; "
                    "run with the endpoint to fill it"
                )
        body = {"model": self.model, "messages": messages, **self.request_parameters()}
        text = self._content(self._post(body, key))
        if self.cache is not None:
            text = self.cache.put(key, self.model, messages, self.temperature, text, options)
        return text

    def request_parameters(
        self,
        *,
        stop: str | Sequence[str] | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> dict[str, Any]:
        """What a request carries besides ``model`` and ``messages``, in body order:
        ``temperature`` (unless None), ``stop`` (a string or a list of strings),
        ``max_tokens`` or ``max_completion_tokens`` (per ``max_tokens_field``), ``seed`` and
        ``reasoning_effort``, each only when set. :meth:`complete` sends it with no
        arguments; :meth:`complete_full` with its own."""
        params: dict[str, Any] = {}
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if stop is not None:
            params["stop"] = stop if isinstance(stop, str) else list(stop)
        if max_tokens is not None:
            params[self.max_tokens_field] = max_tokens
        if seed is not None:
            params["seed"] = seed
        if self.reasoning_effort is not None:
            params["reasoning_effort"] = self.reasoning_effort
        return params

    def _options(self, **extra: Any) -> dict[str, Any]:
        """The cache-key options (:data:`kgbench.llm.cache.OPTION_KEYS`) of a request: the
        client's ``reasoning_effort`` and ``extra`` (``stop``, ``max_tokens``, ``seed``,
        ``sample``, ``tools``), the token limit under the field it is sent as. Unset values
        are None, so a request with none of them keeps the key it always had (``tools`` is
        set only for tool-calling requests)."""
        options = dict(extra)
        if self.max_tokens_field != "max_tokens" and "max_tokens" in options:
            options[self.max_tokens_field] = options.pop("max_tokens")
        options["reasoning_effort"] = self.reasoning_effort
        return options

    def complete_full(
        self,
        messages: list[dict[str, str]],
        *,
        stop: str | Sequence[str] | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        sample: int = 0,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> Completion:
        """The reply to ``messages`` with its metadata, as a :class:`Completion`.

        ``tools`` (chat-completions function definitions, ``[{"type": "function",
        "function": {"name", "description", "parameters"}}, ...]``) are sent as ``tools``
        and are part of the cache key; ``messages`` may then hold the assistant's
        ``tool_calls`` and ``tool`` results, and the reply's calls are
        :attr:`Completion.tool_calls` (replayed from the cache like the text).

        ``stop`` (a string or a list of strings) and ``max_tokens`` (as the client's
        ``max_tokens_field``) are sent with the request when given, and ``seed`` (the
        endpoint's sampling seed, where it supports one);
        ``sample`` numbers repeated samples of one prompt (0, 1, ...: each is its
        own cache entry; the number is not sent). Unlike :meth:`complete`, a reply whose
        content is null or not a string (a refusal, a content filter) is not an error: it
        gives ``text=""`` and ``unusable`` says why; it is cached like any reply. Raises
        :class:`~kgbench.llm.errors.LLMError` when the endpoint cannot be reached or keeps
        failing, refuses the request (:class:`~kgbench.llm.errors.RefusedParameterError`
        when the error body names one of the request's parameters), or answers with
        something that is not chat-completions JSON (its HTTP status and an excerpt in the
        message), and on a replay-only miss.
        """
        tool_list = [dict(t) for t in tools] if tools is not None else None
        messages = _check_messages(messages, tools=tool_list is not None)
        if sample < 0:
            raise InputError(f"sample must be >= 0, got {sample}")
        if max_tokens is not None and max_tokens < 1:
            raise InputError(f"max_tokens must be >= 1, got {max_tokens}")
        stop_value: str | list[str] | None = (
            stop if stop is None or isinstance(stop, str) else list(stop)
        )
        options = self._options(
            stop=stop_value, max_tokens=max_tokens, seed=seed, sample=sample, tools=tool_list
        )
        key = cache_key(self.model, messages, self.temperature, options)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self._count("cache_hits")
                meta = self.cache.get_meta(key)
                raw = meta.get("usage")
                usage: dict[str, Any] = raw if isinstance(raw, dict) else {}
                calls = tool_calls_of(meta)
                return Completion(
                    text=hit,
                    finish_reason=meta.get("finish_reason"),
                    prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
                    completion_tokens=_int_or_none(usage.get("completion_tokens")),
                    unusable=meta.get("unusable") or (None if hit or calls else "no_content"),
                    cached=True,
                    tool_calls=calls,
                )
            if self.replay_only:
                raise LLMError(
                    f"no cached response for this prompt in {self.cache.path}; "
                    "run with the endpoint to fill it"
                )
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            **self.request_parameters(stop=stop_value, max_tokens=max_tokens, seed=seed),
        }
        if tool_list is not None:
            body["tools"] = tool_list
        done = self._completion(self._post(body, key))
        self._add_usage(done)
        if self.cache is not None:
            tokens: dict[str, int | None] | None = None
            if done.prompt_tokens is not None or done.completion_tokens is not None:
                tokens = {
                    "prompt_tokens": done.prompt_tokens,
                    "completion_tokens": done.completion_tokens,
                }
            self.cache.put(
                key,
                self.model,
                messages,
                self.temperature,
                done.text,
                options,
                {
                    "usage": tokens,
                    "finish_reason": done.finish_reason,
                    "unusable": done.unusable,
                    "tool_calls": list(done.tool_calls) or None,
                },
            )
        return done

    def complete_many(
        self, batch: Sequence[list[dict[str, str]]], progress: bool = False
    ) -> list[str]:
        """Replies to every conversation in ``batch``, in input order (one string each).

        Runs at most ``max_concurrency`` requests at once on threads; identical prompts are
        requested once. ``progress=True`` shows a tqdm bar on stderr (only on a terminal). On
        the first failure (in input order) the prompts not yet started are cancelled and its
        :class:`~kgbench.llm.errors.LLMError` is raised; answers received so far stay cached.
        """
        items = list(batch)
        for messages in items:
            _check_messages(messages)
        first_of: dict[str, int] = {}
        owner: list[int] = []
        for i, messages in enumerate(items):
            key = cache_key(self.model, messages, self.temperature, self._options())
            owner.append(first_of.setdefault(key, i))
        unique = sorted(set(owner))
        replies: dict[int, str] = {}
        from tqdm import tqdm

        with (
            ThreadPoolExecutor(max_workers=self.max_concurrency) as pool,
            tqdm(total=len(items), desc="LLM", disable=None if progress else True) as bar,
        ):
            futures: list[tuple[int, Future[str]]] = [
                (i, pool.submit(self.complete, items[i])) for i in unique
            ]
            try:
                for i, fut in futures:
                    replies[i] = fut.result()
                    bar.update(1)
            except BaseException:
                for _, fut in futures:
                    fut.cancel()
                raise
            duplicates = len(items) - len(unique)
            if duplicates:
                self._count("cache_hits", duplicates)
                bar.update(duplicates)
        return [replies[owner[i]] for i in range(len(items))]

    # -- HTTP -----------------------------------------------------------------------------

    def _delay_s(self, key: str, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        if retry_after is not None:
            return min(retry_after, self.max_backoff_s)
        base = min(self.backoff_s * 2 ** (attempt - 1), self.max_backoff_s)
        digest = hashlib.sha256(f"{key}:{attempt}".encode()).digest()
        jitter = int.from_bytes(digest[:4], "big") / 2**32 * 0.25
        return base * (1.0 + jitter)

    def _post(self, body: dict[str, Any], key: str) -> Any:
        """The first 2xx response to ``body`` (retried as the module docstring says)."""
        import httpx

        http = self._client()
        attempts = self.max_retries + 1
        reason = ""
        unreachable = True
        retry_after: float | None = None
        for attempt in range(attempts):
            if attempt:
                self._count("retries")
                time.sleep(self._delay_s(key, attempt, retry_after))
            retry_after = None
            with self._slots:
                self._count("requests")
                try:
                    resp = http.post(self.url, json=body)
                except httpx.TimeoutException as exc:
                    unreachable = True
                    reason = f"timed out after {self.timeout_s:g} s ({type(exc).__name__})"
                    continue
                except httpx.TransportError as exc:
                    unreachable = True
                    reason = _excerpt(str(exc)) or type(exc).__name__
                    continue
            status = resp.status_code
            if status in RETRY_STATUSES or status >= 500:
                unreachable = False
                reason = f"HTTP {status}: {_excerpt(resp.text)}"
                retry_after = _retry_after_s(resp.headers.get("retry-after"))
                continue
            if 400 <= status < 500:
                refused = refused_parameter(resp.text, body)
                if refused is not None:
                    param, code, detail = refused
                    why = f"HTTP {status} {code}" if code else f"HTTP {status}"
                    detail = _excerpt(detail)
                    raise RefusedParameterError(
                        f"the LLM endpoint {self.url} refused '{param}' ({why}"
                        + (f": {detail}" if detail else "")
                        + ")",
                        param=param,
                        code=code,
                        status=status,
                        detail=detail,
                    )
            if not 200 <= status < 300:
                raise RequestRefusedError(
                    f"the LLM endpoint {self.url} refused the request: "
                    f"HTTP {status}: {_excerpt(resp.text)}",
                    status=status,
                    detail=_excerpt(resp.text),
                )
            return resp
        tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
        if unreachable:
            raise LLMError(f"could not reach the LLM endpoint {self.url}: {reason} ({tries})")
        raise LLMError(f"the LLM endpoint {self.url} kept failing: {reason} ({tries})")

    def _message(self, resp: Any) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """(reply JSON, ``choices[0]``, ``choices[0].message``) of a 2xx reply, or LLMError
        naming what is missing, with the HTTP status and an excerpt of the body."""
        where = f"the LLM endpoint {self.url} sent a malformed reply (HTTP {resp.status_code})"
        try:
            data = resp.json()
        except ValueError:
            raise LLMError(f"{where}: not JSON: {_excerpt(resp.text)!r}") from None
        if not isinstance(data, dict):
            raise LLMError(f"{where}: not a JSON object: {_excerpt(resp.text)!r}")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise LLMError(
                f"{where}: no choices (expected choices[0].message.content): "
                f"{_excerpt(resp.text)!r}"
            )
        message = choices[0].get("message") if isinstance(choices[0], dict) else None
        if not isinstance(message, dict):
            raise LLMError(f"{where}: no choices[0].message: {_excerpt(resp.text)!r}")
        return data, choices[0], message

    def _completion(self, resp: Any) -> Completion:
        """A :class:`Completion` of a 2xx reply (null or non-string content: empty text)."""
        data, choice, message = self._message(resp)
        raw = data.get("usage")
        usage: dict[str, Any] = raw if isinstance(raw, dict) else {}
        content = message.get("content")
        finish = choice.get("finish_reason")
        calls = tool_calls_of(message)
        unusable = None
        if not isinstance(content, str):
            if not calls:
                unusable = "refusal" if message.get("refusal") else "no_content"
            content = ""
        return Completion(
            text=content,
            finish_reason=finish if isinstance(finish, str) else None,
            prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
            completion_tokens=_int_or_none(usage.get("completion_tokens")),
            unusable=unusable,
            tool_calls=calls,
        )

    def _content(self, resp: Any) -> str:
        """``choices[0].message.content`` of a 2xx reply, or LLMError naming what is missing."""
        where = f"the LLM endpoint {self.url} sent a malformed reply (HTTP {resp.status_code})"
        _data, _choice, message = self._message(resp)
        if "content" not in message:
            raise LLMError(f"{where}: no choices[0].message.content")
        content = message["content"]
        if not isinstance(content, str):
            kind = "null" if content is None else type(content).__name__
            raise LLMError(f"{where}: choices[0].message.content is {kind}, not a string")
        return content
