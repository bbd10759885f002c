"""Query results shared by every stage: the layer below generation, model runs and evaluation.

- :mod:`kgbench.query.compare` — execution accuracy (EX) of one pair of results, a batch, or
  two JSONL result files (``kgbench score``), exact and deterministic, in Rust (SPEC.md §4);
- :mod:`kgbench.query.sparql` — SPARQL execution on an embedded RDF store and its EX (spec
  ``spider4sparql.md`` §2, §5);
- :mod:`kgbench.query.ngdbench_answer` — NGDBench answers from Cypher result rows (spec
  ``ngdbench.md``).

Cypher execution on Neo4j is :mod:`kgbench.neo4j.executor`; task and prediction files are
:mod:`kgbench.tasks`.
"""
