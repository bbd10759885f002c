"""Stub of kgbench._core.convert (filled with the convert work)."""
