"""The ``spider4sparql`` family of ``kgbench predict``: Spider4SPARQL's zero-shot run.

The published GPT-3.5 zero-shot run (repository ckosten/Spider4SPARQL, Apache-2.0,
``GPT-3.5/zero_shot_prediction_dev_complete.json``) records each prompt it sent. They all read
``" Translate the following question into SPARQL: <question>  The prefix for the queries is:
PREFIX : <http://valuenet/ontop/>\\".  Use the following ontology:<ontology> "`` where
``<ontology>`` is Python's ``str()`` of the ontology dict ``{'classes', 'object_properties',
'data_properties'}`` (the dict ``kgbench rdb`` writes as ``<db>.ontology.json``). The template
ships as ``prompts/spider4sparql_zero_shot.txt``; :func:`ontology_text` renders the dict;
one user message, temperature 0, no stop sequence.

Replies become ``predicted_sparql`` as they are, cut at the first chat end token (a kgbench
addition; the published replies carry none): the evaluator adds the ``:`` prefix when missing,
as for the published file. Output ``predictions.json``: ``[{db_id, natural_language_question,
prompt, predicted_sparql}]`` in task order, the published format.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.predict.cypherbench import cut_end_tokens

#: Placeholders the family's prompt needs.
PLACEHOLDERS = ("question", "ontology")

#: Keys of the ontology dict, in the published order.
ONTOLOGY_KEYS = ("classes", "object_properties", "data_properties")


def ontology_text(ontology: Mapping[str, Any]) -> str:
    """Python's ``str()`` of the ontology dict, as the published prompts show it (keys in
    the file's order, strings quoted as Python's ``repr`` quotes them)."""
    return repr(dict(ontology))


def ontology_file(rdf_dir: str | Path, graph: str) -> Path | None:
    """``<graph>.ontology.json`` in ``rdf_dir`` or ``rdf_dir/<graph>/`` (a ``kgbench rdb``
    output directory); the graph's name is matched case-insensitively when no exact file
    exists (the published file writes ``cre_doc_template_mgt`` for ``cre_Doc_Template_Mgt``).
    None when there is none."""
    d = Path(rdf_dir)
    for p in (d / f"{graph}.ontology.json", d / graph / f"{graph}.ontology.json"):
        if p.is_file():
            return p
    if d.is_dir():
        low = graph.lower()
        for sub in sorted(d.iterdir()):
            if sub.name.lower() == f"{low}.ontology.json" and sub.is_file():
                return sub
            if sub.name.lower() == low and sub.is_dir():
                for p in sorted(sub.iterdir()):
                    if p.name.lower() == f"{low}.ontology.json":
                        return p
    return None


def load_ontologies(rdf_dir: str | Path, graphs: Sequence[str]) -> dict[str, str]:
    """Graph -> rendered ontology for every graph, before any model request.

    Raises:
        InputError: a graph without an ontology file (named, with where kgbench looked), or a
            file that is not a JSON object with the three lists."""
    out: dict[str, str] = {}
    for graph in graphs:
        path = ontology_file(rdf_dir, graph)
        if path is None:
            raise InputError(
                f"graph {graph!r} has no ontology in {rdf_dir} (looked for "
                f"{graph}.ontology.json and {graph}/{graph}.ontology.json; make it with "
                "`kgbench rdb`)"
            )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{path}: not a readable JSON file ({exc})") from exc
        if not isinstance(data, dict) or not all(
            isinstance(data.get(k), list) for k in ONTOLOGY_KEYS
        ):
            raise InputError(f"{path}: expected an object with lists {', '.join(ONTOLOGY_KEYS)}")
        out[graph] = ontology_text(data)
    return out


def read_tasks(path: str | Path) -> list[dict[str, Any]]:
    """Spider4SPARQL tasks: the published pairs ``{kg_name, question, query}``, kgbench's
    ``{qid, graph, nl_question, ...}`` records, or the published prediction records ``{db_id,
    natural_language_question, ...}``; each gets ``qid`` (its position unless given),
    ``graph`` and ``nl_question``.

    Raises:
        InputError: a record without a graph or a question (file and record named)."""
    from kgbench.tasks import read_records

    tasks = []
    for i, (where, rec) in enumerate(read_records(path)):
        graph = rec.get("graph") or rec.get("kg_name") or rec.get("db_id")
        question = rec.get("nl_question") or rec.get("question")
        question = question or rec.get("natural_language_question")
        if not isinstance(graph, str) or not graph:
            raise InputError(f"{where}: no graph (graph, kg_name or db_id)")
        if not isinstance(question, str):
            raise InputError(f"{where}: no question (nl_question, question)")
        tasks.append(
            {**rec, "qid": str(rec.get("qid", i)), "graph": graph, "nl_question": question}
        )
    return tasks


def postprocess(reply: str) -> str:
    """The reply cut at the first chat end token (otherwise unchanged)."""
    return cut_end_tokens(reply)
