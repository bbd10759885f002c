"""NGDBench analytic tasks (NoAgg, Agg) and Boolean pairs sampled around perturbed elements
(spec ngdbench.md §2, §4, §7; seed ngdbench.txt §3.3, App. B).

**Templates.** The library is kgbench's own (``kgbench/generate/data/ngdbench_templates.json``,
or ``templates=`` a file of the same shape): ``[{type, templates: [{id, family, anchor,
template, anti_template?, parameters: {NAME: kind}, nl}]}]``. ``family`` is ``noagg``,
``agg`` or ``boolean``; ``anchor`` is ``node`` (``n`` is the anchor node) or ``edge`` (``n``
and ``m`` are the edge's source and target, ``$R`` its type). Slots are ``$NAME`` in the
Cypher and the NL pattern; the NL pattern also has ``$NAME_TEXT`` (a readable form: the
anchor's name, a relation type with spaces, an operator in words). Slot kinds
(:data:`SLOT_KINDS`):

* ``label`` / ``key`` / ``value`` — the anchor node's label in the clean graph, the property
  that identifies it (``name`` when it has one, else ``eid``) and its value; for an edge anchor
  ``M_KEY`` / ``M_VALUE`` identify the target;
* ``rel_out`` + ``label_out`` / ``rel_in`` + ``label_in`` / ``rel_any`` + ``label_any`` — a
  (relation type, neighbour label) pair of the anchor's own edges in the clean graph (an edge
  anchor fixes ``rel_out`` / ``label_out`` to itself); ``rel_out_2`` + ``label_out_2`` — a
  schema triple leaving ``label_out``;
* ``property`` — a property the anchor has (not id-like); ``numeric_property`` +
  ``numeric_value`` — a number the anchor has; ``target_numeric_property`` — a numeric
  property declared for ``label_any`` / ``label_out``; ``target_string_property`` +
  ``target_string_value`` — a string of one of the anchor's ``rel_out`` neighbours, cut to
  what ``string_comparison`` needs;
* ``comparison`` (>, <, >=, <=, =, <>), ``string_comparison`` (=, <>, CONTAINS, STARTS WITH,
  ENDS WITH), ``aggregate`` (sum, avg, min, max), ``min_hops`` (1–3), ``max_hops`` (2–5, at
  least ``min_hops``).

Id-like properties (a name ending in ``id``, any case) are never used (spec §4: aggregates over
id-like properties rejected). A slot that cannot be filled for an anchor makes the template
unusable for it (counted as ``unusable``).

**Anchors** (spec §4 Sampling): every noisy node, then every noisy edge of the noise log
(``detailed_records.noisy_nodes_list`` / ``noisy_edges_list``), is tried with every template of
its kind; then clean anchors, a quarter as many, 70 % of them nodes, drawn (seeded) from the
elements the noise did not touch. A noisy edge that exists in the clean graph is used as it is
there; an added (false) edge with its noisy type.

**Gold** (spec §4): every instantiated query runs on the clean graph G*; kept are queries that
succeed with an informative result (not empty, not all null, not a single 0 — the all-zero
aggregate —, ``false`` or empty list: metrics.md §1), and (NoAgg) at most
``max_answers`` distinct rows (32; ``--compat-repo``: 20). Duplicated query texts are made
once. Kept queries run again on the noisy graph G̃ → ``noise_answer``; ``same_as_cleangraph``
is multiset equality (``compat_repo``: list equality in order, as the repo compares).
Answers are cleaned as ``clean_normal_answer`` (:func:`kgbench.evaluate.ngdbench.clean_answer`:
node → eid, 1×1 → scalar, one column → list).

**Boolean** (spec §4, §7): the template and its anti-template run on G*; positives are rows
only in the template's result, negatives rows only in the anti-template's, at most
``max_candidates`` (20) of each, drawn seeded from the sorted rows; a pair with no positive or
no negative is dropped. The same on G̃ gives ``noise_answer``.

Everything is deterministic: candidates are built in anchor order (ids sorted), every choice
draws from a stream seeded by (seed, template id, anchor id).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.generate.pipe.templates import cypher_ident
from kgbench.generate.synth.neo4j_kg import cypher_string

__all__ = [
    "DEFAULT_MAX_ANSWERS",
    "DEFAULT_MAX_CANDIDATES",
    "SLOT_KINDS",
    "AnalyticCandidate",
    "Anchor",
    "CleanIndex",
    "Template",
    "build_analytic_tasks",
    "collect_anchors",
    "instantiate",
    "load_templates",
    "multiset_equal",
]

#: NoAgg results with more distinct rows are dropped (spec §7: ``max_set_answers`` = 32).
DEFAULT_MAX_ANSWERS = 32
#: ``--compat-repo``: the repo's limit (answers above it are dropped).
COMPAT_REPO_MAX_ANSWERS = 20
#: Boolean positives / negatives kept per task (spec §4: ≤ 20 each).
DEFAULT_MAX_CANDIDATES = 20

#: The slot kinds a template may use (module docstring).
SLOT_KINDS = (
    "label",
    "key",
    "value",
    "rel_out",
    "label_out",
    "rel_in",
    "label_in",
    "rel_any",
    "label_any",
    "rel_out_2",
    "label_out_2",
    "property",
    "numeric_property",
    "numeric_value",
    "target_numeric_property",
    "target_string_property",
    "target_string_value",
    "comparison",
    "string_comparison",
    "aggregate",
    "min_hops",
    "max_hops",
)
_FAMILIES = ("noagg", "agg", "boolean")
_COMPARISONS = {
    ">": "greater than",
    "<": "less than",
    ">=": "at least",
    "<=": "at most",
    "=": "equal to",
    "<>": "different from",
}
_STRING_COMPARISONS = {
    "=": "is",
    "<>": "is not",
    "CONTAINS": "contains",
    "STARTS WITH": "starts with",
    "ENDS WITH": "ends with",
}
_AGGREGATES = {"sum": "total", "avg": "average", "min": "smallest", "max": "largest"}
_SLOT = re.compile(r"\$([A-Z][A-Z0-9_]*)")


# --------------------------------------------------------------------------- templates


@dataclass(frozen=True)
class Template:
    """One template of the library (module docstring). ``template_id`` is
    ``"<type>_<id>"`` (spec §2)."""

    type: str
    id: str
    family: str
    anchor: str
    template: str
    parameters: dict[str, str]
    nl: str
    anti_template: str | None = None

    @property
    def template_id(self) -> str:
        """``"<type>_<id>"``, the template's identifier in task records (spec §2)."""
        return f"{self.type}_{self.id}"


def load_templates(path: str | os.PathLike[str] | None = None) -> list[Template]:
    """Read a template library (module docstring); ``None`` = kgbench's own.

    Raises:
        InputError: a file that is not JSON or a template with a missing or bad field (the
            message names the file and the template), a slot used in a text but not declared,
            an unknown slot kind, family or anchor, a Boolean template without
            ``anti_template``, a duplicated ``template_id``.
    """
    if path is None:
        where = "kgbench/generate/data/ngdbench_templates.json"
        text = (
            resources.files("kgbench.generate")
            .joinpath("data/ngdbench_templates.json")
            .read_text(encoding="utf-8")
        )
    else:
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"{where}: cannot read the template library ({exc})") from exc
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise InputError(f"{where}: not JSON ({exc})") from exc
    if not isinstance(doc, list):
        raise InputError(f"{where}: expected a list of {{type, templates}} groups")
    out: list[Template] = []
    seen: set[str] = set()
    for gi, group in enumerate(doc):
        if not isinstance(group, dict) or not isinstance(group.get("templates"), list):
            raise InputError(f"{where}: group {gi} must be {{type, templates: [...]}}")
        gtype = group.get("type")
        if not isinstance(gtype, str) or not gtype:
            raise InputError(f"{where}: group {gi} has no 'type'")
        for ti, t in enumerate(group["templates"]):
            out.append(_template(f"{where}: {gtype} template {ti}", gtype, t))
            if out[-1].template_id in seen:
                raise InputError(f"{where}: duplicated template id {out[-1].template_id}")
            seen.add(out[-1].template_id)
    if not out:
        raise InputError(f"{where}: no templates")
    return out


def _template(where: str, gtype: str, t: Any) -> Template:
    if not isinstance(t, dict):
        raise InputError(f"{where}: must be an object")
    for name in ("id", "family", "anchor", "template", "nl"):
        if not isinstance(t.get(name), str) or not t[name]:
            raise InputError(f"{where}: '{name}' must be a non-empty string")
    if t["family"] not in _FAMILIES:
        raise InputError(f"{where}: family {t['family']!r} is not one of {', '.join(_FAMILIES)}")
    if t["anchor"] not in ("node", "edge"):
        raise InputError(f"{where}: anchor {t['anchor']!r} is not 'node' or 'edge'")
    params = t.get("parameters")
    if not isinstance(params, dict) or not all(isinstance(v, str) for v in params.values()):
        raise InputError(f"{where}: 'parameters' must map slot names to kinds")
    for name, kind in params.items():
        if kind not in SLOT_KINDS:
            raise InputError(f"{where}: slot {name} has unknown kind {kind!r}")
    anti = t.get("anti_template")
    if t["family"] == "boolean" and not (isinstance(anti, str) and anti):
        raise InputError(f"{where}: a Boolean template needs 'anti_template'")
    texts = [t["template"], *([anti] if isinstance(anti, str) else [])]
    for text in texts:
        for name in _SLOT.findall(text):
            if name not in params:
                raise InputError(f"{where}: slot ${name} is not declared in 'parameters'")
    return Template(
        type=gtype,
        id=t["id"],
        family=t["family"],
        anchor=t["anchor"],
        template=t["template"],
        parameters=dict(params),
        nl=t["nl"],
        anti_template=anti if isinstance(anti, str) else None,
    )


# --------------------------------------------------------------------------- the clean graph


def _id_like(name: str) -> bool:
    return name.lower().endswith("id")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@dataclass
class CleanIndex:
    """What slot filling needs of the clean graph G* (SPEC.md §2 graph dict): nodes by eid,
    each node's out / in edges ``(type, other eid, rid)``, relations by rid, the declared
    property types per label and the observed schema triples per subject label."""

    nodes: dict[str, Mapping[str, Any]]
    out_edges: dict[str, list[tuple[str, str, str]]]
    in_edges: dict[str, list[tuple[str, str, str]]]
    relations: dict[str, Mapping[str, Any]]
    declared: dict[str, dict[str, str]]
    triples_from: dict[str, list[tuple[str, str]]]

    @classmethod
    def of(cls, graph: Mapping[str, Any]) -> CleanIndex:
        """Index the graph dict ``graph`` (``entities`` / ``relations``, SPEC.md §2)."""
        nodes = {str(e["eid"]): e for e in graph.get("entities") or []}
        out_edges: dict[str, list[tuple[str, str, str]]] = {}
        in_edges: dict[str, list[tuple[str, str, str]]] = {}
        relations: dict[str, Mapping[str, Any]] = {}
        triples: dict[str, set[tuple[str, str]]] = {}
        for r in graph.get("relations") or []:
            s, o, rid, rel = str(r["subj_id"]), str(r["obj_id"]), str(r["rid"]), str(r["label"])
            relations[rid] = r
            out_edges.setdefault(s, []).append((rel, o, rid))
            in_edges.setdefault(o, []).append((rel, s, rid))
            if s in nodes and o in nodes:
                triples.setdefault(str(nodes[s]["label"]), set()).add((rel, str(nodes[o]["label"])))
        declared: dict[str, dict[str, str]] = {}
        for ent in (graph.get("schema") or {}).get("entities") or []:
            declared[str(ent["label"])] = {
                str(k): str(v) for k, v in (ent.get("properties") or {}).items()
            }
        for lst in (*out_edges.values(), *in_edges.values()):
            lst.sort()
        return cls(
            nodes=nodes,
            out_edges=out_edges,
            in_edges=in_edges,
            relations=relations,
            declared=declared,
            triples_from={k: sorted(v) for k, v in triples.items()},
        )

    def label(self, eid: str) -> str:
        """The label of node ``eid`` (``KeyError`` when the graph has no such node)."""
        return str(self.nodes[eid]["label"])


@dataclass(frozen=True)
class Anchor:
    """An element tasks are built around: ``kind`` ``node`` (``id`` = eid) or ``edge`` (``id``
    = rid, ``source`` / ``target`` eids, ``rel`` its type); ``noisy`` = the noise touched it."""

    kind: str
    id: str
    noisy: bool
    source: str | None = None
    target: str | None = None
    rel: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The anchor as written in task records: ``kind``, ``id``, ``noisy``, and for an edge
        its ``source``, ``target`` and ``type`` (formats.md §9)."""
        d: dict[str, Any] = {"kind": self.kind, "id": self.id, "noisy": self.noisy}
        if self.kind == "edge":
            d.update(source=self.source, target=self.target, type=self.rel)
        return d


def _stream(seed: int, *parts: str) -> random.Random:
    """A random stream seeded by ``seed`` and ``parts`` (stable across runs and platforms)."""
    h = hashlib.sha256("\x1f".join([str(seed), *parts]).encode("utf-8")).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def collect_anchors(
    log: Mapping[str, Any], index: CleanIndex, *, seed: int = 42, max_anchors: int | None = None
) -> tuple[list[Anchor], dict[str, int]]:
    """The anchors of spec §4 in order: noisy nodes, noisy edges (ids sorted), then clean
    anchors (¼ as many, 70 % nodes, seeded). ``max_anchors`` keeps a seeded sample of that
    many noisy anchors (in the same proportion of nodes and edges) before the clean ones are
    added. Returns the anchors and counts (``noisy_nodes``, ``noisy_edges``,
    ``clean_nodes``, ``clean_edges``, ``skipped_not_in_clean_graph``).

    Raises:
        InputError: a log without ``detailed_records.noisy_nodes_list`` / ``noisy_edges_list``.
    """
    detailed = log.get("detailed_records")
    if not isinstance(detailed, dict) or not isinstance(detailed.get("noisy_nodes_list"), list):
        raise InputError("noise log: no detailed_records.noisy_nodes_list (spec §2)")
    edges_list = detailed.get("noisy_edges_list")
    if not isinstance(edges_list, list):
        raise InputError("noise log: no detailed_records.noisy_edges_list (spec §2)")
    added_type = {
        str(r.get("edge_key")): str((r.get("new_attrs") or {}).get("label"))
        for r in detailed.get("added_edges") or []
    }
    skipped = 0
    node_ids = sorted({str(x) for x in detailed["noisy_nodes_list"]})
    nodes = []
    for eid in node_ids:
        if eid in index.nodes:
            nodes.append(Anchor("node", eid, True))
        else:
            skipped += 1
    edges = []
    for item in sorted(edges_list, key=lambda e: str(e[2]) if len(e) > 2 else ""):
        if not isinstance(item, list) or len(item) < 3:
            raise InputError(
                f"noise log: noisy_edges_list item {item!r} is not [source, target, key]"
            )
        s, t, rid = (str(x) for x in item[:3])
        if s not in index.nodes or t not in index.nodes:
            skipped += 1
            continue
        clean = index.relations.get(rid)
        if clean is not None:
            edges.append(Anchor("edge", rid, True, s, t, str(clean["label"])))
        elif rid in added_type:
            edges.append(Anchor("edge", rid, True, s, t, added_type[rid]))
        else:
            skipped += 1
    if max_anchors is not None and len(nodes) + len(edges) > max_anchors:
        total = len(nodes) + len(edges)
        keep_nodes = round(max_anchors * len(nodes) / total)
        rng = _stream(seed, "max_anchors")
        nodes = sorted(rng.sample(nodes, keep_nodes), key=lambda a: a.id)
        edges = sorted(rng.sample(edges, max_anchors - keep_nodes), key=lambda a: a.id)
    n_clean = (len(nodes) + len(edges)) // 4
    n_clean_nodes = round(n_clean * 0.7)
    noisy_node_ids = set(node_ids)
    noisy_rids = {str(e[2]) for e in edges_list if isinstance(e, list) and len(e) > 2}
    rng = _stream(seed, "clean_anchors")
    pool_nodes = sorted(e for e in index.nodes if e not in noisy_node_ids)
    pool_edges = sorted(r for r in index.relations if r not in noisy_rids)
    clean_nodes = rng.sample(pool_nodes, min(n_clean_nodes, len(pool_nodes)))
    clean_edges = rng.sample(pool_edges, min(n_clean - len(clean_nodes), len(pool_edges)))
    anchors = [*nodes, *edges]
    anchors += [Anchor("node", e, False) for e in sorted(clean_nodes)]
    for rid in sorted(clean_edges):
        r = index.relations[rid]
        s, t = str(r["subj_id"]), str(r["obj_id"])
        if s in index.nodes and t in index.nodes:
            anchors.append(Anchor("edge", rid, False, s, t, str(r["label"])))
    counts = {
        "noisy_nodes": len(nodes),
        "noisy_edges": len(edges),
        "clean_nodes": len(clean_nodes),
        "clean_edges": sum(1 for a in anchors if a.kind == "edge" and not a.noisy),
        "skipped_not_in_clean_graph": skipped,
    }
    return anchors, counts


# --------------------------------------------------------------------------- slot filling


def cypher_literal(value: Any) -> str:
    """A string, integer or finite float as a Cypher literal. Raises ``ValueError`` for
    anything else."""
    if isinstance(value, str):
        return cypher_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return repr(value)
    raise ValueError(f"no Cypher literal for {value!r}")


def _words(name: str) -> str:
    return name.replace("_", " ").strip()


def _key_of(node: Mapping[str, Any]) -> tuple[str, str]:
    name = node.get("name")
    if isinstance(name, str) and name.strip():
        return "name", name
    return "eid", str(node["eid"])


class _Unusable(Exception):
    """A slot that cannot be filled for this anchor (the reason is the message)."""


@dataclass
class _Filler:
    index: CleanIndex
    anchor: Anchor
    rng: random.Random
    values: dict[str, tuple[str, str]] = field(default_factory=dict)  # slot → (cypher, text)
    plain: dict[str, Any] = field(default_factory=dict)  # slot → JSON value
    _pairs: dict[str, tuple[str, str]] = field(default_factory=dict)  # kind group → pair

    @property
    def node_id(self) -> str:
        return self.anchor.id if self.anchor.kind == "node" else str(self.anchor.source)

    @property
    def node(self) -> Mapping[str, Any]:
        return self.index.nodes[self.node_id]

    def _choice(self, items: Sequence[Any], what: str) -> Any:
        if not items:
            raise _Unusable(what)
        return items[self.rng.randrange(len(items))]

    def _pair(self, group: str) -> tuple[str, str]:
        """A (relation type, neighbour label) pair for ``out`` / ``in`` / ``any`` / ``out_2``."""
        if group in self._pairs:
            return self._pairs[group]
        idx = self.index
        if group == "out" and self.anchor.kind == "edge":
            pair = (str(self.anchor.rel), idx.label(str(self.anchor.target)))
        elif group in ("out", "in", "any"):
            edges = []
            if group in ("out", "any"):
                edges += idx.out_edges.get(self.node_id, [])
            if group in ("in", "any"):
                edges += idx.in_edges.get(self.node_id, [])
            pairs = sorted({(rel, idx.label(o)) for rel, o, _ in edges if o in idx.nodes})
            pair = self._choice(pairs, f"no {group} edges")
        else:  # out_2: a schema triple leaving the label of 'out'
            _, l2 = self._pair("out")
            pair = self._choice(idx.triples_from.get(l2, []), "no second hop")
        self._pairs[group] = pair
        return pair

    def _label_of_group(self, group: str) -> str:
        if group not in self._pairs:
            if group == "target" and "any" in self._pairs:
                group = "any"
            elif group == "target":
                group = "out"
        return self._pair(group)[1]

    def fill(self, name: str, kind: str) -> None:
        idx = self.index
        node = self.node
        text: str
        if kind == "label":
            value: Any = idx.label(self.node_id)
            cy, text = cypher_ident(value), value
        elif kind == "key":
            if name.startswith("M_"):
                value = _key_of(idx.nodes[str(self.anchor.target)])[0]
            else:
                value = _key_of(node)[0]
            cy, text = cypher_ident(value), value
        elif kind == "value":
            target = name.startswith("M_")
            if target and self.anchor.kind != "edge":
                raise _Unusable("a target value needs an edge anchor")
            value = _key_of(idx.nodes[str(self.anchor.target)] if target else node)[1]
            cy, text = cypher_literal(value), value
        elif kind.startswith("rel_") or kind.startswith("label_"):
            group = kind.split("_", 1)[1]
            rel, lab = self._pair(group)
            value = rel if kind.startswith("rel_") else lab
            cy, text = cypher_ident(value), _words(value)
        elif kind == "property":
            props = node.get("properties") or {}
            keys = sorted(
                k
                for k, v in props.items()
                if v is not None and not isinstance(v, (list, dict)) and not _id_like(k)
            )
            value = self._choice(keys, "no property")
            cy, text = cypher_ident(value), _words(value)
        elif kind == "numeric_property":
            props = node.get("properties") or {}
            keys = sorted(k for k, v in props.items() if _is_number(v) and not _id_like(k))
            value = self._choice(keys, "no numeric property")
            cy, text = cypher_ident(value), _words(value)
            self.plain["_numeric_value"] = props[value]
        elif kind == "numeric_value":
            if "_numeric_value" not in self.plain:
                raise _Unusable("numeric_value without numeric_property")
            value = self.plain.pop("_numeric_value")
            cy = text = cypher_literal(value)
        elif kind == "target_numeric_property":
            lab = self._label_of_group("target")
            decl = idx.declared.get(lab, {})
            keys = sorted(k for k, t in decl.items() if t in ("int", "float") and not _id_like(k))
            value = self._choice(keys, "no numeric property on the neighbour label")
            cy, text = cypher_ident(value), _words(value)
        elif kind == "target_string_property":
            rel, lab = self._pair("out")
            options = []
            for r, o, _ in idx.out_edges.get(self.node_id, []):
                if r != rel or o not in idx.nodes or idx.label(o) != lab:
                    continue
                for k, v in sorted((idx.nodes[o].get("properties") or {}).items()):
                    if isinstance(v, str) and len(v) >= 3 and not _id_like(k):
                        options.append((k, v))
            value, sval = self._choice(sorted(set(options)), "no string on a neighbour")
            self.plain["_string_value"] = sval
            cy, text = cypher_ident(value), _words(value)
        elif kind == "string_comparison":
            value = self._choice(list(_STRING_COMPARISONS), "")
            cy, text = value, _STRING_COMPARISONS[value]
            self.plain["_string_op"] = value
        elif kind == "target_string_value":
            sval = self.plain.pop("_string_value", None)
            if sval is None:
                raise _Unusable("target_string_value without target_string_property")
            op = self.plain.get("_string_op", "=")
            if op == "STARTS WITH":
                value = sval[:3]
            elif op == "ENDS WITH":
                value = sval[-3:]
            elif op == "CONTAINS":
                mid = len(sval) // 2
                value = sval[max(0, mid - 1) : mid + 2]
            else:
                value = sval
            cy, text = cypher_literal(value), repr(value)
        elif kind == "comparison":
            value = self._choice(list(_COMPARISONS), "")
            cy, text = value, _COMPARISONS[value]
        elif kind == "aggregate":
            value = self._choice(list(_AGGREGATES), "")
            cy, text = value, _AGGREGATES[value]
        elif kind == "min_hops":
            value = self.rng.randint(1, 3)
            cy = text = str(value)
            self.plain["_min_hops"] = value
        elif kind == "max_hops":
            low = max(2, int(self.plain.get("_min_hops", 1)))
            value = self.rng.randint(low, 5)
            cy = text = str(value)
        else:  # pragma: no cover - load_templates checks the kinds
            raise _Unusable(f"unknown slot kind {kind}")
        self.values[name] = (cy, text)
        self.plain[name] = value


def _render(text: str, values: Mapping[str, tuple[str, str]], *, nl: bool) -> str:
    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if nl and name.endswith("_TEXT") and name[:-5] in values:
            return values[name[:-5]][1]
        if name in values:
            return values[name][1] if nl else values[name][0]
        return m.group(0)

    return _SLOT.sub(sub, text)


@dataclass(frozen=True)
class AnalyticCandidate:
    """One instantiated template: ``query`` (and ``anti_query`` for Boolean), the slot values
    (``parameters``, JSON), the NL text and the anchor."""

    template: Template
    anchor: Anchor
    query: str
    anti_query: str | None
    parameters: dict[str, Any]
    nlp: str


def instantiate(
    template: Template, anchor: Anchor, index: CleanIndex, seed: int = 42
) -> AnalyticCandidate | str:
    """Fill ``template``'s slots for ``anchor`` (module docstring). Returns the candidate, or
    the reason (a short string) it cannot be used for this anchor."""
    if template.anchor != anchor.kind:
        return "anchor kind"
    filler = _Filler(index, anchor, _stream(seed, template.template_id, anchor.kind, anchor.id))
    # string_comparison before target_string_value: the cut depends on the operator
    order = sorted(
        template.parameters.items(),
        key=lambda kv: (kv[1] == "target_string_value", kv[1] == "numeric_value"),
    )
    try:
        for name, kind in order:
            filler.fill(name, kind)
    except _Unusable as exc:
        return str(exc) or "unusable"
    params = {k: v for k, v in filler.plain.items() if k in template.parameters}
    query = _render(template.template, filler.values, nl=False)
    anti = (
        _render(template.anti_template, filler.values, nl=False) if template.anti_template else None
    )
    return AnalyticCandidate(
        template=template,
        anchor=anchor,
        query=query,
        anti_query=anti,
        parameters=params,
        nlp=_render(template.nl, filler.values, nl=True),
    )


# --------------------------------------------------------------------------- answers


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _as_list(answer: Any) -> list[Any]:
    return answer if isinstance(answer, list) else [answer]


def multiset_equal(a: Any, b: Any, *, ordered: bool = False) -> bool:
    """``same_as_cleangraph`` (spec §4): the cleaned answers as multisets (``ordered``: as
    lists, the repo's comparison). Numbers compare by value (``1 == 1.0``)."""

    def norm(v: Any) -> str:
        if _is_number(v) and float(v).is_integer():
            v = int(v)
        return _canon(v)

    xa = [norm(v) for v in _as_list(a)]
    xb = [norm(v) for v in _as_list(b)]
    return xa == xb if ordered else sorted(xa) == sorted(xb)


def _rows_answer(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Any:
    from kgbench.query.ngdbench_answer import answer_from_rows

    return answer_from_rows(columns, rows)


def _gold_filter(
    family: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], max_answers: int
) -> str | None:
    """Why a clean result is not kept (spec §4 Gold), or None: an uninformative result
    (:func:`kgbench.evaluate.uninformative_reason`: ``empty``, ``all_null``, ``single_zero``
    — the spec's all-zero aggregate —, ``single_false``, ``single_empty_list``), an
    aggregate that is not one number, or too many answers."""
    from kgbench.query.compare import uninformative_reason

    reason = uninformative_reason([list(r) for r in rows])
    if reason is not None:
        return reason
    if family == "agg":
        if len(rows) != 1 or len(rows[0]) != 1 or not _is_number(rows[0][0]):
            return "not_one_number"
        return None
    distinct = {_canon(list(r)) for r in rows}
    if len(distinct) > max_answers:
        return "too_many_answers"
    return None


def _boolean_sides(
    t_rows: Sequence[Sequence[Any]],
    a_rows: Sequence[Sequence[Any]],
    columns: Sequence[str],
    rng: random.Random,
    max_candidates: int,
) -> dict[str, list[dict[str, Any]]]:
    from kgbench.query.ngdbench_answer import clean_answer

    def rowmap(r: Sequence[Any]) -> dict[str, Any]:
        return {str(c): clean_answer(v) for c, v in zip(columns, r, strict=True)}

    t = {_canon(rowmap(r)): rowmap(r) for r in t_rows}
    a = {_canon(rowmap(r)): rowmap(r) for r in a_rows}
    pos = [t[k] for k in sorted(set(t) - set(a))]
    neg = [a[k] for k in sorted(set(a) - set(t))]
    if len(pos) > max_candidates:
        pos = [pos[i] for i in sorted(rng.sample(range(len(pos)), max_candidates))]
    if len(neg) > max_candidates:
        neg = [neg[i] for i in sorted(rng.sample(range(len(neg)), max_candidates))]
    return {
        "valid_answer": [{**r, "judge": True} for r in pos],
        "invalid_answer": [{**r, "judge": False} for r in neg],
    }


# --------------------------------------------------------------------------- the build


def build_analytic_tasks(
    templates: Sequence[Template],
    anchors: Sequence[Anchor],
    index: CleanIndex,
    run_clean: Callable[[Sequence[str]], Sequence[Any]],
    run_noisy: Callable[[Sequence[str]], Sequence[Any]],
    *,
    seed: int = 42,
    max_answers: int = DEFAULT_MAX_ANSWERS,
    max_candidates: int = DEFAULT_MAX_CANDIDATES,
    compat_repo: bool = False,
    chunk_size: int = 2000,
    log: Callable[[str], None] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Instantiate, execute and keep analytic and Boolean tasks (module docstring).

    ``run_clean`` / ``run_noisy`` run a list of read-only queries on G* / G̃ and return one
    :class:`kgbench.neo4j.QueryResult`-like object per query (``columns``, ``rows``,
    ``error_class``, ``error``), in order.

    Candidates run in chunks of ``chunk_size`` (clean, then noisy), so memory holds one
    chunk's raw results at a time.

    Returns the task records (NoAgg, then Agg, then Boolean; qids ``ngd-<family>-<n>``) and a
    report: ``candidates`` / ``kept`` per family, ``rejected`` {reason: n}, ``by_template``
    {template_id: {candidates, kept}}, ``same_as_cleangraph`` {family: {true, false}},
    ``noisy_errors``.
    """
    say = log or (lambda _m: None)
    rejected: Counter[str] = Counter()
    by_template: dict[str, Counter[str]] = {}
    cands: list[AnalyticCandidate] = []
    seen: set[tuple[str, str | None]] = set()
    for anchor in anchors:
        for t in templates:
            if t.anchor != anchor.kind:
                continue
            c = instantiate(t, anchor, index, seed)
            tc = by_template.setdefault(t.template_id, Counter())
            if isinstance(c, str):
                rejected["unusable"] += 1
                continue
            key = (c.query, c.anti_query)
            if key in seen:
                rejected["duplicate_query"] += 1
                continue
            seen.add(key)
            tc["candidates"] += 1
            cands.append(c)
    say(f"ngdbench: {len(cands):,} candidate queries from {len(anchors):,} anchors")

    out: dict[str, list[dict[str, Any]]] = {f: [] for f in _FAMILIES}
    same: dict[str, Counter[str]] = {f: Counter() for f in _FAMILIES}
    noisy_errors = 0
    # in chunks, so that raw results (nodes with their properties) never pile up
    for start in range(0, len(cands), chunk_size):
        part = cands[start : start + chunk_size]
        clean_queries: list[str] = []
        for c in part:
            clean_queries.append(c.query)
            if c.anti_query is not None:
                clean_queries.append(c.anti_query)
        clean_results = iter(run_clean(clean_queries))

        kept: list[tuple[AnalyticCandidate, Any, Any]] = []  # (candidate, clean result, anti)
        for c in part:
            res = next(clean_results)
            anti = next(clean_results) if c.anti_query is not None else None
            failed = res.error_class or (anti.error_class if anti is not None else None)
            if failed is not None:
                rejected[f"error_{failed}"] += 1
                continue
            if c.template.family == "boolean":
                kept.append((c, res, anti))
                continue
            reason = _gold_filter(c.template.family, res.columns, res.rows, max_answers)
            if reason is not None:
                rejected[reason] += 1
                continue
            kept.append((c, res, None))

        noisy_queries: list[str] = []
        for c, _, _ in kept:
            noisy_queries.append(c.query)
            if c.anti_query is not None:
                noisy_queries.append(c.anti_query)
        noisy_results = iter(run_noisy(noisy_queries))

        for c, res, anti in kept:
            nres = next(noisy_results)
            nanti = next(noisy_results) if c.anti_query is not None else None
            fam = c.template.family
            base = {
                "template_id": c.template.template_id,
                "type": c.template.type,
                "parameters": c.parameters,
                "anchor": c.anchor.to_json(),
            }
            if fam == "boolean":
                assert anti is not None and nanti is not None
                rng = _stream(seed, "boolean", c.template.template_id, c.anchor.id)
                clean_side = _boolean_sides(res.rows, anti.rows, res.columns, rng, max_candidates)
                if not clean_side["valid_answer"] or not clean_side["invalid_answer"]:
                    rejected[
                        "no_positive" if not clean_side["valid_answer"] else "no_negative"
                    ] += 1
                    continue
                if nres.error_class is not None or nanti.error_class is not None:
                    noisy_errors += 1
                    noise_side: dict[str, Any] = {"valid_answer": [], "invalid_answer": []}
                else:
                    noise_side = _boolean_sides(
                        nres.rows, nanti.rows, nres.columns, rng, max_candidates
                    )
                rec = {
                    "family": "boolean",
                    **base,
                    "template_query": c.query,
                    "anti_template_query": c.anti_query,
                    "contains_noise": c.anchor.noisy,
                    "clean_answer": clean_side,
                    "noise_answer": noise_side,
                    "nlp": c.nlp,
                }
                same_flag = _canon(clean_side) == _canon(noise_side)
            else:
                answer = _rows_answer(res.columns, res.rows)
                if nres.error_class is not None:
                    noisy_errors += 1
                    noise_answer: Any = []
                else:
                    noise_answer = _rows_answer(nres.columns, nres.rows) if nres.rows else []
                same_flag = multiset_equal(answer, noise_answer, ordered=compat_repo)
                rec = {
                    "family": fam,
                    **base,
                    "query": c.query,
                    "answer": answer,
                    "noise_answer": noise_answer,
                    "same_as_cleangraph": same_flag,
                    "is_noise_query": c.anchor.noisy,
                    "nlp": c.nlp,
                }
                if nres.error_class is not None:
                    rec["noise_error"] = f"{nres.error_class}: {nres.error}"
            same[fam]["true" if same_flag else "false"] += 1
            by_template[c.template.template_id]["kept"] += 1
            out[fam].append(rec)
        say(
            f"ngdbench: {min(start + chunk_size, len(cands)):,} of {len(cands):,} candidates "
            f"run; {sum(len(v) for v in out.values()):,} tasks kept"
        )

    records: list[dict[str, Any]] = []
    for fam in _FAMILIES:
        for i, rec in enumerate(out[fam], start=1):
            records.append({"qid": f"ngd-{fam}-{i:05d}", **rec})
    report = {
        "candidates": dict(Counter(c.template.family for c in cands)),
        "kept": {f: len(out[f]) for f in _FAMILIES},
        "rejected": dict(sorted(rejected.items())),
        "by_template": {k: dict(v) for k, v in sorted(by_template.items())},
        "same_as_cleangraph": {f: dict(same[f]) for f in _FAMILIES},
        "noisy_errors": noisy_errors,
    }
    return records, report


def iter_families(records: Iterable[Mapping[str, Any]]) -> Counter[str]:
    """Counts of records per ``family`` (management records have ``operation`` instead)."""
    return Counter(str(r.get("family", "management")) for r in records)
