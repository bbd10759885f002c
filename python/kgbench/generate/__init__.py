"""kgbench.generate — benchmark generation over a live graph.

- :func:`generate_cypherbench` — CypherBench's text-to-Cypher task generator (seed
  cypherbench.txt §4.2–4.3; :mod:`kgbench.generate.cypherbench` documents the modes and every
  difference from the original).
- :func:`draft_traits` — a relation-traits file measured on the graph
  (:mod:`kgbench.generate.traits`).
- :func:`load_templates`, :func:`load_traits` — the template and traits files, validated
  (:mod:`kgbench.generate.patterns`).
- :func:`read_snapshot` — the shared graph-sampling layer (in-memory snapshot;
  :mod:`kgbench.generate.sampling`); :class:`GraphReader` (from :mod:`kgbench.neo4j`) the
  read-only queries every generator sends.
- :mod:`kgbench.generate.llm_steps` — the LLM rewrite and verify steps over :mod:`kgbench.llm`.
"""

from kgbench.generate.cypherbench import GenerationResult, generate_cypherbench
from kgbench.generate.patterns import TemplateError, load_templates, load_traits
from kgbench.generate.sampling import read_snapshot
from kgbench.generate.traits import draft_traits
from kgbench.neo4j.executor import GraphReader, QueryFailed

__all__ = [
    "GenerationResult",
    "GraphReader",
    "QueryFailed",
    "TemplateError",
    "draft_traits",
    "generate_cypherbench",
    "load_templates",
    "load_traits",
    "read_snapshot",
]
