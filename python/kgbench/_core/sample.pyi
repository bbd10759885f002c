"""Stub of kgbench._core.sample (Rust: rust/kgbench-py/src/sample.rs over kgbench_core::sample).

The documented public API is :mod:`kgbench.generate.sampling`.
"""

from collections.abc import Sequence

class SampleGraph:
    def __init__(
        self,
        node_labels: Sequence[int],
        node_values: Sequence[Sequence[int]],
        edge_src: Sequence[int],
        edge_dst: Sequence[int],
        edge_types: Sequence[int],
        edge_values: Sequence[Sequence[int]],
        value_text: Sequence[bytes],
        label_text: Sequence[str],
        type_text: Sequence[str],
        salt: int = 0,
        node_keys: Sequence[int] = ...,
    ) -> None: ...
    @property
    def node_count(self) -> int: ...
    @property
    def relationship_count(self) -> int: ...
    def instantiate(
        self,
        n_nodes: int,
        rels: Sequence[tuple[int, int]],
        node_reqs: Sequence[tuple[int, int, int]],
        rel_reqs: Sequence[tuple[int, int, int]],
        projection: Sequence[tuple[bool, int, int]],
        suffix: str,
        k: int,
        pivot_cap: int | None = None,
    ) -> list[tuple[list[int], list[list[int]]]]: ...
