"""kgbench.convert (placeholder until the convert work lands)."""
