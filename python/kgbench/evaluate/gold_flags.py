"""The flags of a gold audit (``kgbench audit``'s ``audit.json``) carried into an evaluation
(``kgbench evaluate --audit FILE``, issue 37).

:func:`read_audit` reads ``audit.json`` into ``{qid: [flag, ...]}`` (each flag ``{flag, reason,
details}`` as the audit wrote it; qids as strings); :func:`check_audit_qids` compares it with
the qids of a task file before anything runs; :func:`unflagged_metrics` and
:func:`gold_flag_counts` are the ``unflagged`` and ``gold_flags`` objects
:meth:`kgbench.evaluate.outputs.Evaluation.add_gold_flags` puts in ``aggregated_metrics.json``
(formats: ``kgbench/docs/formats.md`` §16).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.aggregate import mean4

#: The flags of ``kgbench audit`` (:mod:`kgbench.evaluate.audit`), in the order a task lists
#: them.
FLAGS = (
    "gold_error",
    "nondeterministic",
    "slow",
    "version_sensitive",
    "uninformative",
    "large",
    "duplicate_question",
)


def read_audit(path: str | Path) -> dict[str, list[dict[str, Any]]]:
    """``{qid: flags}`` of the ``audit.json`` at ``path``, in the file's task order (qids as
    strings; a task without flags maps to ``[]``).

    Raises:
        InputError: the file cannot be read, is not JSON, or is not an audit (an object with
            ``tasks``: a list of ``{qid, flags: [{flag, reason, ...}]}``); names the file and
            the task.
    """
    from kgbench.evaluate.readback import read_json

    p = Path(path)
    data = read_json(p)
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, list):
        raise InputError(f"{p}: not a kgbench audit file (no 'tasks' list; see `kgbench audit`)")
    out: dict[str, list[dict[str, Any]]] = {}
    for i, task in enumerate(tasks):
        if not isinstance(task, dict) or task.get("qid") is None:
            raise InputError(f"{p}: task {i}: expected an object with 'qid'")
        flags = task.get("flags")
        if not isinstance(flags, list) or not all(
            isinstance(f, dict) and isinstance(f.get("flag"), str) for f in flags
        ):
            raise InputError(
                f"{p}: task {i} (qid {task['qid']!r}): 'flags' must be a list of "
                "{flag, reason, details} objects"
            )
        qid = str(task["qid"])
        if qid in out:
            raise InputError(f"{p}: qid {qid!r} is audited twice")
        out[qid] = flags
    return out


def check_audit_qids(
    audit: Mapping[str, Any], task_qids: Iterable[Any], audit_path: str | Path, tasks_path: Any
) -> list[str]:
    """Compare the audit's qids with the tasks': the warnings to print (audited qids that are
    no task, tasks the audit does not cover; each counted, with an example).

    Raises:
        InputError: no qid in common (an audit of other tasks).
    """
    qids = [str(q) for q in task_qids]
    known = set(qids)
    extra = [q for q in audit if q not in known]
    missing = [q for q in qids if q not in audit]
    if len(extra) == len(audit):
        raise InputError(
            f"--audit {audit_path}: none of its {len(audit)} qids is a task of {tasks_path} "
            f"(e.g. {next(iter(audit), None)!r}): an audit of other tasks? Run `kgbench audit "
            "--tasks` on this task file"
        )
    warnings = []
    if extra:
        warnings.append(
            f"warning: {len(extra)} qid(s) of --audit {audit_path} are not tasks of "
            f"{tasks_path} and are ignored, e.g. {extra[0]!r}"
        )
    if missing:
        warnings.append(
            f"warning: {len(missing)} task(s) are not in --audit {audit_path}, e.g. "
            f"{missing[0]!r}: they get gold_flags null and are left out of 'unflagged'"
        )
    return warnings


def metric_names(aggregated: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The metrics ``unflagged`` averages: those of ``informative.overall`` when the
    evaluation has it, else those of ``overall``, plus test-suite EX when the records carry
    it; only metrics with a number in every record (``[]`` for no record)."""
    informative = aggregated.get("informative")
    source = informative.get("overall") if isinstance(informative, dict) else None
    if not isinstance(source, dict):
        source = aggregated.get("overall")
    names = list(source) if isinstance(source, dict) else []
    if "ts_execution_accuracy" not in names:
        names.append("ts_execution_accuracy")

    def numeric(r: Mapping[str, Any], m: str) -> bool:
        value = (r.get("metrics") or {}).get(m)
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    return [m for m in names if records and all(numeric(r, m) for r in records)]


def unflagged_metrics(
    records: Sequence[Mapping[str, Any]], metrics: Sequence[str]
) -> dict[str, Any]:
    """The ``unflagged`` object of ``aggregated_metrics.json``: ``{"overall": {metric: mean
    over the scored tasks whose gold the audit did not flag, 4 decimals, NaN when none},
    "tasks": those tasks, "flagged": scored tasks with a flag, "not_audited": scored tasks
    the audit does not cover}``. ``records``: scored records with ``gold_flags`` (a list, or
    None when not audited) and ``metrics``."""
    kept = [r for r in records if r.get("gold_flags") == []]
    flagged = sum(1 for r in records if r.get("gold_flags"))
    return {
        "overall": {m: mean4([float(r["metrics"][m]) for r in kept]) for m in metrics},
        "tasks": len(kept),
        "flagged": flagged,
        "not_audited": len(records) - len(kept) - flagged,
    }


def gold_flag_counts(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """``{flag: scored tasks with that flag}`` for every flag of :data:`FLAGS`, in that order
    (a task counts once per flag)."""
    counts = {f: 0 for f in FLAGS}
    for r in records:
        for flag in {f.get("flag") for f in r.get("gold_flags") or []}:
            if flag in counts:
                counts[flag] += 1
    return counts


def format_unflagged(unflagged: Mapping[str, Any], counts: Mapping[str, int]) -> str:
    """The ``unflagged`` and ``gold_flags`` objects as table lines."""
    lines = [
        f"unflagged gold queries ({unflagged['tasks']} tasks; {unflagged['flagged']} with a gold "
        f"flag and {unflagged['not_audited']} not audited left out)"
    ]
    for name, value in unflagged["overall"].items():
        lines.append(f"  {name:<32} {value:>8.4f}")
    for flag, n in counts.items():
        if n:
            lines.append(f"  flagged: {flag:<23} {n:>8d}")
    return "\n".join(lines)


__all__ = [
    "FLAGS",
    "check_audit_qids",
    "format_unflagged",
    "gold_flag_counts",
    "metric_names",
    "read_audit",
    "unflagged_metrics",
]
