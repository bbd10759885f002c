"""kgbench.llm — a small client for OpenAI-compatible chat-completions endpoints.

:class:`LLMClient` (``kgbench.llm.client``) sends ``POST {base_url}/chat/completions`` with
``{"model", "messages", "temperature"}`` (plus ``stop``, ``max_tokens`` or
``max_completion_tokens``, ``seed`` and ``reasoning_effort`` when set; no temperature with
``temperature=None``) and returns ``choices[0].message.content``; it retries
connection errors, timeouts, HTTP 408/429/5xx with exponential backoff (honouring
``Retry-After``), bounds the requests in flight, and keeps a JSONL prompt → response replay
cache (``kgbench.llm.cache``) so a rerun replays offline and exactly. Every failure raises
:class:`LLMError` (a :class:`kgbench.errors.KgbenchError`) with a one-line message;
:class:`RefusedParameterError` when the endpoint's error body names a parameter the request
carried (OpenAI's ``unsupported_parameter`` / ``unsupported_value``).

Used by the CypherBench task generator's question rewrite and verify steps
(``kgbench.generate.llm_steps``; spec ``cypherbench-taskgen.md`` §4).
"""

from __future__ import annotations

from kgbench.llm.cache import ReplayCache, cache_key
from kgbench.llm.client import RETRY_STATUSES, Completion, LLMClient, tool_calls_of
from kgbench.llm.errors import LLMError, RefusedParameterError, RequestRefusedError

__all__ = [
    "RETRY_STATUSES",
    "Completion",
    "LLMClient",
    "LLMError",
    "RefusedParameterError",
    "ReplayCache",
    "RequestRefusedError",
    "cache_key",
    "tool_calls_of",
]
