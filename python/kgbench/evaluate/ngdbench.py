"""``kgbench evaluate --family ngdbench``: scoring of NGDBench tasks (spec ngdbench.md §2, §5,
§7; seed ngdbench.txt §3.4, §4, Appendix C–D).

**Task files** (JSON array or JSON Lines; :func:`kgbench.tasks.read_records`). Each
record's family is detected from its shape (:func:`detect_family`):

* analytic ``{qid, family: "noagg"|"agg", template_id, query, parameters, answer,
  noise_answer, same_as_cleangraph, is_noise_query, nlp}`` (``clean_answer`` is accepted for
  ``answer``, the repo's name);
* Boolean ``{template_query, anti_template_query, contains_noise, clean_answer{valid_answer,
  invalid_answer}, noise_answer{…}, nlp}``: every row of ``valid_answer`` / ``invalid_answer``
  is a candidate (its ``judge`` field, true / false, is the label; the other fields, in order,
  are the candidate row);
* management: the task view ``{steps: [{step, operate_query, valid_query, answer, …}],
  operation?, difficulty?, initial_answer?}`` or the raw ``{template: {query: [op1..opK]},
  validation: [{query, answer, index}]}`` (index 0 = the initial state; step i pairs op i with
  validation i).

A task's id is its ``qid``, else its position in the file (0-based, as a string).

**Answers** are normalised as the repo's ``clean_normal_answer`` (:func:`clean_answer`): a node
→ its id, one row of one column → the scalar, one column → the list of values, several columns
→ rows. A NoAgg answer is a *set*: a scalar is a one-element set; a row of several columns is a
tuple (positional: the column names are ignored; a prediction may give it as a list of the
same length). Values follow the EX value model (``1 == 1.0``, lists inside a value unordered;
:mod:`kgbench.query.compare`).

**Predictions** (JSON array or JSON Lines), matched by ``qid`` or ``index``:

* analytic: ``{qid|index, answer}``;
* Boolean: ``{qid|index, answer}`` where ``answer`` is a list of verdicts (true / false /
  null), one per candidate in the order ``valid_answer`` then ``invalid_answer`` of the gold
  side; or the candidate rows each with its ``judge``; or the list of rows the prediction
  holds valid (every other candidate is judged false);
* management: ``{qid|index, steps: [answer_1..answer_K]}`` (values, or ``{answer}`` objects);
* management as Cypher: ``{qid|index, steps_cypher: [{operate_query, valid_query}, …]}`` (one
  object per step, step i first; ``pred_cypher`` holding such a list is read the same way).
  With the management runner (``disposable``: a
  :class:`kgbench.neo4j.disposable.DisposableNeo4j` loaded with the *clean* graph, ``kgbench
  evaluate --clean-graph``; spec §7: management runs on G*), the steps run in order in ONE
  transaction that is rolled back — op i, then validation i, whose rows (normalised as the
  gold: node → id, floats to 15 significant digits) are the step's answer. A step whose op or
  validation fails scores 0, and so do the later steps (not run); the database is left
  unchanged. Such writes never go to ``--uri`` (the guard
  :func:`kgbench.neo4j.disposable.require_disposable` refuses any other target before sending
  anything). Without the runner, or with a plain string ``pred_cypher``, the task is not
  scored and the reason is counted. Answer values (``steps``) take precedence over Cypher;
* ``{qid|index, pred_cypher}``: with a reader (``--uri``: the *noisy* graph), analytic and
  Boolean queries are run read-only (:class:`kgbench.neo4j.GraphReader`) and their
  rows become the answer (Boolean: the rows held valid); without one the task is not scored
  and the reason is counted.

**Metrics** (spec §5, reusing :mod:`kgbench.evaluate.metrics`):

* NoAgg: Jaccard and F1 per task (set semantics), averaged over tasks. A missing prediction, or
  a query that fails, is the empty set (score 0).
* Agg: the gold must be one number (else the task is not scored); MdRE = the median of
  ``|ŷ−y|/|y|`` (ε = 1e-6 for y = 0), MSLE and sMAPE (a fraction in [0, 2]) are means over the
  tasks whose prediction is a number. A missing or non-numeric prediction is *unanswered*:
  left out of the three numbers and counted (``unanswered``, ``answered_rate``). MdRE above
  10⁴ prints as "—" (seed Table 4); the JSON keeps the number.
* Boolean: accuracy over all candidates of all tasks (pooled); a missing verdict is wrong.
* Management: L_step = exact match per step (EX value model), averaged per batch, then over
  batches; a missing step answer is wrong. MLRE (ε = 1e-6), MSLE and sMAPE are means over all
  steps (pooled across batches) whose gold *and* predicted answers are numbers; a step with a
  non-numeric gold counts only in L_step; a numeric gold with a missing or non-numeric
  prediction is counted as ``numeric_unanswered``.

Gold: analytic tasks use ``answer`` (the clean graph G*) by default, ``gold="noisy"`` uses
``noise_answer``; Boolean tasks likewise use ``clean_answer`` or ``noise_answer``.

**Oracle row** (seed Table 4 "Oracle Cypher"): the gold query on the noisy graph, i.e.
``noise_answer`` scored as a prediction against ``answer``, for NoAgg and Agg — from the task
file alone. Boolean has no oracle: the noisy side holds a different sample of ≤ 20 candidates,
not verdicts on the gold candidates; management runs on G* (spec §7), so none there either.

**Splits**: analytic results by ``same_as_cleangraph`` (true / false / all; seed Tables 7–8);
a record without the field gets it computed as multiset equality of ``answer`` and
``noise_answer`` (after normalisation).

Outputs: ``result_with_metrics.json`` (every task record with ``id``, ``family``,
``prediction``, ``metrics``, ``oracle_metrics``, ``status``: ``scored`` / ``not_scored``,
``reason``, ``error``, ``uninformative``: ``null`` or why the gold answer cannot tell a right
prediction from many wrong ones — the rules of :func:`kgbench.evaluate.uninformative_reason` on
the gold answer as rows (an analytic answer's elements; a Boolean task's candidate verdicts);
always ``null`` for management batches; a management batch scored from Cypher also has
``steps_cypher`` and
``prediction_run``: per step ``{step, status: ok|failed|not_run, counters, failed_in,
error_class, error}``) and ``aggregated_metrics.json`` ``{gold, overall{noagg, agg, boolean,
management}, informative{overall{noagg, agg, boolean, management}, tasks, uninformative,
by_reason}, by_same_as_cleangraph{true, false, all}, management_by_operation, oracle{noagg,
agg, by_same_as_cleangraph}, counts{tasks, by_family, scored, not_scored, not_scored_reasons,
predictions}}``; with sampled predictions (``kgbench evaluate --samples K``)
:func:`kgbench.evaluate.passk.ngdbench_pass_at_k` adds ``pass@k`` to the scored records'
metrics and the ``overall`` family blocks, and ``pass_at_k {samples, tasks, overall}``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from kgbench.errors import InputError
from kgbench.evaluate.outputs import Evaluation
from kgbench.query.ngdbench_answer import (  # answer_from_rows, clean_answer: re-exported
    answer_from_rows,
    clean_answer,
)
from kgbench.query.ngdbench_answer import cell as _cell
from kgbench.query.ngdbench_answer import neo4j_value as _neo4j_value

__all__ = [
    "FAMILIES",
    "MDRE_DASH_ABOVE",
    "NgdbenchEvaluation",
    "agg_metrics",
    "answer_from_rows",
    "boolean_candidates",
    "clean_answer",
    "detect_family",
    "evaluate_ngdbench",
    "load_ngdbench_tasks",
    "management_metrics",
    "noagg_scores",
    "to_number",
]

#: The task families, in report order.
FAMILIES = ("noagg", "agg", "boolean", "management")
#: MdRE values above this print as "—" (seed Table 4 caption).
MDRE_DASH_ABOVE = 1e4

Gold = Literal["clean", "noisy"]


# --------------------------------------------------------------------------- answers


def _is_row(v: Any) -> bool:
    return isinstance(v, dict) and len(v) >= 2


def _tuple_of(values: Sequence[Any]) -> dict[str, Any]:
    """A positional tuple in the EX value model (maps compare by key, lists unordered)."""
    return {str(i): v for i, v in enumerate(values)}


def _answer_set(answer: Any, row_width: int | None) -> list[Any]:
    """The elements of a cleaned answer as set members: rows → positional tuples; with
    ``row_width`` (the gold's rows), a list of that length is a row too."""
    items = answer if isinstance(answer, list) else [answer]
    out = []
    for e in items:
        if _is_row(e):
            out.append(_tuple_of(list(e.values())))
        elif row_width is not None and isinstance(e, list) and len(e) == row_width:
            out.append(_tuple_of(e))
        else:
            out.append(e)
    return out


def _row_width(answer: Any) -> int | None:
    if isinstance(answer, list):
        for e in answer:
            if _is_row(e):
                return len(e)
    return None


def _gold_result_rows(answer: Any) -> list[list[Any]]:
    """A cleaned gold answer as the rows of a result table, for
    :func:`kgbench.evaluate.uninformative_reason`: a list is one row per element (a row
    object gives its values), anything else is one row of one cell."""
    items = answer if isinstance(answer, list) else [answer]
    return [list(e.values()) if _is_row(e) else [e] for e in items]


def noagg_scores(gold: Any, pred: Any) -> dict[str, float]:
    """Jaccard, F1, precision and recall of two (cleaned) NoAgg answers as sets (seed App.
    C.1 eqs. 5–7; spec §5): a scalar is a one-element set, a multi-column row a positional
    tuple. Raises ``TypeError`` for values outside the EX value model."""
    from kgbench.evaluate.metrics import answer_set_scores

    width = _row_width(gold)
    s = answer_set_scores(_answer_set(gold, width), _answer_set(pred, width))
    return {"jaccard": s.jaccard, "f1": s.f1, "precision": s.precision, "recall": s.recall}


def to_number(value: Any) -> float | None:
    """A cleaned answer as one finite number, else None: int / float (not bool), a
    one-element list of one, or a numeric string (``" 5 "``, ``"1e3"``)."""
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        x = float(value)
    elif isinstance(value, str):
        try:
            x = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return x if math.isfinite(x) else None


def agg_metrics(y: Sequence[float], yhat: Sequence[float]) -> dict[str, float | None]:
    """MdRE, MSLE, sMAPE of paired numbers (seed App. C.3 eqs. 9–11; spec §5); all None for
    no pairs."""
    from kgbench.evaluate.metrics import mdre, msle, smape

    if not y:
        return {"mdre": None, "msle": None, "smape": None}
    return {"mdre": mdre(y, yhat), "msle": msle(y, yhat), "smape": smape(y, yhat)}


# --------------------------------------------------------------------------- tasks


def detect_family(where: str, record: Mapping[str, Any]) -> str:
    """The family of one task record: ``noagg`` / ``agg`` (analytic, from its ``family``
    field), ``boolean`` (``template_query`` and a ``clean_answer`` with ``valid_answer`` /
    ``invalid_answer``) or ``management`` (``steps``, or the raw ``template`` + ``validation``).

    Raises:
        InputError: a record matching no family, or an analytic record whose ``family`` is not
            ``noagg`` / ``agg``; the message names the record (``where``)."""
    if isinstance(record.get("steps"), list) or (
        isinstance(record.get("template"), dict) and isinstance(record.get("validation"), list)
    ):
        return "management"
    clean = record.get("clean_answer")
    if (
        "template_query" in record
        and isinstance(clean, dict)
        and ("valid_answer" in clean or "invalid_answer" in clean)
    ):
        return "boolean"
    fam = record.get("family")
    if fam is not None:
        if fam in ("noagg", "agg"):
            if "answer" not in record and "clean_answer" not in record:
                raise InputError(f"{where}: analytic task without 'answer'")
            return str(fam)
        raise InputError(
            f"{where}: unknown task family {fam!r} (analytic tasks have family 'noagg' or 'agg')"
        )
    raise InputError(
        f"{where}: not an NGDBench task: expected an analytic task {{qid, family, query, "
        "answer, noise_answer, …}, a Boolean task {template_query, anti_template_query, "
        "clean_answer{valid_answer, invalid_answer}, …} or a management batch {steps: […]} "
        f"(keys: {', '.join(sorted(record)) or 'none'})"
    )


def _management_view(where: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """The task view of a management record (raw records converted, spec §2)."""
    out = dict(record)
    if isinstance(record.get("steps"), list):
        steps = []
        for i, s in enumerate(record["steps"]):
            if not isinstance(s, dict) or "answer" not in s:
                raise InputError(f"{where}: steps[{i}] must be an object with 'answer'")
            steps.append(s)
        out["steps"] = steps
        return out
    ops = record["template"].get("query")
    if isinstance(ops, str):
        ops = [ops]
    if not isinstance(ops, list):
        raise InputError(f"{where}: template.query must be a list of write queries")
    by_index: dict[int, Mapping[str, Any]] = {}
    for j, v in enumerate(record["validation"]):
        if not isinstance(v, dict):
            raise InputError(f"{where}: validation[{j}] must be an object")
        by_index[int(v.get("index", j))] = v
    steps = []
    for i, op in enumerate(ops, start=1):
        v = by_index.get(i)
        if v is None:
            raise InputError(f"{where}: no validation with index {i} for write {i}")
        steps.append(
            {
                "step": i,
                "operate_query": op,
                "valid_query": v.get("query"),
                "answer": clean_answer(v.get("answer")),
            }
        )
    out["steps"] = steps
    if 0 in by_index and "initial_answer" not in out:
        out["initial_answer"] = clean_answer(by_index[0].get("answer"))
    return out


def _same(where: str, record: Mapping[str, Any]) -> bool | None:
    same = record.get("same_as_cleangraph")
    if same is None:
        if "noise_answer" not in record:
            return None
        from kgbench.query.compare import values_equal

        gold = record.get("answer", record.get("clean_answer"))
        try:
            return values_equal(clean_answer(gold), clean_answer(record["noise_answer"]))
        except TypeError as exc:
            raise InputError(f"{where}: answer outside the value model: {exc}") from exc
    if not isinstance(same, bool):
        raise InputError(f"{where}: same_as_cleangraph must be true or false, got {same!r}")
    return same


def load_ngdbench_tasks(path: str | Path) -> list[dict[str, Any]]:
    """Read an NGDBench task file (module docstring). Each returned task is the record plus
    ``id`` (``qid`` or position), ``family``, ``where`` and, for analytic tasks,
    ``same_as_cleangraph`` (computed when absent); management records are in the task view.

    Raises:
        InputError: unreadable file, a record of no known family (:func:`detect_family`),
            a malformed management record, or a duplicate id (the messages name the record).
    """
    from kgbench.tasks import read_records

    tasks = []
    seen: dict[str, str] = {}
    for i, (where, rec) in enumerate(read_records(path)):
        qid = rec.get("qid", i)
        if isinstance(qid, bool) or not isinstance(qid, (str, int)):
            raise InputError(f"{where}: field 'qid' must be a string or integer, got {qid!r}")
        tid = str(qid)
        if tid in seen:
            raise InputError(f"{where}: duplicate task id {tid!r} (first at {seen[tid]})")
        seen[tid] = where
        family = detect_family(f"{where} (id {tid})", rec)
        task = _management_view(where, rec) if family == "management" else dict(rec)
        if family in ("noagg", "agg"):
            task["same_as_cleangraph"] = _same(where, rec)
        task["id"], task["family"], task["where"] = tid, family, where
        tasks.append(task)
    return tasks


def _load_predictions(
    path: str | Path, tasks: Sequence[Mapping[str, Any]]
) -> dict[str, tuple[str, dict[str, Any]]]:
    """id → (where, prediction record). Raises InputError for a record without ``qid`` /
    ``index``, an unknown id, a duplicate, or a record with neither an answer nor a query."""
    from kgbench.tasks import read_records

    ids = {t["id"] for t in tasks}
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for where, rec in read_records(path):
        key = rec.get("qid", rec.get("index"))
        if isinstance(key, bool) or not isinstance(key, (str, int)):
            raise InputError(f"{where}: a prediction needs 'qid' (or 'index'), got {key!r}")
        pid = str(key)
        if pid not in ids:
            raise InputError(f"{where}: prediction for unknown task id {pid!r}")
        if pid in out:
            raise InputError(
                f"{where}: duplicate prediction for task id {pid!r} (first at {out[pid][0]})"
            )
        if not any(k in rec for k in ("answer", "steps", "pred_cypher", "steps_cypher")):
            raise InputError(
                f"{where} (id {pid}): a prediction needs 'answer', 'steps', 'pred_cypher' or "
                "'steps_cypher'"
            )
        out[pid] = (where, rec)
    return out


# --------------------------------------------------------------------------- Boolean


def _candidate_key(row: Any) -> bytes:
    from kgbench.query.compare import canonical_key

    if isinstance(row, dict):
        vals = [_cell(v) for k, v in row.items() if k != "judge"]
    elif isinstance(row, list):
        vals = [_cell(v) for v in row]
    else:
        vals = [_cell(row)]
    return canonical_key(_tuple_of(vals))


def boolean_candidates(task: Mapping[str, Any], gold: Gold = "clean") -> list[tuple[Any, bool]]:
    """The candidates of a Boolean task with their labels: ``valid_answer`` rows (true) then
    ``invalid_answer`` rows (false) of ``clean_answer`` (``gold="noisy"``: ``noise_answer``).
    Raises ``InputError`` for a malformed side."""
    side = task.get("clean_answer" if gold == "clean" else "noise_answer")
    if not isinstance(side, dict):
        raise InputError(f"{task.get('where', '?')}: Boolean task without a {gold} answer")
    out = []
    for name, label in (("valid_answer", True), ("invalid_answer", False)):
        rows = side.get(name) or []
        if not isinstance(rows, list):
            raise InputError(f"{task.get('where', '?')}: {name} must be a list")
        for r in rows:
            judge = r.get("judge", label) if isinstance(r, dict) else label
            out.append((r, bool(judge)))
    return out


def _boolean_verdicts(
    where: str, candidates: Sequence[tuple[Any, bool]], answer: Any
) -> list[bool | None]:
    """The predicted verdict of every candidate (module docstring, three forms)."""
    if not isinstance(answer, list):
        raise InputError(f"{where}: a Boolean answer must be a list, got {type(answer).__name__}")
    if answer and all(a is None or isinstance(a, bool) for a in answer):
        if len(answer) != len(candidates):
            raise InputError(
                f"{where}: {len(answer)} verdicts for {len(candidates)} candidates "
                "(valid_answer then invalid_answer)"
            )
        return list(answer)
    try:
        if answer and all(isinstance(a, dict) and "judge" in a for a in answer):
            judged: dict[bytes, bool | None] = {}
            for a in answer:
                j = a["judge"]
                judged[_candidate_key(a)] = j if isinstance(j, bool) else None
            return [judged.get(_candidate_key(c)) for c, _ in candidates]
        positive = {_candidate_key(a) for a in answer}
        return [_candidate_key(c) in positive for c, _ in candidates]
    except TypeError as exc:
        raise InputError(f"{where}: Boolean answer outside the value model: {exc}") from exc


# --------------------------------------------------------------------------- management


def management_metrics(gold_steps: Sequence[Any], pred_steps: Sequence[Any]) -> dict[str, Any]:
    """One batch: ``l_step`` (seed eq. 4; a missing step answer — ``None`` or absent — is
    wrong) and its numeric step pairs ``numeric_pairs`` [(y, ŷ)] (gold and prediction both
    numbers), ``numeric_unanswered`` (numeric gold, no numeric prediction)."""
    from kgbench.query.compare import values_equal

    n = len(gold_steps)
    preds = list(pred_steps) + [None] * (n - len(pred_steps))
    correct = 0
    pairs: list[tuple[float, float]] = []
    unanswered = 0
    for g, p in zip(gold_steps, preds, strict=True):
        g, p = clean_answer(g), clean_answer(p)
        if p is not None and values_equal(g, p):
            correct += 1
        y = to_number(g)
        if y is None:
            continue
        yhat = to_number(p)
        if yhat is None:
            unanswered += 1
        else:
            pairs.append((y, yhat))
    return {
        "l_step": correct / n if n else None,
        "steps_correct": correct,
        "numeric_pairs": pairs,
        "numeric_unanswered": unanswered,
    }


# --------------------------------------------------------------------------- evaluation


@dataclass
class NgdbenchEvaluation(Evaluation):
    """Scored task records and the aggregated metrics (module docstring)."""

    family: str = field(default="ngdbench", kw_only=True)
    TURN_METRIC: ClassVar[str | None] = None

    def table(self) -> str:
        """The aggregated metrics as a printable table (MdRE above 10⁴ as "—")."""
        agg = self.aggregated
        counts = agg["counts"]
        lines = [
            f"NGDBench (gold: {agg['gold']} graph): {counts['tasks']} tasks, "
            f"{counts['scored']} scored, {counts['not_scored']} not scored"
        ]
        split = agg["by_same_as_cleangraph"]
        oracle = agg["oracle"]
        rows = [
            ("all", agg["overall"]),
            ("same_as_clean=true", split["true"]),
            ("same_as_clean=false", split["false"]),
        ]
        orows = [
            ("oracle (gold on G~)", oracle),
            ("oracle, same=true", oracle["by_same_as_cleangraph"]["true"]),
            ("oracle, same=false", oracle["by_same_as_cleangraph"]["false"]),
        ]
        lines.append(f"NoAgg  {'':<22} {'n':>6} {'Jaccard':>8} {'F1':>8}")
        for name, block in (*rows, *orows):
            m = block["noagg"]
            lines.append(f"  {name:<27} {m['n']:>6d} {_f(m['jaccard'])} {_f(m['f1'])}")
        lines.append(f"Agg    {'':<22} {'n':>6} {'MdRE':>8} {'MSLE':>8} {'sMAPE':>8}")
        for name, block in (*rows, *orows):
            m = block["agg"]
            lines.append(
                f"  {name:<27} {m['n']:>6d} {_f(m['mdre'], dash=True)} {_f(m['msle'])} "
                f"{_f(m['smape'])}"
                + (f"   ({m['unanswered']} unanswered)" if m.get("unanswered") else "")
            )
        b = agg["overall"]["boolean"]
        lines.append(f"Boolean {'':<21} {'tasks':>6} {'cands':>8} {'Acc':>8}")
        lines.append(f"  {'all':<27} {b['n']:>6d} {b['candidates']:>8d} {_f(b['accuracy'])}")
        m = agg["overall"]["management"]
        lines.append(
            f"Management {'':<18} {'batches':>6} {'L_step':>8} {'MLRE':>8} {'MSLE':>8} {'sMAPE':>8}"
        )
        lines.append(
            f"  {'all':<27} {m['n']:>6d} {_f(m['l_step'])} {_f(m['mlre'])} {_f(m['msle'])} "
            f"{_f(m['smape'])}"
        )
        inf = agg.get("informative")
        if inf and inf["uninformative"]:
            reasons = ", ".join(f"{k} {n}" for k, n in inf["by_reason"].items())
            o = inf["overall"]
            lines.append(
                f"informative tasks ({inf['tasks']}; {inf['uninformative']} uninformative gold "
                f"answers left out: {reasons})"
            )
            lines.append(
                f"  {'NoAgg':<27} {o['noagg']['n']:>6d} {_f(o['noagg']['jaccard'])} "
                f"{_f(o['noagg']['f1'])}"
            )
            lines.append(
                f"  {'Agg':<27} {o['agg']['n']:>6d} {_f(o['agg']['mdre'], dash=True)} "
                f"{_f(o['agg']['msle'])} {_f(o['agg']['smape'])}"
            )
            ob = o["boolean"]
            lines.append(
                f"  {'Boolean':<27} {ob['n']:>6d} {ob['candidates']:>8d} {_f(ob['accuracy'])}"
            )
        passk = agg.get("pass_at_k")
        if passk:
            lines.append(f"pass@k ({passk['tasks']} scored tasks, {passk['samples']} samples)")
            for name, value in passk["overall"].items():
                by = "  ".join(
                    f"{f} {_f(b.get(name)).strip()}"
                    for f, b in agg["overall"].items()
                    if isinstance(b, dict) and b.get(name) is not None
                )
                lines.append(f"  {name:<27} {_f(value)}   {by}")
        if counts["not_scored_reasons"]:
            lines.append("not scored")
            for reason, n in counts["not_scored_reasons"].items():
                lines.append(f"  {n:>6d}  {reason}")
        return "\n".join(lines)


def _f(x: float | None, *, dash: bool = False) -> str:
    if x is None:
        return f"{'n/a':>8}"
    if dash and x > MDRE_DASH_ABOVE:
        return f"{'—':>8}"
    return f"{x:>8.4f}"


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _noagg_block(recs: Sequence[Mapping[str, Any]], key: str) -> dict[str, Any]:
    ms = [r[key] for r in recs if r.get(key)]
    return {
        "n": len(ms),
        "jaccard": _mean([m["jaccard"] for m in ms]),
        "f1": _mean([m["f1"] for m in ms]),
    }


def _agg_block(recs: Sequence[Mapping[str, Any]], key: str) -> dict[str, Any]:
    ms = [r[key] for r in recs if r.get(key)]
    answered = [m for m in ms if m.get("y_pred") is not None]
    ys = [m["y"] for m in answered]
    yhats = [m["y_pred"] for m in answered]
    return {
        "n": len(answered),
        **agg_metrics(ys, yhats),
        "unanswered": len(ms) - len(answered),
        "answered_rate": len(answered) / len(ms) if ms else None,
    }


def _management_block(recs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    from kgbench.evaluate.metrics import mlre, msle, smape

    ms = [r["metrics"] for r in recs]
    pairs = [tuple(p) for m in ms for p in m["numeric_pairs"]]
    y = [p[0] for p in pairs]
    yhat = [p[1] for p in pairs]
    return {
        "n": len(ms),
        "steps": sum(m["steps"] for m in ms),
        "l_step": _mean([m["l_step"] for m in ms if m["l_step"] is not None]),
        "numeric_steps": len(pairs),
        "numeric_unanswered": sum(m["numeric_unanswered"] for m in ms),
        "mlre": mlre(y, yhat) if pairs else None,
        "msle": msle(y, yhat) if pairs else None,
        "smape": smape(y, yhat) if pairs else None,
    }


def _boolean_block(recs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    ms = [r["metrics"] for r in recs]
    cands = sum(m["candidates"] for m in ms)
    return {
        "n": len(ms),
        "candidates": cands,
        "correct": sum(m["correct"] for m in ms),
        "accuracy": sum(m["correct"] for m in ms) / cands if cands else None,
    }


def _family_blocks(recs: Sequence[Mapping[str, Any]], key: str = "metrics") -> dict[str, Any]:
    scored = [r for r in recs if r["status"] == "scored"] if key == "metrics" else list(recs)
    by = {f: [r for r in scored if r["family"] == f] for f in FAMILIES}
    out: dict[str, Any] = {
        "noagg": _noagg_block(by["noagg"], key),
        "agg": _agg_block(by["agg"], key),
    }
    if key == "metrics":
        out["boolean"] = _boolean_block(by["boolean"])
        out["management"] = _management_block(by["management"])
    return out


def _split(recs: Sequence[Mapping[str, Any]], key: str) -> dict[str, Any]:
    analytic = [r for r in recs if r["family"] in ("noagg", "agg")]
    out = {}
    for name, value in (("true", True), ("false", False)):
        part = [r for r in analytic if r.get("same_as_cleangraph") is value]
        blocks = _family_blocks(part, key)
        out[name] = {"noagg": blocks["noagg"], "agg": blocks["agg"]}
    blocks = _family_blocks(analytic, key)
    out["all"] = {"noagg": blocks["noagg"], "agg": blocks["agg"]}
    return out


def _analytic_metrics(family: str, gold: Any, pred: Any, answered: bool) -> dict[str, Any]:
    if family == "noagg":
        if not answered:
            return {"jaccard": 0.0, "f1": 0.0, "precision": 0.0, "recall": 0.0}
        return noagg_scores(gold, pred)
    y = to_number(gold)
    assert y is not None
    yhat = to_number(pred) if answered else None
    m: dict[str, Any] = {"y": y, "y_pred": yhat}
    if yhat is not None:
        m.update(agg_metrics([y], [yhat]))
        m["relative_error"] = m.pop("mdre")
    return m


def evaluate_ngdbench(
    tasks: str | Path,
    predictions: str | Path | None = None,
    *,
    gold: Gold = "clean",
    reader: Any = None,
    timeout_s: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    disposable: Any = None,
) -> NgdbenchEvaluation:
    """Score the predictions of an NGDBench task file (module docstring).

    Args:
        tasks: the task file (JSON array or JSON Lines).
        predictions: the prediction file, or None to compute only the oracle row (every task
            is then counted as not scored: "no prediction file").
        gold: ``"clean"`` (``answer``, default) or ``"noisy"`` (``noise_answer``).
        reader: a :class:`kgbench.neo4j.GraphReader` on the *noisy* graph, used
            to run ``pred_cypher`` predictions of analytic and Boolean tasks (read-only).
        timeout_s: per-query timeout for ``reader`` (None: the reader's default), and the
            timeout of one management batch transaction on ``disposable`` (None: 60 s).
        progress: called with (done, total) after each task.
        disposable: the management runner, a running
            :class:`kgbench.neo4j.disposable.DisposableNeo4j` loaded with the clean graph,
            used to run ``steps_cypher`` predictions of management batches (each in one
            rolled-back transaction); None: those tasks are not scored.

    Returns:
        An :class:`NgdbenchEvaluation`.

    Raises:
        InputError: malformed task or prediction files (the message names the record: unknown
            family, prediction for an unknown id, duplicate ids, a Boolean verdict list of the
            wrong length, a management prediction with more steps than the batch or a
            malformed ``steps_cypher``), answers outside the value model, or a bad ``gold``.
        kgbench.neo4j.disposable.WriteRefusedError: ``disposable`` is not a disposable
            database this process created (raised before anything is sent).
    """
    if gold not in ("clean", "noisy"):
        raise InputError(f"gold must be 'clean' or 'noisy', not {gold!r}")
    if disposable is not None:
        from kgbench.neo4j.disposable import require_disposable

        require_disposable(disposable)
    items = load_ngdbench_tasks(tasks)
    preds = _load_predictions(predictions, items) if predictions is not None else None
    records: list[dict[str, Any]] = []
    for done, task in enumerate(items, start=1):
        records.append(_score_task(task, preds, gold, reader, timeout_s, disposable))
        if progress is not None:
            progress(done, len(items))
    return NgdbenchEvaluation(records, _aggregate(records, gold, preds is not None))


def _run_query(reader: Any, query: str, timeout_s: float | None) -> tuple[Any, str | None]:
    """(rows as {col: value} dicts, None) or (None, error class) for a predicted query."""
    from kgbench.neo4j.executor import QueryFailed

    try:
        records = reader.run(query, timeout_s=timeout_s)
    except QueryFailed as exc:
        return None, exc.error_class
    return [
        {k: _neo4j_value(v) for k, v in zip(r.keys(), r.values(), strict=True)} for r in records
    ], None


def _score_task(
    task: dict[str, Any],
    preds: Mapping[str, tuple[str, dict[str, Any]]] | None,
    gold: Gold,
    reader: Any,
    timeout_s: float | None,
    disposable: Any = None,
) -> dict[str, Any]:
    family = task["family"]
    where = task.pop("where")
    label = f"{where} (id {task['id']})"
    rec: dict[str, Any] = dict(task)
    rec.update(prediction=None, metrics=None, oracle_metrics=None, error=None)
    rec["status"], rec["reason"] = "not_scored", None
    rec["uninformative"] = None
    gold_answer: Any = None

    def not_scored(reason: str) -> dict[str, Any]:
        rec["reason"] = reason
        return rec

    if family in ("noagg", "agg"):
        clean_gold = clean_answer(task.get("answer", task.get("clean_answer")))
        has_noise = "noise_answer" in task
        noise = clean_answer(task.get("noise_answer")) if has_noise else None
        if family == "agg" and to_number(clean_gold) is None:
            return not_scored("agg gold is not a single number")
        try:
            if has_noise:
                rec["oracle_metrics"] = _analytic_metrics(family, clean_gold, noise, True)
        except TypeError as exc:
            raise InputError(f"{label}: answer outside the value model: {exc}") from exc
        if gold == "noisy":
            if not has_noise:
                return not_scored("no noise_answer (--gold noisy)")
            gold_answer = noise
            if family == "agg" and to_number(gold_answer) is None:
                return not_scored("agg noisy gold is not a single number")
        else:
            gold_answer = clean_gold
        rec["uninformative"] = _uninformative(_gold_result_rows(gold_answer))
    elif family == "boolean":
        judged = [[y] for _, y in boolean_candidates(task, gold)]
        rec["uninformative"] = _uninformative(judged)
    if preds is None:
        return not_scored("no prediction file")
    entry = preds.get(task["id"])
    pwhere, pred = entry if entry is not None else (label, {})
    answered = True
    answer: Any = None
    mgmt_answers: list[Any] | None = None
    if family == "management":
        if "steps" not in pred and "answer" not in pred:
            key = next((k for k in ("steps_cypher", "pred_cypher") if k in pred), None)
            if key is None:
                answered = False
            elif disposable is None:
                return not_scored(f"needs the management runner ({key} of a management batch)")
            elif key == "pred_cypher" and isinstance(pred[key], str):
                return not_scored(
                    "a management pred_cypher must be a list of {operate_query, valid_query} steps"
                )
            else:
                steps_cy = _steps_cypher(pwhere, key, pred[key], len(task["steps"]))
                mgmt_answers, run_steps = _run_management(disposable, steps_cy, timeout_s)
                rec["steps_cypher"] = steps_cy
                rec["prediction_run"] = run_steps
                rec["error"] = next(
                    (s["error_class"] for s in run_steps if s["status"] == "failed"), None
                )
    elif "answer" in pred:
        answer = pred["answer"]
    elif "pred_cypher" in pred:
        query = pred["pred_cypher"]
        if reader is None:
            return not_scored("pred_cypher needs --uri (the noisy graph)")
        if not isinstance(query, str) or not query.strip():
            answered, rec["error"] = False, "missing"
        else:
            rows, err = _run_query(reader, query, timeout_s)
            rec["error"] = err
            if err is not None:
                answered = False
            elif family == "boolean":
                answer = rows
            else:
                answer = clean_answer(rows)
        rec["pred_cypher"] = query
    else:
        answered = False
    if entry is None:
        rec["error"] = "missing"
    rec["status"] = "scored"
    try:
        if family in ("noagg", "agg"):
            answer = clean_answer(answer) if answered else None
            rec["prediction"] = answer
            rec["metrics"] = _analytic_metrics(family, gold_answer, answer, answered)
        elif family == "boolean":
            cands = boolean_candidates(task, gold)
            verdicts = _boolean_verdicts(pwhere, cands, answer) if answered else [None] * len(cands)
            rec["prediction"] = verdicts
            correct = sum(1 for (_, y), v in zip(cands, verdicts, strict=True) if v is y)
            rec["metrics"] = {
                "candidates": len(cands),
                "correct": correct,
                "accuracy": correct / len(cands) if cands else None,
            }
        else:
            steps_pred: Any
            if mgmt_answers is not None:
                steps_pred = mgmt_answers
            else:
                steps_pred = pred.get("steps", pred.get("answer")) if answered else []
            if not isinstance(steps_pred, list):
                raise InputError(f"{pwhere}: 'steps' must be a list of step answers")
            steps_pred = [
                s.get("answer") if isinstance(s, dict) and "answer" in s else s for s in steps_pred
            ]
            gold_steps = [s["answer"] for s in task["steps"]]
            if len(steps_pred) > len(gold_steps):
                raise InputError(
                    f"{pwhere}: {len(steps_pred)} step answers for a batch of "
                    f"{len(gold_steps)} steps"
                )
            rec["prediction"] = steps_pred
            m = management_metrics(gold_steps, steps_pred)
            m["steps"] = len(gold_steps)
            m["numeric_pairs"] = [list(p) for p in m["numeric_pairs"]]
            rec["metrics"] = m
    except TypeError as exc:
        raise InputError(f"{pwhere}: answer outside the value model: {exc}") from exc
    return rec


def _uninformative(rows: list[list[Any]]) -> str | None:
    from kgbench.query.compare import uninformative_reason

    return uninformative_reason(rows)


def _steps_cypher(where: str, key: str, value: Any, n_steps: int) -> list[dict[str, Any]]:
    """The ``[{operate_query, valid_query}]`` steps of a management Cypher prediction (module
    docstring). A missing or non-string query is kept as ``None``: that step fails when run.

    Raises:
        InputError: not a list, a step that is not an object, or more steps than the batch
            (the message names the prediction record and the step)."""
    if not isinstance(value, list):
        raise InputError(
            f"{where}: '{key}' of a management batch must be a list of "
            "{operate_query, valid_query} objects, one per step"
        )
    if len(value) > n_steps:
        raise InputError(f"{where}: {len(value)} steps in '{key}' for a batch of {n_steps} steps")
    out = []
    for i, step in enumerate(value):
        if not isinstance(step, dict):
            raise InputError(
                f"{where}: {key}[{i}] must be an object {{operate_query, valid_query}}"
            )
        out.append(
            {
                "operate_query": q if isinstance(q := step.get("operate_query"), str) else None,
                "valid_query": q if isinstance(q := step.get("valid_query"), str) else None,
            }
        )
    return out


def _run_management(
    disposable: Any, steps: Sequence[Mapping[str, Any]], timeout_s: float | None
) -> tuple[list[Any], list[dict[str, Any]]]:
    """Run predicted steps in one rolled-back transaction on the disposable database
    (:func:`kgbench.neo4j.disposable.run_batch`, which refuses any other target first): the
    step answers (None for a failed or not-run step) and the per-step run records."""
    from kgbench.neo4j.disposable import DEFAULT_TIMEOUT_S, run_batch

    ops = [s["operate_query"] or "" for s in steps]
    valids = [s["valid_query"] or "" for s in steps]
    run = run_batch(
        disposable,
        ops,
        valids,
        timeout_s=timeout_s if timeout_s is not None else DEFAULT_TIMEOUT_S,
    )
    records = [
        {
            "step": s.step,
            "status": s.status,
            "counters": dict(s.counters),
            "failed_in": s.failed_in,
            "error_class": s.error_class,
            "error": s.error,
        }
        for s in run.steps
    ]
    return run.answers, records


def _aggregate(records: Sequence[dict[str, Any]], gold: Gold, have_preds: bool) -> dict[str, Any]:
    scored = [r for r in records if r["status"] == "scored"]
    reasons: dict[str, int] = {}
    for r in records:
        if r["status"] != "scored":
            reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    by_family = {f: sum(1 for r in records if r["family"] == f) for f in FAMILIES}
    with_oracle = [r for r in records if r["oracle_metrics"]]
    oracle = _family_blocks(with_oracle, "oracle_metrics")
    oracle_out: dict[str, Any] = {
        "noagg": oracle["noagg"],
        "agg": oracle["agg"],
        "boolean": None,
        "management": None,
        "by_same_as_cleangraph": {
            k: v for k, v in _split(with_oracle, "oracle_metrics").items() if k != "all"
        },
        "note": "gold query on the noisy graph: noise_answer scored against answer "
        "(seed Table 4 'Oracle Cypher'); none for Boolean and management tasks",
    }
    ops: dict[str, list[dict[str, Any]]] = {}
    for r in scored:
        if r["family"] == "management":
            ops.setdefault(str(r.get("operation") or "unknown"), []).append(r)
    split = _split(scored, "metrics")
    from kgbench.query.compare import UNINFORMATIVE_REASONS

    flagged = [r["uninformative"] for r in scored if r.get("uninformative")]
    informative = {
        "overall": _family_blocks([r for r in scored if not r.get("uninformative")]),
        "tasks": len(scored) - len(flagged),
        "uninformative": len(flagged),
        "by_reason": {k: flagged.count(k) for k in UNINFORMATIVE_REASONS if k in flagged},
    }
    return {
        "gold": gold,
        "overall": _family_blocks(records),
        "informative": informative,
        "by_same_as_cleangraph": split,
        "management_by_operation": {k: _management_block(v) for k, v in ops.items()},
        "oracle": oracle_out,
        "counts": {
            "tasks": len(records),
            "by_family": by_family,
            "scored": len(scored),
            "scored_by_family": {f: sum(1 for r in scored if r["family"] == f) for f in FAMILIES},
            "not_scored": len(records) - len(scored),
            "not_scored_reasons": reasons,
            "missing_predictions": sum(1 for r in scored if r["error"] == "missing"),
            "failed_queries": sum(
                1 for r in scored if r["error"] is not None and r["error"] != "missing"
            ),
            "predictions": have_preds,
        },
    }
