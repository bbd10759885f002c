"""The ``gtsqa`` family: GTSQA (SynthKGQA) questions with ground-truth answer subgraphs,
answered by a query run on the KG and scored with GTSQA's metrics
(:mod:`kgbench.evaluate.gtsqa`).

Predict (:mod:`kgbench.predict.gtsqa`): SPARQL from kgbench's prompt (question, seed entities,
the KG's relations), run on the ``--kg`` dump; or, with ``--uri`` and no ``--kg``, Cypher on
the KG's Neo4j conversion (prompt ``gtsqa_cypher``, ``--schema`` the conversion schema).
Writes ``predictions.json`` (``{id, question, pred_sparql, pred_answers,
retrieved_triples, error}``). Evaluate: Hits, Recall, the triples' and answer nodes' scores;
pass@k over ``pred_answers_samples`` (:func:`kgbench.evaluate.passk.gtsqa_pass_at_k`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.outputs import Evaluation
from kgbench.families.base import EvaluateOptions, Family
from kgbench.predict import gtsqa as stage
from kgbench.predict.run import GraphSources, PromptSetting


class Gtsqa(Family):
    """GTSQA (module docstring)."""

    name = "gtsqa"
    language = "sparql"
    default_prompt = "gtsqa_sparql"
    placeholders = stage.PLACEHOLDERS

    def read_tasks(self, path: str | Path) -> list[dict[str, Any]]:
        """GTSQA records (:func:`kgbench.predict.gtsqa.read_tasks`)."""
        return stage.read_tasks(path)

    def prompt_setting(self, sources: GraphSources) -> PromptSetting:
        """The KG the predicted queries run on: the ``kg`` dump
        (:class:`kgbench.predict.gtsqa.KnowledgeGraph`), or without one and with ``uri``,
        its Neo4j conversion (:class:`kgbench.predict.gtsqa.CypherGraph`, prompt
        ``gtsqa_cypher``).

        Raises:
            InputError: ``uri`` without ``schema``; an unreadable dump."""
        if not stage.kg_paths(sources.kg) and sources.uri is not None:
            if sources.schema is None:
                raise InputError(
                    "--family gtsqa with --uri needs --schema FILE (the .wd2neo4j.json "
                    "conversion schema, to map relationship types back to PIDs)"
                )
            graph = stage.CypherGraph(
                sources.uri,
                sources.schema,
                user=sources.user,
                password=sources.password,
                database=sources.database,
            )
            return PromptSetting("gtsqa_cypher", stage.CYPHER_PLACEHOLDERS, graph)
        kg = stage.KnowledgeGraph(stage.kg_paths(sources.kg))
        return PromptSetting(self.default_prompt, self.placeholders, kg)

    def graph_contexts(
        self, tasks: Sequence[Mapping[str, Any]], sources: GraphSources, graph: Any
    ) -> dict[str, str]:
        """The KG's schema (Cypher) or relations (SPARQL) text, for every graph."""
        text = graph.schema_text() if hasattr(graph, "schema_text") else graph.relations_text()
        return {g: text for g in sorted({str(t["graph"]) for t in tasks})}

    def prompt_values(self, task: Mapping[str, Any], context: str) -> dict[str, str]:
        """:func:`kgbench.predict.gtsqa.prompt_values`."""
        return stage.prompt_values(task, context)

    def postprocess(self, task: Mapping[str, Any]) -> Callable[[str], str]:
        """:func:`kgbench.predict.gtsqa.postprocess`."""
        return stage.postprocess

    def records(
        self,
        tasks: Sequence[Mapping[str, Any]],
        prompts: Sequence[str],
        preds: Sequence[Sequence[str]],
        graph: Any,
    ) -> list[dict[str, Any]]:
        """Each query run on the KG: :func:`kgbench.predict.gtsqa.records`."""
        return stage.records(tasks, preds, graph)

    def query_checker(
        self,
        tasks: Sequence[Mapping[str, Any]],
        sources: GraphSources,
        *,
        graph: Any = None,
        mode: str = "--repair",
    ) -> Any:
        """The predicted queries run on ``graph``, the KG of :meth:`prompt_setting`, as
        :meth:`records` runs them: SPARQL on the dump's store
        (:class:`kgbench.predict.gtsqa.KnowledgeGraphChecker`), or Cypher through the
        :class:`kgbench.predict.gtsqa.CypherGraph` executor (read-only gate, READ session;
        :class:`kgbench.predict.repair.CypherChecker`).

        Raises:
            InputError: no KG (``graph`` None)."""
        from kgbench.predict.repair import CypherChecker

        if isinstance(graph, stage.CypherGraph):
            return CypherChecker.of_executors({"wikidata": graph.executor})
        if isinstance(graph, stage.KnowledgeGraph):
            return stage.KnowledgeGraphChecker(graph)
        raise InputError(f"{mode} with --family gtsqa needs --kg FILE (or --uri with --schema)")

    def evaluate(
        self, tasks: Path, predictions: Path | None, options: EvaluateOptions
    ) -> Evaluation:
        """GTSQA's metrics (:func:`kgbench.evaluate.gtsqa.evaluate_gtsqa`); pass@k with
        ``options.samples``.

        Raises:
            InputError: no predictions; bad input (names the file and record)."""
        from kgbench.evaluate.gtsqa import evaluate_gtsqa

        if predictions is None:
            raise InputError("--family gtsqa needs --predictions (kgbench predict's output)")
        result = evaluate_gtsqa(tasks, predictions)
        if options.samples is not None:
            from kgbench.evaluate.passk import gtsqa_pass_at_k

            gtsqa_pass_at_k(result, predictions, options.samples)
        return result

    def read_output(self, path: Path, label: str, aggregated: Mapping[str, Any]) -> list[Any]:
        """The run of :func:`kgbench.evaluate.readback.read_evaluate_gtsqa`."""
        from kgbench.evaluate.readback import read_evaluate_gtsqa

        return [read_evaluate_gtsqa(path, label, aggregated)]

    def written_by(self, aggregated: Mapping[str, Any]) -> bool:
        """``kg`` and ``overall.hits``."""
        overall = aggregated.get("overall")
        return isinstance(overall, dict) and "kg" in aggregated and "hits" in overall
