"""MkDocs hook: the command-line reference (``reference/cli.md``), generated at build time from
the argparse parser of :mod:`kgbench.cli`, so it always matches ``kgbench ... --help``.

Every command and subcommand gets a section with its ``--help`` text, formatted at a fixed width
(100 columns) so that the page does not depend on the terminal that builds it.
"""

from __future__ import annotations

import argparse
import os
import re
from typing import Any

#: The line of ``docs/reference/cli.md`` that the generated sections replace.
MARKER = "<!-- kgbench-cli-reference -->"

#: A Sphinx cross-reference role as the docstrings write it (``:func:`name```, ``:class:`~a.B```),
#: after Markdown made its target a code span: the role and the ``~`` are dropped.
_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|data|attr|exc|obj):<code>~?")


def _subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers of ``parser``'s subcommands, in the order they were added (aliases once)."""
    found: list[argparse.ArgumentParser] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                if all(sub is not seen for seen in found):
                    found.append(sub)
    return found


def _sections(parser: argparse.ArgumentParser, level: int) -> list[str]:
    out = [f"{'#' * level} `{parser.prog}`\n", "```text", parser.format_help().rstrip(), "```\n"]
    for sub in _subcommands(parser):
        out.extend(_sections(sub, min(level + 1, 4)))
    return out


def cli_reference() -> str:
    """The Markdown of every command's help, ``kgbench`` first, then each subcommand in the
    order of ``kgbench --help``, nested subcommands under theirs."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        from kgbench.cli import build_parser

        return "\n".join(_sections(build_parser(), 2))
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Fill the CLI reference page; every other page is returned unchanged."""
    if page.file.src_uri != "reference/cli.md":
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"docs/reference/cli.md: the line {MARKER} is missing")
    return markdown.replace(MARKER, cli_reference())


def on_page_content(html: str, **_: Any) -> str:
    """Drop the Sphinx role prefixes of the docstrings in the API reference (``:func:`` before
    a code span), keeping the code span."""
    return _ROLE.sub("<code>", html)
