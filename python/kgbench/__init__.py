"""kgbench: precise retrieval over knowledge graphs.

Pipeline stages, one subpackage each:

- :mod:`kgbench.convert` — Wikidata RDF → CypherBench property graph (SPEC.md §1–§2).
- :mod:`kgbench.neo4j` — local Neo4j server, loader, schema fetch, read-only query executor.
- :mod:`kgbench.generate` — text-to-Cypher task generation (reserved; not implemented yet).
- :mod:`kgbench.evaluate` — execution accuracy, PSJS, Exec and metric families (SPEC.md §4).
- :mod:`kgbench.iso` — AHU answer-subgraph isomorphism (GTSQA notation, SPEC.md §5).
- :mod:`kgbench.predict` — model runs: tasks → the seeds' prompts → an OpenAI-compatible
  model → predictions (``kgbench predict``, ``kgbench run``).
- :mod:`kgbench.families` — one module per benchmark family (tasks, prompts, scoring, the
  report's reading of its outputs) and the registry ``predict``, ``evaluate``, ``run``,
  ``report`` and the demo dispatch through (:mod:`kgbench.commands`).

The heavy work runs in the native module ``kgbench._core`` (Rust).
"""

from kgbench._core import __version__
from kgbench.errors import KgbenchError

__all__ = ["KgbenchError", "__version__"]
