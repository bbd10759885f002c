"""Test-suite execution accuracy (TS-EX; ``shared/spec/test-suite.md``, SPEC.md §12).

- :mod:`kgbench.evaluate.suites.core`: the language-independent part — candidate deltas
  (:class:`~kgbench.evaluate.suites.core.Delta`), distillation, the suite cache and the TS-EX
  aggregation;
- :mod:`kgbench.evaluate.suites.cypher`: the Cypher backend on a disposable Neo4j;
- :mod:`kgbench.evaluate.suites.sparql`: the SPARQL backend on an in-memory RDF store.
"""
