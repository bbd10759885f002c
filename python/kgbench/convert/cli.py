"""``kgbench convert``: Wikidata RDF or entity JSON → CypherBench property graph."""

from __future__ import annotations

import argparse
from typing import Any

_DESCRIPTION = """\
Convert Wikidata RDF (N-Triples or Turtle) or Wikidata entity JSON (the
latest-all.json dump, JSON lines, Special:EntityData / wbgetentities output) --
plain, .gz or .bz2, files or '-' for stdin; format and compression detected from
the content -- to a CypherBench property graph, following a CypherBench conversion schema
(the WDNeo4jSchema JSON, accepted unchanged; kgbench/docs/formats.md §1) with the
original engine's semantics: class membership by P31/P279*, $LINKED_TO /
$HAS_PROPERTY / $FROM_RELATION, English labels, datatype / date-precision / unit
rules, rank filtering, relation merge, max_entities_per_root sampling.

Writes to --out DIR:
  graph.json          the SimpleKG graph (kgbench/docs/formats.md §2), deterministic
  entities.parquet    the entities as typed columns (unless --no-parquet)
  relations.parquet   the relations as typed columns (unless --no-parquet)
  report.json         counts: triples read, entities / relations kept, relations
                      dropped for out-of-scope ends, dropped values by reason

Malformed RDF or entity JSON stops the run with file, line, byte offset and an
excerpt, and writes nothing; --skip-invalid counts and skips the smallest bad
unit instead (an N-Triples line, one triple of a Turtle statement, one JSON
entity line). .bz2 inputs are decompressed in parallel by blocks, multi-member
.gz by members.

A run that keeps no entity says why on stderr, per entity label: the items of
the class had no English label, the wd_constraints excluded them, or no item
matched the class (then the most frequent wdt:P31 classes of the input are
listed, read again from at most the first 2,000,000 triples).

Documentation (shipped inside the kgbench package, in kgbench/docs/): formats.md
§1-§3 (schema, graph, output files, report.json) and differences.md, section
Conversion (where kgbench deliberately differs from the original engine).
"""

_EPILOG = """\
examples:
  kgbench convert --schema nba.json latest-truthy.nt.bz2 --out out/nba
  kgbench convert --schema nba.json latest-all.json.bz2 --out out/nba
  zcat part-*.nt.gz | kgbench convert --schema s.json - --format nt --out out/s
  kgbench convert --schema s.json Q42.ttl Q64.ttl --out out/x --max-entities-per-root 100
"""


def register(subparsers: Any) -> None:
    """Add ``kgbench convert`` to the kgbench parser."""
    p = subparsers.add_parser(
        "convert",
        help="convert Wikidata RDF or JSON to a CypherBench property graph (graph.json + Parquet)",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "inputs", nargs="+", metavar="INPUT", help="RDF or entity JSON file(s); '-' reads stdin"
    )
    p.add_argument(
        "--schema", "-s", required=True, help="CypherBench conversion schema (JSON file)"
    )
    p.add_argument("--out", "-o", required=True, metavar="DIR", help="output directory")
    p.add_argument(
        "--max-entities-per-root",
        type=int,
        default=None,
        metavar="N",
        help="keep at most N entities per root class (the original's reproducible sample)",
    )
    p.add_argument("--threads", type=int, default=None, help="parser threads (default: all cores)")
    p.add_argument(
        "--skip-invalid",
        action="store_true",
        help="count and skip malformed RDF lines and JSON entity lines instead of failing",
    )
    p.add_argument(
        "--format",
        choices=("auto", "nt", "ttl", "json"),
        default="auto",
        help="input syntax (default: detected from the content)",
    )
    p.add_argument("--no-parquet", action="store_true", help="do not write the Parquet pair")
    p.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr (auto: when stderr is a terminal)",
    )
    p.add_argument(
        "--entity-prefix",
        default="http://www.wikidata.org/entity/",
        help="entity IRI namespace of the Wikibase instance",
    )
    p.add_argument(
        "--prop-prefix",
        default="http://www.wikidata.org/prop/",
        help="property IRI namespace root of the Wikibase instance",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="do not print the summary")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Handler of ``kgbench convert``."""
    from kgbench.convert import convert

    progress = {"auto": None, "always": True, "never": False}[args.progress]
    _, report = convert(
        args.schema,
        args.inputs,
        args.out,
        max_entities_per_root=args.max_entities_per_root,
        threads=args.threads,
        skip_invalid=args.skip_invalid,
        format=None if args.format == "auto" else args.format,
        progress=progress,
        parquet=not args.no_parquet,
        entity_prefix=args.entity_prefix,
        prop_prefix=args.prop_prefix,
        return_graph=False,  # the CLI only writes files
    )
    if not args.quiet:
        print(summary(report, args.out))
    if not report.get("entities_total"):
        warn_empty(args, report)
    return 0


def warn_empty(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """Say on stderr why a conversion kept no entity, one line per schema entity label
    (:func:`kgbench.convert.explain_empty_entities`; the output files are written all the
    same and the exit code stays 0)."""
    import sys

    from kgbench.convert import explain_empty_entities

    reasons = explain_empty_entities(args.schema, report, prop_prefix=args.prop_prefix)
    for reason in reasons or ["no schema entity label is enabled"]:
        print(f"kgbench convert: warning: kept 0 entities: {reason}", file=sys.stderr)


def summary(report: dict[str, Any], out: str) -> str:
    """A short human-readable summary of a conversion report."""
    secs = report.get("seconds_total", 0.0) or 0.0
    triples = report.get("triples_read", 0)
    entities = report.get("entities_read", 0) or 0
    read = []
    if triples or not entities:
        rate = f", {triples / secs / 1e6:.2f}M triples/s" if secs > 0 else ""
        read.append(f"{triples:,} triples{rate}")
    if entities:
        rate = f", {entities / secs / 1e3:.1f}k entities/s" if secs > 0 else ""
        noun = "entity" if entities == 1 else "entities"
        read.append(f"{entities:,} JSON {noun}{rate}")
    lines = [
        f"read {' and '.join(read)} in {secs:.2f}s"
        + (
            f" ({report['invalid_skipped']:,} invalid skipped)"
            if report.get("invalid_skipped")
            else ""
        ),
        f"kept {report['entities_total']:,} entities, {report['relations_total']:,} relations"
        f" ({report['relations_merged']:,} merged) -> {out}",
    ]
    lines.extend(f"  {note}" for note in report.get("input_notes") or [])
    unknown = report.get("unknown_datavalue_types") or {}
    if unknown:
        lines.append(
            "unknown datavalue types skipped: "
            + ", ".join(f"{t} {n:,}" for t, n in unknown.items())
        )
    for label, n in report["entities"].items():
        lines.append(f"  {label}: {n:,}")
    for key, n in report["relations"].items():
        dropped = report["relations_dropped_out_of_scope"].get(key, 0)
        extra = f" ({dropped:,} dropped: end not kept)" if dropped else ""
        lines.append(f"  {key}: {n:,}{extra}")
    non_items = {
        kind: c
        for kind, c in report.get("non_item_subjects_ignored", {}).items()
        if c.get("triples")
    }
    if non_items:
        lines.append(
            "ignored (subject not an item): "
            + ", ".join(
                f"{c['entities']:,} {kind} entities ({c['triples']:,} triples)"
                for kind, c in non_items.items()
            )
        )
    dropped_values = report.get("dropped_values", {})
    if dropped_values:
        lines.append(
            "dropped values: "
            + ", ".join(f"{reason} {n:,}" for reason, n in dropped_values.items())
        )
    return "\n".join(lines)
