"""CypherBench's template file and relation-traits file: reading, validation, pattern analysis.

Formats (spec ``cypherbench-taskgen.md`` §2; CypherBench's ``nl2cypher_generator_config.json``
and ``graph_info.json``):

- **Template file** ``{"match_patterns": [...], "return_patterns": [...]}``. A MATCH pattern
  has ``category``, ``cypher`` (a skeleton over node variables ``(n)``, ``(m0)``, ... and
  relationship variables ``[r0]``, ...; ``<p,q^,s?>`` after a variable names properties to
  sample: ``p`` IS NOT NULL, ``q^`` IS NULL, ``s?`` free), ``nl_args`` (``n_desc``, ...) and
  ``return_category``. A RETURN pattern has ``category``, ``pattern_id``, ``cypher``,
  ``nl_template`` and ``return_vars``.
- **Traits file** ``{GRAPH: {"relations": [{"label", "variants", "is_symmetric",
  "is_time_sensitive", "is_mandatory_subj", "is_mandatory_obj", "subj_cardinality",
  "obj_cardinality", "implied_relations"}]}}``, by relation label.

The pattern analysis (variables, relations, property constraints, the cleaned skeleton and the
all-mandatory MATCH used for sampling) follows the definitions of CypherBench's
``MatchPattern`` (``cypherbench/schema.py``), which are regular expressions over the skeleton.

Errors: :class:`TemplateError` (a :class:`kgbench.errors.InputError`) naming the file and the
JSON path, e.g. ``templates.json: $.match_patterns[3].cypher: expected a string``.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError

#: The RETURN pattern ids kgbench's generator implements (CypherBench's 17 plus its
#: code-only ``n_m0_group_by_count_where``; spec §6.8).
RETURN_PATTERN_IDS = (
    "n_name",
    "n_prop",
    "n_name_prop",
    "n_prop_distinct",
    "n_prop_array_distinct",
    "n_order_by",
    "n_argmax",
    "n_where",
    "n_agg",
    "n_group_by",
    "n_name_special",
    "n_m0_group_by_count",
    "n_m0_group_by_count_where",
    "n_m0_comparison_argmax",
    "n_m0_comparison_boolean",
    "n_m0_comparison_arithmetic",
    "n_union_count",
    "n_union_name",
)

#: The comparison pattern's skeleton (instantiated by its own query, spec §3 "Comparison").
COMPARISON_CYPHER = "MATCH (n<name,$prop>),(m0<name,$prop>)"

_NODE_RE = re.compile(r"\((\w+)(?:<.*?>)?\)")
_REL_RE = re.compile(r"-\[(\w+)(?:<.*?>)?\]-")
_OUT_RE = re.compile(r"(?=\((\w+)(?:<.*?>)?\)-\[(\w+)(?:<.*?>)?\]->\((\w+)(?:<.*?>)?\))")
_IN_RE = re.compile(r"(?=\((\w+)(?:<.*?>)?\)<-\[(\w+)(?:<.*?>)?\]-\((\w+)(?:<.*?>)?\))")
_ANNOT_RE = re.compile(r"[\(\[](\w+)<(.*?)>[\)\]]")


class TemplateError(InputError):
    """A template or traits file that does not validate (message names file and JSON path)."""


def _dedup(items: list[Any]) -> list[Any]:
    return list(dict.fromkeys(items))


@dataclass(frozen=True)
class MatchPattern:
    """One MATCH pattern of the template file, with its analysis (CypherBench ``MatchPattern``).

    ``property_constraints`` maps ``"var.prop"`` to its WHERE condition (``"var.prop IS NOT
    NULL"``, ``"var.prop IS NULL"``) or None (free), in the skeleton's order.
    """

    category: str
    cypher: str
    nl_args: dict[str, str]
    return_category: str
    index: int = 0

    @property
    def node_vars(self) -> list[str]:
        """Node variables in order of first appearance."""
        return _dedup(_NODE_RE.findall(self.cypher))

    @property
    def rel_vars(self) -> list[str]:
        """Relationship variables in order of first appearance."""
        return _dedup(_REL_RE.findall(self.cypher))

    @property
    def relations(self) -> list[tuple[str, str, str]]:
        """``(rel, subject, object)`` triples: forward arrows first, then backward ones."""
        out = [(r, s, o) for s, r, o in _OUT_RE.findall(self.cypher)]
        out += [(r, s, o) for o, r, s in _IN_RE.findall(self.cypher)]
        return _dedup(out)

    @property
    def singletons(self) -> list[str]:
        """Node variables on no relation."""
        seen = {v for _, s, o in self.relations for v in (s, o)}
        return [n for n in self.node_vars if n not in seen]

    @property
    def property_constraints(self) -> dict[str, str | None]:
        """``var.prop`` → WHERE condition or None (see the class docstring)."""
        out: dict[str, str | None] = {}
        for var, props in _ANNOT_RE.findall(self.cypher):
            for label in props.split(","):
                if label.endswith("^"):
                    key = f"{var}.{label[:-1]}"
                    out[key] = f"{key} IS NULL"
                elif label.endswith("?"):
                    out[f"{var}.{label[:-1]}"] = None
                else:
                    key = f"{var}.{label}"
                    out[key] = f"{key} IS NOT NULL"
        return out

    @property
    def node_vars_with_name(self) -> list[str]:
        """Node variables constrained by name (``<name>``)."""
        constraints = self.property_constraints
        return [n for n in self.node_vars if f"{n}.name" in constraints]

    @property
    def cypher_clean(self) -> str:
        """The skeleton without annotations: ``(m0<name>)`` → ``(m0)``."""
        cypher = re.sub(r"\((\w+)(?:<.*?>)?\)", r"(\1)", self.cypher)
        return re.sub(r"\[(\w+)(?:<.*?>)?\]", r"[\1]", cypher)

    @property
    def cypher_match_pattern(self) -> str:
        """The all-mandatory MATCH used for sampling (OPTIONAL and UNION parts become plain
        comma-separated parts sharing ``n``)."""
        parts = [f"({n})" for n in self.singletons]
        parts += [f"({s})-[{r}]->({o})" for r, s, o in self.relations]
        return "MATCH " + ", ".join(parts)

    @property
    def is_comparison(self) -> bool:
        """The comparison pattern, instantiated by its own query."""
        return self.category == "special_comparison" or "$prop" in self.cypher


@dataclass(frozen=True)
class ReturnPattern:
    """One RETURN pattern of the template file."""

    category: str
    pattern_id: str
    cypher: str
    nl_template: str
    return_vars: list[str]
    index: int = 0


@dataclass(frozen=True)
class Templates:
    """A validated template file."""

    match_patterns: list[MatchPattern]
    return_patterns: list[ReturnPattern]
    path: str = ""


@dataclass(frozen=True)
class RelationTraits:
    """The traits of one relation label (CypherBench ``RelationInfo``)."""

    label: str
    variants: list[str] = field(default_factory=list)
    is_symmetric: bool = False
    is_time_sensitive: bool = False
    is_mandatory_subj: bool = False
    is_mandatory_obj: bool = False
    subj_cardinality: str = "many"
    obj_cardinality: str = "many"
    implied_relations: list[str] = field(default_factory=list)


#: Traits of a relation the traits file does not list (spec §6.7): many/many, partial, plain.
def neutral_traits(label: str) -> RelationTraits:
    """Neutral traits for ``label``: many-to-many, not mandatory, not symmetric, no time."""
    return RelationTraits(label=label)


def read_json_file(
    path: str | os.PathLike[str], what: str, error: type[InputError] = TemplateError
) -> Any:
    """The JSON value in the UTF-8 file ``path``, the ``what`` file (``"template"``,
    ``"profile"``, ...). Raises ``error`` naming the file when it is missing (``template file
    not found: PATH``), unreadable or not JSON (``PATH: not JSON (line 2, column 11: ...)``)."""
    p = Path(path)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise error(f"{what} file not found: {p}") from exc
    except json.JSONDecodeError as exc:
        raise error(f"{p}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{p}: cannot read the {what} file ({exc})") from exc


def _want(cond: bool, path: Path, where: str, msg: str) -> None:
    if not cond:
        raise TemplateError(f"{path}: {where}: {msg}")


def _str_field(obj: dict[str, Any], key: str, path: Path, where: str) -> str:
    _want(key in obj, path, where, f"missing key {key!r}")
    _want(isinstance(obj[key], str), path, f"{where}.{key}", "expected a string")
    value: str = obj[key]
    return value


def _str_map(obj: dict[str, Any], key: str, path: Path, where: str) -> dict[str, str]:
    _want(key in obj, path, where, f"missing key {key!r}")
    m = obj[key]
    _want(isinstance(m, dict), path, f"{where}.{key}", "expected an object")
    for k, v in m.items():
        _want(isinstance(v, str), path, f"{where}.{key}.{k}", "expected a string")
    return dict(m)


def load_templates(path: str | Path) -> Templates:
    """Read and validate a template file (format: module docstring).

    Checks every key and type, that each skeleton's variables parse (a MATCH with a node
    variable ``(n)``, every relationship variable between two node variables), that RETURN
    ``pattern_id`` values are ones
    kgbench implements and ``return_vars`` are variables of the MATCH patterns of that
    category, and that every MATCH ``return_category`` has a RETURN pattern.

    Raises :class:`TemplateError` naming the file and JSON path.
    """
    p = Path(path)
    data = read_json_file(p, "template")
    _want(isinstance(data, dict), p, "$", "expected an object with match_patterns, return_patterns")
    for key in ("match_patterns", "return_patterns"):
        _want(key in data, p, "$", f"missing key {key!r}")
        _want(
            isinstance(data[key], list) and len(data[key]) > 0,
            p,
            f"$.{key}",
            "expected a non-empty list",
        )
    matches: list[MatchPattern] = []
    for i, m in enumerate(data["match_patterns"]):
        where = f"$.match_patterns[{i}]"
        _want(isinstance(m, dict), p, where, "expected an object")
        mp = MatchPattern(
            category=_str_field(m, "category", p, where),
            cypher=_str_field(m, "cypher", p, where),
            nl_args=_str_map(m, "nl_args", p, where),
            return_category=_str_field(m, "return_category", p, where),
            index=i,
        )
        _want("MATCH" in mp.cypher, p, f"{where}.cypher", "no MATCH in the skeleton")
        _want(bool(mp.node_vars), p, f"{where}.cypher", "no node variable such as (n)")
        _want("n" in mp.node_vars, p, f"{where}.cypher", "the skeleton has no variable (n)")
        rel_vars = set(mp.rel_vars)
        _want(
            {r for r, _, _ in mp.relations} == rel_vars,
            p,
            f"{where}.cypher",
            "a relationship variable is not between two node variables",
        )
        matches.append(mp)
    returns: list[ReturnPattern] = []
    for i, r in enumerate(data["return_patterns"]):
        where = f"$.return_patterns[{i}]"
        _want(isinstance(r, dict), p, where, "expected an object")
        _want("return_vars" in r, p, where, "missing key 'return_vars'")
        rv = r["return_vars"]
        _want(
            isinstance(rv, list) and all(isinstance(v, str) for v in rv),
            p,
            f"{where}.return_vars",
            "expected a list of strings",
        )
        rp = ReturnPattern(
            category=_str_field(r, "category", p, where),
            pattern_id=_str_field(r, "pattern_id", p, where),
            cypher=_str_field(r, "cypher", p, where),
            nl_template=_str_field(r, "nl_template", p, where),
            return_vars=list(rv),
            index=i,
        )
        _want(
            rp.pattern_id in RETURN_PATTERN_IDS,
            p,
            f"{where}.pattern_id",
            f"unknown RETURN pattern {rp.pattern_id!r} (known: {', '.join(RETURN_PATTERN_IDS)})",
        )
        _want(
            "${match_cypher}" in rp.cypher,
            p,
            f"{where}.cypher",
            "the RETURN template does not contain ${match_cypher}",
        )
        for mp in matches:
            if mp.return_category == rp.category:
                missing = [v for v in rp.return_vars if v not in mp.node_vars]
                _want(
                    not missing,
                    p,
                    f"{where}.return_vars",
                    f"{missing} not variables of MATCH pattern {mp.cypher!r}",
                )
        returns.append(rp)
    categories = {rp.category for rp in returns}
    for i, mp in enumerate(matches):
        _want(
            mp.return_category in categories,
            p,
            f"$.match_patterns[{i}].return_category",
            f"no RETURN pattern has category {mp.return_category!r}",
        )
    return Templates(match_patterns=matches, return_patterns=returns, path=str(p))


_TRAIT_BOOLS = ("is_symmetric", "is_time_sensitive", "is_mandatory_subj", "is_mandatory_obj")


def load_traits(path: str | Path, graph: str | None = None) -> dict[str, RelationTraits]:
    """Read and validate a traits file; return the traits of ``graph`` by relation label.

    ``graph`` None: the file must hold exactly one graph. Raises :class:`TemplateError`
    naming the file and JSON path (``$.nba.relations[2].obj_cardinality: expected "one" or
    "many"``), or when ``graph`` is not in the file (listing the graphs that are).
    """
    p = Path(path)
    data = read_json_file(p, "traits")
    _want(isinstance(data, dict) and len(data) > 0, p, "$", "expected an object {graph: {...}}")
    if graph is None:
        _want(
            len(data) == 1,
            p,
            "$",
            f"the file holds several graphs ({', '.join(sorted(data))}); name one with --graph",
        )
        graph = next(iter(data))
    _want(
        graph in data,
        p,
        "$",
        f"no graph {graph!r} in the traits file (it has: {', '.join(sorted(data))})",
    )
    g = data[graph]
    where = f"$.{graph}"
    _want(isinstance(g, dict) and "relations" in g, p, where, "missing key 'relations'")
    _want(isinstance(g["relations"], list), p, f"{where}.relations", "expected a list")
    out: dict[str, RelationTraits] = {}
    for i, r in enumerate(g["relations"]):
        w = f"{where}.relations[{i}]"
        _want(isinstance(r, dict), p, w, "expected an object")
        label = _str_field(r, "label", p, w)
        for key in _TRAIT_BOOLS:
            _want(key in r, p, w, f"missing key {key!r}")
            _want(isinstance(r[key], bool), p, f"{w}.{key}", "expected true or false")
        for key in ("subj_cardinality", "obj_cardinality"):
            _want(key in r, p, w, f"missing key {key!r}")
            _want(r[key] in ("one", "many"), p, f"{w}.{key}", 'expected "one" or "many"')
        for key in ("variants", "implied_relations"):
            v = r.get(key, [])
            _want(
                isinstance(v, list) and all(isinstance(x, str) for x in v),
                p,
                f"{w}.{key}",
                "expected a list of strings",
            )
        _want(label not in out, p, f"{w}.label", f"relation {label!r} listed twice")
        out[label] = RelationTraits(
            label=label,
            variants=list(r.get("variants", [])),
            is_symmetric=r["is_symmetric"],
            is_time_sensitive=r["is_time_sensitive"],
            is_mandatory_subj=r["is_mandatory_subj"],
            is_mandatory_obj=r["is_mandatory_obj"],
            subj_cardinality=r["subj_cardinality"],
            obj_cardinality=r["obj_cardinality"],
            implied_relations=list(r.get("implied_relations", [])),
        )
    return out


class TraitsTable:
    """Traits by relation label; a label the file lacks gets :func:`neutral_traits` and one
    warning (spec §6.7), recorded in :attr:`missing`."""

    def __init__(self, traits: dict[str, RelationTraits]) -> None:
        self.traits = dict(traits)
        self.missing: list[str] = []

    def __getitem__(self, label: str) -> RelationTraits:
        t = self.traits.get(label)
        if t is None:
            warnings.warn(
                f"relation {label!r} is not in the traits file: using neutral traits "
                "(many-to-many, not mandatory, not symmetric, not time-sensitive)",
                stacklevel=2,
            )
            self.missing.append(label)
            t = self.traits[label] = neutral_traits(label)
        return t
