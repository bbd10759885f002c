"""kgbench.rdb — relational databases as RDF and property graphs (spec ``spider4sparql.md``).

- :mod:`kgbench.rdb.schema`: a database's schema, ``tables.json`` checked against SQLite.
- :mod:`kgbench.rdb.naming`: the IRIs (Spider4SPARQL / W3C Direct Mapping naming) and
  property-graph names shared by the converter and the SQL translators.
"""
