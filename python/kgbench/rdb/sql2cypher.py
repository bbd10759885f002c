"""Spider SQL to read-only Cypher over kgbench's property-graph view of the same database
(spec ``spider4sparql.md`` §3 "Property-graph view", §4 rules; :mod:`kgbench.rdb.naming`).

The SQL is analysed into the plan of :mod:`kgbench.rdb.plan` by :mod:`kgbench.rdb.analyze`
(the SPARQL translator's analysis: same aliases, foreign-key joins, value affinity, grouping
rules) and rendered as Cypher 5:

- ``MATCH (T1:singer)`` per table (label = table name as declared), properties by the
  declared column names (``T1.Age``); a foreign-key join is a hop
  ``MATCH (T1)-[:ref_Stadium_ID]->(T2:stadium)`` child to parent. Each hop is its own
  MATCH clause, so Cypher's relationship uniqueness never drops a row SQL keeps;
- WHERE with ``AND``/``OR``/``NOT``, ``<>``; LIKE ``=~ '(?is)^...$'`` (Java regex: case folds
  ASCII only, as SQLite's LIKE); IN lists ``IN [...]``; IN subqueries
  ``x IN COLLECT { ... RETURN y }`` (three-valued as SQL's IN); EXISTS ``EXISTS { ... }``;
  scalar subqueries ``COLLECT { ... RETURN v LIMIT 1 }[0]`` (NULL when empty, as SQL);
- grouping by ``WITH keys, aggregates [WHERE having]`` then ``RETURN`` (Cypher's implicit
  grouping keys = the SQL's GROUP BY plus determined columns; undetermined columns
  ``head(collect(x))``), ORDER BY / SKIP / LIMIT, DISTINCT;
- UNION [ALL] natively (in ``CALL { }`` when ordered or nested); INTERSECT / EXCEPT as
  ``CALL { left } WITH DISTINCT c.. WHERE [NOT] [c..] IN COLLECT { right }``.

Cypher's NULLs are SQL's (an absent property is null, comparisons with null are null), so
rows with NULLs are kept as in SQL; remaining differences: SUM of no values is 0 (SQL NULL);
INTERSECT/EXCEPT treat a NULL column as unknown (SQL as equal). Unsupported constructs are
those of the SPARQL translator plus correlated subqueries needing aggregation.
"""

from __future__ import annotations

import re
from typing import Any

from kgbench.rdb.analyze import analyze
from kgbench.rdb.naming import pg_label, property_names, relation_label
from kgbench.rdb.plan import (
    Agg,
    Arith,
    BoolOp,
    Cmp,
    Col,
    Const,
    Exists,
    InList,
    InSub,
    IsNull,
    ItemRef,
    Like,
    Lit,
    Neg,
    Not,
    ScalarSub,
    SelectQ,
    SetQ,
    StrOf,
    ToNum,
    Translation,
    Unsupported,
    expr_kind,
    kind_class,
    query_aliases,
    string_literal,
    walk,
)
from kgbench.rdb.schema import DatabaseSchema

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = {
    "all", "and", "as", "asc", "ascending", "by", "call", "case", "contains", "count",
    "create", "delete", "desc", "descending", "detach", "distinct", "else", "end", "ends",
    "exists", "false", "in", "is", "limit", "match", "merge", "not", "null", "on",
    "optional", "or", "order", "remove", "return", "set", "skip", "starts", "then", "true",
    "union", "unwind", "when", "where", "with", "xor", "yield",
}  # fmt: skip


def cypher_name(name: str) -> str:
    """A label, relationship type, property or variable name, backquoted when needed."""
    if _IDENT.match(name) and name.lower() not in _RESERVED:
        return name
    return "`" + name.replace("`", "``") + "`"


#: A single-quoted Cypher string literal (:func:`kgbench.rdb.plan.string_literal`).
cypher_string = string_literal


def _number(v: int | float) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if v != v or v in (float("inf"), float("-inf")):
        raise Unsupported("non-finite number")
    return repr(v)


def _sanitize(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name) or "v"


class CypherRenderer:
    """Plan to Cypher text (module docstring)."""

    def __init__(self, schema: DatabaseSchema) -> None:
        self.schema = schema
        self.names: set[str] = set()
        self.derived: dict[tuple[str, str], str] = {}
        self.props = {t.name: property_names(t) for t in schema.tables.values()}
        self.alias_table: dict[str, str] = {}

    def fresh(self, hint: str) -> str:
        """A Cypher variable name derived from ``hint`` (non-word characters replaced, ``c_``
        before a leading digit) that no other variable of the query uses and that is no
        reserved word (``name``, ``name_2``, ...); it is reserved."""
        base = _sanitize(hint)
        if base[0].isdigit():
            base = "c_" + base
        name, k = base, 2
        while name in self.names or name.lower() in _RESERVED:
            name = f"{base}_{k}"
            k += 1
        self.names.add(name)
        return name

    def render(self, q: SelectQ | SetQ) -> str:
        """The Cypher query text of the plan ``q``.

        Raises:
            Unsupported: a plan the Cypher rendering cannot express (e.g. a correlated
                derived table or scalar subquery)."""
        for a in query_aliases(q):
            self.names.add(a)
        return self.query(q, None)[0]

    # -- queries: text and output column names
    def query(
        self, q: SelectQ | SetQ, out: list[str] | None, as_list: bool = False
    ) -> tuple[str, list[str]]:
        """The Cypher text of a SELECT block or a set operation and its output columns' names;
        ``out`` fixes those names (default: fresh names from the items' hints); with
        ``as_list`` the query returns one column (a list for several items), for ``IN
        COLLECT { ... }`` and scalar subqueries."""
        if isinstance(q, SelectQ):
            return self.select(q, out, as_list)
        return self.setop(q, out, as_list)

    def setop(self, q: SetQ, out: list[str] | None, as_list: bool) -> tuple[str, list[str]]:
        """A set operation: ``UNION [ALL]`` of both operands (in ``CALL { ... }`` when ordered,
        sliced or renamed), INTERSECT / EXCEPT as ``WITH DISTINCT ... WHERE [NOT] key IN
        COLLECT { right }``; then ORDER BY, SKIP, LIMIT. Arguments as :meth:`query`."""
        left, outs = self.query(q.left, out)
        proj = ", ".join(outs)
        if q.op == "union":
            right, _ = self.query(q.right, outs)
            kw = "UNION ALL" if q.all else "UNION"
            inner = f"{left}\n{kw}\n{right}"
            plain = not q.order and q.limit is None and q.offset is None and not as_list
            if plain and (out is None or out == outs):
                return inner, outs
            text = "CALL {\n" + _indent(inner) + f"\n}}\nRETURN {proj}"
        else:
            right, _ = self.query(q.right, None, as_list=True)
            key = outs[0] if len(outs) == 1 else "[" + proj + "]"
            neg = "NOT " if q.op == "except" else ""
            text = (
                "CALL {\n" + _indent(left) + f"\n}}\nWITH DISTINCT {proj}\n"
                f"WHERE {neg}{key} IN COLLECT {{\n" + _indent(right) + f"\n}}\nRETURN {proj}"
            )
        if as_list:
            text = text.rsplit("RETURN ", 1)[0] + (
                "RETURN " + (outs[0] if len(outs) == 1 else f"[{proj}]") + " AS " + self.fresh("c")
            )
        text += self._order_slice(q, outs)
        return text, outs

    def _order_slice(self, q: SetQ, outs: list[str]) -> str:
        text = ""
        if q.order:
            text += "\nORDER BY " + ", ".join(outs[i] + (" DESC" if d else "") for i, d in q.order)
        if q.offset is not None:
            text += f"\nSKIP {q.offset}"
        if q.limit is not None:
            text += f"\nLIMIT {q.limit}"
        return text

    def select(self, q: SelectQ, out: list[str] | None, as_list: bool) -> tuple[str, list[str]]:
        """One SELECT block: ``CALL { ... }`` per derived table, the MATCH clauses of
        :meth:`match`, WHERE, the aggregation and projection (``WITH`` / ``RETURN``), HAVING,
        ORDER BY, SKIP, LIMIT. Arguments as :meth:`query`.

        Raises:
            Unsupported: a correlated derived table."""
        clauses: list[str] = []
        for s in q.sources:
            if s.query is not None:
                if s.query.correlated:
                    raise Unsupported("correlated derived table")
                sub, sub_outs = self.query(s.query, None)
                for it, o in zip(s.query.items, sub_outs, strict=True):
                    self.derived[(s.alias, it.hint)] = o
                clauses.append("CALL {\n" + _indent(sub) + "\n}")
        clauses.extend(self.match(q))
        where = [self.cond(c) for c in q.where]
        where = [w for w in where if w != "true"]
        if where:
            clauses.append("WHERE " + " AND ".join(_paren(w, len(where)) for w in where))

        outs: list[str] = []
        for k, item in enumerate(q.items):
            name = out[k] if out is not None else self.fresh(self._hint(item.expr, item.hint))
            if out is not None:
                self.names.add(name)
            outs.append(name)

        if q.is_agg:
            env: dict[Any, str] = {}
            withs: list[str] = []
            for c in q.group:
                v = self.fresh(f"{c.alias}_{c.column}")
                env[c] = v
                withs.append(f"{self.expr(c, {})} AS {v}")
            for c in sorted(q.samples, key=lambda c: (c.alias, c.column)):
                v = self.fresh(f"{c.alias}_{c.column}")
                env[c] = v
                withs.append(f"head(collect({self.expr(c, {})})) AS {v}")
            exprs = [i.expr for i in q.items] + [
                o for o, _ in q.order if not isinstance(o, ItemRef)
            ]
            if q.having is not None:
                exprs.append(q.having)
            subs: list[tuple[str, str]] = []
            for e in exprs:
                for a in _aggs(e):
                    if a not in env:
                        v = self.fresh(
                            f"{a.func}_{a.arg.column}"
                            if isinstance(a.arg, Col)
                            else f"{a.func}_all"
                        )
                        env[a] = v
                        withs.append(f"{self.expr(a, {})} AS {v}")
                for sq in _scalars(e):
                    if sq not in env:
                        v = self.fresh("sq")
                        env[sq] = v
                        subs.append((v, self.scalar(sq)))
            withs.extend(f"{t} AS {v}" for v, t in subs)
            clauses.append("WITH " + ", ".join(withs) if withs else "WITH count(*) AS _n")
            if q.having is not None:
                clauses.append("WHERE " + self.cond(q.having, env))
        else:
            env = {}
        items = [self.expr(i.expr, env) for i in q.items]
        ret = []
        for t, o in zip(items, outs, strict=True):
            ret.append(t if t == o else f"{t} AS {o}")
        if as_list:
            ret = [
                ("[" + ", ".join(items) + "]" if len(items) > 1 else items[0])
                + " AS "
                + self.fresh("c")
            ]
        order = []
        for o, desc in q.order:
            if isinstance(o, ItemRef):
                t = outs[o.index] if not as_list else items[o.index]
                if kind_class(q.items[o.index].kind) == "date":
                    t = f"toString({t})"
            else:
                t = self.expr(o, env)
                if q.distinct and not any(t == x for x in items):
                    raise Unsupported("SELECT DISTINCT ordered by a column it does not return")
                if kind_class(expr_kind(o)) == "date":
                    t = f"toString({t})"
                if not as_list:
                    for x, name in zip(items, outs, strict=True):
                        if t == x:
                            t = name
            order.append(t + (" DESC" if desc else ""))
        text = (
            "\n".join(clauses) + "\nRETURN " + ("DISTINCT " if q.distinct else "") + ", ".join(ret)
        )
        if order:
            text += "\nORDER BY " + ", ".join(order)
        if q.offset is not None:
            text += f"\nSKIP {q.offset}"
        if q.limit is not None:
            text += f"\nLIMIT {q.limit}"
        return text, outs

    def _hint(self, e: Any, hint: str) -> str:
        if isinstance(e, Col):
            return f"{e.alias}_{e.column}"
        if isinstance(e, Agg):
            if e.arg is None:
                return "count_all"
            if isinstance(e.arg, Col):
                return f"{e.func}_{e.arg.alias}_{e.arg.column}"
            return e.func
        return hint

    def match(self, q: SelectQ) -> list[str]:
        """MATCH clauses: a node per table, a hop per FK join (one relationship each)."""
        labels = {s.alias: pg_label(s.table.name) for s in q.sources if s.table is not None}
        for s in q.sources:
            if s.table is not None:
                self.alias_table[s.alias] = s.table.name
        placed: set[str] = set()
        out: list[str] = []
        pending = list(q.joins)

        def node(a: str) -> str:
            if a in placed:
                return f"({a})"
            placed.add(a)
            return f"({a}:{cypher_name(labels[a])})"

        for s in q.sources:
            if s.table is None:
                continue
            if s.alias not in placed:
                out.append(f"MATCH {node(s.alias)}")
            progress = True
            while progress:
                progress = False
                for j in list(pending):
                    if j.child in placed or j.parent in placed:
                        rel = cypher_name(relation_label(j.fk.columns))
                        out.append(f"MATCH {node(j.child)}-[:{rel}]->{node(j.parent)}")
                        pending.remove(j)
                        progress = True
        return out

    # -- expressions
    def expr(self, e: Any, env: dict[Any, str]) -> str:
        """The Cypher expression of the plan value ``e``: a property access ``Tn.prop`` for a
        column (a derived table's output name for its columns), a literal, arithmetic, a cast
        or an aggregate; ``env`` maps plan values already projected to their variable names."""
        if e in env:
            return env[e]
        if isinstance(e, Col):
            if (e.alias, e.column) in self.derived:
                return self.derived[(e.alias, e.column)]
            table = self.alias_table.get(e.alias)
            prop = self.props[table].get(e.column, e.column) if table is not None else e.column
            return f"{e.alias}.{cypher_name(prop or 'name')}"
        if isinstance(e, Lit):
            if isinstance(e.value, (bool, int, float)):
                return _number(e.value)
            if e.value is None:
                raise Unsupported("NULL value")
            return cypher_string(str(e.value))
        if isinstance(e, Arith):
            a, b = self.expr(e.left, env), self.expr(e.right, env)
            if e.op == "/" and not e.int_div:
                ka, kb = expr_kind(e.left), expr_kind(e.right)
                if ka == "int" and kb == "int":
                    pass
                elif ka == "int" or kb == "int" or "unknown" in (ka, kb):
                    a = f"toFloat({a})"
            return f"({a} {e.op} {b})"
        if isinstance(e, Neg):
            return f"(-{self.expr(e.this, env)})"
        if isinstance(e, Agg):
            if e.arg is None:
                return "count(*)"
            d = "DISTINCT " if e.distinct else ""
            return f"{e.func}({d}{self.expr(e.arg, {})})"
        if isinstance(e, StrOf):
            return f"toString({self.expr(e.this, env)})"
        if isinstance(e, ToNum):
            return f"toFloat({self.expr(e.this, env)})"
        if isinstance(e, ScalarSub):
            return self.scalar(e)
        raise Unsupported(f"expression {type(e).__name__} as a value")

    def scalar(self, sq: ScalarSub) -> str:
        """A scalar subquery as ``COLLECT { ... }[0]`` (its first row; LIMIT 1 added when it has
        none).

        Raises:
            Unsupported: a correlated scalar subquery."""
        if sq.query.correlated:
            raise Unsupported("correlated scalar subquery")
        q = sq.query
        if q.limit is None:
            q.limit = 1
        text, _ = self.query(q, None, as_list=True)
        return "COLLECT {\n" + _indent(text) + "\n}[0]"

    def cond(self, c: Any, env: dict[Any, str] | None = None) -> str:
        """The Cypher predicate of the plan condition ``c`` (comparisons, AND / OR / NOT, LIKE as
        ``=~`` with ``(?is)``, IN lists, IN / EXISTS subqueries, IS [NOT] NULL); ``env`` as in
        :meth:`expr`."""
        env = env or {}
        if isinstance(c, Const):
            return "true" if c.value else "false"
        if isinstance(c, BoolOp):
            sep = " AND " if c.op == "and" else " OR "
            return "(" + sep.join(self.cond(x, env) for x in c.items) + ")"
        if isinstance(c, Not):
            return f"NOT ({self.cond(c.this, env)})"
        if isinstance(c, Cmp):
            op = "<>" if c.op == "!=" else c.op
            return f"{self.expr(c.left, env)} {op} {self.expr(c.right, env)}"
        if isinstance(c, Like):
            t = self.expr(c.this, env)
            if expr_kind(c.this) != "string":
                t = f"toString({t})"
            r = f"{t} =~ {cypher_string('(?is)' + c.regex)}"
            return f"NOT ({r})" if c.negate else r
        if isinstance(c, InList):
            t = self.expr(c.this, env)
            vals = ", ".join(self.expr(v, env) for v in c.values)
            r = f"{t} IN [{vals}]"
            return f"NOT ({r})" if c.negate else r
        if isinstance(c, IsNull):
            t = self.expr(c.this, env)
            return f"{t} IS NOT NULL" if c.negate else f"{t} IS NULL"
        if isinstance(c, Exists):
            text = self.exists_body(c.query)
            return ("NOT " if c.negate else "") + "EXISTS {\n" + _indent(text) + "\n}"
        if isinstance(c, InSub):
            q = c.query
            if q.correlated and not (isinstance(q, SelectQ) and not q.is_agg and q.limit is None):
                raise Unsupported("correlated IN subquery with aggregation or LIMIT")
            text, _ = self.query(q, None, as_list=True)
            if c.inner_cast:
                fn = "toFloat" if c.inner_cast == "num" else "toString"
                head, _, last = text.rpartition("RETURN ")
                expr, _, rest = last.partition(" AS ")
                text = f"{head}RETURN {fn}({expr}) AS {rest}"
            r = f"{self.expr(c.this, env)} IN COLLECT {{\n" + _indent(text) + "\n}"
            return f"NOT ({r})" if c.negate else r
        raise Unsupported(f"condition {type(c).__name__}")

    def exists_body(self, q: SelectQ | SetQ) -> str:
        """The body of ``EXISTS { ... }`` for the subquery ``q``: its MATCH and WHERE clauses when
        it is a plain SELECT (correlated variables shared with the outer query), else the
        whole subquery.

        Raises:
            Unsupported: a correlated subquery with aggregation, LIMIT or a derived table."""
        if (
            isinstance(q, SelectQ)
            and not q.is_agg
            and q.limit is None
            and not any(s.query is not None for s in q.sources)
        ):
            clauses = self.match(q)
            where = [w for w in (self.cond(c) for c in q.where) if w != "true"]
            if where:
                clauses.append("WHERE " + " AND ".join(_paren(w, len(where)) for w in where))
            return "\n".join(clauses)
        if q.correlated:
            raise Unsupported("correlated EXISTS with aggregation or LIMIT")
        return self.query(q, None)[0]


def _aggs(e: Any) -> list[Agg]:
    return [x for x in walk(e) if isinstance(x, Agg)]


def _scalars(e: Any) -> list[ScalarSub]:
    return [x for x in walk(e) if isinstance(x, ScalarSub)]


def _paren(text: str, n: int) -> str:
    return text if n == 1 or text.startswith("(") else f"({text})"


def _indent(text: str) -> str:
    return "\n".join("  " + line if line else line for line in text.splitlines())


def translate_sql_to_cypher(
    sql: str, schema: DatabaseSchema, *, fk_paths: bool = False
) -> Translation:
    """Translate one SQLite query over ``schema`` to read-only Cypher over the property-graph
    view (spec §3-§4; module docstring).

    Returns a :class:`~kgbench.rdb.plan.Translation` (``status="ok"`` with the query,
    or ``"unsupported"`` with the reason). Never raises for any SQL text."""
    try:
        plan, notes = analyze(sql, schema, fk_paths=fk_paths)
        text = CypherRenderer(schema).render(plan)
    except Unsupported as e:
        return Translation(None, "unsupported", str(e))
    except RecursionError:
        return Translation(None, "unsupported", "query nested too deeply")
    return Translation(text, "ok", None, tuple(dict.fromkeys(notes)))
