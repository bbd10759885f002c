"""An instant chat-completions endpoint for the model-run benchmarks, in its own process.

:func:`instant_endpoint` starts the test double ``tests/chat_completions_double.py`` (no
delay, a listen backlog of 512) in a child Python process, so its CPU is not counted in the
benchmark's, and yields its base URL; ``reply_source`` is Python source that defines
``reply(messages)`` (the double's scripted answer: a string, or a dict message with
``tool_calls``). The child stops when the block ends.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_SERVER = """
import json, sys
sys.path.insert(0, {tests!r})
from http.server import ThreadingHTTPServer
ThreadingHTTPServer.request_queue_size = 512  # the listen backlog (default 5)
from chat_completions_double import ChatCompletionsTestDouble
{reply_source}
d = ChatCompletionsTestDouble(reply=reply)
d.start()
print(d.url, flush=True)
sys.stdin.read()
d.stop()
"""


@contextmanager
def instant_endpoint(reply_source: str) -> Iterator[str]:
    """The base URL (``http://127.0.0.1:<port>/v1``) of the double answering with the
    ``reply`` that ``reply_source`` defines, for the duration of the block."""
    code = _SERVER.format(tests=str(REPO / "tests"), reply_source=reply_source)
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
