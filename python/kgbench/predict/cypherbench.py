"""The ``cypherbench`` family of ``kgbench predict``: CypherBench's zero-shot text-to-Cypher run.

Facts from CypherBench's baseline (``cypherbench/baseline/zero_shot_nl2cypher.py`` and
``cypherbench/schema.py``, repository megagonlabs/cypherbench, Apache-2.0):

- the prompt ``NL2CYPHER_PROMPT_DEFAULT`` (shipped as ``prompts/cypherbench_zero_shot.txt``)
  filled with ``{schema}`` and ``{question}`` (the task's ``nl_question``), sent as ONE user
  message at temperature 0 with the stop sequence ``"\\n```"``;
- the schema of a graph read from ``<graph>_schema.json`` through
  ``PropertyGraphSchema.from_json(data, add_meta_properties={'name': DataType.STR})``,
  ``.to_sorted()`` and ``.to_str(exclude_description=True)`` (:func:`schema_text`);
- the reply post-processed as ``r.replace('```cypher', '').replace('```', '').strip()``.

kgbench additions (documented in ``kgbench/docs/formats.md``): a reply is first cut at the
first chat end token (:data:`END_TOKENS`); a schema file whose entities already carry ``name``
(as ``kgbench schema`` writes them) gives the same text (CypherBench's ``dict(**meta,
**properties)`` would raise on it); a schema file without ``name`` takes the graph's name;
datatypes are written as given (CypherBench accepts only its ``DataType`` values).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kgbench.errors import InputError

#: The stop sequence of CypherBench's baseline (``llm.bind(stop='\\n```')``).
STOP = "\n```"

#: Chat end tokens cut from a reply (kgbench addition): ChatML, Gemma, Llama 3, Llama 2 /
#: Mistral.
END_TOKENS = ("<|im_end|>", "<end_of_turn>", "<|eot_id|>", "</s>")

#: Placeholders the family's prompt needs.
PLACEHOLDERS = ("schema", "question")


def cut_end_tokens(text: str) -> str:
    """``text`` up to the first chat end token of :data:`END_TOKENS` (all of it when none)."""
    cut = len(text)
    for token in END_TOKENS:
        i = text.find(token)
        if i != -1:
            cut = min(cut, i)
    return text[:cut]


def postprocess(reply: str) -> str:
    """CypherBench's post-processing of a reply (``'```cypher'`` and ``'```'`` removed, then
    stripped), after cutting at the first chat end token."""
    return cut_end_tokens(reply).replace("```cypher", "").replace("```", "").strip()


def _properties(where: str, value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: 'properties' must be an object of name -> datatype")
    for key, dtype in value.items():
        if not isinstance(dtype, str) or not dtype:
            raise InputError(f"{where}: property {key!r}: the datatype must be a string")
    return dict(value)


def schema_text(data: Mapping[str, Any], *, where: str, graph: str | None = None) -> str:
    """The schema text of CypherBench's prompt for the schema JSON ``data``.

    Equals CypherBench's ``PropertyGraphSchema.from_json(data, add_meta_properties={'name':
    'str'}).to_sorted().to_str(exclude_description=True)``: ``json.dumps`` with indent 2 (ASCII
    escapes) of ``{"name", "entities": [{"label", "properties"}], "relations": [{"label",
    "subj_label", "obj_label", "properties"}]}``, entities sorted by label, relations by
    (label, subj_label, obj_label), properties by name, every entity with ``name: "str"``;
    fields other than these are dropped (entity descriptions included). ``graph`` names the
    schema when ``data`` has no ``name``.

    Raises:
        InputError: a missing or malformed field (named, with ``where``)."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: a schema must be a JSON object")
    name = data.get("name", graph)
    if not isinstance(name, str):
        raise InputError(f"{where}: 'name' must be a string")
    entities, relations = data.get("entities"), data.get("relations")
    if not isinstance(entities, list) or not isinstance(relations, list):
        raise InputError(f"{where}: 'entities' and 'relations' must be lists")
    ents = []
    for i, e in enumerate(entities):
        at = f"{where}: entities[{i}]"
        if not isinstance(e, Mapping) or not isinstance(e.get("label"), str):
            raise InputError(f"{at}: an entity needs a string 'label'")
        props = _properties(at, e.get("properties", None))
        props.pop("name", None)
        ents.append({"label": e["label"], "properties": {"name": "str", **props}})
    rels = []
    for i, r in enumerate(relations):
        at = f"{where}: relations[{i}]"
        if not isinstance(r, Mapping) or not all(
            isinstance(r.get(k), str) for k in ("label", "subj_label", "obj_label")
        ):
            raise InputError(f"{at}: a relation needs string 'label', 'subj_label', 'obj_label'")
        rels.append(
            {
                "label": r["label"],
                "subj_label": r["subj_label"],
                "obj_label": r["obj_label"],
                "properties": _properties(at, r.get("properties", None)),
            }
        )
    ents.sort(key=lambda x: x["label"])
    rels.sort(key=lambda x: (x["label"], x["subj_label"], x["obj_label"]))
    for x in ents + rels:
        x["properties"] = dict(sorted(x["properties"].items()))
    return json.dumps({"name": name, "entities": ents, "relations": rels}, indent=2)


def schema_file(schema_dir: str | Path, graph: str) -> Path:
    """``schema_dir/<graph>_schema.json`` (CypherBench's layout)."""
    return Path(schema_dir) / f"{graph}_schema.json"


def load_schema_texts(
    graphs: Sequence[str],
    *,
    schema_dir: str | Path | None = None,
    targets: Mapping[str, Any] | None = None,
    fetch: Any = None,
) -> dict[str, str]:
    """Graph -> schema text for every graph of ``graphs``, before any model request.

    Each graph's schema comes from ``schema_dir/<graph>_schema.json`` when that file exists,
    else from the graph's server in ``targets`` (graph -> target; ``fetch(graph, target)``
    returns the schema JSON, as :func:`kgbench.neo4j.schema.fetch_schema` does).

    Raises:
        InputError: a graph with neither a schema file nor a server (named), or a bad schema
            file (file and field named)."""
    out: dict[str, str] = {}
    for graph in graphs:
        path = schema_file(schema_dir, graph) if schema_dir is not None else None
        if path is not None and path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError(f"{path}: cannot read: {exc}") from exc
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
            out[graph] = schema_text(data, where=str(path), graph=graph)
            continue
        target = (targets or {}).get(graph)
        if target is None or fetch is None:
            looked = f"no {path}" if path is not None else "no --schema-dir"
            raise InputError(
                f"graph {graph!r} has no schema ({looked}) and no server (--uri / --graph-uris)"
            )
        out[graph] = schema_text(fetch(graph, target), where=f"schema of {graph}", graph=graph)
    return out


def read_tasks(path: str | Path) -> list[dict[str, Any]]:
    """CypherBench task records (``Nl2CypherSample``, JSON array or JSON Lines) with at least
    ``qid``, ``graph`` and ``nl_question`` (or ``question``); kept as they are.

    Raises:
        InputError: a record lacking one of them (file and record named), duplicate qids."""
    from kgbench.tasks import read_records

    tasks: list[dict[str, Any]] = []
    seen: set[str] = set()
    for where, rec in read_records(path):
        qid = rec.get("qid")
        if isinstance(qid, bool) or not isinstance(qid, (str, int)):
            raise InputError(f"{where}: field 'qid' must be a string or integer")
        if str(qid) in seen:
            raise InputError(f"{where}: duplicate qid {qid!r}")
        seen.add(str(qid))
        if not isinstance(rec.get("graph"), str) or not rec["graph"]:
            raise InputError(f"{where} (qid {qid}): field 'graph' must be a non-empty string")
        question = rec.get("nl_question", rec.get("question"))
        if not isinstance(question, str):
            raise InputError(f"{where} (qid {qid}): field 'nl_question' must be a string")
        tasks.append(dict(rec))
    return tasks


def question_of(task: Mapping[str, Any]) -> str:
    """The task's question (``nl_question``, else ``question``)."""
    return str(task.get("nl_question", task.get("question")))
