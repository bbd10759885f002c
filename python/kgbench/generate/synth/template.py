"""SynthKGQA's offline template generator and the validation every item passes (spec
``synthkgqa.md`` §3.3-§3.4, §4 "Offline"; seed synthkgqa-gtsqa.txt §3).

For each seed graph (Rust, :meth:`kgbench._core.synth.KgGraph.seed_graphs`) the generator
draws an isomorphism type (weighted by the GTSQA train frequencies, up to ``max_edges``
edges), embeds it in the seed graph by seeded backtracking (Rust), writes the SPARQL of the
tree (one triple pattern per edge, seeds as constants, ``?answer`` for the root and one
variable per intermediate node), and words the question from the tree: an edge read towards
the answer is "is the {r} of X" (the answer side is the tail) or "has {r} X" (the head),
nested along paths ("the entity that is the child of Yehonatan Geffen") and joined with "and"
at intersections.

Validation (the spec's steps, in order; the first failure is the logged reason):

- 4. the query's constants are the seed set (by construction);
- 5. executed on the store, there are at most ``max_answers`` (10) results and the answer
  node is among them — else ``exceeding_answer`` / ``no_answer_match`` (in that order:
  the query fetches at most ``max_answers + 1`` rows, past which the answer set is
  incomplete);
- 6. the answer subgraph G is a tree whose non-answer leaves are the seeds, of an allowed
  type (kgbench's AHU encoder) — else ``invalid_graph_template``;
- 7. ``CONSTRUCT WHERE`` on the same pattern gives the full answer subgraph, which must
  contain G — else ``no_triple_match``;
- 8. minimality over the non-empty seed subsets S′: the union of G's seed→answer paths for
  S′ is queried; S′ is sufficient when its answer *set* equals the item's (kgbench compares
  sets; the original counts). The sufficient S′ with the fewest edges gives
  ``minimal_graph_isomorphism`` (``redundant`` when it differs from G's type); those with
  the fewest seeds give ``minimal_seeds_and_queries``.

Then dedup: one item per (seeds, answer, G), the first kept (the id hashes that key; the
dataset-level dedup and the circularity flag are in :mod:`kgbench.generate.synth.split`).
Records follow GTSQA's names (spec §2) plus ``generator``, ``llm_check``, ``source`` and
``rng_seed``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgbench.errors import InputError

#: GTSQA train frequencies of the isomorphism types (spec §5, Table 1 discussion); the other
#: allowed types get weight 100.
TYPE_WEIGHTS: dict[str, int] = {
    "(2)": 8338,
    "(1)": 7658,
    "(1)(1)(1)": 5526,
    "(1)(1)": 4481,
    "(3)": 1731,
    "(2)(1)": 1470,
    "(2)(1)(1)": 907,
    "((1)(1))": 100,
    "(2)(2)": 100,
    "(3)(1)": 100,
    "((2)(1))": 100,
    "((1)(1))(1)": 100,
    "(2(1)(1))": 100,
    "(4)": 100,
    "(1)(1)(1)(1)": 100,
}

#: The original code's allow-list of answer-subgraph types (``process_utils.py``
#: ``GRAPH_SIZE_TO_TEMPLATE``), in kgbench's spelling: Table 5's 27 plus the two 6-edge
#: types (spec §3.3 step 6).
ALLOWED_TYPES: tuple[str, ...] = (
    "(1)",
    "(2)",
    "(1)(1)",
    "(3)",
    "(2)(1)",
    "((1)(1))",
    "(1)(1)(1)",
    "(4)",
    "(2)(2)",
    "(3)(1)",
    "((2)(1))",
    "(2(1)(1))",
    "((1)(1))(1)",
    "((1)(1)(1))",
    "(2)(1)(1)",
    "(1)(1)(1)(1)",
    "(5)",
    "((3)(1))",
    "(4)(1)",
    "(2)(2)(1)",
    "((1)(1))(2)",
    "((2)(1)(1))",
    "((2)(1))(1)",
    "((1)(1))(1)(1)",
    "((1)(1)(1))(1)",
    "(1)(1)(1)(1)(1)",
    "((3)(1)(1))",
    "((3)(1))(1)",
    "((1)(1)(1))(2)",
)

#: Rejection reasons of ``filter_log.json`` (spec §2).
REASONS = (
    "invalid_llm_out",
    "invalid_label_format",
    "no_node_match",
    "no_triple_match",
    "invalid_sparql",
    "no_answer_match",
    "exceeding_answer",
    "invalid_graph_template",
)


@dataclass
class SynthSettings:
    """Generator settings (every one is recorded in the run's report)."""

    n: int = 100
    seed: int = 1111
    max_edges: int = 4
    max_answers: int = 10
    seed_nodes: int = 10
    seed_edges: int = 30
    bias: str = "inverse_degree"
    embed_tries: int = 3
    max_steps: int = 10_000
    types: dict[str, int] = field(default_factory=lambda: dict(TYPE_WEIGHTS))
    #: A conversion schema's mapping (:class:`CypherMapping`): items then carry
    #: ``cypher_query`` (None: SPARQL only).
    cypher: CypherMapping | None = None


@dataclass
class Tree:
    """An embedded type: tree edges (parent, child), node QIDs, and per edge its triple."""

    edges: list[tuple[int, int]]
    nodes: list[str]
    triples: list[tuple[str, str, str]]
    seeds: list[int]

    def var(self, i: int) -> str:
        """The SPARQL term of tree node ``i``."""
        if i == 0:
            return "?answer"
        if i in self.seeds:
            return f"wd:{self.nodes[i]}"
        return f"?v{i}"

    def pattern(self, edge_ids: Iterable[int]) -> str:
        """The basic graph pattern of the given tree edges."""
        parts = []
        for j in edge_ids:
            p, c = self.edges[j]
            h, r, _t = self.triples[j]
            a, b = (p, c) if h == self.nodes[p] else (c, p)
            parts.append(f"{self.var(a)} wdt:{r} {self.var(b)} .")
        return " ".join(parts)


@dataclass(frozen=True)
class CypherMapping:
    """What the Cypher of an item needs from a CypherBench conversion schema (SPEC.md §1):
    PID → relationship types (its ``relations`` with that ``wd_source``) and the entity
    labels (an entity's ``eid`` is ``Label#QID``, so one QID may be several nodes)."""

    rel_types: dict[str, list[str]]
    labels: tuple[str, ...]

    @classmethod
    def of_schema(cls, schema: Mapping[str, Any]) -> CypherMapping:
        """The mapping of a conversion schema."""
        rel_types: dict[str, list[str]] = {}
        for rel in schema.get("relations", []):
            rel_types.setdefault(str(rel["wd_source"]), []).append(str(rel["label"]))
        labels = tuple(str(e["label"]) for e in schema.get("entities", []))
        return cls(rel_types, labels)


#: The QID of a converted node (``eid`` = ``Label#QID``).
_QID = "split({v}.eid, '#')[-1]"


def cypher_queries(tree: Tree, mapping: CypherMapping) -> tuple[str, str] | None:
    """The item's Cypher on kgbench's conversion of the dump (spec §6): one ``MATCH`` per
    triple (SPARQL may bind two patterns to one edge, one Cypher MATCH never does), seeds
    matched on their ``eid`` under every entity label; returns (the answers query, ``RETURN
    DISTINCT <QID> AS answer``; the full answer subgraph query, ``head, type, tail`` with
    QIDs), or None when a relation of the tree has no relationship type in the schema."""

    def node(i: int) -> str:
        return "(answer)" if i == 0 else f"(n{i})"

    matches, rels = [], []
    for j, (p, c) in enumerate(tree.edges):
        h, r, _t = tree.triples[j]
        types = mapping.rel_types.get(r)
        if not types:
            return None
        a, b = (p, c) if h == tree.nodes[p] else (c, p)
        label = "|".join(f"`{t}`" for t in types)
        matches.append(f"MATCH {node(a)}-[r{j}:{label}]->{node(b)}")
        rels.append(f"r{j}")
    seeds = " AND ".join(
        f"n{i}.eid IN [{', '.join(repr(f'{lab}#{tree.nodes[i]}') for lab in mapping.labels)}]"
        for i in tree.seeds
    )
    body = " ".join(matches) + f" WHERE {seeds}"
    answers = f"{body} RETURN DISTINCT {_QID.format(v='answer')} AS answer"
    full = (
        f"{body} UNWIND [{', '.join(rels)}] AS r RETURN DISTINCT "
        f"{_QID.format(v='startNode(r)')} AS head, type(r) AS type, "
        f"{_QID.format(v='endNode(r)')} AS tail"
    )
    return answers, full


def word_question(tree: Tree, kg: Any) -> str:
    """The template question of an embedded tree (module docstring), worded by the back
    end's :meth:`edge_phrase`."""
    children: dict[int, list[int]] = {}
    for j, (p, _c) in enumerate(tree.edges):
        children.setdefault(p, []).append(j)

    def clauses(v: int) -> list[str]:
        out = []
        for j in children.get(v, []):
            p, c = tree.edges[j]
            h, r, _t = tree.triples[j]
            out.append(kg.edge_phrase(r, h == tree.nodes[p], describe(c)))
        return out

    def describe(v: int) -> str:
        if v in tree.seeds:
            return kg.label(tree.nodes[v])
        return "the entity that " + " and ".join(clauses(v))

    return "Which entity " + " and ".join(clauses(0)) + "?"


def _paths(tree: Tree) -> dict[int, list[int]]:
    """Per seed, the tree edges on its path to the answer."""
    parent_edge = {c: j for j, (_p, c) in enumerate(tree.edges)}
    out = {}
    for s in tree.seeds:
        path, v = [], s
        while v != 0:
            j = parent_edge[v]
            path.append(j)
            v = tree.edges[j][0]
        out[s] = path
    return out


def _subtype(tree: Tree, edge_ids: Sequence[int], seeds: Sequence[int]) -> str:
    from kgbench.iso import isomorphism_type

    return isomorphism_type([tree.edges[j] for j in edge_ids], 0, list(seeds))


@dataclass
class Outcome:
    """An item, or the reason it was rejected."""

    item: dict[str, Any] | None
    reason: str | None


def validate(
    tree: Tree,
    identifier: str,
    kg: Any,
    settings: SynthSettings,
    rng_seed: int,
    source: str,
    *,
    question: str | None = None,
    generator: str = "template",
    llm_answers: set[str] | None = None,
    timing: dict[str, float] | None = None,
) -> Outcome:
    """Steps 4-8 of the module docstring on one embedded tree; the item record if valid.

    ``kg`` is a back end (:class:`~kgbench.generate.synth.kg.WikidataKG` or
    :class:`~kgbench.generate.synth.neo4j_kg.PropertyGraphKG`); its ``kg_name`` names the
    ``all_answers_<kg>`` / ``full_answer_subgraph_<kg>`` fields and its ``query_field`` the
    field of the query. ``question``: the LLM's question (None: worded from the tree);
    ``generator``: the record's ``generator``; ``llm_answers``: the answers of the LLM's own
    query, which must equal the tree query's (else ``invalid_sparql``, spec §6). ``timing``:
    seconds are added to its ``query_s`` (the item's query), ``full_subgraph_s`` and
    ``minimality_s`` entries (a breakdown of the validation time)."""
    import time

    from kgbench.iso import isomorphism_type

    clock = [time.perf_counter()]

    def lap(name: str) -> None:
        now = time.perf_counter()
        if timing is not None:
            timing[name] = timing.get(name, 0.0) + now - clock[0]
        clock[0] = now

    all_edges = list(range(len(tree.edges)))
    # one answer more than allowed is enough to reject; the stored query has no LIMIT
    cap = settings.max_answers + 1
    query, found = kg.tree_answers(tree, all_edges, cap)
    lap("query_s")
    answers = sorted(found)
    answer = tree.nodes[0]
    # checked first: past the cap the answer list is incomplete
    if len(answers) > settings.max_answers:
        return Outcome(None, "exceeding_answer")
    if answer not in answers:
        return Outcome(None, "no_answer_match")
    if llm_answers is not None and llm_answers != set(answers):
        return Outcome(None, "invalid_sparql")
    try:
        gtype = isomorphism_type(tree.edges, 0, tree.seeds)
    except ValueError:
        return Outcome(None, "invalid_graph_template")
    if gtype not in settings.types:
        return Outcome(None, "invalid_graph_template")
    clock[0] = time.perf_counter()
    full = kg.full_subgraph(tree)
    lap("full_subgraph_s")
    if not set(tree.triples) <= set(full):
        return Outcome(None, "no_triple_match")
    # minimality over seed subsets (answer sets compared)
    paths = _paths(tree)
    best_edges: tuple[int, str] | None = None
    by_seeds: dict[int, dict[str, str]] = {}
    for k in range(1, len(tree.seeds) + 1):
        for subset in itertools.combinations(tree.seeds, k):
            edge_ids = sorted({j for s in subset for j in paths[s]})
            q, got = kg.tree_answers(tree, edge_ids, cap)
            if got != set(answers):
                continue
            sub = _subtype(tree, edge_ids, subset)
            if best_edges is None or len(edge_ids) < best_edges[0]:
                best_edges = (len(edge_ids), sub)
            by_seeds.setdefault(k, {})["-".join(tree.nodes[s] for s in subset)] = q
    lap("minimality_s")
    assert best_edges is not None  # the full seed set is always sufficient
    n_hops = max(len(p) for p in paths.values())
    seeds = [tree.nodes[s] for s in tree.seeds]
    item = {
        "question": question if question is not None else word_question(tree, kg),
        "paraphrased_question": None,
        "seed_entities": [kg.named(q) for q in seeds],
        "answer_node": kg.named(answer),
        "answer_subgraph": [
            [kg.named(h), kg.relation_named(r), kg.named(t)] for h, r, t in tree.triples
        ],
        "sparql_query": None,
        "cypher_query": None,
        f"all_answers_{kg.kg_name}": answers,
        f"full_answer_subgraph_{kg.kg_name}": [list(t) for t in full],
        "n_hops": n_hops,
        "graph_isomorphism": gtype,
        "redundant": best_edges[1] != gtype,
        "minimal_graph_isomorphism": best_edges[1],
        "minimal_seeds_and_queries": by_seeds[min(by_seeds)],
        "test_type": ["training"],
        "generator": generator,
        "llm_check": None,
        "source": source,
        "rng_seed": rng_seed,
    }
    item[kg.query_field] = query
    if settings.cypher is not None and kg.query_field == "sparql_query":
        cypher = cypher_queries(tree, settings.cypher)
        item["cypher_query"] = cypher[0] if cypher else None
    key = json.dumps([sorted(seeds), answer, sorted(map(list, tree.triples))])
    item["id"] = "synth_" + hashlib.sha256(key.encode()).hexdigest()[:16]
    return Outcome(item, None)


def run_generation(
    kg: Any,
    settings: SynthSettings,
    attempts_of: Callable[
        [list[tuple[Any, Any]], random.Random, dict[str, float]], Iterator[Outcome]
    ],
    *,
    batch_size: Callable[[int, int], int],
    timing: dict[str, float],
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The sampling and bookkeeping loop shared by the template and the LLM generators.

    Until ``settings.n`` items are valid or the attempt budget (50·n seed graphs) is spent:
    draws ``batch_size(missing items, attempts left)`` seed graphs
    (:meth:`kgbench._core.synth.KgGraph.seed_graphs`, seeded from ``random.Random(settings.
    seed)``), hands them to ``attempts_of(seed graphs, rng, timing)`` — a lazy iterator
    of one :class:`Outcome` per seed graph, in order, which may draw from the same ``rng``
    and add to ``timing`` — logs each rejection under ``attempt-<n>`` and keeps the first
    item of each id (dedup, spec §3.4). The iterator is not advanced once the run is over.

    Returns (items in generation order, ``{"report", "filter_log"}``): the report holds
    the settings, attempts, items, rejections per reason, duplicates, counts per type,
    redundant items, timings (``timing``'s keys plus ``sampling_s``), acceptance and the
    mean answer count; ``filter_log`` the attempt ids per reason (spec §2)."""
    import time

    rng = random.Random(settings.seed)
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    log: dict[str, list[str]] = {r: [] for r in REASONS}
    timing.setdefault("sampling_s", 0.0)
    attempts = 0
    duplicates = 0
    budget = 50 * settings.n
    while len(items) < settings.n and attempts < budget:
        t0 = time.perf_counter()
        samples = kg.graph.seed_graphs(
            batch_size(settings.n - len(items), budget - attempts),
            rng.getrandbits(63),
            settings.seed_nodes,
            settings.seed_edges,
            settings.bias,
        )
        timing["sampling_s"] += time.perf_counter() - t0
        for out in attempts_of(samples, rng, timing):
            attempts += 1
            if out.item is None:
                log[str(out.reason)].append(f"attempt-{attempts}")
            elif out.item["id"] in seen:
                duplicates += 1
            else:
                seen.add(out.item["id"])
                items.append(out.item)
                if progress is not None:
                    progress(len(items), attempts)
            if len(items) >= settings.n or attempts >= budget:
                break
    report = {
        "settings": {k: v for k, v in settings.__dict__.items() if k != "cypher"},
        "attempts": attempts,
        "items": len(items),
        "rejections": {r: len(v) for r, v in log.items()},
        "duplicates": duplicates,
        "types": dict(Counter(i["graph_isomorphism"] for i in items)),
        "redundant": sum(1 for i in items if i["redundant"]),
        "timing_s": {k: round(v, 3) for k, v in timing.items()},
        "acceptance": round(len(items) / attempts, 4) if attempts else 0.0,
        "mean_answers": round(
            sum(len(i[f"all_answers_{kg.kg_name}"]) for i in items) / len(items), 3
        )
        if items
        else math.nan,
    }
    return items, {"report": report, "filter_log": log}


def generate_template_items(
    kg: Any,
    settings: SynthSettings,
    *,
    source: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Template items until ``settings.n`` are valid (or the attempt budget, 50·n seed
    graphs, is spent). Returns (items in generation order, report with the rejections per
    reason, ids per reason for ``filter_log.json``, counts per type and timings); the loop
    is :func:`run_generation`'s, 256 seed graphs at a time."""
    import time

    from kgbench.iso import parse_isomorphism_type

    types = {
        t: w
        for t, w in settings.types.items()
        if len(parse_isomorphism_type(t)[0]) <= settings.max_edges
    }
    if not types:
        raise ValueError(f"no isomorphism type has at most {settings.max_edges} edges")
    names, weights = list(types), [types[t] for t in types]
    trees = {t: parse_isomorphism_type(t) for t in names}
    smallest = min(len(trees[t][0]) for t in names)
    if len(kg.triples) < smallest:
        raise InputError(
            f"the graph is too small: {len(kg.node_ids):,} nodes and {len(kg.triples):,} "
            f"triples, and the smallest requested isomorphism type needs {smallest} edges"
        )
    tried: Counter[str] = Counter()
    embedded: Counter[str] = Counter()

    def attempts_of(
        samples: list[tuple[Any, Any]], rng: random.Random, timing: dict[str, float]
    ) -> Iterator[Outcome]:
        for nodes, triples in samples:
            identifier = rng.choices(names, weights)[0]
            edges, _answer, seeds = trees[identifier]
            emb_seed = rng.getrandbits(63)
            t0 = time.perf_counter()
            emb = kg.graph.embed(nodes, triples, identifier, emb_seed, settings.max_steps)
            timing["embedding_s"] += time.perf_counter() - t0
            tried[identifier] += 1
            if emb is not None:
                embedded[identifier] += 1
            if emb is None:
                yield Outcome(None, "invalid_graph_template")
                continue
            node_ids, triple_ids = emb
            tree = Tree(
                edges=[(int(p), int(c)) for p, c in edges],
                nodes=[kg.node_ids[v] for v in node_ids],
                triples=[kg.triple(j) for j in triple_ids],
                seeds=[int(s) for s in seeds],
            )
            t0 = time.perf_counter()
            out = validate(tree, identifier, kg, settings, emb_seed, source, timing=timing)
            timing["validation_s"] += time.perf_counter() - t0
            yield out

    timing = {"sampling_s": 0.0, "embedding_s": 0.0, "validation_s": 0.0}
    items, extra = run_generation(
        kg,
        settings,
        attempts_of,
        batch_size=lambda _missing, _left: 256,
        timing=timing,
        progress=progress,
    )
    # per drawn type: how often a seed graph held it (a type the graph cannot hold shows
    # up here with 0 embeddings)
    extra["report"]["embeddings"] = {
        t: {"drawn": tried[t], "embedded": embedded[t]} for t in names if tried[t]
    }
    return items, extra
