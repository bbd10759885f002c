"""Stub of ``kgbench._core.rdb``: the row work of ``kgbench rdb`` in Rust
(rust/kgbench-core/src/rdb/; spec spider4sparql.md §3)."""

from collections.abc import Iterable, Sequence
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

# The IRI naming rule (kgbench_core::rdb::naming, the one implementation; called by
# kgbench.rdb.naming). ``style`` is "s4s" or "w3c" (anything else: ValueError naming it);
# ``key`` is a sequence of (column, value) tuples, a value None, bool, int, float, str, bytes
# or anything else by its ``str``.

#: Spider4SPARQL's base IRI, ``http://valuenet/ontop/``.
S4S_BASE: str
#: The column name of a key-less row's row number, ``_row``.
ROW_KEY: str

def check_style(style: object) -> None:
    """Raise ``ValueError`` (``naming must be 's4s' or 'w3c', not <repr>``) unless ``style``
    is ``"s4s"`` or ``"w3c"``."""

def table_local(style: str, table: str) -> str:
    """The local name of a table's class: the name (lower-cased for ``s4s``) percent-encoded
    (``[A-Za-z0-9_.~-]`` kept, other UTF-8 bytes ``%XX``)."""

def class_iri(style: str, base: str, table: str) -> str:
    """``<base>t``."""

def column_local(style: str, table: str, column: str) -> str:
    """``t#c``."""

def column_iri(style: str, base: str, table: str, column: str) -> str:
    """``<base>t#c``."""

def ref_local(style: str, table: str, columns: Sequence[str]) -> str:
    """``t#ref-c1;c2``."""

def ref_iri(style: str, base: str, table: str, columns: Sequence[str]) -> str:
    """``<base>t#ref-c1;c2``."""

def row_iri(style: str, base: str, table: str, key: Iterable[tuple[str, Any]]) -> str:
    """``<base>t/k1=v1;k2=v2``: encoded key column names, values by :func:`literal_text`
    percent-encoded."""

def eid(table: str, key: Iterable[tuple[str, Any]]) -> str:
    """``t#k1=v1;k2=v2`` (names as declared, values by :func:`literal_text`)."""

def literal_text(value: Any) -> str:
    """A key value's text: ints in decimal, integral floats without ``.0``, other floats by
    ``repr``, ``true``/``false``, str as is, bytes by ``repr``, None ``None``, else ``str``."""

def sparql_term(local: str) -> str:
    """``:local`` with ``#;=&/?!$'()*+,`` escaped by ``\\``."""
