"""Offline bulk import (kgbench.neo4j.import_graph, Neo4j's import tool) on real local servers.

The import must give exactly the database the Bolt loader (kgbench.neo4j.load_graph) gives:
every node and relationship is compared with its labels / type, ends and properties, including
the Cypher value type of every property (dates, lists, empty lists, floats from JSON ints).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kgbench.errors import InputError
from kgbench.neo4j import (
    GraphValidationError,
    LocalNeo4j,
    OfflineImportError,
    fetch_schema,
    import_graph,
)
from kgbench.neo4j.offline import write_import_csv

GRAPHS = Path(__file__).parent / "data" / "graphs"

EDGE_SCHEMA_ENTITIES = [
    {
        "label": "Thing",
        "properties": {
            "code": "str",
            "count": "int",
            "score": "float",
            "flag": "bool",
            "day": "date",
            "tags": "list[str]",
            "nums": "list[int]",
            "weights": "list[float]",
            "days": "list[date]",
        },
    },
    {"label": "9Numeric_Label", "properties": {}},
]
EDGE_SCHEMA_RELATIONS = [
    {
        "label": "linksTo",
        "subj_label": "Thing",
        "obj_label": "Thing",
        "properties": {"note": "str", "tags": "list[str]"},
    },
    {
        "label": "linksTo",
        "subj_label": "Thing",
        "obj_label": "9Numeric_Label",
        "properties": {"weight": "float"},
    },
]


def edge_case_graph() -> dict[str, Any]:
    """mini_company plus entities/relations with every datatype and the CSV edge cases:
    empty lists, ``[""]``, empty strings, quotes, commas, line breaks, the default array
    delimiter inside a string, unicode, nulls, a relation type spanning two keys."""
    with open(GRAPHS / "mini_company.json", encoding="utf-8") as f:
        graph: dict[str, Any] = json.load(f)
    graph["schema"]["entities"] += EDGE_SCHEMA_ENTITIES
    graph["schema"]["relations"] += EDGE_SCHEMA_RELATIONS
    things = [
        {
            "eid": "Thing#1",
            "name": 'Quote "q", comma; semicolon',
            "aliases": ["", "x"],
            "description": "line one\nline two\r\nthree",
            "provenance": [],
            "properties": {
                "code": "",
                "count": -42,
                "score": 3,
                "flag": False,
                "day": "0999-01-02",
                "tags": [],
                "nums": [1, -2, 9007199254740993],
                "weights": [0.1, 2, 1e-300],
                "days": ["2020-02-29", "1900-01-01"],
            },
        },
        {
            "eid": "Thing#2",
            "name": "Zürich \u00e9t\u00e9 \u6771\u4eac \U0001f600",
            "aliases": [""],
            "description": None,
            "provenance": ["https://en.wikipedia.org/wiki/A,B", 'he said "hi"'],
            "properties": {
                "code": "x\x1fy",
                "count": None,
                "flag": True,
                "tags": [""],
                "nums": [],
                "weights": None,
                "days": [],
            },
        },
        {
            "eid": "Thing#3",
            "name": "  padded  ",
            "aliases": ["a;b", "c|d", "  e  "],
            "description": "",
            "provenance": [""],
            "properties": {"tags": ["only"], "score": -0.0, "day": "2024-12-31"},
        },
        {"eid": "9Numeric_Label#1", "name": "numeric", "label": "9Numeric_Label"},
    ]
    for t in things:
        t.setdefault("label", "Thing")
    graph["entities"] += things
    graph["relations"] += [
        {
            "rid": "e1",
            "label": "linksTo",
            "subj_id": "Thing#1",
            "obj_id": "Thing#2",
            "properties": {"note": 'a,"b"\nc', "tags": []},
            "provenance": [],
        },
        {
            "rid": "e2",
            "label": "linksTo",
            "subj_id": "Thing#2",
            "obj_id": "Thing#1",
            "properties": {"note": None, "tags": ["", ""]},
            "provenance": [""],
        },
        {
            "rid": "e3",
            "label": "linksTo",
            "subj_id": "Thing#3",
            "obj_id": "9Numeric_Label#1",
            "properties": {"weight": 1},
            "provenance": ["p"],
        },
        {
            "rid": "e4",
            "label": "linksTo",
            "subj_id": "Thing#3",
            "obj_id": "Thing#3",
            "properties": {"tags": ["t"]},
        },
    ]
    return graph


def dump(driver: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """Every node and relationship with properties and Cypher value types, and the schema
    objects (constraints and indexes), in a deterministic order."""
    nodes, _, _ = driver.execute_query(
        "MATCH (n) RETURN labels(n) AS labels, n.eid AS eid, "
        "[k IN keys(n) | [k, n[k], valueType(n[k])]] AS props ORDER BY eid"
    )
    rels, _, _ = driver.execute_query(
        "MATCH (s)-[r]->(o) RETURN type(r) AS type, r.rid AS rid, s.eid AS s, o.eid AS o, "
        "[k IN keys(r) | [k, r[k], valueType(r[k])]] AS props ORDER BY rid"
    )
    schema, _, _ = driver.execute_query(
        "SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, owningConstraint "
        "RETURN name, type, entityType, labelsOrTypes, properties, owningConstraint ORDER BY name"
    )
    return (
        [(r["labels"], r["eid"], sorted(map(tuple, r["props"]))) for r in nodes],
        [(r["type"], r["rid"], r["s"], r["o"], sorted(map(tuple, r["props"]))) for r in rels],
        [tuple(r.values()) for r in schema],
    )


@pytest.mark.neo4j
@pytest.mark.parametrize(
    ("id_type", "as_path"), [("string", False), ("actual", True)], ids=["string-ids", "actual-ids"]
)
def test_offline_import_equals_bolt_loader(
    neo4j_load: Any, neo4j_driver: Any, tmp_path: Path, id_type: str, as_path: bool
) -> None:
    graph = edge_case_graph()
    bolt_report = neo4j_load(copy.deepcopy(graph))
    want = dump(neo4j_driver)
    want_schema = fetch_schema(neo4j_driver, name="g")

    data = tmp_path / "offline"
    source: Any = copy.deepcopy(graph)
    if as_path:  # a graph.json path: read natively, never into Python objects
        source = tmp_path / "graph.json"
        source.write_text(json.dumps(graph), encoding="utf-8")
    report = import_graph(source, data, heap="512m", pagecache="256m", id_type=id_type)
    assert report.nodes_by_label == bolt_report.nodes_by_label
    assert report.relationships_by_type == bolt_report.relationships_by_type
    assert (report.nodes, report.relationships) == (len(graph["entities"]), len(graph["relations"]))
    assert report.wiped and report.extra["total_s"] > 0
    assert {"csv_s", "import_tool_s", "server_start_s", "constraints_s"} <= set(report.extra)

    # a server of its own: it serves the store the offline import just wrote
    with LocalNeo4j(data_dir=data, heap="512m", pagecache="256m") as server, server.driver() as d:
        got = dump(d)
        got_schema = fetch_schema(d, name="g")
    assert got[0] == want[0]  # nodes: labels, eid, every property with its value type
    assert got[1] == want[1]  # relationships: type, rid, ends, properties with value types
    assert got[2] == want[2]  # constraints and indexes
    assert got_schema == want_schema
    # the stopped server's directory now has a database: replaced only with wipe=True
    with pytest.raises(OfflineImportError, match=r"already exists.*pass wipe=True"):
        import_graph(graph, data)
    # the edge cases really are in there (not two equally wrong databases)
    thing1 = next(n for n in got[0] if n[1] == "Thing#1")
    props = {k: (v, t) for k, v, t in thing1[2]}
    assert props["aliases"] == (["", "x"], "LIST<STRING NOT NULL> NOT NULL")
    assert props["provenance"][0] == [] and props["tags"][0] == []
    assert props["description"][0] == "line one\nline two\r\nthree"
    assert props["code"] == ("", "STRING NOT NULL")
    assert props["score"] == (3.0, "FLOAT NOT NULL")
    assert props["nums"][0] == [1, -2, 9007199254740993]
    assert str(props["day"][0]) == "0999-01-02" and props["day"][1] == "DATE NOT NULL"
    thing2 = {k: v for k, v, _ in next(n for n in got[0] if n[1] == "Thing#2")[2]}
    assert thing2["aliases"] == [""] and thing2["tags"] == [""] and thing2["nums"] == []
    assert "description" not in thing2 and "count" not in thing2 and "weights" not in thing2
    e2 = {k: v for k, v, _ in next(r for r in got[1] if r[1] == "e2")[4]}
    assert e2 == {"rid": "e2", "provenance": [""], "tags": ["", ""]}


def test_offline_import_csv_files(tmp_path: Path) -> None:
    """The CSV files: typed header, quoted strings, empty unquoted nulls, the empty-list column."""
    graph = edge_case_graph()
    args = write_import_csv(graph, tmp_path)
    # "\x1f" occurs in a string list element? no: in a plain string only, so it stays usable
    assert "--array-delimiter=U+001F" in args and "--multiline-fields=true" in args
    nodes = {a.split("=")[1]: a.split("=", 2)[2] for a in args if a.startswith("--nodes=")}
    assert sorted(nodes) == ["9Numeric_Label", "Company", "Country", "Person", "Thing"]
    lines = Path(nodes["Thing"]).read_text(encoding="utf-8").split("\n")
    assert lines[0] == (
        '"eid:ID","name","aliases:string[]","description","provenance:string[]",'
        '"code:string","count:long","day:date","days:date[]","flag:boolean","nums:long[]",'
        '"score:double","tags:string[]","weights:double[]","kgbench-empty-lists:string[]"'
    )
    assert lines[1].startswith('"Thing#1","Quote ""q"", comma; semicolon","\x1fx","line one')
    thing2 = next(line for line in lines if line.startswith('"Thing#2"'))
    # [""] aliases and tags, [] nums and days: named in the last column; null description empty
    assert thing2.endswith(',"aliases=\x1fdays\x1fnums\x1ftags="')
    assert ',,"https://en.wikipedia.org/wiki/A,B\x1fhe said ""hi"""' in thing2
    rels = [a for a in args if a.startswith("--relationships=")]
    want = ["basedIn", "citizenOf", "foundedBy", "hasCEO", "linksTo", "linksTo", "subsidiaryOf"]
    assert [a.split("=")[1] for a in rels] == want


def read_files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_csv_from_path_dict_and_any_thread_count_are_identical(tmp_path: Path) -> None:
    """graph.json read natively and the dict's JSON text give the same bytes; the rows are
    formatted in parallel chunks, and 1 or 2 worker threads give the same bytes."""
    from kgbench._core import neo4j as core

    graph = edge_case_graph()
    # enough entities and relations for several parallel chunks per file
    for i in range(12_000):
        graph["entities"].append(
            {"eid": f"Thing#x{i}", "label": "Thing", "name": f"thing {i}", "aliases": [],
             "properties": {"score": i / 7, "tags": ["a", f"t{i}"], "count": i}}
        )  # fmt: skip
        graph["relations"].append(
            {"rid": f"x{i}", "label": "linksTo", "subj_id": f"Thing#x{i}",
             "obj_id": f"Thing#x{(i * 31) % 12_000}", "properties": {"note": f"n{i}"}}
        )  # fmt: skip
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(graph), encoding="utf-8")
    for id_type in ("string", "actual"):
        runs = {}
        for name, source, threads in [
            ("path1", str(path), 1),
            ("path2", str(path), 2),
            ("dict2", json.dumps(graph).encode(), 2),
        ]:
            out = tmp_path / f"{id_type}-{name}"
            check = core.write_import_csv(source, str(out), id_type=id_type, threads=threads)
            assert check.total == 0 and check.tool_args is not None
            runs[name] = read_files(out)
        assert runs["path1"] == runs["path2"] == runs["dict2"]
        assert sum(len(b) for b in runs["path1"].values()) > 1_000_000
    assert check.nodes_by_label["Thing"] == 12_003
    assert check.relationships_by_type == {
        "linksTo": 12_004, "basedIn": 4, "citizenOf": 2, "foundedBy": 4, "hasCEO": 5,
        "subsidiaryOf": 1,
    }  # fmt: skip


def test_actual_id_csv_files(tmp_path: Path) -> None:
    graph = edge_case_graph()
    args = write_import_csv(graph, tmp_path, id_type="actual")
    assert args[-1] == "--id-type=ACTUAL"
    nodes = {a.split("=")[1]: a.split("=", 2)[2] for a in args if a.startswith("--nodes=")}
    lines = Path(nodes["Thing"]).read_text(encoding="utf-8").split("\n")
    assert lines[0].startswith('":ID","eid","name","aliases:string[]",')
    index = {e["eid"]: i for i, e in enumerate(graph["entities"])}
    assert lines[1].startswith(f'{index["Thing#1"]},"Thing#1","Quote ""q""')
    rel_files = [a.split("=", 2)[2] for a in args if a.startswith("--relationships=linksTo=")]
    rows = "".join(Path(f).read_text(encoding="utf-8") for f in rel_files)
    assert f'\n{index["Thing#1"]},{index["Thing#2"]},"e1",' in rows
    with pytest.raises(ValueError, match="id_type"):
        write_import_csv(graph, tmp_path / "x", id_type="uuid")


def test_offline_import_reports_bad_json_file(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    path.write_text('{"schema": {}, "entities": [\n  {"eid": }\n]}', encoding="utf-8")
    with pytest.raises(InputError, match=r"graph.json: not JSON: line 2 column 11: expected value"):
        import_graph(path, tmp_path / "db")
    path.write_text('{"schema": {}, "entities": []}', encoding="utf-8")
    with pytest.raises(InputError, match="not a SimpleKG graph"):
        import_graph(path, tmp_path / "db")
    with pytest.raises(InputError, match="cannot read graph: No such file or directory"):
        import_graph(tmp_path / "missing.json", tmp_path / "db")
    assert not (tmp_path / "db").exists()


def test_offline_import_of_a_graph_without_entities_is_one_line(tmp_path: Path) -> None:
    """No node file for the import tool: one line before any JVM starts, nothing written."""
    graph = edge_case_graph()
    graph["entities"], graph["relations"] = [], []
    with pytest.raises(OfflineImportError, match="the graph has no entities") as err:
        import_graph(graph, tmp_path / "db")
    assert "\n" not in str(err.value)
    assert not (tmp_path / "db").exists()


def test_array_delimiter_avoids_list_elements(tmp_path: Path) -> None:
    graph = edge_case_graph()
    graph["entities"][0]["aliases"] = ["has \x1f unit separator", "and \x1e too"]
    assert "--array-delimiter=U+001D" in write_import_csv(graph, tmp_path)


def test_offline_import_refuses_invalid_graph_and_writes_nothing(tmp_path: Path) -> None:
    graph = edge_case_graph()
    graph["relations"][0]["obj_id"] = "Country#nope"
    data = tmp_path / "new"
    with pytest.raises(GraphValidationError, match="Country#nope"):
        import_graph(graph, data)
    assert not data.exists()


def test_offline_import_refuses_foreign_directory(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "neo4j.conf").write_text("", encoding="utf-8")
    with pytest.raises(OfflineImportError, match="not a data directory of kgbench's local Neo4j"):
        import_graph(edge_case_graph(), tmp_path)
    with pytest.raises(OfflineImportError, match="Neo4j installation"):
        import_graph(edge_case_graph(), tmp_path)
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(OfflineImportError, match="not a directory"):
        import_graph(edge_case_graph(), tmp_path / "file")


@pytest.mark.neo4j
def test_offline_import_refuses_running_server(neo4j_server: Any) -> None:
    # the session server runs on its data directory (and holds Neo4j's store lock)
    with pytest.raises(OfflineImportError, match="is in use: a Neo4j process holds"):
        import_graph(edge_case_graph(), neo4j_server.data_dir, wipe=True)


def test_load_cli_offline_refuses_foreign_directory(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "graph.json"
    path.write_text(json.dumps(edge_case_graph()), encoding="utf-8")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "something").write_text("x", encoding="utf-8")
    other = str(tmp_path / "other")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kgbench",
            "load",
            str(path),
            "--offline",
            "--data",
            other,
            "--wipe",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert "is not a data directory of kgbench's local Neo4j" in proc.stderr


@pytest.mark.neo4j
@pytest.mark.slow
def test_load_cli_offline(
    tmp_path: Path, mini_company_graph: Any, mini_company_count_lines: list[str]
) -> None:
    import subprocess
    import sys

    path = tmp_path / "graph.json"
    path.write_text(json.dumps(mini_company_graph), encoding="utf-8")
    data = tmp_path / "srv"
    cmd = [sys.executable, "-m", "kgbench", "load", str(path), "--offline", "--data", str(data)]
    proc = subprocess.run(
        [*cmd, "--heap", "512m", "--pagecache", "128m"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == mini_company_count_lines
    assert "counts verified" in proc.stderr
    # a server of its own: it serves the store the CLI's offline import just wrote
    with LocalNeo4j(data_dir=data, heap="512m", pagecache="128m") as server, server.driver() as d:
        records, _, _ = d.execute_query(
            "MATCH (p:Person {name: 'Werner von Siemens'}) RETURN p.aliases AS a, "
            "valueType(p.date_of_birth) AS t"
        )
    assert [(r["a"], r["t"]) for r in records] == [([], "DATE NOT NULL")]
    again = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert again.returncode == 1 and "pass wipe=True (--wipe)" in again.stderr


def _tiny_import_csv(tmp_path: Path) -> list[str]:
    """Import-tool arguments for two Things (one with an empty alias list) and one relationship."""
    nodes = tmp_path / "things.csv"
    nodes.write_text(
        '"eid:ID","name","aliases:string[]","kgbench-empty-lists:string[]"\n'
        '"Thing#1","One","a\x1fb",\n'
        '"Thing#2","Two",,"aliases"\n',
        encoding="utf-8",
    )
    rels = tmp_path / "links.csv"
    rels.write_text('":START_ID",":END_ID","rid"\n"Thing#1","Thing#2","r1"\n', encoding="utf-8")
    return [
        f"--nodes=Thing={nodes}",
        f"--relationships=linksTo={rels}",
        "--array-delimiter=U+001F",
        "--overwrite-destination=true",
        "--threads=2",
        "--max-off-heap-memory=128m",
        f"--report-file={tmp_path / 'import.report'}",
        "neo4j",
    ]


@pytest.mark.neo4j
def test_server_runs_import_tool_in_its_jvm(tmp_path: Path) -> None:
    """LocalNeo4j(import_args=...): the launcher imports, then serves the imported database;
    a restart on the directory does not import again."""
    data = tmp_path / "data"
    work = tmp_path / "work"
    work.mkdir()
    args = _tiny_import_csv(work)
    # a server of its own: the import runs in its JVM before it serves
    server = LocalNeo4j(
        data_dir=data, heap="512m", pagecache="64m", import_args=args, import_dir=work
    )
    with server, server.driver() as d:
        assert server.import_seconds is not None and server.import_seconds > 0
        recs = d.execute_query(
            "MATCH (a:Thing)-[r:linksTo]->(b:Thing) "
            "RETURN a.eid AS a, a.aliases AS al, b.eid AS b, b.aliases AS bl, r.rid AS rid"
        )[0]
        assert [dict(r) for r in recs] == [
            {"a": "Thing#1", "al": ["a", "b"], "b": "Thing#2", "bl": [], "rid": "r1"}
        ]
        d.execute_query("CREATE (:Thing {eid: 'Thing#3'})")
    assert server.import_args is None  # the import ran with the first start only
    log = (data / "kgbench-neo4j.log").read_text(encoding="utf-8")
    assert "IMPORT DONE" in log and "kgbench-neo4j imported " in log
    with server, server.driver() as d:
        count = d.execute_query("MATCH (n:Thing) RETURN count(n) AS c")[0][0]["c"]
    assert count == 3  # not re-imported: the node created after the import is still there


@pytest.mark.neo4j
def test_failed_import_tool_starts_no_server_and_leaves_no_database(tmp_path: Path) -> None:
    """A bad CSV: OfflineImportError with the import tool's own message, no server left running,
    no partial store left that could look like a database."""
    from kgbench.neo4j.offline import _import_and_start
    from kgbench.neo4j.server import ImportToolError

    data = tmp_path / "data"
    work = tmp_path / "work"
    work.mkdir()
    args = _tiny_import_csv(work)
    # a relationship to a node that does not exist: the import tool refuses (bad-tolerance 0)
    (work / "links.csv").write_text(
        '":START_ID",":END_ID","rid"\n"Thing#1","Thing#404","r1"\n', encoding="utf-8"
    )
    tool_args = [*args[:3], "--bad-tolerance=0"]
    with pytest.raises(
        OfflineImportError, match=r"(?s)import tool failed.*Error in input data"
    ) as info:
        _import_and_start(data, "neo4j", tool_args, work, "512m", "64m", 2)
    assert isinstance(info.value.__cause__, ImportToolError)
    assert not (data / "data" / "databases" / "neo4j").exists()
    assert not (data / "data" / "transactions" / "neo4j").exists()
    # the same through LocalNeo4j itself: ImportToolError, nothing running afterwards
    server = LocalNeo4j(
        data_dir=data,
        heap="512m",
        pagecache="64m",
        import_args=[*tool_args, f"--report-file={work / 'import.report'}", "neo4j"],
        import_dir=work,
    )
    with pytest.raises(ImportToolError, match="server was not started"):
        server.start()
    assert not server.running() and server.pid is None
