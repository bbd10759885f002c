"""kgbench.rdb — relational databases as RDF and property graphs (spec ``spider4sparql.md``).

- :mod:`kgbench.rdb.schema`: a database's schema, ``tables.json`` checked against SQLite.
- :mod:`kgbench.rdb.naming`: the IRIs (Spider4SPARQL / W3C Direct Mapping naming) and
  property-graph names shared by the converter and the SQL translators.
- :mod:`kgbench.rdb.convert`: a database to N-Triples, ontology and graph.json (the row work
  in the Rust core, ``kgbench._core.rdb``).
- The SQL translators, in layers (each imports only those above it in this list):
  :mod:`kgbench.rdb.plan` (the dialect-neutral plan of one query: the IR),
  :mod:`kgbench.rdb.analyze` (Spider SQL to a plan), then the two renderers of a plan,
  :mod:`kgbench.rdb.sql2sparql` (SPARQL over the Direct Mapping) and
  :mod:`kgbench.rdb.sql2cypher` (Cypher over the property graph), independent of each other.
- :mod:`kgbench.rdb.validate`: translations checked by executing both sides;
  :mod:`kgbench.rdb.hardness`: Spider's hardness of a SQL query.
"""
