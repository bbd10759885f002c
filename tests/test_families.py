"""The benchmark-family layer (issue 40): the registry, the family recorded in every
``aggregated_metrics.json`` and read back by the report (with the key sniffing kept for files
written before), the layering of predict / evaluate / families, and a toy family registered at
test time that goes ``kgbench run`` (predict against the chat-completions test double ->
evaluate -> report) through the same dispatch as the shipped families."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from chat_completions_double import ChatCompletionsTestDouble, Messages, last_user_content
from kgbench import __version__
from kgbench.cli import main
from kgbench.errors import InputError
from kgbench.evaluate.outputs import Evaluation
from kgbench.evaluate.readback import Metric, Run, TaskRow
from kgbench.families import EvaluateOptions, Family, family_of, get, names, register, unregister
from kgbench.report.inputs import detect_kind, load_inputs
from test_import_cycles import import_graph

# --------------------------------------------------------------------------------------------
# a toy family: capitals, one word per answer, scored by exact match


@dataclass
class ToyEvaluation(Evaluation):
    """Exact-match scores of the toy family."""

    family: str = "toyqa"

    def table(self) -> str:
        """``exact_match <value>``."""
        return f"exact_match {self.aggregated['overall']['exact_match']:.4f}"


EXACT = Metric("exact_match", "Exact match")


class ToyQA(Family):
    """Questions ``{qid, question, answer}``; the model answers in one word."""

    name = "toyqa"
    language = "text"
    default_prompt = ""  # set per test: a template file
    placeholders = ("question",)

    def read_tasks(self, path: str | Path) -> list[dict[str, Any]]:
        records = json.loads(Path(path).read_text(encoding="utf-8"))
        return [{**r, "graph": "toy"} for r in records]

    def prompt_values(self, task: Mapping[str, Any], context: str) -> dict[str, str]:
        return {"question": str(task["question"])}

    def postprocess(self, task: Mapping[str, Any]) -> Callable[[str], str]:
        return lambda reply: reply.strip().rstrip(".").lower()

    def records(
        self,
        tasks: Sequence[Mapping[str, Any]],
        prompts: Sequence[str],
        preds: Sequence[Sequence[str]],
        graph: Any,
    ) -> list[dict[str, Any]]:
        return [{"qid": t["qid"], "prediction": s[0]} for t, s in zip(tasks, preds, strict=True)]

    def evaluate(
        self, tasks: Path, predictions: Path | None, options: EvaluateOptions
    ) -> Evaluation:
        assert predictions is not None
        gold = {t["qid"]: t for t in self.read_tasks(tasks)}
        records = []
        for p in json.loads(predictions.read_text(encoding="utf-8")):
            task = gold[p["qid"]]
            score = float(p["prediction"] == task["answer"])
            metrics = {"exact_match": score}
            records.append({**task, "prediction": p["prediction"], "metrics": metrics})
        mean = sum(r["metrics"]["exact_match"] for r in records) / len(records)
        return ToyEvaluation(records, {"overall": {"exact_match": mean}})

    def read_output(self, path: Path, label: str, aggregated: Mapping[str, Any]) -> list[Any]:
        records = json.loads((path / "result_with_metrics.json").read_text(encoding="utf-8"))
        rows = [
            TaskRow(
                qid=str(r["qid"]),
                question=r["question"],
                gold=r["answer"],
                prediction=r["prediction"],
                verdict="correct" if r["metrics"]["exact_match"] == 1 else "wrong",
                metrics=dict(r["metrics"]),
            )
            for r in records
        ]
        return [Run(label, path, "evaluate --family toyqa", [EXACT], aggregated["overall"], rows)]


@pytest.fixture
def toy(tmp_path: Path) -> Iterator[ToyQA]:
    family = ToyQA()
    template = tmp_path / "toy_prompt.txt"
    template.write_text("Answer in one word. {question}\n", encoding="utf-8")
    family.default_prompt = str(template)
    register(family)
    try:
        yield family
    finally:
        unregister(family.name)


CAPITALS = {"France": "paris", "Italy": "rome", "Spain": "madrid"}


def _reply(messages: Messages) -> str:
    """The capital of the country in the question, but Madrid's is wrong."""
    country = re.search(r"capital of (\w+)", last_user_content(messages))
    assert country is not None
    return "Barcelona." if country.group(1) == "Spain" else CAPITALS[country.group(1)].title()


def test_toy_family_goes_predict_evaluate_report(
    toy: ToyQA, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = [
        {"qid": f"q{i}", "question": f"What is the capital of {c}?", "answer": a}
        for i, (c, a) in enumerate(CAPITALS.items())
    ]
    tasks_path = tmp_path / "tasks.json"
    tasks_path.write_text(json.dumps(tasks), encoding="utf-8")
    out = tmp_path / "run"
    with ChatCompletionsTestDouble(_reply) as server:
        code = main(
            ["run", "--family", "toyqa", "--tasks", str(tasks_path), "--base-url", server.url,
             "--model", "toy-model", "--out", str(out)]
        )  # fmt: skip
        # the prompt is the toy's template filled per task (requests run concurrently)
        assert sorted(last_user_content(r["messages"]) for r in server.requests) == sorted(
            f"Answer in one word. {t['question']}\n" for t in tasks
        )
    assert code == 0
    printed = capsys.readouterr().out
    assert "exact_match 0.6667" in printed
    # predict: the toy's records, post-processed replies
    preds = json.loads((out / "predict" / "predictions.json").read_text(encoding="utf-8"))
    assert preds == [
        {"qid": "q0", "prediction": "paris"},
        {"qid": "q1", "prediction": "rome"},
        {"qid": "q2", "prediction": "barcelona"},
    ]
    run = json.loads((out / "predict" / "run.json").read_text(encoding="utf-8"))
    assert run["family"] == "toyqa" and run["counts"]["tasks"] == 3
    # evaluate: the one atomic write, with the family and version recorded last
    agg_text = (out / "evaluation" / "aggregated_metrics.json").read_text(encoding="utf-8")
    agg = json.loads(agg_text)
    assert list(agg) == ["overall", "family", "kgbench_version"]
    assert agg == {
        "overall": {"exact_match": pytest.approx(2 / 3)},
        "family": "toyqa",
        "kgbench_version": __version__,
    }
    # report: the registry's family read its own output back
    assert detect_kind(out / "evaluation") == "evaluate-toyqa"
    inputs = load_inputs([out / "evaluation"])
    (read,) = inputs.runs
    assert read.kind == "evaluate --family toyqa"
    assert [(r.qid, r.verdict) for r in read.rows] == [
        ("q0", "correct"),
        ("q1", "correct"),
        ("q2", "wrong"),
    ]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "barcelona" in html and "madrid" in html


# --------------------------------------------------------------------------------------------
# the registry


def test_registry_lists_the_families_and_names_them_in_errors() -> None:
    assert names()[:5] == ("cypherbench", "spider4sparql", "text2cypher", "gtsqa", "ngdbench")
    assert {get(n).name for n in names()} == set(names())
    assert get("cypherbench").prediction_file == "result.json"
    assert get("spider4sparql").language == "sparql"
    with pytest.raises(InputError, match=r"unknown family 'nope' \(one of cypherbench, spider4"):
        get("nope")
    with pytest.raises(InputError, match=r"agg.json: family 'nope' is not a known family"):
        family_of({"family": "nope"}, "agg.json")


def test_cli_rejects_an_unknown_family(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["predict", "--family", "toyqa", "--tasks", "t", "--model", "m", "--out", "o"])
    assert exc.value.code == 2
    assert "invalid choice: 'toyqa'" in capsys.readouterr().err


#: ``aggregated_metrics.json`` shapes of each family as written before the ``family`` field.
LEGACY = {
    "spider4sparql": {"overall": {"execution_accuracy": 1.0}, "by_hardness": {}, "by_graph": {}},
    "ngdbench": {"gold": "clean", "overall": {}, "counts": {"tasks": 1}, "oracle": {}},
    "gtsqa": {"overall": {"hits": 1.0, "recall": 1.0}, "kg": "wikidata", "counts": {}},
    "text2cypher": {"overall": {"google_bleu": 0.5, "exact_match": 0.0}, "by_graph": {}},
    "cypherbench": {"overall": {"execution_accuracy": 1.0}, "by_graph": {}, "by_match": {}},
}


@pytest.mark.parametrize("name", sorted(LEGACY))
def test_family_read_from_the_field_else_from_the_keys(name: str) -> None:
    assert family_of(LEGACY[name]).name == name  # written before the field existed
    for other in LEGACY:  # the field wins over the keys
        assert family_of({**LEGACY[name], "family": other}).name == other


def test_report_kind_from_the_family_field_and_the_legacy_keys(tmp_path: Path) -> None:
    records = [{"qid": "a", "metrics": {"google_bleu": 1.0}, "question": "q", "cypher": "c"}]
    for name, family in (("old", None), ("new", "text2cypher"), ("field_wins", "cypherbench")):
        d = tmp_path / name
        d.mkdir()
        agg = dict(LEGACY["text2cypher"], counts={"tasks": 1})
        if family is not None:
            agg |= {"family": family, "kgbench_version": __version__}
        (d / "aggregated_metrics.json").write_text(json.dumps(agg), encoding="utf-8")
        (d / "result_with_metrics.json").write_text(json.dumps(records), encoding="utf-8")
    assert detect_kind(tmp_path / "old") == "evaluate-text2cypher"
    assert detect_kind(tmp_path / "new") == "evaluate-text2cypher"
    assert detect_kind(tmp_path / "field_wins") == "evaluate"


def test_every_evaluation_records_its_family(tmp_path: Path) -> None:
    """``kgbench evaluate --family text2cypher`` (no server): the family and version close
    ``aggregated_metrics.json``; the other keys are the scorer's."""
    tasks = tmp_path / "t2c.jsonl"
    tasks.write_text(
        json.dumps({"question": "q", "schema": "s", "cypher": "MATCH (n) RETURN n",
                    "pred_cypher": "MATCH (n) RETURN n"}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    out = tmp_path / "ev"
    argv = ["evaluate", "--family", "text2cypher", "--tasks", str(tasks), "--out", str(out)]
    assert main(argv) == 0
    text = (out / "aggregated_metrics.json").read_text(encoding="utf-8")
    agg = json.loads(text)
    assert list(agg)[-2:] == ["family", "kgbench_version"]
    assert agg["family"] == "text2cypher" and agg["kgbench_version"] == __version__
    assert agg["overall"]["exact_match"] == 1.0
    assert text.endswith('"kgbench_version": "' + __version__ + '"\n}\n')


# --------------------------------------------------------------------------------------------
# layering


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.mark.parametrize(
    ("package", "above"),
    [
        ("predict", {"evaluate", "families", "commands", "report", "demo"}),
        ("evaluate", {"predict", "families", "commands", "report", "demo"}),
        ("families", {"commands", "report", "demo", "cli"}),
    ],
)
def test_stage_packages_import_nothing_above_or_beside(package: str, above: set[str]) -> None:
    """predict and evaluate import nothing of each other (nor of the family layer or above),
    at module level or inside functions; the families import no command, report or demo."""
    graph = import_graph()
    bad = sorted(
        (m, t)
        for m, targets in graph.items()
        if _package(m) == package
        for t in targets
        if _package(t) in above
    )
    assert bad == []
