"""kgbench.predict — model runs: tasks → prompts → an OpenAI-compatible model → predictions.

:func:`predict` (``kgbench predict``) runs a chat-completions model on the tasks of a benchmark
family (a :class:`PredictFamily`, from :func:`kgbench.families.get`;
``kgbench.families.predict`` takes the family's name) with the seed's own published prompt and
writes the family's prediction file, read unchanged by ``kgbench evaluate``, and ``run.json``
(model, prompt SHA-256, tokens, requests, retries, failures; formats:
``kgbench/docs/formats.md`` §15). Families:

- ``cypherbench`` (:mod:`kgbench.predict.cypherbench`): CypherBench's zero-shot baseline;
  ``result.json``.
- ``spider4sparql`` (:mod:`kgbench.predict.spider4sparql`): Spider4SPARQL's published
  GPT-3.5 zero-shot prompt; ``predictions.json``. :func:`replay_cache_from_published` turns
  the published prompts and replies into a replay cache, so ``--replay-only`` reproduces that
  run offline.
- ``text2cypher`` (:mod:`kgbench.predict.text2cypher`): Neo4j's Text2Cypher (2024) records;
  ``predictions.json``.
- ``gtsqa`` (:mod:`kgbench.predict.gtsqa`): GTSQA questions → SPARQL run on a Wikidata dump;
  the answers and the triples the query matched; ``predictions.json``.
- ``ngdbench`` (:mod:`kgbench.predict.ngdbench`): NGDBench tasks → Cypher (management batches
  → ``steps_cypher``); ``predictions.json``.

Requests go through :class:`kgbench.llm.LLMClient` (retries, concurrency, replay cache).
"""

from __future__ import annotations

from kgbench.predict.prompt import PromptTemplate, load_prompt
from kgbench.predict.replay import replay_cache_from_published
from kgbench.predict.run import (
    GraphSources,
    PredictError,
    PredictFamily,
    PredictResult,
    PromptSetting,
    build_prompts,
    predict,
)

__all__ = [
    "GraphSources",
    "PredictError",
    "PredictFamily",
    "PredictResult",
    "PromptSetting",
    "PromptTemplate",
    "build_prompts",
    "load_prompt",
    "predict",
    "replay_cache_from_published",
]
