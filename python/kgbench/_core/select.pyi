"""Stub of ``kgbench._core.select``: PIPE-Cypher's greedy diversity selection in Rust
(rust/kgbench-core/src/select.rs; spec pipe-cypher.md §4)."""

from typing import Any

def select_diverse(
    candidates: list[
        tuple[str, str, str, str, str, list[str], list[str], list[str], list[str], float]
    ],
    target_per_group: int,
    seed: str = "13",
    weights: dict[str, float] | None = None,
    max_signature_share: float = 0.2,
    max_family_share: float = 0.25,
) -> list[dict[str, Any]]:
    """One report per group (sorted): ``picked`` holds candidate indices in pick order."""
