"""Stub of ``kgbench._core.synth``: SynthKGQA seed-graph sampling and isomorphism-type
embedding in Rust (rust/kgbench-core/src/synth; spec synthkgqa.md §3.1, §4)."""

class KgGraph:
    """The KG's entity–entity triples over nodes ``0..n_nodes``, indexed for sampling.

    Raises ``kgbench.errors.InputError`` for lists of different lengths, a node out of range
    or no triple."""

    def __init__(
        self, n_nodes: int, heads: list[int], relations: list[int], tails: list[int]
    ) -> None: ...
    @property
    def n_nodes(self) -> int: ...
    @property
    def n_triples(self) -> int: ...
    def degree(self, v: int) -> int:
        """Distinct neighbours of node ``v``."""
    def seed_graphs(
        self,
        count: int,
        seed: int,
        n_nodes: int = 10,
        n_edges: int = 30,
        bias: str = "inverse_degree",
    ) -> list[tuple[list[int], list[int]]]:
        """``count`` seed graphs: (nodes in joining order, ascending triple indices)."""
    def embed(
        self,
        nodes: list[int],
        triples: list[int],
        identifier: str,
        seed: int,
        max_steps: int = 10000,
    ) -> tuple[list[int], list[int]] | None:
        """Tree nodes → graph nodes (0 = the answer) and tree edges → triple indices."""
