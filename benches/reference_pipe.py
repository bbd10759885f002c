"""A straightforward pure-Python implementation of PIPE-Cypher's greedy diversity selection
(spec ``pipe-cypher.md`` §4), written from the spec and the original's description
(``pipecypher/diversity_selection.py``, ``_select_group``) for the tests and the selection
benchmark. It takes the same candidate tuples as the Rust ``kgbench._core.select.select_diverse``
and returns the same report shape.

Algorithm, with no incremental state: per group (``group`` key, groups in sorted order),
``target = min(target_per_group, group size)``, caps ``max(2, ceil(0.2·target))`` picks per
signature and ``max(2, ceil(0.25·target))`` per template family; then, until ``target`` picks,
every remaining candidate's score is recomputed from sets:

    S = 0.24·N(sig) + 0.18·N(family) + 0.22·SN(substructures) + 0.14·SN(schema atoms)
      + 0.08·SN(values) + 0.10·(1 − max token-Jaccard to the picked questions)
      + 0.04·Q + 0.03·N(operator)
      − 0.35 if the signature's count + 1 > its cap − 0.35 if the family's count + 1 > its cap

summed in this order in floats. N = 1 when the value is new to the picked set; SN = the
fraction of the candidate's distinct atoms not yet picked (0 for an empty set); the max
Jaccard is 0 when nothing is picked, Jaccard(∅, ∅) = 1. The highest score wins; equal scores
go to the larger hex digest of ``sha256(f"{seed}:{group}:tie:{id}")`` (then the earlier
candidate, which only matters for duplicate ids).

Each candidate's atom lists are turned into sets once; everything else (novelties, the max
Jaccard against every pick, caps, the tie hash) is recomputed for every remaining candidate at
every step, so a group costs O(target · n · target) set operations.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

#: Spec §4 weights, in the order their terms are summed.
DEFAULT_WEIGHTS: dict[str, float] = {
    "query_signature": 0.24,
    "template_family": 0.18,
    "structural_substructure": 0.22,
    "schema_atom": 0.14,
    "value_atom": 0.08,
    "lexical_novelty": 0.10,
    "quality": 0.04,
    "operator_combination": 0.03,
    "cap_penalty": 0.35,
}

#: ``(group, id, signature, family, operator, substructures, schema_atoms, values, tokens, Q)``
Candidate = tuple[
    str, str, str, str, str, Sequence[str], Sequence[str], Sequence[str], Sequence[str], float
]


def jaccard(a: set[str], b: set[str]) -> float:
    """|a ∩ b| / |a ∪ b|, 1 when both are empty."""
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def set_novelty(atoms: set[str], seen: set[str]) -> float:
    """The fraction of ``atoms`` not in ``seen``; 0 for an empty set."""
    if not atoms:
        return 0.0
    return len(atoms - seen) / len(atoms)


def tie_key(seed: str, group: str, cid: str) -> str:
    """The tie-break key: the larger wins."""
    return hashlib.sha256(f"{seed}:{group}:tie:{cid}".encode()).hexdigest()


def select_group(
    cands: Sequence[Candidate],
    members: Sequence[int],
    group: str,
    *,
    target_per_group: int,
    seed: str,
    weights: Mapping[str, float],
    max_signature_share: float,
    max_family_share: float,
) -> dict[str, Any]:
    """Select within one group; ``members`` are indices into ``cands``."""
    w = weights
    target = min(target_per_group, len(members))
    sig_cap = max(2, math.ceil(target * max_signature_share))
    fam_cap = max(2, math.ceil(target * max_family_share))
    # the candidates' atoms as sets, built once (the input, not selection state)
    sets = {
        i: (set(cands[i][5]), set(cands[i][6]), set(cands[i][7]), set(cands[i][8])) for i in members
    }
    remaining = list(members)
    picked: list[int] = []
    sig_counts: Counter[str] = Counter()
    fam_counts: Counter[str] = Counter()
    seen_sigs: set[str] = set()
    seen_fams: set[str] = set()
    seen_ops: set[str] = set()
    seen_subs: set[str] = set()
    seen_schema: set[str] = set()
    seen_values: set[str] = set()
    picked_tokens: list[set[str]] = []
    cap_events: Counter[str] = Counter()
    while remaining and len(picked) < target:
        best: int | None = None
        best_score = 0.0
        best_tie = ""
        for i in remaining:
            _, cid, sig, fam, op, _, _, _, _, q = cands[i]
            subs, schema, values, toks = sets[i]
            lexical = 1.0 - max((jaccard(toks, p) for p in picked_tokens), default=0.0)
            score = (
                w["query_signature"] * (0.0 if sig in seen_sigs else 1.0)
                + w["template_family"] * (0.0 if fam in seen_fams else 1.0)
                + w["structural_substructure"] * set_novelty(subs, seen_subs)
                + w["schema_atom"] * set_novelty(schema, seen_schema)
                + w["value_atom"] * set_novelty(values, seen_values)
                + w["lexical_novelty"] * lexical
                + w["quality"] * q
                + w["operator_combination"] * (0.0 if op in seen_ops else 1.0)
            )
            if sig_counts[sig] + 1 > sig_cap:
                score -= w["cap_penalty"]
            if fam_counts[fam] + 1 > fam_cap:
                score -= w["cap_penalty"]
            tie = tie_key(seed, group, cid)
            if best is None or score > best_score or (score == best_score and tie > best_tie):
                best, best_score, best_tie = i, score, tie
        assert best is not None
        _, _, sig, fam, op, *_ = cands[best]
        subs, schema, values, toks = sets[best]
        if sig_counts[sig] + 1 > sig_cap:
            cap_events["query_signature_cap"] += 1
        if fam_counts[fam] + 1 > fam_cap:
            cap_events["template_family_cap"] += 1
        picked.append(best)
        remaining.remove(best)
        sig_counts[sig] += 1
        fam_counts[fam] += 1
        seen_sigs.add(sig)
        seen_fams.add(fam)
        seen_ops.add(op)
        seen_subs.update(subs)
        seen_schema.update(schema)
        seen_values.update(values)
        picked_tokens.append(toks)
    return {
        "group": group,
        "input": len(members),
        "target": target,
        "selected": len(picked),
        "underfilled": len(picked) < target,
        "picked": picked,
        "query_signatures": len(seen_sigs),
        "template_families": len(seen_fams),
        "structural_substructures": len(seen_subs),
        "operator_combinations": len(seen_ops),
        "cap_events": dict(sorted(cap_events.items())),
    }


def select_diverse(
    candidates: Sequence[Candidate],
    target_per_group: int,
    seed: str = "13",
    weights: Mapping[str, float] | None = None,
    max_signature_share: float = 0.2,
    max_family_share: float = 0.25,
) -> list[dict[str, Any]]:
    """Same arguments and report as ``kgbench._core.select.select_diverse``: one dict per
    group in sorted group order, ``picked`` = indices into ``candidates`` in pick order.
    Raises ValueError for an unknown weight or a target below 1."""
    if target_per_group < 1:
        raise ValueError("target_per_group must be positive")
    w = dict(DEFAULT_WEIGHTS)
    for k, v in (weights or {}).items():
        if k not in w:
            raise ValueError(f"unknown selection weight {k!r}")
        w[k] = float(v)
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(candidates):
        groups.setdefault(c[0], []).append(i)
    return [
        select_group(
            candidates,
            groups[g],
            g,
            target_per_group=target_per_group,
            seed=str(seed),
            weights=w,
            max_signature_share=max_signature_share,
            max_family_share=max_family_share,
        )
        for g in sorted(groups)
    ]
