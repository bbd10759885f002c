"""Orchestration of ``kgbench demo``: ten stages and the HTML report.

The stages are the public APIs of the other subpackages, run in order on the
files shipped in ``kgbench/demo/data`` (see the NOTICE there for where the
data comes from; Wikidata content is CC0), each printing one figure:

1. :func:`kgbench.convert.convert` with the demo schema (SPEC.md §1) → the
   property graph (SPEC.md §2) and the conversion report, written to
   ``<out>/graph/``;
2. a local Neo4j started with :class:`kgbench.neo4j.LocalNeo4j` (data under
   ``<out>/neo4j/``), unless the caller passes the URI of a running server;
3. :func:`kgbench.neo4j.load_graph` (the database is replaced);
4. the text-to-Cypher evaluation of the shipped predictions (EX, PSJS, Exec;
   SPEC.md §3–§4), written to ``<out>/evaluation/`` as
   ``result_with_metrics.json`` and ``aggregated_metrics.json``;
5. task generation on the loaded graph (:func:`kgbench.generate.generate_cypherbench` with
   CypherBench's templates and relation traits drafted from the graph by
   :func:`kgbench.generate.draft_traits`), written to ``<out>/generation/``;
6. PIPE-Cypher's governed construction on the same graph
   (:func:`kgbench.generate.pipe.pipeline.generate_pipe`, offline, seed 13): gates G1-G11,
   the ledger, the diversity selection and the export, written to ``<out>/pipe/``; the
   summary prints its gate funnel;
7. SynthKGQA's template items from the shipped WD50K sample
   (:func:`kgbench.generate.synth.cli.generate_synth`, SPARQL on an embedded store, seed
   1111), written to ``<out>/synth/``;
8. Spider's concert_singer database as RDF and as a property graph
   (:func:`kgbench.rdb.convert.convert_rdb`, ``<out>/spider/``) and one Spider question in
   SQL, SPARQL and Cypher, each run on its own store (the property graph replaces the
   database);
9. NGDBench on the concert_singer property graph of stage 8 (31 nodes, 26 edges of 3
   types, so every edge perturbation has edges to work on): the default noise
   (:func:`kgbench.noise.inject_noise`, ``<out>/ngdbench/noisy/``), the noisy graph loaded
   into the server, tasks around the noise
   (:func:`kgbench.generate.ngdbench.build.generate_ngdbench`, gold answers on the clean
   graph in a disposable database, ``<out>/ngdbench/tasks/``) and the oracle row scored
   (``<out>/ngdbench/evaluation/``);
10. GPT-3.5's published zero-shot Spider4SPARQL run on concert_singer replayed offline
    (:func:`replay_published_run`: ``kgbench predict --replay-only`` and ``kgbench evaluate
    --language sparql``), written to ``<out>/predict/``, and beside it a short agent run
    (:func:`replay_agent_run`: ``kgbench predict --agent --replay-only`` of a scripted
    model's shipped cache on the first questions, EX by turns), in ``<out>/predict/agent/``.

Then :func:`kgbench.report.write_report` writes ``<out>/report.html`` from the outputs of
stages 4-7, 9 and 10 (the scored runs, the four generations and the noise).

The server the demo started is stopped on the way out, also on failure.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import KgbenchError

#: Directory of the shipped demo data.
DATA_DIR = Path(__file__).resolve().parent / "data"

#: Metric names of the aggregated metrics, in table order, with their column titles.
METRIC_COLUMNS: tuple[tuple[str, str], ...] = (
    ("execution_accuracy", "EX"),
    ("psjs", "PSJS"),
    ("executable", "Exec"),
)


@dataclass(frozen=True)
class DemoFiles:
    """Paths of the shipped demo files (all under ``kgbench/demo/data``)."""

    schema: Path
    """Conversion schema, CypherBench WDNeo4jSchema JSON (SPEC.md §1)."""
    inputs: tuple[Path, ...]
    """Wikidata RDF: two Special:EntityData Turtle files and one N-Triples file."""
    tasks: Path
    """Tasks, CypherBench Nl2CypherSample JSON list (SPEC.md §3), without predictions."""
    predictions: Path
    """The same records with ``pred_cypher`` filled."""
    expected_metrics: Path
    """Hand-computed metrics of ``predictions`` (per task, with the reasoning, and aggregated)."""
    notice: Path
    """Where the data comes from and its licence."""
    synth_sample: Path
    """A connected WD50K region (gzipped N-Triples) for the SynthKGQA step."""
    spider_db: Path
    """Spider's concert_singer database (SQLite) for the relational step."""
    spider_tables: Path
    """Its Spider ``tables.json`` entry."""
    s4s_published: Path
    """GPT-3.5's published zero-shot Spider4SPARQL records of concert_singer (45)."""
    s4s_gold: Path
    """The published Spider4SPARQL gold pairs of the same 45 questions."""


def demo_files(data_dir: Path | None = None) -> DemoFiles:
    """Return the paths of the shipped demo files.

    Raises :class:`kgbench.errors.KgbenchError` if one is missing (a broken
    installation).
    """
    d = Path(data_dir) if data_dir is not None else DATA_DIR
    files = DemoFiles(
        schema=d / "wikidata_demo.wd2neo4j.json",
        inputs=(d / "Q42.ttl", d / "Q24628793.ttl", d / "triples-2022-05.nt"),
        tasks=d / "tasks.json",
        predictions=d / "predictions.json",
        expected_metrics=d / "expected_metrics.json",
        notice=d / "NOTICE",
        synth_sample=d / "wd50k_sample.nt.gz",
        spider_db=d / "concert_singer.sqlite",
        spider_tables=d / "concert_singer.tables.json",
        s4s_published=d / "s4s_concert_singer_gpt35_zero_shot.json",
        s4s_gold=d / "s4s_concert_singer_dev.json",
    )
    for path in (
        files.schema,
        *files.inputs,
        files.tasks,
        files.predictions,
        files.notice,
        files.synth_sample,
        files.spider_db,
        files.spider_tables,
        files.s4s_published,
        files.s4s_gold,
    ):
        if not path.is_file():
            raise KgbenchError(f"demo data file missing: {path} (reinstall kgbench)")
    return files


@dataclass
class DemoResult:
    """What one demo run produced (all paths are absolute)."""

    out_dir: Path
    graph_path: Path
    report_path: Path
    uri: str
    started_server: bool
    graph_counts: dict[str, Any]
    """Entities and relations, in total and per label (from the graph JSON)."""
    report: dict[str, Any]
    """The conversion report as the converter wrote it (``report.json``)."""
    load: Any
    """The loader's :class:`kgbench.neo4j.LoadReport` (counts verified in the database)."""
    records: list[dict[str, Any]]
    """Scored task records (``result_with_metrics.json``), in task order."""
    aggregated: dict[str, Any]
    """``aggregated_metrics.json`` as CypherBench writes it: ``overall`` (every metric),
    ``by_graph`` / ``by_match`` / ``by_return`` (execution accuracy per group)."""
    evaluation_dir: Path
    outputs: dict[str, Path] = field(default_factory=dict)
    generation: dict[str, Any] | None = None
    """The task generator's ``report.json`` (counts per MATCH category and RETURN template)."""
    pipe: dict[str, Any] | None = None
    """PIPE-Cypher's ``report.json`` (gate funnel, counts per category, selection, export)."""
    synth: dict[str, Any] | None = None
    """SynthKGQA's ``report.json`` (items, rejections, isomorphism types, timings)."""
    spider: dict[str, Any] | None = None
    """The relational step: the conversion report, the question, its SQL, SPARQL and
    Cypher, and each one's result rows."""
    replay: dict[str, Any] | None = None
    """The model-run step: GPT-3.5's published zero-shot run replayed offline
    (:func:`replay_published_run`)."""
    agent: dict[str, Any] | None = None
    """The agent run beside it: a scripted model's conversations replayed offline
    (:func:`replay_agent_run`)."""
    ngdbench: dict[str, Any] | None = None
    """The NGDBench step: ``noise`` (the noise report), ``generation`` (the generation
    report) and ``aggregated`` (the oracle evaluation's aggregated metrics)."""


def _graph_counts(graph: Mapping[str, Any]) -> dict[str, Any]:
    entities = Counter(str(e["label"]) for e in graph.get("entities", []))
    relations = Counter(str(r["label"]) for r in graph.get("relations", []))
    return {
        "entities": sum(entities.values()),
        "relations": sum(relations.values()),
        "entities_by_label": dict(sorted(entities.items())),
        "relations_by_label": dict(sorted(relations.items())),
    }


def run_demo(
    out_dir: Path | str = "demo-out",
    uri: str | None = None,
    *,
    user: str | None = None,
    password: str | None = None,
    log: Callable[[str], None] | None = None,
    data_dir: Path | None = None,
) -> DemoResult:
    """Run the demo; return its :class:`DemoResult`.

    ``out_dir`` receives ``graph/graph.json``, ``graph/report.json``,
    ``evaluation/result_with_metrics.json`` and
    ``evaluation/aggregated_metrics.json`` (and ``neo4j/``, the database of
    the local server, when no ``uri`` is given). ``uri``: a running Neo4j
    (``bolt://host:port`` / ``neo4j://...``) to use instead of starting the
    local one — its database is wiped and replaced by the demo graph.
    ``user`` / ``password`` authenticate to it (none: no authentication).
    ``log`` receives one progress line per stage.

    Raises :class:`kgbench.errors.KgbenchError` (or a subclass) when a stage
    fails; the local server is stopped in every case.
    """
    from kgbench.convert import convert
    from kgbench.families import EvaluateOptions, get
    from kgbench.neo4j import LocalNeo4j, load_graph

    say = log or (lambda _msg: None)
    files = demo_files(data_dir)
    out = Path(out_dir).resolve()
    graph_dir = out / "graph"
    eval_dir = out / "evaluation"
    for d in (graph_dir, eval_dir):
        d.mkdir(parents=True, exist_ok=True)

    clock = time.perf_counter()

    def done() -> str:
        nonlocal clock
        now = time.perf_counter()
        elapsed, clock = now - clock, now
        return f" ({elapsed:.1f} s)"

    say(f"[1/10] convert: {len(files.inputs)} Wikidata RDF files with schema {files.schema.name}")
    graph, report = convert(str(files.schema), [str(p) for p in files.inputs], str(graph_dir))
    graph_path, report_path = graph_dir / "graph.json", graph_dir / "report.json"
    graph_dict = graph if isinstance(graph, Mapping) else json.loads(graph_path.read_text("utf-8"))
    report_dict = (
        dict(report)
        if isinstance(report, Mapping)
        else json.loads(report_path.read_text("utf-8"))
        if report_path.is_file()
        else {}
    )
    counts = _graph_counts(graph_dict)
    say(f"      {counts['entities']} entities, {counts['relations']} relations{done()}")

    with ExitStack() as stack:
        # The driver logs every server notification (e.g. "label Movie does not exist" for a
        # wrong prediction) as a warning; they are expected here and would bury the summary.
        notifications = logging.getLogger("neo4j.notifications")
        stack.callback(notifications.setLevel, notifications.level)
        notifications.setLevel(logging.ERROR)
        started = uri is None
        if uri is None:
            say("[2/10] neo4j: starting the local Neo4j server")
            server = stack.enter_context(LocalNeo4j(data_dir=out / "neo4j"))
            uri = str(server.uri)
            say(f"      ready at {uri}{done()}")
        else:
            say(f"[2/10] neo4j: using {uri}")
        say(f"[3/10] load: {counts['entities']} entities, {counts['relations']} relations")
        load = load_graph(graph_dict, uri, user=user, password=password, wipe=True)
        say(f"      {load.nodes} nodes, {load.relationships} relationships{done()}")
        say(f"[4/10] evaluate: {files.predictions.name} against {files.tasks.name}")
        evaluation: Any = get("cypherbench").evaluate(
            files.tasks, files.predictions, EvaluateOptions(uri=uri, user=user, password=password)
        )
        _, agg_path = evaluation.write(eval_dir)
        say(f"      {len(evaluation.records)} predictions scored{done()}")
        say("[5/10] generate: CypherBench tasks on the loaded graph (offline, seed 42)")
        generation = _generate(uri, user, password, out / "generation")
        say(f"      {generation['tasks']} tasks generated{done()}")
        say("[6/10] pipe: PIPE-Cypher governed benchmark on the loaded graph (offline, seed 13)")
        pipe = _pipe(uri, user, password, out / "pipe")
        say(
            f"      {pipe['funnel']['accepted']} of {pipe['funnel']['candidates']} candidates "
            f"accepted, {sum(pipe['selected_by_category'].values())} selected{done()}"
        )
        say(
            f"[7/10] synth: SynthKGQA template items from {files.synth_sample.name} (SPARQL on "
            "an embedded store, offline, seed 1111)"
        )
        synth = _synth(files.synth_sample, out / "synth")
        say(f"      {synth['items']} items, {len(synth['types'])} isomorphism types{done()}")
        say(
            "[8/10] rdb: Spider's concert_singer as RDF and a property graph; one question in "
            "SQL, SPARQL and Cypher"
        )
        spider = _spider(files, out / "spider", uri, user, password)
        say(
            f"      {spider['report']['rows']} rows -> {spider['report']['triples']} triples, "
            f"{spider['report']['nodes']} nodes{done()}"
        )
        say(
            "[9/10] ngdbench: noise on concert_singer's property graph (noise seed "
            f"{NGDBENCH_NOISE_SEED}), tasks around it (gold on the clean graph in a disposable "
            "database, noise answers on the noisy graph), the oracle row"
        )
        ngdbench = _ngdbench(out / "spider" / "graph.json", out / "ngdbench", uri, user, password)
        applied = {t["type"]: t["applied"] for t in ngdbench["noise"]["types"]}
        say(
            f"      {applied.get('incomplete_edges', 0)} edges deleted, "
            f"{applied.get('false_edges', 0)} added, {applied.get('relation_type_noise', 0)} "
            f"retyped; {sum(ngdbench['generation']['tasks'].values())} tasks{done()}"
        )
        say(
            "[10/10] predict: GPT-3.5's published zero-shot Spider4SPARQL run on "
            "concert_singer, replayed offline (--replay-only) and scored"
        )
        replay = replay_published_run(files, out / "spider", out / "predict")
        say(
            f"      {replay['replies']} replies from the cache, {replay['requests']} requests "
            f"sent, EX {replay['execution_accuracy']:.4f}{done()}"
        )
        agent = replay_agent_run(
            files, out / "spider", out / "predict" / "agent", replay["ex_by_qid"]
        )
        say(
            f"      agent: {agent['tasks']} questions replayed with tools, EX "
            f"{agent['correct']}/{agent['tasks']} in {agent['turns']} turns{done()}"
        )
        if started:
            say("      stopping the local Neo4j server")
    say("writing the HTML report")
    from kgbench.report import write_report

    report_html = write_report(
        [
            eval_dir,
            out / "generation",
            out / "pipe",
            out / "synth",
            out / "ngdbench" / "noisy",
            out / "ngdbench" / "tasks",
            out / "ngdbench" / "evaluation",
            out / "predict" / "evaluation",
        ],
        out / "report.html",
        title="kgbench demo",
    )
    return DemoResult(
        out_dir=out,
        graph_path=graph_path,
        report_path=report_path,
        uri=uri,
        started_server=started,
        graph_counts=counts,
        report=report_dict,
        load=load,
        records=list(evaluation.records),
        aggregated=dict(evaluation.aggregated),
        evaluation_dir=eval_dir,
        outputs={
            **_outputs(graph_dir, report_path, eval_dir, agg_path),
            "generated tasks": out / "generation" / "tasks.json",
            "generation report": out / "generation" / "report.json",
            "pipe benchmark": out / "pipe" / "all.jsonl",
            "pipe ledger": out / "pipe" / "records.jsonl",
            "SynthKGQA items": out / "synth" / "items.jsonl",
            "Spider RDF": out / "spider" / "concert_singer.nt",
            "Spider graph": out / "spider" / "graph.json",
            "replayed predictions": out / "predict" / "run" / "predictions.json",
            "agent trajectories": out / "predict" / "agent" / "run" / "trajectories.jsonl",
            "noisy graph": out / "ngdbench" / "noisy" / "graph.json",
            "noise log": out / "ngdbench" / "noisy" / "noise_log.json",
            "NGDBench tasks": out / "ngdbench" / "tasks" / "tasks.json",
            "HTML report": Path(report_html),
        },
        generation=generation,
        pipe=pipe,
        synth=synth,
        spider=spider,
        replay=replay,
        agent=agent,
        ngdbench=ngdbench,
    )


def _generate(uri: str, user: str | None, password: str | None, out: Path) -> dict[str, Any]:
    """Draft the demo graph's relation traits and generate CypherBench tasks into ``out``."""
    from kgbench.generate import draft_traits, generate_cypherbench
    from kgbench.generate.traits import write_traits
    from kgbench.neo4j.executor import connect

    out.mkdir(parents=True, exist_ok=True)
    with connect(uri, user, password) as driver:
        traits = draft_traits(driver, graph="wikidata_demo")
    traits_path = out / "traits.json"
    write_traits(traits, traits_path)
    result = generate_cypherbench(
        uri, None, traits_path, "wikidata_demo", out, user=user, password=password
    )
    return result.report


def _pipe(uri: str, user: str | None, password: str | None, out: Path) -> dict[str, Any]:
    """PIPE-Cypher's offline construction on the demo graph into ``out``; its report."""
    from kgbench.generate.pipe.pipeline import generate_pipe
    from kgbench.neo4j.executor import GraphReader

    reader = GraphReader.connect(uri, user, password)
    try:
        result = generate_pipe(reader, out, graph="wikidata_demo", target=3, seed=13)
    finally:
        reader.close()
    return result.report


def _synth(sample: Path, out: Path) -> dict[str, Any]:
    """SynthKGQA's offline template generator on the WD50K sample into ``out``; its report."""
    from kgbench.generate.synth.cli import generate_synth
    from kgbench.generate.synth.template import SynthSettings

    return generate_synth([str(sample)], out, SynthSettings(n=50, seed=1111))


#: Spider dev question 22 of concert_singer, shown in three query languages.
SPIDER_QUESTION = "Show the stadium name and the number of concerts in each stadium."
SPIDER_SQL = (
    "SELECT T2.name ,  count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id  =  "
    "T2.stadium_id GROUP BY T1.stadium_id"
)


def _spider(
    files: DemoFiles, out: Path, uri: str, user: str | None, password: str | None
) -> dict[str, Any]:
    """Convert concert_singer (kgbench rdb), translate :data:`SPIDER_SQL` to SPARQL and
    Cypher, and run the three: SQL on SQLite, SPARQL on the RDF (embedded store), Cypher on
    the property graph loaded into the demo's server (replacing the demo graph)."""
    from kgbench.neo4j import load_graph
    from kgbench.neo4j.executor import GraphReader
    from kgbench.query.sparql import SparqlExecutor
    from kgbench.rdb.convert import convert_rdb
    from kgbench.rdb.schema import load_schema
    from kgbench.rdb.sql2cypher import translate_sql_to_cypher
    from kgbench.rdb.sql2sparql import translate_sql_to_sparql
    from kgbench.rdb.validate import run_sql

    report = convert_rdb(files.spider_db, files.spider_tables, "concert_singer", out)
    schema = load_schema(files.spider_db, files.spider_tables, "concert_singer")
    sparql = translate_sql_to_sparql(SPIDER_SQL, schema)
    cypher = translate_sql_to_cypher(SPIDER_SQL, schema)
    if sparql.query is None or cypher.query is None:
        raise KgbenchError(f"the demo question no longer translates: {sparql.reason}")
    _err, sql_rows = run_sql(files.spider_db, SPIDER_SQL, 30.0)
    with SparqlExecutor([out / "concert_singer.nt"]) as ex:
        res = ex.run(sparql.query)
    load_graph(str(out / "graph.json"), uri, user=user, password=password, wipe=True)
    reader = GraphReader.connect(uri, user, password)
    try:
        cypher_rows = [list(r.values()) for r in reader.run(cypher.query)]
    finally:
        reader.close()
    return {
        "report": report,
        "question": SPIDER_QUESTION,
        "sql": SPIDER_SQL,
        "sparql": sparql.query,
        "cypher": cypher.query,
        "rows": {"sql": sql_rows, "sparql": res.rows, "cypher": cypher_rows},
    }


#: The paper's setting beside which the demo prints the replayed run's EX (Spider4SPARQL,
#: Kosten et al. 2023, Table V).
PAPER_ZERO_SHOT = (
    "paper: GPT-3.5 zero-shot on all 1,034 Spider4SPARQL dev questions, EX 8% "
    "(25% syntax errors; Table V)"
)


def replay_published_run(files: DemoFiles, rdf_dir: Path, out: Path) -> dict[str, Any]:
    """Replay GPT-3.5's published zero-shot run on concert_singer fully offline and score it.

    Builds a replay cache from the shipped published records
    (:func:`kgbench.predict.replay_cache_from_published`), runs ``kgbench predict --family
    spider4sparql --replay-only`` on the shipped gold pairs with the ontology ``kgbench rdb``
    wrote into ``rdf_dir`` (kgbench rebuilds each published prompt byte for byte, so every
    reply comes from the cache), and scores the predictions with ``kgbench evaluate
    --language sparql`` on ``rdf_dir``. Returns the counts, ``execution_accuracy`` and the
    paper's setting (:data:`PAPER_ZERO_SHOT`); writes ``out/run`` and ``out/evaluation``.

    Raises:
        KgbenchError: a prompt not in the cache (kgbench's prompt changed) or a failed
            evaluation."""
    from kgbench.families import EvaluateOptions, get, predict
    from kgbench.predict import replay_cache_from_published

    cache = out / "gpt35_zero_shot.cache.jsonl"
    if cache.exists():
        cache.unlink()
    replay_cache_from_published(files.s4s_published, cache)
    run = predict(
        "spider4sparql",
        files.s4s_gold,
        base_url="http://replay.invalid/v1",
        model="gpt-3.5-turbo",
        out_dir=out / "run",
        rdf_dir=rdf_dir,
        cache_path=cache,
        replay_only=True,
    )
    evaluation: Any = get("spider4sparql").evaluate(
        files.s4s_gold, run.predictions_path, EvaluateOptions(rdf_dir=rdf_dir)
    )
    evaluation.write(out / "evaluation")
    overall = evaluation.aggregated["overall"]
    return {
        "tasks": run.run["counts"]["tasks"],
        "replies": run.run["cache_hits"],
        "requests": run.run["requests"],
        "scored": evaluation.aggregated["scored"],
        "execution_accuracy": overall["execution_accuracy"],
        "correct": sum(
            1 for r in evaluation.records if r.get("metrics", {}).get("execution_accuracy") == 1
        ),
        "errors": dict(evaluation.error_counts),
        "paper": PAPER_ZERO_SHOT,
        "ex_by_qid": {
            str(r["qid"]): r["metrics"]["execution_accuracy"] for r in evaluation.records
        },
    }


#: The demo's agent run (issue 39): a scripted model's tool-calling conversations on the
#: first :data:`AGENT_TASKS` concert_singer questions, recorded once by
#: ``tests/make_demo_agent_cache.py`` (the chat-completions test double; no real model) and
#: replayed offline from this shipped reply cache.
AGENT_CACHE = DATA_DIR / "demo_agent.cache.jsonl"
#: The model name the cache was recorded under (part of every cache key).
AGENT_MODEL = "scripted-agent"
#: The questions of the agent run (the first of the 45) and its turn limit.
AGENT_TASKS = 4
AGENT_MAX_TURNS = 4


def replay_agent_run(
    files: DemoFiles, rdf_dir: Path, out: Path, one_shot: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """Replay the shipped agent run (:data:`AGENT_CACHE`) offline and score it.

    Runs ``kgbench predict --family spider4sparql --agent --replay-only`` on the first
    :data:`AGENT_TASKS` shipped gold pairs with the RDF ``kgbench rdb`` wrote into
    ``rdf_dir`` (every tool result is recomputed from that graph, every reply comes from a
    copy of the cache in ``out``), then scores the predictions as ``kgbench evaluate
    --language sparql`` does, with ``by_turns`` / ``by_ending`` from the trajectories.
    ``one_shot``: qid -> EX of the one-shot run, to count its correct answers on the same
    questions. Returns ``{tasks, turns, requests, correct, endings, by_turns,
    one_shot_correct}``; writes ``out/run`` and ``out/evaluation``.

    Raises:
        KgbenchError: a request not in the cache (the prompt, tools or a tool result
            changed) or a failed evaluation."""
    import shutil

    from kgbench.families import EvaluateOptions, get, predict
    from kgbench.tasks import trajectories_beside

    out.mkdir(parents=True, exist_ok=True)
    cache = out / "cache.jsonl"
    for stale in (cache, cache.with_name(cache.name + ".graphs.json")):
        if stale.exists():
            stale.unlink()
    shutil.copyfile(AGENT_CACHE, cache)
    run = predict(
        "spider4sparql",
        files.s4s_gold,
        base_url="http://replay.invalid/v1",
        model=AGENT_MODEL,
        out_dir=out / "run",
        rdf_dir=rdf_dir,
        cache_path=cache,
        replay_only=True,
        agent=True,
        max_turns=AGENT_MAX_TURNS,
        limit=AGENT_TASKS,
    )
    family = get("spider4sparql")
    tasks, predictions = family.run_inputs(
        files.s4s_gold, run.predictions_path, AGENT_TASKS, out / "run"
    )
    evaluation: Any = family.evaluate(tasks, predictions, EvaluateOptions(rdf_dir=rdf_dir))
    trajectories = trajectories_beside(run.predictions_path)
    if trajectories is not None:
        evaluation.add_trajectories(trajectories, out / "evaluation")
    evaluation.write(out / "evaluation")
    ex = {str(r["qid"]): r["metrics"]["execution_accuracy"] for r in evaluation.records}
    agent = run.run["agent"]
    return {
        "tasks": len(ex),
        "turns": agent["turns"],
        "queries": agent["queries_executed"],
        "requests": run.run["requests"],
        "correct": sum(1 for v in ex.values() if v == 1),
        "endings": dict(agent["endings"]),
        "by_turns": dict((evaluation.turns or {}).get("by_turns", {})),
        "one_shot_correct": None
        if one_shot is None
        else sum(1 for q in ex if one_shot.get(q) == 1),
    }


def format_agent(agent: Mapping[str, Any]) -> str:
    """The agent run's line, printed beside the one-shot run's."""
    endings = ", ".join(f"{k} {v}" for k, v in agent["endings"].items())
    beside = (
        ""
        if agent["one_shot_correct"] is None
        else f"; one-shot on the same questions: EX {agent['one_shot_correct']}/{agent['tasks']}"
    )
    return (
        f"agent (a scripted model with tools, replayed offline from the shipped cache): EX "
        f"{agent['correct']}/{agent['tasks']} in {agent['turns']} turns, {agent['queries']} "
        f"queries run ({endings}){beside}"
    )


def format_replay(replay: Mapping[str, Any]) -> str:
    """The model-run step's lines: the replayed run's EX beside the paper's setting."""
    errors = ", ".join(f"{k} {v}" for k, v in sorted(replay["errors"].items())) or "none"
    return "\n".join(
        [
            f"{replay['tasks']} prompts rebuilt by kgbench, {replay['replies']} replies from "
            f"the replay cache, {replay['requests']} requests sent",
            f"kgbench: GPT-3.5 zero-shot on concert_singer ({replay['scored']} questions), "
            f"EX {replay['execution_accuracy']:.1%} ({replay['correct']} correct; "
            f"predictions scored 0 with an error: {errors})",
            replay["paper"],
        ]
    )


#: The noise seed of the NGDBench stage. On concert_singer's 26 edges the default profile
#: targets 1 deletion, 2 false edges and 2 type swaps; with seed 8 every one is applied (the
#: spec's default seed, 42, draws an edge whose deletion would leave a node dangling).
NGDBENCH_NOISE_SEED = 8


def _ngdbench(
    graph: Path, out: Path, uri: str, user: str | None, password: str | None
) -> dict[str, Any]:
    """Inject the default noise (seed :data:`NGDBENCH_NOISE_SEED`) into ``graph``, load the
    noisy graph into the demo's server (replacing what is there), generate NGDBench tasks
    (the clean graph in kgbench's disposable database; one management batch per operator)
    and score the oracle row."""
    from kgbench.families import EvaluateOptions, get
    from kgbench.generate.ngdbench.build import generate_ngdbench
    from kgbench.neo4j import load_graph
    from kgbench.noise import inject_noise

    noise = inject_noise(graph, out / "noisy", seed=NGDBENCH_NOISE_SEED)
    load_graph(str(out / "noisy" / "graph.json"), uri, user=user, password=password, wipe=True)
    generation = generate_ngdbench(
        graph,
        out / "noisy",
        out / "tasks",
        noisy_uri=uri,
        user=user,
        password=password,
        management_batches=1,
        progress=False,
        log=lambda _m: None,
    )
    evaluation = get("ngdbench").evaluate(out / "tasks" / "tasks.json", None, EvaluateOptions())
    evaluation.write(out / "evaluation")
    return {"noise": noise, "generation": generation, "aggregated": evaluation.aggregated}


def oracle_row(aggregated: Mapping[str, Any]) -> str:
    """The "Oracle Cypher" row of seed Table 4 (the gold queries on the noisy graph scored
    against the clean answers): Jaccard, F1 (NoAgg), MdRE, MSLE, sMAPE (Agg); "—" where a
    family has no task (MdRE above 10⁴ too, as the seed prints it)."""

    def f(x: Any, dash_above: float | None = None) -> str:
        if x is None or (dash_above is not None and x > dash_above):
            return "—"
        return f"{x:.3f}"

    o = aggregated["oracle"]
    na, ag = o["noagg"], o["agg"]
    return (
        f"{'':<16}{'Jaccard':>8}{'F1':>8}{'MdRE':>8}{'MSLE':>8}{'sMAPE':>8}   (NoAgg n={na['n']}, "
        f"Agg n={ag['n']})\n"
        f"{'Oracle Cypher':<16}{f(na['jaccard']):>8}{f(na['f1']):>8}"
        f"{f(ag['mdre'], 1e4):>8}{f(ag['msle']):>8}{f(ag['smape']):>8}"
    )


def format_spider(spider: Mapping[str, Any]) -> str:
    """The relational step's question with its three queries and their results side by
    side (rows sorted, as the question asks for no order)."""
    lines = [f"question: {spider['question']}"]
    for lang in ("sql", "sparql", "cypher"):
        lines.append(f"-- {lang.upper()}")
        lines += ["   " + line for line in str(spider[lang]).splitlines()]
    tables = {k: sorted(map(repr, v)) for k, v in spider["rows"].items()}
    width = max(len(x) for rows in tables.values() for x in rows) if tables["sql"] else 10
    lines.append(f"{'SQL on SQLite':<{width + 2}}{'SPARQL on RDF':<{width + 2}}Cypher on Neo4j")
    for i in range(max(len(v) for v in tables.values())):
        cells = [rows[i] if i < len(rows) else "" for rows in tables.values()]
        lines.append("".join(f"{c:<{width + 2}}" for c in cells).rstrip())
    return "\n".join(lines)


def _outputs(graph_dir: Path, report: Path, eval_dir: Path, agg: Path) -> dict[str, Path]:
    out = {"graph": graph_dir / "graph.json"}
    for name, file in (("entities", "entities.parquet"), ("relations", "relations.parquet")):
        if (graph_dir / file).is_file():
            out[f"{name} (Parquet)"] = graph_dir / file
    out["conversion report"] = report
    out["per-task metrics"] = eval_dir / "result_with_metrics.json"
    out["aggregated metrics"] = agg
    return out


# ----------------------------------------------------------------------------- metric tables


def metric_groups(records: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """Mean EX, PSJS and Exec (4 decimals) of scored records: ``overall``, per match
    category and per RETURN template, plus ``count`` per group; groups sorted by name.

    The means are CypherBench's (:func:`kgbench.evaluate.aggregate.group_means`) and the
    RETURN templates are grouped by its :data:`~kgbench.evaluate.aggregate.RETURN_PATTERN_MAPPING`
    (``n_prop_combined``). Unlike ``aggregated_metrics.json`` (one metric per group, special
    templates left out of ``by_return``), every metric is given for every group and the
    special categories' templates are kept under their own ids.
    """
    from kgbench.evaluate.aggregate import RETURN_PATTERN_MAPPING, group_means

    def template(r: Mapping[str, Any], name: str) -> str:
        return str((r.get("from_template") or {}).get(name, "(none)"))

    def return_group(r: Mapping[str, Any]) -> str:
        rid = template(r, "return_pattern_id")
        return RETURN_PATTERN_MAPPING.get(rid, rid)

    keys: dict[str, Callable[[Mapping[str, Any]], str]] = {
        "overall": lambda _r: "overall",
        "by_match": lambda r: template(r, "match_category"),
        "by_return": return_group,
    }
    out: dict[str, dict[str, dict[str, float]]] = {}
    for section, key in keys.items():
        means = {
            m: group_means((key(r), float(r["metrics"][m])) for r in records)
            for m, _ in METRIC_COLUMNS
        }
        counts = Counter(key(r) for r in records)
        out[section] = {
            group: {**{m: means[m][group] for m, _ in METRIC_COLUMNS}, "count": n}
            for group, n in sorted(counts.items())
        }
    return out


def metrics_table(title: str, rows: Mapping[str, Mapping[str, float]]) -> str:
    """A fixed-width table: one row per key of ``rows``; columns EX, PSJS, Exec, n."""
    width = max([len(title), *(len(k) for k in rows)])
    head = f"{title:<{width}}  " + "  ".join(f"{c:>6}" for _, c in METRIC_COLUMNS) + f"  {'n':>3}"
    lines = [head, "-" * len(head)]
    for key, metrics in rows.items():
        cells = "  ".join(f"{metrics[m]:>6.4f}" for m, _ in METRIC_COLUMNS)
        lines.append(f"{key:<{width}}  {cells}  {int(metrics['count']):>3}")
    return "\n".join(lines)


def _counts(mapping: Mapping[str, Any], *, skip_zero: bool = False) -> str:
    items = [(k, v) for k, v in mapping.items() if not (skip_zero and v == 0)]
    return ", ".join(f"{k} {v}" for k, v in items) or "none"


#: Report keys shown by :func:`_format_report` in its own layout (others are listed as JSON).
_REPORT_SHOWN = {
    "inputs",
    "triples_read",
    "invalid_skipped",
    "invalid_examples",
    "schema",
    "entities_total",
    "relations_total",
    "entities",
    "relations",
    "entity_candidates",
    "entities_dropped_no_english_label",
    "relations_dropped_out_of_scope",
    "dropped_values",
    "dropped_values_by_property",
    "seconds_total",
}


def _format_report(report: Mapping[str, Any]) -> list[str]:
    """The conversion report (``report.json``) as indented summary lines."""
    lines: list[str] = []
    if "inputs" in report:
        names = ", ".join(Path(str(p)).name for p in report["inputs"])
        lines.append(f"  read: {names}")
    if "triples_read" in report:
        skipped = report.get("invalid_skipped", 0)
        lines.append(f"  triples read: {report['triples_read']}  invalid skipped: {skipped}")
    if isinstance(report.get("entity_candidates"), Mapping):
        lines.append(f"  entity candidates by label: {_counts(report['entity_candidates'])}")
    if isinstance(report.get("entities_dropped_no_english_label"), Mapping):
        dropped = report["entities_dropped_no_english_label"]
        lines.append(f"  entities dropped, no English label: {_counts(dropped)}")
    if isinstance(report.get("relations_dropped_out_of_scope"), Mapping):
        dropped = report["relations_dropped_out_of_scope"]
        lines.append(f"  relations dropped, an end not kept: {_counts(dropped, skip_zero=True)}")
    if isinstance(report.get("dropped_values"), Mapping):
        lines.append(f"  property values dropped: {_counts(report['dropped_values'])}")
    by_prop = report.get("dropped_values_by_property")
    if isinstance(by_prop, Mapping):
        for prop, reasons in by_prop.items():
            text = _counts(reasons) if isinstance(reasons, Mapping) else str(reasons)
            lines.append(f"    {prop}: {text}")
    for key, value in report.items():
        if key not in _REPORT_SHOWN and not key.startswith("seconds"):
            lines.append(f"  {key}: {json.dumps(value, ensure_ascii=False)}")
    return lines


def format_summary(result: DemoResult) -> str:
    """The demo's printed summary: conversion, load counts, metric tables, output paths."""
    c = result.graph_counts
    lines = ["", "== Conversion: Wikidata RDF -> property graph (kgbench convert) =="]
    lines.append(f"entities: {c['entities']}  relations: {c['relations']}")
    lines.append(f"  entities by label:  {_counts(c['entities_by_label'])}")
    lines.append(f"  relations by label: {_counts(c['relations_by_label'])}")
    lines += _format_report(result.report)
    load = result.load
    where = f"{result.uri}, local server" if result.started_server else result.uri
    lines += ["", f"== Neo4j load ({where}) =="]
    lines.append(f"nodes: {load.nodes}  relationships: {load.relationships}")
    lines.append(f"  nodes by label:         {_counts(load.nodes_by_label)}")
    lines.append(f"  relationships by type:  {_counts(load.relationships_by_type)}")
    tables = metric_groups(result.records)
    lines += ["", f"== Text-to-Cypher metrics: {len(result.records)} predictions =="]
    lines.append(metrics_table("overall", tables["overall"]))
    lines.append("")
    lines.append(metrics_table("match category", tables["by_match"]))
    lines.append("")
    lines.append(metrics_table("return template", tables["by_return"]))
    if result.generation is not None:
        from kgbench.generate.cli import format_counts

        lines += ["", "== Task generation: CypherBench templates on the demo graph =="]
        lines.append(format_counts(result.generation))
    if result.pipe is not None:
        from kgbench.generate.pipe.cli import format_funnel

        lines += ["", "== PIPE-Cypher governed construction: gate funnel on the demo graph =="]
        lines.append(format_funnel(result.pipe["funnel"]))
        sel = result.pipe["selected_by_category"]
        lines.append(
            f"selected          {sum(sel.values()):>7}  "
            + ", ".join(f"{k} {v}" for k, v in sorted(sel.items()))
        )
    if result.synth is not None:
        from kgbench.generate.synth.cli import format_types

        syn = result.synth
        lines += ["", "== SynthKGQA: isomorphism types of the template items (WD50K sample) =="]
        lines.append(format_types(syn["types"]))
        lines.append(
            f"{syn['items']} items from {syn['attempts']} seed graphs "
            f"(acceptance {syn['acceptance']:.1%}), {syn['redundant']} non-minimal"
        )
    if result.spider is not None:
        lines += [
            "",
            "== Spider4SPARQL: one question in SQL, SPARQL and Cypher (concert_singer) ==",
        ]
        lines.append(format_spider(result.spider))
    if result.replay is not None:
        lines += [
            "",
            "== Model run: GPT-3.5's published Spider4SPARQL zero-shot run, replayed offline ==",
        ]
        lines.append(format_replay(result.replay))
        if result.agent is not None:
            lines.append(format_agent(result.agent))
    if result.ngdbench is not None:
        from kgbench.generate.ngdbench.cli import format_report as format_ngd
        from kgbench.noise import format_report as format_noise

        ngd = result.ngdbench
        lines += ["", "== NGDBench: noise on concert_singer's graph, tasks, the oracle row =="]
        noise_lines = format_noise(ngd["noise"]).splitlines()
        lines += [line for line in noise_lines if not line.startswith("wrote ")]
        lines.append(format_ngd(ngd["generation"]))
        lines.append(oracle_row(ngd["aggregated"]))
    lines += ["", "== Outputs =="]
    for name, path in result.outputs.items():
        lines.append(f"  {name + ':':<20} {path}")
    return "\n".join(lines)
