"""CLI subcommands of kgbench.iso."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add this stage's subcommands to the kgbench parser (none yet)."""
    del subparsers


def _unused(args: argparse.Namespace) -> int:  # pragma: no cover
    return 0
