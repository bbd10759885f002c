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

import re
from dataclasses import dataclass, field
from typing import Any

from kgbench.rdb.analyze import analyze
from kgbench.rdb.naming import S4S_PREFIX, Naming
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
    Item,
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
)
from kgbench.rdb.schema import DatabaseSchema

XSD_PREFIX = "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"


def _sanitize(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return s or "v"


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
        for a in query_aliases(q):
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
                if kind_class(q.items[o.index].kind) == "date":
                    t = f"STR({t})"
            else:
                t = self.expr(o, blk, in_agg_query=q.is_agg)
                if kind_class(expr_kind(o)) == "date":
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
            return string_literal(str(e.value))
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
            r = f"REGEX(STR({t}), {string_literal(c.regex)}, 'is')"
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
