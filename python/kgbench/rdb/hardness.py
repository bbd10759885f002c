"""Spider's query hardness (easy / medium / hard / extra), spec ``spider4sparql.md`` §5, as
test-suite-sql-eval's ``Evaluator.eval_hardness`` computes it (``evaluation.py``, e97acc5).

Two inputs, one result:

- :func:`hardness_from_tree`: Spider's parsed ``sql`` dict (dev.json / train.json field);
- :func:`hardness_from_sql`: SQL text parsed with sqlglot into the few fields the counts read
  (:func:`sql_tree`), the same tree shape, so both paths share the counting code.

Counts (top-level query only; set-operation and nested queries are not recursed into):

- component1 = [WHERE] + [GROUP BY] + [ORDER BY] + [LIMIT] + (FROM items - 1) + #OR
  connectors + #LIKE conditions, over FROM's ON conditions, WHERE and HAVING;
- component2 = #subqueries among condition values (ON, WHERE, HAVING) + #INTERSECT /
  UNION / EXCEPT at top level;
- others = [aggregates > 1] + [select columns > 1] + [WHERE conditions > 1] + [GROUP BY
  columns > 1]. The aggregate count is the evaluator's: aggregates in SELECT, in ORDER BY
  and in GROUP BY, plus, as its ``has_agg`` reads the first field of any unit, each negated
  WHERE condition (NOT IN, NOT LIKE...) and each HAVING element that is a connector or a
  negated condition.

easy: c1 <= 1, o = 0, c2 = 0; medium: (o <= 2, c1 <= 1, c2 = 0) or (c1 <= 2, o < 2, c2 = 0);
hard: (o > 2, c1 <= 2, c2 = 0) or (2 < c1 <= 3, o <= 2, c2 = 0) or (c1 <= 1, o = 0, c2 <= 1);
else extra.
"""

from __future__ import annotations

from typing import Any

#: Spider's ``WHERE_OPS`` indices used by the counts.
_LIKE = 9
_OPS = ("not", "between", "=", ">", "<", ">=", "<=", "!=", "in", "like", "is", "exists")
_AGGS = ("none", "max", "min", "count", "sum", "avg")


class HardnessError(ValueError):
    """SQL text that sqlglot cannot read as one SELECT query."""


def _is_sql(v: Any) -> bool:
    return isinstance(v, dict)


def _has_agg(unit: Any) -> bool:
    # evaluation.py has_agg: unit[0] != AGG_OPS.index('none'); applied to col units, select
    # items, and (as written there) to condition units and their 'and'/'or' connectors
    return bool(unit[0] != 0)


def _count_agg(units: list[Any]) -> int:
    return sum(1 for u in units if _has_agg(u))


def components(sql: dict[str, Any]) -> tuple[int, int, int]:
    """(component1, component2, others) of a Spider ``sql`` tree (module docstring)."""
    frm, where, having = sql["from"], sql["where"], sql["having"]
    conds = frm["conds"][::2] + where[::2] + having[::2]
    c1 = sum(1 for k in ("where", "groupBy", "orderBy") if len(sql[k]) > 0)
    c1 += sql["limit"] is not None
    if len(frm["table_units"]) > 0:
        c1 += len(frm["table_units"]) - 1
    c1 += sum(1 for t in frm["conds"][1::2] + where[1::2] + having[1::2] if t == "or")
    c1 += sum(1 for u in conds if u[1] == _LIKE)

    c2 = 0
    for u in conds:
        c2 += _is_sql(u[3]) + _is_sql(u[4])
    c2 += sum(1 for k in ("intersect", "except", "union") if sql.get(k) is not None)

    aggs = _count_agg(sql["select"][1]) + _count_agg(where[::2]) + _count_agg(sql["groupBy"])
    if len(sql["orderBy"]) > 0:
        units = sql["orderBy"][1]
        aggs += _count_agg([u[1] for u in units if u[1]] + [u[2] for u in units if u[2]])
    aggs += _count_agg(having)
    others = (aggs > 1) + (len(sql["select"][1]) > 1) + (len(where) > 1) + (len(sql["groupBy"]) > 1)
    return c1, c2, int(others)


def classify(c1: int, c2: int, others: int) -> str:
    """The hardness of component counts (module docstring)."""
    if c1 <= 1 and others == 0 and c2 == 0:
        return "easy"
    if (others <= 2 and c1 <= 1 and c2 == 0) or (c1 <= 2 and others < 2 and c2 == 0):
        return "medium"
    if (
        (others > 2 and c1 <= 2 and c2 == 0)
        or (2 < c1 <= 3 and others <= 2 and c2 == 0)
        or (c1 <= 1 and others == 0 and c2 <= 1)
    ):
        return "hard"
    return "extra"


def hardness_from_tree(sql: dict[str, Any]) -> str:
    """Hardness of a Spider ``sql`` tree (dev.json's field).

    Raises:
        KeyError, IndexError, TypeError: not a Spider ``sql`` tree."""
    return classify(*components(sql))


# ---------------------------------------------------------------------------- SQL text


def _agg_id(e: Any) -> int:
    from sqlglot import exp

    names = {exp.Max: 1, exp.Min: 2, exp.Count: 3, exp.Sum: 4, exp.Avg: 5}
    return names.get(type(e), 0)


def _col_unit(e: Any) -> tuple[int, Any, bool]:
    from sqlglot import exp

    while isinstance(e, exp.Paren):
        e = e.this
    return (_agg_id(e), None, False)


def _val_unit(e: Any) -> tuple[int, Any, Any]:
    from sqlglot import exp

    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, (exp.Add, exp.Sub, exp.Mul, exp.Div)):
        return (1, _col_unit(e.this), _col_unit(e.expression))
    return (0, _col_unit(e), None)


def _value(e: Any) -> Any:
    from sqlglot import exp

    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, (exp.Subquery, exp.Select, exp.Union, exp.Intersect, exp.Except)):
        return {"nested": True}
    return "value"


def _condition(e: Any) -> list[Any]:
    """A flat Spider condition ``[cond_unit, 'and'|'or', ...]`` (in order)."""
    from sqlglot import exp

    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.And):
        return [*_condition(e.this), "and", *_condition(e.expression)]
    if isinstance(e, exp.Or):
        return [*_condition(e.this), "or", *_condition(e.expression)]
    neg = bool(e.args.get("negate"))  # sqlglot: x NOT LIKE y
    while isinstance(e, exp.Not):
        neg = not neg
        e = e.this
        while isinstance(e, exp.Paren):
            e = e.this
        if e.args.get("negate"):
            neg = not neg
    if isinstance(e, exp.Escape):
        e = e.this
    ops = {
        exp.Between: "between", exp.EQ: "=", exp.GT: ">", exp.LT: "<", exp.GTE: ">=",
        exp.LTE: "<=", exp.NEQ: "!=", exp.In: "in", exp.Like: "like", exp.ILike: "like",
        exp.Is: "is", exp.Exists: "exists",
    }  # fmt: skip
    op = ops.get(type(e))
    if op is None:
        return [(neg, 0, (0, (0, None, False), None), "value", None)]
    if isinstance(e, exp.Exists):
        return [(neg, _OPS.index(op), (0, (0, None, False), None), {"nested": True}, None)]
    val1: Any
    val2: Any = None
    if isinstance(e, exp.Between):
        val1, val2 = _value(e.args["low"]), _value(e.args["high"])
    elif isinstance(e, exp.In):
        if e.args.get("query") is not None:
            val1 = {"nested": True}
        else:
            vals = e.expressions
            val1 = _value(vals[0]) if len(vals) == 1 else "value"
    else:
        val1 = _value(e.expression)
    return [(neg, _OPS.index(op), _val_unit(e.this), val1, val2)]


def sql_tree(sql: str) -> dict[str, Any]:
    """The fields of Spider's ``sql`` tree that hardness reads, from SQL text (sqlglot,
    SQLite dialect): for a set operation, the leftmost SELECT with the operation recorded
    (``A UNION B UNION C`` counts one, as Spider's right-nested tree has one at top level).

    Raises:
        HardnessError: the text does not parse as one SELECT query."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ParseError

    try:
        tree = sqlglot.parse_one(sql.strip().rstrip(";"), read="sqlite")
    except ParseError as e:
        raise HardnessError(f"SQL does not parse: {str(e).splitlines()[0]}") from e
    setop = None
    while isinstance(tree, (exp.Union, exp.Intersect, exp.Except, exp.Subquery)):
        if not isinstance(tree, exp.Subquery):
            setop = {exp.Union: "union", exp.Intersect: "intersect", exp.Except: "except"}[
                type(tree)
            ]
        tree = tree.this
    if not isinstance(tree, exp.Select):
        raise HardnessError(f"not a SELECT query ({type(tree).__name__})")
    from_ = tree.args.get("from_") or tree.args.get("from")
    units: list[Any] = []
    conds: list[Any] = []
    if from_ is not None:
        units.append(from_.this)
        units.extend(from_.expressions or [])
    for j in tree.args.get("joins") or []:
        units.append(j.this)
        if j.args.get("on") is not None:
            if conds:
                conds.append("and")
            conds.extend(_condition(j.args["on"]))
    where = tree.args.get("where")
    group = tree.args.get("group")
    having = tree.args.get("having")
    order = tree.args.get("order")
    out: dict[str, Any] = {
        "select": (
            bool(tree.args.get("distinct")),
            [(_agg_id(_strip(e)), _val_unit(_strip(e))) for e in tree.expressions],
        ),
        "from": {"table_units": [("table_unit", u) for u in units], "conds": conds},
        "where": _condition(where.this) if where is not None else [],
        "groupBy": [_col_unit(g) for g in group.expressions] if group is not None else [],
        "having": _condition(having.this) if having is not None else [],
        "orderBy": ("asc", [_val_unit(o.this) for o in order.expressions]) if order else [],
        "limit": 1 if tree.args.get("limit") is not None else None,
        "intersect": None,
        "union": None,
        "except": None,
    }
    if setop is not None:
        out[setop] = {"nested": True}
    return out


def _strip(e: Any) -> Any:
    from sqlglot import exp

    return e.this if isinstance(e, exp.Alias) else e


def hardness_from_sql(sql: str) -> str:
    """Hardness of SQL text (module docstring).

    Raises:
        HardnessError: the text does not parse as one SELECT query."""
    return classify(*components(sql_tree(sql)))


def hardness(sql: str | None = None, tree: dict[str, Any] | None = None) -> str:
    """Hardness from Spider's ``sql`` tree when given, else from the SQL text.

    Raises:
        ValueError: neither given; HardnessError: unparsable text."""
    if tree is not None:
        return hardness_from_tree(tree)
    if sql is None:
        raise ValueError("hardness needs the SQL text or Spider's sql tree")
    return hardness_from_sql(sql)
