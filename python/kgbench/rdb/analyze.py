"""SQL analysis of kgbench's translators: Spider SQL (SQLite dialect, parsed with sqlglot) to
the plan of :mod:`kgbench.rdb.plan` (spec ``spider4sparql.md`` §4; the rules are listed in
:mod:`kgbench.rdb.sql2sparql`'s docstring): table aliases ``T1..Tn`` over the whole query,
foreign-key joins recognised in ON and WHERE (and, with ``fk_paths``, shortest foreign-key
paths between unconnected tables), SQLite's comparison affinity made explicit
(:func:`compare`, :func:`coerce_literal`), grouping keys and the columns they determine.

Entry point: :func:`analyze` (one query; raises :class:`~kgbench.rdb.plan.Unsupported` with
the reason for anything outside the plan).
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from typing import Any

from kgbench.rdb.plan import (
    NUMERIC,
    Agg,
    Arith,
    BoolOp,
    Cmp,
    Col,
    Const,
    Exists,
    FkJoin,
    InList,
    InSub,
    IsNull,
    Item,
    ItemRef,
    Like,
    Lit,
    Neg,
    Not,
    ScalarSub,
    SelectQ,
    SetQ,
    Source,
    StrOf,
    ToNum,
    Unsupported,
    bare_cols,
    expr_kind,
    has_agg,
    kind_class,
    walk,
)
from kgbench.rdb.schema import DatabaseSchema, ForeignKey

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


def coerce_literal(lit: Lit, kind: str) -> Lit | None:
    """``lit`` as SQLite compares it with a value of ``kind`` (affinity); None: a
    non-numeric text compared with a number (SQLite: every number is smaller)."""
    v = lit.value
    if v is None:
        raise Unsupported("comparison with NULL")
    cls = kind_class(kind)
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
        if kind_class(ka) == "date":
            return Cmp(op, StrOf(a), lit)
        return Cmp(op, a, lit)
    if isinstance(a, Lit) and isinstance(b, Lit):
        if a.value is None or b.value is None:
            raise Unsupported("comparison with NULL")
        return Cmp(op, a, b)
    kb = expr_kind(b)
    ca, cb = kind_class(ka), kind_class(kb)
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
    ca, cb = kind_class(ka), kind_class(inner_kind)
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


def analyze(sql: str, schema: DatabaseSchema, fk_paths: bool = False) -> tuple[Any, list[str]]:
    """The plan of ``sql`` and the analyzer's notes.

    Raises:
        Unsupported: the SQL does not parse or uses a construct outside the plan."""
    an = Analyzer(schema, fk_paths=fk_paths)
    return an.parse(sql), an.notes
