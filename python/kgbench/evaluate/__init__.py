"""kgbench.evaluate (placeholder until the evaluate work lands)."""
