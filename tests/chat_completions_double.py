"""A test double of an OpenAI-compatible chat-completions endpoint: a real local HTTP server.

:class:`ChatCompletionsTestDouble` runs ``http.server.ThreadingHTTPServer`` on 127.0.0.1 (a
free port) in a thread and answers ``POST /v1/chat/completions`` like the OpenAI protocol:
it parses the JSON body and replies ``{"id", "object": "chat.completion", "created", "model",
"choices": [{"index": 0, "message": {"role": "assistant", "content": ...}, "finish_reason":
"stop"}], "usage": {...}}`` where the content is ``reply(messages)`` of a scripted function
(a dict reply is the message itself, e.g. ``{"content": None, "tool_calls": [...]}``: a
tool-calling answer, ``finish_reason`` ``"tool_calls"``).
It records every request (body and headers), counts the requests in flight (and the maximum),
and can be told to answer the next requests with an HTTP error (500, 429 + ``Retry-After``,
400, ...), a malformed body, or after a delay. It is the only fake the LLM tests use: the
client under test talks real HTTP to it.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Messages = list[dict[str, str]]

#: Retry delays for tests of the LLM client (seconds; ``LLMClient`` / ``predict`` keywords).
FAST: dict[str, Any] = {"backoff_s": 0.001, "max_backoff_s": 0.01}


def last_user_content(messages: Messages) -> str:
    """The content of the last ``user`` message."""
    return [m["content"] for m in messages if m["role"] == "user"][-1]


@dataclass
class _Scripted:
    status: int = 200
    body: bytes | None = None  # None: a normal completion
    retry_after: str | None = None
    delay_s: float = 0.0
    refusal: str | None = None


class ChatCompletionsTestDouble:
    """A local chat-completions server; ``url`` is its base URL (``http://127.0.0.1:<port>/v1``).

    ``reply(messages) -> str`` gives the assistant content; ``delay_s`` (or a function of the
    messages) delays every answer. Use as a context manager (starts and stops the server).
    """

    def __init__(
        self,
        reply: Callable[[Messages], str] | None = None,
        delay_s: float | Callable[[Messages], float] = 0.0,
    ) -> None:
        self.reply = reply or (lambda messages: "echo: " + last_user_content(messages))
        self.delay_s = delay_s
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._script: deque[_Scripted] = deque()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- scripting ------------------------------------------------------------------------

    def fail_next(
        self, n: int, status: int = 500, retry_after: str | None = None, body: str = ""
    ) -> None:
        """Answer the next ``n`` requests with HTTP ``status`` (JSON error body by default)."""
        payload = body or json.dumps({"error": {"message": f"scripted failure {status}"}})
        for _ in range(n):
            self._script.append(_Scripted(status, payload.encode(), retry_after))

    def malformed_next(self, body: str, status: int = 200) -> None:
        """Answer the next request with ``body`` as it is."""
        self._script.append(_Scripted(status, body.encode()))

    def refuse_next(self, n: int, refusal: str = "I can't help with that.") -> None:
        """Answer the next ``n`` requests with a refusal: ``message.content`` null and
        ``message.refusal`` set (the OpenAI form)."""
        for _ in range(n):
            self._script.append(_Scripted(refusal=refusal))

    def sleep_next(self, n: int, seconds: float) -> None:
        """Answer the next ``n`` requests normally, but only after ``seconds``."""
        for _ in range(n):
            self._script.append(_Scripted(delay_s=seconds))

    @property
    def url(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> ChatCompletionsTestDouble:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket (the port then refuses connections)."""
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> ChatCompletionsTestDouble:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- protocol -------------------------------------------------------------------------

    def _completion(self, body: dict[str, Any], refusal: str | None = None) -> bytes:
        answer: Any = None if refusal is not None else self.reply(body["messages"])
        finish = "stop"
        if isinstance(answer, dict):  # a tool-calling reply: {"content", "tool_calls"}
            message: dict[str, Any] = {"role": "assistant", **answer}
            content = answer.get("content")
            if answer.get("tool_calls"):
                finish = "tool_calls"
        else:
            content = answer
            message = {"role": "assistant", "content": content}
        if refusal is not None:
            message["refusal"] = refusal
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
        return json.dumps(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model"),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": finish,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_words,
                    "completion_tokens": len((content or "").split()),
                    "total_tokens": prompt_words + len((content or "").split()),
                },
            }
        ).encode()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        double = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: bytes, retry_after: str | None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    if retry_after is not None:
                        self.send_header("Retry-After", retry_after)
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # the client gave up (timeout) and closed the connection
                    self.close_connection = True

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path != "/v1/chat/completions":
                    self._send(404, b'{"error": "not found"}', None)
                    return
                body = json.loads(raw)
                with double._lock:
                    double.requests.append(body)
                    double.headers.append({k.lower(): v for k, v in self.headers.items()})
                    double.paths.append(self.path)
                    double.in_flight += 1
                    double.max_in_flight = max(double.max_in_flight, double.in_flight)
                    step = double._script.popleft() if double._script else _Scripted()
                try:
                    delay = double.delay_s
                    delay = delay(body["messages"]) if callable(delay) else delay
                    time.sleep(step.delay_s or delay)
                    payload = (
                        step.body
                        if step.body is not None
                        else double._completion(body, step.refusal)
                    )
                finally:
                    # leave the in-flight count before answering: the client may send its next
                    # request as soon as it has read this answer
                    with double._lock:
                        double.in_flight -= 1
                self._send(step.status, payload, step.retry_after)

        return Handler
