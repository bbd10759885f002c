"""Type stubs of ``kgbench._core.convert`` (Rust; see rust/kgbench-py/src/convert.rs).

The conversion engine behind :mod:`kgbench.convert` (SPEC.md §1–§2, §6).
"""

def convert(
    schema_json: str,
    inputs: list[str],
    *,
    max_entities_per_root: int | None = None,
    skip_invalid: bool = False,
    format: str | None = None,
    progress: bool = False,
    threads: int | None = None,
    entity_prefix: str = "http://www.wikidata.org/entity/",
    prop_prefix: str = "http://www.wikidata.org/prop/",
    tables: bool = False,
) -> tuple[bytes, str, str, bytes | None, bytes | None]:
    """Convert RDF files (``"-"`` = stdin) with a CypherBench schema (JSON text).

    Returns ``(graph_json, report_json, schema_json, entity_rows, relation_rows)``:
    ``graph.json`` as UTF-8 bytes, the report and the graph's ``schema`` block as JSON
    text, and with ``tables`` the rows of the Parquet tables as NDJSON bytes (one
    object per entity / relation, columns as in ``kgbench.convert.write_parquet``,
    dates as ``YYYY-MM-DD`` strings; ``None`` without ``tables`` or when a value is a
    non-finite float). Raises ``ValueError`` for an invalid schema, malformed RDF
    (file, line, byte offset, excerpt) or unreadable / truncated input,
    ``RuntimeError`` for bad options.
    """

def validate_schema(schema_json: str) -> list[str]:
    """Every problem of a schema as ``"<json path>: <message>"`` (empty: valid)."""

def unit_table() -> list[tuple[str, str, str, float, float]]:
    """``(qid, English label, dimension, factor to SI, offset)`` for every known unit."""

def convert_unit(value: float, src_qid: str, trg_qid: str) -> float:
    """Convert between two units given by QID; ``ValueError`` if not convertible."""

def float_repr(value: float) -> str:
    """Python's ``repr(float)`` as written in graph.json."""

def parse_rdf(
    inputs: list[str], *, format: str | None = None, threads: int | None = None
) -> list[tuple[str, str, str, str, str | None, str | None]]:
    """Every triple as ``(subject, predicate, object_kind, object_value, datatype, language)``
    with the converter's reader (for differential tests)."""
