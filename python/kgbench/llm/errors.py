"""The error raised by kgbench's LLM layer (:mod:`kgbench.llm`)."""

from __future__ import annotations

from kgbench.errors import KgbenchError


class LLMError(KgbenchError):
    """An LLM call failed: the endpoint could not be reached or kept failing after the
    retries, refused the request (a non-retryable HTTP status), sent a malformed reply, a
    replay cache line is bad (the message names ``file:line``), or a replay-only run met a
    prompt that is not in the cache. The message is one line."""
