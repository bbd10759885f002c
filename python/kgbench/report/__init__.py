"""``kgbench report``: one self-contained HTML page from the outputs of kgbench's commands
(issue 17).

Inputs are output directories of ``kgbench evaluate`` (CypherBench family, ``--language
sparql``, ``--family ngdbench``, ``--family gtsqa``, ``--family text2cypher``), ``kgbench
generate cypherbench|pipe|synth|ngdbench`` and ``kgbench noise``, and the JSON Lines outputs
of ``kgbench score`` and ``kgbench iso`` (the file, or a directory holding such files). Each
directory's kind is recognised from its files (:func:`kgbench.report.inputs.detect_kind`,
where the table of kinds is); a directory of no known kind stops the report with a one-line
error naming it.

The page shows:

- overall metrics of every run (EX, PSJS, Exec, EX_set; NGDBench's per-family metrics;
  GTSQA's hits, recall and triple scores; Text2Cypher's Google-BLEU and exact match; pass@k
  of sampled runs) side
  by side, as charts and a table, with each run's notes (excluded tasks, oracle);
- with several runs, the differences against the first run: metric deltas, per-task
  win / loss counts on the common qids, and the tasks whose verdicts differ;
- EX, PSJS and Exec (and the other metrics) per MATCH category, RETURN template (grouped as
  CypherBench's ``by_return``), graph, Spider hardness, isomorphism type (a record's
  ``graph_isomorphism``, or that of the iso record with the same qid / GTSQA ``id``), NGDBench
  family, ``same_as_cleangraph`` and management operation;
- error classes per run with the first task of each (qid, question, prediction, message);
- for agent runs (an evaluation with ``by_turns``, formats.md §6), the ``run.json`` ``agent``
  totals and the main metric by turns and by ending, and in the task table each task's
  conversation as a collapsed block (tool calls, queries, results cut short, ending,
  answer; :func:`kgbench.report.inputs.read_agent`);
- for generation outputs, the funnel of candidates, the rejections per reason (with an example
  where the output keeps one) and the category balance; isomorphism-type distributions of iso
  outputs; noise types, changes and methods of noise logs;
- a per-task table (run, qid, groups, question, gold, prediction, verdict, metrics, error)
  that sorts by any column when its header is clicked, and filters by text.

The page needs no network: plotly.js (from the installed ``plotly`` package), the styles, the
data and the scripts are inlined, and its Content-Security-Policy forbids any request. The same
inputs give byte-identical HTML (no time stamp, no random id).

Example::

    from kgbench.report import write_report
    write_report(["out/evaluation", "out/pipe"], "out/report.html", title="My benchmark")
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from kgbench.report.inputs import ReportInputs, detect_kind, load_inputs

__all__ = ["ReportInputs", "detect_kind", "load_inputs", "render_report", "write_report"]


def render_report(
    dirs: Iterable[str | os.PathLike[str]], *, title: str | None = None
) -> tuple[str, ReportInputs]:
    """The report's HTML text for the outputs in ``dirs`` and what was read from them.

    Raises:
        InputError: no input, an input of no known kind, or a file of the wrong shape (the
            message names the path)."""
    from kgbench.report.render import render_html

    inputs = load_inputs(dirs)
    return render_html(inputs, title=title), inputs


def write_report(
    dirs: Iterable[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    title: str | None = None,
) -> Path:
    """Write the HTML report of the command outputs in ``dirs`` (directories, or score / iso
    JSON Lines files; module docstring) to ``out``, atomically, creating its directory; return
    ``out`` as a :class:`~pathlib.Path`. ``title`` heads the page (default
    ``"kgbench report"``).

    Raises:
        InputError: no input, an input of no known kind, a file of the wrong shape (the message
            names the path), or ``out`` cannot be written."""
    from kgbench.fileio import write_text_atomic

    text, _ = render_report(dirs, title=title)
    return write_text_atomic(Path(out), text)
