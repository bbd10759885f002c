"""PIPE-Cypher's benchmark diversity metrics (``../shared/spec/pipe-cypher.md`` §4, §6;
definitions from the MIT repo ``suraj-ranganath/PIPE-Cypher``, ``diversity_metrics.py``).

:func:`diversity_report` measures a text-to-Cypher benchmark along six axes and combines
them into PIPE-Diversity, the geometric mean of six component means:

* **lexical** — question text: Distinct-n, EAD-n, self-BLEU-2 and token Jaccard;
* **query_template** — Cypher signatures and template families;
* **structural** — strategies, operator combinations and substructure atoms;
* **schema** — coverage of labels, relationship types and properties;
* **value** — diversity and exact quoting of the grounded entity values;
* **balance** — entropy of the category, graph×category and difficulty distributions.

Where the original applies regular expressions to Cypher (signatures, properties,
aggregates, predicates, substructures, quoted literals), kgbench uses the parser-based
analysis of :func:`kgbench.generate.pipe.features.query_features`: a row's
``signature``, ``structural_features``, ``substructures``, ``operator_combination`` and
``string_literals``. Figures can therefore differ slightly from the original's (a map
pattern ``{name: 'x'}`` names a property; ``{name:'A:B'}`` names no label). Question
text is tokenised as in the original: lower-cased ``[A-Za-z0-9_]+`` runs.

Two modes (spec §7, "Entropy uses observed K and coverage skips schema intersection"):

* ``strict=False`` (compat, the default) reproduces the original: normalised entropy
  divides by ``log2 K`` with ``K`` the number of *observed* values, so a benchmark with a
  single category scores 1; schema coverage is ``|used| / |schema|`` without intersecting
  the used names with the schema, so names outside the schema count (the value may exceed
  1; PIPE-Diversity clips each input to [0, 1]).
* ``strict=True`` divides by the *declared* ``K``: the eight categories of spec §4 (plus
  any other category observed), graph×category cells = graphs × categories, and the three
  difficulty levels; declared cells without rows are listed under ``empty``. Coverage is
  ``|used ∩ schema| / |schema|``; used names outside the schema are listed under
  ``outside_schema`` and do not count.

Without a schema, coverage is measured against the used set (1.0 when anything is used,
0.0 otherwise) in both modes. In sub-reports the declared cells follow the grouping: a
``by_graph`` report declares one graph, a ``by_category`` report one category.

Input rows (:func:`diversity_report`, :func:`diversity_report_file`) are either
PIPE-Cypher export rows ``{question, cypher, normalized_cypher?, category, graph_profile,
difficulty, entity_values, template, template_metadata, ...}`` or CypherBench
``Nl2CypherSample`` records ``{nl_question, gold_cypher, graph, from_template{...}}``.
A row carrying all five analysis fields above is used as is; the others are analysed by
one batched :func:`~kgbench.generate.pipe.features.query_features` call, whose inferred
``category`` and ``difficulty`` apply where the row has none. A CypherBench
``from_template`` gives the template family ``schema:<match_category>/<return_pattern_id>``;
such rows have no entity values, so their value component rests on the top-share term.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from kgbench.errors import InputError, KgbenchError

__all__ = [
    "COMPONENTS",
    "SchemaInventory",
    "distinct_n",
    "distribution_metrics",
    "diversity_report",
    "diversity_report_file",
    "ead_n",
    "load_schema",
    "normalised_entropy",
    "pipe_diversity",
    "question_similarity",
    "self_bleu",
    "tokenize",
]

#: Schema names by kind: ``labels``, ``relationship_types``, ``properties``.
SchemaInventory = Mapping[str, Collection[str]]

#: PIPE-Diversity's components, in report order.
COMPONENTS = ("lexical", "query_template", "structural", "schema", "value", "balance")

_DIFFICULTIES = ("easy", "medium", "hard")

#: Row fields holding the parser analysis; a row lacking any of them is analysed anew.
_ANALYSIS_KEYS = (
    "structural_features",
    "signature",
    "substructures",
    "operator_combination",
    "string_literals",
)
#: Boolean structural features whose rates are reported (as the original).
_RATE_FEATURES = ("optional_match", "aggregation", "ordering", "limit", "negation", "path_pattern")
_MEAN_FEATURES = (
    ("mean_relationship_patterns", "relationship_pattern_count"),
    ("mean_node_patterns", "node_pattern_count"),
    ("mean_return_arity", "return_arity"),
)
_SCHEMA_KINDS = ("labels", "relationship_types", "properties")
_EAD_REFERENCE = 1000
_TOP_ROWS = 8
_PREVIEW_CHARS = 140

# regular expressions on question text and templates only, never on Cypher
_TOKEN = re.compile(r"[A-Za-z0-9_]+")
_SLOT = re.compile(r"\{[^}]+\}")
_QUOTED = re.compile(r"'[^']*'")
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b")

_Counts = Mapping[str, int]
_SchemaArg = Union[
    SchemaInventory, str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]
]


# --------------------------------------------------------------------------------------
# text metrics


def tokenize(text: str) -> list[str]:
    """Lower-cased ``[A-Za-z0-9_]+`` tokens of ``text`` (the original's tokeniser; other
    characters, including non-ASCII letters, separate tokens)."""
    return [m.group(0).lower() for m in _TOKEN.finditer(text)]


def _ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def _normalise_text(text: str) -> str:
    return " ".join(tokenize(text))


def distinct_n(texts: Iterable[str], n: int) -> float:
    """Distinct-n: distinct n-grams / all n-grams over ``texts`` (n-grams do not cross
    texts); 0.0 when there is no n-gram. Spec §6."""
    unique: set[tuple[str, ...]] = set()
    total = 0
    for text in texts:
        grams = _ngrams(tokenize(text), n)
        total += len(grams)
        unique.update(grams)
    return len(unique) / total if total else 0.0


def ead_n(texts: Iterable[str], n: int, *, reference_size: int = _EAD_REFERENCE) -> float:
    """Expectation-adjusted Distinct-n: ``Σ_g (1 − (1 − c_g/T)^N) / N`` over the distinct
    n-grams ``g`` with counts ``c_g``, ``T`` n-grams in all and ``N = min(reference_size,
    T)`` — the expected distinct ratio of an ``N``-gram sample (spec §6; 0.0 when ``T``
    is 0)."""
    counts: Counter[tuple[str, ...]] = Counter()
    for text in texts:
        counts.update(_ngrams(tokenize(text), n))
    total = sum(counts.values())
    if total == 0:
        return 0.0
    size = min(reference_size, total)
    expected = sum(1.0 - (1.0 - c / total) ** size for c in counts.values())
    return expected / size


def _sample(texts: Iterable[str], max_examples: int) -> list[list[str]]:
    """Token lists of the first ``max_examples`` normalised texts in sorted order (texts
    that are blank before normalisation are skipped)."""
    normalised = sorted(_normalise_text(t) for t in texts if t.strip())
    return [t.split() for t in normalised[:max_examples]]


def _jaccard(a: set[str], b: set[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def question_similarity(texts: Iterable[str], *, max_examples: int = 200) -> dict[str, float]:
    """Token-set Jaccard similarity within the first ``max_examples`` sorted normalised
    texts: ``mean_jaccard`` over all ordered pairs and ``mean_nearest_neighbor_jaccard``
    (mean over texts of the highest similarity to another text). Two empty token sets
    have similarity 1. Both are 0.0 for fewer than two texts. Spec §6."""
    sets = [set(tokens) for tokens in _sample(texts, max_examples)]
    m = len(sets)
    if m < 2:
        return {"mean_jaccard": 0.0, "mean_nearest_neighbor_jaccard": 0.0}
    nearest = [0.0] * m
    pair_sum = 0.0
    for i in range(m):
        for j in range(i + 1, m):
            s = _jaccard(sets[i], sets[j])
            pair_sum += s
            nearest[i] = max(nearest[i], s)
            nearest[j] = max(nearest[j], s)
    pairs = m * (m - 1) / 2
    return {
        "mean_jaccard": pair_sum / pairs,
        "mean_nearest_neighbor_jaccard": sum(nearest) / m,
    }


def self_bleu(texts: Iterable[str], *, max_examples: int = 200, max_order: int = 2) -> float:
    """Self-BLEU-``max_order`` of the first ``max_examples`` sorted normalised texts: the
    mean sentence BLEU of each text against all others as references (spec §6; the
    original's definition).

    Sentence BLEU: uniform geometric mean of add-one smoothed clipped precisions
    ``(clipped + 1) / (n-grams + 1)`` for orders 1..max_order (an order without candidate
    n-grams contributes ``1e-12``), times the brevity penalty ``exp(1 − r/c)`` when the
    candidate length ``c`` does not exceed the closest reference length ``r`` (the first
    reference in sample order wins ties). An empty candidate scores 0. Returns 0.0 for
    fewer than two texts; higher means less diverse.
    """
    sample = _sample(texts, max_examples)
    m = len(sample)
    if m < 2:
        return 0.0
    # per order: gram -> (highest count, its text, second highest count); the highest
    # count of a gram among the *other* texts is then one lookup
    best: list[dict[tuple[str, ...], tuple[int, int, int]]] = []
    grams: list[list[Counter[tuple[str, ...]]]] = []
    for order in range(1, max_order + 1):
        per_text = [Counter(_ngrams(tokens, order)) for tokens in sample]
        top: dict[tuple[str, ...], tuple[int, int, int]] = {}
        for idx, counts in enumerate(per_text):
            for gram, c in counts.items():
                first, holder, second = top.get(gram, (0, -1, 0))
                if c > first:
                    top[gram] = (c, idx, first)
                else:
                    top[gram] = (first, holder, max(second, c))
        grams.append(per_text)
        best.append(top)
    lengths = [len(tokens) for tokens in sample]
    total = 0.0
    for idx, tokens in enumerate(sample):
        c = len(tokens)
        if c == 0:
            continue
        log_sum = 0.0
        for k in range(max_order):
            counts = grams[k][idx]
            n_grams = sum(counts.values())
            if n_grams == 0:
                log_sum += math.log(1e-12)
                continue
            clipped = 0
            for gram, count in counts.items():
                first, holder, second = best[k][gram]
                clipped += min(count, second if holder == idx else first)
            log_sum += math.log((clipped + 1) / (n_grams + 1))
        r = min(
            (lengths[j] for j in range(m) if j != idx),
            key=lambda length: abs(length - c),
        )
        penalty = 1.0 if c > r else math.exp(1.0 - r / c)
        total += penalty * math.exp(log_sum / max_order)
    return total / m


# --------------------------------------------------------------------------------------
# distributions


def normalised_entropy(counts: _Counts, *, k: int | None = None) -> float:
    """Shannon entropy of ``counts`` divided by ``log2 K`` (spec §6): ``K = k`` when
    given (at least the number of observed values), else the number of observed values;
    1.0 when ``K ≤ 1``. E.g. spec §6: H = 3.918 bits over K = 16 cells gives 0.980."""
    observed = sum(1 for c in counts.values() if c > 0)
    size = observed if k is None else max(k, observed)
    if size <= 1:
        return 1.0
    return _entropy(counts) / math.log2(size)


def _entropy(counts: _Counts) -> float:
    total = sum(counts.values())
    if total <= 0:
        return 0.0
    return -sum(c / total * math.log2(c / total) for c in counts.values() if c > 0)


def distribution_metrics(
    counts: _Counts, *, declared: Collection[str] | None = None
) -> dict[str, Any]:
    """Summary of a categorical distribution (spec §6; the original's fields).

    Returns ``{total, unique, k, entropy_bits, normalized_entropy, effective_count,
    simpson_diversity, counts}`` and, with ``declared``, ``empty`` (declared values
    without rows): entropy ``H`` in bits, normalised ``H / log2 K`` (1.0 if ``K ≤ 1``)
    with ``K`` the observed values, or the union of observed and ``declared`` values;
    effective count ``2^H``; Simpson ``1 − Σ p²``; counts sorted by value. An empty
    distribution has all figures 0.
    """
    live = {key: int(c) for key, c in counts.items() if c > 0}
    cells = set(live) | set(declared or ())
    out: dict[str, Any]
    total = sum(live.values())
    if total == 0:
        out = {
            "total": 0,
            "unique": 0,
            "k": len(cells),
            "entropy_bits": 0.0,
            "normalized_entropy": 0.0,
            "effective_count": 0.0,
            "simpson_diversity": 0.0,
            "counts": {},
        }
    else:
        h = _entropy(live)
        out = {
            "total": total,
            "unique": len(live),
            "k": len(cells),
            "entropy_bits": h,
            "normalized_entropy": normalised_entropy(live, k=len(cells)),
            "effective_count": 2.0**h,
            "simpson_diversity": 1.0 - sum((c / total) ** 2 for c in live.values()),
            "counts": dict(sorted(live.items())),
        }
    if declared is not None:
        out["empty"] = sorted(cells - set(live))
    return out


def _top_share(values: Sequence[str]) -> float:
    return max(Counter(values).values()) / len(values) if values else 0.0


def _unique_ratio(values: Sequence[str]) -> float:
    return len(set(values)) / len(values) if values else 0.0


def _top_rows(counts: _Counts, total: int) -> list[dict[str, Any]]:
    """The most frequent keys (ties in key order) with a sha256[:10] id, count, share of
    ``total`` and a preview of at most 140 characters."""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:_TOP_ROWS]
    return [
        {
            "signature_id": hashlib.sha256(key.encode("utf-8")).hexdigest()[:10],
            "count": count,
            "share": count / total if total else 0.0,
            "preview": key[:_PREVIEW_CHARS],
        }
        for key, count in ranked
    ]


# --------------------------------------------------------------------------------------
# rows


@dataclass(frozen=True)
class _Row:
    question: str
    graph: str
    category: str
    difficulty: str
    family: str
    signature: str
    features: Mapping[str, Any]
    substructures: tuple[str, ...]
    operator_combination: str
    string_literals: tuple[str, ...]
    entity_values: tuple[str, ...]
    syntax_valid: bool


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _cypher_of(row: Mapping[str, Any]) -> str | None:
    for key in ("cypher", "gold_cypher", "normalized_cypher"):
        text = _text(row.get(key))
        if text is not None:
            return text
    return None


def _strings(where: str, field: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, Mapping):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value if v is not None)
    raise InputError(f"{where}: field {field!r} must be a list of strings")


def _mask_template(template: str) -> str:
    """A question template with slots, quoted values and numbers masked, tokenised."""
    text = _SLOT.sub(" slot ", template.lower())
    text = _QUOTED.sub(" value ", text)
    text = _NUMBER.sub(" number ", text)
    return _normalise_text(text)


def _family(row: Mapping[str, Any], signature: str) -> str:
    """``schema:<kind>`` / ``template:<masked question template>`` / ``query:<signature>``
    (the original's order; CypherBench's ``from_template`` is a schema kind)."""
    template = row.get("template")
    metadata = row.get("template_metadata")
    if isinstance(template, Mapping):  # a whole template record
        if not isinstance(metadata, Mapping):
            metadata = template.get("metadata")
        template = template.get("template")
    kind = metadata.get("schema_template_kind") if isinstance(metadata, Mapping) else None
    if _text(kind):
        return f"schema:{kind}"
    cb = row.get("from_template")
    if isinstance(cb, Mapping) and (cb.get("match_category") or cb.get("return_pattern_id")):
        return f"schema:{cb.get('match_category')}/{cb.get('return_pattern_id')}"
    source = row.get("source")
    for text in (template, source.get("template") if isinstance(source, Mapping) else None):
        if _text(text):
            return "template:" + _mask_template(str(text))
    return "query:" + signature


def _question(where: str, row: Mapping[str, Any]) -> str:
    question = row["question"] if "question" in row else row.get("nl_question")
    if not isinstance(question, str):
        raise InputError(f"{where}: field 'question' (or 'nl_question') must be a string")
    return question


def _row(where: str, row: Mapping[str, Any], analysis: Mapping[str, Any]) -> _Row:
    features = analysis.get("structural_features")
    if not isinstance(features, Mapping):
        raise InputError(f"{where}: field 'structural_features' must be an object")
    signature = analysis.get("signature")
    if not isinstance(signature, str):
        raise InputError(f"{where}: field 'signature' must be a string")
    combination = analysis.get("operator_combination")
    if not isinstance(combination, str):
        raise InputError(f"{where}: field 'operator_combination' must be a string")
    substructures = _strings(where, "substructures", analysis.get("substructures"))
    literals = analysis.get("string_literals")
    if isinstance(literals, (list, tuple)):  # [str], or literal objects {"value", ...}
        literals = [x.get("value") if isinstance(x, Mapping) else x for x in literals]
    literals = _strings(where, "string_literals", literals)
    entity_values = row.get("entity_values")
    if isinstance(entity_values, str):
        entity_values = [entity_values]
    return _Row(
        question=_question(where, row),
        graph=_text(row.get("graph_profile")) or _text(row.get("graph")) or "unknown",
        category=_text(row.get("category")) or _text(analysis.get("category")) or "unknown",
        difficulty=_text(row.get("difficulty")) or _text(analysis.get("difficulty")) or "unknown",
        family=_family(row, signature),
        signature=signature,
        features=features,
        substructures=tuple(sorted(set(substructures))),
        operator_combination=combination,
        string_literals=literals,
        entity_values=_strings(where, "entity_values", entity_values or []),
        syntax_valid=analysis.get("syntax_valid", True) is not False,
    )


def _normalise(rows: Sequence[Any], where: Sequence[str] | None = None) -> list[_Row]:
    """Validate export / Nl2CypherSample rows and complete their analysis.

    ``where`` names each row in error messages (default ``"row <index>"``). Rows lacking
    any of the analysis fields are analysed in one :func:`query_features` batch.

    Raises:
        InputError: a row is not an object, has no question, lacks the analysis and a
            Cypher query, or carries analysis fields of the wrong type.
    """
    names = list(where) if where is not None else [f"row {i}" for i in range(len(rows))]
    pending: list[int] = []
    queries: list[str] = []
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise InputError(f"{names[i]}: expected a JSON object, got {type(row).__name__}")
        _question(names[i], row)
        if all(key in row for key in _ANALYSIS_KEYS):
            continue
        cypher = _cypher_of(row)
        if cypher is None:
            raise InputError(
                f"{names[i]}: field 'cypher' (or 'gold_cypher') must be a non-empty string"
            )
        pending.append(i)
        queries.append(cypher)
    analyses: dict[int, Mapping[str, Any]] = {}
    if pending:
        # looked up at call time: the analysis is built in Rust (features.py)
        features = importlib.import_module("kgbench.generate.pipe.features")
        results = list(features.query_features(queries))
        if len(results) != len(queries):
            raise KgbenchError(
                f"query_features returned {len(results)} analyses for {len(queries)} queries"
            )
        analyses = dict(zip(pending, results, strict=True))
    return [_row(names[i], row, analyses.get(i, row)) for i, row in enumerate(rows)]


# --------------------------------------------------------------------------------------
# schema


def load_schema(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
) -> SchemaInventory:
    """The label, relationship-type and property names of one or more profile
    ``schema.json`` files (spec §2 format), merged.

    Labels come from ``node_properties[].label`` (as the original: a label without
    properties in the profile is not counted); relationship types from
    ``relationships[].type`` and ``relationship_properties[].type`` (``:`` and backticks
    stripped); property names from both property lists. Empty names are dropped.

    Raises:
        InputError: a file is unreadable, not JSON, or not a schema object; the message
            names the file.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    names: dict[str, set[str]] = {kind: set() for kind in _SCHEMA_KINDS}
    for path in paths:
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(f"{p}: cannot read: {exc.strerror or exc}") from exc
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{p}: not a JSON schema file: {exc}") from exc
        if not isinstance(data, dict):
            raise InputError(f"{p}: expected a schema.json object, got {type(data).__name__}")
        for field in ("node_properties", "relationship_properties", "relationships"):
            items = data.get(field, [])
            if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
                raise InputError(f"{p}: field {field!r} must be a list of objects")
        for item in data.get("node_properties", []):
            names["labels"].add(str(item.get("label") or ""))
            names["properties"].add(str(item.get("property") or ""))
        for item in data.get("relationship_properties", []):
            names["relationship_types"].add(str(item.get("type") or "").strip(":`"))
            names["properties"].add(str(item.get("property") or ""))
        for item in data.get("relationships", []):
            names["relationship_types"].add(str(item.get("type") or ""))
    return {kind: frozenset(v for v in values if v) for kind, values in names.items()}


def _inventory(schema: _SchemaArg | None) -> SchemaInventory:
    if schema is None:
        return {}
    if isinstance(schema, (str, os.PathLike)):
        return load_schema(schema)
    if isinstance(schema, Mapping):
        return {
            kind: frozenset(str(v) for v in schema.get(kind, ()) if v) for kind in _SCHEMA_KINDS
        }
    return load_schema(schema)


def _coverage(
    used_names: Iterable[str], available: Collection[str], strict: bool
) -> dict[str, Any]:
    """Coverage of the schema names ``available`` by ``used_names`` (module docstring)."""
    used = {name for name in used_names if name}
    schema = set(available)
    covered = used & schema if schema else used
    # without a schema: coverage of the used set (1.0, or 0.0 when nothing is used)
    denominator = len(schema) if schema else len(used)
    coverage = len(covered if strict else used) / denominator if denominator else 0.0
    out: dict[str, Any] = {
        "used_count": len(used),
        "available_count": len(schema),
        "covered_count": len(covered),
        "coverage": coverage,
        "used": sorted(used),
    }
    if schema:
        out["outside_schema"] = sorted(used - schema)
    return out


def _property_name(name: str) -> str:
    """``L.p`` → ``p``: the schema inventory lists property names."""
    return name.rsplit(".", 1)[-1]


# --------------------------------------------------------------------------------------
# report


def _flat(rows: Sequence[_Row], key: str) -> list[str]:
    out: list[str] = []
    for row in rows:
        values = row.features.get(key) or []
        if isinstance(values, (list, tuple)):
            out.extend(str(v) for v in values)
    return out


def _normalise_value(value: str) -> str:
    return " ".join(value.strip().casefold().split())


def _value_grounding(rows: Sequence[_Row]) -> dict[str, Any]:
    """Entity-value and string-literal diversity (counts and shares, no raw values)."""
    entity_values: list[str] = []
    literals: list[str] = []
    with_entities = quoted = with_literals = 0
    for row in rows:
        row_values = [v for v in map(_normalise_value, row.entity_values) if v]
        row_literals = [v for v in map(_normalise_value, row.string_literals) if v]
        entity_values.extend(row_values)
        literals.extend(row_literals)
        with_literals += bool(row.string_literals)
        if row_values:
            with_entities += 1
            quoted += set(row_values) <= set(row_literals)
    n = len(rows)
    return {
        "total_entity_mentions": len(entity_values),
        "unique_entity_values": len(set(entity_values)),
        "unique_entity_value_ratio": _unique_ratio(entity_values),
        "top_entity_value_share": _top_share(entity_values),
        "examples_with_entity_values_rate": with_entities / n,
        "entity_values_exact_quoted_rate": quoted / with_entities if with_entities else 0.0,
        "total_quoted_literal_mentions": len(literals),
        "unique_quoted_literals": len(set(literals)),
        "unique_quoted_literal_ratio": _unique_ratio(literals),
        "top_quoted_literal_share": _top_share(literals),
        "examples_with_quoted_literals_rate": with_literals / n,
    }


def _structural_features(rows: Sequence[_Row]) -> dict[str, float]:
    n = len(rows)
    out = {
        f"{name}_rate": sum(bool(r.features.get(name)) for r in rows) / n for name in _RATE_FEATURES
    }
    for label, key in _MEAN_FEATURES:
        out[label] = sum(float(r.features.get(key) or 0) for r in rows) / n
    return out


def _substructures(rows: Sequence[_Row]) -> dict[str, Any]:
    counts = Counter(atom for row in rows for atom in row.substructures)
    dist = distribution_metrics(counts)
    return {
        "unique_substructure_count": len(counts),
        "unique_substructure_per_example": len(counts) / len(rows),
        "normalized_entropy": dist["normalized_entropy"],
        "effective_count": dist["effective_count"],
        "top_substructures": _top_rows(counts, sum(counts.values()) or 1),
    }


def _clip_mean(values: Sequence[float]) -> float:
    clean = [min(1.0, max(0.0, v)) for v in values if not math.isnan(v)]
    return sum(clean) / len(clean) if clean else 0.0


def _geometric_mean(values: Sequence[float]) -> float:
    clean = [min(1.0, max(1e-6, v)) for v in values if not math.isnan(v)]
    if not clean:
        return 0.0
    return math.exp(sum(math.log(v) for v in clean) / len(clean))


def pipe_diversity(report: Mapping[str, Any]) -> dict[str, Any]:
    """PIPE-Diversity of a report's sections (spec §6; the original's combination).

    Each component is the mean of its inputs, each clipped to [0, 1]:

    * lexical: Distinct-2, EAD-2, 1 − self-BLEU-2, 1 − nearest-neighbour Jaccard;
    * query_template: unique signature ratio, 1 − top signature share, unique family
      ratio, family normalised entropy;
    * structural: normalised entropy of primary strategies and of operator combinations,
      min(1, unique substructures per row), substructure normalised entropy;
    * schema: label, relationship-type and property coverage;
    * value: unique entity-value ratio, 1 − top entity-value share, exact-quoted rate;
    * balance: normalised entropy of categories, graph×category cells and difficulty.

    ``score`` is the geometric mean of the six components, each clipped to [1e-6, 1].
    Missing inputs count as their worst value. Returns ``{score, components, method}``.
    """

    def get(section: str, *path: str, default: float = 0.0) -> float:
        node: Any = report.get(section, {})
        for key in path:
            node = node.get(key, {}) if isinstance(node, Mapping) else {}
        return float(node) if isinstance(node, (int, float)) else default

    components = {
        "lexical": _clip_mean(
            [
                get("question_text", "distinct_2"),
                get("question_text", "ead_distinct_2"),
                1.0 - get("question_text", "self_bleu_2_sampled", default=1.0),
                1.0
                - get(
                    "question_text",
                    "pairwise_jaccard_sampled",
                    "mean_nearest_neighbor_jaccard",
                    default=1.0,
                ),
            ]
        ),
        "query_template": _clip_mean(
            [
                get("query_templates", "unique_signature_ratio"),
                1.0 - get("query_templates", "top_signature_share", default=1.0),
                get("template_families", "unique_family_ratio"),
                get("template_families", "distribution", "normalized_entropy"),
            ]
        ),
        "structural": _clip_mean(
            [
                get("distributions", "primary_strategy", "normalized_entropy"),
                get("distributions", "operator_combinations", "normalized_entropy"),
                get("structural_substructures", "unique_substructure_per_example"),
                get("structural_substructures", "normalized_entropy"),
            ]
        ),
        "schema": _clip_mean([get("schema_coverage", kind, "coverage") for kind in _SCHEMA_KINDS]),
        "value": _clip_mean(
            [
                get("value_grounding", "unique_entity_value_ratio"),
                1.0 - get("value_grounding", "top_entity_value_share", default=1.0),
                get("value_grounding", "entity_values_exact_quoted_rate"),
            ]
        ),
        "balance": _clip_mean(
            [
                get("distributions", name, "normalized_entropy")
                for name in ("category", "graph_category", "difficulty")
            ]
        ),
    }
    return {
        "score": _geometric_mean([components[name] for name in COMPONENTS]),
        "components": components,
        "method": "geometric mean of the lexical, query_template, structural, schema, value "
        "and balance component means",
    }


def _report(
    rows: Sequence[_Row],
    inventory: SchemaInventory,
    *,
    sample_size: int,
    strict: bool,
    graphs: Collection[str],
    categories: Collection[str],
    nested: bool,
) -> dict[str, Any]:
    n = len(rows)
    questions = [row.question for row in rows]
    signatures = [row.signature for row in rows]
    families = [row.family for row in rows]
    labels = _flat(rows, "labels")
    relationship_types = _flat(rows, "relationship_types")
    properties = [_property_name(p) for p in _flat(rows, "properties")]
    cells = [f"{g}::{c}" for g in graphs for c in categories]

    def declared(values: Collection[str]) -> Collection[str] | None:
        return values if strict else None

    report: dict[str, Any] = {
        "n": n,
        "mode": "strict" if strict else "compat",
        "n_syntax_invalid": sum(not row.syntax_valid for row in rows),
        "question_text": {
            "distinct_1": distinct_n(questions, 1),
            "distinct_2": distinct_n(questions, 2),
            "distinct_3": distinct_n(questions, 3),
            "ead_distinct_1": ead_n(questions, 1),
            "ead_distinct_2": ead_n(questions, 2),
            "pairwise_jaccard_sampled": question_similarity(questions, max_examples=sample_size),
            "self_bleu_2_sampled": self_bleu(questions, max_examples=sample_size, max_order=2),
            "unique_question_ratio": len({_normalise_text(q) for q in questions}) / n,
        },
        "query_templates": {
            "unique_signature_count": len(set(signatures)),
            "unique_signature_ratio": len(set(signatures)) / n,
            "top_signature_share": _top_share(signatures),
            "top_signatures": _top_rows(Counter(signatures), n),
        },
        "template_families": {
            "unique_family_count": len(set(families)),
            "unique_family_ratio": len(set(families)) / n,
            "top_family_share": _top_share(families),
            "distribution": distribution_metrics(Counter(families)),
            "top_families": _top_rows(Counter(families), n),
        },
        "schema_coverage": {
            "labels": _coverage(labels, inventory.get("labels", ()), strict),
            "relationship_types": _coverage(
                relationship_types, inventory.get("relationship_types", ()), strict
            ),
            "properties": _coverage(properties, inventory.get("properties", ()), strict),
        },
        "value_grounding": _value_grounding(rows),
        "distributions": {
            "category": distribution_metrics(
                Counter(row.category for row in rows), declared=declared(categories)
            ),
            "graph_category": distribution_metrics(
                Counter(f"{row.graph}::{row.category}" for row in rows), declared=declared(cells)
            ),
            "difficulty": distribution_metrics(
                Counter(row.difficulty for row in rows),
                declared=declared(sorted({*_DIFFICULTIES, *(r.difficulty for r in rows)})),
            ),
            "primary_strategy": distribution_metrics(
                Counter(str(row.features.get("primary_strategy", "unknown")) for row in rows)
            ),
            "labels": distribution_metrics(Counter(labels)),
            "relationship_types": distribution_metrics(Counter(relationship_types)),
            "operator_combinations": distribution_metrics(
                Counter(row.operator_combination for row in rows)
            ),
        },
        "structural_substructures": _substructures(rows),
        "structural_features": _structural_features(rows),
    }
    report["pipe_diversity_index"] = pipe_diversity(report)
    if not nested:
        return report
    by_graph: dict[str, list[_Row]] = {}
    by_category: dict[str, list[_Row]] = {}
    for row in rows:
        by_graph.setdefault(row.graph, []).append(row)
        by_category.setdefault(row.category, []).append(row)
    report["by_graph"] = {
        graph: _report(
            group,
            inventory,
            sample_size=sample_size,
            strict=strict,
            graphs=[graph],
            categories=categories,
            nested=False,
        )
        for graph, group in sorted(by_graph.items())
    }
    report["by_category"] = {
        category: _report(
            group,
            inventory,
            sample_size=sample_size,
            strict=strict,
            graphs=graphs,
            categories=[category],
            nested=False,
        )
        for category, group in sorted(by_category.items())
    }
    return report


def _full_report(
    rows: Sequence[_Row], inventory: SchemaInventory, sample_size: int, strict: bool
) -> dict[str, Any]:
    graphs = sorted({row.graph for row in rows})
    from kgbench.generate.pipe.features import CATEGORIES

    categories = sorted({*CATEGORIES, *(row.category for row in rows)})
    report = _report(
        rows,
        inventory,
        sample_size=sample_size,
        strict=strict,
        graphs=graphs,
        categories=categories,
        nested=True,
    )
    report["settings"] = {
        "strict": strict,
        "sample_size": sample_size,
        "schema": {kind: len(inventory.get(kind, ())) for kind in _SCHEMA_KINDS}
        if inventory
        else None,
    }
    return report


def _check_sample_size(sample_size: int) -> None:
    if sample_size < 2:
        raise InputError(f"sample_size must be at least 2, got {sample_size}")


def diversity_report(
    rows: Iterable[Mapping[str, Any]],
    *,
    schema: _SchemaArg | None = None,
    sample_size: int = 200,
    strict: bool = False,
) -> dict[str, Any]:
    """Diversity report of a benchmark (spec §4, §6; module docstring for the input rows
    and the two modes).

    Args:
        rows: PIPE-Cypher export rows or CypherBench ``Nl2CypherSample`` records.
        schema: the schema to measure coverage against — a :data:`SchemaInventory`, or
            the path(s) of profile ``schema.json`` files (:func:`load_schema`); ``None``
            measures coverage against the used names.
        sample_size: questions (the first in sorted normalised order) used for self-BLEU
            and Jaccard similarity; at least 2.
        strict: declared-K entropy and schema-intersected coverage (spec §7).

    Returns a JSON-serialisable dict: ``n``, ``mode``, ``n_syntax_invalid``,
    ``question_text`` (Distinct-1/2/3, EAD-1/2, ``pairwise_jaccard_sampled``,
    ``self_bleu_2_sampled``, ``unique_question_ratio``), ``query_templates``,
    ``template_families``, ``schema_coverage``, ``value_grounding``, ``distributions``
    (category, graph_category, difficulty, primary_strategy, labels, relationship_types,
    operator_combinations — :func:`distribution_metrics`), ``structural_substructures``,
    ``structural_features`` (rates and means), ``pipe_diversity_index``
    (:func:`pipe_diversity`), ``by_graph`` and ``by_category`` (the same report per group,
    without further grouping) and ``settings``. Ratios, rates and shares are fractions
    in [0, 1] (compat coverage may exceed 1); entropies are in bits.

    Raises:
        InputError: no rows, a malformed row (named by index), ``sample_size < 2`` or an
            unreadable schema file.
    """
    _check_sample_size(sample_size)
    inventory = _inventory(schema)
    items = list(rows)
    if not items:
        raise InputError("cannot measure the diversity of an empty benchmark (no rows)")
    return _full_report(_normalise(items), inventory, sample_size, strict)


def diversity_report_file(
    path: str | os.PathLike[str],
    *,
    schema: _SchemaArg | None = None,
    sample_size: int = 200,
    strict: bool = False,
) -> dict[str, Any]:
    """:func:`diversity_report` of a JSON array or JSON Lines file of rows; errors name
    the file and the record (:func:`kgbench.tasks.read_records`).

    Raises:
        InputError: unreadable or malformed file, a file without records, or as
            :func:`diversity_report`.
    """
    from kgbench.tasks import read_records

    _check_sample_size(sample_size)
    inventory = _inventory(schema)
    records = read_records(Path(path))
    if not records:
        raise InputError(f"{os.fspath(path)}: no records")
    rows = _normalise([r for _, r in records], [w for w, _ in records])
    return _full_report(rows, inventory, sample_size, strict)
