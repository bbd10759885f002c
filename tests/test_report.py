"""``kgbench report`` (:mod:`kgbench.report`) on real outputs of the real commands, made here
from the repository's test data: ``score``, ``iso``, ``noise``, ``generate synth``,
``evaluate --language sparql`` (no server), the committed ``generate pipe`` output
``tests/data/pipe/``, and two ``evaluate`` runs on the local Neo4j (the browser test).

The browser test opens the page in headless Chromium (Debian's ``chromium`` and
``chromium-driver``, installed by ``make setup``) through Selenium with the system
chromedriver (never a downloaded one): no console error, no network request but the page
itself, every chart drawn (Plotly's ``.main-svg`` and a non-blank screenshot), and the task
table sorts when a header is clicked.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import kgbench
from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.report import detect_kind, load_inputs, render_report, write_report

DATA = Path(__file__).parent / "data"
DEMO_DATA = Path(kgbench.__file__).parent / "demo" / "data"


def _run(*argv: str) -> None:
    assert main(list(argv)) == 0, argv


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Outputs of commands that need no server, made from the repository's test data."""
    root = tmp_path_factory.mktemp("report-inputs")
    out: dict[str, Path] = {"pipe": DATA / "pipe"}  # made by `kgbench generate pipe` (NOTICE)

    # iso: the GTSQA sample classified
    (root / "iso").mkdir()
    _run("iso", str(DATA / "iso" / "gtsqa_sample.jsonl"), "--out", str(root / "iso/typed.jsonl"))
    out["iso"] = root / "iso"

    # score: two models' results against the sample's answers, by GTSQA id (so the report can
    # break EX down by isomorphism type)
    sample = _lines(DATA / "iso" / "gtsqa_sample.jsonl")
    gold = [{"qid": r["id"], "columns": ["a"], "rows": [[r["answer_node"]]]} for r in sample]
    right = [{"qid": r["id"], "columns": ["a"], "rows": [[r["answer_node"]]]} for r in sample]
    model_x = [right[0], right[1], {**right[2], "rows": [["nobody"]]}, right[3]]  # 4th missing
    model_y = [right[0], {**right[1], "rows": None, "error": "CypherSyntaxError: ..."}, *right[2:]]
    inputs = root / "score-inputs"
    inputs.mkdir()
    _write_jsonl(inputs / "gold.jsonl", gold)
    (root / "score").mkdir()
    for name, preds in (("model_x", model_x), ("model_y", model_y)):
        _write_jsonl(inputs / f"{name}.jsonl", preds)
        _run(
            "score",
            "--gold",
            str(inputs / "gold.jsonl"),
            "--pred",
            str(inputs / f"{name}.jsonl"),
            "--out",
            str(root / "score" / f"{name}.jsonl"),
            "--metrics",
            "ex,ex_set",
        )
    out["score"] = root / "score"

    # noise on the small NBA graph
    _run("noise", str(DATA / "cypher" / "graph.json"), "--out", str(root / "noise"), "--seed", "3")
    out["noise"] = root / "noise"

    # SynthKGQA template items on the demo's WD50K sample
    _run(
        "generate",
        "synth",
        "--rdf",
        str(DEMO_DATA / "wd50k_sample.nt.gz"),
        "--out",
        str(root / "synth"),
        "--n",
        "20",
        "--seed",
        "1111",
        "--quiet",
    )
    out["synth"] = root / "synth"

    # text-to-SPARQL: Spider's concert_singer as RDF, gold SPARQL translated from the gold SQL
    spider = DATA / "spider"
    tables = str(spider / "concert_singer.tables.json")
    _run(
        "rdb",
        str(spider / "concert_singer.sqlite"),
        "--tables",
        tables,
        "--db-id",
        "concert_singer",
        "--out",
        str(root / "rdf" / "concert_singer"),
    )
    _run(
        "sql2sparql",
        "--tables",
        tables,
        "--db-id",
        "concert_singer",
        "--db",
        str(spider / "concert_singer.sqlite"),
        "--questions",
        str(spider / "concert_singer.dev.json"),
        "--out",
        str(root / "translated.jsonl"),
    )
    translated = _lines(root / "translated.jsonl")
    ok = [r for r in translated if r["status"] == "ok"][:12]
    tasks = [
        {
            "qid": str(r["qid"]),
            "graph": r["db_id"],
            "nl_question": r["question"],
            "gold_sparql": r["sparql"],
            "gold_sql": r["sql"],
        }
        for r in ok
    ]
    preds = []
    for i, r in enumerate(ok):  # right, another question's query, broken, missing
        query = [r["sparql"], ok[(i + 3) % len(ok)]["sparql"], "SELECT WHERE {", None][i % 4]
        if query is not None:
            preds.append({"qid": str(r["qid"]), "pred_sparql": query})
    (root / "s4s-tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    _write_jsonl(root / "s4s-preds.jsonl", preds)
    _run(
        "evaluate",
        "--language",
        "sparql",
        "--tasks",
        str(root / "s4s-tasks.json"),
        "--predictions",
        str(root / "s4s-preds.jsonl"),
        "--rdf-dir",
        str(root / "rdf"),
        "--out",
        str(root / "sparql"),
    )
    out["sparql"] = root / "sparql"
    return out


def _charts(text: str) -> list[dict[str, Any]]:
    """The chart specifications embedded in a report page."""
    found = re.search(
        r'<script type="application/json" id="kgbench-charts">(.*?)</script>', text, re.S
    )
    assert found is not None
    charts: list[dict[str, Any]] = json.loads(found.group(1))
    return charts


def _chart(charts: list[dict[str, Any]], title: str) -> dict[str, Any]:
    for chart in charts:
        if chart["figure"]["layout"]["title"]["text"] == title:
            return chart["figure"]
    raise AssertionError(
        f"no chart {title!r} in {[c['figure']['layout']['title'] for c in charts]}"
    )


def _bars(figure: dict[str, Any], name: str, axis: str = "y") -> dict[str, float]:
    """``{category: value}`` of the bars of run ``name`` on the subplot of y axis ``axis``."""
    for trace in figure["data"]:
        if trace["name"] == name and trace.get("yaxis", "y") == axis:
            return dict(zip(trace["x"], trace["y"], strict=True))
    raise AssertionError(f"no trace {name!r} on {axis}")


# --------------------------------------------------------------------------------------------
# without a browser


def test_kinds_are_detected_from_the_files(offline: dict[str, Path], tmp_path: Path) -> None:
    assert detect_kind(offline["score"]) == "score"
    assert detect_kind(offline["score"] / "model_x.jsonl") == "score"
    assert detect_kind(offline["iso"]) == "iso"
    assert detect_kind(offline["noise"]) == "noise"
    assert detect_kind(offline["synth"]) == "generate-synth"
    assert detect_kind(offline["pipe"]) == "generate-pipe"
    assert detect_kind(offline["sparql"]) == "evaluate-sparql"
    # a directory of nothing known: one line naming it and what was expected
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "notes.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(InputError) as info:
        detect_kind(tmp_path / "odd")
    message = str(info.value)
    assert message.startswith(f"{tmp_path / 'odd'}: not a kgbench output directory")
    assert "notes.txt" in message and "\n" not in message
    with pytest.raises(InputError, match="no such file or directory"):
        detect_kind(tmp_path / "missing")
    with pytest.raises(InputError, match="JSON Lines output of score or iso"):
        detect_kind(tmp_path / "odd" / "notes.txt")


def test_bad_files_are_named(offline: dict[str, Path], tmp_path: Path) -> None:
    broken = tmp_path / "sparql"
    shutil.copytree(offline["sparql"], broken)
    (broken / "result_with_metrics.json").write_text("[{", encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(str(broken / "result_with_metrics.json"))):
        load_inputs([broken])
    (broken / "result_with_metrics.json").write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(InputError, match="expected a JSON array of task records"):
        load_inputs([broken])
    with pytest.raises(InputError, match="no output directory given"):
        load_inputs([])


def test_report_numbers_match_the_outputs(offline: dict[str, Path]) -> None:
    dirs = [offline[k] for k in ("score", "sparql", "iso", "noise", "synth", "pipe")]
    text, inputs = render_report(dirs, title="offline <report>")
    assert [r.label for r in inputs.runs] == ["model_x", "model_y", "sparql"]
    # self-contained: no script from elsewhere, every src / href outside the scripts a data: URL
    # or an anchor, and a Content-Security-Policy forbidding requests
    assert not re.search(r"<script[^>]*\ssrc=", text)
    outside = re.sub(r"<script\b[^>]*>.*?</script>", "", text, flags=re.S)
    targets = re.findall(r"""\s(?:src|href)\s*=\s*["']([^"']*)""", outside)
    assert targets and all(t.startswith(("data:", "#")) for t in targets), targets
    assert "default-src 'none'" in text and "plotly.js v" in text
    assert "<title>offline &lt;report&gt;</title>" in text
    charts = _charts(text)
    assert len(charts) == text.count('<div class="chart" id="chart-')
    # overall: the score files' means, the SPARQL run's aggregated_metrics.json
    overall = _bars(_chart(charts, "Overall metrics (higher is better)"), "sparql")
    agg = json.loads((offline["sparql"] / "aggregated_metrics.json").read_text(encoding="utf-8"))
    assert overall == {
        "EX": agg["overall"]["execution_accuracy"],
        "Exec": agg["overall"]["executable"],
    }
    scores = _lines(offline["score"] / "model_x.jsonl")
    model_x = _bars(_chart(charts, "Overall metrics (higher is better)"), "model_x")
    assert model_x["EX"] == round(sum(s["ex"] for s in scores) / len(scores), 4)
    # by hardness: the aggregated by_hardness, in Spider's order
    hardness = _bars(_chart(charts, "By hardness"), "sparql")
    assert hardness == agg["by_hardness"]
    assert list(hardness) == [h for h in ("easy", "medium", "hard", "extra") if h in hardness]
    # by isomorphism type: the score lines joined to the iso records by GTSQA id
    iso = _lines(offline["iso"] / "typed.jsonl")
    kind_of = {str(r["id"]): r["graph_isomorphism"] for r in iso}
    by_type: dict[str, list[float]] = {}
    for s in scores:
        if kind_of[s["qid"]] is not None:  # null: not a valid answer tree, no type
            by_type.setdefault(kind_of[s["qid"]], []).append(s["ex"])
    expected = {k: round(sum(v) / len(v), 4) for k, v in by_type.items()}
    assert _bars(_chart(charts, "By isomorphism type"), "model_x") == expected
    # error classes of the score runs, with their examples
    errors = _chart(charts, "Tasks per error class")
    assert _bars(errors, "model_x") == {"missing": 1}
    assert _bars(errors, "model_y") == {"pred_error": 1}
    # generation: the pipe funnel and the synth rejections, from their report.json
    pipe = json.loads((offline["pipe"] / "report.json").read_text(encoding="utf-8"))
    funnel = _chart(charts, "Funnel: gate funnel")["data"][0]
    assert funnel["x"][:2] == [pipe["funnel"]["candidates"], pipe["funnel"]["accepted"]]
    synth = json.loads((offline["synth"] / "report.json").read_text(encoding="utf-8"))
    assert "Balance: items per isomorphism type" in [
        c["figure"]["layout"]["title"]["text"] for c in charts
    ]
    assert synth["items"] == 20
    # noise: changed counts per type from the log
    log = json.loads((offline["noise"] / "noise_log.json").read_text(encoding="utf-8"))
    changed = _bars(_chart(charts, "Targets and changes per noise type"), "changed")
    assert sum(changed.values()) == sum(
        len(p["records"]) for p in log["summary"]["perturbation_logs"]
    )
    # the two score runs compared: model_y gets q2 wrong where model_x is right, and so on
    assert 'id="diff-table"' in text and "Tasks with different verdicts (3)" in text
    # ... and only they: the SPARQL run is of another family and shares no task with them
    assert "runs of different families, or with no task in common, are never paired" in text
    diff = _chart(charts, "Overall difference against model_x")
    assert [t["name"] for t in diff["data"]] == ["model_y − model_x"]
    assert 'id="diff-table-2"' not in text
    assert not any("against sparql" in c["figure"]["layout"]["title"]["text"] for c in charts)


def test_runs_are_compared_within_their_family(offline: dict[str, Path], tmp_path: Path) -> None:
    """Two score runs and two SPARQL runs over the same tasks: two comparisons, each within its
    family (the SPARQL runs are never set against the score runs, nor these against them)."""
    from kgbench.report.inputs import run_family
    from kgbench.report.render import comparable_groups

    other = tmp_path / "sparql_b"
    shutil.copytree(offline["sparql"], other)
    text, inputs = render_report([offline["score"], offline["sparql"], other])
    groups = comparable_groups(inputs.runs)
    assert [[r.label for r in g] for g in groups] == [
        ["model_x", "model_y"],
        ["sparql", "sparql_b"],
    ]
    assert [run_family(g[0]) for g in groups] == ["score", "spider4sparql"]
    assert "<h3>score</h3>" in text and "<h3>spider4sparql</h3>" in text
    assert 'id="diff-table"' in text and 'id="diff-table-2"' not in text  # the copies agree
    assert "The runs agree on every common task." in text
    titles = [c["figure"]["layout"]["title"]["text"] for c in _charts(text)]
    assert "Overall difference against model_x" in titles
    assert "Overall difference against sparql" in titles
    # a lone run of a family, or one with no common task, is not compared
    assert comparable_groups([inputs.runs[0], inputs.runs[2]]) == []


def test_gtsqa_and_text2cypher_evaluations(tmp_path: Path) -> None:
    """`kgbench evaluate --family gtsqa` and `--family text2cypher` outputs: detected, their
    metrics overall as the files give them, one row per task with its metrics and verdict."""
    items = [
        r for r in _lines(DATA / "synth" / "items.jsonl") if len(r["all_answers_wikidata"]) > 1
    ][:4]
    tasks = _write_jsonl(tmp_path / "items.jsonl", items)
    exact, partial, failed = items[0], items[1], items[2]  # items[3]: no prediction
    preds = [
        {
            "id": exact["id"],
            "pred_sparql": "SELECT ...",
            "pred_answers": exact["all_answers_wikidata"],
            "retrieved_triples": exact["full_answer_subgraph_wikidata"],
        },
        {
            "id": partial["id"],
            "pred_sparql": "SELECT ...",
            "pred_answers": partial["all_answers_wikidata"][:1],
            "retrieved_triples": partial["full_answer_subgraph_wikidata"][:1],
        },
        {"id": failed["id"], "pred_answers": [], "retrieved_triples": [], "error": "bad query"},
    ]
    _run(
        "evaluate",
        "--family",
        "gtsqa",
        "--tasks",
        str(tasks),
        "--predictions",
        str(_write_jsonl(tmp_path / "preds.jsonl", preds)),
        "--out",
        str(tmp_path / "gtsqa"),
    )
    records = [
        {
            "question": "q0",
            "schema": "s",
            "cypher": "MATCH (n) RETURN n",
            "pred_cypher": "MATCH (n) RETURN n",
        },
        {
            "question": "q1",
            "schema": "s",
            "cypher": "MATCH (n) RETURN n.a",
            "pred_cypher": "MATCH (m) RETURN m",
        },
        {"question": "q2", "schema": "s", "cypher": "MATCH (n) RETURN count(n)"},
    ]
    t2c = _write_jsonl(tmp_path / "t2c.jsonl", records)
    _run("evaluate", "--family", "text2cypher", "--tasks", str(t2c), "--out", str(tmp_path / "t2c"))
    assert detect_kind(tmp_path / "gtsqa") == "evaluate-gtsqa"
    assert detect_kind(tmp_path / "t2c") == "evaluate-text2cypher"
    text, inputs = render_report([tmp_path / "gtsqa", tmp_path / "t2c"])
    g, t = inputs.runs
    agg = json.loads((tmp_path / "gtsqa" / "aggregated_metrics.json").read_text())
    for key, value in agg["overall"].items():
        assert g.overall[key] == pytest.approx(value), key
    assert [r.qid for r in g.rows] == [str(i["id"]) for i in items]
    assert [r.verdict for r in g.rows] == ["correct", "partial", "query error", "missing"]
    assert g.rows[0].metrics["triple_f1"] == 1.0 and g.rows[1].metrics["hits"] == 1.0
    assert g.rows[1].metrics["recall"] < 1.0 and g.rows[2].error == "bad query"
    assert g.error_classes == {"missing": 1, "query error": 1}
    agg = json.loads((tmp_path / "t2c" / "aggregated_metrics.json").read_text())
    assert t.overall == agg["overall"] and [m.label for m in t.metrics] == [
        "Google-BLEU",
        "Exact match",
    ]
    assert [r.verdict for r in t.rows] == ["correct", "partial", "missing"]
    assert t.rows[1].metrics["exact_match"] == 0.0 and 0 < t.rows[1].metrics["google_bleu"] < 1
    # the page: both runs' aggregate and per-task tables with the families' metric labels
    for label in ("Triple F1", "Answer-node recall", "Google-BLEU", "Exact match"):
        assert f">{label}<" in text, label
    for row in [*g.rows, *t.rows]:
        assert f">{_html_escape(row.qid)}<" in text
    overall = _chart(_charts(text), "Overall metrics (higher is better)")
    assert _bars(overall, "gtsqa")["Hits"] == pytest.approx(agg_hits(tmp_path))
    assert "# triples" not in _bars(overall, "gtsqa")  # a count, in the table only


def agg_hits(tmp_path: Path) -> float:
    agg = json.loads((tmp_path / "gtsqa" / "aggregated_metrics.json").read_text())
    return float(agg["overall"]["hits"])


def _html_escape(text: str) -> str:
    import html

    return html.escape(text)


def test_same_inputs_same_bytes_and_the_cli(
    offline: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dirs = [offline["score"], offline["pipe"]]
    first = write_report(dirs, tmp_path / "a" / "report.html")
    assert first == tmp_path / "a" / "report.html"
    assert main(["report", *map(str, dirs), "--out", str(tmp_path / "b.html")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "b.html")
    assert first.read_bytes() == (tmp_path / "b.html").read_bytes()
    # an unknown directory: exit 1, one line naming it
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty"), "--out", str(tmp_path / "c.html")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"kgbench report: error: {tmp_path / 'empty'}: not a kgbench output")
    assert "\n" not in err and not (tmp_path / "c.html").exists()


# --------------------------------------------------------------------------------------------
# in a real browser


def _browser() -> tuple[str, str]:
    """Chromium's and chromedriver's paths; skips only where they cannot be installed (no
    apt-get, or not root and no passwordless sudo), and never under CI."""
    chrome = next(
        (
            found
            for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
            if (found := shutil.which(name))
        ),
        None,
    )
    driver = shutil.which("chromedriver")
    if chrome and driver:
        return chrome, driver
    reason = "Chromium and ChromeDriver are not installed"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI runs the browser test: `make setup` installs them (apt-get)")
    can_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if not can_root and shutil.which("sudo"):
        can_root = subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0
    if shutil.which("apt-get") and can_root:
        pytest.fail(f"{reason}; run `make setup` (apt-get install chromium chromium-driver)")
    pytest.skip(f"{reason} and cannot be installed here (no apt-get, or no root / sudo)")


@pytest.fixture(scope="module")
def evaluated(
    neo4j_driver: Any, neo4j_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """Two ``kgbench evaluate`` runs (models) on the NBA test graph."""
    from conftest import load_graph_fresh

    load_graph_fresh(neo4j_driver, DATA / "cypher" / "graph.json")
    root = tmp_path_factory.mktemp("report-evaluate")
    tasks = json.loads((DATA / "cypher" / "tasks.json").read_text(encoding="utf-8"))
    # model_b: the gold query for the first four tasks, model_a's prediction for the others
    model_a = _lines(DATA / "cypher" / "predictions.jsonl")
    by_qid = {p["qid"]: p["pred_cypher"] for p in model_a}
    model_b = [
        {"qid": t["qid"], "pred_cypher": t["gold_cypher"] if i < 4 else by_qid.get(t["qid"])}
        for i, t in enumerate(tasks)
    ]
    _write_jsonl(root / "model_b.jsonl", model_b)
    out = {}
    for name, preds in (
        ("model_a", DATA / "cypher" / "predictions.jsonl"),
        ("model_b", root / "model_b.jsonl"),
    ):
        _run(
            "evaluate",
            "--tasks",
            str(DATA / "cypher" / "tasks.json"),
            "--predictions",
            str(preds),
            "--uri",
            neo4j_server.uri,
            "--out",
            str(root / name),
            "--workers",
            "2",
        )
        out[name] = root / name
    return out


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A headless Chromium driven by Selenium with the system chromedriver."""
    chrome, driver_path = _browser()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("selenium is not installed (`make setup` installs the dev extras)")
    import tempfile

    options = webdriver.ChromeOptions()
    options.binary_location = chrome
    profile = tempfile.mkdtemp(prefix="kgbench-chromium-")
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class _Server:
    """Serves one directory on 127.0.0.1 and records every requested path."""

    def __init__(self, directory: Path) -> None:
        self.requests: list[str] = []
        requests = self.requests

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                requests.append(self.path)

        handler = functools.partial(Handler, directory=str(directory))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _png_is_drawn(png: bytes) -> tuple[int, float]:
    """Distinct colours and the share of non-white pixels of a screenshot."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20) or []
    white = sum(n for n, rgb in colours if min(rgb) >= 250)
    total = image.width * image.height
    return len(colours), 1 - white / total


@pytest.mark.neo4j
def test_report_in_headless_chromium(
    offline: dict[str, Path], evaluated: dict[str, Path], chromium: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    dirs = [evaluated["model_a"], evaluated["model_b"]]
    dirs += [offline[k] for k in ("score", "sparql", "iso", "noise", "synth", "pipe")]
    page = write_report(dirs, tmp_path / "site" / "report.html", title="kgbench report test")
    text = page.read_text(encoding="utf-8")
    charts = _charts(text)
    # EX by MATCH category of model_a = its aggregated_metrics.json by_match
    agg = json.loads((evaluated["model_a"] / "aggregated_metrics.json").read_text("utf-8"))
    assert _bars(_chart(charts, "By MATCH category"), "model_a") == agg["by_match"]
    assert _bars(_chart(charts, "By RETURN template"), "model_a") == agg["by_return"]
    assert _bars(_chart(charts, "By graph"), "model_a") == agg["by_graph"]

    server = _Server(page.parent)
    try:
        chromium.get_log("performance")  # drop what the browser did before
        chromium.get_log("browser")
        url = f"http://127.0.0.1:{server.port}/report.html"
        chromium.get(url)
        WebDriverWait(chromium, 60).until(
            lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-charts-rendered")
        )
        rendered = chromium.find_element(By.TAG_NAME, "body").get_attribute("data-charts-rendered")
        assert rendered == str(len(charts))

        # every chart drawn: Plotly's SVG in each chart div, and pixels on its screenshot
        divs = chromium.find_elements(By.CSS_SELECTOR, "div.chart")
        assert len(divs) == len(charts) >= 15
        for div in divs:
            assert div.find_elements(By.CSS_SELECTOR, ".main-svg"), div.get_attribute("id")
            assert div.find_elements(By.CSS_SELECTOR, ".trace"), div.get_attribute("id")
            colours, inked = _png_is_drawn(div.screenshot_as_png)
            assert colours >= 4 and inked > 0.01, (div.get_attribute("id"), colours, inked)
        colours, inked = _png_is_drawn(chromium.get_screenshot_as_png())
        assert colours >= 4 and inked > 0.01

        # the sortable task table: numeric and text columns, both directions
        table = chromium.find_element(By.ID, "tasks-table")
        heads = [th.text.strip(" ↕↑↓") for th in table.find_elements(By.CSS_SELECTOR, "thead th")]

        def column(name: str) -> list[str]:
            col = heads.index(name)
            rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
            return [r.find_elements(By.TAG_NAME, "td")[col].text for r in rows]

        ex_head = table.find_elements(By.CSS_SELECTOR, "thead th")[heads.index("EX")]
        before = column("EX")
        ex_head.click()
        values = [float(v) for v in column("EX") if v]
        assert values == sorted(values) and len(values) == len([v for v in before if v])
        assert column("EX")[-1] == "" or all(column("EX"))  # tasks without EX last
        ex_head.click()
        values = [float(v) for v in column("EX") if v]
        assert values == sorted(values, reverse=True)
        assert ex_head.get_attribute("aria-sort") == "descending"

        def natural(s: str) -> list[Any]:
            return [int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", s)]

        qid_head = table.find_elements(By.CSS_SELECTOR, "thead th")[heads.index("qid")]
        qid_head.click()
        qids = column("qid")
        assert qids == sorted(qids, key=natural) and qids != before
        # the filter box
        box = chromium.find_element(By.CSS_SELECTOR, "input[data-filter=tasks-table]")
        box.send_keys("model_b")
        shown = chromium.find_element(By.ID, "tasks-count").text
        assert int(shown) == len(json.loads((DATA / "cypher" / "tasks.json").read_text("utf-8")))

        # no console error; nothing requested but the page
        logs = chromium.get_log("browser")
        assert not [e for e in logs if e["level"] == "SEVERE"], logs
        requested = set()
        for entry in chromium.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                requested.add(message["params"]["request"]["url"])
        remote = {u for u in requested if re.match(r"(https?|wss?|ftp):", u)}
        assert remote == {url}, requested
        assert server.requests == ["/report.html"]
    finally:
        server.close()


@pytest.mark.neo4j
def test_report_lists_cypher_tasks_with_ex_1_and_ts_ex_0(
    neo4j_server: Any, neo4j_load: Any, tmp_path: Path
) -> None:
    """A Cypher run with ``--test-suite``: the HTML report shows TS-EX beside EX and lists the
    task whose prediction coincides with the gold on the graph (empty against empty) with the
    neighbour graph (delta) that separated it, as it does for SPARQL; an equivalent rewrite
    is not listed."""
    graph = DATA / "graphs" / "mini_company.json"
    neo4j_load(graph)
    tasks = [
        {
            "qid": "nobody",
            "graph": "mini_company",
            "gold_cypher": "MATCH (c:Company {name: 'Nobody'})-[:foundedBy]->(p:Person) "
            "RETURN p.name",
        },
        {
            "qid": "google",
            "graph": "mini_company",
            "gold_cypher": "MATCH (c:Company {name: 'Google'})-[:foundedBy]->(p:Person) "
            "RETURN p.name",
        },
    ]
    (tmp_path / "tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    preds = [
        {
            "qid": "nobody",
            "pred_cypher": "MATCH (c:Company {name: 'Nobody'})<-[:foundedBy]-(p:Person) "
            "RETURN p.name",
        },
        {
            "qid": "google",
            "pred_cypher": "MATCH (p:Person)<-[:foundedBy]-(x:Company) WHERE x.name = 'Google' "
            "RETURN p.name",
        },
    ]
    _write_jsonl(tmp_path / "preds.jsonl", preds)
    out = tmp_path / "run"
    _run(
        "evaluate", "--tasks", str(tmp_path / "tasks.json"),
        "--predictions", str(tmp_path / "preds.jsonl"), "--uri", neo4j_server.uri,
        "--metrics", "ex", "--test-suite", "4", "--suite-graph", str(graph), "--out", str(out),
    )  # fmt: skip
    agg = json.loads((out / "aggregated_metrics.json").read_text(encoding="utf-8"))
    (listed,) = agg["test_suite"]["ex_not_ts_tasks"]
    assert listed["qid"] == "nobody"
    sep = listed["separated_by"]
    text, inputs = render_report([out], title="cypher test suite")
    (run,) = inputs.runs
    assert run.kind == "evaluate (CypherBench)"
    assert [m.label for m in run.metrics][:2] == ["EX", "TS-EX"]
    assert run.overall["ts_execution_accuracy"] == agg["ts_execution_accuracy"] == 0.5
    assert {r.qid: r.metrics["ts_execution_accuracy"] for r in run.rows} == {
        "nobody": 0.0,
        "google": 1.0,
    }
    (note,) = [n for n in run.notes if "EX 1 but TS-EX 0" in n]
    assert note.startswith("1 task(s) with EX 1 but TS-EX 0")
    assert f"mini_company/nobody (by {sep['id']}, {sep['kind']}: {sep['description']})" in note
    assert "google" not in note and "'Nobody'" in sep["description"]
    # the same line in the HTML (escaped)
    import html

    assert html.escape(note) in text or html.escape(note, quote=False) in text
