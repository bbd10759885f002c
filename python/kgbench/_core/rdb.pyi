"""Stub of ``kgbench._core.rdb``: the row work of ``kgbench rdb`` in Rust
(rust/kgbench-core/src/rdb/; spec spider4sparql.md §3)."""

from typing import Any

def convert(job_json: str) -> dict[str, Any]:
    """Run one conversion planned by :mod:`kgbench.rdb.convert` (the JSON of
    ``kgbench_core::rdb::Job``: database path, output paths, options, per-table SQL and
    column plans, per-foreign-key join SQL): read the SQLite file, write the N-Triples file
    and graph.json atomically, and return the counts ``{"tables": [{"rows", "nodes",
    "row_naming", "merged", "columns": [{"kind", "promoted", "trimmed", "cells"}],
    "mismatches": [{"column", "count", "examples"}], "pg_columns": [{"column", "dtype",
    "widened_from"}]}], "fk_matches", "type_triples", "data_triples", "ref_triples",
    "relationships"}``. The GIL is released during the run.

    Raises ``kgbench.errors.InputError`` (a table or join SQLite cannot run, an output file
    that cannot be written; one line naming it) or ``ValueError`` (a malformed job)."""
