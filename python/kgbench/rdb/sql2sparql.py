"""Spider SQL to SPARQL 1.1 over kgbench's Direct Mapping of the same database (spec
``spider4sparql.md`` §4; the RDF shapes of §3 and :mod:`kgbench.rdb.naming`).

The SQL (SQLite dialect) is parsed with sqlglot into a small dialect-neutral plan
(:class:`SelectQ` / :class:`SetQ`, shared with :mod:`kgbench.rdb.sql2cypher`), then
rendered by Spider4SPARQL's rules:

- every table of FROM gets an alias ``T1..Tn`` (numbered over the whole query, subqueries
  included, so no two scopes share a variable) and ``?T1 a :t .``; each column the query
  uses ``?T1 :t\\#c ?T1_c .``;
- an equality of ON (or a top-level WHERE conjunct) that is a foreign key, in either
  direction and all its columns, becomes the FK triple ``?child :child\\#ref-c ?parent .``;
  any other join condition is a value comparison in FILTER. With ``fk_paths=True``
  tables the SQL leaves unconnected are joined along the shortest foreign-key path (BFS,
  S4S's Dijkstra over unit weights), intermediate tables added; by default they stay a
  cross product, as SQLite computes it;
- WHERE becomes FILTERs (one per top-level conjunct) with ``&&``/``||``/``!``; BETWEEN
  ``>= && <=``; LIKE ``REGEX(STR(?c), '^...$', 'is')`` (anchors kept, unlike S4S's
  ``contains``; case-insensitive as SQLite's LIKE); IN lists ``IN (...)``; IN / NOT IN /
  EXISTS subqueries ``FILTER [NOT] EXISTS { ... }`` (NOT IN with SQL's NULL rule: a NULL
  on either side excludes the row); scalar subqueries a joined
  ``{ SELECT (... AS ?sqN) ... LIMIT 1 }`` at top level, inside EXISTS elsewhere;
- aggregates ``COUNT(*)``, ``COUNT(DISTINCT ?x)``, SUM/AVG/MIN/MAX; GROUP BY the SQL's
  columns plus the projected columns functionally determined by them (key of their table,
  join equalities); a projected column not determined is ``SAMPLE`` (SQLite's arbitrary
  row; noted) and one beside a single MIN/MAX (SQLite takes the extreme row) is
  unsupported; HAVING; ORDER BY ``ASC``/``DESC`` (date columns by their text, as SQLite);
  LIMIT/OFFSET as written; SELECT DISTINCT; ``SELECT *`` one variable per column;
- UNION [ALL] / INTERSECT / EXCEPT as ``SELECT DISTINCT ?o.. { {L} UNION|join|MINUS {R} }``
  with both sides projecting the same output variables.

Values follow SQLite's comparison affinity: a literal compared with a column takes the
column's type (``Year = 2014`` on a TEXT column compares ``'2014'``, ``Population = "80000"``
on an INTEGER column compares 80000, ``Is_male = 'T'`` on a BOOL column ``true``); a text
column against a numeric one is cast with ``xsd:double``; dates compare as text. Double-quoted
words that name no column are string literals, as in SQLite.

Differences from SQL that remain (documented, spec §4/§7):
- NULL: by default (as the paper) every used column is a required triple, so a row with
  NULL in any referenced column vanishes; ``optional_nulls=True`` puts every column in its
  own OPTIONAL, which with SPARQL's error semantics reproduces SQL's three-valued logic
  (projections, COUNT(col), IS NULL, NOT IN; SUM/AVG then skip unbound values as SQL
  skips NULLs, and SUM of no values is unbound). A column tested with IS [NOT] NULL is
  always OPTIONAL.
- SUM/AVG of no values are 0 in SPARQL, NULL in SQL (by default); INTERSECT/EXCEPT compare RDF terms
  (``1`` and ``1.0`` differ); LIKE's case folding is Unicode, SQLite's ASCII only.

Anything else (LEFT JOIN, functions, CASE, correlated subqueries needing aggregation,
GROUP BY expressions...) gives ``status="unsupported"`` with a reason, never a guess.
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kgbench.rdb.naming import S4S_PREFIX, Naming
from kgbench.rdb.schema import DatabaseSchema, ForeignKey, Table

XSD_PREFIX = "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"

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


#: The converter's RDF kinds (:func:`kgbench.rdb.convert.column_kind`) as plan kinds.
_KINDS = {
    "integer": "int",
    "double": "double",
    "decimal": "decimal",
    "boolean": "bool",
    "date": "date",
    "dateTime": "datetime",
    "time": "datetime",
    "string": "string",
    "untyped": "unknown",
}


def column_kind(declared_type: str) -> str:
    """The value kind of a column, as the converter types its literals (spec §3 item 3;
    :func:`kgbench.rdb.convert.column_kind`): ``int``, ``double``, ``decimal``, ``bool``,
    ``date``, ``datetime`` (dateTime and time: compared as text), ``string``, or ``unknown``
    (no declared type: each value keeps its storage class)."""
    from kgbench.rdb.convert import column_kind as rdf_kind

    return _KINDS.get(rdf_kind(declared_type), "unknown")


# ---------------------------------------------------------------------------- plan (IR)


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
    regular expression (``%`` → ``.*``, ``_`` → ``.``, the rest escaped; :func:`like_regex`),
    matched case-insensitively as SQLite's LIKE (SPARQL ``REGEX(STR(?c), regex, "is")``);
    ``negate`` for NOT LIKE."""

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
    column (see :func:`column_kind`)."""

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


# ---------------------------------------------------------------------------- analyzer

_NUMERIC_TEXT = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")
_TRUE = {"t", "true", "1", "y", "yes"}
_FALSE = {"f", "false", "0", "n", "no"}


def _sqlite_text(value: Any) -> str:
    """SQLite's text of a number (TEXT affinity applied to a numeric literal)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:.1f}" if value.is_integer() else repr(value)
    return str(value)


def _number(text: str) -> int | float:
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        return float(t)


def _lit_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if value is None:
        return "null"
    return "string"


def like_regex(pattern: str) -> str:
    """SQL LIKE pattern (``%``, ``_``) as an anchored regular expression."""
    out = ["^"]
    for ch in pattern:
        if ch == "%":
            out.append(".*")
        elif ch == "_":
            out.append(".")
        elif ch in ".^$*+?()[]{}|\\":
            out.append("\\" + ch)
        else:
            out.append(ch)
    out.append("$")
    return "".join(out)


class _Scope:
    def __init__(self, parent: _Scope | None, query: SelectQ | None = None) -> None:
        self.parent = parent
        self.sources: list[Source] = []
        self.query = query
        self.select_aliases: dict[str, int] = {}


class Analyzer:
    """SQL text to plan (module docstring); one instance per query."""

    def __init__(self, schema: DatabaseSchema, fk_paths: bool = False) -> None:
        self.schema = schema
        self.fk_paths = fk_paths
        self.n_alias = 0
        self.notes: list[str] = []

    def new_alias(self) -> str:
        """The next FROM alias, ``T1``, ``T2``, ... (numbered over the whole query, subqueries
        included, so no two scopes share a variable)."""
        self.n_alias += 1
        return f"T{self.n_alias}"

    # -- entry
    def parse(self, sql: str) -> SelectQ | SetQ:
        """The plan of one SQLite statement ``sql`` (a trailing ``;`` is ignored).

        Raises:
            Unsupported: the SQL does not parse, is not exactly one SELECT (or set operation
                of SELECTs), or uses a construct the translation does not cover; the message
                names it."""
        import sqlglot
        from sqlglot import exp
        from sqlglot.errors import ParseError

        try:
            trees = sqlglot.parse(sql.strip().rstrip(";"), read="sqlite")
        except ParseError as e:
            raise Unsupported(f"SQL does not parse: {str(e).splitlines()[0]}") from e
        trees = [t for t in trees if t is not None]
        if len(trees) != 1:
            raise Unsupported("not exactly one SQL statement")
        tree = trees[0]
        if not isinstance(tree, (exp.Select, exp.Union, exp.Intersect, exp.Except)):
            raise Unsupported(f"not a SELECT query ({type(tree).__name__})")
        return self.query(tree, None)

    def query(self, node: Any, parent: _Scope | None) -> SelectQ | SetQ:
        """The plan of a sqlglot query node (SELECT or set operation, parentheses removed) in the
        scope ``parent`` (``None`` at top level; a subquery sees its parents' FROM items).

        Raises:
            Unsupported: as :meth:`parse`."""
        from sqlglot import exp

        while isinstance(node, (exp.Subquery, exp.Paren)):
            if isinstance(node, exp.Subquery) and any(
                node.args.get(k) for k in ("order", "limit", "offset")
            ):
                raise Unsupported("modifiers on a parenthesised subquery")
            node = node.this
        if isinstance(node, (exp.Union, exp.Intersect, exp.Except)):
            return self.setop(node, parent)
        if isinstance(node, exp.Select):
            return self.select(node, parent)
        raise Unsupported(f"unsupported query node {type(node).__name__}")

    def setop(self, node: Any, parent: _Scope | None) -> SetQ:
        """The plan of a UNION [ALL] / INTERSECT / EXCEPT node, with its ORDER BY (by output
        position), LIMIT and OFFSET.

        Raises:
            Unsupported: INTERSECT ALL / EXCEPT ALL, WITH, or operands with different
                column counts."""
        from sqlglot import exp

        op = {exp.Union: "union", exp.Intersect: "intersect", exp.Except: "except"}[type(node)]
        distinct = node.args.get("distinct")
        if op != "union" and distinct is False:
            raise Unsupported(f"{op.upper()} ALL")
        if node.args.get("with"):
            raise Unsupported("WITH (common table expressions)")
        left = self.query(node.this, parent)
        right = self.query(node.expression, parent)
        if len(left.items) != len(right.items):
            raise Unsupported(f"{op.upper()} operands with different column counts")
        q = SetQ(op, op == "union" and distinct is False, left, right)
        names = [i.hint.lower() for i in left.items]
        sql_names = [i.sql_name.lower() for i in left.items]
        order = node.args.get("order")
        if order is not None:
            for o in order.expressions:
                e = o.this
                idx = None
                if isinstance(e, exp.Literal) and not e.is_string:
                    idx = int(e.this) - 1
                elif isinstance(e, exp.Column):
                    nm = e.name.lower()
                    for k, cand in enumerate(sql_names):
                        if cand == nm:
                            idx = k
                            break
                    else:
                        if nm in names:
                            idx = names.index(nm)
                if idx is None or not 0 <= idx < len(names):
                    raise Unsupported("ORDER BY of a compound query names no result column")
                q.order.append((idx, bool(o.args.get("desc"))))
        q.limit = self._int_arg(node.args.get("limit"))
        q.offset = self._int_arg(node.args.get("offset"))
        return q

    @staticmethod
    def _int_arg(node: Any) -> int | None:
        from sqlglot import exp

        if node is None:
            return None
        e = node.args.get("expression") if not isinstance(node, exp.Literal) else node
        if e is None:
            e = node.this
        if isinstance(e, exp.Literal) and not e.is_string and re.fullmatch(r"\d+", e.this):
            return int(e.this)
        raise Unsupported("LIMIT/OFFSET that is not an integer")

    # -- sources
    def _add_source(self, node: Any, scope: _Scope) -> None:
        from sqlglot import exp

        if isinstance(node, exp.Table):
            if node.args.get("db") or node.args.get("catalog"):
                raise Unsupported("qualified table name")
            name = node.name
            try:
                table = self.schema.table(name)
            except KeyError as e:
                raise Unsupported(f"unknown table {name!r}") from e
            sql_name = node.alias_or_name
            scope.sources.append(Source(self.new_alias(), sql_name.lower(), table=table))
        elif isinstance(node, exp.Subquery):
            inner = self.query(node.this, None)
            alias = node.alias or ""
            scope.sources.append(Source(self.new_alias(), alias.lower(), query=inner))
        else:
            raise Unsupported(f"FROM item {type(node).__name__}")

    # -- resolution
    def resolve(self, col: Any, scope: _Scope) -> Col | None:
        """The column a sqlglot Column names, searching enclosing scopes (correlation)."""
        name = col.name
        qual = col.table.lower() if col.table else None
        s: _Scope | None = scope
        depth = 0
        while s is not None:
            found: list[Col] = []
            for src in s.sources:
                if qual is not None and src.sql_name != qual:
                    continue
                c = self._source_column(src, name)
                if c is not None:
                    found.append(c)
            if len(found) > 1:
                raise Unsupported(f"ambiguous column name {name!r}")
            if found:
                if depth > 0:
                    t: _Scope | None = scope
                    for _ in range(depth):
                        assert t is not None
                        if t.query is not None:
                            t.query.correlated = True
                        t = t.parent
                return found[0]
            s = s.parent
            depth += 1
        return None

    @staticmethod
    def _source_column(src: Source, name: str) -> Col | None:
        if src.table is not None:
            try:
                c = src.table.column(name)
            except KeyError:
                return None
            return Col(src.alias, c.name, column_kind(c.declared_type))
        low = name.lower()
        for it in src.query.items:
            if it.hint.lower() == low or it.sql_name.lower() == low:
                return Col(src.alias, it.hint, it.kind)
        return None

    # -- SELECT
    def select(self, sel: Any, parent: _Scope | None) -> SelectQ:
        """The plan of one SELECT block: FROM items and their aliases, foreign-key joins,
        WHERE conjuncts, select items, GROUP BY (with the columns it determines), HAVING,
        ORDER BY, LIMIT / OFFSET (module docstring for the rules).

        Raises:
            Unsupported: a clause or expression outside the covered subset (named in the
                message)."""
        from sqlglot import exp

        for key in ("with", "windows", "qualify", "laterals", "pivots", "into", "settings"):
            if sel.args.get(key):
                raise Unsupported(f"{key.upper()} clause")
        q = SelectQ([], [], [], [], False, [], set(), None, [], None, None, False)
        scope = _Scope(parent, q)
        from_ = sel.args.get("from_") or sel.args.get("from")
        if from_ is None:
            raise Unsupported("SELECT without FROM")
        self._add_source(from_.this, scope)
        for extra in from_.expressions or []:  # old sqlglot: FROM a, b
            self._add_source(extra, scope)
        conjuncts: list[Any] = []
        for j in sel.args.get("joins") or []:
            side = (j.args.get("side") or "").upper()
            kind = (j.args.get("kind") or "").upper()
            if side or kind not in ("", "INNER", "CROSS"):
                raise Unsupported(f"{(side + ' ' + kind).strip()} JOIN")
            if j.args.get("using"):
                raise Unsupported("JOIN ... USING")
            if j.args.get("method"):
                raise Unsupported(f"{j.args['method']} JOIN")
            self._add_source(j.this, scope)
            if j.args.get("on") is not None:
                conjuncts.extend(_conjuncts(j.args["on"]))
        q.sources = scope.sources
        where = sel.args.get("where")
        if where is not None:
            conjuncts.extend(_conjuncts(where.this))
        conjuncts = self._fk_joins(q, conjuncts, scope)
        q.distinct = bool(sel.args.get("distinct"))
        if sel.args.get("distinct") is not None and sel.args["distinct"].args.get("on"):
            raise Unsupported("DISTINCT ON")

        # select list
        for e in sel.expressions:
            alias = None
            if isinstance(e, exp.Alias):
                alias = e.alias
                e = e.this
            if isinstance(e, exp.Star) or (
                isinstance(e, exp.Column) and isinstance(e.this, exp.Star)
            ):
                qual = e.table.lower() if isinstance(e, exp.Column) and e.table else None
                srcs = [s for s in q.sources if qual is None or s.sql_name == qual]
                if not srcs:
                    raise Unsupported(f"unknown table {qual!r} in {qual}.*")
                for src in srcs:
                    for c in self._source_columns(src):
                        q.items.append(self._item(c, None))
                continue
            ir = self.value(e, scope, agg_ok=True)
            item = self._item(ir, alias, e)
            if alias:
                scope.select_aliases[alias.lower()] = len(q.items)
            q.items.append(item)

        q.where = [self.cond(c, scope, agg_ok=False) for c in conjuncts]
        group = sel.args.get("group")
        if group is not None:
            for g in group.expressions:
                ir = self._group_item(g, scope, q)
                if not isinstance(ir, Col):
                    raise Unsupported("GROUP BY an expression")
                if ir not in q.group:
                    q.group.append(ir)
        having = sel.args.get("having")
        if having is not None:
            q.having = self.cond(having.this, scope, agg_ok=True)
        order = sel.args.get("order")
        if order is not None:
            for o in order.expressions:
                q.order.append((self._order_item(o.this, scope, q), bool(o.args.get("desc"))))
        q.limit = self._int_arg(sel.args.get("limit"))
        q.offset = self._int_arg(sel.args.get("offset"))
        q.is_agg = bool(q.group) or any(
            has_agg(x)
            for x in [i.expr for i in q.items] + [o for o, _ in q.order] + [q.having]
            if x is not None
        )
        if q.is_agg:
            self._check_grouping(q)
        if self.fk_paths:
            self._connect(q)
        return q

    def _source_columns(self, src: Source) -> list[Col]:
        if src.table is not None:
            return [Col(src.alias, c.name, column_kind(c.declared_type)) for c in src.table.columns]
        return [Col(src.alias, it.hint, it.kind) for it in src.query.items]

    def _item(self, ir: Any, alias: str | None, node: Any = None) -> Item:
        kind = expr_kind(ir)
        if alias:
            hint = alias
        elif isinstance(ir, Col):
            hint = ir.column
        elif isinstance(ir, Agg):
            if ir.arg is None:
                hint = "count_all"
            elif isinstance(ir.arg, Col):
                hint = f"{ir.func}_{ir.arg.column}"
            else:
                hint = ir.func
        else:
            hint = "expr"
        sql_name = alias or (node.alias_or_name if node is not None else hint)
        return Item(ir, hint, kind, sql_name or hint)

    def _group_item(self, g: Any, scope: _Scope, q: SelectQ) -> Any:
        from sqlglot import exp

        if isinstance(g, exp.Literal) and not g.is_string:
            return q.items[int(g.this) - 1].expr
        if isinstance(g, exp.Column) and not g.table:
            c = self.resolve(g, scope)
            if c is None and g.name.lower() in scope.select_aliases:
                return q.items[scope.select_aliases[g.name.lower()]].expr
        return self.value(g, scope, agg_ok=False)

    def _order_item(self, e: Any, scope: _Scope, q: SelectQ) -> Any:
        from sqlglot import exp

        if isinstance(e, exp.Literal) and not e.is_string:
            k = int(e.this) - 1
            if not 0 <= k < len(q.items):
                raise Unsupported("ORDER BY position out of range")
            return ItemRef(k)
        if isinstance(e, exp.Column) and not e.table and e.name.lower() in scope.select_aliases:
            return ItemRef(scope.select_aliases[e.name.lower()])
        return self.value(e, scope, agg_ok=True)

    # -- joins
    def _fk_joins(self, q: SelectQ, conjuncts: list[Any], scope: _Scope) -> list[Any]:
        """Turn equality conjuncts that are foreign keys into FK joins; return the rest."""
        from sqlglot import exp

        pairs: dict[tuple[str, str], list[tuple[str, str, int]]] = {}
        by_alias = {s.alias: s for s in q.sources}
        for i, c in enumerate(conjuncts):
            if not (isinstance(c, exp.EQ) and isinstance(c.this, exp.Column)):
                continue
            if not isinstance(c.expression, exp.Column):
                continue
            a = self._local(c.this, scope)
            b = self._local(c.expression, scope)
            if a is None or b is None or a.alias == b.alias:
                continue
            if by_alias[a.alias].table is None or by_alias[b.alias].table is None:
                continue
            pairs.setdefault((a.alias, b.alias), []).append((a.column, b.column, i))
            pairs.setdefault((b.alias, a.alias), []).append((b.column, a.column, i))
        used: set[int] = set()
        fks = sorted(self.schema.foreign_keys, key=lambda f: -len(f.columns))
        for (ca, pa), cols in pairs.items():
            child = by_alias[ca].table
            par = by_alias[pa].table
            assert child is not None and par is not None
            for fk in fks:
                if fk.table.lower() != child.name.lower():
                    continue
                if fk.ref_table.lower() != par.name.lower():
                    continue
                idx = []
                for fc, rc in zip(fk.columns, fk.ref_columns, strict=True):
                    hit = [
                        i
                        for x, y, i in cols
                        if x.lower() == fc.lower() and y.lower() == rc.lower() and i not in used
                    ]
                    if not hit:
                        break
                    idx.append(hit[0])
                else:
                    used.update(idx)
                    q.joins.append(FkJoin(ca, pa, fk))
        return [c for i, c in enumerate(conjuncts) if i not in used]

    def _local(self, col: Any, scope: _Scope) -> Col | None:
        qual = col.table.lower() if col.table else None
        found = []
        for src in scope.sources:
            if qual is not None and src.sql_name != qual:
                continue
            c = self._source_column(src, col.name)
            if c is not None:
                found.append(c)
        return found[0] if len(found) == 1 else None

    def _connect(self, q: SelectQ) -> None:
        """S4S: connect the components the SQL leaves apart by shortest FK paths."""
        parent = {s.alias: s.alias for s in q.sources}

        def find(a: str) -> str:
            while parent[a] != a:
                a = parent[a]
            return a

        def union(a: str, b: str) -> None:
            parent[find(a)] = find(b)

        for j in q.joins:
            union(j.child, j.parent)
        for c in q.where:
            aliases = {x.alias for x in walk(c) if isinstance(x, Col) and x.alias in parent}
            als = sorted(aliases)
            for a, b in itertools.pairwise(als):
                union(a, b)
        tables = [s for s in q.sources if s.table is not None]
        for s in tables[1:]:
            if find(s.alias) == find(tables[0].alias):
                continue
            path = self._fk_path(tables[0], s, q)
            if path is None:
                raise Unsupported(f"no foreign-key path to {s.table.name if s.table else s.alias}")
            union(s.alias, tables[0].alias)

    def _fk_path(self, start: Source, goal: Source, q: SelectQ) -> list[FkJoin] | None:
        assert start.table is not None and goal.table is not None
        names = {t.lower(): t for t in self.schema.tables}
        adj: dict[str, list[tuple[str, ForeignKey]]] = {}
        for fk in self.schema.foreign_keys:
            adj.setdefault(fk.table.lower(), []).append((fk.ref_table.lower(), fk))
            adj.setdefault(fk.ref_table.lower(), []).append((fk.table.lower(), fk))
        s, g = start.table.name.lower(), goal.table.name.lower()
        prev: dict[str, tuple[str, ForeignKey] | None] = {s: None}
        dq = deque([s])
        while dq:
            t = dq.popleft()
            if t == g:
                break
            for u, fk in adj.get(t, []):
                if u not in prev:
                    prev[u] = (t, fk)
                    dq.append(u)
        if g not in prev:
            return None
        hops: list[tuple[str, str, ForeignKey]] = []
        t = g
        while prev[t] is not None:
            p, fk = prev[t]  # type: ignore[misc]
            hops.append((p, t, fk))
            t = p
        hops.reverse()
        alias_of = {s: start.alias}
        joins = []
        for a, b, fk in hops:
            if b == g:
                alias_of[b] = goal.alias
            else:
                src = Source(self.new_alias(), "", table=self.schema.tables[names[b]])
                q.sources.append(src)
                alias_of[b] = src.alias
            ca, pa = (alias_of[a], alias_of[b])
            if fk.table.lower() == b:
                ca, pa = pa, ca
            joins.append(FkJoin(ca, pa, fk))
        q.joins.extend(joins)
        self.notes.append("tables joined along the shortest foreign-key path (fk_paths)")
        return joins

    def _check_grouping(self, q: SelectQ) -> None:
        """Add functionally determined bare columns to GROUP BY, SAMPLE the others."""
        closure: set[tuple[str, str]] = {(c.alias, c.column.lower()) for c in q.group}
        eqs: list[tuple[tuple[str, str], tuple[str, str]]] = []
        for j in q.joins:
            for a, b in zip(j.fk.columns, j.fk.ref_columns, strict=True):
                eqs.append(((j.child, a.lower()), (j.parent, b.lower())))
        for c in q.where:
            if (
                isinstance(c, Cmp)
                and c.op == "="
                and isinstance(c.left, Col)
                and isinstance(c.right, Col)
            ):
                eqs.append(
                    (
                        (c.left.alias, c.left.column.lower()),
                        (c.right.alias, c.right.column.lower()),
                    )
                )
        changed = True
        while changed:
            changed = False
            for ka, kb in eqs:
                if (ka in closure) != (kb in closure):
                    closure.update((ka, kb))
                    changed = True
            for s in q.sources:
                if s.table is None or not s.table.primary_key:
                    continue
                if all((s.alias, k.lower()) in closure for k in s.table.primary_key):
                    for c in s.table.columns:
                        if (s.alias, c.name.lower()) not in closure:
                            closure.add((s.alias, c.name.lower()))
                            changed = True
        exprs = [i.expr for i in q.items] + [o for o, _ in q.order if not isinstance(o, ItemRef)]
        if q.having is not None:
            exprs.append(q.having)
        bare: list[Col] = []
        for e in exprs:
            for c in bare_cols(e):
                if c not in q.group and c not in bare:
                    bare.append(c)
        aggs = [x for e in exprs for x in walk(e) if isinstance(x, Agg)]
        for c in bare:
            if (c.alias, c.column.lower()) in closure:
                q.group.append(c)
                continue
            if len(aggs) == 1 and aggs[0].func in ("min", "max"):
                raise Unsupported(
                    "a column beside a single MIN/MAX without GROUP BY it (SQLite takes the "
                    "extreme row)"
                )
            q.samples.add(c)
            self.notes.append(
                f"{c.column} is neither grouped nor determined by the GROUP BY: SAMPLE "
                "(SQLite takes an arbitrary row)"
            )

    # -- expressions
    def value(self, e: Any, scope: _Scope, agg_ok: bool) -> Any:
        """The plan of a value expression ``e`` (column, literal, arithmetic, aggregate when
        ``agg_ok``, scalar subquery) resolved in ``scope``.

        Raises:
            Unsupported: an unknown column, an aggregate where none is allowed, or an
                unsupported function."""
        from sqlglot import exp

        if isinstance(e, exp.Paren):
            return self.value(e.this, scope, agg_ok)
        if isinstance(e, exp.Column):
            if isinstance(e.this, exp.Star):
                raise Unsupported("* outside COUNT(*) and the select list")
            c = self.resolve(e, scope)
            if c is not None:
                return c
            if not e.table and e.this.args.get("quoted"):
                return Lit(e.name, "string")  # SQLite: "word" naming no column is a string
            raise Unsupported(f"unknown column {e.sql(dialect='sqlite')}")
        if isinstance(e, exp.Literal):
            if e.is_string:
                return Lit(e.this, "string")
            v = _number(e.this)
            return Lit(v, _lit_kind(v))
        if isinstance(e, exp.Null):
            return Lit(None, "null")
        if isinstance(e, exp.Boolean):
            return Lit(bool(e.this), "bool")
        if isinstance(e, exp.Neg):
            inner = self.value(e.this, scope, agg_ok)
            if isinstance(inner, Lit) and isinstance(inner.value, (int, float)):
                return Lit(-inner.value, inner.kind)
            return Neg(inner)
        arith = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/"}
        if type(e) in arith:
            a = self.value(e.this, scope, agg_ok)
            b = self.value(e.expression, scope, agg_ok)
            for x in (a, b):
                k = expr_kind(x)
                if k not in NUMERIC and k != "unknown":
                    raise Unsupported(f"arithmetic on a {k} value")
            op = arith[type(e)]
            ka, kb = expr_kind(a), expr_kind(b)
            return Arith(op, a, b, int_div=op == "/" and ka == kb == "int")
        aggs = {exp.Count: "count", exp.Sum: "sum", exp.Avg: "avg", exp.Min: "min", exp.Max: "max"}
        if type(e) in aggs:
            if not agg_ok:
                raise Unsupported("aggregate outside SELECT/HAVING/ORDER BY")
            func = aggs[type(e)]
            arg = e.this
            distinct = False
            if isinstance(arg, exp.Distinct):
                if len(arg.expressions) != 1:
                    raise Unsupported("aggregate of several DISTINCT values")
                distinct = True
                arg = arg.expressions[0]
            if e.expressions:
                raise Unsupported(f"{func.upper()} with several arguments")
            if isinstance(arg, exp.Star):
                if func != "count":
                    raise Unsupported(f"{func.upper()}(*)")
                return Agg("count", None, distinct, "int")
            inner = self.value(arg, scope, agg_ok=False)
            ik = expr_kind(inner)
            if func in ("sum", "avg") and ik not in NUMERIC and ik != "unknown":
                raise Unsupported(f"{func.upper()} of a {ik} column")
            kind = {"count": "int", "avg": "double"}.get(func, ik)
            if func == "sum" and ik != "int":
                kind = "double"
            return Agg(func, inner, distinct, kind)
        if isinstance(e, exp.Subquery):
            sub = self.query(e.this, scope)
            if len(sub.items) != 1:
                raise Unsupported("scalar subquery with several columns")
            return ScalarSub(sub, sub.items[0].kind)
        if isinstance(e, (exp.Select, exp.Union)):
            sub = self.query(e, scope)
            return ScalarSub(sub, sub.items[0].kind)
        if isinstance(e, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.And, exp.Or)):
            raise Unsupported("a boolean expression used as a value")
        raise Unsupported(f"SQL construct {type(e).__name__}")

    def cond(self, e: Any, scope: _Scope, agg_ok: bool) -> Any:
        """The plan of a condition ``e`` (WHERE, ON or HAVING; aggregates only when ``agg_ok``),
        with SQLite's comparison affinity applied to literals.

        Raises:
            Unsupported: as :meth:`value`."""
        from sqlglot import exp

        if e.args.get("negate") and not isinstance(e, exp.Not):  # sqlglot: x NOT LIKE y
            return _negate(self._cond(e, scope, agg_ok))
        return self._cond(e, scope, agg_ok)

    def _cond(self, e: Any, scope: _Scope, agg_ok: bool) -> Any:
        from sqlglot import exp

        if isinstance(e, exp.Paren):
            return self.cond(e.this, scope, agg_ok)
        if isinstance(e, (exp.And, exp.Or)):
            op = "and" if isinstance(e, exp.And) else "or"
            items: list[Any] = []
            for part in (e.this, e.expression):
                c = self.cond(part, scope, agg_ok)
                if isinstance(c, BoolOp) and c.op == op:
                    items.extend(c.items)
                else:
                    items.append(c)
            return BoolOp(op, tuple(items))
        if isinstance(e, exp.Not):
            inner = e.this
            while isinstance(inner, exp.Paren):
                inner = inner.this
            c = self.cond(inner, scope, agg_ok)
            if isinstance(c, (Like, InList, InSub, Exists, IsNull)):
                return _negate(c)
            return Not(c)
        ops = {exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
        if type(e) in ops:
            a = self.value(e.this, scope, agg_ok)
            b = self.value(e.expression, scope, agg_ok)
            return compare(ops[type(e)], a, b)
        if isinstance(e, exp.Between):
            a = self.value(e.this, scope, agg_ok)
            lo = self.value(e.args["low"], scope, agg_ok)
            hi = self.value(e.args["high"], scope, agg_ok)
            return BoolOp("and", (compare(">=", a, lo), compare("<=", a, hi)))
        if isinstance(e, exp.Escape):
            raise Unsupported("LIKE ... ESCAPE")
        if isinstance(e, (exp.Like, exp.ILike)):
            a = self.value(e.this, scope, agg_ok)
            pat = self.value(e.expression, scope, agg_ok)
            if not isinstance(pat, Lit) or not isinstance(pat.value, str):
                raise Unsupported("LIKE with a pattern that is not a string literal")
            if isinstance(a, Lit):
                raise Unsupported("LIKE on a literal")
            return Like(a, like_regex(pat.value), False)
        if isinstance(e, exp.In):
            a = self.value(e.this, scope, agg_ok)
            if e.args.get("query") is not None:
                sub = self.query(e.args["query"], scope)
                if len(sub.items) != 1:
                    raise Unsupported("IN subquery with several columns")
                left, cast = _coerce_in(a, sub.items[0].kind)
                return InSub(left, sub, False, cast)
            if e.args.get("field") is not None or e.args.get("unnest") is not None:
                raise Unsupported("IN of a non-list")
            vals = [self.value(v, scope, agg_ok) for v in e.expressions]
            if len(vals) == 1 and isinstance(vals[0], ScalarSub):
                sub = vals[0].query
                left, cast = _coerce_in(a, sub.items[0].kind)
                return InSub(left, sub, False, cast)
            if not all(isinstance(v, Lit) for v in vals):
                return BoolOp("or", tuple(compare("=", a, v) for v in vals))
            lits = []
            for v in vals:
                c = compare("=", a, v)
                if not isinstance(c, Cmp) or not isinstance(c.right, Lit):
                    raise Unsupported("IN list value not comparable with its column")
                lits.append(c.right)
            return InList(c.left, tuple(lits), False)
        if isinstance(e, exp.Exists):
            return Exists(self.query(e.this, scope), False)
        if isinstance(e, exp.Is):
            if not isinstance(e.expression, exp.Null):
                raise Unsupported("IS with a non-NULL operand")
            a = self.value(e.this, scope, agg_ok)
            if not isinstance(a, Col):
                raise Unsupported("IS NULL of an expression")
            return IsNull(a, False)
        if isinstance(e, exp.Boolean):
            return Const(bool(e.this))
        raise Unsupported(f"condition {type(e).__name__}")


def _conjuncts(e: Any) -> list[Any]:
    from sqlglot import exp

    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.And):
        return _conjuncts(e.this) + _conjuncts(e.expression)
    return [e]


def _negate(c: Any) -> Any:
    if isinstance(c, Like):
        return Like(c.this, c.regex, not c.negate)
    if isinstance(c, InList):
        return InList(c.this, c.values, not c.negate)
    if isinstance(c, InSub):
        return InSub(c.this, c.query, not c.negate, c.inner_cast)
    if isinstance(c, Exists):
        return Exists(c.query, not c.negate)
    if isinstance(c, IsNull):
        return IsNull(c.this, not c.negate)
    return Not(c)


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


def _kind_class(k: str) -> str:
    if k in NUMERIC:
        return "num"
    if k in ("date", "datetime"):
        return "date"
    return k


def coerce_literal(lit: Lit, kind: str) -> Lit | None:
    """``lit`` as SQLite compares it with a value of ``kind`` (affinity); None: a
    non-numeric text compared with a number (SQLite: every number is smaller)."""
    v = lit.value
    if v is None:
        raise Unsupported("comparison with NULL")
    cls = _kind_class(kind)
    if cls == "num":
        if isinstance(v, bool):
            return Lit(int(v), "int")
        if isinstance(v, str):
            if _NUMERIC_TEXT.match(v):
                n = _number(v)
                return Lit(n, _lit_kind(n))
            return None
        return lit
    if cls == "string":
        if isinstance(v, str):
            return lit
        return Lit(_sqlite_text(v), "string")
    if cls == "bool":
        t = _sqlite_text(v).strip().lower() if not isinstance(v, str) else v.strip().lower()
        if t in _TRUE:
            return Lit(True, "bool")
        if t in _FALSE:
            return Lit(False, "bool")
        raise Unsupported(f"boolean column compared with {v!r}")
    if cls == "date":
        if isinstance(v, str):
            return Lit(v, "string")
        raise Unsupported("date column compared with a number")
    return lit


_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def compare(op: str, a: Any, b: Any) -> Any:
    """``a op b`` with SQLite's affinity rules made explicit (module docstring)."""
    if isinstance(a, Lit) and not isinstance(b, Lit):
        return compare(_FLIP[op], b, a)
    ka = expr_kind(a)
    if isinstance(b, Lit) and not isinstance(a, Lit):
        lit = coerce_literal(b, ka)
        if lit is None:  # text vs number: numbers sort first
            true = op in ("!=", "<", "<=")
            if not true:
                return Const(False)
            if isinstance(a, Col):
                return IsNull(a, True)
            raise Unsupported("an expression compared with a non-numeric text")
        if _kind_class(ka) == "date":
            return Cmp(op, StrOf(a), lit)
        return Cmp(op, a, lit)
    if isinstance(a, Lit) and isinstance(b, Lit):
        if a.value is None or b.value is None:
            raise Unsupported("comparison with NULL")
        return Cmp(op, a, b)
    kb = expr_kind(b)
    ca, cb = _kind_class(ka), _kind_class(kb)
    if ca == cb or "unknown" in (ca, cb):
        if ca == "date" and cb == "date":
            return Cmp(op, StrOf(a), StrOf(b))
        return Cmp(op, a, b)
    if ca == "num" and cb == "string":
        return Cmp(op, a, ToNum(b))
    if cb == "num" and ca == "string":
        return Cmp(op, ToNum(a), b)
    if "date" in (ca, cb) and "num" not in (ca, cb):
        return Cmp(op, StrOf(a), StrOf(b))
    raise Unsupported(f"comparison of a {ka} with a {kb} value")


def _coerce_in(a: Any, inner_kind: str) -> tuple[Any, str | None]:
    ka = expr_kind(a)
    ca, cb = _kind_class(ka), _kind_class(inner_kind)
    if isinstance(a, Lit):
        lit = coerce_literal(a, inner_kind)
        if lit is None:
            raise Unsupported("text IN numbers")
        return lit, None
    if ca == cb or "unknown" in (ca, cb):
        return a, ("str" if ca == "date" else None)
    if ca == "num" and cb == "string":
        return a, "num"
    if ca == "string" and cb == "num":
        return ToNum(a), None
    if "date" in (ca, cb) and "num" not in (ca, cb):
        return StrOf(a), "str"
    raise Unsupported(f"{ka} IN a subquery of {inner_kind} values")


# ---------------------------------------------------------------------------- SPARQL


def _sanitize(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return s or "v"


def sparql_string(s: str) -> str:
    """A single-quoted SPARQL string literal."""
    out = s.replace("\\", "\\\\").replace("'", "\\'")
    out = out.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f"'{out}'"


def sparql_number(v: int | float) -> str:
    """A number as a SPARQL literal: an integer as written, a float by ``repr`` (exponent
    form as ``1.00000000000000000E+20``, so it reads back as an ``xsd:double``), a bool as
    ``true`` / ``false``.

    Raises:
        Unsupported: NaN or an infinity (SPARQL has no literal for them)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if v != v or v in (float("inf"), float("-inf")):
        raise Unsupported("non-finite number")
    r = repr(v)
    if "e" in r or "E" in r:
        return f"{v:.17E}"
    return r


@dataclass
class _Block:
    """Per SELECT block: the columns used (ordered), which are OPTIONAL, extra patterns."""

    q: SelectQ
    cols: dict[tuple[str, str], str] = field(default_factory=dict)
    optional: set[tuple[str, str]] = field(default_factory=set)
    patterns: list[str] = field(default_factory=list)
    extra_group: list[str] = field(default_factory=list)
    minus: list[str] = field(default_factory=list)


class SparqlRenderer:
    """Plan to SPARQL text (module docstring)."""

    def __init__(self, schema: DatabaseSchema, naming: Naming, optional_nulls: bool) -> None:
        self.schema = schema
        self.naming = naming
        self.optional_nulls = optional_nulls
        self.uses_xsd = False
        self.names: set[str] = set()
        self.alias_block: dict[str, _Block] = {}
        self.derived_vars: dict[tuple[str, str], str] = {}
        self.n_sub = 0

    def fresh(self, hint: str) -> str:
        """A SPARQL variable name derived from ``hint`` (non-word characters replaced) that no
        other variable of the query uses yet (``name``, ``name_2``, ...); it is reserved."""
        base = _sanitize(hint)
        name = base
        k = 2
        while name in self.names:
            name = f"{base}_{k}"
            k += 1
        self.names.add(name)
        return name

    # -- top level
    def render(self, q: SelectQ | SetQ) -> str:
        """The SPARQL 1.1 query text of the plan ``q``, with its PREFIX lines (``xsd:`` only when
        a cast uses it).

        Raises:
            Unsupported: a plan the SPARQL rendering cannot express (e.g. a non-finite
                number)."""
        for a in _aliases(q):
            self.names.add(a)
        body = self.select(q, None) if isinstance(q, SelectQ) else self.setop_query(q)
        head = (
            S4S_PREFIX if self.naming.base == Naming().base else f"PREFIX : <{self.naming.base}>\n"
        )
        if self.uses_xsd:
            head += XSD_PREFIX
        return head + body

    def setop_query(self, q: SetQ, out: list[str] | None = None) -> str:
        """A set operation as a whole query: ``SELECT [DISTINCT] ?o1 ... { {L} UNION|join|MINUS
        {R} }`` with its ORDER BY and LIMIT / OFFSET; ``out`` fixes the output variables
        (default: fresh names from the left operand's items)."""
        pattern, outs = self.setop_pattern(q, out)
        proj = " ".join("?" + o for o in outs)
        distinct = "" if q.all else "DISTINCT "
        text = f"SELECT {distinct}{proj} WHERE {{\n{_indent(pattern)}\n}}"
        if q.order:
            text += "\nORDER BY " + " ".join(
                (f"DESC(?{outs[i]})" if d else f"ASC(?{outs[i]})") for i, d in q.order
            )
        text += _slice(q.limit, q.offset)
        return text

    def setop_pattern(self, q: SetQ, out: list[str] | None) -> tuple[str, list[str]]:
        """The group pattern of a set operation (UNION, a join of both operands for INTERSECT,
        MINUS for EXCEPT) and its output variables; both operands project ``out`` (default:
        the left operand's fresh names)."""
        left, outs = self.operand(q.left, out)
        right, _ = self.operand(q.right, outs)
        if q.op == "union":
            return f"{left}\nUNION\n{right}", outs
        if q.op == "intersect":
            return f"{left}\n{right}", outs
        return f"{left}\nMINUS\n{right}", outs

    def operand(self, q: SelectQ | SetQ, out: list[str] | None) -> tuple[str, list[str]]:
        """A sub-select group pattern ``{ SELECT ... }`` projecting ``out`` (or fresh)."""
        if q.correlated:
            raise Unsupported("correlated subquery that needs a sub-SELECT")
        if isinstance(q, SelectQ):
            text, outs = self.select_with_outs(q, out)
        else:
            pattern, outs = self.setop_pattern(q, out)
            proj = " ".join("?" + o for o in outs)
            distinct = "" if q.all else "DISTINCT "
            text = f"SELECT {distinct}{proj} WHERE {{\n{_indent(pattern)}\n}}"
            if q.order:
                text += "\nORDER BY " + " ".join(
                    (f"DESC(?{outs[i]})" if d else f"ASC(?{outs[i]})") for i, d in q.order
                )
            text += _slice(q.limit, q.offset)
        return "{\n" + _indent(text) + "\n}", outs

    # -- SELECT
    def select(self, q: SelectQ, out: list[str] | None) -> str:
        """The SPARQL SELECT query of one plan block projecting the variables ``out`` (default:
        fresh names from the items' hints); :meth:`select_with_outs` without the names."""
        return self.select_with_outs(q, out)[0]

    def select_with_outs(self, q: SelectQ, out: list[str] | None) -> tuple[str, list[str]]:
        """The SPARQL SELECT query of one plan block and its output variables' names (in item
        order): triple patterns, FILTERs, projection, GROUP BY, HAVING, ORDER BY, LIMIT."""
        blk = self.open_block(q)
        filters = [self.filter(c, blk, top=True) for c in q.where]
        proj: list[str] = []
        outs: list[str] = []
        seen: set[str] = set()
        for k, item in enumerate(q.items):
            text = self.expr(item.expr, blk, in_agg_query=q.is_agg)
            want = out[k] if out is not None else None
            if text.startswith("?") and re.fullmatch(r"\?\w+", text):
                var = text[1:]
                if want is None and var not in seen:
                    proj.append(text)
                    outs.append(var)
                    seen.add(var)
                    continue
            name = want or self.fresh(self._out_hint(item, blk))
            if want is not None:
                self.names.add(want)
            proj.append(f"({text} AS ?{name})")
            outs.append(name)
            seen.add(name)
        having = (
            self.filter(q.having, blk, top=False, in_agg=True) if q.having is not None else None
        )
        order: list[str] = []
        for o, desc in q.order:
            if isinstance(o, ItemRef):
                t = "?" + outs[o.index]
                if _kind_class(q.items[o.index].kind) == "date":
                    t = f"STR({t})"
            else:
                t = self.expr(o, blk, in_agg_query=q.is_agg)
                if _kind_class(expr_kind(o)) == "date":
                    t = f"STR({t})"
            order.append(f"DESC({t})" if desc else f"ASC({t})")
        group = [self.expr(c, blk, in_agg_query=False) for c in q.group] + blk.extra_group
        where = self.close_block(blk, filters)
        text = "SELECT " + ("DISTINCT " if q.distinct else "") + " ".join(proj)
        text += " WHERE {\n" + _indent(where) + "\n}"
        if group:
            text += "\nGROUP BY " + " ".join(group)
        if having is not None:
            text += f"\nHAVING ({having})"
        if order:
            text += "\nORDER BY " + " ".join(order)
        text += _slice(q.limit, q.offset)
        return text, outs

    def _out_hint(self, item: Item, blk: _Block) -> str:
        e = item.expr
        if isinstance(e, Agg):
            if e.arg is None:
                return "count_all"
            if isinstance(e.arg, Col):
                return f"{e.func}_{self.col_var(e.arg, blk, register=False)}"
            return e.func
        if isinstance(e, Col):
            return self.col_var(e, blk, register=False)
        return _sanitize(item.hint)

    def open_block(self, q: SelectQ) -> _Block:
        """Start the group pattern of a SELECT block: ``?Tn a :table .`` per table of FROM, a
        sub-select per derived table, and the foreign-key triples of its joins."""
        blk = _Block(q)
        for s in q.sources:
            self.alias_block[s.alias] = blk
            if s.table is not None:
                cls = self.naming.sparql_term(self.naming.table_local(s.table.name))
                blk.patterns.append(f"?{s.alias} a {cls} .")
            else:
                pattern, outs = self.operand(s.query, None)
                for it, o in zip(s.query.items, outs, strict=True):
                    self.derived_vars[(s.alias, it.hint)] = o
                blk.patterns.append(pattern)
        for j in q.joins:
            term = self.naming.sparql_term(self.naming.ref_local(j.fk.table, j.fk.columns))
            blk.patterns.append(f"?{j.child} {term} ?{j.parent} .")
        return blk

    def close_block(self, blk: _Block, filters: list[str]) -> str:
        """The group pattern of a block: its triple patterns, one triple per column used
        (required, or OPTIONAL for IS [NOT] NULL columns and with ``optional_nulls``), then
        the FILTER lines ``filters``."""
        lines = list(blk.patterns)
        opt = []
        tables = {s.alias: s.table for s in blk.q.sources}
        for (alias, col), var in blk.cols.items():
            table = tables.get(alias)
            if table is None:
                continue
            term = self.naming.sparql_term(self.naming.column_local(table.name, col))
            triple = f"?{alias} {term} ?{var} ."
            if (alias, col) in blk.optional or self.optional_nulls:
                opt.append(f"OPTIONAL {{ {triple} }}")
            else:
                lines.append(triple)
        lines.extend(opt)
        lines.extend(blk.minus)
        lines.extend(f"FILTER({f})" for f in filters if f != "true")
        return "\n".join(lines)

    def col_var(self, c: Col, blk: _Block, register: bool = True) -> str:
        """The SPARQL variable (without ``?``) of column ``c``: ``Tn_column`` in the block that
        owns the alias, the sub-select's output variable for a derived table; with
        ``register`` the column's triple is added to that block."""
        if (c.alias, c.column) in self.derived_vars:
            return self.derived_vars[(c.alias, c.column)]
        owner = self.alias_block.get(c.alias, blk)
        key = (c.alias, c.column)
        if key in owner.cols:
            return owner.cols[key]
        var = f"{c.alias}_{_sanitize(c.column.lower())}"
        if register:
            if var in self.names and var not in owner.cols.values():
                var = self.fresh(var)
            self.names.add(var)
            owner.cols[key] = var
        return var

    # -- expressions
    def expr(
        self, e: Any, blk: _Block, in_agg_query: bool = False, subs: list[str] | None = None
    ) -> str:
        """The SPARQL expression of the plan value ``e`` in block ``blk``: a variable (``SAMPLE``
        of it when ``in_agg_query`` and the column is not grouped), a literal, arithmetic,
        a cast, an aggregate; a scalar subquery's pattern is appended to ``subs``.

        Raises:
            Unsupported: a value the rendering cannot express."""
        if isinstance(e, Col):
            var = "?" + self.col_var(e, blk)
            if in_agg_query and e in blk.q.samples:
                return f"SAMPLE({var})"
            return var
        if isinstance(e, Lit):
            if isinstance(e.value, bool):
                return "true" if e.value else "false"
            if isinstance(e.value, (int, float)):
                return sparql_number(e.value)
            if e.value is None:
                raise Unsupported("NULL value")
            return sparql_string(str(e.value))
        if isinstance(e, Arith):
            a = self.expr(e.left, blk, in_agg_query, subs)
            b = self.expr(e.right, blk, in_agg_query, subs)
            if e.int_div:
                self.uses_xsd = True
                return f"xsd:integer({a} / {b})"
            return f"({a} {e.op} {b})"
        if isinstance(e, Neg):
            return f"(-{self.expr(e.this, blk, in_agg_query, subs)})"
        if isinstance(e, Agg):
            if e.arg is None:
                return "COUNT(*)"
            inner = self.expr(e.arg, blk, False, subs)
            d = "DISTINCT " if e.distinct else ""
            if self.optional_nulls and e.func in ("sum", "avg"):
                # SQL skips NULLs; SPARQL's SUM/AVG fail on an unbound value
                total = f"SUM({d}COALESCE({inner}, 0))"
                if e.func == "avg":  # no value: 0/0, an error, unbound as SQL's NULL
                    return f"({total} / COUNT({d}{inner}))"
                return f"IF(COUNT({inner}) > 0, {total}, COALESCE())"
            return f"{e.func.upper()}({d}{inner})"
        if isinstance(e, StrOf):
            return f"STR({self.expr(e.this, blk, in_agg_query, subs)})"
        if isinstance(e, ToNum):
            self.uses_xsd = True
            return f"xsd:double({self.expr(e.this, blk, in_agg_query, subs)})"
        if isinstance(e, ScalarSub):
            if subs is None:
                raise Unsupported("scalar subquery in this position")
            name = self.fresh(f"sq{len(self.names)}")
            pattern, _ = self.operand(_limit1(e.query), [name])
            subs.append(pattern)
            return "?" + name
        raise Unsupported(f"expression {type(e).__name__} as a value")

    def filter(self, c: Any, blk: _Block, top: bool, in_agg: bool = False) -> str:
        """One boolean condition as a SPARQL expression; ``top``: a conjunct of WHERE,
        whose scalar subqueries may be joined into the block."""
        if isinstance(c, Const):
            return "true" if c.value else "false"
        if isinstance(c, BoolOp):
            sep = " && " if c.op == "and" else " || "
            return "(" + sep.join(self.filter(x, blk, False, in_agg) for x in c.items) + ")"
        if isinstance(c, Not):
            return f"!({self.filter(c.this, blk, False, in_agg)})"
        if isinstance(c, Cmp):
            subs: list[str] = []
            a = self.expr(c.left, blk, in_agg, subs)
            b = self.expr(c.right, blk, in_agg, subs)
            text = f"{a} {c.op} {b}"
            if not subs:
                return text
            if top or in_agg:
                blk.patterns.extend(subs)
                if in_agg:
                    blk.extra_group.extend(re.findall(r"\?sq\w*", " ".join([a, b])))
                return text
            return "EXISTS {\n" + _indent("\n".join(subs) + f"\nFILTER({text})") + "\n}"
        if isinstance(c, Like):
            t = self.expr(c.this, blk, in_agg)
            r = f"REGEX(STR({t}), {sparql_string(c.regex)}, 'is')"
            return f"!{r}" if c.negate else r
        if isinstance(c, InList):
            t = self.expr(c.this, blk, in_agg)
            vals = ", ".join(self.expr(v, blk) for v in c.values)
            return f"{t} {'NOT IN' if c.negate else 'IN'} ({vals})"
        if isinstance(c, IsNull):
            if not isinstance(c.this, Col) or (c.this.alias, c.this.column) in self.derived_vars:
                raise Unsupported("IS NULL of a derived column")
            var = self.col_var(c.this, blk)
            owner = self.alias_block.get(c.this.alias, blk)
            owner.optional.add((c.this.alias, c.this.column))
            return f"BOUND(?{var})" if c.negate else f"!BOUND(?{var})"
        if isinstance(c, Exists):
            pattern = self.inline_pattern(c.query, blk)
            return ("NOT EXISTS" if c.negate else "EXISTS") + " {\n" + _indent(pattern) + "\n}"
        if isinstance(c, InSub):
            if top and not in_agg and c.negate and self._minus_ok(c):
                # evaluated once (NOT EXISTS would re-run the subquery per row)
                var = self.col_var(c.this, blk)
                sub, _ = self.operand(c.query, [var])
                blk.minus.append("MINUS " + sub)
                return "true"
            return self.in_sub(c, blk, in_agg)
        raise Unsupported(f"condition {type(c).__name__}")

    def _minus_ok(self, c: InSub) -> bool:
        """NOT IN as MINUS: an uncorrelated subquery of the same kind of values as the
        column (RDF term equality is then value equality), required triples only."""
        if self.optional_nulls or c.inner_cast is not None or c.query.correlated:
            return False
        if not isinstance(c.this, Col) or (c.this.alias, c.this.column) in self.derived_vars:
            return False
        kinds = {c.this.kind, c.query.items[0].kind}
        return len(kinds) == 1 and kinds <= {"int", "string"}

    def inline_pattern(self, q: SelectQ | SetQ, outer: _Block) -> str:
        """The WHERE pattern of a subquery used only for existence."""
        if isinstance(q, SelectQ) and not q.is_agg and q.limit is None and q.offset is None:
            blk = self.open_block(q)
            filters = [self.filter(c, blk, top=True) for c in q.where]
            return self.close_block(blk, filters)
        pattern, _ = self.operand(q, None)
        return pattern

    def in_sub(self, c: InSub, blk: _Block, in_agg: bool) -> str:
        """The FILTER of ``this [NOT] IN (subquery)``: ``[NOT] EXISTS { subquery pattern, FILTER
        (?y = left) }``, with SQL's NULL rule for NOT IN (a NULL on either side excludes the
        row)."""
        q = c.query
        left = self.expr(c.this, blk, in_agg)
        if isinstance(q, SelectQ) and not q.is_agg and q.limit is None and q.offset is None:
            inner = self.open_block(q)
            filters = [self.filter(x, inner, top=True) for x in q.where]
            y = self.expr(q.items[0].expr, inner)
            pattern_filters = filters
            body_fn = self.close_block
        else:
            if q.correlated:
                raise Unsupported("correlated IN subquery with aggregation or LIMIT")
            name = self.fresh(f"sq{len(self.names)}")
            sub, _ = self.operand(q, [name])
            y = "?" + name
            inner = None
            pattern_filters = []
            body_fn = None
        if c.inner_cast == "num":
            self.uses_xsd = True
            y = f"xsd:double({y})"
        elif c.inner_cast == "str":
            y = f"STR({y})"
        test = f"{left} = {y}"
        if c.negate:  # SQL: NULL on either side makes NOT IN unknown -> row excluded
            y_var = y if re.fullmatch(r"\?\w+", y) else None
            parts = [test]
            if re.fullmatch(r"\?\w+", left):
                parts.insert(0, f"!BOUND({left})")
            if y_var is not None:
                parts.insert(0, f"!BOUND({y_var})")
            test = " || ".join(parts)
        if inner is not None and body_fn is not None:
            body = body_fn(inner, [*pattern_filters, test])
        else:
            body = f"{sub}\nFILTER({test})"
        return ("NOT EXISTS" if c.negate else "EXISTS") + " {\n" + _indent(body) + "\n}"


def _limit1(q: SelectQ | SetQ) -> SelectQ | SetQ:
    if q.limit is None:
        q.limit = 1
    return q


def _slice(limit: int | None, offset: int | None) -> str:
    text = ""
    if limit is not None:
        text += f"\nLIMIT {limit}"
    if offset is not None:
        text += f"\nOFFSET {offset}"
    return text


def _indent(text: str) -> str:
    return "\n".join("  " + line if line else line for line in text.splitlines())


def _aliases(q: Any) -> Iterable[str]:
    if isinstance(q, SetQ):
        yield from _aliases(q.left)
        yield from _aliases(q.right)
    elif isinstance(q, SelectQ):
        for s in q.sources:
            yield s.alias
            if s.query is not None:
                yield from _aliases(s.query)


def analyze(sql: str, schema: DatabaseSchema, fk_paths: bool = False) -> tuple[Any, list[str]]:
    """The plan of ``sql`` and the analyzer's notes.

    Raises:
        Unsupported: the SQL does not parse or uses a construct outside the plan."""
    an = Analyzer(schema, fk_paths=fk_paths)
    return an.parse(sql), an.notes


def translate_sql_to_sparql(
    sql: str,
    schema: DatabaseSchema,
    naming: Naming | None = None,
    *,
    optional_nulls: bool = False,
    fk_paths: bool = False,
) -> Translation:
    """Translate one SQLite query over ``schema`` to SPARQL 1.1 (spec §4; module docstring).

    Returns a :class:`Translation`: ``status="ok"`` with the query (``PREFIX :`` for the
    naming's base, ``PREFIX xsd:`` when casts are used) or ``status="unsupported"`` with the
    reason. Never raises for any SQL text."""
    naming = naming or Naming()
    try:
        plan, notes = analyze(sql, schema, fk_paths=fk_paths)
        text = SparqlRenderer(schema, naming, optional_nulls).render(plan)
    except Unsupported as e:
        return Translation(None, "unsupported", str(e))
    except RecursionError:
        return Translation(None, "unsupported", "query nested too deeply")
    return Translation(text, "ok", None, tuple(dict.fromkeys(notes)))
