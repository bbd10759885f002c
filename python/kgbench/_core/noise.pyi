"""Stub of ``kgbench._core.noise``: NGDBench noise injection in Rust
(rust/kgbench-core/src/noise/; spec ngdbench.md §1–§3, §7)."""

def inject(
    graph_path: str,
    out_dir: str,
    profile_json: str,
    seed: int = 42,
    opaque_ids: bool = False,
) -> str:
    """Write ``graph.json``, ``noise_log.json`` (and with ``opaque_ids`` ``clean_graph.json``)
    into ``out_dir``; return the run report as one line of JSON. Raises
    ``kgbench.errors.InputError`` (bad profile or graph) or ``OSError`` (output not
    writable)."""

def named_profile(name: str) -> str | None:
    """The JSON text of a shipped profile (``general_guid_new`` / ``default``,
    ``general_guid_original`` / ``original``), or None."""

def profile_names() -> list[str]:
    """The shipped profiles' names."""

def check_profile(profile_json: str) -> list[tuple[str, float]]:
    """The ``(noise type, rate)`` pairs of a valid profile in run order; raises
    ``kgbench.errors.InputError`` naming the bad field."""
