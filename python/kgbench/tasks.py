"""Task and prediction files in CypherBench's ``Nl2CypherSample`` format (SPEC.md §3).

A *task* is a record ``{qid, graph, gold_cypher, gold_match_cypher?, nl_question,
nl_question_raw?, answer_json?, from_template: {match_category, match_cypher,
return_pattern_id, return_cypher}, pred_cypher?, metrics}``. A *prediction* is
either such a record (its ``pred_cypher`` is used) or a line ``{"qid", "pred_cypher"}``.

Files are a JSON array (``.json``, as CypherBench's ``result.json``) or JSON Lines
(one object per line; chosen by content, not by extension). Errors name the file and
the record (array index or line number, and the ``qid`` when known).

Also the record files of two other families, read by both ``kgbench predict`` and
``kgbench evaluate``: Neo4j's Text2Cypher records (:func:`read_text2cypher_tasks`, from CSV,
Parquet or JSON by :func:`read_table_records`) and the ``steps_cypher`` of an NGDBench
management reply (:func:`steps_of`).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kgbench.errors import InputError

#: Field order of CypherBench's ``Nl2CypherSample`` (pydantic ``model_dump``).
TASK_FIELDS = (
    "qid",
    "graph",
    "gold_cypher",
    "gold_match_cypher",
    "nl_question",
    "nl_question_raw",
    "answer_json",
    "from_template",
    "pred_cypher",
    "metrics",
)

#: Field order of ``from_template`` (CypherBench ``TemplateInfo``).
TEMPLATE_FIELDS = ("match_category", "match_cypher", "return_pattern_id", "return_cypher")

#: Trailing marker some models emit; CypherBench strips it from predictions.
END_OF_TURN = "<end_of_turn>"


def read_records(path: str | Path) -> list[tuple[str, dict[str, Any]]]:
    """Read a JSON array or JSON Lines file of objects.

    Returns ``(where, record)`` pairs where ``where`` names the record for error
    messages (``"FILE record 3"`` for arrays, ``"FILE line 4"`` for JSON Lines).

    Raises:
        InputError: unreadable file, invalid JSON (with line and column), or a
            record that is not a JSON object.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: not UTF-8 text (byte {exc.start})") from exc
    stripped = text.lstrip()
    out: list[tuple[str, dict[str, Any]]] = []
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{p}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            ) from exc
        for i, item in enumerate(data):
            where = f"{p} record {i}"
            if not isinstance(item, dict):
                raise InputError(f"{where}: expected a JSON object, got {type(item).__name__}")
            out.append((where, item))
        return out
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{p} line {lineno}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: invalid JSON at column {exc.colno}: {exc.msg}") from exc
        if not isinstance(item, dict):
            raise InputError(f"{where}: expected a JSON object, got {type(item).__name__}")
        out.append((where, item))
    return out


def _qid(where: str, record: Mapping[str, Any]) -> str:
    qid = record.get("qid")
    if isinstance(qid, bool) or not isinstance(qid, (str, int)):
        raise InputError(f"{where}: field 'qid' must be a string or integer, got {qid!r}")
    return str(qid)


def normalize_task(where: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """Validate one task record and return it with CypherBench's field order.

    ``qid`` becomes a string; ``nl_question`` may also be given as ``question``;
    ``metrics`` defaults to ``{}``; fields not in :data:`TASK_FIELDS` are kept after
    them, in their original order.

    Raises:
        InputError: a required field (``qid``, ``graph``, ``gold_cypher``) is missing
            or not a string, or ``from_template`` is malformed; the message names
            ``where`` and the qid.
    """
    qid = _qid(where, record)
    label = f"{where} (qid {qid})"
    for field in ("graph", "gold_cypher"):
        value = record.get(field)
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{label}: field {field!r} must be a non-empty string")
    template = record.get("from_template")
    if template is not None:
        if not isinstance(template, dict):
            raise InputError(f"{label}: field 'from_template' must be an object")
        for field in TEMPLATE_FIELDS:
            if not isinstance(template.get(field), str):
                raise InputError(f"{label}: field 'from_template.{field}' must be a string")
    pred = record.get("pred_cypher")
    if pred is not None and not isinstance(pred, str):
        raise InputError(f"{label}: field 'pred_cypher' must be a string or null")
    out: dict[str, Any] = {}
    for field in TASK_FIELDS:
        if field == "qid":
            out[field] = qid
        elif field == "nl_question":
            out[field] = record.get("nl_question", record.get("question"))
        elif field == "metrics":
            metrics = record.get("metrics") or {}
            out[field] = dict(metrics) if isinstance(metrics, dict) else {}
        elif field == "from_template" and template is not None:
            out[field] = {k: template[k] for k in TEMPLATE_FIELDS}
        else:
            out[field] = record.get(field)
    for key, value in record.items():
        if key not in out and key != "question":
            out[key] = value
    return out


def normalize_tasks(records: Iterable[tuple[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Normalize task records (see :func:`normalize_task`).

    Raises:
        InputError: a malformed record, or two records with the same qid.
    """
    seen: dict[str, str] = {}
    tasks = []
    for where, record in records:
        task = normalize_task(where, record)
        if task["qid"] in seen:
            raise InputError(
                f"{where}: duplicate qid {task['qid']!r} (first at {seen[task['qid']]})"
            )
        seen[task["qid"]] = where
        tasks.append(task)
    return tasks


def load_tasks(path: str | Path) -> list[dict[str, Any]]:
    """Read and validate a task file (JSON array or JSON Lines of ``Nl2CypherSample``).

    Raises:
        InputError: see :func:`read_records` and :func:`normalize_tasks`.
    """
    return normalize_tasks(read_records(path))


def normalize_predictions(
    records: Iterable[tuple[str, Mapping[str, Any]]],
) -> dict[str, str | None]:
    """Map qid -> predicted Cypher (``None`` when the record's ``pred_cypher`` is null).

    Raises:
        InputError: a record without a usable ``qid``, a non-string ``pred_cypher``,
            or a duplicate qid.
    """
    out: dict[str, str | None] = {}
    first: dict[str, str] = {}
    for where, record in records:
        qid = _qid(where, record)
        pred = record.get("pred_cypher")
        if pred is not None and not isinstance(pred, str):
            raise InputError(f"{where} (qid {qid}): field 'pred_cypher' must be a string or null")
        if qid in out:
            raise InputError(
                f"{where}: duplicate prediction for qid {qid!r} (first at {first[qid]})"
            )
        out[qid] = pred
        first[qid] = where
    return out


def load_predictions(path: str | Path) -> dict[str, str | None]:
    """Read a prediction file: ``Nl2CypherSample`` records or ``{qid, pred_cypher}`` lines.

    Raises:
        InputError: see :func:`read_records` and :func:`normalize_predictions`.
    """
    return normalize_predictions(read_records(path))


def clean_prediction(pred: str | None) -> str:
    """The prediction as CypherBench scores it: ``None`` -> ``""``; a trailing
    ``<end_of_turn>`` is removed (then surrounding whitespace)."""
    if pred is None:
        return ""
    if pred.endswith(END_OF_TURN):
        pred = pred[: -len(END_OF_TURN)].strip()
    return pred


# ----------------------------------------------------------------- Text2Cypher records


def read_table_records(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """``(where, record)`` of a CSV (header row), Parquet, JSON or JSON Lines file; ``where``
    names the file and row or line.

    Raises:
        InputError: the file cannot be read as its suffix says (names it)."""
    if path.suffix.lower() == ".csv":
        try:
            with open(path, encoding="utf-8", newline="") as f:
                return [(f"{path} row {i + 2}", dict(r)) for i, r in enumerate(csv.DictReader(f))]
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise InputError(f"{path}: cannot read as CSV: {exc}") from exc
    if path.suffix.lower() == ".parquet":
        import polars as pl

        try:
            frame = pl.read_parquet(path)
        except Exception as exc:  # polars raises its own error classes
            raise InputError(f"{path}: cannot read as Parquet: {exc}") from exc
        return [(f"{path} row {i}", r) for i, r in enumerate(frame.to_dicts())]
    return read_records(path)


def read_text2cypher_tasks(path: str | Path) -> list[dict[str, Any]]:
    """Text2Cypher records with string ``question`` and ``schema``; ``qid`` is the record's
    ``instance_id`` when it has one, else its position; ``graph`` is
    ``database_reference_alias`` (or ``data_source``, or ``"text2cypher"``).

    Raises:
        InputError: an unreadable file or a record without ``question`` / ``schema``."""
    tasks = []
    for i, (where, rec) in enumerate(read_table_records(Path(path))):
        for field in ("question", "schema"):
            if not isinstance(rec.get(field), str):
                raise InputError(f"{where}: field {field!r} must be a string")
        qid = rec.get("instance_id")
        graph = rec.get("database_reference_alias") or rec.get("data_source") or "text2cypher"
        tasks.append(
            {
                "record": rec,
                "qid": str(qid) if qid not in (None, "") else str(i),
                "graph": str(graph),
                "question": rec["question"],
                "schema": rec["schema"],
            }
        )
    return tasks


# ----------------------------------------------------- NGDBench management predictions


def steps_of(text: str, n_steps: int) -> list[dict[str, Any]]:
    """The ``steps_cypher`` of a management reply's JSON text: step objects with string
    queries (others become null), at most ``n_steps``; ``[]`` when it is not a JSON list."""
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return []
    if not isinstance(value, list):
        return []
    out = []
    for step in value[:n_steps]:
        s = step if isinstance(step, dict) else {}
        out.append(
            {
                "operate_query": q if isinstance(q := s.get("operate_query"), str) else None,
                "valid_query": q if isinstance(q := s.get("valid_query"), str) else None,
            }
        )
    return out


#: The file ``kgbench predict --agent`` writes beside its predictions (formats.md §15).
TRAJECTORIES_FILE = "trajectories.jsonl"

#: The summary fields of a ``trajectories.jsonl`` line :func:`read_trajectories` keeps.
TRAJECTORY_FIELDS = (
    "qid",
    "sample",
    "ending",
    "answer",
    "turns",
    "tool_calls",
    "queries",
    "malformed_tool_calls",
    "refused_writes",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "error",
)


def trajectories_beside(predictions: str | Path) -> Path | None:
    """``trajectories.jsonl`` in the directory of the prediction file ``predictions``, or
    None when there is none, or when the ``run.json`` there has no ``agent`` (a one-shot
    run written over an earlier agent run's directory: that file is not its)."""
    directory = Path(predictions).parent
    path = directory / TRAJECTORIES_FILE
    if not path.is_file():
        return None
    try:
        run = json.loads((directory / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return path
    return path if not isinstance(run, dict) or "agent" in run else None


def read_trajectories(path: str | Path, *, steps: bool = False) -> list[dict[str, Any]]:
    """The conversations of an agent run's ``trajectories.jsonl`` (written by
    :mod:`kgbench.predict.agent`; formats.md §15), in file order: each line's
    :data:`TRAJECTORY_FIELDS` (``qid`` as a string, ``sample`` and ``turns`` as integers) and,
    with ``steps``, its ``steps`` list (the turns with their tool calls). ``messages`` is
    never kept (it repeats the steps and is the bulk of the file).

    Raises:
        InputError: an unreadable file, a line that is not a JSON object, or a line without
            ``qid``, an integer ``turns`` or a string ``ending`` (names the file and line)."""
    out: list[dict[str, Any]] = []
    for where, rec in read_records(path):
        turns, ending = rec.get("turns"), rec.get("ending")
        if "qid" not in rec or not isinstance(turns, int) or not isinstance(ending, str):
            raise InputError(
                f"{where}: not a trajectory line of kgbench predict --agent (needs qid, an "
                "integer turns and a string ending)"
            )
        item = {k: rec.get(k) for k in TRAJECTORY_FIELDS}
        item["qid"] = str(rec["qid"])
        item["sample"] = int(rec.get("sample") or 0)
        if steps:
            got = rec.get("steps")
            item["steps"] = got if isinstance(got, list) else []
        out.append(item)
    return out
