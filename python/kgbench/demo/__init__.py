"""kgbench.demo: the main job end to end on real Wikidata data shipped with kgbench.

:func:`run_demo` converts the shipped Wikidata RDF with the demo schema
(``data/wikidata_demo.wd2neo4j.json``), loads the graph into Neo4j (a local
server it starts and stops, or one the caller names), evaluates the shipped
predictions against the shipped tasks (EX, PSJS, Exec; SPEC.md §4), runs the
generation, relational, NGDBench and model-run stages (:mod:`kgbench.demo.run`
lists the ten) and the HTML report, and returns the outcome; ``kgbench demo``
prints it. :func:`demo_files` gives the
paths of the shipped files so they can be used as examples of each format.
"""

from kgbench.demo.run import DemoFiles, DemoResult, demo_files, format_summary, run_demo

__all__ = ["DemoFiles", "DemoResult", "demo_files", "format_summary", "run_demo"]
