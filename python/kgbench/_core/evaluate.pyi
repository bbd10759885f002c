"""Stub of kgbench._core.evaluate (filled with the evaluate work)."""
