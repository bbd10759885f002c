"""Reading the output of kgbench's commands for ``kgbench report``: each directory's kind is
recognised from its files (:func:`detect_kind`) and read into the plain records below.

Kinds (and the files that identify them, checked in this order):

==================  =========================================================================
``evaluate``        ``result_with_metrics.json`` + ``aggregated_metrics.json``: the
                    ``family`` the aggregated file records names the benchmark family
                    (:mod:`kgbench.families`), which reads its output back (kind
                    ``evaluate`` for cypherbench, ``evaluate-sparql`` for spider4sparql,
                    ``evaluate-<family>`` for the others); in a file written before that
                    field existed, its shape tells: ``by_hardness`` → spider4sparql,
                    ``counts`` + ``oracle`` → ngdbench, ``kg`` and ``overall.hits`` →
                    gtsqa, ``overall.google_bleu`` → text2cypher, else cypherbench
``noise``           ``noise_log.json`` (:mod:`kgbench.noise`)
``generate pipe``   ``report.json`` with a ``funnel`` (:mod:`kgbench.generate.pipe.pipeline`);
                    ``records.jsonl`` beside it gives an example of each rejection
``generate          ``report.json`` with ``"generator": "cypherbench"``
cypherbench``       (:mod:`kgbench.generate.cypherbench`)
``generate synth``  ``report.json`` with ``attempts`` and ``rejections``
                    (:mod:`kgbench.generate.synth.cli`); ``filter_log.json`` gives examples
``generate          ``report.json`` with ``analytic`` and ``management``
ngdbench``          (:mod:`kgbench.generate.ngdbench.build`)
``score``           a JSON Lines file of ``{"qid", "ex", "status"}`` lines (``kgbench score
                    --out``; :mod:`kgbench.evaluate.score_cli`), or a directory holding such
                    files (each is one run)
``iso``             a JSON Lines file (plain or gzip) of GTSQA records with
                    ``graph_isomorphism`` (``kgbench iso --out``; :mod:`kgbench.iso.cli`), or a
                    directory holding such files
==================  =========================================================================

Every reader raises :class:`kgbench.errors.InputError` naming the file (and line) on a file
that cannot be read, is not JSON, or lacks what its kind needs; a directory that matches no
kind gets a one-line error naming it and listing what was expected.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.readback import (  # the run records, re-exported for the renderer
    CORRECT,
    DIMENSIONS,
    EX,
    EX_SET,
    PARTIAL,
    WRONG,
    Metric,
    Run,
    TaskRow,
    cell_text,
    count_error_classes,
    dict_of,
    finite_number,
    json_object,
    read_aggregated,
    read_json,
)
from kgbench.fileio import open_decompressed

__all__ = [
    "CORRECT",
    "DIMENSIONS",
    "PARTIAL",
    "WRONG",
    "AgentCall",
    "AgentConversation",
    "AgentRun",
    "Generation",
    "IsoTypes",
    "Metric",
    "Noise",
    "NoiseChange",
    "ReportInputs",
    "Run",
    "TaskRow",
    "detect_kind",
    "load_inputs",
    "read_agent",
    "read_json",
    "read_jsonl",
]

# --------------------------------------------------------------------------------------------
# records


@dataclass
class Generation:
    """A benchmark generation output: facts (seed, graph, ...), one or more funnels (stage →
    count, in order), rejections per reason, examples of rejections (reason → texts) and
    category balances (chart title → category → count)."""

    label: str
    path: Path
    generator: str
    facts: list[tuple[str, str]] = field(default_factory=list)
    funnels: list[tuple[str, list[tuple[str, int]]]] = field(default_factory=list)
    rejections: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)
    balance: list[tuple[str, dict[str, int]]] = field(default_factory=list)


@dataclass
class IsoTypes:
    """The isomorphism types of an ``iso`` output: counts per type (most frequent first),
    records without a valid type (``invalid``) and each record's type by its ``qid`` / ``id``
    (to break a run's metrics down by type)."""

    label: str
    path: Path
    counts: dict[str, int]
    invalid: int
    total: int
    by_qid: dict[str, str]


@dataclass
class NoiseChange:
    """One change of a noise log: noise type, element id, field, old and new value, method."""

    noise_type: str
    element: str
    field: str
    original: str
    new: str
    method: str


@dataclass
class Noise:
    """A ``kgbench noise`` output: per noise type its rate, target and changed counts, the
    changes per modification method, the graph sizes before and after, and a few changes of
    each type."""

    label: str
    path: Path
    seed: Any
    types: list[tuple[str, float | None, int, int]]
    methods: dict[str, dict[str, int]]
    sizes: dict[str, dict[str, Any]]
    examples: list[NoiseChange]


#: Characters of a tool result, a query and a reply text kept in a report's trajectory (the
#: rest is cut and marked), so a page of thousands of conversations stays light.
RESULT_CHARS, QUERY_CHARS, CONTENT_CHARS = 160, 400, 240

#: Turns of one conversation shown in the report (the rest are counted).
SHOWN_TURNS = 12


@dataclass
class AgentCall:
    """One tool call of a trajectory as the report shows it: the tool's name, its query
    (``run_query`` / ``final_answer``; else the raw arguments), the tool result and the
    error class (None when it ran), each cut (:data:`RESULT_CHARS`, :data:`QUERY_CHARS`)."""

    name: str
    query: str
    result: str
    error: str | None


@dataclass
class AgentConversation:
    """One task's conversation (its first sample): ``ending``, ``turns``, ``queries``, the
    ``answer``, and per turn shown (:data:`SHOWN_TURNS`) the reply's text (cut) and calls."""

    qid: str
    ending: str
    turns: int
    queries: int
    answer: str
    steps: list[tuple[str, list[AgentCall]]] = field(default_factory=list)


@dataclass
class AgentRun:
    """The agent side of an evaluated agent run: ``stats`` (``run.json`` ``agent`` as
    written, ``{}`` when that file is absent), ``by_turns`` / ``by_ending`` of
    ``aggregated_metrics.json`` (group -> ``{n, <metric>}``), the metric's name, and the
    conversations by qid."""

    path: Path
    stats: dict[str, Any]
    by_turns: dict[str, dict[str, Any]]
    by_ending: dict[str, dict[str, Any]]
    metric: str | None
    conversations: dict[str, AgentConversation] = field(default_factory=dict)


def _cut(text: Any, limit: int) -> str:
    value = "" if text is None else str(text)
    return value if len(value) <= limit else value[:limit] + f"… (+{len(value) - limit} chars)"


def read_agent(run_dir: Path, aggregated: Mapping[str, Any]) -> AgentRun | None:
    """The :class:`AgentRun` of the evaluation in ``run_dir`` whose ``aggregated`` names its
    ``trajectories`` (relative to ``run_dir``; formats.md §6), or None when it names none (a
    one-shot run). ``run.json`` beside the trajectories gives the statistics.

    Raises:
        InputError: the trajectory file is missing or malformed (names it)."""
    from kgbench.tasks import read_trajectories

    rel = aggregated.get("trajectories")
    if not isinstance(rel, str) or not isinstance(aggregated.get("by_turns"), dict):
        return None
    path = run_dir / rel
    if not path.is_file():
        raise InputError(
            f"{run_dir / 'aggregated_metrics.json'}: its trajectories file {path} is missing"
        )
    stats: dict[str, Any] = {}
    run_json = path.parent / "run.json"
    if run_json.is_file():
        data = read_json(run_json)
        if isinstance(data, dict) and isinstance(data.get("agent"), dict):
            stats = data["agent"]
    by_turns = dict_of(aggregated.get("by_turns"))
    metric = next((k for g in by_turns.values() for k in dict_of(g) if k != "n"), None)
    agent = AgentRun(
        path, stats, by_turns, dict_of(aggregated.get("by_ending")), metric if by_turns else None
    )
    for t in read_trajectories(path, steps=True):
        if t["qid"] in agent.conversations:
            continue  # the first sample, as by_turns
        convo = AgentConversation(
            t["qid"],
            str(t["ending"]),
            int(t["turns"]),
            int(t.get("queries") or 0),
            _cut(t.get("answer"), QUERY_CHARS),
        )
        for step in t["steps"][:SHOWN_TURNS]:
            step = dict_of(step)
            got = []
            for c in step.get("tool_calls") or []:
                c = dict_of(c)
                raw = str(c.get("arguments") or "")
                try:
                    args = json.loads(raw) if raw.strip() else {}
                except ValueError:
                    args = None
                query = args.get("query") if isinstance(args, dict) else None
                if not isinstance(query, str):
                    query = "" if args == {} else raw  # no arguments: nothing to show
                got.append(
                    AgentCall(
                        str(c.get("name")),
                        _cut(query, QUERY_CHARS),
                        _cut(c.get("result"), RESULT_CHARS),
                        None if c.get("error") is None else str(c.get("error")),
                    )
                )
            convo.steps.append((_cut(step.get("content"), CONTENT_CHARS), got))
        agent.conversations[t["qid"]] = convo
    return agent


@dataclass
class ReportInputs:
    """Everything read from the directories given to the report, in the order given."""

    runs: list[Run] = field(default_factory=list)
    generations: list[Generation] = field(default_factory=list)
    isos: list[IsoTypes] = field(default_factory=list)
    noises: list[Noise] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.runs) + len(self.generations) + len(self.isos) + len(self.noises)


# --------------------------------------------------------------------------------------------
# files


def read_jsonl(path: Path, limit: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for the non-blank lines of a JSON Lines file (plain, gzip or
    bzip2), at most ``limit`` of them.

    Raises:
        InputError: unreadable file, invalid JSON or a line that is not an object (names the
            file and line)."""
    n = 0
    try:
        with open_decompressed(path, text=True) as fh:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                if limit is not None and n >= limit:
                    return
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"{path}:{number}: invalid JSON: {exc.msg}") from exc
                if not isinstance(record, dict):
                    raise InputError(
                        f"{path}:{number}: expected a JSON object, got {type(record).__name__}"
                    )
                n += 1
                yield number, record
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, EOFError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc


def _first_record(path: Path) -> dict[str, Any] | None:
    """The first record of a JSON Lines file, or ``None`` when it is empty or not JSON Lines."""
    try:
        for _, record in read_jsonl(path, limit=1):
            return record
    except InputError:
        return None
    return None


def _is_score_record(record: Mapping[str, Any]) -> bool:
    return {"qid", "ex", "status"} <= record.keys()


def _is_iso_record(record: Mapping[str, Any]) -> bool:
    return "graph_isomorphism" in record and "answer_subgraph" in record


def _jsonl_files(directory: Path) -> list[Path]:
    return sorted(
        p
        for p in directory.iterdir()
        if p.is_file() and (p.name.endswith(".jsonl") or p.name.endswith(".jsonl.gz"))
    )


_EXPECTED = (
    "evaluate (result_with_metrics.json + aggregated_metrics.json), generate cypherbench / "
    "pipe / synth / ngdbench (report.json), noise (noise_log.json), score (JSONL of "
    "{qid, ex, status} lines) or iso (JSONL of GTSQA records with graph_isomorphism)"
)


def _evaluation(path: Path) -> tuple[Any, dict[str, Any]]:
    """The family (:mod:`kgbench.families`) that wrote the evaluation in directory ``path``
    and its ``aggregated_metrics.json``, read once: the family is the ``family`` the file
    records, else (a file written before the field existed) the one its keys tell
    (:func:`kgbench.families.family_of`)."""
    from kgbench.families import family_of

    agg = read_aggregated(path)
    return family_of(agg, str(path / "aggregated_metrics.json")), agg


def detect_kind(path: Path) -> str:
    """The kind of a command output (module docstring): ``evaluate``, ``evaluate-sparql``,
    ``evaluate-ngdbench``, ``evaluate-gtsqa``, ``evaluate-text2cypher``, ``noise``,
    ``generate-pipe``, ``generate-cypherbench``, ``generate-synth``, ``generate-ngdbench``,
    ``score`` or ``iso``.

    Raises:
        InputError: no such path, or nothing recognisable in it (one line naming it)."""
    return _detect(path)[0]


def _detect(path: Path) -> tuple[str, tuple[Any, dict[str, Any]] | None]:
    """:func:`detect_kind` and, for an evaluation directory, its :func:`_evaluation`."""
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if path.is_file():
        record = _first_record(path)
        if record is not None and _is_score_record(record):
            return "score", None
        if record is not None and _is_iso_record(record):
            return "iso", None
        raise InputError(
            f"{path}: not a kgbench output: a file must be the JSON Lines output of score or "
            "iso (for evaluate, generate and noise give their output directory)"
        )
    names = {p.name for p in path.iterdir()}
    if {"result_with_metrics.json", "aggregated_metrics.json"} <= names:
        evaluation = _evaluation(path)
        return evaluation[0].report_kind, evaluation
    if "noise_log.json" in names:
        return "noise", None
    if "report.json" in names:
        report = read_json(path / "report.json")
        if isinstance(report, dict):
            if "funnel" in report and "accepted_by_category" in report:
                return "generate-pipe", None
            if report.get("generator") == "cypherbench":
                return "generate-cypherbench", None
            if "attempts" in report and "rejections" in report:
                return "generate-synth", None
            if "analytic" in report and "management" in report:
                return "generate-ngdbench", None
    kinds = set()
    for p in _jsonl_files(path):
        record = _first_record(p)
        if record is not None and _is_score_record(record):
            kinds.add("score")
        elif record is not None and _is_iso_record(record):
            kinds.add("iso")
    if len(kinds) == 1:
        return kinds.pop(), None
    if kinds:
        raise InputError(
            f"{path}: holds both score and iso JSON Lines files; give the files themselves"
        )
    shown = ", ".join(sorted(names)[:8]) + (", ..." if len(names) > 8 else "") or "nothing"
    raise InputError(
        f"{path}: not a kgbench output directory: expected the files of {_EXPECTED}; found {shown}"
    )


# --------------------------------------------------------------------------------------------
# runs


_SCORE_VERDICTS = {
    "match": CORRECT,
    "identical_query": CORRECT,
    "mismatch": WRONG,
}


def read_score(path: Path, label: str) -> Run:
    """A ``kgbench score --out`` file (:mod:`kgbench.evaluate.score_cli`): EX (and EX_set when
    scored) per gold record; the status ``missing``, ``pred_error`` or ``gold_error`` is the
    error class.

    Raises:
        InputError: unreadable file, or a line without ``qid``, ``ex`` and ``status``."""
    rows: list[TaskRow] = []
    has_set = False
    for number, rec in read_jsonl(path):
        if not _is_score_record(rec):
            raise InputError(f"{path}:{number}: expected a {{qid, ex, status}} score line")
        status = str(rec["status"])
        row = TaskRow(qid=str(rec["qid"]))
        for key, metric in (("ex", EX), ("ex_set", EX_SET)):
            value = finite_number(rec.get(key))
            if value is not None:
                row.metrics[metric.key] = value
                has_set = has_set or key == "ex_set"
        if status not in _SCORE_VERDICTS:
            row.error_class = status
        row.verdict = _SCORE_VERDICTS.get(status, status)
        row.error = None if status in _SCORE_VERDICTS else f"status {status}"
        rows.append(row)
    metrics = [EX, EX_SET] if has_set else [EX]
    overall: dict[str, float | None] = {}
    for m in metrics:
        values = [r.metrics[m.key] for r in rows if m.key in r.metrics]
        overall[m.key] = round(sum(values) / len(values), 4) if values else None
    run = Run(label, path, "score", metrics, overall, rows)
    count_error_classes(run, ((r, [r.error_class] if r.error_class else []) for r in rows))
    return run


# --------------------------------------------------------------------------------------------
# isomorphism types, generation, noise


def read_iso(path: Path, label: str) -> IsoTypes:
    """A ``kgbench iso --out`` file (:mod:`kgbench.iso.cli`): the ``graph_isomorphism`` of each
    record (``null`` = not a valid answer tree), counted per type.

    Raises:
        InputError: unreadable file or a record without ``graph_isomorphism``."""
    counts: Counter[str] = Counter()
    by_qid: dict[str, str] = {}
    invalid = total = 0
    for number, rec in read_jsonl(path):
        if "graph_isomorphism" not in rec:
            raise InputError(f"{path}:{number}: no 'graph_isomorphism' (not an iso output?)")
        total += 1
        kind = rec["graph_isomorphism"]
        if not isinstance(kind, str) or not kind:
            invalid += 1
            continue
        counts[kind] += 1
        key = rec.get("qid", rec.get("id"))
        if key is not None:
            by_qid[str(key)] = kind
    ordered = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return IsoTypes(label, path, ordered, invalid, total, by_qid)


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _int_map(value: Any) -> dict[str, int]:
    if not isinstance(value, dict):
        return {}
    return {str(k): _int(v) for k, v in value.items()}


def read_generate_cypherbench(path: Path, label: str) -> Generation:
    """A ``kgbench generate cypherbench`` output (:mod:`kgbench.generate.cypherbench`): the
    funnel RETURN candidates → tasks (candidates summed over the MATCH patterns of
    ``report.json``; the MATCH clauses, fewer than the candidates, are a fact), the rejections
    per reason (realism filters, validation, duplicates, the per-category cap) and the tasks
    per MATCH category and RETURN template."""
    report = json_object(path / "report.json", read_json(path / "report.json"))
    totals: Counter[str] = Counter()
    for counters in (report.get("match_patterns") or {}).values():
        if isinstance(counters, dict):
            totals.update(_int_map(counters))
    gen = Generation(label, path, "generate cypherbench")
    gen.facts = [
        (k, str(report.get(k)))
        for k in ("graph", "seed", "split", "mode", "tasks", "queries")
        if k in report
    ]
    gen.facts.append(("MATCH clauses", str(totals.get("match_clauses", 0))))
    gen.funnels.append(
        (
            "candidates to tasks",
            [
                ("RETURN candidates", totals.get("return_candidates", 0)),
                ("tasks", _int(report.get("tasks"))),
            ],
        )
    )
    gen.rejections = _int_map(report.get("rejections"))
    if "capped" in report:
        gen.rejections["capped"] = _int(report["capped"])
    gen.balance = [
        ("tasks per MATCH category", _int_map(report.get("tasks_by_match_category"))),
        ("tasks per RETURN template", _int_map(report.get("tasks_by_return_template"))),
    ]
    return gen


def read_generate_pipe(path: Path, label: str) -> Generation:
    """A ``kgbench generate pipe`` output (:mod:`kgbench.generate.pipe.pipeline`): the gate
    funnel candidates → accepted → selected → exported, the rejections per gate with the first
    rejected candidate of each in ``records.jsonl`` (when present), and the accepted and
    selected questions per category."""
    report = json_object(path / "report.json", read_json(path / "report.json"))
    funnel = _int_map(report.get("funnel"))
    selected = _int_map(report.get("selected_by_category"))
    gen = Generation(label, path, "generate pipe")
    gen.facts = [(k, str(report.get(k))) for k in ("graph", "seed", "llm") if k in report]
    stages = [
        ("candidates", funnel.get("candidates", 0)),
        ("accepted", funnel.get("accepted", 0)),
        ("selected", sum(selected.values())),
    ]
    export = report.get("export")
    if isinstance(export, dict) and "rows" in export:
        stages.append(("exported", _int(export["rows"])))
    gen.funnels.append(("gate funnel", stages))
    gen.rejections = {k: v for k, v in funnel.items() if k not in ("candidates", "accepted")}
    ledger = path / "records.jsonl"
    if ledger.is_file():
        for _, rec in read_jsonl(ledger):
            where = rec.get("rejected_at")
            if rec.get("accepted") or not where or str(where) in gen.examples:
                continue
            gen.examples[str(where)] = [
                cell_text(rec.get("question"), 500),
                cell_text(rec.get("cypher"), 1000),
                cell_text(rec.get("rejection_reason"), 500),
            ]
    gen.balance = [
        ("accepted per category", _int_map(report.get("accepted_by_category"))),
        ("selected per category", selected),
    ]
    return gen


def read_generate_synth(path: Path, label: str) -> Generation:
    """A ``kgbench generate synth`` output (:mod:`kgbench.generate.synth.cli`): attempts →
    valid → items, the rejections per reason (and duplicates), the first rejected attempts of
    each reason from ``filter_log.json``, and the items per isomorphism type."""
    report = json_object(path / "report.json", read_json(path / "report.json"))
    rejections = _int_map(report.get("rejections"))
    attempts = _int(report.get("attempts"))
    gen = Generation(label, path, "generate synth")
    settings = dict_of(report.get("settings"))
    graph = dict_of(report.get("graph"))
    gen.facts = [
        ("seed", str(settings.get("seed"))),
        ("back end", str(graph.get("backend"))),
        ("items", str(report.get("items"))),
        ("acceptance", str(report.get("acceptance"))),
    ]
    gen.funnels.append(
        (
            "attempts to items",
            [
                ("attempts", attempts),
                ("valid", attempts - sum(rejections.values())),
                ("items", _int(report.get("items"))),
            ],
        )
    )
    gen.rejections = dict(rejections)
    if "duplicates" in report:
        gen.rejections["duplicates"] = _int(report["duplicates"])
    log = path / "filter_log.json"
    if log.is_file():
        entries = read_json(log)
        if isinstance(entries, dict):
            for reason, ids in entries.items():
                if isinstance(ids, list) and ids:
                    gen.examples[str(reason)] = [", ".join(cell_text(x, 200) for x in ids[:5])]
    gen.balance = [("items per isomorphism type", _int_map(report.get("types")))]
    return gen


def read_generate_ngdbench(path: Path, label: str) -> Generation:
    """A ``kgbench generate ngdbench`` output (:mod:`kgbench.generate.ngdbench.build`): the
    analytic funnel (candidates → kept, over the NoAgg, Agg and Boolean families) and the
    management funnel (candidates → tried → kept), rejections of both per reason, and the
    tasks per family, analytic tasks kept per family and management batches per operation."""
    report = json_object(path / "report.json", read_json(path / "report.json"))
    analytic = dict_of(report.get("analytic"))
    mgmt = dict_of(report.get("management"))
    gen = Generation(label, path, "generate ngdbench")
    gen.facts = [(k, str(report.get(k))) for k in ("seed", "templates", "llm") if k in report]
    a_cand = _int_map(analytic.get("candidates"))
    a_kept = _int_map(analytic.get("kept"))
    gen.funnels.append(
        (
            "analytic tasks",
            [("candidates", sum(a_cand.values())), ("kept", sum(a_kept.values()))],
        )
    )
    if mgmt:
        gen.funnels.append(
            (
                "management batches",
                [
                    ("candidates", _int(mgmt.get("candidates"))),
                    ("tried", _int(mgmt.get("tried"))),
                    ("kept", _int(mgmt.get("kept"))),
                ],
            )
        )
    for key, value in _int_map(analytic.get("rejected")).items():
        gen.rejections[f"analytic: {key}"] = value
    for key, value in _int_map(mgmt.get("rejected")).items():
        gen.rejections[f"management: {key}"] = value
    by_op = dict_of(mgmt.get("by_operation"))
    gen.balance = [
        ("tasks per family", _int_map(report.get("tasks"))),
        ("analytic tasks kept per family", a_kept),
        (
            "management batches kept per operation",
            {str(op): _int(v.get("kept")) for op, v in by_op.items() if isinstance(v, dict)},
        ),
    ]
    return gen


def _changed_count(summary: Mapping[str, Any]) -> int:
    for key in ("deleted_count", "added_count", "modified_count"):
        if key in summary:
            return _int(summary[key])
    return 0


def read_noise(path: Path, label: str) -> Noise:
    """A ``kgbench noise`` output (:mod:`kgbench.noise`): per noise type of ``noise_log.json``
    its rate, target and changed counts, the changes per modification method (``divide:100``
    counts as ``divide``), the graph sizes, and the first two changes of each type.

    Raises:
        InputError: ``noise_log.json`` unreadable or without ``summary.perturbation_logs``."""
    log_path = path / "noise_log.json"
    log = json_object(log_path, read_json(log_path))
    summary = log.get("summary")
    logs = summary.get("perturbation_logs") if isinstance(summary, dict) else None
    if not isinstance(logs, list):
        raise InputError(f"{log_path}: no summary.perturbation_logs (not a noise log?)")
    types: list[tuple[str, float | None, int, int]] = []
    methods: dict[str, dict[str, int]] = {}
    examples: list[NoiseChange] = []
    for entry in logs:
        if not isinstance(entry, dict):
            continue
        name = str(entry.get("perturbation_type"))
        counts = dict_of(entry.get("summary"))
        types.append(
            (
                name,
                finite_number(entry.get("rate")),
                _int(counts.get("target_count")),
                _changed_count(counts),
            )
        )
        per: Counter[str] = Counter()
        for n, rec in enumerate(entry.get("records") or []):
            if not isinstance(rec, dict):
                continue
            element = str(rec.get("node_id") or f"{rec.get('source')} -> {rec.get('target')}")
            change = rec.get("change") if isinstance(rec.get("change"), dict) else None
            if change is None:  # an edge added or deleted: its type before and after
                before = rec.get("original_attrs") or {}
                after = rec.get("new_attrs") or {}
                changes = [
                    {
                        "field": "edge",
                        "original_value": before.get("label", "")
                        if isinstance(before, dict)
                        else "",
                        "new_value": after.get("label", "") if isinstance(after, dict) else "",
                        "modification_method": rec.get("operation"),
                    }
                ]
            elif isinstance(change.get("changes"), list):  # attribute noise: one per field
                changes = [c for c in change["changes"] if isinstance(c, dict)]
            else:
                changes = [{"field": rec.get("field_changed"), **change}]
            for ch in changes:
                method = str(ch.get("modification_method") or rec.get("operation") or "?")
                per[method.split(":", 1)[0]] += 1
                if n < 2:
                    examples.append(
                        NoiseChange(
                            name,
                            element,
                            str(ch.get("field") or "?"),
                            cell_text(ch.get("original_value"), 200),
                            cell_text(ch.get("new_value"), 200),
                            method,
                        )
                    )
        methods[name] = dict(sorted(per.items()))
    sizes = {
        k: summary[k]
        for k in ("original_graph", "perturbed_graph")
        if isinstance(summary, dict) and isinstance(summary.get(k), dict)
    }
    return Noise(label, path, log.get("seed"), types, methods, sizes, examples)


# --------------------------------------------------------------------------------------------
# all inputs


def _labels(paths: Sequence[Path]) -> list[str]:
    """Short unique labels: the last path component, with more of the path where two clash."""
    resolved = [p.resolve() for p in paths]
    depth = [1] * len(paths)
    while True:
        labels = [
            "/".join(p.parts[-d:]) if len(p.parts) >= d else str(p)
            for p, d in zip(resolved, depth, strict=True)
        ]
        seen = Counter(labels)
        clashing = [i for i, lab in enumerate(labels) if seen[lab] > 1]
        if not clashing or all(depth[i] >= len(resolved[i].parts) for i in clashing):
            break
        for i in clashing:
            depth[i] += 1
    out: list[str] = []
    used: Counter[str] = Counter()
    for lab in labels:
        used[lab] += 1
        out.append(lab if used[lab] == 1 else f"{lab} ({used[lab]})")
    return [lab.removesuffix(".jsonl").removesuffix(".jsonl.gz") for lab in out]


def _expand(path: Path, kind: str) -> list[Path]:
    """The files of a ``score`` / ``iso`` directory (each is one input), or the path itself."""
    if kind not in ("score", "iso") or path.is_file():
        return [path]
    wanted = _is_score_record if kind == "score" else _is_iso_record
    return [p for p in _jsonl_files(path) if (r := _first_record(p)) is not None and wanted(r)]


def load_inputs(paths: Iterable[str | os.PathLike[str]]) -> ReportInputs:
    """Read every output directory (or score / iso file) in ``paths``, in order; labels are
    the directories' names, lengthened with their parents where two would be equal.

    Raises:
        InputError: no path given, a path that does not exist or is of no known kind (one
            line naming it), or a file of the wrong shape (names the file)."""
    items: list[tuple[Path, str, tuple[Any, dict[str, Any]] | None]] = []
    for raw in paths:
        path = Path(raw)
        kind, evaluation = _detect(path)
        items.extend((p, kind, evaluation) for p in _expand(path, kind))
    if not items:
        raise InputError("no output directory given")
    labels = _labels([p for p, _, _ in items])
    out = ReportInputs()
    readers: dict[str, tuple[str, Callable[[Path, str], Any]]] = {
        "score": ("runs", read_score),
        "iso": ("isos", read_iso),
        "noise": ("noises", read_noise),
        "generate-cypherbench": ("generations", read_generate_cypherbench),
        "generate-pipe": ("generations", read_generate_pipe),
        "generate-synth": ("generations", read_generate_synth),
        "generate-ngdbench": ("generations", read_generate_ngdbench),
    }
    for (path, kind, evaluation), label in zip(items, labels, strict=True):
        if evaluation is not None:  # the family reads its own output back
            family, aggregated = evaluation
            agent = read_agent(path, aggregated)
            for run in family.read_output(path, label, aggregated):
                run.family = family.name
                run.agent = agent
                out.runs.append(run)
            continue
        field_name, reader = readers[kind]
        got = reader(path, label)
        # an NGDBench evaluation gives several runs (its predictions and the oracle row)
        getattr(out, field_name).extend(got if isinstance(got, list) else [got])
    _join_isomorphism_types(out)
    return out


def _join_isomorphism_types(inputs: ReportInputs) -> None:
    """Give the rows of every run the isomorphism type of the iso record with the same qid
    (GTSQA's ``id``), when the row has none of its own."""
    types: dict[str, str] = {}
    for iso in inputs.isos:
        for qid, kind in iso.by_qid.items():
            types.setdefault(qid, kind)
    if not types:
        return
    for run in inputs.runs:
        for row in run.rows:
            if "isomorphism type" not in row.groups and row.qid in types:
                row.groups["isomorphism type"] = types[row.qid]


# --------------------------------------------------------------------------------------------
# families


def run_family(run: Run) -> str:
    """The benchmark family of ``run``: the family that read it back (:func:`load_inputs`
    sets :attr:`Run.family` from its ``aggregated_metrics.json``,
    :func:`kgbench.families.family_of`), or ``score`` for the result files of ``kgbench
    score`` (their kind; comparable only with each other). The report pairs only runs of one
    family (:func:`kgbench.report.render.comparable_groups`)."""
    return run.family or run.kind
