"""Stub of kgbench._core.cypher (filled with the Cypher/PSJS work)."""
