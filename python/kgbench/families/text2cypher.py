"""The ``text2cypher`` family: Neo4j's Text2Cypher (2024) records, scored by Google-BLEU and
exact match of the query text, and by EX / Exec on a server per
``database_reference_alias`` (:mod:`kgbench.evaluate.translation`).

Predict: the instruction of Neo4j's fine-tuned Text2Cypher models with each record's own
schema (:mod:`kgbench.predict.text2cypher`); writes ``predictions.json`` (the records with
``pred_cypher``). No pass@k.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kgbench.evaluate.outputs import Evaluation
from kgbench.families.base import EvaluateOptions, Family
from kgbench.families.cypherbench import with_samples
from kgbench.predict import text2cypher as stage
from kgbench.predict.run import GraphSources


class Text2Cypher(Family):
    """Text2Cypher (module docstring)."""

    name = "text2cypher"
    language = "cypher"
    default_prompt = "text2cypher_neo4j_2024"
    placeholders = stage.PLACEHOLDERS
    default_timeout_s = 30.0
    run_samples = False

    def read_tasks(self, path: str | Path) -> list[dict[str, Any]]:
        """Text2Cypher records (:func:`kgbench.tasks.read_text2cypher_tasks`)."""
        return stage.read_tasks(path)

    def prompt_values(self, task: Mapping[str, Any], context: str) -> dict[str, str]:
        """``{schema}`` (the record's own) and ``{question}``."""
        return {"schema": str(task["schema"]), "question": str(task["question"])}

    def postprocess(self, task: Mapping[str, Any]) -> Callable[[str], str]:
        """Neo4j's post-processing (:func:`kgbench.predict.text2cypher.postprocess`)."""
        return stage.postprocess

    def records(
        self,
        tasks: Sequence[Mapping[str, Any]],
        prompts: Sequence[str],
        preds: Sequence[Sequence[str]],
        graph: Any,
    ) -> list[dict[str, Any]]:
        """The records as read with ``pred_cypher`` (``pred_cypher_samples`` with samples)."""
        return [
            with_samples(dict(t["record"]), "pred_cypher", s)
            for t, s in zip(tasks, preds, strict=True)
        ]

    def query_checker(
        self,
        tasks: Sequence[Mapping[str, Any]],
        sources: GraphSources,
        *,
        graph: Any = None,
        mode: str = "--repair",
    ) -> Any:
        """The queries of records whose ``database_reference_alias`` has a server in
        ``--graph-uris`` (else: every record, on ``--uri``) run there as the evaluation runs
        them (:class:`kgbench.predict.repair.CypherChecker`); the other records are not
        repaired.

        Raises:
            InputError: neither ``--uri`` nor ``--graph-uris``.
            ConnectionLostError: a server cannot be reached."""
        from kgbench.predict.repair import CypherChecker, cypher_targets

        targets = cypher_targets(tasks, sources, every=False, mode=mode)
        return CypherChecker(targets, timeout_s=self.default_timeout_s)

    def run_inputs(
        self, tasks: Path, predictions: Path, limit: int | None, predict_dir: Path
    ) -> tuple[Path, Path | None]:
        """The prediction file holds the records with ``pred_cypher``: it is scored alone."""
        return predictions, None

    def evaluate(
        self, tasks: Path, predictions: Path | None, options: EvaluateOptions
    ) -> Evaluation:
        """Google-BLEU, exact match and, with ``graph_uris``, EX / Exec
        (:func:`kgbench.evaluate.translation.evaluate_translation`).

        Raises:
            InputError: bad input (names the file and record)."""
        from kgbench.evaluate.translation import evaluate_translation

        return evaluate_translation(
            tasks,
            predictions,
            graph_uris=options.graph_uris,
            user=options.user,
            password=options.password,
            timeout_s=self.default_timeout_s if options.timeout_s is None else options.timeout_s,
        )

    def read_output(self, path: Path, label: str, aggregated: Mapping[str, Any]) -> list[Any]:
        """The run of :func:`kgbench.evaluate.readback.read_evaluate_text2cypher`."""
        from kgbench.evaluate.readback import read_evaluate_text2cypher

        return [read_evaluate_text2cypher(path, label, aggregated)]

    def written_by(self, aggregated: Mapping[str, Any]) -> bool:
        """``overall.google_bleu``."""
        overall = aggregated.get("overall")
        return isinstance(overall, dict) and "google_bleu" in overall
