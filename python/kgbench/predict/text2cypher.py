"""The ``text2cypher`` family of ``kgbench predict``: Neo4j's Text2Cypher (2024) records.

Records ``{question, schema, cypher, data_source, database_reference_alias, instance_id?}``
of the ``neo4j/text2cypher-2024v1`` dataset, read unchanged from CSV, Parquet, JSON or JSON
Lines (by the file's extension: ``.csv``, ``.parquet``, else JSON). Each record carries its own
schema text, so no graph or server is needed to build the prompt. The prompt is the
instruction of Neo4j's fine-tuned Text2Cypher (2024) models (model cards of
``neo4j/text2cypher-*-finetuned-2024v1``; shipped as ``prompts/text2cypher_neo4j_2024.txt``)
as ONE user message; replies are post-processed as those cards' ``_postprocess_output_cypher``
(cut before ``**Explanation:**``, the characters `````` ` `````` and newline stripped at both
ends, the characters of ``"cypher\\n"`` stripped at the start, then `````` ` ``````, newline
and space at both ends), after cutting at the first chat end token (kgbench's addition).

Output ``predictions.json``: the records as read with ``pred_cypher`` (and, with samples,
``pred_cypher_samples``), in input order.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.predict.cypherbench import cut_end_tokens

#: Placeholders the family's prompt needs.
PLACEHOLDERS = ("schema", "question")


def postprocess(reply: str) -> str:
    """Neo4j's ``_postprocess_output_cypher`` after cutting at the first chat end token."""
    text, _, _ = cut_end_tokens(reply).partition("**Explanation:**")
    text = text.strip("`\n")
    text = text.lstrip("cypher\n")
    return text.strip("`\n ")


def _rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
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
    from kgbench.tasks import read_records

    return read_records(path)


def read_tasks(path: str | Path) -> list[dict[str, Any]]:
    """Text2Cypher records with string ``question`` and ``schema``; ``qid`` is the record's
    ``instance_id`` when it has one, else its position; ``graph`` is
    ``database_reference_alias`` (or ``data_source``, or ``"text2cypher"``).

    Raises:
        InputError: an unreadable file or a record without ``question`` / ``schema``."""
    tasks = []
    for i, (where, rec) in enumerate(_rows(Path(path))):
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
