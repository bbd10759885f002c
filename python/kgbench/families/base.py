"""The protocol every benchmark family implements (:class:`Family`; :class:`SchemaFamily`
for those whose prompt takes each graph's schema) and the typed options of its evaluation
(:class:`EvaluateOptions`).

A family is everything kgbench knows of one benchmark: its query language, its task files,
its published prompt and the placeholders the prompt fills, the graph context a prompt
needs (a schema, an ontology, the KG's relations), the post-processing of a model's reply,
the prediction records it writes, how its predictions are scored (one
:class:`kgbench.evaluate.outputs.Evaluation`) with pass@k over samples, and how the report
reads its evaluation back. The stage code stays in the stages (:mod:`kgbench.predict`,
:mod:`kgbench.evaluate`); a family module composes it. ``kgbench predict``, ``evaluate``,
``run``, ``report`` and the demo reach a family only through
:func:`kgbench.families.registry.get`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from kgbench.errors import InputError
from kgbench.evaluate.outputs import Evaluation
from kgbench.predict.run import GraphSources, PromptSetting, schema_contexts


@dataclass(frozen=True)
class EvaluateOptions:
    """The options of one evaluation; a family reads those it uses (``None``: its default).

    Servers: ``uri`` / ``database`` / ``user`` / ``password`` and ``graph_uris`` (a graph ->
    server JSON map). ``timeout_s``: seconds per query (``None``: the family's
    :attr:`Family.default_timeout_s`). CypherBench: ``metrics`` and ``metric_for_agg``
    (``None``: the runner's), ``workers``, ``gold_timeout_s``, ``cache_dir`` (``None``: no
    result cache), ``keep_going``. Test suites (CypherBench on Neo4j, Spider4SPARQL):
    ``test_suite`` (largest suite), ``suite_graph`` (Cypher), ``suite_cache`` (file),
    ``seed``. Spider4SPARQL: ``rdf_dir``, ``compat``. NGDBench: ``gold`` (``clean`` or
    ``noisy``), ``clean_graph``, ``neo4j_version`` (a resolved release). ``samples``: score
    that many samples per task and add pass@k. ``out``: the output directory (default place
    of the suite cache). ``progress``: progress on stderr. ``servers``: ``--bench``'s
    :class:`kgbench.neo4j.bench.BenchServers` (``graph_uris`` its map), the graphs'
    servers started and stopped graph at a time (CypherBench on Neo4j). ``ves_reps``:
    repetitions of the wall-time VES (``--metrics ves``, CypherBench and Spider4SPARQL; for
    Spider4SPARQL, ``metrics`` holds only the metrics it adds to EX and Exec: ``soft_f1``,
    ``r_ves``, ``ves``)."""

    uri: str | None = None
    user: str | None = None
    password: str | None = None
    database: str | None = None
    graph_uris: str | Path | Mapping[str, Any] | None = None
    timeout_s: float | None = None
    metrics: tuple[str, ...] | None = None
    metric_for_agg: str | None = None
    workers: int = 8
    gold_timeout_s: float | None = None
    cache_dir: Path | None = None
    keep_going: bool = False
    test_suite: int | None = None
    suite_graph: Path | None = None
    suite_cache: Path | None = None
    seed: int = 0
    rdf_dir: Path | None = None
    compat: str | None = None
    gold: str = "clean"
    clean_graph: Path | None = None
    neo4j_version: str | None = None
    samples: int | None = None
    out: Path | None = None
    progress: bool = False
    servers: Any = None
    ves_reps: int = 100


class Family:
    """One benchmark family (module docstring). Subclasses set the class attributes and
    implement :meth:`read_tasks`, :meth:`prompt_values`, :meth:`records`, :meth:`evaluate`
    and :meth:`read_output`; the other methods have defaults. An instance satisfies
    :class:`kgbench.predict.run.PredictFamily`."""

    #: The family's name (``--family``; ``aggregated_metrics.json`` ``family``).
    name: ClassVar[str]
    #: The query language its predictions are written in (``cypher`` or ``sparql``).
    language: ClassVar[str]
    #: The prediction file ``kgbench predict`` writes.
    prediction_file: ClassVar[str] = "predictions.json"
    #: The shipped prompt (``kgbench/predict/prompts/<name>.txt``) used by default.
    default_prompt: ClassVar[str]
    #: The placeholders every prompt of the family must have.
    placeholders: ClassVar[tuple[str, ...]]
    #: The stop sequence sent with each request (``None``: none).
    stop: ClassVar[str | None] = None
    #: Seconds per query of an evaluation without ``--timeout``.
    default_timeout_s: ClassVar[float] = 120.0
    #: Whether the evaluation needs a Neo4j server for every graph (``--uri`` /
    #: ``--graph-uris``, else the local server ``kgbench neo4j start`` runs).
    needs_server: ClassVar[bool] = False
    #: Whether ``kgbench run --samples K`` reports pass@k for the family.
    run_samples: ClassVar[bool] = True
    #: Whether ``kgbench evaluate`` scores several ``--predictions`` files in one pass
    #: (:meth:`evaluate_runs`).
    several_runs: ClassVar[bool] = False
    #: Whether the family has test-suite EX (``--test-suite``).
    has_test_suite: ClassVar[bool] = False
    #: Whether its evaluation takes ``--clean-graph`` (management predictions run on a
    #: disposable copy of the clean graph).
    takes_clean_graph: ClassVar[bool] = False

    # ------------------------------------------------------------------ predict

    def read_tasks(self, path: str | Path) -> list[dict[str, Any]]:
        """The family's tasks (each with ``qid`` and ``graph``), in file order.

        Raises:
            InputError: an unreadable file or a malformed record (names file and record)."""
        raise NotImplementedError

    def prompt_setting(self, sources: GraphSources) -> PromptSetting:
        """The default prompt, its placeholders and the graph handle (default: the class
        attributes, no handle)."""
        return PromptSetting(self.default_prompt, self.placeholders)

    def graph_contexts(
        self, tasks: Sequence[Mapping[str, Any]], sources: GraphSources, graph: Any
    ) -> dict[str, str]:
        """Graph name -> the prompt's context text for it (default: none needed, ``""``)."""
        return {str(t["graph"]): "" for t in tasks}

    def prompt_values(self, task: Mapping[str, Any], context: str) -> dict[str, str]:
        """Placeholder -> text for one task (``context``: its graph's context)."""
        raise NotImplementedError

    def postprocess(self, task: Mapping[str, Any]) -> Callable[[str], str]:
        """Reply text -> prediction text for ``task`` (default: stripped)."""
        return str.strip

    def records(
        self,
        tasks: Sequence[Mapping[str, Any]],
        prompts: Sequence[str],
        preds: Sequence[Sequence[str]],
        graph: Any,
    ) -> list[dict[str, Any]]:
        """The prediction records written to :attr:`prediction_file`, in task order
        (``preds``: the post-processed samples of each task)."""
        raise NotImplementedError

    def query_checker(
        self,
        tasks: Sequence[Mapping[str, Any]],
        sources: GraphSources,
        *,
        graph: Any = None,
        mode: str = "--repair",
    ) -> Any:
        """The :class:`kgbench.predict.repair.QueryChecker` that runs the predicted queries
        of ``--repair`` and the agent's ``run_query`` tool (``mode``: the option its errors
        name, ``--repair`` or ``--agent``) on the tasks' graphs; ``graph`` is the
        :class:`PromptSetting` graph of :meth:`prompt_setting` (a family whose queries run on
        it reuses it). Default: none.

        Raises:
            InputError: the family (or this setting) has no executable graph; one line
                naming ``mode`` and why."""
        raise InputError(
            f"{mode}: the {self.name} family has no graph its predicted queries run on"
        )

    # ----------------------------------------------------------------- evaluate

    def evaluate(
        self, tasks: Path, predictions: Path | None, options: EvaluateOptions
    ) -> Evaluation:
        """Score ``predictions`` (``None``: those the task file holds, where the family has
        them) against ``tasks``; with ``options.samples``, pass@k too.

        Raises:
            InputError: bad input or options (one line naming the file or option)."""
        raise NotImplementedError

    def evaluate_runs(self, tasks: Path, specs: Sequence[str], options: EvaluateOptions) -> int:
        """``kgbench evaluate`` with several ``--predictions`` (one leaderboard); only
        CypherBench has it.

        Raises:
            InputError: always, for a family without it."""
        raise InputError("several --predictions files are for Cypher tasks (--family cypherbench)")

    def finish(self, evaluation: Evaluation, aggregated_path: Path) -> int:
        """The exit code of ``kgbench evaluate`` once ``evaluation`` is written (default 0;
        a family may say on stderr why its results are incomplete and return 3)."""
        return 0

    def run_inputs(
        self, tasks: Path, predictions: Path, limit: int | None, predict_dir: Path
    ) -> tuple[Path, Path | None]:
        """The task and prediction files ``kgbench run`` scores after predicting ``tasks``
        into ``predictions``: with ``limit``, the first ``limit`` tasks written to
        ``predict_dir/tasks.json`` (so the evaluation scores the tasks predicted)."""
        if limit is None:
            return tasks, predictions
        from kgbench.fileio import write_json_atomic
        from kgbench.tasks import read_records

        return (
            write_json_atomic(
                predict_dir / "tasks.json", [r for _, r in read_records(tasks)[:limit]]
            ),
            predictions,
        )

    # ------------------------------------------------------------------- report

    @property
    def report_kind(self) -> str:
        """The kind ``kgbench report`` gives this family's evaluation output
        (:func:`kgbench.report.inputs.detect_kind`; default ``evaluate-<name>``)."""
        return f"evaluate-{self.name}"

    def read_output(self, path: Path, label: str, aggregated: Mapping[str, Any]) -> list[Any]:
        """The report's runs (:class:`kgbench.evaluate.readback.Run`) of the evaluation
        written in directory ``path``, labelled ``label``; ``aggregated`` is its
        ``aggregated_metrics.json``, already read (the report reads it once, to pick the
        family).

        Raises:
            InputError: a file of the wrong shape (names it)."""
        raise NotImplementedError

    def written_by(self, aggregated: Mapping[str, Any]) -> bool:
        """Whether an ``aggregated_metrics.json`` without ``family`` was written by this
        family (the key sniffing of files written before the field existed)."""
        return False


class SchemaFamily(Family):
    """A family whose prompt gets each graph's schema text (cypherbench, ngdbench): from
    ``--schema-dir`` or the graph's server."""

    def graph_contexts(
        self, tasks: Sequence[Mapping[str, Any]], sources: GraphSources, graph: Any
    ) -> dict[str, str]:
        """Each graph's schema text (:func:`kgbench.predict.run.schema_contexts`).

        Raises:
            InputError: a graph with neither a schema file nor a reachable server."""
        return schema_contexts(sorted({str(t["graph"]) for t in tasks}), sources)
