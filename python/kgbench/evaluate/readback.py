"""Reading an evaluation's output back: the records ``kgbench report`` draws (a
:class:`Run` of scored :class:`TaskRow` s, with its :class:`Metric` s) and one reader per
evaluation kind, used by each benchmark family (:mod:`kgbench.families`) to read its own
``result_with_metrics.json`` and ``aggregated_metrics.json`` back.

Readers: :func:`read_evaluate` (CypherBench, :mod:`kgbench.evaluate.runner`),
:func:`read_evaluate_sparql` (:mod:`kgbench.evaluate.sparql_runner`),
:func:`read_evaluate_ngdbench` (:mod:`kgbench.evaluate.ngdbench`; its predictions and the
oracle row), :func:`read_evaluate_gtsqa` (:mod:`kgbench.evaluate.gtsqa`) and
:func:`read_evaluate_text2cypher` (:mod:`kgbench.evaluate.translation`). Each raises
:class:`kgbench.errors.InputError` naming the file (and record) on a file that cannot be
read, is not JSON, or lacks what its kind needs; each takes the ``aggregated_metrics.json``
its caller has already read (:func:`read_aggregated`). The helpers :func:`finite_number`,
:func:`cell_text`, :func:`verdict_of`, :func:`count_error_classes`, :func:`json_object` and
:func:`dict_of` are shared with the report's other readers.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError


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


@dataclass(frozen=True)
class FlaggedGold:
    """One flag of a gold query (``gold_flags`` of a record, ``kgbench evaluate --audit``):
    the task's qid, the flag, its reason and its details as short text."""

    qid: str
    flag: str
    reason: str
    details: str


@dataclass
class GoldAudit:
    """The gold flags of an evaluation run with ``--audit``: every flag of its scored tasks
    (record order), the metrics over the unflagged tasks (``unflagged.overall``; None when
    undefined) and their number, and the scored tasks the audit flagged / did not cover."""

    flagged: list[FlaggedGold]
    unflagged: dict[str, float | None]
    unflagged_tasks: int
    flagged_tasks: int
    not_audited: int


@dataclass
class Run:
    """The scored predictions of one model: an ``evaluate`` or ``score`` output.

    ``overall`` holds the run's official numbers as its files give them (``None`` when
    undefined); ``error_classes`` counts the tasks per error class (a task counts once per
    class) and ``error_examples`` keeps the first task of each class. ``family``: the
    benchmark family that wrote the output (``""`` until the report sets it from the
    family that read it back). ``agent``: see the field."""

    label: str
    path: Path
    kind: str
    metrics: list[Metric]
    overall: dict[str, float | None]
    rows: list[TaskRow]
    notes: list[str] = field(default_factory=list)
    error_classes: dict[str, int] = field(default_factory=dict)
    error_examples: dict[str, TaskRow] = field(default_factory=dict)
    family: str = ""
    #: The agent statistics and conversations of an agent run
    #: (:class:`kgbench.report.inputs.AgentRun`; set by the report), else None.
    agent: Any = None
    #: The gold flags of a run evaluated with ``--audit`` (:func:`read_gold_audit`), else None.
    gold_audit: GoldAudit | None = None


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


def finite_number(value: Any) -> float | None:
    """A finite float, or ``None`` (NaN, missing, not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    x = float(value)
    return x if math.isfinite(x) else None


def cell_text(value: Any, limit: int = 4000) -> str:
    """A value as table text: strings as they are, other values as compact JSON, cut at
    ``limit`` characters."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def row_verdict(
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


def verdict_of(row: TaskRow, score: float | None) -> str:
    """A task's verdict by its score on the run's primary metric (:func:`row_verdict`):
    ``correct`` at 1 or more, ``partial`` above 0."""
    return row_verdict(
        row,
        correct=score is not None and score >= 1.0,
        partial=score is not None and score > 0.0,
    )


def count_error_classes(run: Run, classes_of: Iterable[tuple[TaskRow, Iterable[str]]]) -> None:
    """Set ``run.error_classes`` (tasks per error class, most frequent first; a task counts
    once per class) and ``run.error_examples`` (the first task of each class) from
    ``(row, its error classes)`` pairs."""
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


def json_object(path: Path, data: Any) -> dict[str, Any]:
    """``data`` (read from ``path``) when it is a JSON object.

    Raises:
        InputError: it is not (names ``path``)."""
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object")
    return data


def read_aggregated(path: Path) -> dict[str, Any]:
    """The ``aggregated_metrics.json`` of the evaluation directory ``path``, a JSON object.

    Raises:
        InputError: the file cannot be read, is not JSON or not an object (names it)."""
    agg_path = path / "aggregated_metrics.json"
    return json_object(agg_path, read_json(agg_path))


def read_evaluate(path: Path, label: str, aggregated: Mapping[str, Any] | None = None) -> Run:
    """A CypherBench-family ``kgbench evaluate`` output (:mod:`kgbench.evaluate.runner`).

    Groups: ``graph``, ``MATCH category`` (``from_template.match_category``), ``RETURN
    template`` (``from_template.return_pattern_id`` mapped by CypherBench's
    :data:`kgbench.evaluate.aggregate.RETURN_PATTERN_MAPPING`; templates it does not map are
    left out, as in ``aggregated_metrics.json``) and ``isomorphism type`` when a record has
    ``graph_isomorphism``. The verdict follows EX (or the first metric): 1 is ``correct``, a
    recorded error gives its class, else ``wrong``. ``aggregated``: the directory's
    ``aggregated_metrics.json`` when the caller has read it (None: read here,
    :func:`read_aggregated`); so in every reader.

    Raises:
        InputError: a file that is not JSON or not of this shape (names it)."""
    from kgbench.evaluate.aggregate import RETURN_PATTERN_MAPPING

    results = path / "result_with_metrics.json"
    records = _list_of_objects(results, read_json(results))
    agg = read_aggregated(path) if aggregated is None else aggregated
    known = {m.key: m for m in (EX, PSJS, EXEC, EX_SET)}
    present = [k for k in known if any(k in (r.get("metrics") or {}) for r in records)]
    present += [k for k in dict_of(agg.get("overall")) if k in known and k not in present]
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
            question=cell_text(rec.get("nl_question") or rec.get("question")),
            gold=cell_text(rec.get("gold_cypher")),
            prediction=cell_text(rec.get("pred_cypher")),
        )
        for m in metrics:
            value = finite_number(scores.get(m.key))
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
                cls, message = str(err["error_class"]), cell_text(err.get("error"), 1000)
                task_classes.append(cls)
                row.errors.setdefault(cls, message)
                if row.error_class is None:
                    row.error_class, row.error = cls, message
        row.verdict = verdict_of(row, row.metrics.get(primary))
        rows.append(row)
        classes.append((row, task_classes))
    overall = {m.key: finite_number(dict_of(agg.get("overall")).get(m.key)) for m in metrics}
    run = Run(label, path, "evaluate (CypherBench)", metrics, overall, rows)
    _pass_at_k(run, rows, records, agg.get("overall"))
    count_error_classes(run, classes)
    _informative_note(run, agg)
    read_gold_audit(run, records, agg)
    _test_suite(run, records, agg)
    return run


def _test_suite(run: Run, records: Sequence[Any], agg: Mapping[str, Any]) -> None:
    """Add test-suite EX (``metrics.ts_execution_accuracy`` of the records, ``test_suite`` of
    ``aggregated_metrics.json``) to ``run``, when the run has it: the TS-EX metric beside EX,
    and notes with the suite figures and the tasks with EX 1 and TS-EX 0, each with the
    neighbour graph (delta) that separated it (metrics.md, test-suite EX)."""
    summary = dict_of(agg.get("test_suite"))
    if not summary:
        return
    if TS_EX not in run.metrics:
        run.metrics = list(run.metrics)
        run.metrics.insert(run.metrics.index(EX) + 1 if EX in run.metrics else 0, TS_EX)
    run.overall[TS_EX.key] = finite_number(summary.get("ts_execution_accuracy"))
    by_qid = {row.qid: row for row in run.rows}
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            continue
        value = finite_number(dict_of(rec.get("metrics")).get(TS_EX.key))
        row = by_qid.get(str(rec.get("qid", i)))
        if value is not None and row is not None:
            row.metrics[TS_EX.key] = value
    suites = dict_of(summary.get("suites"))
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
            sep = dict_of(item.get("separated_by")) if isinstance(item, dict) else {}
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
    info = dict_of(agg.get("informative"))
    if not info:
        return
    means = ", ".join(
        f"{k} {v:.4f}" for k, v in dict_of(info.get("overall")).items() if isinstance(v, float)
    )
    reasons = ", ".join(f"{k} {n}" for k, n in dict_of(info.get("by_reason")).items())
    run.notes.append(
        f"on the {info.get('tasks')} tasks whose gold result is informative: {means}; "
        f"{info.get('uninformative')} uninformative gold result(s) ({reasons or 'none'}) "
        "stay in the overall figures"
    )


def details_text(details: Any, limit: int = 160) -> str:
    """A flag's ``details`` as short text: its ``message`` when it has one, else ``key=value``
    pairs (values as compact JSON), cut at ``limit`` characters."""
    if not isinstance(details, dict):
        return cell_text(details, limit)
    if isinstance(details.get("message"), str):
        return cell_text(details["message"], limit)
    parts = [f"{k}={cell_text(v, limit)}" for k, v in details.items()]
    return cell_text("; ".join(parts), limit)


def read_gold_audit(run: Run, records: Sequence[Any], agg: Mapping[str, Any]) -> None:
    """Set ``run.gold_audit`` from the records' ``gold_flags`` and the ``unflagged`` object
    of ``aggregated_metrics.json`` (an evaluation with ``--audit``), and add a note with the
    metrics over the unflagged tasks beside those over all; nothing when the file has no
    ``unflagged``."""
    unflagged = dict_of(agg.get("unflagged"))
    if not unflagged:
        return
    flagged: list[FlaggedGold] = []
    for i, rec in enumerate(records):
        flags = rec.get("gold_flags") if isinstance(rec, dict) else None
        if not isinstance(flags, list):
            continue
        qid = str(rec.get("qid", rec.get("id", i)))
        for f in flags:
            if isinstance(f, dict):
                flagged.append(
                    FlaggedGold(
                        qid,
                        str(f.get("flag", "")),
                        str(f.get("reason", "")),
                        details_text(f.get("details")),
                    )
                )
    overall = {k: finite_number(v) for k, v in dict_of(unflagged.get("overall")).items()}

    def count(key: str) -> int:
        value = unflagged.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    run.gold_audit = GoldAudit(
        flagged, overall, count("tasks"), count("flagged"), count("not_audited")
    )
    means = ", ".join(f"{k} {v:.4f}" for k, v in overall.items() if v is not None)
    run.notes.append(
        f"on the {count('tasks')} tasks whose gold the audit did not flag: {means or 'none'}; "
        f"{count('flagged')} flagged gold(s) stay in the overall figures"
        + (f" ({count('not_audited')} task(s) not audited)" if count("not_audited") else "")
    )


def read_evaluate_sparql(
    path: Path, label: str, aggregated: Mapping[str, Any] | None = None
) -> Run:
    """A ``kgbench evaluate --language sparql`` output (:mod:`kgbench.evaluate.sparql_runner`):
    EX and Exec per task, groups ``graph`` and ``hardness`` (Spider's levels); the tasks
    whose gold failed (``excluded``) are noted. Errors as :func:`read_evaluate`."""
    results = path / "result_with_metrics.json"
    records = _list_of_objects(results, read_json(results))
    agg = read_aggregated(path) if aggregated is None else aggregated
    metrics = [EX, EXEC]
    rows: list[TaskRow] = []
    classes: list[tuple[TaskRow, list[str]]] = []
    for i, rec in enumerate(records):
        scores = rec.get("metrics") or {}
        row = TaskRow(
            qid=str(rec.get("qid", i)),
            question=cell_text(rec.get("nl_question") or rec.get("question")),
            gold=cell_text(rec.get("gold_sparql") or rec.get("query")),
            prediction=cell_text(rec.get("pred_sparql")),
        )
        for m in metrics:
            value = finite_number(scores.get(m.key)) if isinstance(scores, dict) else None
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
        row.verdict = verdict_of(row, row.metrics.get(EX.key))
        rows.append(row)
        classes.append((row, [row.error_class] if row.error_class else []))
    overall = {m.key: finite_number(dict_of(agg.get("overall")).get(m.key)) for m in metrics}
    run = Run(label, path, "evaluate --language sparql", metrics, overall, rows)
    _pass_at_k(run, rows, records, agg.get("overall"))
    _informative_note(run, agg)
    read_gold_audit(run, records, agg)
    excluded = agg.get("excluded") or []
    if excluded:
        run.notes.append(
            f"{len(excluded)} task(s) excluded because their gold query failed "
            f"(e.g. qid {excluded[0].get('qid')!r}: {excluded[0].get('error')})"
        )
    if agg.get("compat"):
        run.notes.append(f"EX rules: {agg['compat']}")
    count_error_classes(run, classes)
    _test_suite(run, records, agg)
    return run


def _ngd_row(rec: Mapping[str, Any], i: int, key: str) -> TaskRow:
    """A task row of an NGDBench evaluation from the metrics under ``key`` (``metrics`` or
    ``oracle_metrics``)."""
    family = str(rec.get("family") or "")
    row = TaskRow(qid=str(rec.get("qid") or rec.get("id") or i))
    row.question = cell_text(rec.get("nlp") or rec.get("title") or rec.get("question"))
    if family == "management":
        steps = rec.get("steps") or []
        row.gold = cell_text(
            "\n".join(
                f"{s.get('operate_query')}  =>  {s.get('valid_query')}  =  "
                f"{cell_text(s.get('answer'))}"
                for s in steps
                if isinstance(s, dict)
            )
        )
    else:
        row.gold = cell_text(
            f"{rec.get('query') or rec.get('template_query') or ''}  =  "
        ) + cell_text(rec.get("answer", rec.get("clean_answer")))
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
                if finite_number(m.get(k)) is not None:
                    row.metrics[f"noagg_{k}"] = float(m[k])
            score = row.metrics.get("noagg_jaccard")
        elif family == "agg":
            for k in ("relative_error", "smape"):
                if finite_number(m.get(k)) is not None:
                    row.metrics[f"agg_{k}"] = float(m[k])
            rel = row.metrics.get("agg_relative_error")
            score = None if rel is None else (1.0 if rel == 0 else 0.0)
        elif family == "boolean":
            if finite_number(m.get("accuracy")) is not None:
                row.metrics["boolean_accuracy"] = float(m["accuracy"])
            score = row.metrics.get("boolean_accuracy")
        elif family == "management":
            if finite_number(m.get("l_step")) is not None:
                row.metrics["management_l_step"] = float(m["l_step"])
            score = row.metrics.get("management_l_step")
    if key == "oracle_metrics":
        row.prediction = cell_text(rec.get("noise_answer"))
    else:
        row.prediction = cell_text(
            rec.get("prediction") if rec.get("prediction") is not None else rec.get("pred_cypher")
        )
        if rec.get("status") == "not_scored":
            row.error_class = f"not scored: {rec.get('reason') or 'unknown reason'}"
        elif rec.get("error"):
            row.error_class = str(rec["error"])
        for s in rec.get("prediction_run") or []:
            if isinstance(s, dict) and s.get("status") == "failed":
                row.error = cell_text(f"step {s.get('step')}: {s.get('error')}", 1000)
                row.error_class = row.error_class or str(s.get("error_class") or "failed")
                break
    if family == "agg" and isinstance(m, dict) and m.get("y_pred") is None and not row.error_class:
        row.verdict = "unanswered"
    elif row.error_class and key == "metrics" and rec.get("status") == "not_scored":
        row.verdict = "not scored"
    else:
        row.verdict = verdict_of(row, score)
    return row


def _ngd_overall(block: Mapping[str, Any] | None) -> dict[str, float | None]:
    block = block or {}

    def get(family: str, key: str) -> float | None:
        sub = block.get(family)
        return finite_number(sub.get(key)) if isinstance(sub, dict) else None

    return {
        "noagg_jaccard": get("noagg", "jaccard"),
        "noagg_f1": get("noagg", "f1"),
        "agg_relative_error": get("agg", "mdre"),
        "agg_smape": get("agg", "smape"),
        "boolean_accuracy": get("boolean", "accuracy"),
        "management_l_step": get("management", "l_step"),
    }


def read_evaluate_ngdbench(
    path: Path, label: str, aggregated: Mapping[str, Any] | None = None
) -> list[Run]:
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
    agg = read_aggregated(path) if aggregated is None else aggregated
    counts = dict_of(agg.get("counts"))
    runs: list[Run] = []
    scored = [(i, r) for i, r in enumerate(data) if r.get("status") == "scored"]
    reasons = dict_of(counts.get("not_scored_reasons"))
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
        _pass_at_k(run, rows, data, dict_of(agg.get("pass_at_k")).get("overall"))
        count_error_classes(
            run, ((row, [row.error_class] if row.error_class else []) for row in rows)
        )
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
        run.overall[key] = finite_number(dict_of(overall).get(key))
        for row, rec in zip(rows, records, strict=True):
            value = finite_number(dict_of(rec.get("metrics")).get(key))
            if value is not None:
                row.metrics[key] = value


def read_evaluate_gtsqa(path: Path, label: str, aggregated: Mapping[str, Any] | None = None) -> Run:
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
    agg = read_aggregated(path) if aggregated is None else aggregated
    rows: list[TaskRow] = []
    for i, rec in enumerate(records):
        pred = dict_of(rec.get("prediction"))
        gold = rec.get("gold_answers") or []
        answers = pred.get("pred_answers") or []
        query = pred.get("pred_cypher") or pred.get("pred_sparql") or ""
        row = TaskRow(
            qid=str(rec.get("id", i)),
            question=cell_text(rec.get("question")),
            gold=cell_text(", ".join(str(g) for g in gold) if isinstance(gold, list) else gold),
            prediction=cell_text(f"{query}  =>  {', '.join(str(a) for a in answers)}"),
        )
        scores = dict_of(rec.get("metrics"))
        for m in GTSQA_METRICS:
            value = finite_number(scores.get(m.key))
            if value is not None:
                row.metrics[m.key] = value
        if isinstance(rec.get("graph_isomorphism"), str):
            row.groups["isomorphism type"] = rec["graph_isomorphism"]
        if pred.get("error"):
            row.error_class, row.error = "query error", cell_text(pred["error"], 1000)
        elif not pred:
            row.error_class, row.error = "missing", "no prediction for this id"
        exact = isinstance(gold, list) and {str(a) for a in answers} == {str(g) for g in gold}
        row.verdict = row_verdict(
            row,
            correct=exact and bool(answers),
            partial=row.metrics.get("hits") == 1.0,
            partial_before_error=True,
        )
        rows.append(row)
    overall_src = dict_of(agg.get("overall"))
    overall = {m.key: finite_number(overall_src.get(m.key)) for m in GTSQA_METRICS}
    run = Run(label, path, "evaluate --family gtsqa", list(GTSQA_METRICS), overall, rows)
    counts = dict_of(agg.get("counts"))
    run.notes.append(
        f"kg {agg.get('kg')}: {counts.get('tasks', len(rows))} tasks, "
        f"{counts.get('missing_predictions', 0)} without a prediction, "
        f"{counts.get('execution_errors', 0)} whose query failed"
    )
    _pass_at_k(run, rows, records, overall_src)
    count_error_classes(run, ((row, [row.error_class] if row.error_class else []) for row in rows))
    return run


def read_evaluate_text2cypher(
    path: Path, label: str, aggregated: Mapping[str, Any] | None = None
) -> Run:
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
    agg = read_aggregated(path) if aggregated is None else aggregated
    execution = dict_of(agg.get("execution"))
    metrics = [GLEU, EXACT_MATCH] + ([EX, EXEC] if execution else [])
    rows: list[TaskRow] = []
    for i, rec in enumerate(records):
        row = TaskRow(
            qid=str(rec.get("instance_id") or i),
            question=cell_text(rec.get("question")),
            gold=cell_text(rec.get("cypher")),
            prediction=cell_text(rec.get("pred_cypher")),
        )
        scores = dict_of(rec.get("metrics"))
        for m in metrics:
            value = finite_number(scores.get(m.key))
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
        row.verdict = row_verdict(
            row,
            correct=primary == 1.0,
            partial=ex is None and (row.metrics.get(GLEU.key) or 0.0) > 0.0,
        )
        rows.append(row)
    overall = {
        m.key: finite_number(dict_of(agg.get("overall")).get(m.key)) for m in (GLEU, EXACT_MATCH)
    }
    run = Run(label, path, "evaluate --family text2cypher", metrics, overall, rows)
    if execution:
        ex_overall = dict_of(execution.get("overall"))
        overall.update({m.key: finite_number(ex_overall.get(m.key)) for m in (EX, EXEC)})
        not_run = dict_of(execution.get("not_executed"))
        run.notes.append(
            f"EX and Exec over the {ex_overall.get('tasks', 0)} task(s) run on a server"
            + (
                "; not executed (no server for the alias): "
                + ", ".join(f"{k} ({v})" for k, v in not_run.items())
                if not_run
                else ""
            )
        )
    missing = dict_of(agg.get("counts")).get("missing_predictions")
    if missing:
        run.notes.append(f"{missing} task(s) without a prediction (scored 0)")
    count_error_classes(run, ((row, [row.error_class] if row.error_class else []) for row in rows))
    return run


def dict_of(value: Any) -> dict[str, Any]:
    """``value`` when it is a dict, else an empty one (a missing or malformed section)."""
    return value if isinstance(value, dict) else {}
