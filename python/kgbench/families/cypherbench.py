"""The ``cypherbench`` family: CypherBench's text-to-Cypher tasks (``Nl2CypherSample``),
scored on Neo4j with EX, PSJS and Exec (:mod:`kgbench.evaluate.runner`).

Predict: CypherBench's zero-shot baseline (:mod:`kgbench.predict.cypherbench`; prompt
``cypherbench_zero_shot``, stop ``"\\n```"``), each graph's schema from ``--schema-dir`` or its
server; writes ``result.json`` (the tasks with ``pred_cypher``). Evaluate: on the server of
each graph, optionally with test-suite EX on a disposable Neo4j
(:mod:`kgbench.evaluate.suites.cypher`), pass@k over samples
(:func:`kgbench.evaluate.passk.cypher_pass_at_k`) and several runs in one pass with a
leaderboard (:mod:`kgbench.evaluate.multirun`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.outputs import Evaluation
from kgbench.families.base import EvaluateOptions, SchemaFamily
from kgbench.predict import cypherbench as stage
from kgbench.predict.run import GraphSources


class CypherBench(SchemaFamily):
    """CypherBench (module docstring)."""

    name = "cypherbench"
    language = "cypher"
    prediction_file = "result.json"
    default_prompt = "cypherbench_zero_shot"
    placeholders = stage.PLACEHOLDERS
    several_runs = True
    has_test_suite = True
    stop = stage.STOP
    needs_server = True

    def read_tasks(self, path: str | Path) -> list[dict[str, Any]]:
        """CypherBench task records (:func:`kgbench.predict.cypherbench.read_tasks`)."""
        return stage.read_tasks(path)

    def prompt_values(self, task: Mapping[str, Any], context: str) -> dict[str, str]:
        """``{schema}`` and ``{question}``."""
        return {"schema": context, "question": stage.question_of(task)}

    def postprocess(self, task: Mapping[str, Any]) -> Callable[[str], str]:
        """CypherBench's post-processing (:func:`kgbench.predict.cypherbench.postprocess`)."""
        return stage.postprocess

    def records(
        self,
        tasks: Sequence[Mapping[str, Any]],
        prompts: Sequence[str],
        preds: Sequence[Sequence[str]],
        graph: Any,
    ) -> list[dict[str, Any]]:
        """The task records with ``pred_cypher`` (``pred_cypher_samples`` with samples)."""
        return [with_samples(dict(t), "pred_cypher", s) for t, s in zip(tasks, preds, strict=True)]

    def query_checker(
        self,
        tasks: Sequence[Mapping[str, Any]],
        sources: GraphSources,
        *,
        graph: Any = None,
        mode: str = "--repair",
    ) -> Any:
        """The queries run on each task's graph server (``--graph-uris``, else ``--uri``) as
        the evaluation runs them (:class:`kgbench.predict.repair.CypherChecker`).

        Raises:
            InputError: no server (``--repair`` needs ``--uri`` or ``--graph-uris``).
            ConnectionLostError: a server cannot be reached."""
        from kgbench.predict.repair import CypherChecker, cypher_targets

        targets = cypher_targets(tasks, sources, mode=mode)
        return CypherChecker(targets, timeout_s=self.default_timeout_s)

    def run_inputs(
        self, tasks: Path, predictions: Path, limit: int | None, predict_dir: Path
    ) -> tuple[Path, Path | None]:
        """``result.json`` holds the tasks with their predictions: it is scored alone."""
        return predictions, None

    def evaluate(
        self, tasks: Path, predictions: Path | None, options: EvaluateOptions
    ) -> Evaluation:
        """EX / PSJS / Exec on Neo4j (:func:`kgbench.evaluate.runner.evaluate`), then pass@k
        with ``options.samples`` > 1 and test-suite EX with ``options.test_suite``.

        Raises:
            InputError: bad input; the disposable Neo4j of ``--suite-graph`` cannot start.
            ConnectionLostError: a server was lost (without ``keep_going``); the message says
                no result file was written to ``options.out``."""
        from kgbench.evaluate.runner import ConnectionLostError, evaluate

        common = _common(options)
        suite = _open_suite(options)
        try:
            result = evaluate(
                tasks, predictions, progress=options.progress, **_metric_args(options), **common
            )
            if options.samples is not None and options.samples > 1:
                from kgbench.evaluate.passk import cypher_pass_at_k

                cypher_pass_at_k(result, predictions or tasks, options.samples, common)
            if suite is not None:
                _score_suites(options, result, *suite)
        except ConnectionLostError as exc:
            out = options.out
            earlier = out is not None and (out / "aggregated_metrics.json").exists()
            raise ConnectionLostError(
                f"{exc}. No result files were written to {out}"
                + (" (the ones there are from an earlier run)" if earlier else "")
            ) from exc
        finally:
            if suite is not None:
                suite[0].stop()
        return result

    def finish(self, evaluation: Evaluation, aggregated_path: Path) -> int:
        """3 when connection errors left tasks unscored (``--keep-going``) or no task could be
        scored, said on stderr; else 0."""
        counts: dict[str, int] = getattr(evaluation, "counts", {})
        if counts.get("connection_errors"):
            print(
                f"kgbench evaluate: {counts['connection_errors']} of {counts['tasks']} tasks "
                "were not scored because of connection errors (--keep-going); the results are "
                "incomplete (exit code 3)",
                file=sys.stderr,
            )
            return 3
        if counts and counts["scored"] == 0:
            print(
                f"kgbench evaluate: no task could be scored (all {counts['tasks']} excluded, "
                f"see 'excluded' in {aggregated_path}) (exit code 3)",
                file=sys.stderr,
            )
            return 3
        return 0

    def evaluate_runs(self, tasks: Path, specs: Sequence[str], options: EvaluateOptions) -> int:
        """Several prediction files in one pass, each distinct query sent once:
        ``OUT/NAME/`` per run and ``OUT/leaderboard.json`` (:mod:`kgbench.evaluate.multirun`);
        with ``test_suite``, TS-EX from suites distilled once per gold. Returns 3 when a run
        had connection errors, else 0."""
        from kgbench.evaluate.multirun import evaluate_runs, leaderboard, parse_run_specs
        from kgbench.evaluate.runner import ConnectionLostError

        out = Path(options.out or ".")
        runs = parse_run_specs(specs)
        suite = _open_suite(options)
        try:
            result = evaluate_runs(
                tasks, runs, progress=options.progress, **_metric_args(options), **_common(options)
            )
            if suite is not None:
                _score_suites(options, None, *suite, runs=list(result.runs.items()))
                result.leaderboard = leaderboard(
                    result.runs, dict(runs), result.queries_sent, result.unmatched
                )
        except ConnectionLostError as exc:
            raise ConnectionLostError(f"{exc}. No result files were written to {out}") from exc
        finally:
            if suite is not None:
                suite[0].stop()
        board = result.write(out)
        for name, run in result.runs.items():
            print(f"== {name}\n{run.table()}")
        print(result.table())
        print(f"wrote {out}/<run>/ for {len(runs)} runs and {board}", file=sys.stderr)
        incomplete = [n for n, r in result.runs.items() if r.counts["connection_errors"]]
        return 3 if incomplete else 0

    @property
    def report_kind(self) -> str:
        """``evaluate`` (the report's kind of this family's output since before families)."""
        return "evaluate"

    def read_output(self, path: Path, label: str, aggregated: Mapping[str, Any]) -> list[Any]:
        """The run of :func:`kgbench.evaluate.readback.read_evaluate`."""
        from kgbench.evaluate.readback import read_evaluate

        return [read_evaluate(path, label, aggregated)]


def with_samples(rec: dict[str, Any], key: str, samples: Sequence[str]) -> dict[str, Any]:
    """``rec`` with ``key`` the first sample and, with several, ``<key>_samples`` all."""
    rec[key] = samples[0]
    if len(samples) > 1:
        rec[f"{key}_samples"] = list(samples)
    return rec


def _common(options: EvaluateOptions) -> dict[str, Any]:
    """The runner's server, timeout and cache arguments of ``options``."""
    return {
        "uri": options.uri,
        "user": options.user,
        "password": options.password,
        "database": options.database,
        "graph_uris": options.graph_uris,
        "workers": options.workers,
        "timeout_s": 120.0 if options.timeout_s is None else options.timeout_s,
        "gold_timeout_s": options.gold_timeout_s,
        "cache_dir": options.cache_dir,
        "keep_going": options.keep_going,
        "servers": options.servers,
    }


def _metric_args(options: EvaluateOptions) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if options.metrics is not None:
        args["metrics"] = options.metrics
    if options.metric_for_agg is not None:
        args["metric_for_agg"] = options.metric_for_agg
    args["ves_reps"] = options.ves_reps
    return args


def _open_suite(options: EvaluateOptions) -> tuple[Any, Any, str] | None:
    """The disposable Neo4j of ``--suite-graph`` with its graph and fingerprint, started
    before anything is scored (no server: one line and nothing written), or ``None``."""
    if options.test_suite is None:
        return None
    from kgbench.evaluate.suites.cypher import open_suite_graph

    if options.suite_graph is None:
        raise InputError(
            "--test-suite for Cypher needs --suite-graph (the graph.json or convert "
            "directory of the graph under test, loaded into a disposable Neo4j)"
        )
    db, data, fingerprint = open_suite_graph(options.suite_graph, version=options.neo4j_version)
    return db, data, fingerprint


def _score_suites(
    options: EvaluateOptions,
    result: Any,
    db: Any,
    data: Any,
    fingerprint: str,
    runs: Sequence[tuple[str, Any]] = (),
) -> None:
    """Test-suite EX on the disposable database ``db``, of ``result`` or, with several
    prediction files, of each ``(name, result)`` of ``runs``: each gold's suite is distilled
    once (the first run) and reused by the others from the one cache; each run's counters
    are its own."""
    from kgbench.evaluate.suites.core import SuiteCache
    from kgbench.evaluate.suites.cypher import CypherSuiteBackend, score_test_suite
    from kgbench.neo4j.executor import cypher_dialect

    cache_path = options.suite_cache or (Path(options.out or ".") / "test_suite_cache.json")
    cache = SuiteCache.load(cache_path)
    backend = CypherSuiteBackend(
        db,
        data,
        fingerprint,
        dialect=cypher_dialect(db.driver),
        timeout_s=120.0 if options.timeout_s is None else options.timeout_s,
    )
    for name, one in runs or [("", result)]:
        cache.reset_counts()
        score_test_suite(
            one,
            backend,
            max_size=options.test_suite or 8,
            seed=options.seed,
            cache=cache,
            scope=str(Path(options.suite_graph or ".").resolve()),
            workers=min(options.workers, 4),
        )
        c = cache.counts()
        print(
            f"{f'[{name}] ' if name else ''}test-suite cache {cache_path}: {c['reused']} "
            f"suites reused, {c['distilled']} distilled ({c['rebuilt']} rebuilt: made for "
            "another graph content or version)"
            + (
                f"; {backend.reconnects} reads run again after a lost connection"
                if backend.reconnects
                else ""
            ),
            file=sys.stderr,
        )
    cache.save(cache_path)
