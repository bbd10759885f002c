"""The one evaluation type: what every family's scorer returns and how it is written.

:class:`Evaluation` holds the scored task records (``result_with_metrics.json``) and the
aggregated metrics (``aggregated_metrics.json``); :meth:`Evaluation.write` writes both
atomically (a reader never sees half a file, an interrupted write leaves the previous file),
and :meth:`Evaluation.table` is the text ``kgbench evaluate`` prints. Every
``aggregated_metrics.json`` ends with ``"family"`` (the benchmark family that scored it, a
name of :mod:`kgbench.families.registry`) and ``"kgbench_version"``, which
``kgbench report`` reads instead of guessing the family from the file's keys
(issue 40; formats: ``kgbench/docs/formats.md`` §6).

Two JSON styles: ``"kgbench"`` (:func:`kgbench.fileio.write_json_atomic`: 2-space indent,
UTF-8, final newline) and ``"cypherbench"`` (CypherBench's ``json.dump(..., indent=2)``:
ASCII escapes, no final newline), the latter for the CypherBench evaluation whose files
match the original tool's byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

#: The scored task records of an evaluation.
RESULTS_FILE = "result_with_metrics.json"
#: The aggregated metrics of an evaluation.
AGGREGATED_FILE = "aggregated_metrics.json"


@dataclass
class Evaluation:
    """Scored ``records`` (one dict per task, in input order) and the ``aggregated``
    metrics of one family's evaluation; ``family`` is the family recorded in
    ``aggregated_metrics.json`` (each subclass names its own by default)."""

    records: list[dict[str, Any]]
    aggregated: dict[str, Any]
    family: str = field(default="", kw_only=True)
    #: The breakdown by agent turns (:meth:`add_trajectories`); None: not an agent run,
    #: and ``aggregated_metrics.json`` has no key of it.
    turns: dict[str, Any] | None = field(default=None, kw_only=True)
    #: The ``unflagged`` and ``gold_flags`` objects of a gold audit (:meth:`add_gold_flags`);
    #: None: no ``--audit``, and ``aggregated_metrics.json`` has no key of it.
    gold_audit: dict[str, Any] | None = field(default=None, kw_only=True)

    #: ``"kgbench"`` or ``"cypherbench"`` (module docstring).
    JSON_STYLE: ClassVar[str] = "kgbench"
    #: The per-task metric of ``by_turns`` (a key of the records' ``metrics``; None: counts
    #: only).
    TURN_METRIC: ClassVar[str | None] = "execution_accuracy"

    def add_trajectories(self, path: str | Path, out_dir: str | Path | None = None) -> None:
        """Break the scored records down by the agent conversation of their task (the
        ``trajectories.jsonl`` at ``path``; the first sample of each task): :attr:`turns`
        becomes ``{by_turns: {turns: {n, <TURN_METRIC>}}, by_ending: {ending: {...}},
        trajectories}`` (turns in increasing order, endings in first-seen order; ``n`` the
        scored records of that group, the metric their mean to 4 decimals; ``trajectories``
        the file's path relative to ``out_dir`` when given, so ``kgbench report`` finds it).
        Records are paired by ``qid`` (GTSQA: ``id``); a record without a conversation is
        in no group and is said on stderr.

        Raises:
            InputError: ``path`` is not a trajectory file (names file and line)."""
        import os
        import sys

        from kgbench.evaluate.aggregate import mean4
        from kgbench.tasks import read_trajectories

        first: dict[str, dict[str, Any]] = {}
        for t in read_trajectories(path):
            first.setdefault(t["qid"], t)
        by_turns: dict[int, list[dict[str, Any]]] = {}
        by_ending: dict[str, list[dict[str, Any]]] = {}
        missing = 0
        for rec in self.records:
            qid = rec.get("qid", rec.get("id"))
            traj = first.get(str(qid)) if qid is not None else None
            if traj is None:
                missing += 1
                continue
            by_turns.setdefault(int(traj["turns"]), []).append(rec)
            by_ending.setdefault(str(traj["ending"]), []).append(rec)
        metric = self.TURN_METRIC

        def group(recs: list[dict[str, Any]]) -> dict[str, Any]:
            out: dict[str, Any] = {"n": len(recs)}
            if metric is not None:
                values = [
                    float(r["metrics"][metric])
                    for r in recs
                    if isinstance(r.get("metrics"), dict) and r["metrics"].get(metric) is not None
                ]
                out[metric] = mean4(values) if values else None
            return out

        where = str(path)
        if out_dir is not None:
            where = os.path.relpath(os.path.abspath(path), os.path.abspath(out_dir))
        self.turns = {
            "by_turns": {str(k): group(by_turns[k]) for k in sorted(by_turns)},
            "by_ending": {e: group(v) for e, v in by_ending.items()},
            "trajectories": where,
        }
        if missing:
            print(
                f"warning: {missing} of {len(self.records)} scored tasks have no conversation "
                f"in {path}: they are in no by_turns group",
                file=sys.stderr,
            )

    def turns_table(self) -> str:
        """The ``by_turns`` / ``by_ending`` lines ``kgbench evaluate`` prints after
        :meth:`table` (``""`` without :attr:`turns`)."""
        if self.turns is None:
            return ""
        metric = self.TURN_METRIC
        lines: list[str] = []
        for section in ("by_turns", "by_ending"):
            lines.append(f"{section} (n, {metric})" if metric else f"{section} (n)")
            for key, g in self.turns[section].items():
                value = g.get(metric) if metric else None
                shown = "" if value is None else f" {value:>8.4f}"
                lines.append(f"  {key:<24} {g['n']:>6d}{shown}")
        return "\n".join(lines)

    def add_gold_flags(self, flags: dict[str, list[dict[str, Any]]]) -> None:
        """Carry the flags of a gold audit (``{qid: flags}``, :func:`kgbench.evaluate.
        gold_flags.read_audit`) into the evaluation: each scored record gains ``gold_flags``
        (its qid's flags as the audit wrote them, ``[]`` for a clean gold, None for a task the
        audit does not cover; records paired by ``qid``, GTSQA ``id``) and
        ``aggregated_metrics.json`` gains ``unflagged`` (the metrics over the tasks without a
        flag, :func:`kgbench.evaluate.gold_flags.unflagged_metrics`) and ``gold_flags``
        (scored tasks per flag) right after ``informative`` (:meth:`write`)."""
        from kgbench.evaluate.gold_flags import gold_flag_counts, metric_names, unflagged_metrics

        for rec in self.records:
            qid = rec.get("qid", rec.get("id"))
            rec["gold_flags"] = flags.get(str(qid)) if qid is not None else None
        names = metric_names(self.aggregated_output(), self.records)
        self.gold_audit = {
            "unflagged": unflagged_metrics(self.records, names),
            "gold_flags": gold_flag_counts(self.records),
        }

    def gold_flags_table(self) -> str:
        """The ``unflagged`` lines ``kgbench evaluate --audit`` prints after :meth:`table`
        (``""`` without :attr:`gold_audit`)."""
        if self.gold_audit is None:
            return ""
        from kgbench.evaluate.gold_flags import format_unflagged

        return format_unflagged(self.gold_audit["unflagged"], self.gold_audit["gold_flags"])

    def aggregated_output(self) -> dict[str, Any]:
        """The content of ``aggregated_metrics.json`` before the family and version fields
        (default: :attr:`aggregated`; a subclass adds what it keeps beside it)."""
        return dict(self.aggregated)

    def write(self, out_dir: str | Path) -> tuple[Path, Path]:
        """Write ``result_with_metrics.json`` and ``aggregated_metrics.json`` (with
        :attr:`gold_audit`'s keys after ``informative`` and :attr:`turns`' keys when set,
        then ``family`` and ``kgbench_version`` last) into
        ``out_dir`` (created if missing), each atomically; return their paths.

        Raises:
            InputError: the directory or a file cannot be written (names it; the previous
                file, if any, is left as it was)."""
        from kgbench import __version__

        out = Path(out_dir)
        aggregated = self.aggregated_output()
        if self.gold_audit is not None:
            # right after ``informative`` (at the end when there is none)
            keys = list(aggregated)
            at = keys.index("informative") + 1 if "informative" in keys else len(keys)
            aggregated = {
                **{k: aggregated[k] for k in keys[:at]},
                **self.gold_audit,
                **{k: aggregated[k] for k in keys[at:]},
            }
        if self.turns is not None:
            aggregated.update(self.turns)
        aggregated["family"] = self.family
        aggregated["kgbench_version"] = __version__
        return (
            self._dump(out / RESULTS_FILE, self.records),
            self._dump(out / AGGREGATED_FILE, aggregated),
        )

    def _dump(self, path: Path, data: Any) -> Path:
        from kgbench.fileio import write_json_atomic, write_text_atomic

        if self.JSON_STYLE == "cypherbench":
            return write_text_atomic(path, json.dumps(data, indent=2))
        return write_json_atomic(path, data)

    def table(self) -> str:
        """The aggregated metrics as the text ``kgbench evaluate`` prints (each family's
        own layout)."""
        raise NotImplementedError(f"{type(self).__name__} has no table")
