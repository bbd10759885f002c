"""A replay cache of :class:`kgbench.llm.LLMClient` built from a published model run.

Spider4SPARQL published GPT-3.5's zero-shot run as ``{db_id, natural_language_question,
prompt, predicted_sparql}`` records: each prompt is the exact text sent and
``predicted_sparql`` the model's reply. :func:`replay_cache_from_published` writes one cache
line per record (one user message, the given model name and temperature 0), so that
``kgbench predict --family spider4sparql --replay-only --cache FILE`` reproduces the run
offline: kgbench builds the same prompts (tested byte for byte) and the cache answers them.
"""

from __future__ import annotations

from pathlib import Path

from kgbench.errors import InputError


def replay_cache_from_published(
    published: str | Path,
    cache_path: str | Path,
    *,
    model: str = "gpt-3.5-turbo",
    temperature: float = 0.0,
) -> int:
    """Append the published ``(prompt, predicted_sparql)`` pairs of ``published`` to the
    replay cache ``cache_path``; return the number of distinct prompts in the cache after.

    A prompt published twice keeps its first reply (the cache's rule).

    Raises:
        InputError: a record without a string ``prompt`` and ``predicted_sparql`` (named)."""
    from kgbench.llm import ReplayCache, cache_key
    from kgbench.tasks import read_records

    cache = ReplayCache(cache_path)
    for where, rec in read_records(published):
        prompt, reply = rec.get("prompt"), rec.get("predicted_sparql")
        if not isinstance(prompt, str) or not isinstance(reply, str):
            raise InputError(f"{where}: needs string fields 'prompt' and 'predicted_sparql'")
        messages = [{"role": "user", "content": prompt}]
        cache.put(cache_key(model, messages, temperature), model, messages, temperature, reply)
    return len(cache)
