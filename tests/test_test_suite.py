"""The language-neutral test-suite core (``kgbench.evaluate.suites.core``, issue 31) on a small
in-memory backend written here: a table of rows, queries as JSON ``{where, select, distinct}``,
deltas that delete, duplicate or change rows. The backend is real code under test (it computes
its answers), not a stand-in for a database."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kgbench.errors import InputError
from kgbench.evaluate.suites.core import (
    Delta,
    Suite,
    SuiteCache,
    distil,
    ex_not_ts,
    ts_aggregate,
    ts_task_record,
    ts_verdict,
)

OPS = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    "=": lambda a, b: a == b,
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
}

PEOPLE = [
    {"name": "Ann", "age": 25, "city": "Oslo"},
    {"name": "Bob", "age": 41, "city": "Rome"},
    {"name": "Cid", "age": 33, "city": "Oslo"},
    {"name": "Dee", "age": 52, "city": "Lima"},
]


def q(where: list[list[Any]], select: str = "name", distinct: bool = False) -> str:
    return json.dumps({"where": where, "select": select, "distinct": distinct}, sort_keys=True)


class TableBackend:
    """One table of rows; queries filter (conjunction of ``[column, op, constant]``) and
    select a column (a bag of values) or ``count``."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = [dict(r) for r in rows]
        self.runs = 0

    def fingerprint(self) -> str:
        return json.dumps(sorted(json.dumps(r, sort_keys=True) for r in self.rows))

    def _eval(self, query: str) -> Any:
        spec = json.loads(query)
        hits = [r for r in self.rows if all(OPS[op](r[c], v) for c, op, v in spec["where"])]
        if spec["select"] == "count":
            return ("ok", len(hits))
        values = [r[spec["select"]] for r in hits]
        if spec["distinct"]:
            values = sorted(set(values))
        return ("ok", Counter(values))

    def neighbour_queries(self, gold: str, seed: int) -> list[str]:
        spec = json.loads(gold)
        out = []
        for i, (col, op, val) in enumerate(spec["where"]):
            rest = spec["where"][:i] + spec["where"][i + 1 :]
            out.append(q(rest, spec["select"], spec["distinct"]))  # drop the conjunct
            for other in OPS:
                if other != op:
                    w = [*rest[:i], [col, other, val], *rest[i:]]
                    out.append(q(w, spec["select"], spec["distinct"]))
            if isinstance(val, int):
                for v in (val - 1, val + 1):
                    w = [*rest[:i], [col, op, v], *rest[i:]]
                    out.append(q(w, spec["select"], spec["distinct"]))
        out.append(q(spec["where"], spec["select"], not spec["distinct"]))
        return out

    def candidate_deltas(self, gold: str, seed: int, count: int) -> list[Delta]:
        rng = random.Random(seed)
        spec = json.loads(gold)
        consts = [v for _c, _o, v in spec["where"] if isinstance(v, int)]
        out: list[Delta] = []
        for i, row in enumerate(self.rows):
            out.append(
                Delta(
                    f"d{len(out):02d}",
                    "delete_node",
                    ({"op": "delete", "row": i},),
                    f"delete {row['name']}",
                )
            )
            out.append(
                Delta(
                    f"d{len(out):02d}",
                    "add_node",
                    ({"op": "add", "row": dict(row)},),
                    f"duplicate {row['name']}",
                )
            )
            for c in consts:
                for v in (c - 1, c, c + 1):
                    new = {**row, "age": v}
                    out.append(
                        Delta(
                            f"d{len(out):02d}",
                            "set_property",
                            ({"op": "set", "row": i, "values": new},),
                            f"{row['name']}.age = {v}",
                        )
                    )
        rng.shuffle(out)
        return out[:count]

    def _apply(self, delta: Delta) -> list[dict[str, Any]]:
        saved = [dict(r) for r in self.rows]
        for op in delta.ops:
            if op["op"] == "delete":
                del self.rows[op["row"]]
            elif op["op"] == "add":
                self.rows.append(dict(op["row"]))
            elif op["op"] == "set":
                self.rows[op["row"]] = dict(op["values"])
        return saved

    def run_with(self, delta: Delta | None, queries: Sequence[str]) -> list[Any]:
        self.runs += len(queries)
        saved = self._apply(delta) if delta is not None else None
        try:
            return [self._eval(x) for x in queries]
        finally:
            if saved is not None:
                self.rows = saved

    def same(self, gold: str, gold_result: Any, other: Any) -> bool:
        return bool(gold_result[0] == "ok" and other[0] == "ok" and gold_result == other)


GOLD = q([["age", ">", 30], ["city", "=", "Oslo"]])  # Cid
#: wrong, but equal on PEOPLE: no Oslo person is aged exactly 30
GE = q([["age", ">=", 30], ["city", "=", "Oslo"]])
#: wrong, but equal on PEOPLE: >29 / >30 coincide (no one is 30)
GT29 = q([["age", ">", 29], ["city", "=", "Oslo"]])
#: a true rewrite: the conjuncts in the other order
SWAPPED = q([["city", "=", "Oslo"], ["age", ">", 30]])


def test_distil_separates_coinciding_neighbours_and_is_deterministic() -> None:
    be = TableBackend(PEOPLE)
    suite = distil(be, GOLD, max_size=8, seed=3, candidates=64)
    assert suite.size == len(suite.deltas) <= 8 and suite.size >= 1
    assert suite.neighbours == len(be.neighbour_queries(GOLD, 3)) - 0  # all distinct here
    assert suite.distinguished + len(suite.undistinguished) == suite.neighbours
    # the graph is restored after every delta
    assert be.rows == PEOPLE
    again = distil(TableBackend(PEOPLE), GOLD, max_size=8, seed=3, candidates=64)
    assert again.to_json() == suite.to_json()
    assert Suite.from_json(json.loads(json.dumps(suite.to_json()))) == suite

    for wrong in (GE, GT29):
        # EX counts it correct on the original graph ...
        g, p = be.run_with(None, [GOLD, wrong])
        assert be.same(GOLD, g, p)
        # ... the suite does not, and names the delta that separated it
        v = ts_verdict(be, suite, GOLD, wrong)
        assert not v.correct and v.on_original and v.separated_by in suite.deltas
        assert v.score == 0.0
    for right in (GOLD, SWAPPED):
        v = ts_verdict(be, suite, GOLD, right)
        assert v.correct and v.separated_by is None and v.score == 1.0
    # wrong on the original graph already: no delta needed
    v = ts_verdict(be, suite, GOLD, q([["city", "=", "Oslo"]]))
    assert not v.correct and not v.on_original and v.separated_by is None


def test_gold_results_and_original_same_skip_reruns() -> None:
    be = TableBackend(PEOPLE)
    suite = distil(be, GOLD, seed=1, candidates=64)
    gold_results = [be.run_with(None, [GOLD])[0]] + [
        be.run_with(d, [GOLD])[0] for d in suite.deltas
    ]
    be.runs = 0
    v = ts_verdict(be, suite, GOLD, SWAPPED, gold_results, original_same=True)
    assert v.correct and be.runs == suite.size  # only the prediction, only on the deltas
    assert ts_verdict(be, suite, GOLD, GE, gold_results).separated_by is not None
    with pytest.raises(ValueError, match="gold_results"):
        ts_verdict(be, suite, GOLD, GE, gold_results[:1] if suite.size else [1, 2])
    be.runs = 0
    assert not ts_verdict(be, suite, GOLD, GE, original_same=False).correct
    assert be.runs == 0


def test_greedy_order_size_cap_and_undistinguished() -> None:
    be = TableBackend(PEOPLE)
    full = distil(be, GOLD, max_size=8, seed=0, candidates=200)
    assert full.size >= 2
    one = distil(be, GOLD, max_size=1, seed=0, candidates=200)
    assert one.size == 1 and one.deltas[0] == full.deltas[0]  # greedy: the best delta first
    assert one.distinguished <= full.distinguished
    none = distil(be, GOLD, max_size=0, seed=0, candidates=200)
    assert none.size == 0 and none.deltas == []
    # neighbours different on the original graph count as distinguished without a delta
    orig = be.run_with(None, [GOLD, *be.neighbour_queries(GOLD, 0)])
    on_original = sum(not be.same(GOLD, orig[0], r) for r in orig[1:])
    assert none.distinguished == on_original
    # every undistinguished neighbour is equal to the gold on the original and on each delta
    for nb in full.undistinguished:
        assert ts_verdict(be, full, GOLD, nb).correct
    with pytest.raises(ValueError):
        distil(be, GOLD, max_size=-1)


def test_a_delta_on_which_the_gold_fails_is_never_kept() -> None:
    class Failing(TableBackend):
        def _eval(self, query: str) -> Any:
            if len(self.rows) > len(PEOPLE):  # every 'add' delta breaks every query
                return ("error", "boom")
            return super()._eval(query)

    suite = distil(Failing(PEOPLE), GOLD, seed=0, candidates=200)
    assert suite.size >= 1 and all(d.kind != "add_node" for d in suite.deltas)


def test_cache_reuses_rebuilds_on_other_content_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    cache = SuiteCache.load(path)
    be = TableBackend(PEOPLE)
    s1 = cache.suite_for(be, GOLD, scope="people", seed=2)
    s1b = cache.suite_for(be, GOLD, scope="people", seed=2)
    assert s1b == s1 and cache.counts() == {"reused": 1, "distilled": 1, "rebuilt": 0}
    cache.save()
    text = path.read_text()

    reloaded = SuiteCache.load(path)
    be.runs = 0
    assert reloaded.suite_for(be, GOLD, scope="people", seed=2) == s1
    assert be.runs == 0 and reloaded.counts()["distilled"] == 0
    # another seed is another suite
    reloaded.suite_for(be, GOLD, scope="people", seed=5)
    assert reloaded.counts()["distilled"] == 1 and reloaded.counts()["rebuilt"] == 0

    # the graph changed: the stale entry is never used, it is rebuilt and counted
    changed = TableBackend([*PEOPLE, {"name": "Eve", "age": 30, "city": "Oslo"}])
    s2 = reloaded.suite_for(changed, GOLD, scope="people", seed=2)
    assert s2.fingerprint == changed.fingerprint() != s1.fingerprint
    assert reloaded.counts()["rebuilt"] == 1
    assert len(reloaded.entries) == 2  # seed 2 (new content) and seed 5
    # deterministic file
    cache2 = SuiteCache.load(tmp_path / "other.json")
    cache2.suite_for(TableBackend(PEOPLE), GOLD, scope="people", seed=2)
    cache2.save()
    assert (tmp_path / "other.json").read_text() == text


def test_cache_bad_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(InputError, match=r"bad\.json.*entries"):
        SuiteCache.load(bad)
    bad.write_text("{not json")
    with pytest.raises(InputError, match=r"bad\.json"):
        SuiteCache.load(bad)
    bad.write_text(json.dumps({"entries": {"k1": {"scope": "x", "suite": {"gold": "g"}}}}))
    with pytest.raises(InputError, match="entry k1"):
        SuiteCache.load(bad)
    with pytest.raises(ValueError, match="path"):
        SuiteCache().save()


def test_task_records_and_aggregate() -> None:
    be = TableBackend(PEOPLE)
    suite = distil(be, GOLD, seed=0, candidates=200)
    records = []
    for qid, pred in enumerate((GOLD, GE, q([["city", "=", "Lima"]]))):
        v = ts_verdict(be, suite, GOLD, pred)
        g, p = be.run_with(None, [GOLD, pred])
        records.append(
            {
                "qid": str(qid),
                "graph": "people",
                "metrics": {
                    "execution_accuracy": 1.0 if be.same(GOLD, g, p) else 0.0,
                    "ts_execution_accuracy": v.score,
                },
                "test_suite": ts_task_record(suite, v),
            }
        )
    assert records[1]["test_suite"]["separated_by"]["id"].startswith("d")
    assert records[0]["test_suite"]["separated_by"] is None
    agg = ts_aggregate(records, {"reused": 0, "distilled": 1, "rebuilt": 0})
    assert agg["execution_accuracy"] == round(2 / 3, 4)
    assert agg["ts_execution_accuracy"] == round(1 / 3, 4)
    assert agg["ex_not_ts"] == 1 and agg["tasks"] == 3
    assert agg["mean_suite_size"] == suite.size and agg["suites"]["distilled"] == 1
    listed = ex_not_ts(records)
    assert [x["qid"] for x in listed] == ["1"]
    assert listed[0]["separated_by"] == records[1]["test_suite"]["separated_by"]
    json.dumps(agg)  # JSON-serialisable


def test_distillation_runs_only_what_is_still_undistinguished() -> None:
    """Each candidate runs the gold with only the neighbours no earlier candidate told apart,
    candidates stop once none is left, and the gold's results on the kept deltas stay with
    the suite (equal to running the gold there again)."""
    calls: list[tuple[Delta | None, list[str]]] = []

    class Logged(TableBackend):
        def run_with(self, delta: Delta | None, queries: Sequence[str]) -> list[Any]:
            calls.append((delta, list(queries)))
            return super().run_with(delta, queries)

    be = Logged(PEOPLE)
    pool = be.candidate_deltas(GOLD, 4, 200)
    suite = distil(be, GOLD, max_size=8, seed=4, candidates=200)
    original, *on_deltas = calls
    assert original[0] is None and original[1][0] == GOLD
    assert on_deltas and all(c[1][0] == GOLD for c in on_deltas)
    told: set[str] = set()
    for delta, queries in on_deltas:
        assert delta is not None
        assert not told & set(queries[1:])  # a neighbour told apart is never run again
        res = be.run_with(delta, queries)
        told |= {x for x, r in zip(queries[1:], res[1:], strict=True) if r != res[0]}
    left = [q for q in original[1][1:] if q not in told]
    if len(on_deltas) < len(pool):  # stopped early: nothing was left to tell apart
        assert all(be.run_with(None, [GOLD, x])[1] != be.run_with(None, [GOLD])[0] for x in left)
    assert len(on_deltas) <= len(pool)
    assert sum(len(c[1]) for c in on_deltas) < len(pool) * len(original[1])
    assert suite.gold_results is not None
    assert suite.gold_results == [be.run_with(None, [GOLD])[0]] + [
        be.run_with(d, [GOLD])[0] for d in suite.deltas
    ]
    # not stored: a suite read back from the cache has none and is otherwise equal
    back = Suite.from_json(json.loads(json.dumps(suite.to_json())))
    assert back.gold_results is None and back == suite


def test_suites_for_on_threads_gives_the_same_cache(tmp_path: Path) -> None:
    """Distilling the missing suites on several threads stores the same suites, file and
    counters as one thread; a gold repeated is distilled once; a cached one is reused."""
    golds = [GOLD, GE, GOLD, q([["city", "=", "Lima"]]), GT29]
    texts = []
    for workers in (1, 4):
        cache = SuiteCache.load(tmp_path / f"c{workers}.json")
        cache.suite_for(TableBackend(PEOPLE), GT29, scope="people", seed=1)
        got = cache.suites_for(
            TableBackend(PEOPLE), [("people", g) for g in golds], seed=1, workers=workers
        )
        assert list(got) == [GOLD, GE, q([["city", "=", "Lima"]]), GT29]
        assert got[GOLD] == distil(TableBackend(PEOPLE), GOLD, seed=1)
        assert cache.counts() == {"reused": 1, "distilled": 4, "rebuilt": 0}
        texts.append(cache.save().read_text())
    assert texts[0] == texts[1]


@pytest.mark.parametrize("language", ["cypher", "sparql"])
def test_cli_test_suite_n_below_one_is_refused_for_every_language(
    language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One rule for N in Cypher and SPARQL: ``--test-suite 0`` is a one-line error naming
    N >= 1, before anything is scored or written."""
    from kgbench.cli import main

    (tmp_path / "t.json").write_text("[]", encoding="utf-8")
    where = ["--uri", "bolt://127.0.0.1:1"] if language == "cypher" else ["--rdf-dir", "r"]
    for n in ("0", "-2"):
        code = main(
            [
                "evaluate", "--language", language, "--tasks", str(tmp_path / "t.json"), *where,
                "--test-suite", n, "--out", str(tmp_path / "o"),
            ]
        )  # fmt: skip
        err = capsys.readouterr().err.strip()
        assert code == 1
        assert len(err.splitlines()) == 1 and "--test-suite" in err and ">= 1" in err
        assert f"not {n}" in err
        assert not (tmp_path / "o").exists()
