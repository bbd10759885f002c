"""kgbench.generate (placeholder until the generate work lands)."""
