"""Test-suite EX for SPARQL (issue 31): the backend of ``kgbench.evaluate.suites.sparql``
on a small handmade graph (neighbours parse, deltas are undone exactly, a coinciding wrong
query falls), then ``kgbench evaluate --language sparql --test-suite`` on the real published
Spider4SPARQL GPT-3.5 zero-shot predictions over the 10 shared Spider dev databases converted
by ``kgbench rdb`` (read in place; skipped, saying why, when the shared data are absent)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from kgbench.cli import main
from kgbench.evaluate.suites.core import Delta, distil, ts_verdict
from kgbench.evaluate.suites.sparql import (
    SparqlSuiteBackend,
    gold_shape,
    syntactic_neighbours,
    tokenize,
    where_as_select_star,
)
from kgbench.query.sparql import SparqlExecutor, with_s4s_prefix

B = "http://valuenet/ontop/"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SPIDER = SHARED / "spider"
S4S = SHARED / "spider4sparql"


def _graph(path: Path) -> Path:
    rows = [
        (1, "Joe Sharp", "Netherlands", 52),
        (2, "Timbaland", "United States", 32),
        (3, "Justin Brown", "France", 29),
        (4, "Rose White", "France", 41),
    ]
    lines = []
    for sid, name, country, age in rows:
        s = f"<{B}singer/singer_id={sid}>"
        lines += [
            f"{s} <{RDF_TYPE}> <{B}singer> .",
            f'{s} <{B}singer#name> "{name}" .',
            f'{s} <{B}singer#country> "{country}" .',
            f'{s} <{B}singer#age> "{age}"^^<{XSD}integer> .',
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


#: names of singers older than 40 (nobody is 40 here, so '>=' coincides)
GOLD = with_s4s_prefix(
    "select ?n where { ?s a :singer . ?s :singer\\#name ?n . ?s :singer\\#age ?a . "
    "FILTER(?a > 40) . }"
)


def test_tokens_neighbours_and_shape() -> None:
    assert "".join(t.text for t in tokenize(GOLD)) == GOLD
    kinds = {k for k, _q in syntactic_neighbours(GOLD)}
    assert {"drop_filter", "negate_filter", "comparison", "constant", "distinct"} <= kinds
    shape = gold_shape(GOLD)
    assert shape.classes == (B + "singer",)
    assert shape.predicates == (B + "singer#name", B + "singer#age")
    assert shape.pairs == ((B + "singer#age", 40, B + "singer"),)
    star = where_as_select_star(GOLD)
    assert star is not None and star.startswith("PREFIX") and "SELECT * WHERE {" in star
    q = with_s4s_prefix(
        "SELECT ?c (count(*) AS ?n) WHERE { ?s :singer\\#country ?c } "
        "GROUP BY ?c ORDER BY DESC(?n) LIMIT 2"
    )
    texts = [x for _k, x in syntactic_neighbours(q)]
    assert any("ORDER BY ASC(?n)" in x for x in texts)
    assert any("LIMIT 3" in x for x in texts) and any("LIMIT 1" in x for x in texts)
    assert any("(DISTINCT *)" in x for x in texts) and any("SUM(*)" in x for x in texts)
    with pytest.raises(ValueError, match="offset"):
        tokenize("SELECT ?x WHERE { ?x ~ ?y }")


def test_backend_deltas_are_undone_and_a_coinciding_query_falls(tmp_path: Path) -> None:
    with SparqlExecutor([_graph(tmp_path / "g.nt")]) as ex:
        be = SparqlSuiteBackend(ex)
        fp = be.fingerprint()
        neighbours = be.neighbour_queries(GOLD, 0)
        assert neighbours and all(be.parses(n) for n in neighbours)
        assert be.neighbour_queries(GOLD, 0) == neighbours  # deterministic
        # an insert of a present triple and a delete of an absent one change nothing, and the
        # restore must not remove / add them either
        present = [f"<{B}singer/singer_id=1>", f"<{B}singer#country>", '"Netherlands"']
        absent = [f"<{B}singer/singer_id=9>", f"<{B}singer#country>", '"Peru"']
        d = Delta(
            "d00",
            "set_property",
            (
                {"op": "insert", "triple": present},
                {"op": "delete", "triple": absent},
                {
                    "op": "delete",
                    "triple": [present[0], f"<{B}singer#age>", f'"52"^^<{XSD}integer>'],
                },
            ),
            "test",
        )
        (res,) = be.run_with(d, [GOLD])
        assert res.rows == [["Rose White"]]  # Joe lost his age
        assert ex.fingerprint() == fp
        with pytest.raises(Exception, match="worker"):
            ex.apply([{"op": "insert", "triple": ["<a>", "nonsense"]}])
        assert ex.fingerprint() == fp

        suite = distil(be, GOLD, max_size=8, seed=0)
        assert ex.fingerprint() == fp and suite.size >= 1
        assert len(be.candidate_deltas(GOLD, 0, 32)) <= 32
        ge = GOLD.replace("?a > 40", "?a >= 40")
        g, p = be.run_with(None, [GOLD, ge])
        assert be.same(GOLD, g, p)  # EX 1 on the graph ...
        v = ts_verdict(be, suite, GOLD, ge)
        assert not v.correct and v.separated_by is not None  # ... TS-EX 0
        # a true rewrite keeps TS-EX 1
        rewrite = with_s4s_prefix(
            "SELECT ?name WHERE { ?x :singer\\#age ?age . ?x a :singer . "
            "?x :singer\\#name ?name FILTER(40 < ?age) }"
        )
        assert ts_verdict(be, suite, GOLD, rewrite).correct
        assert ts_verdict(be, suite, GOLD, GOLD).correct


def test_a_timeout_inside_a_delta_reapplies_it(tmp_path: Path) -> None:
    g = _graph(tmp_path / "g.nt")
    extra = [f'<{B}x/{i}> <{B}x#v> "{i}"^^<{XSD}integer> .' for i in range(3000)]
    g.write_text(g.read_text() + "\n".join(extra) + "\n", encoding="utf-8")
    with SparqlExecutor([g], timeout_s=1.0) as ex:
        be = SparqlSuiteBackend(ex)
        d = Delta(
            "d00",
            "delete_node",
            (
                {
                    "op": "delete",
                    "triple": [f"<{B}singer/singer_id=4>", f"<{RDF_TYPE}>", f"<{B}singer>"],
                },
            ),
            "drop a type",
        )
        slow = "SELECT (count(*) AS ?c) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f . ?g ?s ?h }"
        count = "SELECT (count(*) AS ?c) WHERE { ?s a <" + B + "singer> }"
        r1, r2 = be.run_with(d, [slow, count])
        assert r1.error == "timeout" and ex.restarts == 1
        assert r2.rows == [[3]]  # the fresh worker got the delta again
        assert be.run_with(None, [count])[0].rows == [[4]]  # and it was undone


# ---- real data: Spider4SPARQL --------------------------------------------------------------

realdata = pytest.mark.skipif(
    not ((S4S / "s4s_dev_shared_dbs.json").is_file() and (SPIDER / "database").is_dir()),
    reason=f"the shared Spider / Spider4SPARQL data are absent ({SHARED})",
)
#: four of the ten shared databases (the small ones: the test's running time), holding known
#: wrong predictions whose result coincides with the gold's (empty against empty)
GRAPHS = ("concert_singer", "employee_hire_evaluation", "tvshow", "orchestra")


@pytest.fixture(scope="module")
def s4s(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``rdf/``: the databases of :data:`GRAPHS` converted by ``kgbench rdb``; ``tasks.json``:
    their published gold pairs with ``qid`` = the position in the published file;
    ``pred.json``: the published GPT-3.5 predictions of those tasks, keyed by qid;
    ``gold_as_pred.json``: the gold queries as predictions."""
    out = tmp_path_factory.mktemp("s4s_ts")
    for db in GRAPHS:
        code = main(
            [
                "rdb",
                str(SPIDER / "database" / db / f"{db}.sqlite"),
                "--tables",
                str(SPIDER / "tables.json"),
                "--out",
                str(out / "rdf" / db),
            ]
        )
        assert code == 0, db
    gold = json.loads((S4S / "s4s_dev_shared_dbs.json").read_text(encoding="utf-8"))
    pred = json.loads((S4S / "gpt35_zero_shot_dev_shared_dbs.json").read_text(encoding="utf-8"))
    keep = [i for i, g in enumerate(gold) if g["kg_name"] in GRAPHS]
    tasks = [{**gold[i], "qid": str(i)} for i in keep]
    (out / "tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    preds = [{"qid": str(i), "pred_sparql": pred[i]["predicted_sparql"]} for i in keep]
    (out / "pred.json").write_text(json.dumps(preds), encoding="utf-8")
    same = [{"qid": str(i), "pred_sparql": gold[i]["query"]} for i in keep]
    (out / "gold_as_pred.json").write_text(json.dumps(same), encoding="utf-8")
    return out


def _evaluate(
    s4s: Path, out: Path, *extra: str, predictions: str = "pred.json", rdf: str = "rdf"
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    args = [
        "evaluate",
        "--language",
        "sparql",
        "--tasks",
        str(s4s / "tasks.json"),
        "--predictions",
        str(s4s / predictions),
        "--rdf-dir",
        str(s4s / rdf),
        "--out",
        str(out),
        "--test-suite",
        *extra,
    ]
    assert main(args) == 0
    return (
        json.loads((out / "result_with_metrics.json").read_text(encoding="utf-8")),
        json.loads((out / "aggregated_metrics.json").read_text(encoding="utf-8")),
    )


@pytest.mark.slow
@pytest.mark.realdata
@realdata
def test_spider4sparql_gpt35_ts_ex_cache_and_determinism(
    s4s: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The published GPT-3.5 run: TS-EX <= EX on every task and below it overall; known
    empty-against-empty predictions fall to TS-EX 0 with the delta that separated them; a
    second run reuses every suite (distils nothing) and scores the same; a changed graph
    rebuilds its suites and says so."""
    cache = tmp_path / "cache.json"
    records, agg = _evaluate(s4s, tmp_path / "a", "--suite-cache", str(cache))
    printed = capsys.readouterr()
    overall = agg["overall"]
    assert list(overall)[:2] == ["execution_accuracy", "ts_execution_accuracy"]
    assert "ts_execution_accuracy" in printed.out and "EX 1 but TS-EX 0" in printed.out
    assert overall["ts_execution_accuracy"] < overall["execution_accuracy"]
    assert "ts_execution_accuracy" in agg["informative"]["overall"]
    by_qid = {r["qid"]: r for r in records}
    for r in records:
        m, ts = r["metrics"], r["test_suite"]
        assert m["ts_execution_accuracy"] <= m["execution_accuracy"], r["qid"]
        assert 0 <= ts["size"] <= 8
        assert ts["distinguished"] + len(ts["undistinguished"]) == ts["neighbours"]
        if m["execution_accuracy"] == 1 and m["ts_execution_accuracy"] == 0:
            assert ts["separated_by"] is not None
    # qid 14: stadiums with a capacity between 5000 and 10000; GPT-3.5 writes ':capacity'
    # (no such predicate: empty), the gold is empty on this graph too -> EX 1; a neighbour
    # graph where a stadium has such a capacity gives the gold an answer -> TS-EX 0
    wrong = by_qid["14"]
    assert wrong["uninformative"] == "empty"
    assert wrong["metrics"]["execution_accuracy"] == 1.0
    assert wrong["metrics"]["ts_execution_accuracy"] == 0.0
    assert wrong["test_suite"]["separated_by"]["kind"] in ("satisfy", "set_property")
    listed = {x["qid"] for x in agg["ex_not_ts"]}
    assert {"14", "247"} <= listed and len(listed) == agg["test_suite"]["ex_not_ts"]
    assert agg["test_suite"]["suites"]["rebuilt"] == 0
    distilled = agg["test_suite"]["suites"]["distilled"]
    assert distilled == len({r["gold_sparql"] + "|" + r["graph"] for r in records})

    # kgbench report: TS-EX beside EX, and the EX-1-TS-EX-0 tasks with their delta
    html = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "a"), "--out", str(html)]) == 0
    page = html.read_text(encoding="utf-8")
    assert "TS-EX" in page and "EX 1 but TS-EX 0" in page and "concert_singer/14 (by d" in page

    # the second run reuses every suite and scores the same
    records2, agg2 = _evaluate(s4s, tmp_path / "b", "--suite-cache", str(cache))
    assert "0 distilled" in capsys.readouterr().err
    assert records2 == records
    assert agg2["test_suite"]["suites"] == {
        "reused": len(records),
        "distilled": 0,
        "rebuilt": 0,
    }

    # a changed graph: its suites are rebuilt (counted and printed), the others reused
    changed = s4s / "rdf_changed"
    if changed.exists():
        shutil.rmtree(changed)
    shutil.copytree(s4s / "rdf", changed)
    nt = changed / "orchestra" / "orchestra.nt"
    nt.write_text(
        nt.read_text(encoding="utf-8") + f'<{B}orchestra/x> <{B}orchestra#note> "new" .\n',
        encoding="utf-8",
    )
    _r3, agg3 = _evaluate(s4s, tmp_path / "c", "--suite-cache", str(cache), rdf="rdf_changed")
    orchestra = {r["gold_sparql"] for r in records if r["graph"] == "orchestra"}
    assert agg3["test_suite"]["suites"]["rebuilt"] == len(orchestra)
    assert agg3["test_suite"]["suites"]["distilled"] == len(orchestra)
    assert f"({len(orchestra)} rebuilt" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.realdata
@realdata
def test_spider4sparql_gold_keeps_ts_ex_and_runs_are_deterministic(
    s4s: Path, tmp_path: Path
) -> None:
    """The gold as its own prediction scores TS-EX 1 on every task; two runs from scratch
    (no shared cache) give the same suites and scores."""
    records, agg = _evaluate(s4s, tmp_path / "a", predictions="gold_as_pred.json")
    assert all(r["metrics"]["ts_execution_accuracy"] == 1.0 for r in records)
    assert agg["overall"]["ts_execution_accuracy"] == 1.0 and agg["ex_not_ts"] == []
    again, _agg = _evaluate(s4s, tmp_path / "b", predictions="gold_as_pred.json")
    assert again == records
    first = json.loads((tmp_path / "a" / "test_suite_cache.json").read_text(encoding="utf-8"))
    second = json.loads((tmp_path / "b" / "test_suite_cache.json").read_text(encoding="utf-8"))
    assert first == second and first["entries"]
