"""IRIs and property-graph names of kgbench's relational views (spec ``spider4sparql.md``
§3), shared by the converter (``kgbench rdb``) and the SQL translators. The IRI rule has one
implementation, the Rust core's (``kgbench_core::rdb::naming``, bound as
``kgbench._core.rdb``): the converter names rows with it, and :class:`Naming`, :func:`eid`
and :func:`literal_text` call it.

Two namings of the W3C Direct Mapping:

- ``s4s`` (default), Spider4SPARQL's (Ontop's bootstrapper): base
  ``http://valuenet/ontop/``, table and column names lower-cased; class ``<base>t``; row
  ``<base>t/k1=v1;k2=v2`` (key columns in key order, values percent-encoded); literal
  property ``<base>t#c``; foreign-key property ``<base>t#ref-c1;c2`` (child to parent).
  In SPARQL with ``PREFIX : <http://valuenet/ontop/>`` these are ``:t``, ``:t\\#c`` and
  ``:t\\#ref-c``, the ``#`` escaped as in the published queries.
- ``w3c``: the same shapes with the names as declared (case kept, percent-encoded), the
  Direct Mapping's own spelling, under a caller-chosen base.

Property graph: label = table name as declared made a SPEC.md §2 label
(:func:`pg_label`); ``eid`` = ``"<table>#<k1>=<v1>;..."`` (a key-less row:
``"<table>#_row=<rowid>"``); property names from the column names (:func:`property_names`);
one relationship type ``ref_<c1>_<c2>`` per foreign key (the child's columns, as declared,
made a label: :func:`relation_label`), child to parent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kgbench._core import rdb as _rule
from kgbench.rdb.schema import Table

#: Spider4SPARQL's base IRI.
S4S_BASE: str = _rule.S4S_BASE

#: The SPARQL prefix Spider4SPARQL's queries leave out (spec §2).
S4S_PREFIX = f"PREFIX : <{S4S_BASE}>\n"

#: The column name of a key-less row's row number (bag semantics, spec §3).
ROW_KEY: str = _rule.ROW_KEY

#: Node properties the graph loader sets itself (SPEC.md §2), never a column's property name.
LOADER_OWNED = frozenset(["eid", "aliases", "description", "provenance"])


def literal_text(value: Any) -> str:
    """A key value as the Direct Mapping writes it in a row IRI: integers as digits,
    integral floats without ``.0``, booleans ``true``/``false``, bytes by ``repr``, else
    ``str`` (``None`` for SQL NULL)."""
    return _rule.literal_text(value)


@dataclass(frozen=True)
class Naming:
    """One naming scheme (module docstring); ``style`` is ``s4s`` or ``w3c``, ``base`` the base
    IRI (Spider4SPARQL's by default). Every method is the Rust core's rule
    (``kgbench_core::rdb::naming``, the one the converter names rows with).

    Raises:
        ValueError: ``style`` is neither ``s4s`` nor ``w3c``."""

    style: str = "s4s"
    base: str = S4S_BASE

    def __post_init__(self) -> None:
        _rule.check_style(self.style)

    def table_local(self, table: str) -> str:
        """The local name of a table's class (``singer``)."""
        return _rule.table_local(self.style, table)

    def class_iri(self, table: str) -> str:
        """``<base>t``."""
        return _rule.class_iri(self.style, self.base, table)

    def column_local(self, table: str, column: str) -> str:
        """``t#c`` (unescaped local name)."""
        return _rule.column_local(self.style, table, column)

    def column_iri(self, table: str, column: str) -> str:
        """``<base>t#c``."""
        return _rule.column_iri(self.style, self.base, table, column)

    def ref_local(self, table: str, columns: Sequence[str]) -> str:
        """``t#ref-c1;c2``."""
        return _rule.ref_local(self.style, table, list(columns))

    def ref_iri(self, table: str, columns: Sequence[str]) -> str:
        """``<base>t#ref-c1;c2``."""
        return _rule.ref_iri(self.style, self.base, table, list(columns))

    def row_iri(self, table: str, key: Sequence[tuple[str, Any]]) -> str:
        """``<base>t/k1=v1;k2=v2`` for (column, value) pairs in key order (values by
        :func:`literal_text`, percent-encoded)."""
        return _rule.row_iri(self.style, self.base, table, key)

    def sparql_term(self, local: str) -> str:
        """A local name as a prefixed name under ``PREFIX :`` (``:singer\\#age``): the
        characters ``#;=&/?!$'()*+,`` escaped with ``\\`` as SPARQL's PN_LOCAL_ESC allows."""
        return _rule.sparql_term(local)


def eid(table: str, key: Sequence[tuple[str, Any]]) -> str:
    """The property-graph ``eid`` of a row: ``"<table>#<k1>=<v1>;..."`` (values by
    :func:`literal_text`)."""
    return _rule.eid(table, key)


def ref_type(columns: Sequence[str]) -> str:
    """The relationship type of a foreign key: ``ref_<c1>_<c2>``."""
    return "ref_" + "_".join(columns)


def _word_chars(name: str) -> str:
    """``name`` with every character outside ASCII ``[A-Za-z0-9_]`` replaced by ``_``."""
    return "".join(ch if (ch.isascii() and (ch.isalnum() or ch == "_")) else "_" for ch in name)


def _identifier(name: str) -> str:
    out = _word_chars(name)
    if not out or out[0].isdigit():
        out = "_" + out
    return out


def pg_label(name: str) -> str:
    """A table name (or relationship type) as a SPEC.md §2 label, ``[A-Za-z0-9_]+``: every
    other character becomes ``_``, the empty name ``_``."""
    return _word_chars(name) or "_"


def property_names(table: Table) -> dict[str, str | None]:
    """The property-graph property of each column of ``table`` (:mod:`kgbench.rdb.convert`'s
    docstring): ``{column: property}``, None for a column called exactly ``name`` (the node's
    ``name``); characters outside ``[A-Za-z0-9_]`` become ``_``, a leading digit gets a ``_``
    prefix, :data:`LOADER_OWNED` names and clashes a trailing ``_``. Deterministic in the
    table's column order."""
    used: set[str] = set()
    out: dict[str, str | None] = {}
    for col in table.columns:
        if col.name == "name":
            out[col.name] = None
            continue
        prop = _identifier(col.name)
        while prop in used or prop in LOADER_OWNED or prop == "name":
            prop += "_"
        used.add(prop)
        out[col.name] = prop
    return out


def relation_label(columns: Sequence[str]) -> str:
    """The relationship type of a foreign key from ``columns`` (:func:`ref_type` made a
    SPEC.md §2 label, ``[A-Za-z0-9_]+``)."""
    return pg_label(ref_type(columns))
