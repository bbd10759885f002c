"""Exception hierarchy shared by all kgbench stages.

Every error kgbench raises on bad input or a failed operation derives from
:class:`KgbenchError`, so callers (and the CLI) can catch one class.
"""

from __future__ import annotations


class KgbenchError(Exception):
    """Base class of kgbench's own errors; the CLI prints its message on one line."""


class InputError(KgbenchError, ValueError):
    """Bad user input: a malformed file, record or argument. The message names the
    file and the line, offset or field."""
