"""``kgbench synth stats`` on a hand-made GTSQA-format file whose Table 1 statistics are
computed by hand below (spec synthkgqa.md §2 record names, §5 Table 1)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from convert_helpers import run_kgbench
from kgbench.errors import InputError
from kgbench.generate.synth.stats import format_item_stats, item_stats

Y, AVIV, FL = (
    "Yehonatan Geffen (Q2911403)",
    "Aviv Geffen (Q2913493)",
    "Francis Lickerish (Q3720616)",
)
GUITAR, PIANO = "guitar (Q6607)", "piano (Q5994)"
CHILD, INSTR = "child (P40)", "instrument (P1303)"
PARIS, LYON, BERLIN, FRANCE, ORG = (
    "Paris (Q90)",
    "Lyon (Q456)",
    "Berlin (Q64)",
    "France (Q142)",
    "Org (Q100)",
)
COUNTRY, MEMBER, TWIN = "country (P17)", "member of (P463)", "twinned administrative body (P190)"


def item(
    id_: int,
    seeds: list[str],
    triples: list[list[str]],
    hops: int,
    iso: str,
    redundant: bool,
    answers: list[str],
    test_type: list[str],
) -> dict[str, Any]:
    return {
        "id": id_,
        "question": f"question {id_}?",
        "seed_entities": seeds,
        "answer_subgraph": triples,
        "n_hops": hops,
        "graph_isomorphism": iso,
        "redundant": redundant,
        "all_answers_wikidata": answers,
        "test_type": test_type,
    }


ITEMS = [
    # 1 train: the spec §5 example, type (2)(1) written (1)(2), redundant.
    item(
        1,
        [Y, FL],
        [[Y, CHILD, AVIV], [AVIV, INSTR, GUITAR], [FL, INSTR, GUITAR]],
        2,
        "(1)(2)",
        True,
        ["Q6607"],
        ["training"],
    ),
    # 2 train: (1)
    item(2, [PARIS], [[PARIS, COUNTRY, FRANCE]], 1, "(1)", False, ["Q142"], ["training"]),
    # 3 train: (1)(1), two answers
    item(
        3,
        [AVIV, FL],
        [[AVIV, INSTR, GUITAR], [FL, INSTR, GUITAR]],
        1,
        "(1)(1)",
        False,
        ["Q6607", "Q5994"],
        ["training"],
    ),
    # 4 test (in-distribution): (2), three answers
    item(
        4,
        [Y],
        [[Y, CHILD, AVIV], [AVIV, INSTR, PIANO]],
        2,
        "(2)",
        False,
        ["Q6607", "Q5994", "Q17172850"],
        ["in_distribution"],
    ),
    # 5 test (ugt + urt): ((1)(1)); Paris relabelled, still Q90
    item(
        5,
        ["Paris (city) (Q90)", LYON],
        [["Paris (city) (Q90)", MEMBER, ORG], [LYON, MEMBER, ORG], [ORG, COUNTRY, FRANCE]],
        2,
        "((1)(1))",
        False,
        ["Q142"],
        ["unseen_graph_type", "unseen_relation_type"],
    ),
    # 6 train: (2)(1), redundant
    item(
        6,
        [BERLIN, LYON],
        [[BERLIN, TWIN, PARIS], [PARIS, COUNTRY, FRANCE], [LYON, COUNTRY, FRANCE]],
        2,
        "(2)(1)",
        True,
        ["Q142"],
        ["training"],
    ),
]

# By hand:
# train = items 1, 2, 3, 6
#   relations P40, P1303, P17, P190 = 4
#   entities Q2911403 Q2913493 Q6607 Q3720616 Q90 Q142 Q64 Q456 = 8
#   types (2)(1) (1) (1)(1) = 3; redundant 2
#   seeds 2+1+2+2 = 7 -> 1.75; hops 2+1+1+2 = 6 -> 1.5; answers 1+1+2+1 -> 1.25;
#   edges 3+1+2+3 = 9 -> 2.25
# test = items 4, 5
#   relations P40 P1303 P463 P17 = 4; entities Q2911403 Q2913493 Q5994 Q90 Q456 Q100 Q142 = 7
#   types (2) ((1)(1)) = 2; redundant 0; seeds 1.5; hops 2.0; answers 2.0; edges 2.5
# all: relations 5; entities 8 + Q5994, Q100 = 10; types 5; redundant 2;
#   seeds 10/6, hops 10/6, answers 9/6, edges 14/6
EXPECTED = {
    "train": {
        "questions": 4,
        "relations": 4,
        "entities": 8,
        "isomorphism_types": 3,
        "non_minimal": 2,
        "mean_seeds": 1.75,
        "mean_hops": 1.5,
        "mean_answers": 1.25,
        "mean_gt_edges": 2.25,
    },
    "test": {
        "questions": 2,
        "relations": 4,
        "entities": 7,
        "isomorphism_types": 2,
        "non_minimal": 0,
        "mean_seeds": 1.5,
        "mean_hops": 2.0,
        "mean_answers": 2.0,
        "mean_gt_edges": 2.5,
    },
    "all": {
        "questions": 6,
        "relations": 5,
        "entities": 10,
        "isomorphism_types": 5,
        "non_minimal": 2,
        "mean_seeds": 10 / 6,
        "mean_hops": 10 / 6,
        "mean_answers": 9 / 6,
        "mean_gt_edges": 14 / 6,
    },
    "test_categories": {
        "in_distribution": 1,
        "unseen_relation_type": 0,
        "unseen_graph_type": 1,
    },
}


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_kgbench("synth", "stats", *args)


def test_stats_by_hand(tmp_path: Path) -> None:
    stats = item_stats(write(tmp_path / "items.jsonl", ITEMS))
    got = stats.to_json()
    for split in ("train", "test", "all"):
        assert got[split] == pytest.approx(EXPECTED[split]), split
    assert got["test_categories"] == EXPECTED["test_categories"]
    # Two files are pooled: the same numbers.
    a = write(tmp_path / "train.jsonl", [r for r in ITEMS if r["test_type"] == ["training"]])
    b = write(tmp_path / "test.jsonl", [r for r in ITEMS if r["test_type"] != ["training"]])
    assert item_stats([a, b]).to_json()["all"] == pytest.approx(EXPECTED["all"])


def test_table_output(tmp_path: Path) -> None:
    path = write(tmp_path / "items.jsonl", ITEMS)
    proc = run_cli(str(path))
    assert proc.returncode == 0, proc.stderr
    rows = {line.rsplit(None, 3)[0]: line.rsplit(None, 3)[1:] for line in proc.stdout.splitlines()}
    assert rows["statistic"] == ["train", "test", "all"]
    assert rows["questions"] == ["4", "2", "6"]
    assert rows["relations"] == ["4", "4", "5"]
    assert rows["entities"] == ["8", "7", "10"]
    assert rows["isomorphism types"] == ["3", "2", "5"]
    assert rows["non-minimal (redundant)"] == ["2", "0", "2"]
    assert rows["mean seeds"] == ["1.75", "1.50", "1.67"]
    assert rows["mean hops"] == ["1.50", "2.00", "1.67"]
    assert rows["mean answers"] == ["1.25", "2.00", "1.50"]
    assert rows["mean GT edges"] == ["2.25", "2.50", "2.33"]
    assert "in_distribution 1, unseen_relation_type 0, unseen_graph_type 1" in proc.stdout
    proc = run_cli(str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["train"] == pytest.approx(EXPECTED["train"])


def test_empty_split_and_kg_field(tmp_path: Path) -> None:
    records = [dict(r) for r in ITEMS[:2]]
    for r in records:
        r["all_answers_wikikg2"] = [*r.pop("all_answers_wikidata"), "Q1"]
    stats = item_stats(write(tmp_path / "kg2.jsonl", records))  # the only all_answers* field
    assert stats.test.questions == 0 and stats.test.mean_hops is None
    assert stats.train.mean_answers == pytest.approx(2.0)
    text = format_item_stats(stats)
    assert text.splitlines()[6].split()[-3:] == ["1.50", "-", "1.50"]  # mean seeds
    both = [dict(r, all_answers_wikidata=["Q2"]) for r in records]
    path = write(tmp_path / "both.jsonl", both)
    assert item_stats(path).train.mean_answers == pytest.approx(1.0)  # wikidata preferred
    assert item_stats(path, kg="wikikg2").train.mean_answers == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"n_hops": None}, r"line 2: field 'n_hops' must be a non-negative integer"),
        ({"graph_isomorphism": "(1"}, r"line 2: field 'graph_isomorphism': invalid isomorphism"),
        ({"test_type": []}, r"line 2: field 'test_type' must be a non-empty list"),
        ({"test_type": ["validation"]}, r"line 2: unknown test_type 'validation'"),
        ({"redundant": "no"}, r"line 2: field 'redundant' must be true or false"),
        ({"answer_subgraph": [["a", "b"]]}, r"line 2: answer_subgraph\[0\] must be"),
    ],
)
def test_errors_name_file_and_line(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    path = write(tmp_path / "bad.jsonl", [ITEMS[0], dict(ITEMS[1], **change)])
    with pytest.raises(InputError, match=message) as info:
        item_stats(path)
    assert str(path) in str(info.value)


def test_cli_errors(tmp_path: Path) -> None:
    records = [{k: v for k, v in ITEMS[0].items() if k != "all_answers_wikidata"}]
    path = write(tmp_path / "noanswers.jsonl", records)
    proc = run_cli(str(path))
    assert proc.returncode == 1
    assert "line 1: missing field 'all_answers_wikidata'" in proc.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json}\n", encoding="utf-8")
    proc = run_cli(str(bad))
    assert proc.returncode == 1 and f"{bad} line 1: invalid JSON" in proc.stderr
