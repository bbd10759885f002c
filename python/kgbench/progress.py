"""What a long step is doing, shown while it runs (layer 0: imports nothing of kgbench).

:class:`Activity` shows a spinner with the elapsed time on a terminal, and a line now and then
elsewhere (a log file, a pipe); the stage CLIs (``neo4j``, ``iso``, ``score``, ...) use it
around long native calls. It sits here, below every stage, so that a stage does not import the
``kgbench`` command line above it (issue 40).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from types import TracebackType
from typing import TextIO

__all__ = ["Activity"]


class Activity:
    """What a long step is doing, on ``stream`` (default stderr), as a context manager.

    On a terminal: after ``delay_s`` seconds, a spinner, the text (cut to the terminal's width)
    and the elapsed seconds on one line, redrawn by a thread every 0.1 s (so it moves while
    native code runs without the GIL) and erased at the end. Elsewhere (a log file, a pipe):
    nothing for a short step; the text and the elapsed time once ``every_s`` seconds passed
    without a line, and again every ``every_s`` seconds. :meth:`update` changes the text; when
    not on a terminal, a text whose headline (the part before the first ``": "``) differs from
    the previous one is written at once. ``enabled=False`` shows nothing.
    """

    FRAMES = "|/-\\"

    def __init__(
        self,
        text: str,
        *,
        stream: TextIO | None = None,
        every_s: float = 30.0,
        delay_s: float = 0.5,
        enabled: bool = True,
        prefix: str = "kgbench: ",
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.text = text
        self.every_s = every_s
        self.delay_s = delay_s
        self.enabled = enabled
        self.prefix = prefix
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.tty = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()
        self._headline = text.split(": ", 1)[0]
        self._drawn = False
        self._last_line = self._t0

    @property
    def elapsed(self) -> float:
        """Seconds since the step began."""
        return time.monotonic() - self._t0

    def update(self, text: str) -> None:
        """Show ``text`` from now on (see the class docstring for when it is written)."""
        with self._lock:
            self.text = text
            headline = text.split(": ", 1)[0]
            if headline != self._headline:
                self._headline = headline
                if self.enabled and not self.tty:
                    self._write_line(periodic=False)

    def note(self, text: str) -> None:
        """Write ``text`` as a line of its own that stays (on a terminal, the spinner line is
        erased first and redrawn after it); with ``enabled=False`` nothing is written."""
        if not self.enabled:
            return
        with self._lock:
            if self._drawn:
                self.stream.write("\r\x1b[K")
            self.stream.write(f"{self.prefix}{text}\n")
            self.stream.flush()
            self._last_line = time.monotonic()

    def _write_line(self, *, periodic: bool) -> None:
        suffix = f" ({self.elapsed:.0f} s)" if periodic else ""
        self.stream.write(f"{self.prefix}{self.text}{suffix}\n")
        self.stream.flush()
        self._last_line = time.monotonic()

    def _draw(self, frame: int) -> None:
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            columns = 0
        width = (columns or 80) - 1  # a new pseudo-terminal may report 0 columns
        head = f"{self.FRAMES[frame % len(self.FRAMES)]} {self.prefix}"
        tail = f"  {self.elapsed:.0f} s"
        text = self.text
        room = max(width - len(head) - len(tail), 10)
        if len(text) > room:
            text = text[: room - 3] + "..."
        self.stream.write(f"\r{head}{text}{tail}\x1b[K")
        self.stream.flush()
        self._drawn = True

    def _run(self) -> None:
        frame = 0
        if self._stop.wait(self.delay_s if self.tty else 0):
            return
        while True:
            with self._lock:
                if self.tty:
                    self._draw(frame)
                    frame += 1
                elif time.monotonic() - self._last_line >= self.every_s:
                    self._write_line(periodic=True)
            if self._stop.wait(0.1 if self.tty else min(1.0, self.every_s)):
                return

    def __enter__(self) -> Activity:
        self._t0 = self._last_line = time.monotonic()
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="kgbench-activity", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
