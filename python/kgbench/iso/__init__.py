"""kgbench.iso (placeholder until the iso work lands)."""
