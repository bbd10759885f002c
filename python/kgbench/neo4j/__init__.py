"""kgbench.neo4j (placeholder until the neo4j work lands)."""
