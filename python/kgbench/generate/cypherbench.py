"""CypherBench's text-to-Cypher task generator over any Neo4j graph (seed cypherbench.txt §4.2–4.3,
Tables 10–12; spec ``cypherbench-taskgen.md``).

From a live graph, CypherBench's template file (31 MATCH patterns, 17 RETURN templates) and a
relation-traits file, :func:`generate_cypherbench` writes ``tasks.json`` — ``Nl2CypherSample``
records (SPEC.md §3) with ``from_template`` and the validated gold answer in ``answer_json`` —
and ``report.json`` (candidates per MATCH pattern and RETURN template, every rejection by
reason, caps, timings, query count, seed).

Steps (spec §3): the schema (property types per label; a string property is *categorical* when
distinct values / nodes < 0.1); MATCH instantiation (per pattern and assignment of labels and
types, the ``k`` property tuples with the largest MD5, computed on an in-memory snapshot by the
Rust sampling layer, :mod:`kgbench.generate.sampling`); realism filters (a) redundant relations,
(b) one-to-x pairs, (c) unnecessary leaves, (d) invalid group-by, driven by the traits; the
matched-node count of each MATCH clause; RETURN instantiation (CypherBench's per-template
rules and its RNG: ``random.Random(seed + int(md5(match cypher), 16))`` per MATCH clause);
the per-graph balance (sort, shuffle with ``seed``, cap per MATCH category, sort, dedup);
validation on the full graph (``count(*)`` of the MATCH part ≤ 100,000, non-empty gold, no
error, ≤ 30 s); optionally the LLM rewrite and verify steps (:mod:`kgbench.generate.llm_steps`).
Every query goes through :class:`~kgbench.neo4j.GraphReader` (read-only gate, READ
sessions). Queries are batched: the count and distinct-value queries of many MATCH clauses
travel as one ``UNION ALL`` query.

Modes. ``compat="cypherbench"`` follows the original (megagonlabs/cypherbench @9460518):
its MD5 ranking of every distinct tuple (exact enumeration), its RNG calls in its order, its
quirks. The default mode differs in these ways, each fixing a defect of the original:

1. **Bounded sampling.** A MATCH pattern with two named neighbours of one hub costs the product
   of their degrees in the original (its queries ran out of memory on 100k-entity graphs,
   spec §6.9); the default expands at most ``pivot_cap`` (64) relationships per (node,
   direction, type, neighbour label), chosen by a seeded hash. Both modes read leaves in linear
   time.
2. **Escaping.** Backslashes in sampled strings are escaped (``\\`` → ``\\\\``); the original
   escapes only quotes, which breaks queries on names holding a backslash (spec §6.10).
3. **Template placeholders before values.** The original substitutes ``${...}`` after inserting
   names, so a name holding ``$`` crashes it; the default substitutes placeholders first.
   In compat mode such a clause is counted under ``error`` and skipped.
4. **Duplicates.** The original computes its duplicate-free list and then discards it; the
   default drops duplicate gold queries (counted under ``duplicate``); compat keeps them.
5. **Rounding.** Both modes keep the original's ``int()`` truncation of rounded thresholds
   (spec §6.5); validation drops the empty results it causes.
6. **Uninformative gold results.** The original keeps any non-empty result; the default also
   rejects results that are all null or a single 0 / false / empty list (counted under
   ``uninformative``; metrics.md §1), unless ``allow_uninformative``; compat keeps them.

Both modes: qids are ``uuid5(graph, gold_cypher)`` (the original's uuid4 is not reproducible);
``answer_json`` holds the validated gold rows (never filled by the original); a relation missing
from the traits file gets neutral traits and a warning (the original crashes); the unused
``num_result`` query per candidate is not sent; list properties other than ``list[str]`` and
booleans are never used for conditions; "currently" means a missing ``end_year`` (spec §6.11).
``nl_question`` is the template question unless an LLM client is given (offline by default).
"""

from __future__ import annotations

import collections
import datetime
import hashlib
import json
import math
import os
import random
import time
import uuid
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any, ClassVar

from kgbench.errors import KgbenchError
from kgbench.generate.patterns import (
    MatchPattern,
    ReturnPattern,
    Templates,
    TraitsTable,
    load_templates,
    load_traits,
)
from kgbench.generate.sampling import (
    Snapshot,
    cypher_sort_key,
    java_text,
    read_snapshot,
)
from kgbench.neo4j.executor import GraphReader, QueryFailed

#: CypherBench's own template file, shipped with kgbench (see the NOTICE beside it).
DEFAULT_TEMPLATES = Path(__file__).resolve().parent / "data" / "nl2cypher_generator_config.json"
#: CypherBench's relation traits of its 11 graphs, shipped with kgbench.
CYPHERBENCH_TRAITS = Path(__file__).resolve().parent / "data" / "graph_info.json"

#: Split defaults (spec §3 "Per graph"; CypherBench's SAMPLE_CONFIG): the cap per MATCH
#: category, tuples per assignment (k) and RETURN candidates kept per MATCH clause.
SPLITS: dict[str, dict[str, Any]] = {
    "test": {"max_per_category": 60, "k": 2, "max_return": 2, "k_small": 1},
    "train": {"max_per_category": 10000, "k": 10, "max_return": 10, "k_small": 5},
}
#: MATCH categories with the smaller k and RETURN budget.
SMALL_CATEGORIES = ("basic_(n)-(m0)-(m1*)", "basic_(n)-(m0*),(n)-(m1*)", "special_union")
#: Validation limits (spec §3 "Validation").
MAX_RECORDS = 100_000
VALIDATION_TIMEOUT_S = 30.0
#: Properties left out of the schema (CypherBench's get_schema defaults plus the relation id).
EXCLUDED_PROPERTIES = ("eid", "description", "aliases", "provenance", "rid")
#: qid namespace: uuid5(NAMESPACE, f"{graph}\n{gold_cypher}").
QID_NAMESPACE = uuid.UUID("6f1d1c1e-8a44-5b7e-9a0e-6b6267656e31")
#: Rejection reasons of report.json, in order.
REJECTION_REASONS = (
    "realism_a_redundant",
    "realism_b_one_to_x",
    "realism_c_leaf",
    "realism_d_group_by",
    "empty",
    "uninformative",
    "too_many_rows",
    "timeout",
    "error",
    "duplicate",
)

CATEGORICAL, STR, INT, FLOAT, BOOL, DATE, STR_ARRAY = (
    "categorical",
    "str",
    "int",
    "float",
    "bool",
    "date",
    "list[str]",
)


def _is_date(value: Any) -> bool:
    if isinstance(value, datetime.date):
        return True
    try:
        import neo4j.time

        return isinstance(value, neo4j.time.Date)
    except ImportError:  # pragma: no cover
        return False


def escape_and_quote(value: Any, *, escape_backslash: bool = True) -> str:
    """A Cypher literal for a sampled value: ``date('…')`` for dates, a single-quoted string
    with ``'`` escaped (and ``\\`` when ``escape_backslash``), else ``str(value)``."""
    if _is_date(value):
        return f"date('{value}')"
    if isinstance(value, str):
        if escape_backslash:
            value = value.replace("\\", "\\\\")
        value = value.replace("'", "\\'")
        return f"'{value}'"
    return str(value)


def round_number(value: float, mode: str, top_n_digits: int = 2) -> int | float:
    """CypherBench's rounding to ``top_n_digits`` significant digits, then ``int()``
    (spec §3): floor 232623 → 230000, ceil → 240000; -324 floor → -330. 0 stays 0."""
    if value == 0:
        return value
    sign = 1 if value > 0 else -1
    abs_value = abs(value)
    exponent = math.floor(math.log10(abs_value)) + 1 - top_n_digits
    shifted = abs_value / (10**exponent)
    if (mode == "floor" and sign == 1) or (mode == "ceil" and sign == -1):
        rounded = math.floor(shifted)
    else:
        rounded = math.ceil(shifted)
    return int(sign * rounded * (10**exponent))


def sample_op_value(
    ops: list[str], ordered_values: list[Any], rng: random.Random, do_round: bool = True
) -> tuple[str, Any]:
    """An operator and a value with a non-empty ``x <op> value`` (CypherBench's
    ``sample_op_value``, same RNG calls): ``<``/``<=`` above the minimum rounded up,
    ``>``/``>=`` below the maximum rounded down, ``=``/``<>`` any value."""
    op = rng.sample(ops, 1)[0]
    if op in ("<", "<="):
        value = rng.sample(ordered_values[1:], 1)[0]
        if do_round and isinstance(value, (int, float)):
            value = round_number(value, "ceil", 2)
    elif op in (">", ">="):
        value = rng.sample(ordered_values[:-1], 1)[0]
        if do_round and isinstance(value, (int, float)):
            value = round_number(value, "floor", 2)
    else:
        value = rng.sample(ordered_values, 1)[0]
    return op, value


@dataclass
class MatchClause:
    """An instantiated MATCH pattern (CypherBench ``MatchClause``)."""

    pattern: MatchPattern
    n_assignment: dict[str, str]
    r_assignment: dict[str, str]
    prop_values: dict[str, Any]
    cypher: str
    nl_args: dict[str, str]
    num_matched_node: int = 0
    row_cypher: str = ""
    """The MATCH part with ``row.<key>`` in place of each sampled value (for ``UNWIND $rows
    AS row`` batches, one plan per shape)."""
    match_rows: int = -1
    """``count(*)`` of the MATCH part (validation's size check)."""
    distinct: dict[tuple[str, bool], list[Any]] = field(default_factory=dict)
    """Distinct values (Cypher order) of the expressions the RETURN step needs, by
    (expression, is_array)."""


@dataclass
class Candidate:
    """A generated (question, Cypher) pair before balancing and validation."""

    gold_cypher: str
    nl_question_raw: str
    mc: MatchClause
    rp: ReturnPattern


@dataclass
class GenerationResult:
    """What :func:`generate_cypherbench` produced: the task records, the report (the content of
    ``report.json``) and the paths written (None when ``out`` was None)."""

    tasks: list[dict[str, Any]]
    report: dict[str, Any]
    tasks_path: Path | None = None
    report_path: Path | None = None


def _pattern_edges(
    mp: MatchPattern, r_assignment: dict[str, str]
) -> dict[str, list[tuple[str, str, str]]]:
    """Each node variable's pattern edges as (relation label, other variable, "out"/"in")."""
    g: dict[str, list[tuple[str, str, str]]] = collections.defaultdict(list)
    for r, s, o in mp.relations:
        g[s].append((r_assignment[r], o, "out"))
        g[o].append((r_assignment[r], s, "in"))
    return g


def _import_row(cypher: str) -> str:
    """Import ``row`` into the ``CALL { … UNION … }`` subquery of a union MATCH pattern."""
    if "CALL {" not in cypher:
        return cypher
    return cypher.replace("CALL {", "CALL { WITH row").replace(" UNION ", " UNION WITH row ")


def _split_batches(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


@dataclass
class _Counters:
    rejections: collections.Counter[str] = field(default_factory=collections.Counter)
    by_pattern: dict[str, collections.Counter[str]] = field(default_factory=dict)

    def reject(self, reason: str, pattern: MatchPattern | None = None, n: int = 1) -> None:
        self.rejections[reason] += n
        if pattern is not None:
            self.pattern(pattern)["rejected_" + reason] += n

    def pattern(self, mp: MatchPattern) -> collections.Counter[str]:
        key = f"{mp.index:02d} {mp.category} | {mp.cypher}"
        return self.by_pattern.setdefault(key, collections.Counter())


class CypherBenchGenerator:
    """The generator (see the module docstring). Use :func:`generate_cypherbench`.

    ``reader`` a :class:`GraphReader`; ``templates`` / ``traits`` validated files; ``graph``
    the graph name written into each record; ``split`` ``test`` or ``train``; ``compat``
    None or ``"cypherbench"``; ``per_category`` overrides the split's cap per MATCH category;
    ``pivot_cap`` the default mode's bound (ignored in compat mode); ``batch_size`` the number
    of sub-queries per ``UNION ALL`` round trip.
    """

    def __init__(
        self,
        reader: GraphReader,
        templates: Templates,
        traits: TraitsTable,
        graph: str,
        *,
        split: str = "test",
        seed: int = 42,
        compat: str | None = None,
        per_category: int | None = None,
        pivot_cap: int = 64,
        allow_uninformative: bool = False,
        categorical_threshold: float = 0.1,
        batch_size: int = 500,
        workers: int = 4,
        progress: bool = False,
        log: Callable[[str], None] | None = None,
    ) -> None:
        if split not in SPLITS:
            raise KgbenchError(f"unknown split {split!r} (test or train)")
        if compat not in (None, "cypherbench"):
            raise KgbenchError(f"unknown compat mode {compat!r} (cypherbench)")
        self.reader = reader
        self.templates = templates
        self.traits = traits
        self.graph = graph
        self.split = split
        self.seed = seed
        self.compat = compat == "cypherbench"
        cfg = SPLITS[split]
        self.max_per_category = (
            per_category if per_category is not None else cfg["max_per_category"]
        )
        self.cfg = cfg
        self.pivot_cap = None if self.compat else pivot_cap
        # compat mode keeps what the original keeps (any non-empty result)
        self.allow_uninformative = allow_uninformative or self.compat
        self.categorical_threshold = categorical_threshold
        self.batch_size = batch_size
        self.workers = workers
        self.progress = progress
        self.log = log or (lambda _msg: None)
        self.counters = _Counters()
        self.etype2props: dict[str, dict[str, str]] = {}
        self.timings: dict[str, float] = {}

    # -- parameters per category -------------------------------------------------------------

    def k_for(self, category: str) -> int:
        """Tuples kept per assignment for MATCH ``category``."""
        return int(self.cfg["k_small"] if category in SMALL_CATEGORIES else self.cfg["k"])

    def max_return_for(self, category: str) -> int:
        """RETURN candidates kept per MATCH clause of ``category``."""
        return int(self.cfg["k_small"] if category in SMALL_CATEGORIES else self.cfg["max_return"])

    # -- schema ------------------------------------------------------------------------------

    def fetch_schema(self) -> None:
        """Property datatypes per label, CypherBench's ``get_schema(map_to_categorical=True)``:
        properties sorted by name, ``name`` kept, strings split into categorical / str."""
        from kgbench.neo4j.schema import NODE_PROPERTIES_QUERY, datatype_of, pick_datatype

        types: dict[str, dict[str, set[str]]] = {}
        for rec in self.reader.run(NODE_PROPERTIES_QUERY, timeout_s=0):
            seen = types.setdefault(rec["label"], {})
            if rec["property"] not in EXCLUDED_PROPERTIES:
                seen.setdefault(rec["property"], set()).add(datatype_of(rec["type"]))
        if not types:
            raise KgbenchError("the graph has no entities (MATCH (n) found no node)")
        out: dict[str, dict[str, str]] = {}
        for label in sorted(types):
            props = {p: pick_datatype(t) for p, t in sorted(types[label].items())}
            strs = [p for p, t in props.items() if t == STR]
            if strs:
                cols = ", ".join(f"count(DISTINCT n.`{p}`) AS c{i}" for i, p in enumerate(strs))
                # a scan of the label: no client timeout (its cost grows with the graph, 30 s
                # is too short at full scale; the server's own limit still applies)
                query = f"MATCH (n:`{label}`) RETURN count(n) AS node_cnt, {cols}"
                rec = self.reader.run(query, timeout_s=0)[0]
                for i, p in enumerate(strs):
                    if rec[f"c{i}"] / max(rec["node_cnt"], 1) < self.categorical_threshold:
                        props[p] = CATEGORICAL
            out[label] = props
        self.etype2props = out

    # -- MATCH -------------------------------------------------------------------------------

    def annotated_props(self) -> tuple[list[str], list[str]]:
        """Node and relationship property names annotated in the MATCH patterns (the
        snapshot's slots)."""
        node: list[str] = []
        rel: list[str] = []
        for mp in self.templates.match_patterns:
            if mp.is_comparison:
                continue
            rel_vars = set(mp.rel_vars)
            for key in mp.property_constraints:
                var, prop = key.split(".", 1)
                target = rel if var in rel_vars else node
                if prop not in target:
                    target.append(prop)
        return node, rel

    def instantiate_matches(self, snap: Snapshot) -> list[MatchClause]:
        """MATCH clauses of every pattern (before the matched-node count)."""
        out: list[MatchClause] = []
        for mp in self.templates.match_patterns:
            if mp.is_comparison:
                out += self._instantiate_comparison(mp)
            else:
                out += self._instantiate_pattern(mp, snap)
        return out

    def _instantiate_pattern(self, mp: MatchPattern, snap: Snapshot) -> list[MatchClause]:
        node_vars, rel_vars = mp.node_vars, mp.rel_vars
        nidx = {v: i for i, v in enumerate(node_vars)}
        ridx = {v: i for i, v in enumerate(rel_vars)}
        ends = {r: (s, o) for r, s, o in mp.relations}
        rels = [(nidx[ends[r][0]], nidx[ends[r][1]]) for r in rel_vars]
        node_reqs: list[tuple[int, int, int]] = []
        rel_reqs: list[tuple[int, int, int]] = []
        projection: list[tuple[bool, int, int]] = []
        for key, cond in mp.property_constraints.items():
            var, prop = key.split(".", 1)
            code = (
                2 if cond is None else (1 if cond.endswith("IS NULL") and "NOT" not in cond else 0)
            )
            if var in ridx:
                slot = snap.rel_props.index(prop)
                rel_reqs.append((ridx[var], slot, code))
                projection.append((True, ridx[var], slot))
            else:
                slot = snap.node_props.index(prop)
                node_reqs.append((nidx[var], slot, code))
                projection.append((False, nidx[var], slot))
        result = snap.graph.instantiate(
            len(node_vars),
            rels,
            node_reqs,
            rel_reqs,
            projection,
            f"{mp.category}{self.seed}",
            self.k_for(mp.category),
            self.pivot_cap,
        )
        counter = self.counters.pattern(mp)
        counter["assignments"] += len(result)
        keys = list(mp.property_constraints)
        out: list[MatchClause] = []
        for assignment, rows in result:
            n_assignment = {v: snap.labels[assignment[i]] for i, v in enumerate(node_vars)}
            r_assignment = {
                r: snap.types[assignment[len(node_vars) + i]] for i, r in enumerate(rel_vars)
            }
            if self._has_redundant_relation(mp, r_assignment):
                self.counters.reject("realism_a_redundant", mp, len(rows))
                continue
            if self._has_unnecessary_one_to_x_pair(mp, r_assignment):
                self.counters.reject("realism_b_one_to_x", mp, len(rows))
                continue
            for row in rows:
                prop_values = {
                    key.replace(".", "_"): snap.values[vid]
                    for key, vid in zip(keys, row, strict=True)
                }
                esc = not self.compat
                quoted = {
                    k: escape_and_quote(v, escape_backslash=esc) for k, v in prop_values.items()
                }
                try:
                    cypher = self._substitute_cypher(mp, n_assignment, r_assignment, quoted)
                except (KeyError, ValueError):
                    self.counters.reject("error", mp)
                    continue
                refs = {k: f"row.{k}" for k in prop_values}
                row_cypher = _import_row(
                    self._substitute_cypher(mp, n_assignment, r_assignment, refs)
                )
                nl_args = self._substitute_nl(mp, n_assignment, r_assignment, prop_values)
                out.append(
                    MatchClause(
                        mp, n_assignment, r_assignment, prop_values, cypher, nl_args, 0, row_cypher
                    )
                )
        return out

    def _instantiate_comparison(self, mp: MatchPattern) -> list[MatchClause]:
        limit = self.k_for(mp.category) * 2
        out: list[MatchClause] = []
        counter = self.counters.pattern(mp)
        for etype, props in self.etype2props.items():
            names = [p for p in props if p != "name"]
            if not names:
                continue
            cols = ", ".join(f"n.`{p}` AS p{i}" for i, p in enumerate(names))
            records = self.reader.run(  # a scan of the label: no client timeout (as above)
                f"MATCH (n:`{etype}`) RETURN n.name AS name, {cols}", timeout_s=0
            )
            for i, prop in enumerate(names):
                rows = [(r["name"], r[f"p{i}"]) for r in records if r[f"p{i}"] is not None]
                # ORDER BY apoc.util.md5([n.name, label, prop, seed]) LIMIT 2k
                suffix = etype + prop + str(self.seed)

                def rank(nv: tuple[Any, Any], suffix: str = suffix) -> tuple[str, str]:
                    text = java_text(nv[0]) + suffix
                    return hashlib.md5(text.encode()).hexdigest(), repr(nv[1])

                rows.sort(key=rank)
                rows = rows[:limit]
                counter["assignments"] += 1
                for j in range(0, len(rows) - 1, 2):
                    (n_name, n_prop), (m0_name, m0_prop) = rows[j], rows[j + 1]
                    esc = not self.compat
                    n_lit = escape_and_quote(n_name, escape_backslash=esc)
                    m0_lit = escape_and_quote(m0_name, escape_backslash=esc)
                    cypher = f"MATCH (n:{etype} {{name: {n_lit}}}), (m0:{etype} {{name: {m0_lit}}})"
                    out.append(
                        MatchClause(
                            pattern=mp,
                            n_assignment={"n": etype, "m0": etype},
                            r_assignment={},
                            prop_values={
                                "n_name": n_name,
                                "m0_name": m0_name,
                                f"n_{prop}": n_prop,
                                f"m0_{prop}": m0_prop,
                            },
                            cypher=cypher,
                            nl_args={
                                "n_desc": f'"{n_name}"',
                                "m0_desc": f'"{m0_name}"',
                                "prop": prop,
                            },
                            num_matched_node=2,
                            row_cypher=f"MATCH (n:{etype} {{name: row.n_name}}), "
                            f"(m0:{etype} {{name: row.m0_name}})",
                        )
                    )
        return out

    def _substitute_cypher(
        self,
        mp: MatchPattern,
        n_assignment: dict[str, str],
        r_assignment: dict[str, str],
        quoted: dict[str, str],
    ) -> str:
        """The MATCH clause: labels, types and the sampled values (``quoted``: Cypher text of
        each value, a literal or a ``row.<key>`` reference) put into the skeleton."""
        cypher = mp.cypher_clean
        if not self.compat:
            # placeholders first, so that a `$` inside a value is never read as one
            cypher = Template(cypher).substitute(**quoted)
        for key, value in quoted.items():
            if key.endswith("_name"):
                n = key.split("_")[0]
                cypher = cypher.replace(f"({n})", f"({n}:{n_assignment[n]} {{name: {value}}})")
        for n in n_assignment:
            cypher = cypher.replace(f"({n})", f"({n}:{n_assignment[n]})")
        for r in r_assignment:
            cypher = cypher.replace(f"-[{r}]-", f"-[{r}:{r_assignment[r]}]-")
        if self.compat:
            cypher = Template(cypher).substitute(**quoted)
        return cypher

    def _substitute_nl(
        self,
        mp: MatchPattern,
        n_assignment: dict[str, str],
        r_assignment: dict[str, str],
        prop_values: dict[str, Any],
    ) -> dict[str, str]:
        res = {}
        for key, nl_template in mp.nl_args.items():
            params = (
                {k: f'"{v}"' if isinstance(v, str) else str(v) for k, v in prop_values.items()}
                | {f"{n}_LABEL": n_assignment[n] for n in n_assignment}
                | {f"{r}_LABEL": r_assignment[r] for r in r_assignment}
            )
            for r, rlabel in r_assignment.items():
                if (
                    all(
                        k not in prop_values
                        for k in (
                            f"{r}_start_year",
                            f"{r}_end_year",
                            f"{r}_start_time",
                            f"{r}_end_time",
                        )
                    )
                    and self.traits[rlabel].is_time_sensitive
                ):
                    params[f"{r}_LABEL"] += " (at some point, past or present)"
            res[key] = Template(nl_template).safe_substitute(**params)
        return res

    # -- realism filters ---------------------------------------------------------------------

    def _has_redundant_relation(self, mp: MatchPattern, r_assignment: dict[str, str]) -> bool:
        """(a) Two relations between the same variables that are equal, or one implied by the
        other."""
        triples = {(r_assignment[r], s, o) for r, s, o in mp.relations}
        if len(triples) != len(mp.relations):
            return True
        return any(
            (implied, s, o) in triples
            for r, s, o in triples
            for implied in self.traits[r].implied_relations
        )

    def _has_unnecessary_one_to_x_pair(
        self, mp: MatchPattern, r_assignment: dict[str, str]
    ) -> bool:
        """(b) A variable with two same-type edges in the same direction to different variables
        where that side is "one" (symmetric relations: any direction)."""
        g = _pattern_edges(mp, r_assignment)
        for edges in g.values():
            for rlabel, other, direction in edges:
                info = self.traits[rlabel]
                if direction == "out" and info.obj_cardinality == "one":
                    dirs = ("out", "in") if info.is_symmetric else ("out",)
                elif direction == "in" and info.subj_cardinality == "one":
                    dirs = ("out", "in") if info.is_symmetric else ("in",)
                else:
                    continue
                for d in dirs:
                    if any((rlabel, n1, d) in edges for n1 in mp.node_vars if n1 != other):
                        return True
        return False

    def _has_unnecessary_leaf(self, mc: MatchClause, rp: ReturnPattern) -> bool:
        """(c) A one-edge variable, unnamed, not returned, whose other side always has the
        edge (leaf subject and ``is_mandatory_obj``, or leaf object and ``is_mandatory_subj``)."""
        g = _pattern_edges(mc.pattern, mc.r_assignment)
        named = mc.pattern.node_vars_with_name
        for n, edges in g.items():
            if len(edges) == 1 and n not in named and n not in rp.return_vars:
                rlabel, _other, direction = edges[0]
                info = self.traits[rlabel]
                if (direction == "out" and info.is_mandatory_obj) or (
                    direction == "in" and info.is_mandatory_subj
                ):
                    return True
        return False

    def _has_invalid_group_by(self, mc: MatchClause) -> bool:
        """(d) Grouping ``n`` by ``m0`` over a relation whose ``m0`` side is "one"."""
        cy = mc.pattern.cypher
        r0 = mc.r_assignment.get("r0")
        if r0 is None:
            return False
        info = self.traits[r0]
        return ("(n)-[r0]->(m0)" in cy and info.obj_cardinality == "one") or (
            "(n)<-[r0]-(m0)" in cy and info.subj_cardinality == "one"
        )

    # -- batched queries ---------------------------------------------------------------------

    def _grouped_values(
        self, parts: list[tuple[str, dict[str, Any]]], default: Any = None
    ) -> tuple[list[Any], list[str | None]]:
        """Run many one-value queries as ``UNWIND $rows AS row`` batches.

        Each part is ``(body, row)``: ``body`` reads its sampled values as ``row.<key>`` and
        ends ``RETURN row.__i AS i, <aggregate> AS v``; parts with the same body (the same
        shape) go into one query, so each shape is planned once. Returns each part's ``v``
        (``default`` when the query gave no row for it) and its failure class (None when it
        ran). A failed batch is split in halves until the failing part is alone.
        """
        values: list[Any] = [default] * len(parts)
        errors: list[str | None] = [None] * len(parts)
        groups: dict[str, list[int]] = {}
        for i, (body, _) in enumerate(parts):
            groups.setdefault(body, []).append(i)

        def run(body: str, idx: list[int]) -> None:
            rows = [{**parts[i][1], "__i": i} for i in idx]
            timeout = min(VALIDATION_TIMEOUT_S * len(idx), 600.0)
            try:
                recs = self.reader.run(
                    f"UNWIND $rows AS row {body}", {"rows": rows}, timeout_s=timeout
                )
            except QueryFailed as exc:
                if len(idx) == 1:
                    errors[idx[0]] = exc.error_class
                    return
                half = len(idx) // 2
                run(body, idx[:half])
                run(body, idx[half:])
                return
            for rec in recs:
                values[rec["i"]] = rec["v"]

        batches = [
            (body, chunk)
            for body, idx in groups.items()
            for chunk in _split_batches(idx, self.batch_size)
        ]
        # Planning dominates (one plan per shape): plan on several sessions at once. The
        # Neo4j time of this section is its wall time, not the sum over sessions.
        waited = self.reader.neo4j_s
        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            futures = [pool.submit(run, body, chunk) for body, chunk in batches]
            for fut in self._bar(futures, "batched queries"):
                fut.result()
        self.reader.neo4j_s = waited + (time.perf_counter() - t0)
        return values, errors

    def _bar(self, items: Sequence[Any], desc: str) -> Any:
        from tqdm import tqdm

        return tqdm(items, desc=desc, disable=None if self.progress else True, leave=False)

    def profile(self, clauses: list[MatchClause]) -> list[MatchClause]:
        """One aggregate query per MATCH clause shape fills ``match_rows`` (``count(*)``),
        ``num_matched_node`` (``count(DISTINCT n)``) and ``distinct`` (every distinct-value
        list its RETURN templates need); clauses matching nothing are dropped."""
        exprs = [list(dict.fromkeys(self._distinct_requests(mc))) for mc in clauses]
        parts = []
        for mc, ex in zip(clauses, exprs, strict=True):
            cols = ["count(*)", "count(DISTINCT n)", *(f"collect(DISTINCT {e})" for e, _ in ex)]
            body = f"{mc.row_cypher} RETURN row.__i AS i, [{', '.join(cols)}] AS v"
            parts.append((body, mc.prop_values))
        values, errors = self._grouped_values(parts)
        kept = []
        for mc, ex, v, err in zip(clauses, exprs, values, errors, strict=True):
            if err:
                self.counters.reject("timeout" if err == "timeout" else "error", mc.pattern)
                continue
            rows, num, *lists = v if v is not None else [0, 0]
            mc.match_rows = int(rows)
            if not mc.pattern.is_comparison:
                mc.num_matched_node = int(num)
            if rows == 0:
                self.counters.reject("empty", mc.pattern)
                continue
            for (e, is_array), vals in zip(ex, lists, strict=True):
                if is_array:
                    vals = list(dict.fromkeys(x for lst in vals for x in lst if x is not None))
                mc.distinct[(e, is_array)] = sorted(vals, key=cypher_sort_key)
            kept.append(mc)
            self.counters.pattern(mc.pattern)["match_clauses"] += 1
        return kept

    def _distinct_requests(self, mc: MatchClause) -> list[tuple[str, bool]]:
        """The distinct-value expressions the RETURN templates of ``mc`` will ask for."""
        out: list[tuple[str, bool]] = []
        ids = {
            rp.pattern_id
            for rp in self.templates.return_patterns
            if rp.category == mc.pattern.return_category
        }
        constraints = mc.pattern.property_constraints
        props = self.etype2props.get(mc.n_assignment.get("n", ""), {})
        if "n.name" in constraints:
            return out
        if "n_where" in ids:
            for prop, dtype in props.items():
                if prop == "name" or f"n.{prop}" in constraints:
                    continue
                if dtype not in (INT, FLOAT, DATE, STR, STR_ARRAY):
                    continue
                out.append((f"n.`{prop}`", dtype == STR_ARRAY))
                if dtype == DATE:
                    out.append((f"n.`{prop}`.year", False))
        if "n_group_by" in ids:
            for prop, dtype in props.items():
                if dtype == CATEGORICAL:
                    out.append((f"n.`{prop}`", False))
        return out

    def fetch_group_counts(self, clauses: list[MatchClause]) -> None:
        """For ``n_m0_group_by_count_where``: the distinct per-``n`` counts of ``m0``, as
        ``distinct[("num", False)]``."""
        todo = [
            mc
            for mc in clauses
            if "n_m0_group_by_count_where"
            in {
                rp.pattern_id
                for rp in self.templates.return_patterns
                if rp.category == mc.pattern.return_category
            }
        ]
        parts = [
            (
                f"{mc.row_cypher} WITH row, n AS n, count(DISTINCT m0) AS value "
                "RETURN row.__i AS i, collect(DISTINCT value) AS v",
                mc.prop_values,
            )
            for mc in todo
        ]
        values, errors = self._grouped_values(parts, default=[])
        for mc, v, err in zip(todo, values, errors, strict=True):
            if not err:
                mc.distinct[("num", False)] = sorted(v or [], key=cypher_sort_key)

    # -- RETURN ------------------------------------------------------------------------------

    def instantiate_returns(self, clauses: list[MatchClause]) -> list[Candidate]:
        """RETURN candidates of every MATCH clause (RNG per clause, as the original)."""
        self.fetch_group_counts(clauses)
        out: list[Candidate] = []
        for mc in clauses:
            out += _ReturnStep(self, mc).run()
        return out

    # -- balance, validation -----------------------------------------------------------------

    def balance(self, candidates: list[Candidate]) -> list[Candidate]:
        """Sort, shuffle with the seed, cap per MATCH category, sort again, dedup (default)."""
        mp_order = {
            mp.category: i for i, mp in reversed(list(enumerate(self.templates.match_patterns)))
        }
        rp_order = {
            rp.pattern_id: i for i, rp in reversed(list(enumerate(self.templates.return_patterns)))
        }

        def key(c: Candidate) -> tuple[Any, ...]:
            return (
                self.graph,
                mp_order[c.mc.pattern.category],
                rp_order[c.rp.pattern_id],
                c.gold_cypher,
            )

        res = sorted(candidates, key=key)
        rng = random.Random(self.seed)
        rng.shuffle(res)
        by_cat: dict[str, list[Candidate]] = {}
        for c in res:
            by_cat.setdefault(c.mc.pattern.category, []).append(c)
        capped = 0
        for cat, items in by_cat.items():
            if len(items) > self.max_per_category:
                capped += len(items) - self.max_per_category
                by_cat[cat] = rng.sample(items, self.max_per_category)
        self.counters.rejections["capped"] += capped
        res = sorted((c for items in by_cat.values() for c in items), key=key)
        if self.compat:
            return res
        seen: set[str] = set()
        out = []
        for c in res:
            if c.gold_cypher in seen:
                self.counters.reject("duplicate", c.mc.pattern)
                continue
            seen.add(c.gold_cypher)
            out.append(c)
        return out

    def validate(self, candidates: list[Candidate]) -> list[tuple[Candidate, list[list[Any]]]]:
        """Keep candidates whose MATCH part has ≤ 100,000 records and whose gold query runs
        within 30 s with a non-empty result that is informative (all null, a single 0 /
        false / empty list: :func:`kgbench.evaluate.uninformative_reason`; kept with
        ``allow_uninformative`` and in compat mode); return them with their gold rows."""
        from kgbench.neo4j.executor import to_plain
        from kgbench.query.compare import uninformative_reason

        out = []
        for c in self._bar(candidates, "validating"):
            if c.mc.match_rows > MAX_RECORDS:
                self.counters.reject("too_many_rows", c.mc.pattern)
                continue
            try:
                recs = self.reader.run(c.gold_cypher, timeout_s=VALIDATION_TIMEOUT_S)
            except QueryFailed as exc:
                reason = "timeout" if exc.error_class == "timeout" else "error"
                self.counters.reject(reason, c.mc.pattern)
                continue
            if not recs:
                self.counters.reject("empty", c.mc.pattern)
                continue
            rows = [[to_plain(v) for v in r.values()] for r in recs]
            if not self.allow_uninformative and uninformative_reason(rows) is not None:
                self.counters.reject("uninformative", c.mc.pattern)
                continue
            if "ORDER BY" not in c.gold_cypher.upper():
                # an unordered result: a canonical order, independent of the store's layout
                rows.sort(key=lambda row: json.dumps(row, sort_keys=True, ensure_ascii=False))
            out.append((c, rows))
        return out

    # -- the whole run -----------------------------------------------------------------------

    def run(self) -> list[dict[str, Any]]:
        """Generate; return the task records (SPEC.md §3), ``nl_question`` = template text."""
        t = time.perf_counter()
        self.log("schema")
        self.fetch_schema()
        self.timings["schema_s"] = time.perf_counter() - t
        node_props, rel_props = self.annotated_props()
        t = time.perf_counter()
        snap = read_snapshot(self.reader, node_props, rel_props, salt=self.seed)
        self.snapshot_counts = (snap.nodes, snap.relationships)
        self.timings["snapshot_s"] = time.perf_counter() - t
        self.log(f"snapshot: {snap.nodes:,} nodes, {snap.relationships:,} relationships")
        t = time.perf_counter()
        clauses = self.instantiate_matches(snap)
        self.timings["match_s"] = time.perf_counter() - t
        t = time.perf_counter()
        clauses = self.profile(clauses)
        self.timings["profile_s"] = time.perf_counter() - t
        self.log(f"MATCH clauses: {len(clauses):,}")
        t = time.perf_counter()
        candidates = self.instantiate_returns(clauses)
        self.timings["return_s"] = time.perf_counter() - t
        self.candidates = candidates
        self.log(f"candidates: {len(candidates):,}")
        balanced = self.balance(candidates)
        t = time.perf_counter()
        valid = self.validate(balanced)
        self.timings["validate_s"] = time.perf_counter() - t
        tasks = []
        for c, rows in valid:
            tasks.append(
                {
                    "qid": str(uuid.uuid5(QID_NAMESPACE, f"{self.graph}\n{c.gold_cypher}")),
                    "graph": self.graph,
                    "gold_cypher": c.gold_cypher,
                    "gold_match_cypher": c.mc.cypher,
                    "nl_question": None,
                    "nl_question_raw": c.nl_question_raw,
                    "answer_json": json.dumps(rows, ensure_ascii=False),
                    "from_template": {
                        "match_category": c.mc.pattern.category,
                        "match_cypher": c.mc.pattern.cypher,
                        "return_pattern_id": c.rp.pattern_id,
                        "return_cypher": c.rp.cypher,
                    },
                    "pred_cypher": None,
                    "metrics": {},
                }
            )
        return tasks


class _ReturnStep:
    """The RETURN instantiation of one MATCH clause (CypherBench ``_instantiate_return``)."""

    def __init__(
        self,
        gen: CypherBenchGenerator,
        mc: MatchClause,
    ) -> None:
        self.gen = gen
        self.mc = mc
        self.rng = random.Random(gen.seed + int(hashlib.md5(mc.cypher.encode()).hexdigest(), 16))
        self.props = gen.etype2props.get(mc.n_assignment.get("n", ""), {})
        self.constraints = mc.pattern.property_constraints

    def values(self, expr: str, is_array: bool = False) -> list[Any]:
        v = self.mc.distinct.get((expr, is_array))
        if v is None:
            raise QueryFailed(f"distinct values of {expr} failed", "error")
        return list(v)

    def fill(
        self, rp: ReturnPattern, cypher_args: dict[str, Any], nl_args: dict[str, Any]
    ) -> Candidate:
        """A candidate from ``rp``: its Cypher with the MATCH clause and ``cypher_args``, its
        question with the MATCH clause's NL arguments and ``nl_args``."""
        mc = self.mc
        return Candidate(
            Template(rp.cypher).substitute(match_cypher=mc.cypher, **cypher_args),
            Template(rp.nl_template).substitute(**mc.nl_args, **nl_args),
            mc,
            rp,
        )

    def run(self) -> list[Candidate]:
        gen, mc = self.gen, self.mc
        res: list[Candidate] = []
        handlers: dict[str, Callable[[ReturnPattern], list[Candidate]]] = {
            "n_name": self.n_name,
            "n_name_special": self.n_name,
            "n_prop": self.n_prop,
            "n_name_prop": self.n_name_prop,
            "n_prop_distinct": self.n_prop_distinct,
            "n_prop_array_distinct": self.n_prop_array_distinct,
            "n_order_by": lambda rp: self.n_order(rp, ("ascending", "descending")),
            "n_argmax": lambda rp: self.n_order(rp, ("lowest", "highest")),
            "n_where": self.n_where,
            "n_agg": self.n_agg,
            "n_group_by": self.n_group_by,
            "n_m0_group_by_count": self.n_m0_group_by_count,
            "n_m0_group_by_count_where": self.n_m0_group_by_count_where,
            "n_m0_comparison_argmax": self.n_m0_comparison,
            "n_m0_comparison_boolean": self.n_m0_comparison,
            "n_m0_comparison_arithmetic": self.n_m0_comparison,
            "n_union_count": self.n_plain,
            "n_union_name": self.n_plain,
        }
        for rp in gen.templates.return_patterns:
            if rp.category != mc.pattern.return_category:
                continue
            if gen._has_unnecessary_leaf(mc, rp):
                gen.counters.reject("realism_c_leaf", mc.pattern)
                continue
            try:
                res += handlers[rp.pattern_id](rp)
            except QueryFailed:
                gen.counters.reject("error", mc.pattern)
            except (KeyError, ValueError):
                # a `$` inside a sampled value read as a template placeholder (compat mode)
                gen.counters.reject("error", mc.pattern)
        gen.counters.pattern(mc.pattern)["return_candidates"] += len(res)
        max_return = gen.max_return_for(mc.pattern.category)
        if len(res) > max_return:
            sampled: list[Candidate] = []
            groups: dict[str, list[Candidate]] = collections.defaultdict(list)
            self.rng.shuffle(res)
            for item in res:
                groups[item.rp.pattern_id].append(item)
            while len(sampled) < max_return:
                pid = self.rng.choice([k for k, vs in groups.items() if len(vs) > 0])
                sampled.append(groups[pid].pop(0))
            return sampled
        return res

    def _props(self, *, skip_constrained: bool = True) -> list[tuple[str, str]]:
        return [
            (p, d)
            for p, d in self.props.items()
            if not (p == "name" or (skip_constrained and f"n.{p}" in self.constraints))
        ]

    def n_name(self, rp: ReturnPattern) -> list[Candidate]:
        if "n.name" in self.constraints:
            return []
        return self.n_plain(rp)

    def n_plain(self, rp: ReturnPattern) -> list[Candidate]:
        """The template with only the MATCH clause and its NL arguments filled in."""
        return [self.fill(rp, {}, {})]

    def _per_prop(self, rp: ReturnPattern, props: list[tuple[str, str]]) -> list[Candidate]:
        return [self.fill(rp, dict(prop=p), dict(prop=p)) for p, _ in props]

    def n_prop(self, rp: ReturnPattern) -> list[Candidate]:
        if "n.name" not in self.constraints:
            return []
        return self._per_prop(rp, self._props())

    def n_name_prop(self, rp: ReturnPattern) -> list[Candidate]:
        if "n.name" in self.constraints:
            return []
        return self._per_prop(rp, self._props())

    def n_prop_distinct(self, rp: ReturnPattern) -> list[Candidate]:
        if self.mc.num_matched_node < 2:
            return []
        return self._per_prop(rp, [(p, d) for p, d in self._props() if d == CATEGORICAL])

    def n_prop_array_distinct(self, rp: ReturnPattern) -> list[Candidate]:
        if "n.name" in self.constraints or self.mc.num_matched_node < 2:
            return []
        return self._per_prop(rp, [(p, d) for p, d in self._props() if d == STR_ARRAY])

    def n_order(self, rp: ReturnPattern, words: tuple[str, str]) -> list[Candidate]:
        if "n.name" in self.constraints or self.mc.num_matched_node < 2:
            return []
        res = []
        for prop, dtype in self.props.items():
            if dtype in (INT, FLOAT, DATE):
                order = self.rng.sample(["ASC", "DESC"], 1)[0]
                res.append(
                    self.fill(
                        rp,
                        dict(prop=prop, order=order),
                        dict(prop=prop, order_nl=words[0] if order == "ASC" else words[1]),
                    )
                )
        return res

    def n_where(self, rp: ReturnPattern) -> list[Candidate]:
        if "n.name" in self.constraints or self.mc.num_matched_node < 2:
            return []
        _mc, rng = self.mc, self.rng
        esc = not self.gen.compat
        res = []
        for prop, dtype in self._props():
            if dtype in (CATEGORICAL, BOOL) or dtype not in (INT, FLOAT, DATE, STR, STR_ARRAY):
                continue
            distinct_values = self.values(f"n.`{prop}`", dtype == STR_ARRAY)
            if dtype == INT:
                distinct_values = [v for v in distinct_values if v > 2]
            if len(distinct_values) < 2:
                continue
            condition: str | None = None
            condition_nl: str | None = None
            if dtype == INT:
                if prop.endswith("year") or prop.endswith("time"):
                    op, value = sample_op_value(
                        ["<", ">", "="], distinct_values, rng, do_round=False
                    )
                else:
                    op, value = sample_op_value(
                        ["<", ">", "<=", ">=", "=", "<>"], distinct_values, rng, do_round=True
                    )
            elif dtype == FLOAT:
                op, value = sample_op_value(
                    ["<", ">", "<=", ">="], distinct_values, rng, do_round=True
                )
            elif dtype == DATE:
                years = self.values(f"n.`{prop}`.year")
                if len(years) >= 2 and rng.random() < 0.5:
                    prop = f"{prop}.year"
                    op, value = sample_op_value(["<", ">", "="], years, rng, do_round=False)
                else:
                    op, value = sample_op_value(["<", ">", "="], distinct_values, rng)
            elif dtype == STR:
                op, value = sample_op_value(["=", "<>"], distinct_values, rng)
                condition = f"n.{prop} {op} {escape_and_quote(value, escape_backslash=esc)}"
                condition_nl = f'{prop} is "{value}"' if op == "=" else f'{prop} is not "{value}"'
            else:  # list[str]
                op, value = sample_op_value(["=", "<>"], distinct_values, rng)
                lit = escape_and_quote(value, escape_backslash=esc)
                if op == "=":
                    condition, condition_nl = f"{lit} IN n.{prop}", f'have "{value}" as {prop}'
                else:
                    condition, condition_nl = f"NOT {lit} IN n.{prop}", f'{prop} is not "{value}"'
            if condition is None:
                condition = f"n.{prop} {op} {escape_and_quote(value, escape_backslash=esc)}"
                condition_nl = f"{prop} {op} {value}"
            res.append(self.fill(rp, dict(condition=condition), dict(condition_nl=condition_nl)))
        return res

    _AGG_NL: ClassVar[dict[str, str]] = {
        "min": "minimum",
        "max": "maximum",
        "avg": "average",
        "count": "number",
    }

    def _aggregate(
        self, prop: str, dtype: str, int_ops: list[str], name_as: str
    ) -> tuple[str, str, str] | None:
        """CypherBench's aggregate of ``n.<prop>`` (of ``dtype``) for the aggregation
        templates, drawn with the clause's RNG in the original's order: ``(op, clause, prop
        as named)``. An INT property takes one of ``int_ops``, a FLOAT one min, max or avg, a
        DATE one min or max of the date or, half the time, of its year (named
        ``<prop>.year``); ``name`` the count of distinct nodes (named ``name_as``); a
        categorical one the count of its distinct values. None for another type."""
        rng = self.rng
        if dtype in (INT, FLOAT):
            agg_op = rng.sample(int_ops if dtype == INT else ["min", "max", "avg"], 1)[0]
        elif dtype == DATE:
            agg_op = rng.sample(["min", "max"], 1)[0]
            if rng.random() < 0.5:
                prop = f"{prop}.year"
        elif prop == "name":
            return "count", "count(DISTINCT n)", name_as
        elif dtype == CATEGORICAL:
            return rng.sample(["count"], 1)[0], f"count(DISTINCT n.{prop})", prop
        else:
            return None
        return agg_op, f"{agg_op}(n.{prop})", prop

    def n_agg(self, rp: ReturnPattern) -> list[Candidate]:
        if "n.name" in self.constraints or self.mc.num_matched_node < 2:
            return []
        res = []
        for prop, dtype in self.props.items():
            agg = self._aggregate(prop, dtype, ["min", "max"], "name")
            if agg is None:
                continue
            agg_op, agg_clause, prop = agg
            agg_nl = "number" if prop == "name" else f"{self._AGG_NL[agg_op]} of {prop}"
            res.append(self.fill(rp, dict(agg_clause=agg_clause), dict(agg_clause_nl=agg_nl)))
        return res

    def n_group_by(self, rp: ReturnPattern) -> list[Candidate]:
        if "n.name" in self.constraints or self.mc.num_matched_node < 2:
            return []
        etype = self.mc.n_assignment["n"]
        res = []
        for key, kdtype in self.props.items():
            if kdtype != CATEGORICAL:
                continue
            if len(self.values(f"n.`{key}`")) < 2:
                continue
            for prop, dtype in self.props.items():
                if prop == key:
                    continue
                agg = self._aggregate(prop, dtype, ["min", "max", "avg"], etype)
                if agg is None:
                    continue
                agg_op, agg_clause, prop = agg
                res.append(
                    self.fill(
                        rp,
                        dict(key=key, agg_clause=agg_clause),
                        dict(key=key, agg_clause_nl=f"{self._AGG_NL[agg_op]} of {prop}"),
                    )
                )
        return res

    def _groups_by_m0(self) -> bool:
        """Whether the clause can be grouped by ``m0``: two or more matched nodes and no
        invalid group-by (realism filter (d); a rejection is counted)."""
        mc = self.mc
        if mc.num_matched_node < 2:
            return False
        if self.gen._has_invalid_group_by(mc):
            self.gen.counters.reject("realism_d_group_by", mc.pattern)
            return False
        return True

    def n_m0_group_by_count(self, rp: ReturnPattern) -> list[Candidate]:
        return self.n_plain(rp) if self._groups_by_m0() else []

    def n_m0_group_by_count_where(self, rp: ReturnPattern) -> list[Candidate]:
        if not self._groups_by_m0():
            return []
        values = [v for v in self.values("num") if v > 2]
        if len(values) < 2:
            return []
        op, value = sample_op_value(["<", ">", "<=", ">="], values, self.rng, do_round=True)
        return [self.fill(rp, dict(op=op, value=value), dict(op=op, value=value))]

    _COMPARISON_TYPES: ClassVar[dict[str, tuple[str, ...]]] = {
        "n_m0_comparison_argmax": (INT, FLOAT, DATE),
        "n_m0_comparison_boolean": (CATEGORICAL, INT),
        "n_m0_comparison_arithmetic": (INT, FLOAT),
    }

    def n_m0_comparison(self, rp: ReturnPattern) -> list[Candidate]:
        mc = self.mc
        prop = mc.nl_args["prop"]
        if (
            self.gen.etype2props[mc.n_assignment["m0"]][prop]
            not in self._COMPARISON_TYPES[rp.pattern_id]
        ):
            return []
        if (
            rp.pattern_id == "n_m0_comparison_argmax"
            and mc.prop_values[f"n_{prop}"] == mc.prop_values[f"m0_{prop}"]
        ):
            return []
        return [self.fill(rp, dict(prop=prop), {})]


def _atomic_write_json(path: Path, data: Any) -> None:
    from kgbench.fileio import write_json_atomic

    write_json_atomic(path, data)


def generate_cypherbench(
    uri: str,
    templates: str | os.PathLike[str] | None,
    traits: str | os.PathLike[str],
    graph: str,
    out: str | os.PathLike[str] | None = None,
    *,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
    split: str = "test",
    seed: int = 42,
    per_category: int | None = None,
    compat: str | None = None,
    pivot_cap: int = 64,
    allow_uninformative: bool = False,
    llm: Any = None,
    verify_rounds: int | None = None,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
    reader: GraphReader | None = None,
) -> GenerationResult:
    """Generate a CypherBench-format text-to-Cypher benchmark from the Neo4j graph at ``uri``.

    ``templates`` a template file (None: CypherBench's own, :data:`DEFAULT_TEMPLATES`);
    ``traits`` a relation-traits file (``graph_info.json`` shape) holding ``graph``; ``out`` a
    directory for ``tasks.json`` and ``report.json`` (written atomically, only when the run
    succeeds; None: nothing written). ``split`` ``test`` (cap 60 per MATCH category, k 2) or
    ``train`` (10000, k 10); ``per_category`` overrides the cap. ``compat="cypherbench"``
    reproduces the original (module docstring). Gold results that are uninformative (all
    null, a single 0 / false / empty list; metrics.md §1) are rejected (``uninformative``)
    unless ``allow_uninformative`` or compat mode. ``llm`` a :class:`kgbench.llm.LLMClient`
    for the rewrite and verify steps (None: offline, ``nl_question`` = template text);
    ``verify_rounds`` defaults to 3 (test, failures take the correct rewrite) or 1 (train,
    failures dropped). ``reader`` an open :class:`GraphReader` (then ``uri`` is only recorded).

    Returns a :class:`GenerationResult`. Raises :class:`kgbench.generate.patterns.TemplateError`
    for a template or traits file that does not validate (JSON path named),
    :class:`kgbench.errors.KgbenchError` for an unreachable server, refused credentials or a
    graph with no entities — in each case before anything is written.
    """
    t_start = time.perf_counter()
    tpl = load_templates(Path(templates) if templates is not None else DEFAULT_TEMPLATES)
    traits_table = TraitsTable(load_traits(Path(traits), graph))
    own_reader = reader is None
    if reader is None:
        reader = GraphReader.connect(uri, user, password, database)
    gen = CypherBenchGenerator(
        reader,
        tpl,
        traits_table,
        graph,
        split=split,
        seed=seed,
        compat=compat,
        per_category=per_category,
        pivot_cap=pivot_cap,
        allow_uninformative=allow_uninformative,
        progress=progress,
        log=log,
    )
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tasks = gen.run()
        for w in caught:
            if log is not None:
                log(f"warning: {w.message}")
    finally:
        if own_reader:
            reader.close()
    llm_report: dict[str, Any] | None = None
    if llm is not None and tasks:
        from kgbench.generate.llm_steps import rewrite_questions, verify_rewrites

        for t, q in zip(tasks, rewrite_questions(llm, tasks, progress=progress), strict=True):
            t["nl_question"] = q
        rounds = verify_rounds if verify_rounds is not None else (3 if split == "test" else 1)
        n_before = len(tasks)
        tasks, bad = verify_rewrites(llm, tasks, rounds=rounds, drop_failures=split == "train")
        llm_report = {
            "model": getattr(llm, "model", None),
            "verify_rounds": rounds,
            "bad_samples": bad,
            "dropped": n_before - len(tasks),
            "stats": dict(getattr(llm, "stats", {})),
        }
    else:
        for t in tasks:
            t["nl_question"] = t["nl_question_raw"]
    total_s = time.perf_counter() - t_start
    report = _report(gen, tasks, uri, tpl, traits, total_s, llm_report)
    result = GenerationResult(tasks=tasks, report=report)
    if out is not None:
        out_dir = Path(out)
        result.tasks_path = out_dir / "tasks.json"
        result.report_path = out_dir / "report.json"
        _atomic_write_json(result.report_path, report)
        _atomic_write_json(result.tasks_path, tasks)
    return result


def _report(
    gen: CypherBenchGenerator,
    tasks: list[dict[str, Any]],
    uri: str,
    tpl: Templates,
    traits: str | os.PathLike[str],
    total_s: float,
    llm_report: dict[str, Any] | None,
) -> dict[str, Any]:
    by_match = collections.Counter(t["from_template"]["match_category"] for t in tasks)
    by_return = collections.Counter(t["from_template"]["return_pattern_id"] for t in tasks)
    cand_return = collections.Counter(c.rp.pattern_id for c in getattr(gen, "candidates", []))
    cand_match = collections.Counter(c.mc.pattern.category for c in getattr(gen, "candidates", []))
    rejections = {r: gen.counters.rejections.get(r, 0) for r in REJECTION_REASONS}
    neo4j_s = gen.reader.neo4j_s
    nodes, rels = getattr(gen, "snapshot_counts", (0, 0))
    return {
        "generator": "cypherbench",
        "graph": gen.graph,
        "uri": uri,
        "templates": tpl.path,
        "traits": str(traits),
        "seed": gen.seed,
        "split": gen.split,
        "mode": "cypherbench" if gen.compat else "default",
        "limits": {
            "max_per_match_category": gen.max_per_category,
            "k": gen.cfg["k"],
            "k_small_categories": gen.cfg["k_small"],
            "max_return_per_match": gen.cfg["max_return"],
            "pivot_cap": gen.pivot_cap,
            "max_records": MAX_RECORDS,
            "timeout_s": VALIDATION_TIMEOUT_S,
        },
        "graph_size": {"nodes": nodes, "relationships": rels},
        "tasks": len(tasks),
        "tasks_by_match_category": dict(sorted(by_match.items())),
        "tasks_by_return_template": dict(sorted(by_return.items())),
        "candidates_by_match_category": dict(sorted(cand_match.items())),
        "candidates_by_return_template": dict(sorted(cand_return.items())),
        "match_patterns": {
            k: dict(sorted(v.items())) for k, v in sorted(gen.counters.by_pattern.items())
        },
        "rejections": rejections,
        "capped": gen.counters.rejections.get("capped", 0),
        "missing_traits": sorted(set(gen.traits.missing)),
        "queries": gen.reader.queries,
        "timing": {
            "total_s": round(total_s, 3),
            "neo4j_s": round(neo4j_s, 3),
            "kgbench_s": round(max(total_s - neo4j_s, 0.0), 3),
            **{k: round(v, 3) for k, v in gen.timings.items()},
        },
        "llm": llm_report,
    }
