"""``kgbench diversity FILE``: PIPE-Cypher's diversity report of a benchmark file
(:func:`kgbench.generate.pipe.diversity.diversity_report_file`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

_EPILOG = """\
FILE is a JSON array or JSON Lines file of PIPE-Cypher export rows
  {"question", "cypher", "category", "graph_profile", "difficulty", "entity_values",
   "template", "template_metadata", ...}
or CypherBench Nl2CypherSample records {"nl_question", "gold_cypher", "graph",
"from_template", ...}. Rows without the parser analysis (signature, structural_features,
substructures, operator_combination, string_literals) are analysed in one batch.

Compat mode reproduces PIPE-Cypher's figures: entropy over the observed K, coverage
without intersecting with the schema. --strict uses the declared K (8 categories,
graphs x categories, 3 difficulties) and counts only names in the schema (spec §7).
"""


def register(subparsers: Any) -> None:
    """Add ``kgbench diversity`` to the kgbench parser."""
    p = subparsers.add_parser(
        "diversity",
        help="PIPE-Cypher diversity metrics of a text-to-Cypher benchmark file",
        description="Measure the lexical, query-template, structural, schema, value and "
        "balance diversity of a benchmark and combine them into PIPE-Diversity (their "
        "geometric mean). Prints the headline figures; --out writes the full JSON report.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", type=Path, metavar="FILE", help="benchmark rows (.json or .jsonl)")
    p.add_argument(
        "--schema",
        type=Path,
        action="append",
        metavar="SCHEMA.json",
        help="profile schema.json to measure coverage against (repeatable: one per graph; "
        "default: coverage of the used names)",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="entropy over the declared K and schema-intersected coverage (spec §7)",
    )
    p.add_argument(
        "--sample-size",
        type=int,
        default=200,
        metavar="N",
        help="questions used for self-BLEU and Jaccard similarity (default: 200)",
    )
    p.add_argument("--out", type=Path, metavar="REPORT.json", help="write the full report")
    p.set_defaults(func=run)


def _write_json(path: Path, data: Any) -> None:
    """Write ``data`` to ``path`` atomically (:func:`kgbench.fileio.write_json_atomic`)."""
    from kgbench.fileio import write_json_atomic

    write_json_atomic(path, data)


def summary_lines(report: dict[str, Any]) -> list[str]:
    """The headline figures of a :func:`~kgbench.generate.pipe.diversity.diversity_report`
    as table lines."""
    index = report["pipe_diversity_index"]
    text = report["question_text"]
    templates = report["query_templates"]
    properties = report["schema_coverage"]["properties"]
    cells = report["distributions"]["graph_category"]
    lines = [
        f"rows                      {report['n']}  ({report['mode']} mode)",
        f"PIPE-Diversity            {index['score']:.3f}",
    ]
    lines += [f"  {name:<23} {value:.3f}" for name, value in index["components"].items()]
    lines += [
        f"Distinct-2                {text['distinct_2']:.3f}",
        f"EAD-2                     {text['ead_distinct_2']:.3f}",
        f"self-BLEU-2               {text['self_bleu_2_sampled']:.3f}",
        "NN-Jaccard                "
        f"{text['pairwise_jaccard_sampled']['mean_nearest_neighbor_jaccard']:.3f}",
        f"signature ratio           {templates['unique_signature_ratio']:.3f}"
        f"  ({templates['unique_signature_count']} signatures)",
        "substructures             "
        f"{report['structural_substructures']['unique_substructure_count']}",
        f"property coverage         {properties['coverage']:.3f}"
        f"  ({properties['used_count']} used, {properties['available_count'] or '-'} in schema)",
        "exact-quoted rate         "
        f"{report['value_grounding']['entity_values_exact_quoted_rate']:.3f}",
        f"graph×category H/log2 K   {cells['normalized_entropy']:.3f}"
        f"  (H {cells['entropy_bits']:.3f} bits, K {cells['k']})",
    ]
    if report.get("n_syntax_invalid"):
        lines.append(f"unparsed queries          {report['n_syntax_invalid']}")
    return lines


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench diversity``."""
    from kgbench.generate.pipe.diversity import diversity_report_file

    report = diversity_report_file(
        args.file, schema=args.schema, sample_size=args.sample_size, strict=args.strict
    )
    lines = summary_lines(report)
    if args.out is not None:
        _write_json(args.out, report)
        lines.append(f"report                    {args.out}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
