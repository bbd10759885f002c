"""Stub of kgbench._core.iso (filled with the iso work)."""
