"""The ``spider4sparql`` family: Spider questions over each database's Direct Mapping RDF
(``kgbench rdb``), answered in SPARQL and scored on embedded RDF stores
(:mod:`kgbench.evaluate.sparql_runner`; ``kgbench evaluate --language sparql``).

Predict: Spider4SPARQL's GPT-3.5 zero-shot prompt with each database's ontology from
``--rdf-dir`` (:mod:`kgbench.predict.spider4sparql`); writes ``predictions.json`` (``{db_id,
natural_language_question, prompt, predicted_sparql, qid}``). Evaluate: EX by Spider's
hardness levels, optional test-suite EX and pass@k
(:func:`kgbench.evaluate.passk.sparql_pass_at_k`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.outputs import Evaluation
from kgbench.families.base import EvaluateOptions, Family
from kgbench.families.cypherbench import with_samples
from kgbench.predict import spider4sparql as stage
from kgbench.predict.run import GraphSources


class Spider4Sparql(Family):
    """Spider4SPARQL (module docstring)."""

    name = "spider4sparql"
    language = "sparql"
    default_prompt = "spider4sparql_zero_shot"
    placeholders = stage.PLACEHOLDERS
    has_test_suite = True
    default_timeout_s = 30.0

    def read_tasks(self, path: str | Path) -> list[dict[str, Any]]:
        """Spider4SPARQL tasks (:func:`kgbench.predict.spider4sparql.read_tasks`)."""
        return stage.read_tasks(path)

    def graph_contexts(
        self, tasks: Sequence[Mapping[str, Any]], sources: GraphSources, graph: Any
    ) -> dict[str, str]:
        """Each database's ontology (:func:`kgbench.predict.spider4sparql.load_ontologies`).

        Raises:
            InputError: no ``--rdf-dir``, or a database without its RDF there."""
        if sources.rdf_dir is None:
            raise InputError("--family spider4sparql needs --rdf-dir (outputs of `kgbench rdb`)")
        return stage.load_ontologies(sources.rdf_dir, sorted({str(t["graph"]) for t in tasks}))

    def prompt_values(self, task: Mapping[str, Any], context: str) -> dict[str, str]:
        """``{question}`` and ``{ontology}``."""
        return {"question": str(task["nl_question"]), "ontology": context}

    def postprocess(self, task: Mapping[str, Any]) -> Callable[[str], str]:
        """Spider4SPARQL's post-processing (:func:`kgbench.predict.spider4sparql.postprocess`)."""
        return stage.postprocess

    def records(
        self,
        tasks: Sequence[Mapping[str, Any]],
        prompts: Sequence[str],
        preds: Sequence[Sequence[str]],
        graph: Any,
    ) -> list[dict[str, Any]]:
        """``{db_id, natural_language_question, prompt, predicted_sparql, qid}`` per task."""
        out = []
        for task, text, samples in zip(tasks, prompts, preds, strict=True):
            rec = {
                "db_id": task["graph"],
                "natural_language_question": task["nl_question"],
                "prompt": text,
            }
            with_samples(rec, "predicted_sparql", samples)
            rec["qid"] = task["qid"]
            out.append(rec)
        return out

    def query_checker(
        self,
        tasks: Sequence[Mapping[str, Any]],
        sources: GraphSources,
        *,
        graph: Any = None,
        mode: str = "--repair",
    ) -> Any:
        """The queries run on each database's RDF graph in ``--rdf-dir`` as the evaluation
        runs them (:class:`kgbench.predict.repair.SparqlChecker`).

        Raises:
            InputError: no ``--rdf-dir``, or a database without its RDF files there."""
        from kgbench.predict.repair import SparqlChecker

        if sources.rdf_dir is None:
            raise InputError(f"{mode} with --family spider4sparql needs --rdf-dir")
        graphs = sorted({str(t["graph"]) for t in tasks})
        return SparqlChecker(sources.rdf_dir, graphs, timeout_s=self.default_timeout_s)

    def run_inputs(
        self, tasks: Path, predictions: Path, limit: int | None, predict_dir: Path
    ) -> tuple[Path, Path | None]:
        """With ``limit``, the tasks predicted (as read, without ``nl_question``) written to
        ``predict_dir/tasks.json``, so positions align."""
        if limit is None:
            return tasks, predictions
        from kgbench.fileio import write_json_atomic

        kept = [
            {k: v for k, v in t.items() if k not in ("nl_question",)}
            for t in stage.read_tasks(tasks)[:limit]
        ]
        return write_json_atomic(predict_dir / "tasks.json", kept), predictions

    def evaluate(
        self, tasks: Path, predictions: Path | None, options: EvaluateOptions
    ) -> Evaluation:
        """EX on embedded RDF stores (:func:`kgbench.evaluate.sparql_runner.evaluate_sparql`),
        test-suite EX with ``options.test_suite``, pass@k with ``options.samples`` > 1.

        Raises:
            InputError: no ``rdf_dir``, a timeout that is not positive, ``suite_graph`` given,
                samples without predictions, bad input."""
        from kgbench.evaluate.sparql_runner import evaluate_sparql

        if options.rdf_dir is None:
            raise InputError("--language sparql needs --rdf-dir (the graphs' RDF files)")
        timeout = self.default_timeout_s if options.timeout_s is None else options.timeout_s
        if timeout <= 0:
            raise InputError("--timeout must be positive")

        def progress(done: int, total: int) -> None:
            if done % 50 == 0 or done == total:
                print(f"  {done}/{total} tasks", file=sys.stderr)

        cache = None
        if options.test_suite is not None:
            from kgbench.evaluate.suites.core import SuiteCache

            if options.suite_graph is not None:
                raise InputError("--suite-graph is for --language cypher; SPARQL uses --rdf-dir")
            out = Path(options.out or ".")
            cache = SuiteCache.load(options.suite_cache or out / "test_suite_cache.json")
        result = evaluate_sparql(
            tasks,
            predictions,
            options.rdf_dir,
            timeout_s=timeout,
            compat=options.compat,
            progress=progress if options.progress else None,
            test_suite=options.test_suite,
            suite_cache=cache,
            seed=options.seed,
            metrics=options.metrics or (),
            ves_reps=options.ves_reps,
        )
        if cache is not None:
            path = cache.save()
            counts = cache.counts()
            print(
                f"test suites: {counts['distilled']} distilled ({counts['rebuilt']} rebuilt: the "
                f"cached suite was made for another graph content), {counts['reused']} reused; "
                f"cache {path}",
                file=sys.stderr,
            )
        if options.samples is not None and options.samples > 1:
            from kgbench.evaluate.passk import sparql_pass_at_k

            if predictions is None:
                raise InputError("--samples with --language sparql needs --predictions")
            sparql_pass_at_k(result, tasks, predictions, options.rdf_dir, options.samples, timeout)
        return result

    @property
    def report_kind(self) -> str:
        """``evaluate-sparql`` (the report's kind of this family's output since before families)."""
        return "evaluate-sparql"

    def read_output(self, path: Path, label: str, aggregated: Mapping[str, Any]) -> list[Any]:
        """The run of :func:`kgbench.evaluate.readback.read_evaluate_sparql`."""
        from kgbench.evaluate.readback import read_evaluate_sparql

        return [read_evaluate_sparql(path, label, aggregated)]

    def written_by(self, aggregated: Mapping[str, Any]) -> bool:
        """``by_hardness`` (Spider's levels)."""
        return "by_hardness" in aggregated
