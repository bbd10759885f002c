"""Test-suite execution accuracy on neighbour graphs (spec ``test-suite.md``; issue 31).

The method is Zhong, Yu and Klein, "Semantic Evaluation for Text-to-SQL with Distilled Test
Suites" (EMNLP 2020), adapted to graphs: instead of sampled databases, a *neighbour graph* is a
small seeded change (:class:`Delta`) to the graph under test, applied and undone by a
language-specific :class:`SuiteBackend` (Cypher: a rolled-back transaction on a disposable
Neo4j; SPARQL: triples inserted / deleted in the embedded store, then restored).

1. **Neighbour queries** (:meth:`SuiteBackend.neighbour_queries`): near-misses of the gold.
2. **Candidate deltas** (:meth:`SuiteBackend.candidate_deltas`): seeded changes near the
   gold's matched subgraph.
3. **Distillation** (:func:`distil`): the original graph distinguishes the neighbours whose
   result differs there. The candidate deltas are then tried in order, each in ONE run of the
   gold and of the neighbours that no earlier candidate distinguished (a neighbour already
   told apart is not run again), until every neighbour is distinguished or the candidates
   are spent. Then, greedily, the tried candidate that distinguishes the most neighbours
   not yet distinguished is kept (ties: the earlier candidate), until every neighbour some
   candidate distinguishes is distinguished or the suite holds ``max_size`` deltas. A
   candidate on which the gold's own result is not comparable (it failed: ``same`` of the
   gold's result with itself is false) is never kept. The gold's results on the kept deltas
   stay with the suite (:attr:`Suite.gold_results`), so the first scoring run does not
   run the gold again.
4. **Test-suite EX** (:func:`ts_verdict`): a prediction is correct iff its result equals the
   gold's (the backend's ``same``, EX's rule) on the original graph and on every delta of the
   suite.

Suites are cached (:class:`SuiteCache`) per (graph content fingerprint, gold query, largest
size, seed, candidates, :data:`SUITE_VERSION`): every model scored on the same benchmark reuses
them; an entry made for another graph content is never used (it is rebuilt and counted).
Everything is deterministic: the same inputs and seed give the same suites and scores.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from kgbench.errors import InputError

#: Version of the suite construction; a cache entry of another version is rebuilt.
SUITE_VERSION = "2"

#: The largest suite per task when ``--test-suite`` is given without a number.
DEFAULT_SUITE_SIZE = 8


@dataclass(frozen=True)
class Delta:
    """One neighbour graph: a seeded change to the graph under test.

    ``id``: a stable short id (``"d07"``); ``kind``: ``delete_relationship``,
    ``duplicate_relationship``, ``add_relationship``, ``set_property``, ``add_node``,
    ``delete_node``, ... (spec ``test-suite.md``); ``ops``: JSON-serialisable operations the
    backend applies (their shape is the backend's); ``description``: one line for the report
    (what changed, where)."""

    id: str
    kind: str
    ops: tuple[dict[str, Any], ...]
    description: str

    def to_json(self) -> dict[str, Any]:
        """A JSON object (:meth:`from_json` reads it back)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "ops": [dict(op) for op in self.ops],
            "description": self.description,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Delta:
        """The delta of :meth:`to_json`'s object.

        Raises:
            KeyError, TypeError: a malformed object."""
        return cls(
            id=str(obj["id"]),
            kind=str(obj["kind"]),
            ops=tuple(dict(op) for op in obj["ops"]),
            description=str(obj["description"]),
        )

    def summary(self) -> dict[str, str]:
        """``{id, kind, description}``: how a task record names the separating delta."""
        return {"id": self.id, "kind": self.kind, "description": self.description}


class SuiteBackend(Protocol):
    """One graph under test in one query language."""

    def fingerprint(self) -> str:
        """A fingerprint of the graph's content (equal content, equal fingerprint)."""
        ...

    def neighbour_queries(self, gold: str, seed: int) -> list[str]:
        """Near-miss mutations of ``gold`` (deterministic for a seed)."""
        ...

    def candidate_deltas(self, gold: str, seed: int, count: int) -> list[Delta]:
        """At most ``count`` seeded deltas near ``gold``'s matched subgraph."""
        ...

    def run_with(self, delta: Delta | None, queries: Sequence[str]) -> list[Any]:
        """The result of each query on graph + ``delta`` (``None``: the original graph), in
        the form ``same`` compares; the delta is undone afterwards."""
        ...

    def same(self, gold: str, gold_result: Any, other: Any) -> bool:
        """EX's rule: whether ``other`` equals ``gold_result`` (``gold`` decides e.g. whether
        row order counts). False when either result is a failure."""
        ...


@dataclass
class Suite:
    """A distilled test suite for one gold query on one graph.

    ``fingerprint``: the graph's; ``size``: ``len(deltas)``; ``neighbours``: how many
    neighbour queries were tried; ``distinguished``: how many of them the suite (the original
    graph and its deltas) tells from the gold; ``undistinguished``: the others' text (often
    truly equivalent rewrites); ``seed``, ``max_size``, ``candidates``: how it was built."""

    fingerprint: str
    gold: str
    size: int
    deltas: list[Delta]
    neighbours: int
    distinguished: int
    undistinguished: list[str]
    seed: int = 0
    max_size: int = DEFAULT_SUITE_SIZE
    candidates: int = 32
    version: str = SUITE_VERSION
    #: The gold's results on the original graph and on each delta, in order, when this run
    #: distilled the suite (not stored in the cache: results are the backend's objects).
    gold_results: list[Any] | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """A JSON object (:meth:`from_json` reads it back)."""
        return {
            "fingerprint": self.fingerprint,
            "gold": self.gold,
            "size": self.size,
            "deltas": [d.to_json() for d in self.deltas],
            "neighbours": self.neighbours,
            "distinguished": self.distinguished,
            "undistinguished": list(self.undistinguished),
            "seed": self.seed,
            "max_size": self.max_size,
            "candidates": self.candidates,
            "version": self.version,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Suite:
        """The suite of :meth:`to_json`'s object.

        Raises:
            KeyError, TypeError, ValueError: a malformed object."""
        return cls(
            fingerprint=str(obj["fingerprint"]),
            gold=str(obj["gold"]),
            size=int(obj["size"]),
            deltas=[Delta.from_json(d) for d in obj["deltas"]],
            neighbours=int(obj["neighbours"]),
            distinguished=int(obj["distinguished"]),
            undistinguished=[str(q) for q in obj["undistinguished"]],
            seed=int(obj.get("seed", 0)),
            max_size=int(obj.get("max_size", DEFAULT_SUITE_SIZE)),
            candidates=int(obj.get("candidates", 32)),
            version=str(obj.get("version", SUITE_VERSION)),
        )


def _unique(queries: Sequence[str], gold: str) -> list[str]:
    seen = {gold}
    out = []
    for q in queries:
        if q not in seen:
            seen.add(q)
            out.append(q)
    return out


def distil(
    backend: SuiteBackend,
    gold: str,
    *,
    max_size: int = DEFAULT_SUITE_SIZE,
    seed: int = 0,
    candidates: int = 32,
) -> Suite:
    """Distil the test suite of ``gold`` on ``backend``'s graph (module docstring, step 3).

    Neighbour queries equal to the gold (text) or repeated are dropped. Cost: one run of the
    gold and all neighbours on the original graph, then per candidate tried one run of the
    gold and the neighbours still undistinguished. Deterministic for the same backend
    content, gold and seed.

    Raises:
        ValueError: ``max_size`` or ``candidates`` below 0."""
    if max_size < 0 or candidates < 0:
        raise ValueError(f"max_size and candidates must be >= 0, not {max_size}, {candidates}")
    neighbours = _unique(backend.neighbour_queries(gold, seed), gold)
    original = backend.run_with(None, [gold, *neighbours])
    gold_res = original[0]
    # the original graph is always in the suite: what it separates needs no delta
    remaining = [i for i, res in enumerate(original[1:]) if backend.same(gold, gold_res, res)]
    pool = backend.candidate_deltas(gold, seed, candidates) if remaining and max_size else []
    # 1. each candidate runs the gold and only the neighbours no earlier candidate separated,
    #    all in one transaction; candidates stop once every neighbour is separated
    untried = list(remaining)
    separates: list[set[int]] = []
    on_delta: list[Any] = []
    for delta in pool:
        if not untried:
            break
        res = backend.run_with(delta, [gold, *(neighbours[i] for i in untried)])
        on_delta.append(res[0])
        if not backend.same(gold, res[0], res[0]):
            separates.append(set())  # the gold itself fails on this delta: never kept
            continue
        sep = {
            i for i, r in zip(untried, res[1:], strict=True) if not backend.same(gold, res[0], r)
        }
        separates.append(sep)
        untried = [i for i in untried if i not in sep]
    # 2. greedy cover: the candidate separating the most neighbours still left, ties to the
    #    earlier one, until none is left or the suite holds max_size deltas
    left = set(remaining)
    kept: list[Delta] = []
    kept_results = [gold_res]
    used: set[int] = set()
    while left and len(kept) < max_size:
        best, gain = -1, 0
        for k, sep in enumerate(separates):
            if k in used:
                continue
            g = len(sep & left)
            if g > gain:
                best, gain = k, g
        if best < 0:
            break
        used.add(best)
        kept.append(pool[best])
        kept_results.append(on_delta[best])
        left -= separates[best]
    return Suite(
        fingerprint=backend.fingerprint(),
        gold=gold,
        size=len(kept),
        deltas=kept,
        neighbours=len(neighbours),
        distinguished=len(neighbours) - len(left),
        undistinguished=[neighbours[i] for i in sorted(left)],
        seed=seed,
        max_size=max_size,
        candidates=candidates,
        gold_results=kept_results,
    )


@dataclass
class TsVerdict:
    """The test-suite verdict on one prediction: ``correct``; ``separated_by`` the first delta
    on which the prediction's result differs from the gold's (``None`` when correct or when the
    original graph already separates them); ``on_original`` whether the results agree on the
    original graph."""

    correct: bool
    on_original: bool
    separated_by: Delta | None = None

    @property
    def score(self) -> float:
        """``ts_execution_accuracy``: 1.0 or 0.0."""
        return 1.0 if self.correct else 0.0


def ts_verdict(
    backend: SuiteBackend,
    suite: Suite,
    gold: str,
    pred: str,
    gold_results: Sequence[Any] | None = None,
    *,
    original_same: bool | None = None,
) -> TsVerdict:
    """Test-suite EX of ``pred`` (module docstring, step 4).

    ``gold_results``: the gold's results on the original graph and on each suite delta, in
    order (``1 + suite.size`` values; computed when ``None``). ``original_same``: EX on the
    original graph when the caller has already scored it (the original graph is then not run
    again). Deltas are tried in suite order and scoring stops at the first that separates.

    Raises:
        ValueError: ``gold_results`` of the wrong length."""
    if gold_results is not None and len(gold_results) != 1 + len(suite.deltas):
        raise ValueError(
            f"gold_results has {len(gold_results)} values for a suite of {len(suite.deltas)}"
        )
    if original_same is None:
        if gold_results is not None:
            (pred_res,) = backend.run_with(None, [pred])
            original_same = backend.same(gold, gold_results[0], pred_res)
        else:
            g, p = backend.run_with(None, [gold, pred])
            original_same = backend.same(gold, g, p)
    if not original_same:
        return TsVerdict(correct=False, on_original=False)
    for k, delta in enumerate(suite.deltas):
        if gold_results is not None:
            (p,) = backend.run_with(delta, [pred])
            g = gold_results[1 + k]
        else:
            g, p = backend.run_with(delta, [gold, pred])
        if not backend.same(gold, g, p):
            return TsVerdict(correct=False, on_original=True, separated_by=delta)
    return TsVerdict(correct=True, on_original=True)


def cache_key(fingerprint: str, gold: str, max_size: int, seed: int, candidates: int = 32) -> str:
    """The cache key of a suite: a SHA-256 of the graph fingerprint, the gold query, the
    largest size, the seed, the candidate count and :data:`SUITE_VERSION`."""
    text = json.dumps([fingerprint, gold, max_size, seed, candidates, SUITE_VERSION])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _scope_key(scope: str, gold: str, max_size: int, seed: int, candidates: int) -> str:
    return json.dumps([scope, gold, max_size, seed, candidates])


@dataclass
class SuiteCache:
    """Distilled suites in a JSON file (``OUT/test_suite_cache.json`` by default).

    ``entries`` maps :func:`cache_key` to ``{scope, suite}`` (``scope``: the graph's name, so
    that an entry for the same graph name and gold but another content is recognised as stale).
    Counters for the report: ``reused`` (hits), ``distilled`` (new suites) and ``rebuilt``
    (suites distilled again because the cached one was made for another graph content or
    suite version; the stale entry is dropped)."""

    path: Path | None = None
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    reused: int = 0
    distilled: int = 0
    rebuilt: int = 0

    @classmethod
    def load(cls, path: str | Path) -> SuiteCache:
        """The cache at ``path`` (empty when the file does not exist).

        Raises:
            InputError: a file that is not a kgbench suite cache (names the file and the
                entry)."""
        p = Path(path)
        cache = cls(path=p)
        if not p.exists():
            return cache
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"{p}: not a readable suite cache ({exc})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("entries"), dict):
            raise InputError(f"{p}: not a kgbench suite cache (no 'entries' object)")
        for key, entry in data["entries"].items():
            try:
                Suite.from_json(entry["suite"])
                str(entry["scope"])
            except (KeyError, TypeError, ValueError) as exc:
                raise InputError(f"{p}: entry {key}: malformed ({exc!r})") from exc
            cache.entries[key] = entry
        return cache

    def get(
        self,
        scope: str,
        fingerprint: str,
        gold: str,
        max_size: int,
        seed: int,
        candidates: int = 32,
    ) -> Suite | None:
        """The cached suite for exactly these inputs, or ``None`` (counters unchanged)."""
        entry = self.entries.get(cache_key(fingerprint, gold, max_size, seed, candidates))
        if entry is None:
            return None
        suite = Suite.from_json(entry["suite"])
        if suite.fingerprint != fingerprint or suite.gold != gold:
            return None  # a key collision cannot happen, but a hand-edited file can lie
        return suite

    def suite_for(
        self,
        backend: SuiteBackend,
        gold: str,
        *,
        scope: str = "",
        max_size: int = DEFAULT_SUITE_SIZE,
        seed: int = 0,
        candidates: int = 32,
        fingerprint: str | None = None,
    ) -> Suite:
        """The cached suite of ``gold`` on ``backend``'s graph, else :func:`distil` it and
        store it (counted as ``distilled``, and also ``rebuilt`` when an entry of the same
        ``scope`` and gold for another graph content or version is replaced)."""
        fp = backend.fingerprint() if fingerprint is None else fingerprint
        suite = self.get(scope, fp, gold, max_size, seed, candidates)
        if suite is not None:
            self.reused += 1
            return suite
        suite = distil(backend, gold, max_size=max_size, seed=seed, candidates=candidates)
        self._store(scope, fp, suite)
        return suite

    def suites_for(
        self,
        backend: SuiteBackend,
        golds: Sequence[tuple[str, str]],
        *,
        max_size: int = DEFAULT_SUITE_SIZE,
        seed: int = 0,
        candidates: int = 32,
        workers: int = 1,
    ) -> dict[str, Suite]:
        """:meth:`suite_for` of every ``(scope, gold)`` pair (a gold repeated later is taken
        from the first), gold -> suite in the order of ``golds``. The missing suites are
        distilled on ``workers`` threads (the backend must allow concurrent
        :meth:`SuiteBackend.run_with` calls when ``workers > 1``) and stored in the given
        order, so the cache and its counters are the same for any ``workers``."""
        from concurrent.futures import ThreadPoolExecutor

        fp = backend.fingerprint()
        out: dict[str, Suite] = {}
        todo: list[tuple[str, str]] = []
        pending: set[str] = set()
        for scope, gold in golds:
            if gold in out or gold in pending:
                continue
            suite = self.get(scope, fp, gold, max_size, seed, candidates)
            if suite is not None:
                self.reused += 1
                out[gold] = suite
            else:
                todo.append((scope, gold))
                pending.add(gold)

        def one(item: tuple[str, str]) -> Suite:
            return distil(backend, item[1], max_size=max_size, seed=seed, candidates=candidates)

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            made = list(pool.map(one, todo))
        for (scope, gold), suite in zip(todo, made, strict=True):
            self._store(scope, fp, suite)
            out[gold] = suite
        return {gold: out[gold] for _, gold in golds}

    def _store(self, scope: str, fp: str, suite: Suite) -> None:
        """Store a freshly distilled suite, dropping a stale entry of the same scope and gold
        (counted in ``distilled`` and ``rebuilt``)."""
        gold, max_size, seed, candidates = suite.gold, suite.max_size, suite.seed, suite.candidates
        self.distilled += 1
        skey = _scope_key(scope, gold, max_size, seed, candidates)
        stale = [
            k
            for k, e in self.entries.items()
            if _scope_key(
                e["scope"],
                e["suite"]["gold"],
                e["suite"]["max_size"],
                e["suite"]["seed"],
                e["suite"].get("candidates", 32),
            )
            == skey
        ]
        if stale:
            self.rebuilt += 1
            for k in stale:
                del self.entries[k]
        self.entries[cache_key(fp, gold, max_size, seed, candidates)] = {
            "scope": scope,
            "suite": suite.to_json(),
        }

    def reset_counts(self) -> None:
        """Set ``reused``, ``distilled`` and ``rebuilt`` to 0 (the entries stay): the
        counters of the next run scored with this cache are its own."""
        self.reused = self.distilled = self.rebuilt = 0

    def counts(self) -> dict[str, int]:
        """``{reused, distilled, rebuilt}``."""
        return {"reused": self.reused, "distilled": self.distilled, "rebuilt": self.rebuilt}

    def save(self, path: str | Path | None = None) -> Path:
        """Write the cache (keys sorted: the same suites give the same file); its path.

        Raises:
            ValueError: no path given here nor at construction."""
        from kgbench.fileio import write_json_atomic

        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("SuiteCache.save needs a path")
        data = {
            "kgbench_suite_version": SUITE_VERSION,
            "entries": {k: self.entries[k] for k in sorted(self.entries)},
        }
        return write_json_atomic(target, data)


def ts_task_record(suite: Suite, verdict: TsVerdict | None) -> dict[str, Any]:
    """The ``test_suite`` object of a task record: ``{size, neighbours, distinguished,
    undistinguished, separated_by}`` (``separated_by``: ``{id, kind, description}`` of the
    first separating delta, or ``None``; ``verdict`` ``None``: a prediction never run)."""
    sep = verdict.separated_by if verdict is not None else None
    return {
        "size": suite.size,
        "neighbours": suite.neighbours,
        "distinguished": suite.distinguished,
        "undistinguished": list(suite.undistinguished),
        "separated_by": sep.summary() if sep is not None else None,
    }


def ts_aggregate(
    records: Sequence[Mapping[str, Any]], cache_counts: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """The test-suite part of ``aggregated_metrics.json`` from scored task records carrying
    ``metrics.ts_execution_accuracy`` and ``test_suite``:

    ``{ts_execution_accuracy, ci95, execution_accuracy, tasks, ex_not_ts, mean_suite_size,
    neighbours, distinguished, undistinguished, suites: {reused, distilled, rebuilt}}``
    (means rounded to 4 decimals; ``ci95``: TS-EX's 95 % bootstrap interval ``[low, high]``
    over these tasks, metrics.md §5, absent without tasks; ``ex_not_ts``: how many tasks have
    EX 1 and TS-EX 0)."""
    from kgbench.evaluate.aggregate import bootstrap_ci95, mean4

    scored = [r for r in records if "ts_execution_accuracy" in r.get("metrics", {})]
    suites = [r["test_suite"] for r in scored if r.get("test_suite")]
    out: dict[str, Any] = {
        "ts_execution_accuracy": mean4([r["metrics"]["ts_execution_accuracy"] for r in scored]),
        "execution_accuracy": mean4([r["metrics"]["execution_accuracy"] for r in scored]),
        "tasks": len(scored),
        "ex_not_ts": len(ex_not_ts(scored)),
        "mean_suite_size": mean4([s["size"] for s in suites]),
        "neighbours": sum(s["neighbours"] for s in suites),
        "distinguished": sum(s["distinguished"] for s in suites),
        "undistinguished": sum(len(s["undistinguished"]) for s in suites),
    }
    ci95 = bootstrap_ci95(scored, ["ts_execution_accuracy"])
    if ci95:
        out["ci95"] = ci95["ts_execution_accuracy"]
    if cache_counts is not None:
        out["suites"] = dict(cache_counts)
    return out


def ex_not_ts(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The tasks with EX 1 and TS-EX 0, in record order: ``{qid, graph, separated_by}``
    (``separated_by``: the separating delta's ``{id, kind, description}``)."""
    out = []
    for r in records:
        m = r.get("metrics", {})
        if m.get("execution_accuracy") == 1 and m.get("ts_execution_accuracy") == 0:
            ts = r.get("test_suite") or {}
            out.append(
                {
                    "qid": r.get("qid"),
                    "graph": r.get("graph"),
                    "separated_by": ts.get("separated_by"),
                }
            )
    return out


def format_test_suite(summary: Mapping[str, Any], listed: Sequence[Mapping[str, Any]]) -> str:
    """The ``test_suite`` object of :func:`ts_aggregate` and the :func:`ex_not_ts` list as
    table lines."""
    lines = [
        f"test suite (up to {summary.get('max_size', '?')} neighbour graphs per task, mean "
        f"{summary['mean_suite_size']:.2f}; neighbours distinguished {summary['distinguished']}"
        f" of {summary['neighbours']})",
        f"  {'execution_accuracy':<32} {summary['execution_accuracy']:>8.4f}",
        f"  {'ts_execution_accuracy':<32} {summary['ts_execution_accuracy']:>8.4f}",
        f"  {'EX 1 but TS-EX 0':<32} {summary['ex_not_ts']:>8d}",
    ]
    if "suites" in summary:
        c = summary["suites"]
        lines.append(
            f"  suites: {c['distilled']} distilled ({c['rebuilt']} rebuilt: cached for another "
            f"graph content), {c['reused']} reused from the cache"
        )
    for item in listed[:20]:
        sep = item.get("separated_by") or {}
        lines.append(
            f"  EX 1, TS-EX 0: {item.get('graph')}/{item.get('qid')} by {sep.get('id')} "
            f"({sep.get('kind')}): {sep.get('description')}"
        )
    if len(listed) > 20:
        lines.append(f"  ... {len(listed) - 20} more in aggregated_metrics.json (ex_not_ts)")
    return "\n".join(lines)
