"""Reading the output of kgbench's commands for ``kgbench report``: each directory's kind is
recognised from its files (:func:`detect_kind`) and read into the plain records below.

Kinds (and the files that identify them, checked in this order):

==================  =========================================================================
``evaluate``        ``result_with_metrics.json`` + ``aggregated_metrics.json``
                    (:mod:`kgbench.evaluate.runner`); the shape of the aggregated file tells
                    the family: ``by_hardness`` → ``--language sparql``
                    (:mod:`kgbench.evaluate.sparql_runner`), ``counts`` + ``oracle`` →
                    ``--family ngdbench`` (:mod:`kgbench.evaluate.ngdbench`), ``kg`` and
                    ``overall.hits`` → ``--family gtsqa`` (:mod:`kgbench.evaluate.gtsqa`),
                    ``overall.google_bleu`` → ``--family text2cypher``
                    (:mod:`kgbench.evaluate.translation`), else CypherBench
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
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.fileio import open_decompressed

# --------------------------------------------------------------------------------------------
# records


@dataclass(frozen=True)
class Metric:
    """One per-task metric: its key in :attr:`TaskRow.metrics`, its label, and how a group of
    tasks is summarised (``mean``, or ``median`` for MdRE-like errors). ``higher_is_better``
    is false for error measures; ``bounded`` means the values lie in [0, 1]."""

    key: str
    label: str
    higher_is_better: bool = True
    bounded: bool = True
    agg: str = "mean"


#: The metrics of CypherBench's evaluation (SPEC.md §3–§4), ``kgbench score`` and
#: ``evaluate --language sparql``, under one key each so that runs line up.
EX = Metric("execution_accuracy", "EX")
PSJS = Metric("psjs", "PSJS")
EXEC = Metric("executable", "Exec")
EX_SET = Metric("ex_set", "EX_set")
#: Test-suite EX (issue 31; :mod:`kgbench.evaluate.suites.core`), when the run has it.
TS_EX = Metric("ts_execution_accuracy", "TS-EX")
#: NGDBench's metrics (spec ngdbench.md §5), per task family.
NGD_METRICS = (
    Metric("noagg_jaccard", "NoAgg Jaccard"),
    Metric("noagg_f1", "NoAgg F1"),
    Metric("agg_relative_error", "Agg MdRE", higher_is_better=False, bounded=False, agg="median"),
    Metric("agg_smape", "Agg sMAPE", higher_is_better=False, bounded=False),
    Metric("boolean_accuracy", "Boolean accuracy"),
    Metric("management_l_step", "Management L_step"),
)

#: GTSQA's metrics (seed synthkgqa-gtsqa.txt §5.1, Table 2; :mod:`kgbench.evaluate.gtsqa`).
GTSQA_METRICS = (
    Metric("hits", "Hits"),
    Metric("recall", "Recall"),
    # a rate in [0, 1], but lower is better: charted with the errors
    Metric("empty_answer", "Empty answer", higher_is_better=False, bounded=False),
    Metric("triple_recall", "Triple recall"),
    Metric("triple_precision", "Triple precision"),
    Metric("triple_f1", "Triple F1"),
    Metric("answer_node_hits", "Answer-node hits"),
    Metric("answer_node_recall", "Answer-node recall"),
    Metric("n_triples", "# triples", bounded=False),
)
#: Text2Cypher's translation metrics (:mod:`kgbench.evaluate.translation`); EX and Exec join
#: them when the run executed the queries.
GLEU = Metric("google_bleu", "Google-BLEU")
EXACT_MATCH = Metric("exact_match", "Exact match")

#: Grouping dimensions of the per-task rows, in chart order.
DIMENSIONS = (
    "MATCH category",
    "RETURN template",
    "graph",
    "hardness",
    "isomorphism type",
    "NGDBench family",
    "same as clean graph",
    "operation",
    "gold result",
)

#: Verdicts of a task (besides an error class): the prediction is right, wrong, or partly
#: right (a score strictly between 0 and 1).
CORRECT, WRONG, PARTIAL = "correct", "wrong", "partial"


@dataclass
class TaskRow:
    """One scored task of a run: texts for the table, ``metrics`` (only those the task has),
    the groups it belongs to (dimension → value, see :data:`DIMENSIONS`), its verdict
    (``correct``, ``wrong``, ``partial`` or an error class), the (first) error class and
    message when the prediction failed, and the message of each error class it has."""

    qid: str
    question: str = ""
    gold: str = ""
    prediction: str = ""
    verdict: str = WRONG
    metrics: dict[str, float] = field(default_factory=dict)
    groups: dict[str, str] = field(default_factory=dict)
    error_class: str | None = None
    error: str | None = None
    errors: dict[str, str] = field(default_factory=dict)


@dataclass
class Run:
    """The scored predictions of one model: an ``evaluate`` or ``score`` output.

    ``overall`` holds the run's official numbers as its files give them (``None`` when
    undefined); ``error_classes`` counts the tasks per error class (a task counts once per
    class) and ``error_examples`` keeps the first task of each class."""

    label: str
    path: Path
    kind: str
    metrics: list[Metric]
    overall: dict[str, float | None]
    rows: list[TaskRow]
    notes: list[str] = field(default_factory=list)
    error_classes: dict[str, int] = field(default_factory=dict)
    error_examples: dict[str, TaskRow] = field(default_factory=dict)


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


def read_json(path: Path) -> Any:
    """The JSON value of ``path`` (NaN accepted, as Python's ``json`` writes it).

    Raises:
        InputError: the file cannot be read or is not JSON (names the file and line)."""
    try:
        with path.open(encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text: {exc.reason}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc


def read_jsonl(path: Path, limit: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for the non-blank lines of a JSON Lines file (plain or gzip),
    at most ``limit`` of them.

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


def detect_kind(path: Path) -> str:
    """The kind of a command output (module docstring): ``evaluate``, ``evaluate-sparql``,
    ``evaluate-ngdbench``, ``evaluate-gtsqa``, ``evaluate-text2cypher``, ``noise``,
    ``generate-pipe``, ``generate-cypherbench``, ``generate-synth``, ``generate-ngdbench``,
    ``score`` or ``iso``.

    Raises:
        InputError: no such path, or nothing recognisable in it (one line naming it)."""
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if path.is_file():
        record = _first_record(path)
        if record is not None and _is_score_record(record):
            return "score"
        if record is not None and _is_iso_record(record):
            return "iso"
        raise InputError(
            f"{path}: not a kgbench output: a file must be the JSON Lines output of score or "
            "iso (for evaluate, generate and noise give their output directory)"
        )
    names = {p.name for p in path.iterdir()}
    if {"result_with_metrics.json", "aggregated_metrics.json"} <= names:
        agg = read_json(path / "aggregated_metrics.json")
        if not isinstance(agg, dict):
            raise InputError(f"{path / 'aggregated_metrics.json'}: expected a JSON object")
        if "by_hardness" in agg:
            return "evaluate-sparql"
        if "counts" in agg and "oracle" in agg:
            return "evaluate-ngdbench"
        overall = agg.get("overall")
        if isinstance(overall, dict) and "kg" in agg and "hits" in overall:
            return "evaluate-gtsqa"
        if isinstance(overall, dict) and "google_bleu" in overall:
            return "evaluate-text2cypher"
        return "evaluate"
    if "noise_log.json" in names:
        return "noise"
    if "report.json" in names:
        report = read_json(path / "report.json")
        if isinstance(report, dict):
            if "funnel" in report and "accepted_by_category" in report:
                return "generate-pipe"
            if report.get("generator") == "cypherbench":
                return "generate-cypherbench"
            if "attempts" in report and "rejections" in report:
                return "generate-synth"
            if "analytic" in report and "management" in report:
                return "generate-ngdbench"
    kinds = set()
    for p in _jsonl_files(path):
        record = _first_record(p)
        if record is not None and _is_score_record(record):
            kinds.add("score")
        elif record is not None and _is_iso_record(record):
            kinds.add("iso")
    if len(kinds) == 1:
        return kinds.pop()
    if kinds:
        raise InputError(
            f"{path}: holds both score and iso JSON Lines files; give the files themselves"
        )
    shown = ", ".join(sorted(names)[:8]) + (", ..." if len(names) > 8 else "") or "nothing"
    raise InputError(
        f"{path}: not a kgbench output directory: expected the files of {_EXPECTED}; found {shown}"
    )


# --------------------------------------------------------------------------------------------
# helpers


def _num(value: Any) -> float | None:
    """A finite float, or ``None`` (NaN, missing, not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    x = float(value)
    return x if math.isfinite(x) else None


def _text(value: Any, limit: int = 4000) -> str:
    """A value as table text: strings as they are, other values as compact JSON, cut at
    ``limit`` characters."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _row_verdict(
    row: TaskRow, *, correct: bool, partial: bool, partial_before_error: bool = False
) -> str:
    """A task's verdict: ``correct`` when ``correct``; else the row's error class when it has
    one, else ``partial`` when ``partial``, else ``wrong``. ``partial_before_error`` puts
    ``partial`` before the error class (GTSQA: some gold answer among the predicted ones
    counts even when the prediction also reports an error)."""
    if correct:
        return CORRECT
    if partial and (partial_before_error or not row.error_class):
        return PARTIAL
    return row.error_class or WRONG


def _verdict(row: TaskRow, score: float | None) -> str:
    """A task's verdict by its score on the run's primary metric (:func:`_row_verdict`):
    ``correct`` at 1 or more, ``partial`` above 0."""
    return _row_verdict(
        row,
        correct=score is not None and score >= 1.0,
        partial=score is not None and score > 0.0,
    )


def _count_errors(run: Run, classes_of: Iterable[tuple[TaskRow, Iterable[str]]]) -> None:
    counts: Counter[str] = Counter()
    for row, classes in classes_of:
        for cls in sorted(set(classes)):
            counts[cls] += 1
            run.error_examples.setdefault(cls, row)
    run.error_classes = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _list_of_objects(path: Path, data: Any) -> list[dict[str, Any]]:
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON array of task records")
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise InputError(f"{path}: record {i}: expected a JSON object")
        if "metrics" not in rec:
            raise InputError(f"{path}: record {i}: no 'metrics' (not an evaluate output?)")
    return data


def _object(path: Path, data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object")
    return data


# --------------------------------------------------------------------------------------------
# runs


def read_evaluate(path: Path, label: str) -> Run:
    """A CypherBench-family ``kgbench evaluate`` output (:mod:`kgbench.evaluate.runner`).

    Groups: ``graph``, ``MATCH category`` (``from_template.match_category``), ``RETURN
    template`` (``from_template.return_pattern_id`` mapped by CypherBench's
    :data:`kgbench.evaluate.aggregate.RETURN_PATTERN_MAPPING`; templates it does not map are
    left out, as in ``aggregated_metrics.json``) and ``isomorphism type`` when a record has
    ``graph_isomorphism``. The verdict follows EX (or the first metric): 1 is ``correct``, a
    recorded error gives its class, else ``wrong``.

    Raises:
        InputError: a file that is not JSON or not of this shape (names it)."""
    from kgbench.evaluate.aggregate import RETURN_PATTERN_MAPPING

    results = path / "result_with_metrics.json"
    records = _list_of_objects(results, read_json(results))
    agg = _object(path / "aggregated_metrics.json", read_json(path / "aggregated_metrics.json"))
    known = {m.key: m for m in (EX, PSJS, EXEC, EX_SET)}
    present = [k for k in known if any(k in (r.get("metrics") or {}) for r in records)]
    present += [k for k in _dict(agg.get("overall")) if k in known and k not in present]
    metrics = [known[k] for k in known if k in present]
    primary = metrics[0].key if metrics else EX.key
    rows: list[TaskRow] = []
    classes: list[tuple[TaskRow, list[str]]] = []
    for i, rec in enumerate(records):
        scores = rec.get("metrics") or {}
        if not isinstance(scores, dict):
            raise InputError(f"{results}: record {i}: 'metrics' must be an object")
        errors = rec.get("errors") or {}
        if not isinstance(errors, dict):
            raise InputError(f"{results}: record {i}: 'errors' must be an object")
        row = TaskRow(
            qid=str(rec.get("qid", i)),
            question=_text(rec.get("nl_question") or rec.get("question")),
            gold=_text(rec.get("gold_cypher")),
            prediction=_text(rec.get("pred_cypher")),
        )
        for m in metrics:
            value = _num(scores.get(m.key))
            if value is not None:
                row.metrics[m.key] = value
        if isinstance(rec.get("graph"), str):
            row.groups["graph"] = rec["graph"]
        tpl = rec.get("from_template")
        if isinstance(tpl, dict):
            if isinstance(tpl.get("match_category"), str):
                row.groups["MATCH category"] = tpl["match_category"]
            mapped = RETURN_PATTERN_MAPPING.get(str(tpl.get("return_pattern_id")))
            if mapped is not None:
                row.groups["RETURN template"] = mapped
        if isinstance(rec.get("graph_isomorphism"), str):
            row.groups["isomorphism type"] = rec["graph_isomorphism"]
        _gold_result_group(row, rec)
        found = [
            (name, err) for name, err in sorted(errors.items(), key=lambda kv: kv[0] != primary)
        ]
        task_classes = []
        for _name, err in found:
            if isinstance(err, dict) and err.get("error_class"):
                cls, message = str(err["error_class"]), _text(err.get("error"), 1000)
                task_classes.append(cls)
                row.errors.setdefault(cls, message)
                if row.error_class is None:
                    row.error_class, row.error = cls, message
        row.verdict = _verdict(row, row.metrics.get(primary))
        rows.append(row)
        classes.append((row, task_classes))
    overall = {m.key: _num(_dict(agg.get("overall")).get(m.key)) for m in metrics}
    run = Run(label, path, "evaluate (CypherBench)", metrics, overall, rows)
    _pass_at_k(run, rows, records, agg.get("overall"))
    _count_errors(run, classes)
    _informative_note(run, agg)
    _test_suite(run, records, agg)
    return run


def _test_suite(run: Run, records: Sequence[Any], agg: Mapping[str, Any]) -> None:
    """Add test-suite EX (``metrics.ts_execution_accuracy`` of the records, ``test_suite`` of
    ``aggregated_metrics.json``) to ``run``, when the run has it: the TS-EX metric beside EX,
    and notes with the suite figures and the tasks with EX 1 and TS-EX 0, each with the
    neighbour graph (delta) that separated it (metrics.md, test-suite EX)."""
    summary = _dict(agg.get("test_suite"))
    if not summary:
        return
    if TS_EX not in run.metrics:
        run.metrics = list(run.metrics)
        run.metrics.insert(run.metrics.index(EX) + 1 if EX in run.metrics else 0, TS_EX)
    run.overall[TS_EX.key] = _num(summary.get("ts_execution_accuracy"))
    by_qid = {row.qid: row for row in run.rows}
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            continue
        value = _num(_dict(rec.get("metrics")).get(TS_EX.key))
        row = by_qid.get(str(rec.get("qid", i)))
        if value is not None and row is not None:
            row.metrics[TS_EX.key] = value
    suites = _dict(summary.get("suites"))
    run.notes.append(
        f"test-suite EX {summary.get('ts_execution_accuracy')} beside EX "
        f"{summary.get('execution_accuracy')}: suites of up to {summary.get('max_size')} "
        f"neighbour graphs (mean {summary.get('mean_suite_size')}), "
        f"{summary.get('distinguished')} of {summary.get('neighbours')} neighbour queries "
        f"distinguished; suites {suites.get('distilled', '?')} distilled "
        f"({suites.get('rebuilt', '?')} rebuilt for a changed graph), "
        f"{suites.get('reused', '?')} reused"
    )
    # SPARQL runs list the tasks at the top level (``ex_not_ts``), Cypher runs in the
    # test-suite object (``test_suite.ex_not_ts_tasks``; its ``ex_not_ts`` is the count)
    listed = agg.get("ex_not_ts")
    if not isinstance(listed, list):
        listed = summary.get("ex_not_ts_tasks") or []
    if isinstance(listed, list) and listed:
        items = []
        for item in listed:
            sep = _dict(item.get("separated_by")) if isinstance(item, dict) else {}
            items.append(
                f"{item.get('graph')}/{item.get('qid')} (by {sep.get('id')}, "
                f"{sep.get('kind')}: {sep.get('description')})"
            )
        run.notes.append(
            f"{len(listed)} task(s) with EX 1 but TS-EX 0 (right on the graph by coincidence, "
            "told apart by a neighbour graph): " + "; ".join(items)
        )


def _gold_result_group(row: TaskRow, rec: Mapping[str, Any]) -> None:
    """Put ``row`` in the ``gold result`` group: ``informative`` or ``uninformative: <reason>``
    (the record's ``uninformative``; metrics.md §1). Records of older files, without the
    field, get no group."""
    if "uninformative" not in rec:
        return
    reason = rec["uninformative"]
    row.groups["gold result"] = f"uninformative: {reason}" if reason else "informative"


def _informative_note(run: Run, agg: Mapping[str, Any]) -> None:
    """A note with the metrics over the informative tasks beside those over all (the
    ``informative`` object of ``aggregated_metrics.json``), when the file has it."""
    info = _dict(agg.get("informative"))
    if not info:
        return
    means = ", ".join(
        f"{k} {v:.4f}" for k, v in _dict(info.get("overall")).items() if isinstance(v, float)
    )
    reasons = ", ".join(f"{k} {n}" for k, n in _dict(info.get("by_reason")).items())
    run.notes.append(
        f"on the {info.get('tasks')} tasks whose gold result is informative: {means}; "
        f"{info.get('uninformative')} uninformative gold result(s) ({reasons or 'none'}) "
        "stay in the overall figures"
    )


def read_evaluate_sparql(path: Path, label: str) -> Run:
    """A ``kgbench evaluate --language sparql`` output (:mod:`kgbench.evaluate.sparql_runner`):
    EX and Exec per task, groups ``graph`` and ``hardness`` (Spider's levels); the tasks
    whose gold failed (``excluded``) are noted. Errors as :func:`read_evaluate`."""
    results = path / "result_with_metrics.json"
    records = _list_of_objects(results, read_json(results))
    agg = _object(path / "aggregated_metrics.json", read_json(path / "aggregated_metrics.json"))
    metrics = [EX, EXEC]
    rows: list[TaskRow] = []
    classes: list[tuple[TaskRow, list[str]]] = []
    for i, rec in enumerate(records):
        scores = rec.get("metrics") or {}
        row = TaskRow(
            qid=str(rec.get("qid", i)),
            question=_text(rec.get("nl_question") or rec.get("question")),
            gold=_text(rec.get("gold_sparql") or rec.get("query")),
            prediction=_text(rec.get("pred_sparql")),
        )
        for m in metrics:
            value = _num(scores.get(m.key)) if isinstance(scores, dict) else None
            if value is not None:
                row.metrics[m.key] = value
        for key, dim in (("graph", "graph"), ("hardness", "hardness")):
            if isinstance(rec.get(key), str):
                row.groups[dim] = rec[key]
        if isinstance(rec.get("graph_isomorphism"), str):
            row.groups["isomorphism type"] = rec["graph_isomorphism"]
        _gold_result_group(row, rec)
        if rec.get("error"):
            row.error_class = str(rec["error"])
        row.verdict = _verdict(row, row.metrics.get(EX.key))
        rows.append(row)
        classes.append((row, [row.error_class] if row.error_class else []))
    overall = {m.key: _num(_dict(agg.get("overall")).get(m.key)) for m in metrics}
    run = Run(label, path, "evaluate --language sparql", metrics, overall, rows)
    _pass_at_k(run, rows, records, agg.get("overall"))
    _informative_note(run, agg)
    excluded = agg.get("excluded") or []
    if excluded:
        run.notes.append(
            f"{len(excluded)} task(s) excluded because their gold query failed "
            f"(e.g. qid {excluded[0].get('qid')!r}: {excluded[0].get('error')})"
        )
    if agg.get("compat"):
        run.notes.append(f"EX rules: {agg['compat']}")
    _count_errors(run, classes)
    _test_suite(run, records, agg)
    return run


def _ngd_row(rec: Mapping[str, Any], i: int, key: str) -> TaskRow:
    """A task row of an NGDBench evaluation from the metrics under ``key`` (``metrics`` or
    ``oracle_metrics``)."""
    family = str(rec.get("family") or "")
    row = TaskRow(qid=str(rec.get("qid") or rec.get("id") or i))
    row.question = _text(rec.get("nlp") or rec.get("title") or rec.get("question"))
    if family == "management":
        steps = rec.get("steps") or []
        row.gold = _text(
            "\n".join(
                f"{s.get('operate_query')}  =>  {s.get('valid_query')}  =  {_text(s.get('answer'))}"
                for s in steps
                if isinstance(s, dict)
            )
        )
    else:
        row.gold = _text(f"{rec.get('query') or rec.get('template_query') or ''}  =  ") + _text(
            rec.get("answer", rec.get("clean_answer"))
        )
    row.groups["NGDBench family"] = family or "unknown"
    if family in ("noagg", "agg") and isinstance(rec.get("same_as_cleangraph"), bool):
        row.groups["same as clean graph"] = str(rec["same_as_cleangraph"]).lower()
    if family == "management" and rec.get("operation"):
        row.groups["operation"] = str(rec["operation"])
    m = rec.get(key)
    score: float | None = None
    if isinstance(m, dict):
        if family == "noagg":
            for k in ("jaccard", "f1"):
                if _num(m.get(k)) is not None:
                    row.metrics[f"noagg_{k}"] = float(m[k])
            score = row.metrics.get("noagg_jaccard")
        elif family == "agg":
            for k in ("relative_error", "smape"):
                if _num(m.get(k)) is not None:
                    row.metrics[f"agg_{k}"] = float(m[k])
            rel = row.metrics.get("agg_relative_error")
            score = None if rel is None else (1.0 if rel == 0 else 0.0)
        elif family == "boolean":
            if _num(m.get("accuracy")) is not None:
                row.metrics["boolean_accuracy"] = float(m["accuracy"])
            score = row.metrics.get("boolean_accuracy")
        elif family == "management":
            if _num(m.get("l_step")) is not None:
                row.metrics["management_l_step"] = float(m["l_step"])
            score = row.metrics.get("management_l_step")
    if key == "oracle_metrics":
        row.prediction = _text(rec.get("noise_answer"))
    else:
        row.prediction = _text(
            rec.get("prediction") if rec.get("prediction") is not None else rec.get("pred_cypher")
        )
        if rec.get("status") == "not_scored":
            row.error_class = f"not scored: {rec.get('reason') or 'unknown reason'}"
        elif rec.get("error"):
            row.error_class = str(rec["error"])
        for s in rec.get("prediction_run") or []:
            if isinstance(s, dict) and s.get("status") == "failed":
                row.error = _text(f"step {s.get('step')}: {s.get('error')}", 1000)
                row.error_class = row.error_class or str(s.get("error_class") or "failed")
                break
    if family == "agg" and isinstance(m, dict) and m.get("y_pred") is None and not row.error_class:
        row.verdict = "unanswered"
    elif row.error_class and key == "metrics" and rec.get("status") == "not_scored":
        row.verdict = "not scored"
    else:
        row.verdict = _verdict(row, score)
    return row


def _ngd_overall(block: Mapping[str, Any] | None) -> dict[str, float | None]:
    block = block or {}

    def get(family: str, key: str) -> float | None:
        sub = block.get(family)
        return _num(sub.get(key)) if isinstance(sub, dict) else None

    return {
        "noagg_jaccard": get("noagg", "jaccard"),
        "noagg_f1": get("noagg", "f1"),
        "agg_relative_error": get("agg", "mdre"),
        "agg_smape": get("agg", "smape"),
        "boolean_accuracy": get("boolean", "accuracy"),
        "management_l_step": get("management", "l_step"),
    }


def read_evaluate_ngdbench(path: Path, label: str) -> list[Run]:
    """A ``kgbench evaluate --family ngdbench`` output (:mod:`kgbench.evaluate.ngdbench`): the
    run of the predictions (when any task was scored) and the oracle row (the gold query on the
    noisy graph, labelled ``LABEL · oracle``, when the file has one). Metrics per family: NoAgg
    Jaccard and F1, Agg MdRE (the median relative error) and sMAPE, Boolean accuracy,
    management L_step. Groups: ``NGDBench family``, ``same as clean graph`` (analytic tasks),
    ``operation`` (management). Errors as :func:`read_evaluate`."""
    results = path / "result_with_metrics.json"
    data = read_json(results)
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise InputError(f"{results}: expected a JSON array of task records")
    agg = _object(path / "aggregated_metrics.json", read_json(path / "aggregated_metrics.json"))
    counts = _dict(agg.get("counts"))
    runs: list[Run] = []
    scored = [(i, r) for i, r in enumerate(data) if r.get("status") == "scored"]
    reasons = _dict(counts.get("not_scored_reasons"))
    reason_note = (
        f"{counts.get('not_scored', 0)} of {counts.get('tasks', len(data))} tasks not scored: "
        + ", ".join(f"{k} ({v})" for k, v in reasons.items())
        if reasons
        else ""
    )
    overall = _ngd_overall(agg.get("overall"))
    oracle_overall = _ngd_overall(agg.get("oracle"))
    has_oracle = any(v is not None for v in oracle_overall.values())
    if scored or not has_oracle:
        rows = [_ngd_row(r, i, "metrics") for i, r in enumerate(data)]
        run = Run(label, path, "evaluate --family ngdbench", list(NGD_METRICS), overall, rows)
        run.notes.append(f"gold: the {agg.get('gold', 'clean')} graph's answers")
        if reason_note:
            run.notes.append(reason_note)
        _pass_at_k(run, rows, data, _dict(agg.get("pass_at_k")).get("overall"))
        _count_errors(run, ((row, [row.error_class] if row.error_class else []) for row in rows))
        runs.append(run)
    if has_oracle:
        with_oracle = [(i, r) for i, r in enumerate(data) if r.get("oracle_metrics")]
        rows = [_ngd_row(r, i, "oracle_metrics") for i, r in with_oracle]
        run = Run(
            f"{label} · oracle",
            path,
            "evaluate --family ngdbench (oracle)",
            list(NGD_METRICS),
            oracle_overall,
            rows,
        )
        run.notes.append(
            "oracle: the gold query on the noisy graph (noise_answer scored against answer)"
        )
        if reason_note and not scored:
            run.notes.append(reason_note)
        runs.append(run)
    return runs


def _pass_at_k(run: Run, rows: Sequence[TaskRow], records: Sequence[Any], overall: Any) -> None:
    """Add the run's pass@k metrics (``kgbench evaluate --samples K``;
    :mod:`kgbench.evaluate.passk`) when its records have them: ``pass@1`` .. ``pass@K`` per
    row (from ``metrics``) and overall (from ``overall``)."""
    keys: list[str] = []
    for rec in records:
        m = rec.get("metrics") if isinstance(rec, dict) else None
        if isinstance(m, dict):
            keys += [k for k in m if k.startswith("pass@") and k not in keys]
    keys.sort(key=lambda k: int(k[5:]) if k[5:].isdigit() else 0)
    for key in keys:
        run.metrics.append(Metric(key, key))
        run.overall[key] = _num(_dict(overall).get(key))
        for row, rec in zip(rows, records, strict=True):
            value = _num(_dict(rec.get("metrics")).get(key))
            if value is not None:
                row.metrics[key] = value


def read_evaluate_gtsqa(path: Path, label: str) -> Run:
    """A ``kgbench evaluate --family gtsqa`` output (:mod:`kgbench.evaluate.gtsqa`): GTSQA's
    metrics per task and overall, pass@k with samples. The verdict: ``correct`` when the
    predicted answer set equals the gold one, ``partial`` when some gold answer is among them
    (hits 1), else the prediction's error (``query error``, its message kept) or ``wrong``.
    Groups: ``isomorphism type`` (the record's ``graph_isomorphism``, or joined from an iso
    input by ``id``). GTSQA gold answers are never empty, so there is no uninformative flag.

    Raises:
        InputError: a file that is not JSON or not of this shape (names it)."""
    results = path / "result_with_metrics.json"
    records = _list_of_objects(results, read_json(results))
    agg = _object(path / "aggregated_metrics.json", read_json(path / "aggregated_metrics.json"))
    rows: list[TaskRow] = []
    for i, rec in enumerate(records):
        pred = _dict(rec.get("prediction"))
        gold = rec.get("gold_answers") or []
        answers = pred.get("pred_answers") or []
        query = pred.get("pred_cypher") or pred.get("pred_sparql") or ""
        row = TaskRow(
            qid=str(rec.get("id", i)),
            question=_text(rec.get("question")),
            gold=_text(", ".join(str(g) for g in gold) if isinstance(gold, list) else gold),
            prediction=_text(f"{query}  =>  {', '.join(str(a) for a in answers)}"),
        )
        scores = _dict(rec.get("metrics"))
        for m in GTSQA_METRICS:
            value = _num(scores.get(m.key))
            if value is not None:
                row.metrics[m.key] = value
        if isinstance(rec.get("graph_isomorphism"), str):
            row.groups["isomorphism type"] = rec["graph_isomorphism"]
        if pred.get("error"):
            row.error_class, row.error = "query error", _text(pred["error"], 1000)
        elif not pred:
            row.error_class, row.error = "missing", "no prediction for this id"
        exact = isinstance(gold, list) and {str(a) for a in answers} == {str(g) for g in gold}
        row.verdict = _row_verdict(
            row,
            correct=exact and bool(answers),
            partial=row.metrics.get("hits") == 1.0,
            partial_before_error=True,
        )
        rows.append(row)
    overall_src = _dict(agg.get("overall"))
    overall = {m.key: _num(overall_src.get(m.key)) for m in GTSQA_METRICS}
    run = Run(label, path, "evaluate --family gtsqa", list(GTSQA_METRICS), overall, rows)
    counts = _dict(agg.get("counts"))
    run.notes.append(
        f"kg {agg.get('kg')}: {counts.get('tasks', len(rows))} tasks, "
        f"{counts.get('missing_predictions', 0)} without a prediction, "
        f"{counts.get('execution_errors', 0)} whose query failed"
    )
    _pass_at_k(run, rows, records, overall_src)
    _count_errors(run, ((row, [row.error_class] if row.error_class else []) for row in rows))
    return run


def read_evaluate_text2cypher(path: Path, label: str) -> Run:
    """A ``kgbench evaluate --family text2cypher`` output (:mod:`kgbench.evaluate.translation`):
    Google-BLEU and exact match per task and overall (the corpus Google-BLEU), EX and Exec when
    the run executed queries (``execution``; aliases without a server are noted). The verdict
    follows EX when the task was executed, else exact match (``partial`` for a Google-BLEU
    above 0). Groups: ``graph`` (the ``database_reference_alias``) and ``gold result``
    (informative or not, metrics.md §1) for executed tasks.

    Raises:
        InputError: a file that is not JSON or not of this shape (names it)."""
    results = path / "result_with_metrics.json"
    records = _list_of_objects(results, read_json(results))
    agg = _object(path / "aggregated_metrics.json", read_json(path / "aggregated_metrics.json"))
    execution = _dict(agg.get("execution"))
    metrics = [GLEU, EXACT_MATCH] + ([EX, EXEC] if execution else [])
    rows: list[TaskRow] = []
    for i, rec in enumerate(records):
        row = TaskRow(
            qid=str(rec.get("instance_id") or i),
            question=_text(rec.get("question")),
            gold=_text(rec.get("cypher")),
            prediction=_text(rec.get("pred_cypher")),
        )
        scores = _dict(rec.get("metrics"))
        for m in metrics:
            value = _num(scores.get(m.key))
            if value is not None:
                row.metrics[m.key] = value
        alias = rec.get("database_reference_alias")
        if isinstance(alias, str) and alias:
            row.groups["graph"] = alias
        _gold_result_group(row, rec)
        if not isinstance(rec.get("pred_cypher"), str):
            row.error_class, row.error = "missing", "no prediction"
        elif row.metrics.get(EXEC.key) == 0.0:
            row.error_class, row.error = "not executable", "the predicted query failed"
        ex = row.metrics.get(EX.key)
        primary = ex if ex is not None else row.metrics.get(EXACT_MATCH.key)
        row.verdict = _row_verdict(
            row,
            correct=primary == 1.0,
            partial=ex is None and (row.metrics.get(GLEU.key) or 0.0) > 0.0,
        )
        rows.append(row)
    overall = {m.key: _num(_dict(agg.get("overall")).get(m.key)) for m in (GLEU, EXACT_MATCH)}
    run = Run(label, path, "evaluate --family text2cypher", metrics, overall, rows)
    if execution:
        ex_overall = _dict(execution.get("overall"))
        overall.update({m.key: _num(ex_overall.get(m.key)) for m in (EX, EXEC)})
        not_run = _dict(execution.get("not_executed"))
        run.notes.append(
            f"EX and Exec over the {ex_overall.get('tasks', 0)} task(s) run on a server"
            + (
                "; not executed (no server for the alias): "
                + ", ".join(f"{k} ({v})" for k, v in not_run.items())
                if not_run
                else ""
            )
        )
    missing = _dict(agg.get("counts")).get("missing_predictions")
    if missing:
        run.notes.append(f"{missing} task(s) without a prediction (scored 0)")
    _count_errors(run, ((row, [row.error_class] if row.error_class else []) for row in rows))
    return run


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
            value = _num(rec.get(key))
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
    _count_errors(run, ((r, [r.error_class] if r.error_class else []) for r in rows))
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


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


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
    report = _object(path / "report.json", read_json(path / "report.json"))
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
    report = _object(path / "report.json", read_json(path / "report.json"))
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
                _text(rec.get("question"), 500),
                _text(rec.get("cypher"), 1000),
                _text(rec.get("rejection_reason"), 500),
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
    report = _object(path / "report.json", read_json(path / "report.json"))
    rejections = _int_map(report.get("rejections"))
    attempts = _int(report.get("attempts"))
    gen = Generation(label, path, "generate synth")
    settings = _dict(report.get("settings"))
    graph = _dict(report.get("graph"))
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
                    gen.examples[str(reason)] = [", ".join(_text(x, 200) for x in ids[:5])]
    gen.balance = [("items per isomorphism type", _int_map(report.get("types")))]
    return gen


def read_generate_ngdbench(path: Path, label: str) -> Generation:
    """A ``kgbench generate ngdbench`` output (:mod:`kgbench.generate.ngdbench.build`): the
    analytic funnel (candidates → kept, over the NoAgg, Agg and Boolean families) and the
    management funnel (candidates → tried → kept), rejections of both per reason, and the
    tasks per family, analytic tasks kept per family and management batches per operation."""
    report = _object(path / "report.json", read_json(path / "report.json"))
    analytic = _dict(report.get("analytic"))
    mgmt = _dict(report.get("management"))
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
    by_op = _dict(mgmt.get("by_operation"))
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
    log = _object(log_path, read_json(log_path))
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
        counts = _dict(entry.get("summary"))
        types.append(
            (
                name,
                _num(entry.get("rate")),
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
                            _text(ch.get("original_value"), 200),
                            _text(ch.get("new_value"), 200),
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
    items: list[tuple[Path, str]] = []
    for raw in paths:
        path = Path(raw)
        kind = detect_kind(path)
        items.extend((p, kind) for p in _expand(path, kind))
    if not items:
        raise InputError("no output directory given")
    labels = _labels([p for p, _ in items])
    out = ReportInputs()
    readers: dict[str, tuple[str, Callable[[Path, str], Any]]] = {
        "evaluate": ("runs", read_evaluate),
        "evaluate-sparql": ("runs", read_evaluate_sparql),
        "evaluate-ngdbench": ("runs", read_evaluate_ngdbench),
        "evaluate-gtsqa": ("runs", read_evaluate_gtsqa),
        "evaluate-text2cypher": ("runs", read_evaluate_text2cypher),
        "score": ("runs", read_score),
        "iso": ("isos", read_iso),
        "noise": ("noises", read_noise),
        "generate-cypherbench": ("generations", read_generate_cypherbench),
        "generate-pipe": ("generations", read_generate_pipe),
        "generate-synth": ("generations", read_generate_synth),
        "generate-ngdbench": ("generations", read_generate_ngdbench),
    }
    for (path, kind), label in zip(items, labels, strict=True):
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

#: The benchmark family of each run kind (:attr:`Run.kind`, as the readers above set it).
_FAMILY_OF_KIND = {
    "evaluate (CypherBench)": "cypherbench",
    "evaluate --language sparql": "spider4sparql",
    "evaluate --family ngdbench": "ngdbench",
    "evaluate --family gtsqa": "gtsqa",
    "evaluate --family text2cypher": "text2cypher",
    "score": "score",
}


def run_family(run: Run) -> str:
    """The benchmark family of ``run``: ``cypherbench``, ``spider4sparql``, ``ngdbench``,
    ``gtsqa``, ``text2cypher``, or ``score`` (result files of ``kgbench score``, comparable
    only with each other). Read from the run's kind (:func:`detect_kind`) until
    ``aggregated_metrics.json`` records its family; the report pairs only runs of one family
    (:func:`kgbench.report.render.comparable_groups`)."""
    return _FAMILY_OF_KIND.get(run.kind, run.kind)
