"""The error raised by kgbench's LLM layer (:mod:`kgbench.llm`)."""

from __future__ import annotations

from kgbench.errors import KgbenchError


class LLMError(KgbenchError):
    """An LLM call failed: the endpoint could not be reached or kept failing after the
    retries, refused the request (a non-retryable HTTP status), sent a malformed reply, a
    replay cache line is bad (the message names ``file:line``), or a replay-only run met a
    prompt that is not in the cache. The message is one line."""


class RefusedParameterError(LLMError):
    """The endpoint refused one parameter of the request (an HTTP 4xx whose error body names
    it, OpenAI's shape ``{"error": {"message", "type", "param", "code"}}`` with ``code``
    ``unsupported_parameter`` or ``unsupported_value``, or a message ``Unsupported parameter:
    'NAME' ...``). ``param`` is the refused request field (``temperature``, ``stop``,
    ``max_tokens``, ...), ``code`` the error code (None when absent), ``status`` the HTTP
    status and ``detail`` the endpoint's message (one line, cut). The message is one line."""

    def __init__(
        self, message: str, *, param: str, code: str | None, status: int, detail: str
    ) -> None:
        super().__init__(message)
        self.param = param
        self.code = code
        self.status = status
        self.detail = detail


class RequestRefusedError(LLMError):
    """The endpoint refused the request with a non-retryable HTTP status (a 4xx that names no
    parameter of the request: e.g. a conversation longer than the model's context, an
    unknown model). ``status`` is the HTTP status and ``detail`` an excerpt of the body (one
    line, cut). The message is one line."""

    def __init__(self, message: str, *, status: int, detail: str) -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail
