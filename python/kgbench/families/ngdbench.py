"""The ``ngdbench`` family: NGDBench's analytic, Boolean and management tasks around a noisy
graph (:mod:`kgbench.evaluate.ngdbench`; metrics ``kgbench/docs/metrics.md`` §7).

Predict (:mod:`kgbench.predict.ngdbench`): kgbench's prompt with the graph's schema (as
``cypherbench``); analytic and Boolean tasks get ``pred_cypher``, management batches
``steps_cypher``; writes ``predictions.json``. Evaluate: from the files alone, the predicted
queries read-only on the noisy graph at ``uri``, management steps in rolled-back
transactions on a disposable Neo4j with the clean graph; pass@k
(:func:`kgbench.evaluate.passk.ngdbench_pass_at_k`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.outputs import Evaluation
from kgbench.families.base import EvaluateOptions, SchemaFamily
from kgbench.predict import ngdbench as stage
from kgbench.predict.run import GraphSources


class Ngdbench(SchemaFamily):
    """NGDBench (module docstring)."""

    name = "ngdbench"
    language = "cypher"
    default_prompt = "ngdbench_cypher"
    placeholders = stage.PLACEHOLDERS
    takes_clean_graph = True

    def read_tasks(self, path: str | Path) -> list[dict[str, Any]]:
        """NGDBench tasks (:func:`kgbench.evaluate.ngdbench.load_ngdbench_tasks`) with ``qid``
        and ``graph`` (:func:`kgbench.predict.ngdbench.prompt_task`)."""
        from kgbench.evaluate.ngdbench import load_ngdbench_tasks

        return [stage.prompt_task(t) for t in load_ngdbench_tasks(path)]

    def prompt_values(self, task: Mapping[str, Any], context: str) -> dict[str, str]:
        """``{schema}`` and ``{task}`` (:func:`kgbench.predict.ngdbench.task_text`)."""
        return {"schema": context, "task": stage.task_text(task)}

    def postprocess(self, task: Mapping[str, Any]) -> Callable[[str], str]:
        """Management replies to their JSON text, others as CypherBench's."""
        if task["family"] == "management":
            return stage.management_postprocess
        return stage.postprocess

    def records(
        self,
        tasks: Sequence[Mapping[str, Any]],
        prompts: Sequence[str],
        preds: Sequence[Sequence[str]],
        graph: Any,
    ) -> list[dict[str, Any]]:
        """:func:`kgbench.predict.ngdbench.record` per task."""
        return [stage.record(t, list(s)) for t, s in zip(tasks, preds, strict=True)]

    def query_checker(
        self,
        tasks: Sequence[Mapping[str, Any]],
        sources: GraphSources,
        *,
        graph: Any = None,
        mode: str = "--repair",
    ) -> Any:
        """Analytic and Boolean queries run read-only on the noisy graph at ``--uri``, as the
        evaluation reads it (:class:`kgbench.predict.repair.CypherChecker`); management
        batches are not repaired (their steps write, on a disposable clean copy).

        Raises:
            InputError: no ``--uri``.
            ConnectionLostError: the server cannot be reached."""
        from kgbench.neo4j.targets import GraphTarget
        from kgbench.predict.repair import CypherChecker

        if sources.uri is None:
            raise InputError(
                f"{mode} with --family ngdbench needs --uri (the noisy graph its predicted "
                "queries run on)"
            )
        target = GraphTarget(sources.uri, sources.database, sources.user, sources.password)
        return CypherChecker(
            {str(t["graph"]): target for t in tasks},
            timeout_s=self.default_timeout_s,
            repairable=lambda t: t["family"] != "management",
        )

    def evaluate(
        self, tasks: Path, predictions: Path | None, options: EvaluateOptions
    ) -> Evaluation:
        """:func:`kgbench.evaluate.ngdbench.evaluate_ngdbench` against ``options.gold``,
        reading ``options.uri`` (the noisy graph) and running management steps on a
        disposable Neo4j with ``options.clean_graph``; pass@k with ``options.samples``.

        Raises:
            InputError: a timeout that is not positive, a missing clean graph, samples
                without predictions, bad input."""
        from kgbench.evaluate.ngdbench import evaluate_ngdbench

        timeout = self.default_timeout_s if options.timeout_s is None else options.timeout_s
        if timeout <= 0:
            raise InputError("--timeout must be positive")
        clean = options.clean_graph
        if clean is not None and not clean.exists():
            raise InputError(f"--clean-graph {clean}: no such file or directory")
        reader = None
        disposable = None
        if options.uri is not None:
            from kgbench.neo4j.executor import GraphReader

            reader = GraphReader.connect(
                options.uri,
                user=options.user,
                password=options.password,
                database=options.database,
                timeout_s=timeout,
            )

        def progress(done: int, total: int) -> None:
            if done % 500 == 0 or done == total:
                print(f"  {done}/{total} tasks", file=sys.stderr)

        try:
            if clean is not None:
                from kgbench.neo4j.disposable import DisposableNeo4j

                print(f"starting a disposable Neo4j with the clean graph {clean}", file=sys.stderr)
                disposable = DisposableNeo4j(clean, version=options.neo4j_version).start()
            kwargs: dict[str, Any] = {
                "gold": options.gold,
                "reader": reader,
                "timeout_s": timeout if reader is not None or disposable is not None else None,
                "disposable": disposable,
            }
            result = evaluate_ngdbench(
                tasks, predictions, progress=progress if options.progress else None, **kwargs
            )
            if options.samples is not None:
                from kgbench.evaluate.passk import ngdbench_pass_at_k

                if predictions is None:
                    raise InputError("--samples with --family ngdbench needs --predictions")
                ngdbench_pass_at_k(result, tasks, predictions, options.samples, kwargs)
        finally:
            if reader is not None:
                reader.close()
            if disposable is not None:
                disposable.stop()
        return result

    def read_output(self, path: Path, label: str, aggregated: Mapping[str, Any]) -> list[Any]:
        """The runs of :func:`kgbench.evaluate.readback.read_evaluate_ngdbench` (the
        predictions and the oracle row)."""
        from kgbench.evaluate.readback import read_evaluate_ngdbench

        return list(read_evaluate_ngdbench(path, label, aggregated))

    def written_by(self, aggregated: Mapping[str, Any]) -> bool:
        """``counts`` and ``oracle``."""
        return "counts" in aggregated and "oracle" in aggregated
