"""kgbench.demo (placeholder until the demo work lands)."""
