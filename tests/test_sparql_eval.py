"""SPARQL execution and EX (spec spider4sparql.md §5): typed values, the top-level ORDER BY
rule, the worker process and its timeout, Spider4SPARQL's prefix-less ``\\#`` queries, and
the 2021 scorer's compat rules."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from kgbench.errors import InputError
from kgbench.query.sparql import (
    SparqlExecutor,
    rdf_files_of,
    round_significant,
    sparql_execution_accuracy,
    sparql_order_matters,
    with_s4s_prefix,
)

B = "http://valuenet/ontop/"
XSD = "http://www.w3.org/2001/XMLSchema#"


def _graph(tmp_path: Path, n_extra: int = 0) -> Path:
    rows = [
        (1, "Joe Sharp", "Netherlands", 52, "false"),
        (2, "Timbaland", "United States", 32, "true"),
    ]
    rows += [(3, "Justin Brown", "France", 29, "true"), (4, "Rose White", "France", 41, "false")]
    lines = []
    for sid, name, country, age, male in rows:
        s = f"<{B}singer/singer_id={sid}>"
        lines += [
            f"{s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{B}singer> .",
            f'{s} <{B}singer#singer_id> "{sid}"^^<{XSD}integer> .',
            f'{s} <{B}singer#name> "{name}" .',
            f'{s} <{B}singer#country> "{country}" .',
            f'{s} <{B}singer#age> "{age}"^^<{XSD}integer> .',
            f'{s} <{B}singer#is_male> "{male}"^^<{XSD}boolean> .',
        ]
    lines += [f'<{B}x/{i}> <{B}x#v> "{i}"^^<{XSD}integer> .' for i in range(n_extra)]
    path = tmp_path / "concert.nt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_values_prefix_and_order_rule(tmp_path: Path) -> None:
    assert round_significant(10621.666666666666666666) == round_significant(10621.6666666667)
    assert with_s4s_prefix("SELECT ?x WHERE { ?x a :singer }").startswith("PREFIX : <" + B)
    q = "PREFIX : <http://example.org/> SELECT ?x WHERE { ?x a :t }"
    assert with_s4s_prefix(q) == q
    assert sparql_order_matters("SELECT ?a WHERE { ?s :p ?a } ORDER BY DESC(?a)")
    assert not sparql_order_matters(
        "SELECT ?a WHERE { { SELECT ?a WHERE { ?s :p ?a } ORDER BY ?a LIMIT 1 } }"
    )
    assert not sparql_order_matters("SELECT ?a WHERE { ?s :p 'order by' }")
    assert not sparql_order_matters("SELECT ?a WHERE { ?s <http://x/ORDER BY> ?a }")

    with SparqlExecutor([_graph(tmp_path)], timeout_s=30) as ex:
        # the published style: no PREFIX, '#' escaped in local names
        res = ex.run(with_s4s_prefix("SELECT (count(*) as ?c) WHERE { ?s a :singer }"))
        assert res.ok and res.rows == [[4]]
        res = ex.run(
            with_s4s_prefix(
                "SELECT (avg(?a) as ?avg) (min(?a) as ?min) (max(?a) as ?max) "
                "WHERE { ?s :singer\\#country 'France' . ?s :singer\\#age ?a }"
            )
        )
        assert res.rows == [[35.0, 29, 41]] and res.columns == ["avg", "min", "max"]
        res = ex.run(with_s4s_prefix("SELECT ?s ?m WHERE { ?s :singer\\#is_male ?m }"))
        assert sorted(res.rows) == sorted(
            [
                [f"{B}singer/singer_id={i}", m]
                for i, m in ((1, False), (2, True), (3, True), (4, False))
            ]
        )
        # COUNT without AS is not SPARQL 1.1: a syntax error, scored 0 by the caller
        res = ex.run(with_s4s_prefix("SELECT COUNT(?x) WHERE { ?x a :singer }"))
        assert res.error == "syntax" and not res.ok
        res = ex.run("CONSTRUCT WHERE { ?s ?p ?o }")
        assert res.error == "not_select"


def test_worker_is_killed_at_the_timeout_and_restarts(tmp_path: Path) -> None:
    with SparqlExecutor([_graph(tmp_path, n_extra=3000)], timeout_s=1.0) as ex:
        slow = "SELECT (count(*) AS ?c) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f . ?g ?s ?h }"
        res = ex.run(slow)
        assert res.error == "timeout" and ex.restarts == 1
        assert 1.0 <= res.seconds < 10
        # the next query gets a fresh worker
        assert ex.run("SELECT (count(*) AS ?c) WHERE { ?s a ?t }").rows == [[4]]


def test_ex_rules_kgbench_and_s4s() -> None:
    gold = [["Joe", 52], ["Tim", 32]]
    assert sparql_execution_accuracy(gold, [["Tim", 32], ["Joe", 52]], order_matters=False) == 1
    assert sparql_execution_accuracy(gold, [["Tim", 32], ["Joe", 52]], order_matters=True) == 0
    # columns permuted: kgbench's EX finds the bijection; the 2021 scorer is positional
    perm = [[52, "Joe"], [32, "Tim"]]
    assert sparql_execution_accuracy(gold, perm, order_matters=True) == 1
    assert sparql_execution_accuracy(gold, perm, order_matters=False, compat="s4s") == 0
    # s4s: 12 decimals, bag of rows
    assert sparql_execution_accuracy([[0.1 + 0.2]], [[0.3]], order_matters=False, compat="s4s") == 1
    assert sparql_execution_accuracy([[1], [1]], [[1]], order_matters=False, compat="s4s") == 0
    with pytest.raises(ValueError):
        sparql_execution_accuracy(gold, gold, False, compat="x")


def test_rdf_files_and_load_errors(tmp_path: Path) -> None:
    g = _graph(tmp_path)
    assert rdf_files_of(tmp_path, "concert") == [g]
    with pytest.raises(InputError, match="no RDF for graph 'pets_1'"):
        rdf_files_of(tmp_path, "pets_1")
    # a converter output directory in Turtle, one file compressed: both read, in name order
    sub = tmp_path / "pets_1"
    sub.mkdir()
    (sub / "a.ttl").write_text("<http://x/a> <http://x/p> 1 .\n", encoding="utf-8")
    with gzip.open(sub / "b.ttl.gz", "wt", encoding="utf-8") as fh:
        fh.write("<http://x/b> <http://x/p> 2 .\n")
    (sub / "notes.txt").write_text("not RDF\n", encoding="utf-8")
    files = rdf_files_of(tmp_path, "pets_1")
    assert [p.name for p in files] == ["a.ttl", "b.ttl.gz"]
    with SparqlExecutor(files) as ex:
        rows = ex.run("SELECT ?o WHERE { ?s <http://x/p> ?o } ORDER BY ?o")
    assert rows.ok, rows.message
    assert [r[0] for r in rows.rows] == [1, 2]
    bad = tmp_path / "bad.nt"
    bad.write_text("<a> <b> .\n", encoding="utf-8")
    with SparqlExecutor([bad]) as ex, pytest.raises(InputError, match="cannot load"):
        ex.run("SELECT * WHERE { ?s ?p ?o }")


def test_evaluate_cli_sparql(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``kgbench evaluate --language sparql``: Spider4SPARQL-style pairs (no PREFIX, ``\\#``)
    as tasks, position-aligned predictions; right, reordered, syntax-error and missing
    predictions; a failing gold is excluded and listed; EX by hardness."""
    import json

    from kgbench.cli import main

    rdf = tmp_path / "rdf"
    rdf.mkdir()
    _graph(rdf).rename(rdf / "concert_singer.nt")
    count = "SELECT (count(*) as ?c) WHERE { ?s a :singer }"
    ordered = "SELECT ?n WHERE { ?s :singer\\#name ?n . ?s :singer\\#age ?a } ORDER BY DESC(?a)"
    asc = ordered.replace("DESC(?a)", "ASC(?a)")
    tasks = [
        {
            "kg_name": "concert_singer",
            "question": "How many singers?",
            "query": count,
            "hardness": "easy",
        },
        {
            "kg_name": "concert_singer",
            "question": "Names by age",
            "query": ordered,
            "hardness": "medium",
        },
        {
            "kg_name": "concert_singer",
            "question": "Names by age again",
            "query": ordered,
            "hardness": "medium",
        },
        {
            "kg_name": "concert_singer",
            "question": "Broken gold",
            "query": "SELECT WHERE {",
            "hardness": "hard",
        },
        {
            "kg_name": "concert_singer",
            "question": "No prediction",
            "query": count,
            "hardness": "easy",
        },
    ]
    preds = [
        {"predicted_sparql": count},
        {"predicted_sparql": asc},  # rows in the wrong order: 0
        {"predicted_sparql": "SELECT COUNT(?x) WHERE { ?x a :singer }"},  # syntax: 0
        {"predicted_sparql": count},
        {"predicted_sparql": ""},
    ]
    (tmp_path / "tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    (tmp_path / "preds.json").write_text(json.dumps(preds), encoding="utf-8")
    out = tmp_path / "out"
    argv = ["evaluate", "--language", "sparql", "--tasks", str(tmp_path / "tasks.json")]
    argv += ["--predictions", str(tmp_path / "preds.json"), "--rdf-dir", str(rdf)]
    assert main([*argv, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    agg = json.loads((out / "aggregated_metrics.json").read_text(encoding="utf-8"))
    assert agg["scored"] == 4 and [e["qid"] for e in agg["excluded"]] == ["3"]
    assert agg["excluded"][0]["error"] == "syntax"
    assert agg["overall"] == {"execution_accuracy": 0.25, "executable": 0.5}
    assert agg["by_hardness"] == {"easy": 0.5, "medium": 0.0}
    records = json.loads((out / "result_with_metrics.json").read_text(encoding="utf-8"))
    assert [r["error"] for r in records] == [None, None, "syntax", "missing"]
    assert "1 excluded" in printed and "by_hardness" in printed
    # the same predictions under the 2021 scorer: order ignored, so the reordered one counts
    assert main([*argv, "--out", str(out), "--compat", "s4s"]) == 0
    agg = json.loads((out / "aggregated_metrics.json").read_text(encoding="utf-8"))
    assert agg["overall"]["execution_accuracy"] == 0.5 and agg["compat"] == "s4s"
    # the family named: --family spider4sparql is --language sparql (the same files)
    named = tmp_path / "named"
    argv_named = ["evaluate", "--family", "spider4sparql", *argv[3:], "--out", str(named)]
    assert main([*argv_named, "--compat", "s4s"]) == 0
    for name in ("aggregated_metrics.json", "result_with_metrics.json"):
        assert (named / name).read_bytes() == (out / name).read_bytes()
    # a Cypher family with --language sparql: a one-line error naming the family
    capsys.readouterr()
    t2c = ["evaluate", "--family", "text2cypher", "--language", "sparql", "--tasks", "x"]
    assert main([*t2c, "--out", str(out)]) == 1
    assert "--family text2cypher scores Cypher tasks" in capsys.readouterr().err
    # no --rdf-dir: a one-line error
    assert main(["evaluate", "--language", "sparql", "--tasks", "x", "--out", str(out)]) == 1


def test_hardness_from_gold_sql() -> None:
    """A task without ``hardness`` gets Spider's level of its ``gold_sql``."""
    from kgbench.evaluate.sparql_runner import normalise_tasks

    base = {"graph": "g", "gold_sparql": "SELECT ?x WHERE { ?x ?p ?o }"}
    tasks = normalise_tasks(
        [
            ("t0", {**base, "gold_sql": "SELECT count(*) FROM singer"}),
            ("t1", {**base, "gold_sql": "SELECT name FROM singer WHERE age > 3 ORDER BY age"}),
            ("t2", {**base, "gold_sql": "not sql at all ((("}),
            ("t3", base),
        ]
    )
    assert [t["hardness"] for t in tasks] == ["easy", "medium", "unknown", "unknown"]


@pytest.mark.realdata
def test_spec_worked_examples_on_concert_singer_and_world_1(tmp_path: Path) -> None:
    """Spec spider4sparql.md §5 examples, on kgbench's conversion of the real databases:
    singer count -> [(6)]; COUNT without AS is a syntax error (0); a gold ordered by age
    desc scores 0 for reordered rows and 1 for permuted columns; France's avg/min/max age is
    (34.5, 25, 43) and a prediction projecting max, min, avg scores 1; world_1's
    least-populated country with its independence year is the Holy See in SPARQL (Antarctica
    has no IndepYear triple) and Antarctica in SQL."""
    from kgbench.rdb.convert import convert_rdb
    from kgbench.rdb.validate import run_sql

    data = Path(__file__).parent / "data" / "spider"
    db = data / "concert_singer.sqlite"
    convert_rdb(db, data / "concert_singer.tables.json", "concert_singer", tmp_path / "cs")
    gold_age = (
        "SELECT ?name ?age WHERE { ?s a :singer ; :singer\\#name ?name ; :singer\\#age ?age } "
        "ORDER BY DESC(?age)"
    )
    with SparqlExecutor([tmp_path / "cs" / "concert_singer.nt"]) as ex:

        def rows(q: str) -> list[list[object]]:
            res = ex.run(with_s4s_prefix(q))
            assert res.ok, res.message
            return res.rows

        assert rows("SELECT (count(*) AS ?c) WHERE { ?s a :singer }") == [[6]]
        bad = ex.run(with_s4s_prefix("SELECT COUNT(?s) WHERE { ?s a :singer }"))
        assert bad.error == "syntax"
        gold = rows(gold_age)
        ordered = sparql_order_matters(gold_age)
        assert ordered
        assert sparql_execution_accuracy(gold, gold[::-1], ordered) == 0
        assert sparql_execution_accuracy(gold, [[a, n] for n, a in gold], ordered) == 1
        france = (
            "SELECT (avg(?a) AS ?avg) (min(?a) AS ?min) (max(?a) AS ?max) WHERE "
            "{ ?s :singer\\#country 'France' ; :singer\\#age ?a }"
        )
        assert rows(france) == [[34.5, 25, 43]]
        permuted = france.replace(
            "(avg(?a) AS ?avg) (min(?a) AS ?min) (max(?a) AS ?max)",
            "(max(?a) AS ?max) (min(?a) AS ?min) (avg(?a) AS ?avg)",
        )
        assert sparql_execution_accuracy(rows(france), rows(permuted), False) == 1
        _err, sql = run_sql(
            db, "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'", 30
        )
        assert sql == [[34.5, 25, 43]]

    spider = Path(__file__).resolve().parents[2] / "shared" / "data" / "spider"
    world = spider / "database" / "world_1" / "world_1.sqlite"
    if not world.exists():
        pytest.skip(f"the shared world_1 database is absent ({world})")
    convert_rdb(world, spider / "tables.json", "world_1", tmp_path / "w")
    sql = "SELECT Name, IndepYear FROM country ORDER BY Population LIMIT 1"
    assert run_sql(world, sql, 30)[1] == [["Antarctica", None]]
    with SparqlExecutor([tmp_path / "w" / "world_1.nt"]) as ex:
        res = ex.run(
            with_s4s_prefix(
                "SELECT ?n ?y WHERE { ?c a :country ; :country\\#name ?n ; "
                ":country\\#indepyear ?y ; :country\\#population ?p } ORDER BY ?p LIMIT 1"
            )
        )
    assert res.rows == [["Holy See (Vatican City State)", 1929]]
