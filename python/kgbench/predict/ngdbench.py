"""The ``ngdbench`` family of ``kgbench predict``: NGDBench tasks → Cypher.

Tasks are NGDBench task files as ``kgbench evaluate --family ngdbench`` reads them
(:func:`kgbench.evaluate.ngdbench.load_ngdbench_tasks`; spec ``ngdbench.md`` §2): analytic
(``noagg`` / ``agg``) and Boolean tasks are asked for ONE Cypher query from their ``nlp``
question; a management batch is asked for one write query and one read query per step from
its steps' ``operate_nlp`` / ``valid_nlp`` (the step's Cypher when a step has no NL text).

**Prompt.** NGDBench's paper (seed ngdbench.txt) evaluates Text2Cypher LLMs but publishes no
prompt for them, so the default ``ngdbench_cypher`` is kgbench's own (``prompts/README.md``):
the graph's schema (CypherBench's schema text, from ``--schema-dir`` ``<graph>_schema.json`` or
fetched from the server of ``--uri`` / ``--graph-uris``, as the ``cypherbench`` family; the
graph of a task is its ``graph`` field, else ``ngdbench``) and ``{task}``, the task text
:func:`task_text` builds: the question and "answer with one Cypher query in a ```cypher code
block", or the numbered steps and "answer with a JSON list of ``{operate_query,
valid_query}``, one per step, in a ```json code block". Placeholders ``{schema}``, ``{task}``.

**Post-processing**: cut at the first chat end token; then analytic and Boolean replies as
CypherBench's (fences removed, stripped; :func:`kgbench.predict.cypherbench.postprocess`);
management replies: the first fenced block's body (or the whole reply) read as JSON, a list of
step objects, cut to the batch's number of steps; anything else is an empty list (no step run,
the batch scores 0).

Output ``predictions.json`` (read unchanged by ``kgbench evaluate --family ngdbench``):
``{qid, family, pred_cypher}`` for analytic and Boolean tasks, ``{qid, family,
steps_cypher: [{operate_query, valid_query}]}`` for management batches (``reply`` keeps the
post-processed management reply text), in task order; with samples, ``pred_cypher_samples``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kgbench.predict.cypherbench import cut_end_tokens
from kgbench.predict.cypherbench import postprocess as cypher_postprocess
from kgbench.tasks import steps_of

#: Placeholders the family's prompt needs.
PLACEHOLDERS = ("schema", "task")

#: The graph of a task without a ``graph`` field.
DEFAULT_GRAPH = "ngdbench"

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.S)


def prompt_task(task: Mapping[str, Any]) -> dict[str, Any]:
    """One NGDBench task as loaded by :func:`kgbench.evaluate.ngdbench.load_ngdbench_tasks`
    (``kgbench.families.ngdbench`` reads the file), with ``qid`` (the task id) and ``graph``
    (its ``graph`` field, else :data:`DEFAULT_GRAPH`) for the prompt."""
    return {**task, "qid": task["id"], "graph": str(task.get("graph") or DEFAULT_GRAPH)}


def _text(value: Any, fallback: Any) -> str:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, list) and value and isinstance(value[0], str):
        return str(value[0]).strip()
    return str(fallback or "").strip()


def task_text(task: Mapping[str, Any]) -> str:
    """The ``{task}`` placeholder of one task (module docstring)."""
    if task["family"] != "management":
        question = _text(task.get("nlp"), task.get("query") or task.get("template_query"))
        return (
            f"Question: {question}\n\n"
            "Answer with one Cypher query that returns the answer, in a ```cypher code block."
        )
    lines = [
        "Apply the following changes to the graph in order. After each change, check the "
        "graph with a read query.",
        "",
    ]
    for i, step in enumerate(task["steps"], start=1):
        lines.append(
            f"Step {i}. Change: {_text(step.get('operate_nlp'), step.get('operate_query'))}"
        )
        lines.append(f"        Check: {_text(step.get('valid_nlp'), step.get('valid_query'))}")
    lines += [
        "",
        "Answer with a JSON list holding one object per step, in order, each "
        '{"operate_query": "<the Cypher write query>", "valid_query": "<the Cypher read '
        'query>"}, in a ```json code block.',
    ]
    return "\n".join(lines)


def postprocess(reply: str) -> str:
    """Analytic and Boolean replies as CypherBench's after cutting at a chat end token; a
    management reply is post-processed by :func:`steps_of` when the record is built."""
    return cypher_postprocess(reply)


def management_postprocess(reply: str) -> str:
    """The JSON text of a management reply: the first fenced block's body, else the reply."""
    text = cut_end_tokens(reply)
    m = _FENCE.search(text)
    return (m.group(1) if m is not None else text).strip()


def record(task: Mapping[str, Any], samples: list[str]) -> dict[str, Any]:
    """The prediction record of one task (module docstring)."""
    rec: dict[str, Any] = {"qid": task["qid"], "family": task["family"]}
    first = samples[0] if samples else ""
    if task["family"] == "management":
        rec["reply"] = first
        rec["steps_cypher"] = steps_of(first, len(task["steps"]))
    else:
        rec["pred_cypher"] = first
    if len(samples) > 1:
        rec["pred_cypher_samples"] = list(samples)
    return rec
