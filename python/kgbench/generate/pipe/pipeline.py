"""``kgbench generate pipe``: PIPE-Cypher's governed construction end to end (spec
``pipe-cypher.md`` §2; seed pipe-cypher.txt).

Stages, each on the shared layers (:class:`~kgbench.neo4j.GraphReader` for every
query, :mod:`kgbench.llm` for every model call, the Rust Cypher analysis for every gate):

1. **profile** → ``OUT/schema.json`` (:mod:`.profile`);
2. **plan**: per-category generation target ``ceil(target·oversample)``, capacity warnings;
3. **templates**: seed templates (``--seed-templates``), schema-derived templates
   (:func:`.templates.schema_templates`), and CypherBench's MATCH/RETURN patterns: the
   CypherBench generator (issue "Benchmark generation I") samples tasks whose entity sampling
   is their reverse grounding; each task's category is inferred from its Cypher by the
   parser (name/prop → retrieval, agg/group-by → aggregation, argmax → ranking,
   comparison_boolean → boolean, time-sensitive → path_temporal, spec §7);
4. **reverse grounding** and 5. **question and Cypher**: the planner (:mod:`.grounding`);
   with an LLM the Cypher is written by the model (schema, same-category examples with
   placeholders, ``value | L.p`` hints), repaired up to ``repair_attempts`` times when a gate
   fails, then replaced by the template's deterministic Cypher;
6. **gates** G1-G11 (:mod:`.gates`); 7. the **ledger** ``OUT/records.jsonl``, one line per
   candidate;
8. **selection** of ``target`` per (graph, category) by the diversity score (Rust,
   :func:`select_candidates`), then **export** (:mod:`.export`): ``all/train/dev/test.jsonl``,
   ``tasks.json`` (CypherBench format), ``manifest.sha256``; ``OUT/report.json`` holds the
   funnel, rejections per gate, planner events, the selection report and timings.

Offline (no ``llm``) every step is deterministic for a seed: deterministic Cypher, the
deterministic judge, seeded planner draws, stable selection tie-breaks.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import KgbenchError
from kgbench.generate.pipe.features import passes_g2
from kgbench.generate.pipe.gates import (
    DiversityGate,
    GateSettings,
    gate_candidates,
    rejection_counts,
)
from kgbench.neo4j.executor import GraphReader

#: Ledger file name.
LEDGER = "records.jsonl"


@dataclass
class PipeResult:
    """What :func:`generate_pipe` produced: the ledger rows, the selected rows, the export
    summary and the report (also written to ``OUT/report.json``)."""

    ledger: list[dict[str, Any]]
    selected: list[dict[str, Any]]
    export: dict[str, Any]
    report: dict[str, Any]
    out_dir: Path | None = None
    paths: dict[str, Path] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------
# selection


def question_tokens(question: str) -> list[str]:
    """Lower-cased ``[A-Za-z0-9_]+`` words (the original's tokenizer)."""
    import re

    return [m.group(0).lower() for m in re.finditer(r"[A-Za-z0-9_]+", question)]


def quality_score(row: Mapping[str, Any]) -> float:
    """Q of the selection score (spec §4): the mean of the gate pass rate (read-only,
    syntax, schema, execution, judge), the semantic score and the schema score."""
    v = row.get("validation") or {}
    ex = row.get("execution") or {}
    j = row.get("judge") or {}
    gates = [
        v.get("read_only", True),
        passes_g2(v, default=True),
        v.get("schema_valid", True),
        ex.get("success", True),
        j.get("passed", True),
    ]
    deterministic = sum(1.0 for g in gates if g) / 5.0
    semantic = float(j.get("semantic_alignment_score") or 1.0)
    schema_use = float(j.get("schema_use_score") or 1.0)
    return max(0.0, min(1.0, (deterministic + semantic + schema_use) / 3.0))


def selection_tuple(row: Mapping[str, Any], row_id: str) -> tuple[Any, ...]:
    """The candidate tuple :func:`kgbench._core.select.select_diverse` takes for a ledger
    row: group ``graph::category``, id, signature, template family, operator combination,
    substructures, schema atoms (``label:``, ``rel:``, ``prop:``), value atoms (normalised
    entity values), question tokens, Q."""
    from kgbench.generate.pipe.export import template_family

    v = row.get("validation") or {}
    f = v.get("structural_features") or {}
    schema_atoms = (
        [f"label:{x}" for x in f.get("labels", [])]
        + [f"rel:{x}" for x in f.get("relationship_types", [])]
        + [f"prop:{x}" for x in f.get("properties", [])]
    )
    values = [" ".join(str(v).casefold().split()) for v in row.get("entity_values") or []]
    return (
        f"{row.get('graph_profile')}::{row.get('category')}",
        row_id,
        str(row.get("signature") or ""),
        template_family(row),
        str(v.get("operator_combination") or ""),
        list(v.get("substructures") or []),
        schema_atoms,
        [v for v in values if v],
        question_tokens(str(row.get("question") or "")),
        quality_score(row),
    )


def select_candidates(
    rows: Sequence[Mapping[str, Any]],
    target_per_group: int,
    *,
    seed: int | str = 13,
    weights: Mapping[str, float] | None = None,
    max_signature_share: float = 0.2,
    max_family_share: float = 0.25,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """PIPE-Cypher's greedy diversity selection (spec §4) of ``target_per_group`` rows per
    (graph, category), in Rust. Returns (selected rows sorted by id, report). ``weights``
    overrides the spec's defaults by name (see :mod:`kgbench._core.select`). Raises
    :class:`kgbench.errors.InputError` for an unknown weight or a target below 1."""
    from kgbench._core.select import select_diverse
    from kgbench.generate.pipe.export import record_id

    ids = [
        record_id(
            str(r.get("graph_profile")),
            str(r.get("category")),
            str(r.get("question")),
            str(r.get("cypher")),
        )
        for r in rows
    ]
    tuples = [selection_tuple(r, i) for r, i in zip(rows, ids, strict=True)]
    groups = select_diverse(
        tuples,
        int(target_per_group),
        str(seed),
        dict(weights) if weights else None,
        max_signature_share,
        max_family_share,
    )
    picked = sorted((i for g in groups for i in g["picked"]), key=lambda i: ids[i])
    report = {
        "method": "greedy_mmr_cypher_diversity",
        "target_per_group": target_per_group,
        "seed": str(seed),
        "input_examples": len(rows),
        "selected_examples": len(picked),
        "groups": {
            g["group"]: {k: v for k, v in g.items() if k not in ("group", "picked")} for g in groups
        },
    }
    return [dict(rows[i]) for i in picked], report


# ---------------------------------------------------------------------------------------
# candidates


def _cypherbench_candidates(
    reader: GraphReader,
    graph: str,
    traits: str | os.PathLike[str] | None,
    seed: int,
    per_category: int,
    log: Callable[[str], None],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """CypherBench-pattern candidates: the CypherBench generator's tasks on this graph."""
    from kgbench.generate.cypherbench import generate_cypherbench
    from kgbench.generate.traits import draft_traits

    with tempfile.TemporaryDirectory(prefix="kgbench-pipe-") as tmp:
        if traits is None:
            drafted = draft_traits(reader.driver, database=reader.database, graph=graph)
            traits = Path(tmp) / "traits.json"
            Path(traits).write_text(json.dumps(drafted), encoding="utf-8")
        result = generate_cypherbench(
            "",
            None,
            traits,
            graph,
            None,
            seed=seed,
            per_category=per_category,
            reader=reader,
            log=log,
        )
    cands = []
    for t in result.tasks:
        ft = t.get("from_template") or {}
        cands.append(
            {
                "question": t["nl_question"],
                "cypher": t["gold_cypher"],
                "graph_profile": graph,
                "entity_values": [],
                "template": f"{ft.get('match_category')} / {ft.get('return_pattern_id')}",
                "template_metadata": {
                    "source": "cypherbench",
                    "schema_template_kind": f"cypherbench:{ft.get('match_category')}"
                    f"/{ft.get('return_pattern_id')}",
                },
                "reverse_cypher": ft.get("match_cypher"),
                "model": None,
                "source": "cypherbench",
            }
        )
    return cands, {"tasks": len(result.tasks), "queries": result.report.get("queries")}


def _write_jsonl(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    from kgbench.fileio import write_jsonl_atomic

    write_jsonl_atomic(path, rows, sort_keys=True)


def _write_json(path: Path, data: Any) -> None:
    from kgbench.fileio import write_json_atomic

    write_json_atomic(path, data)


def generate_pipe(
    reader: GraphReader,
    out: str | os.PathLike[str] | None,
    *,
    graph: str = "graph",
    target: int = 25,
    seed: int = 13,
    oversample: float = 2.0,
    binding_limit: int = 50,
    seed_templates: str | os.PathLike[str] | None = None,
    cypherbench: bool = True,
    cypherbench_traits: str | os.PathLike[str] | None = None,
    llm: Any = None,
    template_mode: str = "default",
    llm_templates_per_category: int = 4,
    repair_attempts: int = 1,
    llm_judge_strict: bool = False,
    redact: bool = False,
    salt: str | None = None,
    split_mode: str = "iid",
    weights: Mapping[str, float] | None = None,
    value_cap_share: float = 0.15,
    allow_uninformative: bool = False,
    dialect: str | None = None,
    log: Callable[[str], None] | None = None,
) -> PipeResult:
    """Build a PIPE-Cypher benchmark from the graph behind ``reader`` (stages: module
    docstring) into ``out`` (None: nothing written).

    ``target``: benchmark questions per category (selected); the generation target per
    category is ``ceil(target·oversample)``. ``llm``: a :class:`kgbench.llm.LLMClient` (None:
    offline). ``template_mode``: ``default`` (seed, schema-derived and CypherBench templates),
    ``llm`` (the model proposes ``llm_templates_per_category`` templates per category, plus
    the seed templates) or ``mixed`` (both; unlike the original, no LLM template is dropped
    by truncation, spec §7). ``split_mode``: ``iid`` or ``signature_disjoint``. ``redact``:
    redact literals (an audit failure raises
    :class:`~kgbench.generate.pipe.redact.RedactionAuditError` and writes no export).
    ``allow_uninformative``: keep questions whose answer is uninformative (G9,
    :mod:`kgbench.generate.pipe.gates`; default: rejected, as empty answers are).
    ``dialect``: the Cypher dialect the gates parse in, ``"5"`` or ``"25"`` (None: the
    dialect of the server behind ``reader``, :func:`kgbench.neo4j.executor.cypher_dialect`).

    Raises:
        InputError: an empty graph (nothing to profile), a bad seed-template file.
        KgbenchError: the server is unreachable.
    """
    from kgbench.generate.pipe.export import export_benchmark
    from kgbench.generate.pipe.grounding import Planner
    from kgbench.generate.pipe.profile import profile_graph
    from kgbench.generate.pipe.templates import (
        dedupe_templates,
        load_seed_templates,
        schema_templates,
    )

    say = log or (lambda _m: None)
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    out_dir = Path(out) if out is not None else None
    if target < 1:
        raise KgbenchError(f"--target must be at least 1 (got {target})")

    # 1. profile
    t = time.perf_counter()
    profile = profile_graph(reader, graph_name=graph)
    timings["profile_s"] = time.perf_counter() - t
    # 2-3. plan and templates
    t = time.perf_counter()
    if template_mode not in ("default", "llm", "mixed"):
        raise KgbenchError(f"template mode must be default, llm or mixed (got {template_mode!r})")
    if template_mode != "default" and llm is None:
        raise KgbenchError(f"template mode {template_mode!r} needs an LLM endpoint")
    templates = list(load_seed_templates(Path(seed_templates))) if seed_templates else []
    if template_mode in ("default", "mixed"):
        templates += schema_templates(profile)
    if template_mode in ("llm", "mixed"):
        templates += llm_templates(llm, profile, llm_templates_per_category)
    templates = dedupe_templates(templates)
    gen_target = max(1, math.ceil(target * oversample))
    timings["templates_s"] = time.perf_counter() - t
    say(
        f"profile: {len(profile.get('node_properties', []))} node properties, "
        f"{len(profile.get('relationships', []))} relationship patterns; "
        f"{len(templates)} templates"
    )

    if dialect is None:
        from kgbench.neo4j.executor import cypher_dialect

        dialect = cypher_dialect(reader.driver, reader.database)
    settings = GateSettings(
        target=gen_target,
        value_cap_share=value_cap_share,
        allow_uninformative=allow_uninformative,
        dialect=dialect,
    )
    if llm is not None:
        settings.judge = _llm_judge(llm, profile, strict=llm_judge_strict)
    diversity = DiversityGate(gen_target, value_cap_share)
    ledger: list[dict[str, Any]] = []

    # CypherBench-pattern candidates first (pre-grounded by its entity sampling)
    cb_report: dict[str, Any] | None = None
    if cypherbench and template_mode != "llm":
        t = time.perf_counter()
        cands, cb_report = _cypherbench_candidates(
            reader, graph, cypherbench_traits, seed, max(2, gen_target // 4), say
        )
        ledger += gate_candidates(
            cands, reader=reader, profile=profile, settings=settings, diversity=diversity
        )
        timings["cypherbench_s"] = time.perf_counter() - t
        say(
            f"cypherbench patterns: {len(cands)} candidates, "
            f"{sum(1 for r in ledger if r['accepted'])} accepted"
        )
    accepted_before = Counter(r["category"] for r in ledger if r["accepted"])

    # 4-6. planner loop: ground, write Cypher, gate
    t = time.perf_counter()
    planner = Planner(
        templates,
        reader,
        gen_target,
        seed=seed,
        binding_limit=binding_limit,
        seen_questions=[(r["category"], r["question"]) for r in ledger if r["accepted"]],
    )
    for cat, n in accepted_before.items():
        planner.accepted[cat] += n
    examples: dict[str, list[tuple[str, str]]] = {}
    llm_stats: Counter[str] = Counter()
    for cand in planner.candidates():
        base = {
            "question": cand.question,
            "cypher": cand.cypher,
            "category": cand.category,
            "graph_profile": graph,
            "entity_values": cand.entity_values,
            "template": cand.template.template,
            "template_metadata": dict(cand.template.metadata),
            "reverse_cypher": cand.reverse_cypher,
            "model": None,
            "source": cand.template.metadata.get("source", "schema"),
        }
        row = None
        # G11 needs no Cypher: a candidate it rejects costs no model call
        if llm is not None and diversity.check(cand.category, cand.question, cand.entity_values):
            row = gate_candidates(
                [base], reader=reader, profile=profile, settings=settings, diversity=diversity
            )[0]
        elif llm is not None:
            row = _llm_candidate(
                llm,
                base,
                cand,
                profile,
                examples,
                reader,
                settings,
                diversity,
                repair_attempts,
                llm_stats,
            )
        if (row is None or row["rejected_at"] not in (None, "diversity", "judge")) and (
            cand.cypher
        ):
            attempt = row
            row = gate_candidates(
                [base], reader=reader, profile=profile, settings=settings, diversity=diversity
            )[0]
            if attempt is not None:
                llm_stats["fallback_deterministic"] += 1
                row["model_attempt"] = {
                    k: attempt[k] for k in ("cypher", "model", "rejected_at", "rejection_reason")
                }
        if row is None:
            planner.mark_rejected(cand, "no_cypher")
            continue
        ledger.append(row)
        if row["accepted"]:
            planner.mark_accepted(cand)
            examples.setdefault(cand.category, []).append((row["question"], row["cypher"]))
        else:
            planner.mark_rejected(cand, str(row["rejected_at"]))
    timings["planner_s"] = time.perf_counter() - t

    # 8. selection and export
    t = time.perf_counter()
    accepted = [r for r in ledger if r["accepted"]]
    selected, selection_report = (
        select_candidates(accepted, target, seed=seed, weights=weights) if accepted else ([], {})
    )
    timings["selection_s"] = time.perf_counter() - t
    export: dict[str, Any] = {}
    paths: dict[str, Path] = {}
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        _write_json(out_dir / "schema.json", profile)
        paths["schema"] = out_dir / "schema.json"
        _write_jsonl(out_dir / LEDGER, ledger)
        paths["ledger"] = out_dir / LEDGER
        t = time.perf_counter()
        export = export_benchmark(
            selected, out_dir, redact=redact, split_mode=split_mode, seed=seed, salt=salt
        )
        timings["export_s"] = time.perf_counter() - t
    funnel = rejection_counts(ledger)
    report = {
        "graph": graph,
        "target_per_category": target,
        "generation_target_per_category": gen_target,
        "seed": seed,
        "llm": None
        if llm is None
        else {
            "model": getattr(llm, "model", None),
            "stats": dict(getattr(llm, "stats", {})),
            "repairs": dict(llm_stats),
        },
        "templates": dict(Counter(tp.category for tp in templates)),
        "funnel": funnel,
        "accepted_by_category": dict(Counter(r["category"] for r in accepted)),
        "selected_by_category": dict(Counter(r["category"] for r in selected)),
        "cypherbench": cb_report,
        "planner": {
            "warnings": planner.warnings,
            "events": planner.events,
            "exhausted": [tp.template_id for tp in planner.exhausted],
        },
        "selection": selection_report,
        "export": {k: v for k, v in export.items() if k != "out_dir"},
        "queries": reader.queries,
        "neo4j_s": round(reader.neo4j_s, 3),
        "timings_s": {k: round(v, 3) for k, v in timings.items()},
        "total_s": round(time.perf_counter() - t0, 3),
    }
    if out_dir is not None:
        _write_json(out_dir / "report.json", report)
        paths["report"] = out_dir / "report.json"
    return PipeResult(ledger, selected, export, report, out_dir, paths)


# ---------------------------------------------------------------------------------------
# LLM steps (spec §5)


def _schema_text(profile: Mapping[str, Any]) -> str:
    rels = ", ".join(
        f"(:{r['start_label']})-[:{r['type']}]->(:{r['end_label']})"
        for r in profile.get("relationships", [])
    )
    props: dict[str, list[str]] = {}
    for p in profile.get("node_properties", []):
        props.setdefault(p["label"], []).append(f"{p['property']}: {p.get('type')}")
    nodes = "; ".join(f"{k} {{{', '.join(v)}}}" for k, v in sorted(props.items()))
    return f"Node labels and properties: {nodes}\nRelationships: {rels}"


def _cypher_messages(
    profile: Mapping[str, Any],
    cand: Any,
    examples: Sequence[tuple[str, str]],
    error: str | None = None,
    previous: str | None = None,
) -> list[dict[str, str]]:
    hints = "\n".join(
        f"{v} | {cand.template.slots.get(k, '')}"
        for k, v in zip(cand.binding, cand.entity_values, strict=False)
    )
    shots = "\n\n".join(f"Question: {q}\nCypher: {c}" for q, c in examples[-3:])
    system = (
        "You translate questions into one read-only Neo4j Cypher query. Use relationship "
        "directions exactly as in the schema, RETURN DISTINCT, the quoted values exactly as "
        "string literals, COUNT(DISTINCT ...) for counts, ORDER BY ... LIMIT for rankings, "
        "and a boolean alias `answer` for yes/no questions. Never use CALL, UNION or any "
        "write clause. Answer with the Cypher query only."
    )
    user = f"{_schema_text(profile)}\n\n"
    if shots:
        user += f"Examples ({cand.category}):\n{shots}\n\n"
    if hints:
        user += f"Values (value | Label.property):\n{hints}\n\n"
    user += f"Question: {cand.question}\nCypher:"
    msgs = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    if error is not None and previous is not None:
        msgs.append({"role": "assistant", "content": previous})
        msgs.append(
            {
                "role": "user",
                "content": f"The query was rejected: {error}. "
                "Write a corrected query. Answer with the Cypher query only.",
            }
        )
    return msgs


def _strip_fence(text: str) -> str:
    s = text.strip()
    if s.startswith("```"):
        s = s.split("\n", 1)[1] if "\n" in s else ""
        s = s.rsplit("```", 1)[0]
    if s.lower().startswith("cypher:"):
        s = s[7:]
    return s.strip().rstrip(";").strip()


def _llm_candidate(
    llm: Any,
    base: dict[str, Any],
    cand: Any,
    profile: Mapping[str, Any],
    examples: dict[str, list[tuple[str, str]]],
    reader: GraphReader,
    settings: GateSettings,
    diversity: DiversityGate,
    repair_attempts: int,
    stats: Counter[str],
) -> dict[str, Any]:
    """The ledger row of the model-written Cypher after up to ``repair_attempts`` repairs
    (spec §2 stages 5-6); the caller falls back to the deterministic Cypher when it was
    rejected by a gate the model can fix (not diversity or the judge)."""
    shots = examples.get(cand.category, [])
    previous = _strip_fence(llm.complete(_cypher_messages(profile, cand, shots)))
    model = getattr(llm, "model", None)
    for attempt in range(1 + max(0, repair_attempts)):
        row = gate_candidates(
            [dict(base, cypher=previous, model=model)],
            reader=reader,
            profile=profile,
            settings=settings,
            diversity=diversity,
        )[0]
        if row["accepted"] or row["rejected_at"] in ("diversity", "judge"):
            if row["accepted"]:
                stats["accepted_after_repair" if attempt else "accepted_first"] += 1
            return row
        if attempt == repair_attempts:
            break
        stats["repairs"] += 1
        issues = row["rejection_reason"] or str(row["rejected_at"])
        previous = _strip_fence(
            llm.complete(_cypher_messages(profile, cand, shots, error=issues, previous=previous))
        )
    return row


def llm_templates(llm: Any, profile: Mapping[str, Any], per_category: int) -> list[Any]:
    """Templates proposed by the model (spec §5: analyst wording, ≤ 2 slots, JSON), for each
    category; a proposal whose slots name no ``Label.property`` of the profile is dropped.
    Their Cypher is written by the model at question time; their reverse query is the
    generic slot lookup."""
    from kgbench.generate.pipe.features import CATEGORIES
    from kgbench.generate.pipe.templates import Template, generic_reverse_cypher

    known = {f"{p['label']}.{p['property']}" for p in profile.get("node_properties", [])}
    out = []
    for category in CATEGORIES:
        msgs = [
            {
                "role": "system",
                "content": (
                    "You write question templates for a text-to-Cypher benchmark, in an "
                    "analyst's wording. Each has at most 2 slots written '{slot}' and bound to a "
                    "Label.property of the schema. Answer with a JSON list of objects "
                    '{"template": "...", "slots": {"slot": "Label.property"}} only.'
                ),
            },
            {
                "role": "user",
                "content": (
                    f"{_schema_text(profile)}\n\nWrite {per_category} templates of category "
                    f"{category}."
                ),
            },
        ]
        try:
            items = json.loads(_strip_fence(llm.complete(msgs)))
        except json.JSONDecodeError:
            continue
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict) or not isinstance(item.get("template"), str):
                continue
            slots = item.get("slots") or {}
            if (
                not isinstance(slots, dict)
                or len(slots) > 2
                or not all(isinstance(v, str) and v in known for v in slots.values())
            ):
                continue
            out.append(
                Template(
                    template=item["template"],
                    category=category,
                    slots=dict(slots),
                    cypher="",
                    reverse_cypher=generic_reverse_cypher(slots) if slots else "",
                    metadata={"source": "llm", "schema_template_kind": None},
                )
            )
    return out


def _llm_judge(llm: Any, profile: Mapping[str, Any], *, strict: bool) -> Any:
    """A G10 judge over :func:`kgbench.generate.pipe.judge.llm_judge`."""
    from kgbench.generate.pipe.judge import llm_judge

    def judge(cand: Mapping[str, Any], row: Mapping[str, Any]) -> dict[str, Any]:
        f = row["validation"]["structural_features"]
        labels = set(f.get("labels", []))
        schema_slice = {
            "node_properties": [
                p for p in profile.get("node_properties", []) if p["label"] in labels
            ],
            "relationships": [
                r
                for r in profile.get("relationships", [])
                if r["type"] in set(f.get("relationship_types", []))
            ],
        }
        summary = {k: row["validation"][k] for k in ("read_only", "syntax_valid", "schema_valid")}
        summary["issues"] = row["validation"]["issues"]
        return llm_judge(
            llm,
            question=row["question"],
            cypher=row["cypher"],
            schema_slice=schema_slice,
            rows=(row["execution"] or {}).get("rows", [])[:5],
            validation_summary=summary,
            difficulty=row["difficulty"],
            strict=strict,
        )

    return judge
