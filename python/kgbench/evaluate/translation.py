"""Translation metrics of text-to-Cypher predictions: Google-BLEU and exact match on the query
text, as Neo4j's Text2Cypher (2024) work reports them (``kgbench evaluate --family
text2cypher``).

Definitions, as the Hugging Face ``evaluate`` metrics the Text2Cypher work uses:

- **Google-BLEU** (GLEU; Wu et al. 2016, "Google's Neural Machine Translation System", §7):
  both texts tokenized with sacreBLEU's ``13a`` tokenizer (:func:`tokenize_13a`, equal to
  sacreBLEU 2.x's ``Tokenizer13a`` on real Cypher and random text, a test checks it); the n-grams
  of orders 1 to 4 of prediction and reference are counted; GLEU = matching n-grams /
  max(prediction n-grams, reference n-grams), i.e. min(precision, recall). The corpus score
  (``overall.google_bleu``) sums the matches and the totals over all tasks before dividing
  (NLTK's ``corpus_gleu``, which ``evaluate``'s ``google_bleu`` calls); each task's record
  gets its own sentence score.
- **Exact match**: 1 when the prediction string equals the reference string exactly (no
  normalisation: ``evaluate``'s ``exact_match`` defaults), else 0; the mean over tasks.

A missing prediction is the empty string (GLEU 0, exact match 0 unless the reference is
empty too).

**Execution metrics** (``graph_uris``: ``database_reference_alias`` -> a Neo4j server, the
``--graph-uris`` map of ``kgbench evaluate``): the records whose alias has a server are scored
as CypherBench tasks by :func:`kgbench.evaluate.runner.evaluate` (``graph`` = the alias,
``gold_cypher`` = ``cypher``): ``execution_accuracy`` (EX) and ``executable`` (Exec), definitions
in metrics.md §1 and §3. They join the record's ``metrics`` (and the gold result's
``uninformative`` flag, metrics.md §1, its ``uninformative`` field); ``aggregated_metrics.json``
gets ``execution {overall: {execution_accuracy, executable, tasks}, by_graph: {alias: {…}},
not_executed: {alias: n}}`` — the means over the executed records, and the records of aliases
without a server (counted, no execution metrics). A record whose gold query fails is left out
of the execution means (``excluded`` of the runner, counted as ``gold_failed``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.evaluate.outputs import Evaluation

#: sacreBLEU's 13a rules (mteval-v13a): punctuation and symbols split off; period and comma
#: split unless between digits; a dash after a digit split.
_RULES_13A = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def tokenize_13a(line: str) -> list[str]:
    """The tokens of ``line`` under sacreBLEU's ``13a`` tokenizer (as ``evaluate``'s
    ``google_bleu`` applies it)."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&")
        line = line.replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} "
    for pattern, repl in _RULES_13A:
        line = pattern.sub(repl, line)
    return line.split()


def _ngrams(tokens: Sequence[str], max_n: int = 4) -> Counter[tuple[str, ...]]:
    out: Counter[tuple[str, ...]] = Counter()
    for n in range(1, max_n + 1):
        for i in range(len(tokens) - n + 1):
            out[tuple(tokens[i : i + n])] += 1
    return out


def gleu_counts(prediction: str, reference: str) -> tuple[int, int]:
    """(matching n-grams, max(prediction n-grams, reference n-grams)) for orders 1-4."""
    hyp, ref = _ngrams(tokenize_13a(prediction)), _ngrams(tokenize_13a(reference))
    return sum((hyp & ref).values()), max(sum(hyp.values()), sum(ref.values()))


def google_bleu(predictions: Sequence[str], references: Sequence[str]) -> float:
    """Corpus Google-BLEU of ``predictions`` against ``references`` (module docstring)."""
    match = total = 0
    for p, r in zip(predictions, references, strict=True):
        m, n = gleu_counts(p, r)
        if n:
            match, total = match + m, total + n
    return match / total if total else 0.0


@dataclass
class TranslationEvaluation(Evaluation):
    """Scored records and the aggregate ``{overall: {google_bleu, exact_match}, by_graph,
    counts}``."""

    family: str = field(default="text2cypher", kw_only=True)
    error_counts: dict[str, int] = field(default_factory=dict)

    def table(self) -> str:
        """The aggregate as a printable table."""
        lines = [f"overall ({self.aggregated['counts']['tasks']} tasks)"]
        for name, value in self.aggregated["overall"].items():
            lines.append(f"  {name:<32} {value:>8.4f}")
        lines.append("by_graph (google_bleu)")
        for name, value in self.aggregated["by_graph"].items():
            lines.append(f"  {name:<32} {value:>8.4f}")
        ex = self.aggregated.get("execution")
        if ex is not None:
            lines.append(f"execution ({ex['overall']['tasks']} tasks on a server)")
            for name in ("execution_accuracy", "executable"):
                lines.append(f"  {name:<32} {ex['overall'][name]:>8.4f}")
            for g, block in ex["by_graph"].items():
                lines.append(
                    f"  {g:<32} EX {block['execution_accuracy']:.4f}  "
                    f"Exec {block['executable']:.4f}"
                )
        return "\n".join(lines)


def evaluate_translation(
    tasks: str | Path,
    predictions: str | Path | None = None,
    *,
    graph_uris: str | Path | Mapping[str, Any] | None = None,
    user: str | None = None,
    password: str | None = None,
    timeout_s: float = 30.0,
) -> TranslationEvaluation:
    """Score Text2Cypher records (``question``, ``cypher``, ...; the files ``kgbench predict
    --family text2cypher`` reads and writes) by Google-BLEU and exact match, and by EX and
    Exec on the server of each ``database_reference_alias`` in ``graph_uris`` (module
    docstring; ``timeout_s`` seconds per query).

    Predictions: ``pred_cypher`` of the task records, or of ``predictions`` (records aligned
    by ``instance_id`` when every record has one, else by position).

    Raises:
        InputError: a record without a string ``cypher``, prediction records that do not align."""
    from kgbench.evaluate.aggregate import mean4
    from kgbench.tasks import read_text2cypher_tasks as read_tasks

    items = read_tasks(tasks)
    preds: list[Any] = [t["record"].get("pred_cypher") for t in items]
    if predictions is not None:
        recs = [t["record"] for t in read_tasks_loose(predictions)]
        if all(r.get("instance_id") for r in recs):
            by_id = {str(r["instance_id"]): r.get("pred_cypher") for r in recs}
            preds = [by_id.get(t["qid"]) for t in items]
        elif len(recs) == len(items):
            preds = [r.get("pred_cypher") for r in recs]
        else:
            raise InputError(
                f"{predictions}: {len(recs)} predictions without instance_id for {len(items)} "
                "tasks: positional predictions must align one to one"
            )
    records, hyps, refs = [], [], []
    missing = 0
    groups: dict[str, list[tuple[int, int]]] = {}
    for t, pred in zip(items, preds, strict=True):
        gold = t["record"].get("cypher")
        if not isinstance(gold, str):
            raise InputError(f"{tasks}: task {t['qid']}: field 'cypher' must be a string")
        text = pred if isinstance(pred, str) else ""
        missing += not isinstance(pred, str)
        m, n = gleu_counts(text, gold)
        rec = {**t["record"], "pred_cypher": pred}
        rec["metrics"] = {
            "google_bleu": m / n if n else 0.0,
            "exact_match": 1.0 if text == gold else 0.0,
        }
        records.append(rec)
        hyps.append(text)
        refs.append(gold)
        groups.setdefault(t["graph"], []).append((m, n))
    by_graph = {
        g: round(sum(m for m, _ in v) / tot, 4) if (tot := sum(n for _, n in v)) else 0.0
        for g, v in sorted(groups.items())
    }
    aggregated = {
        "overall": {
            "google_bleu": round(google_bleu(hyps, refs), 4),
            "exact_match": mean4([r["metrics"]["exact_match"] for r in records]),
        },
        "by_graph": by_graph,
        "counts": {"tasks": len(records), "missing_predictions": missing},
    }
    if graph_uris is not None:
        aggregated["execution"] = _execution(items, records, graph_uris, user, password, timeout_s)
    return TranslationEvaluation(records, aggregated, {"missing": missing} if missing else {})


def _execution(
    items: Sequence[Mapping[str, Any]],
    records: list[dict[str, Any]],
    graph_uris: str | Path | Mapping[str, Any],
    user: str | None,
    password: str | None,
    timeout_s: float,
) -> dict[str, Any]:
    """EX and Exec of the records whose alias has a server (module docstring); adds them to
    the records' ``metrics`` and returns the ``execution`` block."""
    from kgbench.evaluate.runner import evaluate, load_graph_targets

    targets = load_graph_targets(graph_uris, user, password)
    tasks, not_executed = [], Counter[str]()
    for i, (t, rec) in enumerate(zip(items, records, strict=True)):
        if t["graph"] not in targets:
            not_executed[t["graph"]] += 1
            continue
        tasks.append(
            {
                "qid": str(i),
                "graph": t["graph"],
                "gold_cypher": rec["cypher"],
                "nl_question": t["question"],
                "pred_cypher": rec["pred_cypher"] if isinstance(rec["pred_cypher"], str) else None,
            }
        )
    names = ("execution_accuracy", "executable")
    block: dict[str, Any] = {
        "overall": {n: 0.0 for n in names} | {"tasks": 0},
        "by_graph": {},
        "not_executed": dict(sorted(not_executed.items())),
        "gold_failed": 0,
    }
    if not tasks:
        return block
    result = evaluate(
        tasks,
        None,
        user=user,
        password=password,
        graph_uris=graph_uris,
        metrics="ex,exec",
        timeout_s=timeout_s,
        log=lambda _: None,
    )
    block["gold_failed"] = len(result.excluded)
    groups: dict[str, list[dict[str, float]]] = {}
    for r in result.records:
        m = {n: float(r["metrics"][n]) for n in names}
        records[int(r["qid"])]["metrics"].update(m)
        if "uninformative" in r:
            records[int(r["qid"])]["uninformative"] = r["uninformative"]
        groups.setdefault(str(r["graph"]), []).append(m)
    scored = [m for ms in groups.values() for m in ms]

    def means(ms: Sequence[dict[str, float]]) -> dict[str, Any]:
        return {n: round(sum(m[n] for m in ms) / len(ms), 4) for n in names} | {"tasks": len(ms)}

    if scored:
        block["overall"] = means(scored)
    block["by_graph"] = {g: means(ms) for g, ms in sorted(groups.items())}
    return block


def read_tasks_loose(path: str | Path) -> list[dict[str, Any]]:
    """Prediction records (any fields) as :func:`kgbench.tasks.read_text2cypher_tasks`
    wraps them, without requiring ``question`` / ``schema``."""
    from kgbench.tasks import read_table_records

    return [{"record": rec} for _w, rec in read_table_records(Path(path))]
