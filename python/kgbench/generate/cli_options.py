"""Command-line options and helpers shared by the generators' subcommands (``kgbench
generate cypherbench``, ``pipe``, ``synth``, ``ngdbench``): the LLM endpoint options and the
progress log. Below :mod:`kgbench.generate.cli`, which registers the subcommands, so that the
subcommands' own modules can import it."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def progress_log(args: argparse.Namespace) -> Any:
    """A ``log(msg)`` writing indented progress lines on stderr unless ``--quiet``."""

    def log(msg: str) -> None:
        if not args.quiet:
            print(f"  {msg}", file=sys.stderr)

    return log


def llm_args(p: argparse.ArgumentParser, purpose: str) -> None:
    """Add ``--llm-base-url``, ``--llm-model`` and ``--llm-cache`` (shared by the generators)."""
    p.add_argument(
        "--llm-base-url",
        default=None,
        metavar="URL",
        help="OpenAI-compatible endpoint (e.g. http://127.0.0.1:8000/v1) for "
        f"{purpose} (default: none, offline)",
    )
    p.add_argument("--llm-model", default=None, metavar="M", help="model name for the endpoint")
    p.add_argument(
        "--llm-cache",
        default=None,
        metavar="FILE",
        help="prompt→response cache (JSONL; default: DIR/llm_cache.jsonl); a rerun "
        "replays it offline",
    )


def llm_client(args: argparse.Namespace, out: str) -> Any:
    """The :class:`kgbench.llm.LLMClient` the ``llm_args`` options ask for, or None.

    Raises ValueError when only one of ``--llm-base-url`` / ``--llm-model`` is given."""
    if bool(args.llm_base_url) != bool(args.llm_model):
        raise ValueError("--llm-base-url and --llm-model go together")
    if not args.llm_base_url:
        return None
    from pathlib import Path

    from kgbench.llm import LLMClient

    cache = args.llm_cache or str(Path(out) / "llm_cache.jsonl")
    Path(cache).parent.mkdir(parents=True, exist_ok=True)
    return LLMClient(args.llm_base_url, args.llm_model, cache_path=cache)
