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

from kgbench.predict.cypherbench import cut_end_tokens
from kgbench.tasks import read_text2cypher_tasks as read_tasks

#: Placeholders the family's prompt needs.
PLACEHOLDERS = ("schema", "question")


def postprocess(reply: str) -> str:
    """Neo4j's ``_postprocess_output_cypher`` after cutting at the first chat end token."""
    text, _, _ = cut_end_tokens(reply).partition("**Explanation:**")
    text = text.strip("`\n")
    text = text.lstrip("cypher\n")
    return text.strip("`\n ")


__all__ = ["PLACEHOLDERS", "postprocess", "read_tasks"]
