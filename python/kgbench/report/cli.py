"""``kgbench report RESULT_DIR... --out report.html``: the HTML report of command outputs
(:mod:`kgbench.report`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

_EPILOG = """\
RESULT_DIR is the output directory of `kgbench evaluate` (any family or language),
`kgbench generate cypherbench|pipe|synth|ngdbench` or `kgbench noise`, or the JSON Lines
output of `kgbench score --out` or `kgbench iso --out` (the file, or a directory holding
such files). The kind is recognised from the files. Several evaluate / score outputs are
shown side by side as runs (models), compared against the first.

The page is one file with everything inlined (plotly.js, data, scripts): it opens offline
and makes no network request. The same inputs give the same bytes.
"""


def register(subparsers: Any) -> None:
    """Add ``kgbench report`` to the kgbench parser."""
    p = subparsers.add_parser(
        "report",
        help="one self-contained HTML report (charts, comparisons, sortable task table) of "
        "evaluate / score / iso / generate / noise outputs",
        description="Write one self-contained HTML page from the outputs of kgbench's "
        "commands: overall and per-category metrics as charts (EX, PSJS, Exec by MATCH "
        "category, RETURN template, graph, hardness, isomorphism type), runs side by side with "
        "their differences, error classes with an example each, generation funnels, "
        "rejections and category balance, noise changes, and a sortable per-task table.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "dirs", nargs="+", type=Path, metavar="RESULT_DIR", help="command output directory"
    )
    p.add_argument(
        "--out", required=True, type=Path, metavar="REPORT.html", help="the HTML file to write"
    )
    p.add_argument("--title", default=None, help="the page's title (default: kgbench report)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench report``: writes the page and prints its path and contents."""
    from kgbench.fileio import write_text_atomic
    from kgbench.report import render_report
    from kgbench.report.render import chart_count

    text, inputs = render_report(args.dirs, title=args.title)
    path = write_text_atomic(args.out, text)
    parts = [
        f"{len(inputs.runs)} run(s)",
        f"{len(inputs.generations)} generation output(s)",
        f"{len(inputs.isos)} iso output(s)",
        f"{len(inputs.noises)} noise log(s)",
        f"{chart_count(text)} charts",
    ]
    print(f"report: {', '.join(parts)}", file=sys.stderr)
    print(path)
    return 0
