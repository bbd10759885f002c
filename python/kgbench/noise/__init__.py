"""NGDBench noise injection: the observed graph G̃ = Φ(G*) of a clean SimpleKG graph and a
replayable noise log (spec ngdbench.md §1–§3, §6 item 2, §7; seed ngdbench.txt §3.2).

The work is done in Rust (``kgbench._core.noise``, rust/kgbench-core/src/noise/). The six
noise types of the profile run in profile order, each on the *current* graph with
``int(n · rate)`` targets:

- ``incomplete_edges``: delete sampled edges, skipping an edge whose end has degree ≤ 1;
- ``false_edges``: add an edge between a uniform pair of distinct nodes without a u→v edge,
  with a uniform current relation type (≤ 10 × target attempts);
- ``relation_type_noise`` / ``node_type_noise``: the edge type / node label becomes the most
  similar other type (character-trigram cosine of the names, ties by name; node ids kept);
- ``name_typos``: one typo (look-alike substitution, deletion, insertion, case change, or a mix
  of two) in the node's name;
- ``attribute_noise``: every other attribute of the node: numbers × 10^±k (k = 1..4), strings
  one typo.

Each type draws from its own stream derived from ``(seed, type)``; candidates are sorted by
id, so the same seed and input give byte-identical files. The noisy graph carries no noise
marker. With ``opaque_ids`` every eid and rid is replaced by a keyed hash, identically in the
noisy graph, the clean graph written beside it (``clean_graph.json``) and the log, and both
graphs list their items in opaque-id order (without it, ``Person#Q42``-style ids show a
relabelled node's clean label and added relations come last).

Example::

    from kgbench.noise import inject_noise
    report = inject_noise("out/graph.json", "noisy/", profile="default", seed=42)
    report["after"]["edges"]
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kgbench.errors import InputError

__all__ = [
    "CLEAN_FILE",
    "DEFAULT_PROFILE",
    "GRAPH_FILE",
    "LOG_FILE",
    "format_report",
    "inject_noise",
    "profile_names",
    "resolve_profile",
]

#: The profile used when none is given: the repo's ``general_guid_new.json`` rates.
DEFAULT_PROFILE = "general_guid_new"
#: The noisy graph's file name in the output directory.
GRAPH_FILE = "graph.json"
#: The noise log's file name.
LOG_FILE = "noise_log.json"
#: The clean graph with opaque ids (only with ``opaque_ids``).
CLEAN_FILE = "clean_graph.json"


def profile_names() -> list[str]:
    """The names of the shipped profiles (``general_guid_new``, alias ``default``;
    ``general_guid_original``, alias ``original``)."""
    from kgbench._core import noise as _native

    return _native.profile_names()


def resolve_profile(
    profile: str | os.PathLike[str] | Mapping[str, Any] | None,
) -> tuple[str, str]:
    """The JSON text of ``profile`` and how to name it: ``None`` is the default profile; a
    mapping is the profile itself (spec §2: ``{"noise_types": {...}, "default_profile":
    {type: rate}}``); a string is a shipped profile's name or alias, else a file path.

    Raises:
        InputError: an unknown name that is not a file, an unreadable file, or a profile that
            fails the checks (unknown noise type, rate outside [0, 1], ...; the message names
            the field).
    """
    from kgbench._core import noise as _native

    if profile is None:
        profile = DEFAULT_PROFILE
    if isinstance(profile, Mapping):
        text, name = json.dumps(profile), "<dict>"
    else:
        named = _native.named_profile(str(profile)) if isinstance(profile, str) else None
        if named is not None:
            text, name = named, str(profile)
        else:
            path = Path(profile)
            if not path.is_file():
                raise InputError(
                    f"profile {str(profile)!r}: neither a shipped profile "
                    f"({', '.join(_native.profile_names())}, default, original) nor a file"
                )
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError(f"{path}: cannot read profile: {exc}") from exc
            name = str(path)
    try:
        _native.check_profile(text)
    except ValueError as exc:
        raise InputError(f"{name}: {exc}") from exc
    return text, name


def graph_file(graph: str | os.PathLike[str]) -> Path:
    """The ``graph.json`` that ``graph`` names: the file, or the one in a directory.
    Raises :class:`InputError` when there is none."""
    p = Path(graph)
    if p.is_dir():
        p = p / GRAPH_FILE
    if not p.is_file():
        raise InputError(f"{p}: no such graph file (give a graph.json or its directory)")
    return p


def inject_noise(
    graph: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    profile: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    seed: int = 42,
    opaque_ids: bool = False,
) -> dict[str, Any]:
    """Inject NGDBench noise into a clean graph and write the results to ``out``.

    Args:
        graph: a SimpleKG ``graph.json`` (SPEC.md §2) or a directory holding one.
        out: the output directory (created if needed). It receives ``graph.json`` (the noisy
            graph, same format; its schema gains what the noise made appear, so it still
            loads), ``noise_log.json`` (spec §2: ``summary``, ``detailed_records``, ``seed``,
            ``profile``, ``order``, ``clean_sha256``, ``noisy_sha256``) and, with
            ``opaque_ids``, ``clean_graph.json``. Files are renamed into place at the end, the
            log last: a directory with ``noise_log.json`` holds a complete set.
        profile: a shipped profile name (default ``general_guid_new``: rates
            .05/.10/.10/.20/.10/.10; ``general_guid_original``: .02/.03/.02/.20/.05/.05), a
            profile file, or the profile as a mapping.
        seed: a non-negative integer (spec default 42).
        opaque_ids: hash eids and rids identically in both graphs (spec §7).

    Returns:
        The run report: ``graph``, ``files`` {``graph``, ``noise_log``, ``clean_graph``},
        ``seed``, ``opaque_ids``, ``profile`` (name or path), ``before`` / ``after``
        {``nodes``, ``edges``}, ``types`` [{``type``, ``rate``, ``target``, ``applied``,
        ``nodes_before``, ``edges_before``, ``edges_after``, ``seconds``}] in run order,
        ``noise_statistics`` (the log's), ``input_sha256``, ``clean_sha256``,
        ``noisy_sha256``, ``schema_added``, ``timings`` (seconds per part).

    Raises:
        InputError: a bad profile (the message names the field), a missing or malformed
            graph (the message names the file and the item), a negative seed, an output
            directory that holds the input ``graph.json``.
        OSError: an output file cannot be written (nothing is left under the final names).
    """
    from kgbench._core import noise as _native

    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise InputError(f"seed must be an integer in [0, 2**64), got {seed!r}")
    text, name = resolve_profile(profile)
    path = graph_file(graph)
    report: dict[str, Any] = json.loads(
        _native.inject(str(path), os.fspath(out), text, seed, opaque_ids)
    )
    report["profile"] = name
    return report


def _n(x: int) -> str:
    return f"{x:,}"


def format_report(report: Mapping[str, Any]) -> str:
    """A short text summary of :func:`inject_noise`'s report: nodes and edges before and
    after, the count per noise type, and the edge-count check of the seed's Table 2
    (E' = x + ⌊r·x⌋ with x the edges before ``false_edges``, r its rate)."""
    before, after = report["before"], report["after"]
    lines = [
        f"nodes: {_n(before['nodes'])} -> {_n(after['nodes'])}   "
        f"edges: {_n(before['edges'])} -> {_n(after['edges'])}",
        f"profile: {report.get('profile', '?')}   seed: {report['seed']}"
        + ("   opaque ids" if report.get("opaque_ids") else ""),
    ]
    verbs = {
        "incomplete_edges": "edges deleted",
        "false_edges": "edges added",
        "relation_type_noise": "edge types swapped",
        "name_typos": "names with a typo",
        "node_type_noise": "node labels swapped",
        "attribute_noise": "nodes with noisy attributes",
    }
    width = max((len(t["type"]) for t in report["types"]), default=0)
    for t in report["types"]:
        lines.append(
            f"  {t['type']:<{width}}  rate {t['rate']:<5g} {_n(t['applied']):>12} of "
            f"{_n(t['target'])} {verbs.get(t['type'], 'changed')}"
        )
    for t in report["types"]:
        if t["type"] != "false_edges":
            continue
        x, r = t["edges_before"], t["rate"]
        expected = x + int(x * r)
        ok = t["edges_after"] == expected
        lines.append(
            f"check: E' = x + floor({r:g}x) = {_n(x)} + {_n(int(x * r))} = {_n(expected)}; "
            f"edges after false_edges: {_n(t['edges_after'])} "
            + ("(holds)" if ok else "(does not hold: too few free node pairs)")
        )
    stats = report["noise_statistics"]
    lines.append(
        f"noisy nodes: {_n(stats['noisy_nodes_count'])}   "
        f"noisy edges: {_n(stats['noisy_edges_count'])}"
    )
    files = report["files"]
    lines.append(f"wrote {files['graph']} and {files['noise_log']}")
    if files.get("clean_graph"):
        lines.append(f"wrote {files['clean_graph']} (the clean graph with the same opaque ids)")
    return "\n".join(lines) + "\n"
