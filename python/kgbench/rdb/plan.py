"""The plan of kgbench's SQL translators: a small dialect-neutral intermediate representation
of one Spider SQL query (spec ``spider4sparql.md`` §4), built by :mod:`kgbench.rdb.analyze` and
rendered by :mod:`kgbench.rdb.sql2sparql` (SPARQL) and :mod:`kgbench.rdb.sql2cypher` (Cypher).

- queries: :class:`SelectQ` (sources, foreign-key joins, WHERE conjuncts, items, grouping,
  order, slice) and :class:`SetQ` (UNION [ALL] / INTERSECT / EXCEPT of two queries);
- sources and joins: :class:`Source` (a table or a derived table under an alias
  ``T1..Tn``), :class:`FkJoin` (a foreign-key equality), :class:`Item` (a projected
  expression);
- expressions: :class:`Col`, :class:`Lit`, :class:`Cmp`, :class:`Arith`, :class:`Neg`,
  :class:`BoolOp`, :class:`Not`, :class:`Const`, :class:`Like`, :class:`InList`,
  :class:`InSub`, :class:`Exists`, :class:`IsNull`, :class:`ScalarSub`, :class:`Agg`,
  :class:`StrOf`, :class:`ToNum`, :class:`ItemRef`, each with a value kind (``int``,
  ``double``, ``decimal``, ``bool``, ``date``, ``datetime``, ``string``, ``unknown``;
  :func:`kgbench.rdb.analyze.column_kind`, :func:`expr_kind`, :func:`kind_class`);
- the one text rule the renderers share: :func:`string_literal`;
- walks over plans: :func:`walk`, :func:`has_agg`, :func:`bare_cols`, :func:`query_aliases`;
- the result of a translation (:class:`Translation`) and the error of a construct no
  renderer expresses faithfully (:class:`Unsupported`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kgbench.rdb.schema import ForeignKey, Table

#: Value kinds of columns and expressions.
NUMERIC = frozenset({"int", "double", "decimal"})


@dataclass(frozen=True)
class Translation:
    """The result of translating one SQL query.

    ``query`` is the translated text (SPARQL with its PREFIX lines, or Cypher) when
    ``status == "ok"``, else None; ``reason`` says why a query is ``"unsupported"``;
    ``notes`` lists faithful-but-approximate choices (SAMPLE for an undetermined column)."""

    query: str | None
    status: str
    reason: str | None = None
    notes: tuple[str, ...] = ()


class Unsupported(Exception):
    """A construct the translators do not render faithfully (the message is the reason)."""


@dataclass(frozen=True)
class Col:
    """A column of source ``alias`` (a table column, or an output of a derived table)."""

    alias: str
    column: str
    kind: str


@dataclass(frozen=True)
class Lit:
    """A literal: int, float, str or bool (None is SQL NULL)."""

    value: Any
    kind: str


@dataclass(frozen=True)
class Cmp:
    """A comparison ``left op right`` of two plan expressions; ``op`` is one of ``=``, ``!=``,
    ``<``, ``<=``, ``>``, ``>=`` (SQL ``<>`` is read as ``!=``). Rendered as a SPARQL FILTER
    comparison, or a Cypher one, after SQLite's comparison affinity (:func:`compare`)."""

    op: str  # = != < <= > >=
    left: Any
    right: Any


@dataclass(frozen=True)
class Arith:
    """Arithmetic ``left op right``; ``op`` is ``+``, ``-``, ``*`` or ``/``. ``int_div`` marks a
    division of two integer operands, which SQLite truncates toward zero (SPARQL's ``/`` of
    integers gives a decimal, so the renderers make it integral)."""

    op: str  # + - * /
    left: Any
    right: Any
    int_div: bool = False


@dataclass(frozen=True)
class Neg:
    """Unary minus of the expression ``this``."""

    this: Any


@dataclass(frozen=True)
class BoolOp:
    """A conjunction (``op="and"``) or disjunction (``op="or"``) of the conditions ``items``
    (two or more), rendered with ``&&`` / ``||`` in SPARQL and ``AND`` / ``OR`` in Cypher."""

    op: str  # and | or
    items: tuple[Any, ...]


@dataclass(frozen=True)
class Not:
    """Logical negation of the condition ``this`` (SPARQL ``!``, Cypher ``NOT``)."""

    this: Any


@dataclass(frozen=True)
class Const:
    """A constant condition (``value`` true or false), e.g. what a comparison of two
    literals folds to."""

    value: bool


@dataclass(frozen=True)
class Like:
    """SQL ``this [NOT] LIKE pattern``. ``regex`` is the pattern translated to an anchored
    regular expression (``%`` → ``.*``, ``_`` → ``.``, the rest escaped;
    :func:`kgbench.rdb.analyze.like_regex`), matched case-insensitively as SQLite's LIKE
    (SPARQL ``REGEX(STR(?c), regex, "is")``); ``negate`` for NOT LIKE."""

    this: Any
    regex: str  # anchored, regex-escaped pattern (case-insensitive match)
    negate: bool


@dataclass(frozen=True)
class InList:
    """SQL ``this [NOT] IN (v1, v2, ...)`` with literal ``values`` (already coerced to the
    kind of ``this``); ``negate`` for NOT IN."""

    this: Any
    values: tuple[Lit, ...]
    negate: bool


@dataclass(frozen=True, eq=False)
class InSub:
    """SQL ``this [NOT] IN (subquery)``: ``query`` is the subquery's plan (:class:`SelectQ` or
    :class:`SetQ`, one output column); ``negate`` for NOT IN, which keeps SQL's NULL rule (a
    NULL on either side excludes the row). ``inner_cast`` is ``None``, ``"num"`` or ``"str"``:
    the cast applied to the subquery's column when its kind differs from that of ``this``
    (SQLite's comparison affinity). Rendered as ``FILTER [NOT] EXISTS { ... }`` in SPARQL."""

    this: Any
    query: Any
    negate: bool
    inner_cast: str | None  # None | "num" | "str": applied to the subquery's column


@dataclass(frozen=True, eq=False)
class Exists:
    """SQL ``[NOT] EXISTS (subquery)``; ``query`` is the subquery's plan, ``negate`` for NOT
    EXISTS (SPARQL ``FILTER [NOT] EXISTS { ... }``)."""

    query: Any
    negate: bool


@dataclass(frozen=True)
class IsNull:
    """SQL ``this IS [NOT] NULL``; ``negate`` for IS NOT NULL. The column tested is always
    put in an OPTIONAL pattern, whatever ``optional_nulls`` says."""

    this: Any
    negate: bool


@dataclass(frozen=True, eq=False)
class ScalarSub:
    """A scalar subquery ``(SELECT ...)`` used as a value: ``query`` is its plan (one output
    column, at most one row: rendered with ``LIMIT 1``), ``kind`` the value kind of that
    column (see :func:`kgbench.rdb.analyze.column_kind`)."""

    query: Any
    kind: str


@dataclass(frozen=True)
class Agg:
    """An aggregate ``func(arg)``: ``func`` is ``count``, ``sum``, ``avg``, ``min`` or ``max``;
    ``arg`` is the aggregated expression, ``None`` for ``COUNT(*)``; ``distinct`` for
    ``func(DISTINCT arg)``; ``kind`` the value kind of the result (``int`` for COUNT)."""

    func: str  # count sum avg min max
    arg: Any  # None: COUNT(*)
    distinct: bool
    kind: str


@dataclass(frozen=True)
class StrOf:
    """The text form of the expression ``this`` (SPARQL ``STR(...)``, Cypher ``toString(...)``):
    a numeric column compared with a text one, under SQLite's affinity rules."""

    this: Any


@dataclass(frozen=True)
class ToNum:
    """The numeric value of the expression ``this`` (SPARQL ``xsd:double(...)``, Cypher
    ``toFloat(...)``): a text column compared with a numeric one."""

    this: Any


@dataclass(frozen=True)
class ItemRef:
    """ORDER BY a select item (by alias or position)."""

    index: int


@dataclass
class Source:
    """One FROM item: a table, or a derived table (``query``)."""

    alias: str
    sql_name: str
    table: Table | None = None
    query: Any = None


@dataclass(frozen=True)
class FkJoin:
    """A join along a foreign key: the FROM item aliased ``child`` holds the foreign key
    ``fk`` that references the FROM item aliased ``parent``. Rendered as the FK triple
    ``?child :child\\#ref-c ?parent`` (SPARQL) or a relationship pattern (Cypher)."""

    child: str
    parent: str
    fk: ForeignKey


@dataclass
class Item:
    """One projected column of a SELECT: the plan expression ``expr``, ``hint`` the output
    variable's name (the SQL alias, else derived from the expression), ``kind`` its value
    kind, and ``sql_name`` the column name SQLite reports for it (for result comparison)."""

    expr: Any
    hint: str
    kind: str
    sql_name: str = ""


@dataclass
class SelectQ:
    """One SELECT block of the plan."""

    sources: list[Source]
    joins: list[FkJoin]
    where: list[Any]  # conjuncts
    items: list[Item]
    distinct: bool
    group: list[Col]
    samples: set[Col]
    having: Any
    order: list[tuple[Any, bool]]
    limit: int | None
    offset: int | None
    is_agg: bool
    correlated: bool = False

    @property
    def out_names(self) -> list[str]:
        """The output variables' names, one per select item in order (:attr:`Item.hint`)."""
        return [i.hint for i in self.items]


@dataclass
class SetQ:
    """``left op right`` (op: union, intersect, except; ``all`` for UNION ALL)."""

    op: str
    all: bool
    left: Any
    right: Any
    order: list[tuple[int, bool]] = field(default_factory=list)
    limit: int | None = None
    offset: int | None = None

    @property
    def items(self) -> list[Item]:
        """The select items of the set operation: those of its left operand (both operands
        project the same number of columns)."""
        items: list[Item] = self.left.items
        return items

    @property
    def correlated(self) -> bool:
        """True when either operand refers to a column of an enclosing query."""
        return bool(self.left.correlated or self.right.correlated)


AGG_FUNCS = ("count", "sum", "avg", "min", "max")


def walk(e: Any) -> Iterator[Any]:
    """Every plan node of expression ``e`` (not entering subqueries)."""
    yield e
    for name in ("left", "right", "this", "arg"):
        sub = getattr(e, name, None)
        if sub is not None and not isinstance(sub, (str, int, float, bool)):
            yield from walk(sub)
    if isinstance(e, BoolOp):
        for it in e.items:
            yield from walk(it)


def has_agg(e: Any) -> bool:
    """True when the expression ``e`` contains an aggregate (:class:`Agg`), not counting
    those inside subqueries."""
    return any(isinstance(x, Agg) for x in walk(e))


def bare_cols(e: Any) -> Iterator[Col]:
    """Columns of ``e`` outside aggregates."""
    if isinstance(e, Agg):
        return
    if isinstance(e, Col):
        yield e
        return
    for name in ("left", "right", "this"):
        sub = getattr(e, name, None)
        if sub is not None and not isinstance(sub, (str, int, float, bool)):
            yield from bare_cols(sub)
    if isinstance(e, BoolOp):
        for it in e.items:
            yield from bare_cols(it)


def expr_kind(e: Any) -> str:
    """The value kind of a plan expression (``unknown`` when mixed)."""
    if isinstance(e, (Col, Lit, Agg, ScalarSub)):
        return e.kind
    if isinstance(e, Arith):
        ka, kb = expr_kind(e.left), expr_kind(e.right)
        if e.int_div or (ka == kb == "int" and e.op != "/"):
            return "int"
        return "double"
    if isinstance(e, Neg):
        return expr_kind(e.this)
    if isinstance(e, StrOf):
        return "string"
    if isinstance(e, ToNum):
        return "double"
    if isinstance(e, ItemRef):
        return "unknown"
    return "bool"


def kind_class(k: str) -> str:
    """The comparison class of a value kind: ``num`` (int, double, decimal), ``date`` (date,
    datetime), else the kind itself (``bool``, ``string``, ``unknown``, ...)."""
    if k in NUMERIC:
        return "num"
    if k in ("date", "datetime"):
        return "date"
    return k


def query_aliases(q: Any) -> Iterable[str]:
    """The source aliases (``T1``, ...) of plan ``q``, derived tables and both sides of a set
    operation included, in plan order."""
    if isinstance(q, SetQ):
        yield from query_aliases(q.left)
        yield from query_aliases(q.right)
    elif isinstance(q, SelectQ):
        for s in q.sources:
            yield s.alias
            if s.query is not None:
                yield from query_aliases(s.query)


def string_literal(s: str) -> str:
    """``s`` as a single-quoted string literal, escaped the same way in SPARQL 1.1
    (``STRING_LITERAL1``, §19.8 ECHAR) and Cypher (string literal escapes): ``\\\\``, ``\\'``,
    ``\\n``, ``\\r``, ``\\t``; every other character literal."""
    out = s.replace("\\", "\\\\").replace("'", "\\'")
    out = out.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f"'{out}'"
