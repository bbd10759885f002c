"""Export of accepted PIPE-Cypher ledger rows as a benchmark (spec ``pipe-cypher.md`` §2.8 and §4
"Signature-disjoint splits"; facts from PIPE-Cypher's ``pipecypher/benchmark_export.py``,
``diversity_selection.py`` and ``diversity_metrics.py``).

:func:`export_benchmark` writes into ``OUT``:

- ``all.jsonl`` — one export row per line (:func:`export_row`), sorted by ``id``, each line
  ``json.dumps(row, ensure_ascii=False, sort_keys=True, default=str)``. The file's bytes are
  exactly what :func:`manifest_sha256` hashes, so ``sha256sum -c manifest.sha256`` checks it;
- ``train.jsonl``, ``dev.jsonl``, ``test.jsonl`` — the same lines split by ``split``;
- ``tasks.json`` — the rows as CypherBench ``Nl2CypherSample`` records (:func:`to_nl2cypher`),
  a JSON array in ``id`` order, evaluable with ``kgbench evaluate``;
- ``manifest.sha256`` — ``"<manifest hash>  all.jsonl\\n"``.

Every file is first written into a temporary directory beside ``OUT``; then an old
``manifest.sha256`` is removed, the data files are moved in with ``os.replace`` and the manifest
comes last, so an interrupted export never has a manifest that does not match its files. With
``redact=True`` the rows are redacted (:mod:`kgbench.generate.pipe.redact`) and audited before
anything is written; a failed audit raises
:class:`~kgbench.generate.pipe.redact.RedactionAuditError` and leaves ``OUT`` untouched.

Ids, splits and the manifest follow the original byte for byte:

- ``id = "pc_" + sha256(json.dumps({graph_profile, category, question, cypher},
  sort_keys=True))[:16]`` (default separators ``", "``/``": "``, ASCII escapes), computed on
  the raw row, so a redacted export keeps the ids of the raw one;
- manifest: sha256 of the id-sorted lines above joined with ``"\\n"`` plus a final ``"\\n"``;
- iid splits per (graph_profile, category) cell in ``sha256("pipe-cypher-v1:" + id)`` order:
  the first ``train`` rows go to train, the next ``dev`` to dev, the last ``test`` to test
  (:func:`split_counts`); then, with 3 rows or more in all, an empty split takes the last row
  assigned to the largest split holding more than one;
- signature-disjoint splits: rows grouped by their ``signature``; blocks, largest first (ties:
  ``sha256(f"{seed}:{block id}")``, block id the sorted ids joined by ``|``), each go to the
  split with the largest deficit against :func:`split_counts` of all rows (ties: the smallest
  overshoot, then ``sha256(f"{seed}:{split}:{block id}")``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.generate.pipe.features import passes_g2
from kgbench.generate.pipe.redact import check_redaction, redact_rows
from kgbench.tasks import TASK_FIELDS

#: Split names in assignment order.
SPLITS = ("train", "dev", "test")

#: Fractions of a cell for dev and test (the original's ``DEFAULT_SPLITS``).
DEV_FRACTION = 0.1
TEST_FRACTION = 0.1

#: Namespace of the iid ordering hash (the original export's ``split_seed``).
IID_SPLIT_KEY = "pipe-cypher-v1"

#: Split modes of :func:`assign_splits`.
SPLIT_MODES = ("iid", "signature_disjoint")

#: Result rows kept per exported row.
RESULT_SAMPLE_ROWS = 5

#: Rows the ledger keeps per execution (spec §2.7); a ledger with this many may be truncated.
LEDGER_ROW_LIMIT = 25

#: Files of an export, the manifest last.
EXPORT_FILES = ("all.jsonl", "train.jsonl", "dev.jsonl", "test.jsonl", "tasks.json")
MANIFEST_FILE = "manifest.sha256"


# -- ids and hashes ----------------------------------------------------------------------


def record_id(graph_profile: str, category: str, question: str, cypher: str) -> str:
    """The stable id of a benchmark row: ``"pc_"`` + 16 hex digits (spec §2.8).

    sha256 of ``json.dumps({"graph_profile", "category", "question", "cypher"},
    sort_keys=True)`` — Python's default separators and ``ensure_ascii=True``, encoded as
    UTF-8 — as PIPE-Cypher's ``benchmark_id`` (``benchmark_export.py``).
    """
    payload = {
        "graph_profile": graph_profile,
        "category": category,
        "question": question,
        "cypher": cypher,
    }
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()
    return f"pc_{digest[:16]}"


def _row_id(row: Mapping[str, Any]) -> str:
    rid = row.get("id")
    if isinstance(rid, str) and rid:
        return rid
    return record_id(
        row.get("graph_profile", ""),
        row.get("category", ""),
        row.get("question", ""),
        row.get("cypher", ""),
    )


def jsonl_line(row: Mapping[str, Any]) -> str:
    """The canonical JSON line of an export row (no newline): ``json.dumps(row,
    ensure_ascii=False, sort_keys=True, default=str)`` (the original's ``_canonical_sha256``)."""
    return json.dumps(row, ensure_ascii=False, sort_keys=True, default=str)


def _jsonl_payload(rows: Iterable[Mapping[str, Any]]) -> str:
    lines = [jsonl_line(row) for row in sorted(rows, key=_row_id)]
    return "\n".join(lines) + "\n"


def manifest_sha256(rows: Iterable[Mapping[str, Any]]) -> str:
    """The manifest hash of export rows (spec §2.8): hex sha256 of the UTF-8 text made of
    :func:`jsonl_line` of each row sorted by ``id``, joined with ``"\\n"``, plus a final
    ``"\\n"`` (no rows: the hash of ``"\\n"``). Rows without an ``id`` sort by
    :func:`record_id`."""
    return hashlib.sha256(_jsonl_payload(rows).encode("utf-8")).hexdigest()


# -- splits ------------------------------------------------------------------------------


def split_counts(n: int) -> dict[str, int]:
    """Rows of a cell of ``n`` per split, ``{"train", "dev", "test"}`` (spec §2.8).

    ``test = max(1, round(n * 0.1))`` and the same for dev, with Python's half-even ``round``
    (125 rows: 12 + 12); when test + dev would reach ``n`` both are 1. Small cells as the
    original's ``_split_counts``: 0 rows → all 0; 1 → train only; 2 → train 1, test 1.
    """
    if n <= 0:
        return {"train": 0, "dev": 0, "test": 0}
    if n == 1:
        return {"train": 1, "dev": 0, "test": 0}
    if n == 2:
        return {"train": 1, "dev": 0, "test": 1}
    test = max(1, round(n * TEST_FRACTION))
    dev = max(1, round(n * DEV_FRACTION))
    if test + dev >= n:
        test = dev = 1
    return {"train": n - dev - test, "dev": dev, "test": test}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _iid_splits(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    cells: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in sorted(rows, key=_row_id):
        cells[(str(row.get("graph_profile")), str(row.get("category")))].append(row)
    splits: dict[str, list[dict[str, Any]]] = {name: [] for name in SPLITS}
    for members in cells.values():
        ordered = sorted(members, key=lambda r: _sha(f"{IID_SPLIT_KEY}:{_row_id(r)}"))
        counts = split_counts(len(ordered))
        cursor = 0
        for name in SPLITS:
            splits[name].extend(ordered[cursor : cursor + counts[name]])
            cursor += counts[name]
    if len(rows) >= 3:
        for name in SPLITS:
            if splits[name]:
                continue
            donors = [d for d in SPLITS if len(splits[d]) > 1]
            if donors:
                donor = max(donors, key=lambda d: len(splits[d]))
                splits[name].append(splits[donor].pop())
    return splits


def _signature(row: Mapping[str, Any]) -> str:
    sig = row.get("signature")
    if not isinstance(sig, str) or not sig:
        raise InputError(
            f"row {_row_id(row)}: signature-disjoint splits need a non-empty 'signature'"
        )
    return sig


def _signature_splits(
    rows: list[dict[str, Any]], seed: int | str
) -> dict[str, list[dict[str, Any]]]:
    blocks: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        blocks[_signature(row)].append(row)
    block_ids = {sig: "|".join(sorted(_row_id(r) for r in block)) for sig, block in blocks.items()}
    order = sorted(blocks, key=lambda s: (-len(blocks[s]), _sha(f"{seed}:{block_ids[s]}")))
    targets = split_counts(len(rows))
    counts = dict.fromkeys(SPLITS, 0)
    splits: dict[str, list[dict[str, Any]]] = {name: [] for name in SPLITS}
    for sig in order:
        size, bid = len(blocks[sig]), block_ids[sig]
        name = min(
            SPLITS,
            key=lambda s: (
                -(targets[s] - counts[s]),
                counts[s] + size - targets[s],
                _sha(f"{seed}:{s}:{bid}"),
            ),
        )
        splits[name].extend(blocks[sig])
        counts[name] += size
    return splits


def assign_splits(
    rows: Sequence[Mapping[str, Any]], *, mode: str = "iid", seed: int | str = 13
) -> dict[str, list[dict[str, Any]]]:
    """Split export rows into ``{"train", "dev", "test"}`` lists, each sorted by ``id``.

    ``mode="iid"``: per (graph_profile, category) cell, as the module docstring says; the order
    is the spec's fixed ``sha256("pipe-cypher-v1:" + id)`` and ``seed`` is not used.
    ``mode="signature_disjoint"``: whole ``signature`` blocks per split (no signature in two
    splits), tie-broken with ``seed`` (13 in the original). Rows keep their identity (the
    lists hold the given dicts); a row without ``id`` is keyed by :func:`record_id`. Raises
    :class:`~kgbench.errors.InputError` for an unknown mode or, in signature-disjoint mode, a
    row without a signature.
    """
    if mode not in SPLIT_MODES:
        raise InputError(f"split mode must be one of {', '.join(SPLIT_MODES)}, got {mode!r}")
    items = [row if isinstance(row, dict) else dict(row) for row in rows]
    splits = _iid_splits(items) if mode == "iid" else _signature_splits(items, seed)
    return {name: sorted(members, key=_row_id) for name, members in splits.items()}


# -- rows --------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z0-9_]+")


def template_family(row: Mapping[str, Any]) -> str:
    """The template family of a row (PIPE-Cypher ``template_family_signature``):
    ``"schema:" + template_metadata.schema_template_kind`` when set; else ``"template:"`` +
    the template lower-cased with ``{slots}`` → ``slot``, ``'quoted'`` → ``value``, numbers →
    ``number``, as its ``[A-Za-z0-9_]+`` words joined by spaces; else ``"query:"`` + the row's
    ``signature``."""
    metadata = row.get("template_metadata")
    kind = metadata.get("schema_template_kind") if isinstance(metadata, Mapping) else None
    if kind:
        return f"schema:{kind}"
    template = row.get("template")
    if template:
        text = re.sub(r"\{[^}]+\}", "{slot}", str(template).lower())
        text = re.sub(r"'[^']*'", "'<value>'", text)
        text = re.sub(r"\b\d+(?:\.\d+)?\b", "<number>", text)
        return "template:" + " ".join(_WORD.findall(text))
    return "query:" + str(row.get("signature") or "")


def _require_text(row: Mapping[str, Any], index: int, name: str) -> str:
    value = row.get(name)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"ledger row {index}: field {name!r} must be a non-empty string")
    return value


def _mapping(row: Mapping[str, Any], index: int, name: str) -> Mapping[str, Any]:
    value = row.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"ledger row {index}: field {name!r} must be an object")
    return value


def _list(value: Any, index: int, name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise InputError(f"ledger row {index}: field {name!r} must be a list")
    return list(value)


def export_row(row: Mapping[str, Any], index: int = 0) -> dict[str, Any]:
    """The export row of one accepted ledger row (spec §2.7–2.8; the original's
    ``materialize_benchmark_examples``).

    ``validation`` is the parser analysis the gates store. Fields: ``id`` (:func:`record_id`),
    ``graph_profile``, ``category``, ``difficulty`` (the row's, else
    ``validation.difficulty``, else ``validation.structural_features.difficulty``, else
    ``"unknown"``), ``question``, ``cypher``, ``normalized_cypher`` (``validation``'s),
    ``signature`` (the row's, else ``validation.signature``), ``structural_features``
    (``validation``'s), ``entity_values``, ``string_literals`` (the row's list of values),
    ``template``, ``template_metadata``, ``reverse_cypher``, ``model``, ``result_rows_sample``
    (the first 5 of ``execution.rows``), ``result_row_count_observed``, ``gates{read_only,
    syntax_valid`` (PIPE-Cypher's G2 verdict, :func:`~kgbench.generate.pipe.features.passes_g2`),
    ``schema_valid, execution_success, judge_pass, accepted}`` and
    ``judge_scores{ambiguity, semantic_alignment, schema_use, difficulty}``. ``validation``
    itself (issues, substructures, literal spans, ...) is not copied. ``index`` names the row
    in errors. Raises
    :class:`~kgbench.errors.InputError` when question, cypher, category or graph_profile is not
    a non-empty string, validation/execution/judge is not an object, or entity_values,
    string_literals or execution.rows is not a list.
    """
    question = _require_text(row, index, "question")
    cypher = _require_text(row, index, "cypher")
    category = _require_text(row, index, "category")
    graph = _require_text(row, index, "graph_profile")
    validation = _mapping(row, index, "validation")
    execution = _mapping(row, index, "execution")
    judge = _mapping(row, index, "judge")
    features = validation.get("structural_features") or {}
    result_rows = _list(execution.get("rows"), index, "execution.rows")
    out: dict[str, Any] = {
        "id": record_id(graph, category, question, cypher),
        "graph_profile": graph,
        "category": category,
        "difficulty": row.get("difficulty")
        or validation.get("difficulty")
        or features.get("difficulty")
        or "unknown",
        "question": question,
        "cypher": cypher,
        "normalized_cypher": validation.get("normalized_cypher"),
        "signature": row.get("signature") or validation.get("signature"),
        "structural_features": features,
        "entity_values": _list(row.get("entity_values"), index, "entity_values"),
        "string_literals": _list(row.get("string_literals"), index, "string_literals"),
        "template": row.get("template"),
        "template_metadata": row.get("template_metadata") or {},
        "reverse_cypher": row.get("reverse_cypher"),
        "model": row.get("model"),
        "result_rows_sample": result_rows[:RESULT_SAMPLE_ROWS],
        "result_row_count_observed": len(result_rows),
        "gates": {
            "read_only": bool(validation.get("read_only")),
            "syntax_valid": passes_g2(validation, default=False),
            "schema_valid": bool(validation.get("schema_valid")),
            "execution_success": bool(execution.get("success")),
            "judge_pass": bool(judge.get("passed")),
            "accepted": bool(row.get("accepted")),
        },
        "judge_scores": {
            "ambiguity": judge.get("ambiguity_score"),
            "semantic_alignment": judge.get("semantic_alignment_score"),
            "schema_use": judge.get("schema_use_score"),
            "difficulty": judge.get("difficulty"),
        },
    }
    return out


def _gold_rows(row: Mapping[str, Any]) -> list[Any] | None:
    """The complete gold answer of a row when it is known, else None."""
    execution = row.get("execution")
    if isinstance(execution, Mapping) and execution.get("success"):
        rows = list(execution.get("rows") or [])
        return rows if len(rows) < LEDGER_ROW_LIMIT else None
    sample = row.get("result_rows_sample")
    observed = row.get("result_row_count_observed")
    if isinstance(sample, list) and isinstance(observed, int) and observed == len(sample):
        return sample
    return None


def to_nl2cypher(row: Mapping[str, Any]) -> dict[str, Any]:
    """A CypherBench ``Nl2CypherSample`` record of an export row, fields in
    :data:`kgbench.tasks.TASK_FIELDS` order (SPEC.md §3).

    ``qid`` = ``id`` (:func:`record_id` if absent), ``graph`` = ``graph_profile``,
    ``gold_cypher`` = ``cypher``, ``gold_match_cypher`` = None, ``nl_question`` and
    ``nl_question_raw`` = ``question`` (PIPE-Cypher's question is the filled template; there is
    no rewrite step), ``answer_json`` = ``json.dumps`` of the gold rows as lists of values in
    column order (as kgbench's CypherBench generator writes it) when the whole answer is known —
    a ledger row whose ``execution.rows`` has fewer than 25 rows, or an export row whose
    ``result_rows_sample`` holds every observed row (≤ 5) — else None, ``pred_cypher`` = None,
    ``metrics`` = {}. ``from_template`` = ``{match_category: category, match_cypher: cypher,
    return_pattern_id: template family (:func:`template_family`), return_cypher: ""}``:
    PIPE-Cypher has no MATCH/RETURN template split, so the whole gold query stands for the MATCH
    part and the RETURN part is empty; both are strings because ``kgbench evaluate`` requires
    strings there. A row with a ``split`` keeps it as a trailing extra field.
    """
    gold = _gold_rows(row)
    answer = None
    if gold is not None:
        values = [list(r.values()) if isinstance(r, Mapping) else r for r in gold]
        answer = json.dumps(values, ensure_ascii=False, default=str)
    record = {
        "qid": _row_id(row),
        "graph": row.get("graph_profile"),
        "gold_cypher": row.get("cypher"),
        "gold_match_cypher": None,
        "nl_question": row.get("question"),
        "nl_question_raw": row.get("question"),
        "answer_json": answer,
        "from_template": {
            "match_category": str(row.get("category") or ""),
            "match_cypher": str(row.get("cypher") or ""),
            "return_pattern_id": template_family(row),
            "return_cypher": "",
        },
        "pred_cypher": None,
        "metrics": {},
    }
    out = {name: record[name] for name in TASK_FIELDS}
    if row.get("split") is not None:
        out["split"] = row["split"]
    return out


# -- export ------------------------------------------------------------------------------


def _write_text(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _install(tmp: Path, out: Path) -> None:
    """Move the files of ``tmp`` into ``out``: manifest removed first, installed last."""
    (out / MANIFEST_FILE).unlink(missing_ok=True)
    for name in EXPORT_FILES:
        os.replace(tmp / name, out / name)
    os.replace(tmp / MANIFEST_FILE, out / MANIFEST_FILE)


def export_benchmark(
    rows: Iterable[Mapping[str, Any]],
    out_dir: str | os.PathLike[str],
    *,
    redact: bool = False,
    split_mode: str = "iid",
    seed: int | str = 13,
    salt: str | None = None,
) -> dict[str, Any]:
    """Write the benchmark of accepted ledger rows into ``out_dir`` (spec §2.8; files as the
    module docstring lists) and return its summary.

    Rows whose ``accepted`` is false are skipped; of rows repeating a (graph_profile,
    category, lower-cased whitespace-collapsed question) or an id, the first is kept (the
    original's export). ``split_mode`` and ``seed`` go to :func:`assign_splits`. ``redact``
    redacts every row (:func:`~kgbench.generate.pipe.redact.redact_rows`, placeholders
    salted with ``salt`` when given) and audits the result before writing.

    Summary: ``{"out_dir", "rows", "skipped_not_accepted", "duplicates", "split_mode",
    "seed", "by_split": {split: n}, "by_cell": {"graph::category": {split: n}},
    "manifest_sha256", "redaction"}`` where ``redaction`` is None or ``{"salted", "rows",
    "rows_with_values", "values", "findings"}`` (``findings`` is 0 after a passed audit).

    Raises :class:`~kgbench.errors.InputError` for malformed rows or split mode,
    :class:`~kgbench.generate.pipe.redact.RedactionAuditError` when a raw value survives
    redaction (nothing is written), and ``OSError`` when ``out_dir`` cannot be written (a
    partial export never carries a manifest).
    """
    if split_mode not in SPLIT_MODES:
        raise InputError(f"split mode must be one of {', '.join(SPLIT_MODES)}, got {split_mode!r}")
    exported: list[dict[str, Any]] = []
    seen_questions: set[tuple[str, str, str]] = set()
    seen_ids: set[str] = set()
    skipped = duplicates = 0
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise InputError(f"ledger row {index}: expected an object, got {type(row).__name__}")
        if not row.get("accepted"):
            skipped += 1
            continue
        item = export_row(row, index)
        key = (item["graph_profile"], item["category"], " ".join(item["question"].lower().split()))
        if key in seen_questions or item["id"] in seen_ids:
            duplicates += 1
            continue
        seen_questions.add(key)
        seen_ids.add(item["id"])
        exported.append(item)

    splits = assign_splits(exported, mode=split_mode, seed=seed)
    for name, members in splits.items():
        for item in members:
            item["split"] = name

    redaction: dict[str, Any] | None = None
    final = sorted(exported, key=lambda r: r["id"])
    if redact:
        pairs = redact_rows(final, salt=salt)
        redacted = [clean for clean, _ in pairs]
        raw_values = [list(mapping) for _, mapping in pairs]
        check_redaction(redacted, raw_values)
        final = redacted
        redaction = {
            "salted": salt is not None,
            "rows": len(final),
            "rows_with_values": sum(1 for values in raw_values if values),
            "values": sum(len(values) for values in raw_values),
            "findings": 0,
        }

    by_split = {name: [r for r in final if r["split"] == name] for name in SPLITS}
    payload = _jsonl_payload(final)
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()
    tasks = [to_nl2cypher(r) for r in final]

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.export.", dir=out.parent))
    try:
        _write_text(tmp / "all.jsonl", payload)
        for name in SPLITS:
            lines = "".join(jsonl_line(r) + "\n" for r in by_split[name])
            _write_text(tmp / f"{name}.jsonl", lines)
        _write_text(tmp / "tasks.json", json.dumps(tasks, indent=2, ensure_ascii=False) + "\n")
        _write_text(tmp / MANIFEST_FILE, f"{digest}  all.jsonl\n")
        _install(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    by_cell: dict[str, Counter[str]] = defaultdict(Counter)
    for r in final:
        by_cell[f"{r['graph_profile']}::{r['category']}"][r["split"]] += 1
    return {
        "out_dir": str(out),
        "rows": len(final),
        "skipped_not_accepted": skipped,
        "duplicates": duplicates,
        "split_mode": split_mode,
        "seed": seed,
        "by_split": {name: len(by_split[name]) for name in SPLITS},
        "by_cell": {cell: {s: by_cell[cell][s] for s in SPLITS} for cell in sorted(by_cell)},
        "manifest_sha256": digest,
        "redaction": redaction,
    }
