"""NGDBench management (write) batches with gold from a rolled-back replay (spec ngdbench.md
§2, §4, §7; seed ngdbench.txt §3.4).

A batch is K writes, each followed by a read-only validation. Its gold comes from replaying it
on a disposable copy of the clean graph G* (:class:`kgbench.neo4j.disposable.DisposableNeo4j`):
validation 0, then op i and validation i for i = 1..K, all in **one explicit transaction that
is rolled back** (spec §7 "Safe writes"). The per-step write counters are recorded as the
expected state change.

**Templates** (spec §2 "management" input): a JSON list ``[{operation, templates: [{id,
difficulty, title, template: [op…], parameters: {NAME: kind}, validation, reads?, nl}]}]``;
the default library is kgbench's own ``kgbench/generate/data/ngdbench_management.json``
(operators CREATE, MERGE, SET, DELETE, FOREACH and MIX, :data:`OPERATIONS`). ``$NAME`` in a
query is a slot. A *uniform* template has one op, repeated for ``steps`` steps: every indexed
slot ``$X1`` in the op and in the validation becomes ``$Xi`` at step i (spec §4). A MIX
template lists its 5–10 ops; its slots keep the index they are written with (``$NEW1``,
``$NEW2``…), in the ops and in the validation.

Slot kinds (a parameter may only refer to parameters declared before it):

* batch level — ``label`` (an entity label with nodes), ``triple`` (a relationship type as a
  schema triple observed in the graph; its ``subject_of:R`` / ``object_of:R`` parameters are
  the two labels), ``num_prop:L`` / ``str_prop:L`` (an ``int``/``float`` resp. ``str``
  property the schema declares for label slot L, set on a node, not id-like: its name does not
  end in "id", spec §4), ``node:L[:P]`` (an existing node's ``eid``, with property P set),
  ``linked:R`` (the ``eid`` of a subject node with an outgoing R relationship);
* indexed (declared as ``NAME1``; one value per index k) — ``nodes:L[:P]``,
  ``sources:R`` / ``targets:R`` (distinct nodes with an outgoing / incoming R),
  ``unlinked:R:S`` (distinct object nodes of R that node slot S has no R relationship to),
  ``edge_src:R`` / ``edge_dst:R`` (the ends of distinct R relationships), ``new_key:L`` /
  ``new_name:L`` (``base_k`` from a sampled L node's ``eid`` / ``name``), ``value:P``
  (``base + k·U{1..10}``, base = P on the template's ``node:…:P`` node, else on a sampled
  node), ``text:P`` (``base_k``) and ``increment`` (``k·U{1..10}``) — spec §4 "Step values".

**Checks** (spec §4 "Checks added"; a failure discards the batch, counted by reason in the
report): ``op_failed`` / ``validation_failed`` (any failure, spec §4 "Gold"),
``empty_initial_state`` (validation 0 is empty, null or zero), ``op_changed_nothing`` (an op
with all-zero write counters), ``merge_not_idempotent`` (an op with MERGE run a second time in
the transaction changes something), ``null_answer`` (a step whose gold is null: no prediction
can match it), ``answer_too_large`` (a validation answer of more than ``max_answer_items``
items), ``step_misaligned`` (a template with ``reads: X1`` — its validation reads the value op
i wrote — whose answer at step i lacks ``Xi``: step i must pair op i with validation i),
``duplicate`` (the same queries as a kept batch), ``not_enough_nodes`` (the graph cannot fill
the node slots; no replay), ``no_slot_binding`` (per template: no label / triple / property
fits).

**Records** (spec §2 task view plus kgbench's fields), read unchanged by
:mod:`kgbench.evaluate.ngdbench`: ``{qid, operation, difficulty, template_id, title,
initial_query, initial_answer, steps: [{step, operate_query, valid_query, answer, counters,
operate_nlp, valid_nlp}], parameters, nlp}``. Answers are normalised as scoring does
(:func:`kgbench.evaluate.ngdbench.answer_from_rows`); ``counters`` holds the op's non-zero
write counters (``nodes_created``, ``properties_set``, …). The NL is the template's ``nl``
pattern rendered deterministically (no language model).

**Determinism**: the same graph, templates, seed and steps give identical records: slot
bindings are enumerated in sorted order, each candidate's node and value sampling uses its own
random stream (sha256 of seed, template id and binding), and the order candidates are tried in
is a seeded shuffle per template, interleaved over the templates in file order.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.neo4j.disposable import round_float

__all__ = [
    "DATA_FILE",
    "DEFAULT_BATCHES_PER_OPERATION",
    "DEFAULT_STEPS",
    "OPERATIONS",
    "RECORD_KEYS",
    "ManagementTemplate",
    "generate_management",
    "load_management_templates",
]

#: kgbench's own management template library.
DATA_FILE = Path(__file__).resolve().parents[1] / "data" / "ngdbench_management.json"
#: The operators, in report order (spec §4).
OPERATIONS = ("CREATE", "MERGE", "SET", "DELETE", "FOREACH", "MIX")
#: K, the number of steps of a uniform batch (spec §1: K = 5).
DEFAULT_STEPS = 5
#: Batches kept per operator by default.
DEFAULT_BATCHES_PER_OPERATION = 10
#: Validation answers with more items than this discard the batch.
DEFAULT_MAX_ANSWER_ITEMS = 100

#: The members of one management record, in the order they are written (the module docstring,
#: "Records").
RECORD_KEYS = (
    "qid",
    "operation",
    "difficulty",
    "template_id",
    "title",
    "initial_query",
    "initial_answer",
    "steps",
    "parameters",
    "nlp",
)

_BATCH_KINDS = {
    "label": 0,
    "triple": 0,
    "subject_of": 1,
    "object_of": 1,
    "num_prop": 1,
    "str_prop": 1,
    "node": 1,
    "linked": 1,
}
_INDEXED_KINDS = {
    "nodes",
    "sources",
    "targets",
    "unlinked",
    "edge_src",
    "edge_dst",
    "new_key",
    "new_name",
    "value",
    "text",
    "increment",
}
#: Kinds whose value is an identifier (label, relationship type, property name).
_IDENTIFIER_KINDS = {"label", "triple", "subject_of", "object_of", "num_prop", "str_prop"}
#: Kinds whose value is the eid of an existing node (rendered with its name in NL).
_NODE_KINDS = {
    "node",
    "linked",
    "nodes",
    "sources",
    "targets",
    "unlinked",
    "edge_src",
    "edge_dst",
}
_LABEL_KINDS = {"label", "subject_of", "object_of"}
_SLOT = re.compile(r"\$([A-Z][A-Z_]*)(\d*)")
_NL_SLOT = re.compile(r"\{([A-Z][A-Z_]*)(\d*)\}")
_PLAIN_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# --------------------------------------------------------------------------- templates


@dataclass(frozen=True)
class ManagementTemplate:
    """One management template (module docstring). ``params`` maps each parameter name to
    its kind split on ``:`` (``("num_prop", "LABEL")``), in declaration order; ``families``
    holds the indexed parameters by base name (``"VALUE"`` for ``VALUE1``)."""

    id: str
    operation: str
    difficulty: int
    title: str
    ops: tuple[str, ...]
    validation: str
    params: dict[str, tuple[str, ...]]
    families: dict[str, tuple[str, ...]]
    reads: str | None
    nl: dict[str, Any]

    @property
    def mix(self) -> bool:
        """True for a template that lists its ops (explicit slot indices)."""
        return self.operation == "MIX" or len(self.ops) > 1

    def indices(self, family: str) -> list[int]:
        """The indices slot ``family`` is used with in a MIX template's queries (sorted)."""
        out = set()
        for text in (*self.ops, self.validation):
            for m in _SLOT.finditer(text):
                if m.group(1) == family and m.group(2):
                    out.add(int(m.group(2)))
        return sorted(out)


def load_management_templates(
    path: str | os.PathLike[str] | None = None,
) -> list[ManagementTemplate]:
    """Read and check a management template file (module docstring; default
    :data:`DATA_FILE`), in file order.

    Raises:
        InputError: unreadable or malformed file: unknown operation or slot kind, a slot used
            but not declared, a reference to an undeclared or later parameter, a uniform
            template with several ops or an index other than 1, a duplicate id, a missing NL
            pattern (the message names the file, template id and field).
    """
    src = Path(path) if path is not None else DATA_FILE
    try:
        data = json.loads(src.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{src}: cannot read the management templates: {exc}") from exc
    except ValueError as exc:
        raise InputError(f"{src}: not JSON: {exc}") from exc
    if not isinstance(data, list):
        raise InputError(f"{src}: expected a list of {{operation, templates}} objects")
    out: list[ManagementTemplate] = []
    seen: set[str] = set()
    for i, group in enumerate(data):
        where = f"{src} [{i}]"
        if not isinstance(group, dict) or not isinstance(group.get("templates"), list):
            raise InputError(f"{where}: expected {{operation, templates: [...]}}")
        op = group.get("operation")
        if op not in OPERATIONS:
            raise InputError(f"{where}: operation {op!r} is not one of {', '.join(OPERATIONS)}")
        for j, raw in enumerate(group["templates"]):
            t = _parse_template(f"{where}.templates[{j}]", str(op), raw, j)
            if t.id in seen:
                raise InputError(f"{where}.templates[{j}]: duplicate template id {t.id!r}")
            seen.add(t.id)
            out.append(t)
    return out


def _parse_template(where: str, operation: str, raw: Any, j: int) -> ManagementTemplate:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: a template must be an object")
    tid = str(raw.get("id") or f"{operation}_T{j + 1}")
    where = f"{where} ({tid})"
    ops = raw.get("template")
    if isinstance(ops, str):
        ops = [ops]
    if not isinstance(ops, list) or not ops or not all(isinstance(o, str) for o in ops):
        raise InputError(f"{where}: 'template' must be a non-empty list of Cypher ops")
    validation = raw.get("validation")
    if not isinstance(validation, str) or not validation.strip():
        raise InputError(f"{where}: 'validation' must be a Cypher query")
    difficulty = raw.get("difficulty", 1)
    if isinstance(difficulty, bool) or not isinstance(difficulty, int) or difficulty < 1:
        raise InputError(f"{where}: 'difficulty' must be a positive integer")
    mix = operation == "MIX" or len(ops) > 1
    if operation == "MIX" and len(ops) < 2:
        raise InputError(f"{where}: a MIX template lists its ops (at least 2)")
    raw_params = raw.get("parameters")
    if not isinstance(raw_params, dict):
        raise InputError(f"{where}: 'parameters' must be an object {{NAME: kind}}")
    params: dict[str, tuple[str, ...]] = {}
    families: dict[str, tuple[str, ...]] = {}
    for name, kind in raw_params.items():
        if not isinstance(kind, str):
            raise InputError(f"{where}: parameters.{name} must be a kind string")
        parts = tuple(kind.split(":"))
        _check_kind(f"{where}: parameters.{name}", name, parts, params)
        params[name] = parts
        if parts[0] in _INDEXED_KINDS:
            families[name[:-1]] = parts
    for text in (*ops, validation):
        for m in _SLOT.finditer(text):
            base, idx = m.group(1), m.group(2)
            if not idx:
                if base not in params or params[base][0] in _INDEXED_KINDS:
                    raise InputError(f"{where}: slot ${base} is not a declared batch parameter")
            else:
                if base not in families:
                    raise InputError(
                        f"{where}: slot ${base}{idx} is not a declared indexed parameter ({base}1)"
                    )
                if not mix and idx != "1":
                    raise InputError(
                        f"{where}: a uniform template writes indexed slots as ${base}1 "
                        f"(${base}1 becomes ${base}i at step i), not ${base}{idx}"
                    )
    reads = raw.get("reads")
    if reads is not None and (mix or not isinstance(reads, str) or reads[:-1] not in families):
        raise InputError(
            f"{where}: 'reads' names the indexed parameter (X1) a uniform template's "
            "validation reads back"
        )
    nl = raw.get("nl")
    if not isinstance(nl, dict) or not all(k in nl for k in ("title", "operate", "valid")):
        raise InputError(f"{where}: 'nl' must be {{title, operate, valid}} patterns")
    if mix:
        if not isinstance(nl["operate"], list) or len(nl["operate"]) != len(ops):
            raise InputError(f"{where}: nl.operate must list one pattern per op ({len(ops)})")
    elif not isinstance(nl["operate"], str):
        raise InputError(f"{where}: nl.operate must be a pattern string")
    return ManagementTemplate(
        id=tid,
        operation=operation,
        difficulty=difficulty,
        title=str(raw.get("title") or tid),
        ops=tuple(ops),
        validation=validation,
        params=params,
        families=families,
        reads=reads,
        nl=dict(nl),
    )


def _check_kind(
    where: str, name: str, parts: tuple[str, ...], before: Mapping[str, tuple[str, ...]]
) -> None:
    kind, args = parts[0], parts[1:]

    def ref(arg: str, allowed: set[str]) -> None:
        if arg not in before or before[arg][0] not in allowed:
            raise InputError(
                f"{where}: {':'.join(parts)} refers to {arg!r}, which must be a parameter of "
                f"kind {' / '.join(sorted(allowed))} declared before it"
            )

    if kind in _BATCH_KINDS:
        if not re.fullmatch(r"[A-Z][A-Z_]*", name):
            raise InputError(f"{where}: a batch parameter's name is capitals and '_' only")
    elif kind in _INDEXED_KINDS:
        if not re.fullmatch(r"[A-Z][A-Z_]*1", name):
            raise InputError(f"{where}: an indexed parameter is declared as NAME1")
    else:
        raise InputError(f"{where}: unknown slot kind {kind!r}")
    arity = {
        "label": (0,),
        "triple": (0,),
        "increment": (0,),
        "node": (1, 2),
        "nodes": (1, 2),
        "unlinked": (2,),
    }.get(kind, (1,))
    if len(args) not in arity:
        raise InputError(f"{where}: kind {':'.join(parts)} has the wrong number of arguments")
    if kind in ("subject_of", "object_of", "linked", "sources", "targets", "edge_src", "edge_dst"):
        ref(args[0], {"triple"})
    elif kind in ("num_prop", "str_prop", "new_key", "new_name"):
        ref(args[0], _LABEL_KINDS)
    elif kind in ("node", "nodes"):
        ref(args[0], _LABEL_KINDS)
        if len(args) == 2:
            ref(args[1], {"num_prop", "str_prop"})
            if before[args[1]][1] != args[0]:
                raise InputError(f"{where}: property {args[1]} is not a property of {args[0]}")
    elif kind == "unlinked":
        ref(args[0], {"triple"})
        ref(args[1], {"linked"})
        if before[args[1]][1] != args[0]:
            raise InputError(f"{where}: {args[1]} is not a node of relationship {args[0]}")
    elif kind == "value":
        ref(args[0], {"num_prop"})
    elif kind == "text":
        ref(args[0], {"str_prop"})


# --------------------------------------------------------------------------- the graph


@dataclass
class _Node:
    eid: str
    name: str
    props: dict[str, Any]


@dataclass
class _GraphIndex:
    """What the slots are filled from: labels, typed properties, observed triples, edges."""

    nodes: dict[str, list[_Node]]
    by_eid: dict[str, _Node]
    num_props: dict[str, list[str]]
    str_props: dict[str, list[str]]
    dtypes: dict[str, dict[str, str]]
    triples: list[tuple[str, str, str]]
    edges: dict[tuple[str, str, str], list[tuple[str, str]]]
    out: dict[tuple[str, str, str], dict[str, set[str]]] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        return sorted(self.nodes)


def _id_like(prop: str) -> bool:
    return prop.lower().endswith("id")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _index_graph(graph: Mapping[str, Any]) -> _GraphIndex:
    nodes: dict[str, list[_Node]] = {}
    by_eid: dict[str, _Node] = {}
    label_of: dict[str, str] = {}
    for ent in graph.get("entities") or []:
        n = _Node(str(ent["eid"]), str(ent.get("name") or ""), dict(ent.get("properties") or {}))
        nodes.setdefault(str(ent["label"]), []).append(n)
        by_eid[n.eid] = n
        label_of[n.eid] = str(ent["label"])
    for lst in nodes.values():
        lst.sort(key=lambda n: n.eid)
    declared: dict[str, dict[str, str]] = {}
    for e in (graph.get("schema") or {}).get("entities") or []:
        props = e.get("properties") or {}
        if isinstance(props, dict):
            declared[str(e["label"])] = {str(k): str(v) for k, v in props.items()}
    num_props: dict[str, list[str]] = {}
    str_props: dict[str, list[str]] = {}
    for label, lst in nodes.items():
        types = declared.get(label, {})
        nums, strs = [], []
        for prop in sorted(types):
            if _id_like(prop) or prop in ("eid", "name"):
                continue
            dtype = types[prop]
            if dtype in ("int", "float") and any(_is_number(n.props.get(prop)) for n in lst):
                nums.append(prop)
            elif dtype == "str" and any(isinstance(n.props.get(prop), str) for n in lst):
                strs.append(prop)
        num_props[label], str_props[label] = nums, strs
    edges: dict[tuple[str, str, str], set[tuple[str, str]]] = {}
    for rel in graph.get("relations") or []:
        s, o = by_eid.get(str(rel["subj_id"])), by_eid.get(str(rel["obj_id"]))
        if s is None or o is None:
            continue
        key = (str(rel["label"]), label_of[s.eid], label_of[o.eid])
        edges.setdefault(key, set()).add((s.eid, o.eid))
    index = _GraphIndex(
        nodes=nodes,
        by_eid=by_eid,
        num_props=num_props,
        str_props=str_props,
        dtypes=declared,
        triples=sorted(edges),
        edges={k: sorted(v) for k, v in edges.items()},
    )
    for key, pairs in index.edges.items():
        out: dict[str, set[str]] = {}
        for s_eid, o_eid in pairs:
            out.setdefault(s_eid, set()).add(o_eid)
        index.out[key] = out
    return index


# --------------------------------------------------------------------------- sampling


def _stream(seed: int, *parts: str) -> random.Random:
    """A random stream of ``seed`` and ``parts`` (sha256; stable across runs and platforms)."""
    h = hashlib.sha256("\x1f".join([str(seed), *parts]).encode("utf-8")).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


class _NotEnough(Exception):
    """The graph cannot fill a node slot of this candidate."""


def _identifier_bindings(t: ManagementTemplate, gi: _GraphIndex) -> list[dict[str, Any]]:
    """Every assignment of the template's identifier slots (labels, triples, properties), in
    sorted order."""
    names = [n for n, p in t.params.items() if p[0] in _IDENTIFIER_KINDS]
    out: list[dict[str, Any]] = []

    def options(name: str, b: Mapping[str, Any]) -> list[Any]:
        kind, args = t.params[name][0], t.params[name][1:]
        if kind == "label":
            return [label for label in gi.labels if gi.nodes[label]]
        if kind == "triple":
            return list(gi.triples)
        if kind == "subject_of":
            return [b[args[0]][1]]
        if kind == "object_of":
            return [b[args[0]][2]]
        props = gi.num_props if kind == "num_prop" else gi.str_props
        return list(props.get(b[args[0]], []))

    def rec(k: int, b: dict[str, Any]) -> None:
        if k == len(names):
            out.append(dict(b))
            return
        for v in options(names[k], b):
            b[names[k]] = v
            rec(k + 1, b)
        b.pop(names[k], None)

    rec(0, {})
    return out


def _binding_key(b: Mapping[str, Any]) -> str:
    return json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in b.items()})


@dataclass
class _Candidate:
    template: ManagementTemplate
    binding: dict[str, Any]  # identifier slots
    key: str


def _sample(
    t: ManagementTemplate,
    binding: Mapping[str, Any],
    gi: _GraphIndex,
    rng: random.Random,
    steps: int,
) -> tuple[dict[str, Any], dict[str, dict[int, Any]]]:
    """The batch-level node slots and the indexed values ``{family: {k: value}}``."""
    b: dict[str, Any] = dict(binding)
    fam: dict[str, dict[int, Any]] = {}
    base_node: dict[str, _Node] = {}  # per label: the node new keys and names derive from
    edge_cache: dict[str, list[tuple[str, str]]] = {}

    def label_of(slot: str) -> str:
        return str(b[slot])

    def triple_of(slot: str) -> tuple[str, str, str]:
        v = b[slot]
        assert isinstance(v, tuple)
        return v

    def pool(label: str, prop: str | None) -> list[_Node]:
        lst = gi.nodes.get(label, [])
        if prop is None:
            return lst
        return [n for n in lst if n.props.get(b[prop]) is not None]

    def pick(items: Sequence[Any], n: int) -> list[Any]:
        if len(items) < n:
            raise _NotEnough
        return rng.sample(list(items), n)

    for name, parts in t.params.items():
        kind, args = parts[0], parts[1:]
        if kind in _IDENTIFIER_KINDS:
            continue
        if kind == "node":
            b[name] = pick(pool(label_of(args[0]), args[1] if len(args) > 1 else None), 1)[0].eid
            continue
        if kind == "linked":
            tr = triple_of(args[0])
            b[name] = pick(sorted(gi.out[tr]), 1)[0]
            continue
        family = name[:-1]
        idx = t.indices(family) if t.mix else list(range(1, steps + 1))
        n = len(idx)
        values: list[Any]
        if kind == "nodes":
            prop_slot = args[1] if len(args) > 1 else None
            values = [x.eid for x in pick(pool(label_of(args[0]), prop_slot), n)]
        elif kind == "sources":
            values = pick(sorted(gi.out[triple_of(args[0])]), n)
        elif kind == "targets":
            tr = triple_of(args[0])
            values = pick(sorted({o for _, o in gi.edges[tr]}), n)
        elif kind == "unlinked":
            tr = triple_of(args[0])
            src = str(b[args[1]])
            linked = gi.out[tr].get(src, set())
            cands = [x.eid for x in gi.nodes.get(tr[2], []) if x.eid not in linked and x.eid != src]
            values = pick(cands, n)
        elif kind in ("edge_src", "edge_dst"):
            rel_slot = args[0]
            if rel_slot not in edge_cache or len(edge_cache[rel_slot]) < n:
                edge_cache[rel_slot] = pick(gi.edges[triple_of(rel_slot)], n)
            pairs = edge_cache[rel_slot]
            values = [p[0] if kind == "edge_src" else p[1] for p in pairs[:n]]
        elif kind in ("new_key", "new_name"):
            label = label_of(args[0])
            if label not in base_node:
                base_node[label] = pick(gi.nodes.get(label, []), 1)[0]
            base = base_node[label].eid if kind == "new_key" else base_node[label].name
            values = [f"{base}_{k}" for k in idx]
        elif kind in ("value", "text"):
            prop_slot = args[0]
            prop = str(b[prop_slot])
            anchor = next(
                (
                    b[p]
                    for p, pp in t.params.items()
                    if pp[0] == "node" and len(pp) == 3 and pp[2] == prop_slot and p in b
                ),
                None,
            )
            label = label_of(t.params[prop_slot][1])
            if anchor is not None:
                base_val = gi.by_eid[anchor].props.get(prop)
            else:
                base_val = pick(pool(label, prop_slot), 1)[0].props.get(prop)
            if kind == "value":
                if not isinstance(base_val, (int, float)) or isinstance(base_val, bool):
                    raise _NotEnough
                as_float = gi.dtypes.get(label, {}).get(prop) == "float"
                values = []
                for k in idx:
                    v = base_val + k * rng.randint(1, 10)
                    values.append(round_float(float(v)) if as_float or isinstance(v, float) else v)
            else:
                if not isinstance(base_val, str):
                    raise _NotEnough
                values = [f"{base_val}_{k}" for k in idx]
        elif kind == "increment":
            values = [k * rng.randint(1, 10) for k in idx]
        else:  # pragma: no cover - _check_kind admits no other kind
            raise AssertionError(kind)
        fam[family] = dict(zip(idx, values, strict=True))
    return b, fam


# --------------------------------------------------------------------------- rendering


def _ident(name: str) -> str:
    if _PLAIN_IDENT.fullmatch(name):
        return name
    return "`" + name.replace("`", "``") + "`"


def _literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    s = str(v).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{s}'"


def _slot_value(
    t: ManagementTemplate,
    b: Mapping[str, Any],
    fam: Mapping[str, Mapping[int, Any]],
    base: str,
    idx: str,
    step: int,
) -> tuple[str, Any]:
    """(kind, value) of slot ``base``+``idx`` at ``step`` (uniform: index 1 → step)."""
    if not idx:
        kind = t.params[base][0]
        v = b[base]
        return kind, (v[0] if isinstance(v, tuple) else v)
    k = int(idx) if t.mix else step
    return t.families[base][0], fam[base][k]


def _render(
    t: ManagementTemplate,
    text: str,
    b: Mapping[str, Any],
    fam: Mapping[str, Mapping[int, Any]],
    step: int,
) -> str:
    def sub(m: re.Match[str]) -> str:
        kind, v = _slot_value(t, b, fam, m.group(1), m.group(2), step)
        return _ident(str(v)) if kind in _IDENTIFIER_KINDS else _literal(v)

    return _SLOT.sub(sub, text)


def _render_nl(
    t: ManagementTemplate,
    text: str,
    b: Mapping[str, Any],
    fam: Mapping[str, Mapping[int, Any]],
    step: int,
    gi: _GraphIndex,
) -> str:
    def sub(m: re.Match[str]) -> str:
        base, idx = m.group(1), m.group(2)
        if (not idx and base not in t.params) or (idx and base not in t.families):
            return m.group(0)
        kind, v = _slot_value(t, b, fam, base, idx, step)
        if kind in _IDENTIFIER_KINDS:
            return str(v)
        if kind in _NODE_KINDS:
            node = gi.by_eid.get(str(v))
            return f'"{node.name}" ({v})' if node is not None and node.name else str(v)
        if isinstance(v, str):
            return f'"{v}"'
        return str(v)

    return _NL_SLOT.sub(sub, text)


# --------------------------------------------------------------------------- checks


def _is_empty(answer: Any) -> bool:
    if answer is None or answer == "" or answer == [] or answer == {}:
        return True
    if _is_number(answer):
        return bool(answer == 0)
    if isinstance(answer, list):
        return all(a is None for a in answer)
    return False


def _canonical(answer: Any, query: str, *, top: bool = True) -> Any:
    """``answer`` with its lists in a canonical order (by
    :func:`kgbench.query.compare.canonical_key`), so that records are byte-identical
    whatever order Neo4j returned the rows in; the top-level list keeps its order when the
    query has ``ORDER BY``. Scoring compares lists unordered (EX value model), so the order
    carries no meaning."""
    from kgbench.query.compare import canonical_key, order_matters

    if isinstance(answer, dict):
        return {k: _canonical(v, query, top=False) for k, v in answer.items()}
    if not isinstance(answer, list):
        return answer
    items = [_canonical(v, query, top=False) for v in answer]
    if top and order_matters(query):
        return items
    try:
        return sorted(items, key=canonical_key)
    except TypeError:
        return items


def _size(answer: Any) -> int:
    return len(answer) if isinstance(answer, list) else 1


def _contains(answer: Any, value: Any) -> bool:
    from kgbench.query.compare import values_equal

    items = answer if isinstance(answer, list) else [answer]
    try:
        return any(values_equal(a, value) for a in items)
    except TypeError:
        return False


def _check_run(
    t: ManagementTemplate,
    run: Any,
    fam: Mapping[str, Mapping[int, Any]],
    max_items: int,
) -> str | None:
    """The rejection reason of a replayed batch, or None (module docstring, "Checks")."""
    if not run.ok:
        failed = run.failed_step
        runs = [run.initial, *run.steps]
        step = next(s for s in runs if s is not None and s.step == failed)
        return "op_failed" if step.failed_in == "operate" else "validation_failed"
    if _is_empty(run.initial.answer):
        return "empty_initial_state"
    if any(not s.counters for s in run.steps):
        return "op_changed_nothing"
    if any(s.rerun_counters for s in run.steps):
        return "merge_not_idempotent"
    if any(s.answer is None for s in run.steps):
        return "null_answer"
    if any(_size(s.answer) > max_items for s in (run.initial, *run.steps)):
        return "answer_too_large"
    if t.reads is not None:
        family = t.reads[:-1]
        for s in run.steps:
            if not _contains(s.answer, fam[family][s.step]):
                return "step_misaligned"
    return None


# --------------------------------------------------------------------------- generation


def _interleave(groups: Sequence[list[_Candidate]]) -> Iterator[_Candidate]:
    queues = [list(g) for g in groups]
    while any(queues):
        for q in queues:
            if q:
                yield q.pop(0)


def _bump(d: dict[str, int], key: str, n: int = 1) -> None:
    d[key] = d.get(key, 0) + n


def generate_management(
    graph: Mapping[str, Any] | str | os.PathLike[str],
    server: Any = None,
    *,
    seed: int = 42,
    batches_per_operation: int = DEFAULT_BATCHES_PER_OPERATION,
    steps: int = DEFAULT_STEPS,
    templates: str | os.PathLike[str] | Sequence[ManagementTemplate] | None = None,
    operations: Sequence[str] | None = None,
    max_answer_items: int = DEFAULT_MAX_ANSWER_ITEMS,
    timeout_s: float | None = 60.0,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Management batches of the clean graph with gold from a rolled-back replay (module
    docstring; spec ngdbench.md §2, §4, §7).

    Args:
        graph: the clean graph G* (a SPEC.md §2 dict, or a ``graph.json`` path / converter
            output directory).
        server: a running :class:`kgbench.neo4j.disposable.DisposableNeo4j` loaded with
            ``graph``; None starts one for the call (and stops it after).
        seed: the random seed (spec §1: 42).
        batches_per_operation: batches kept per operator (at most; fewer when the graph
            yields fewer valid candidates).
        steps: K, the number of steps of a uniform batch (MIX templates fix their own).
        templates: a template file, parsed templates, or None for :data:`DATA_FILE`.
        operations: the operators to generate (default: all of :data:`OPERATIONS`).
        max_answer_items: discard batches with a longer validation answer.
        timeout_s: the timeout of one batch transaction in seconds.
        progress: called as ``progress(operation, kept, tried)`` after each replay.

    Returns:
        ``(records, report)``: the task records (module docstring, "Records"), grouped by
        operator in :data:`OPERATIONS` order, and ``{seed, steps, batches_per_operation,
        templates, candidates, tried, kept, rejected: {reason: n}, by_operation: {op:
        {templates, candidates, tried, kept, rejected}}, by_template: {id: {operation,
        difficulty, candidates, tried, kept, rejected}}}`` — ``candidates`` counts slot
        bindings, ``tried`` the replays.

    Raises:
        InputError: bad arguments or template file, an unknown operator, or a ``server``
            whose node / relationship counts differ from ``graph``'s.
        kgbench.neo4j.disposable.WriteRefusedError: ``server`` is not a disposable database
            of this process (nothing is sent).
    """
    from kgbench.neo4j.disposable import DisposableNeo4j, require_disposable

    if steps < 1:
        raise InputError(f"steps must be at least 1, got {steps}")
    if batches_per_operation < 0:
        raise InputError(f"batches_per_operation must be >= 0, got {batches_per_operation}")
    ops = tuple(operations) if operations is not None else OPERATIONS
    for op in ops:
        if op not in OPERATIONS:
            raise InputError(f"unknown operation {op!r}; expected {', '.join(OPERATIONS)}")
    if not isinstance(graph, Mapping):
        from kgbench.neo4j.loader import read_graph_file

        graph = read_graph_file(graph)
    if templates is None or isinstance(templates, (str, os.PathLike)):
        tpls = load_management_templates(templates)
    else:
        tpls = list(templates)
    if server is None:
        with DisposableNeo4j(graph) as db:
            return generate_management(
                graph,
                db,
                seed=seed,
                batches_per_operation=batches_per_operation,
                steps=steps,
                templates=tpls,
                operations=ops,
                max_answer_items=max_answer_items,
                timeout_s=timeout_s,
                progress=progress,
            )
    db = require_disposable(server).require_graph(graph)
    gi = _index_graph(graph)
    report: dict[str, Any] = {
        "seed": seed,
        "steps": steps,
        "batches_per_operation": batches_per_operation,
        "templates": 0,
        "candidates": 0,
        "tried": 0,
        "kept": 0,
        "rejected": {},
        "by_operation": {},
        "by_template": {},
    }
    records: list[dict[str, Any]] = []
    for op in ops:
        op_tpls = [t for t in tpls if t.operation == op]
        block: dict[str, Any] = {
            "templates": len(op_tpls),
            "candidates": 0,
            "tried": 0,
            "kept": 0,
            "rejected": {},
        }
        report["by_operation"][op] = block
        report["templates"] += len(op_tpls)
        groups: list[list[_Candidate]] = []
        for t in op_tpls:
            tb: dict[str, Any] = {
                "operation": op,
                "difficulty": t.difficulty,
                "candidates": 0,
                "tried": 0,
                "kept": 0,
                "rejected": {},
            }
            report["by_template"][t.id] = tb
            bindings = _identifier_bindings(t, gi)
            cands = [_Candidate(t, b, _binding_key(b)) for b in bindings]
            tb["candidates"] = len(cands)
            block["candidates"] += len(cands)
            if not cands:
                for d in (tb["rejected"], block["rejected"], report["rejected"]):
                    _bump(d, "no_slot_binding")
            _stream(seed, "order", t.id).shuffle(cands)
            groups.append(cands)
        report["candidates"] += block["candidates"]
        seen: set[tuple[str, ...]] = set()
        n_kept = 0
        for cand in _interleave(groups):
            if n_kept >= batches_per_operation:
                break
            t = cand.template
            tb = report["by_template"][t.id]
            reason, rec = _try_candidate(
                cand, gi, db, seed, steps, max_answer_items, timeout_s, seen
            )
            if reason not in ("not_enough_nodes",):
                tb["tried"] += 1
                block["tried"] += 1
                report["tried"] += 1
            if reason is not None:
                for d in (tb["rejected"], block["rejected"], report["rejected"]):
                    _bump(d, reason)
            else:
                assert rec is not None
                n_kept += 1
                rec["qid"] = f"mgmt-{op.lower()}-{n_kept:04d}"
                records.append(_ordered(rec))
                tb["kept"] += 1
                block["kept"] += 1
                report["kept"] += 1
            if progress is not None:
                progress(op, block["kept"], block["tried"])
    return records, report


def _ordered(rec: dict[str, Any]) -> dict[str, Any]:
    return {k: rec[k] for k in RECORD_KEYS}


def _try_candidate(
    cand: _Candidate,
    gi: _GraphIndex,
    db: Any,
    seed: int,
    steps: int,
    max_items: int,
    timeout_s: float | None,
    seen: set[tuple[str, ...]],
) -> tuple[str | None, dict[str, Any] | None]:
    t = cand.template
    rng = _stream(seed, "candidate", t.id, cand.key)
    try:
        b, fam = _sample(t, cand.binding, gi, rng, steps)
    except _NotEnough:
        return "not_enough_nodes", None
    n_steps = len(t.ops) if t.mix else steps
    op_texts = list(t.ops) if t.mix else [t.ops[0]] * n_steps
    ops = [_render(t, op_texts[i - 1], b, fam, i) for i in range(1, n_steps + 1)]
    valids = [_render(t, t.validation, b, fam, i) for i in range(1, n_steps + 1)]
    key = (*ops, *valids)
    if key in seen:
        return "duplicate", None
    run = db.run_batch(
        ops,
        valids,
        initial_query=valids[0],
        timeout_s=timeout_s,
        check_merge_idempotence=True,
    )
    reason = _check_run(t, run, fam, max_items)
    if reason is not None:
        return reason, None
    seen.add(key)
    nl_ops = list(t.nl["operate"]) if t.mix else [t.nl["operate"]] * n_steps
    step_recs = []
    for s in run.steps:
        step_recs.append(
            {
                "step": s.step,
                "operate_query": s.operate_query,
                "valid_query": s.valid_query,
                "answer": _canonical(s.answer, s.valid_query or ""),
                "counters": dict(s.counters),
                "operate_nlp": _render_nl(t, nl_ops[s.step - 1], b, fam, s.step, gi),
                "valid_nlp": _render_nl(t, t.nl["valid"], b, fam, s.step, gi),
            }
        )
    params: dict[str, Any] = {}
    for name, parts in t.params.items():
        if parts[0] in _INDEXED_KINDS:
            family = name[:-1]
            params[family] = [fam[family][k] for k in sorted(fam[family])]
        else:
            v = b[name]
            params[name] = v[0] if isinstance(v, tuple) else v
    rec = {
        "operation": t.operation,
        "difficulty": t.difficulty,
        "template_id": t.id,
        "title": t.title,
        "initial_query": valids[0],
        "initial_answer": _canonical(run.initial.answer, valids[0]),
        "steps": step_recs,
        "parameters": params,
        "nlp": _render_nl(t, t.nl["title"], b, fam, 1, gi),
    }
    return None, rec
