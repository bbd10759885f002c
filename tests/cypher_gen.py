"""Random Neo4j 5 Cypher for fuzzing the read-only gate and the provenance builder.

:func:`read_query` builds a read-only query with the syntax Neo4j 5.26 accepts (type
predicates, ``CALL () { }`` and ``IN TRANSACTIONS``, quantified path patterns, ``COUNT``/
``EXISTS``/``COLLECT`` subqueries, label expressions, comments, keyword-like variable names,
``\\uXXXX`` escapes), tracking which variables are bound so that Neo4j accepts nearly all
of them (tests/test_cypher_fuzz.py checks a sample with the server). :func:`write_query`
appends a writing clause to a read prefix; :func:`mutate` damages a query (for crash
tests only: its verdict is unknown). Every function takes a :class:`random.Random`, so a
hypothesis ``st.randoms()`` drives, and shrinks, the choices.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

LABELS = ["Person", "Team", "Award", "Set", "Create", "Merge"]
TYPES = ["KNOWS", "PLAYS_FOR", "SET", "DELETE"]
PROPS = ["name", "age", "set", "create", "delete", "merge"]
#: Variable names that look like keywords of writing clauses (Neo4j 5 accepts them).
KEYWORD_NAMES = ["set", "create", "delete", "merge", "remove", "foreach", "detach", "load"]
VALUE_TYPES = [
    "STRING",
    "INTEGER",
    "INT",
    "FLOAT",
    "BOOLEAN",
    "DATE",
    "LOCAL DATETIME",
    "ZONED DATETIME",
    "TIME WITHOUT TIME ZONE",
    "DURATION",
    "POINT",
    "NODE",
    "ANY NODE",
    "MAP",
    "LIST<STRING>",
    "LIST<INTEGER NOT NULL>",
    "ANY<STRING | INTEGER>",
    "STRING | INTEGER",
    "INTEGER NOT NULL",
    "FLOAT!",
    "ANY PROPERTY VALUE",
    "ANY",
    "NULL",
    "NOTHING",
]
STRINGS = ["'CREATE (x)'", '"SET n.x = 1"', "'a // DELETE'", "'it\\'s'", "'\\u0041'", "''"]
COMMENTS = ["/* CREATE (n) */", "// DELETE n\n", "/* SET */", "/**/"]
WRITE_CLAUSES = [
    ("CREATE (:{label} {{name: 'x'}})", "CREATE"),
    ("MERGE (:{label} {{name: 'x'}})", "MERGE"),
    ("SET {var}.name = 'x'", "SET"),
    ("SET {var}:{label}", "SET"),
    ("REMOVE {var}.name", "REMOVE"),
    ("DETACH DELETE {var}", "DETACH DELETE"),
    ("DELETE {var}", "DELETE"),
    ("FOREACH (x IN [1] | CREATE (:{label}))", "FOREACH"),
    ("CALL () {{ CREATE (:{label}) }}", "CREATE"),
    ("CALL {{ WITH {var} SET {var}.age = 1 }}", "SET"),
    ("\\u0043REATE (:{label})", "CREATE"),
    ("\\u0053ET {var}.name = 'x'", "SET"),
    ("create (:{label})", "CREATE"),
    ("CALL apoc.create.node(['{label}'], {{}}) YIELD node RETURN node", "CALL apoc.create.node"),
]


@dataclass
class Scope:
    """Variables bound so far: nodes, relationships, other values; every name used."""

    nodes: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    used: set[str] = field(default_factory=set)

    def copy(self) -> Scope:
        return Scope(list(self.nodes), list(self.values), set(self.used))


class Gen:
    """One query's worth of choices (``rnd`` drives them all)."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd
        self.counter = 0

    # -- helpers ----------------------------------------------------------------
    def chance(self, p: float) -> bool:
        return self.rnd.random() < p

    def kw(self, word: str) -> str:
        """A keyword in random case (Neo4j keywords are case-insensitive)."""
        if self.chance(0.8):
            return word
        return "".join(c.lower() if self.chance(0.5) else c for c in word)

    def fresh(self, scope: Scope) -> str:
        """A new variable name: often a keyword-like one, sometimes escaped."""
        if self.chance(0.35):
            name = self.rnd.choice(KEYWORD_NAMES)
            if name not in scope.used:
                scope.used.add(name)
                return name
        self.counter += 1
        name = f"v{self.counter}"
        while name in scope.used:
            self.counter += 1
            name = f"v{self.counter}"
        scope.used.add(name)
        return name

    def ref(self, name: str) -> str:
        """A reference to ``name``, now and then with its first letter as a \\u escape."""
        if self.chance(0.05):
            return f"\\u{ord(name[0]):04x}{name[1:]}"
        return name

    def literal(self) -> str:
        return self.rnd.choice(
            [str(self.rnd.randint(-5, 2000)), "1.5", "true", "null", *STRINGS, "[1, 2]"]
        )

    # -- patterns ---------------------------------------------------------------
    def node(self, scope: Scope, bind: bool = True, reuse: bool = True) -> str:
        if reuse and scope.nodes and self.chance(0.3):
            return f"({self.ref(self.rnd.choice(scope.nodes))})"
        var = ""
        if bind and self.chance(0.7):
            var = self.fresh(scope)
        label = ""
        if self.chance(0.6):
            label = ":" + self.rnd.choice(LABELS)
            if self.chance(0.15):
                label += self.rnd.choice(["|", "&"]) + self.rnd.choice(LABELS)
            elif self.chance(0.05):
                label += "&!" + self.rnd.choice(LABELS)
        props = ""
        if self.chance(0.25):
            props = f" {{{self.rnd.choice(PROPS)}: {self.literal()}}}"
        where = ""
        if var and not props and self.chance(0.1):
            where = f" WHERE {var}.{self.rnd.choice(PROPS)} IS NOT NULL"
        if var:
            scope.nodes.append(var)
        return f"({var}{label}{props}{where})"

    def rel(self, scope: Scope, var_length: bool) -> str:
        left, right = self.rnd.choice([("-", "->"), ("<-", "-"), ("-", "-")])
        if self.chance(0.2):
            return left + right if right != "-" else "--"
        inner = ""
        if not var_length and self.chance(0.4):
            inner = self.fresh(scope)
            scope.values.append(inner)
        if self.chance(0.7):
            inner += ":" + self.rnd.choice(TYPES)
            if self.chance(0.2):
                inner += "|" + self.rnd.choice(TYPES)
        if var_length:
            inner += self.rnd.choice(["*", "*1..3", "*..2", "*2"])
        return f"{left}[{inner}]{right}"

    def path(self, scope: Scope, allow_qpp: bool, allow_var_length: bool) -> str:
        out = self.node(scope)
        if allow_qpp and self.chance(0.25):
            inner = Scope(used=scope.used)
            a, b = self.node(inner, reuse=False), self.node(inner, reuse=False)
            group = f"({a}{self.rel(inner, False)}{b})"
            quant = self.rnd.choice(["{1,3}", "+", "*", "{2}", "{,2}"])
            # Group variables are lists outside the group: not reusable as nodes.
            scope.values.extend(inner.nodes + inner.values)
            return f"{out} {group}{quant} {self.node(scope)}"
        for _ in range(self.rnd.randint(0, 2)):
            var_length = allow_var_length and self.chance(0.15)
            out += self.rel(scope, var_length) + self.node(scope)
        return out

    def pattern(self, scope: Scope) -> str:
        qpp = self.chance(0.5)
        parts = [self.path(scope, qpp, not qpp)]
        if self.chance(0.2):
            parts.append(self.path(scope, qpp, not qpp))
        text = ", ".join(parts)
        if self.chance(0.1):
            p = self.fresh(scope)
            scope.values.append(p)
            text = f"{p} = {parts[0]}" + "".join(", " + q for q in parts[1:])
        return text

    # -- expressions ------------------------------------------------------------
    def node_ref(self, scope: Scope) -> str:
        return self.ref(self.rnd.choice(scope.nodes))

    def predicate(self, scope: Scope, depth: int = 0) -> str:
        if not scope.nodes:
            return "true"
        v = self.node_ref(scope)
        prop = f"{v}.{self.rnd.choice(PROPS)}"
        kind = self.rnd.randint(0, 13 if depth < 2 else 9)
        if kind == 0:
            return f"{prop} = {self.literal()}"
        if kind == 1:
            return f"{prop} {self.kw('IS')} :: {self.rnd.choice(VALUE_TYPES)}"
        if kind == 2:
            return f"{prop} {self.kw('IS')} {self.kw('NOT')} :: {self.rnd.choice(VALUE_TYPES)}"
        if kind == 3:
            sep = self.rnd.choice([" :: ", "::"])
            return f"{prop}{sep}{self.rnd.choice(VALUE_TYPES)}"
        if kind == 4:
            return f"{prop} {self.kw('IS')} {self.rnd.choice(['NULL', 'NOT NULL'])}"
        if kind == 5:
            return f"{v}:{self.rnd.choice(LABELS)}"
        if kind == 6:
            return f"{prop} STARTS WITH {self.rnd.choice(STRINGS)}"
        if kind == 7:
            form = self.rnd.choice(["", "NFC ", "NFKD "])
            return f"{prop} IS {form}NORMALIZED"
        if kind == 8:
            return f"{prop} IN [1, 'a', null]"
        if kind == 9:
            return f"{v}.{self.rnd.choice(PROPS)} > {self.rnd.randint(0, 99)}"
        inner = scope.copy()
        if kind == 10:
            return f"{self.kw('EXISTS')} {{ ({v}){self.rel(inner, False)}{self.node(inner)} }}"
        if kind == 11:
            return (
                f"{self.kw('COUNT')} {{ ({v}){self.rel(inner, False)}{self.node(inner)} }}"
                f" > {self.rnd.randint(0, 3)}"
            )
        if kind == 12:
            body = f"{self.kw('MATCH')} ({v}){self.rel(inner, False)}{self.node(inner)}"
            if inner.nodes and self.chance(0.5):
                body += f" WHERE {self.predicate(inner, depth + 1)}"
            return f"{self.kw('EXISTS')} {{ {body} }}"
        op = self.rnd.choice([" AND ", " OR ", " XOR "])
        left, right = self.predicate(scope, depth + 1), self.predicate(scope, depth + 1)
        return f"({left}{op}{self.kw('NOT')} {right})" if self.chance(0.3) else left + op + right

    def expression(self, scope: Scope) -> str:
        if not scope.nodes:
            return self.literal()
        v = self.node_ref(scope)
        kind = self.rnd.randint(0, 9)
        if kind == 0:
            return f"{self.kw('count')}(*)"
        if kind == 1:
            w = self.fresh(scope.copy())
            return (
                f"{self.kw('COLLECT')} {{ {self.kw('MATCH')} ({v})-->({w}) "
                f"{self.kw('RETURN')} {w}.name }}"
            )
        if kind == 2:
            return f"{self.kw('COUNT')} {{ ({v})--() }}"
        if kind == 3:
            return "[x IN [1, 2.5, 'a'] WHERE x :: INTEGER | x * 2]"
        if kind == 4:
            return f"CASE WHEN {self.predicate(scope, 2)} THEN 1 ELSE 0 END"
        if kind == 5:
            return f"{v} {{.name, .{self.rnd.choice(PROPS)}}}"
        if kind == 6:
            return self.literal()
        if kind == 7:
            return self.predicate(scope, 2)
        return f"{v}.{self.rnd.choice(PROPS)}"

    # -- clauses ----------------------------------------------------------------
    def match(self, scope: Scope) -> str:
        optional = self.kw("OPTIONAL") + " " if scope.nodes and self.chance(0.2) else ""
        text = f"{optional}{self.kw('MATCH')} {self.pattern(scope)}"
        if self.chance(0.5):
            text += f" {self.kw('WHERE')} {self.predicate(scope)}"
        return text

    def with_clause(self, scope: Scope) -> str:
        if self.chance(0.3):
            text = f"{self.kw('WITH')} *"
        elif self.chance(0.5):
            keep = self.rnd.sample(scope.nodes, k=self.rnd.randint(1, len(scope.nodes)))
            scope.nodes[:] = keep
            scope.values.clear()
            text = f"{self.kw('WITH')} {self.kw('DISTINCT') + ' ' if self.chance(0.3) else ''}"
            text += ", ".join(self.ref(k) for k in keep)
        else:
            keep = scope.nodes[:1]
            alias = self.fresh(scope)
            expr = self.expression(scope)
            scope.nodes[:] = keep
            scope.values[:] = [alias]
            text = f"{self.kw('WITH')} {', '.join([*keep, expr + ' AS ' + alias])}"
        if scope.nodes and self.chance(0.3):
            text += f" {self.kw('WHERE')} {self.predicate(scope)}"
        return text

    def call_subquery(self, scope: Scope, top: bool) -> str:
        inner = scope.copy()
        imported = inner.nodes[:1] if inner.nodes and self.chance(0.5) else []
        # Only the imported variable is in scope inside the subquery.
        inner.nodes[:] = imported
        inner.values.clear()
        body = self.match(inner)
        scope.used |= inner.used
        out = self.fresh(scope)
        new = [n for n in inner.nodes if n not in scope.nodes]
        ret = new[0] if new else (inner.nodes[0] if inner.nodes else "1")
        body += f" {self.kw('RETURN')} {ret} AS {out}"
        (scope.nodes if ret != "1" else scope.values).append(out)
        if self.chance(0.3) or (not imported and self.chance(0.5)):
            head = f"{self.kw('CALL')} ({', '.join(imported)}) {{ {body} }}"
        else:
            with_import = f"{self.kw('WITH')} {imported[0]} " if imported else ""
            head = f"{self.kw('CALL')} {{ {with_import}{body} }}"
        if top and self.chance(0.3):
            head += f" {self.kw('IN')} {self.kw('TRANSACTIONS')}"
            if self.chance(0.5):
                head += f" {self.kw('OF')} {self.rnd.randint(1, 500)} {self.kw('ROWS')}"
        return head

    def single(self, scope: Scope, first_call_ok: bool, in_union: bool = False) -> str:
        clauses: list[str] = []
        if first_call_ok and self.chance(0.15):
            # Neo4j refuses `IN TRANSACTIONS` in a UNION.
            clauses.append(self.call_subquery(scope, top=not in_union))
        else:
            clauses.append(self.match(scope))
        for _ in range(self.rnd.randint(0, 3)):
            kind = self.rnd.randint(0, 5)
            if kind <= 1 or not scope.nodes:
                clauses.append(self.match(scope))
            elif kind == 2:
                clauses.append(self.with_clause(scope))
            elif kind == 3:
                alias = self.fresh(scope)
                clauses.append(f"{self.kw('UNWIND')} [1, 2] {self.kw('AS')} {alias}")
                scope.values.append(alias)
            elif kind == 4:
                clauses.append(self.call_subquery(scope, top=False))
            else:
                alias = self.fresh(scope)
                clauses.append(
                    f"{self.kw('CALL')} db.labels() {self.kw('YIELD')} label "
                    f"{self.kw('AS')} {alias}"
                )
                scope.values.append(alias)
        return " ".join(clauses)

    def ret(self, scope: Scope, aliases: list[str]) -> str:
        items = ", ".join(f"{self.expression(scope)} {self.kw('AS')} {a}" for a in aliases)
        text = f"{self.kw('RETURN')} {items}"
        if self.chance(0.2):
            text += f" {self.kw('ORDER BY')} {aliases[0]}"
        if self.chance(0.2):
            text += f" {self.rnd.choice(['SKIP', 'OFFSET'])} 1"
        if self.chance(0.2):
            text += f" {self.kw('LIMIT')} {self.rnd.randint(1, 10)}"
        return text


def decorate(rnd: random.Random, query: str) -> str:
    """Insert a comment at a space, now and then (comments are trivia)."""
    if rnd.random() < 0.2:
        spaces = [i for i, c in enumerate(query) if c == " "]
        if spaces:
            at = rnd.choice(spaces)
            query = f"{query[:at]} {rnd.choice(COMMENTS)} {query[at + 1 :]}"
    return query


def read_query(rnd: random.Random) -> str:
    """A read-only Neo4j 5 query (see the module documentation)."""
    gen = Gen(rnd)
    aliases = [f"r{i}" for i in range(rnd.randint(1, 2))]
    if rnd.random() < 0.1:
        aliases[0] = rnd.choice(KEYWORD_NAMES)
    branches = []
    count = 1 if rnd.random() < 0.85 else 2
    for b in range(count):
        scope = Scope(used=set(aliases))
        single = gen.single(scope, first_call_ok=b == 0, in_union=count > 1)
        branches.append(single + " " + gen.ret(scope, aliases))
    union = " " + gen.kw("UNION") + (" ALL " if rnd.random() < 0.5 else " ")
    return decorate(rnd, union.join(branches))


def write_query(rnd: random.Random) -> tuple[str, str]:
    """A query that writes, and the write clause the gate must report."""
    gen = Gen(rnd)
    scope = Scope()
    prefix = gen.single(scope, first_call_ok=False)
    template, clause = rnd.choice(WRITE_CLAUSES)
    var = rnd.choice(scope.nodes) if scope.nodes else "n"
    if not scope.nodes:
        prefix = f"MATCH (n) {prefix}"
    text = template.format(label=rnd.choice(LABELS), var=var)
    return decorate(rnd, f"{prefix} {text}"), clause


def mutate(rnd: random.Random, query: str) -> str:
    """``query`` with a few characters deleted, duplicated or replaced by Cypher punctuation."""
    chars = list(query)
    for _ in range(rnd.randint(1, 4)):
        if not chars:
            break
        at = rnd.randrange(len(chars))
        op = rnd.randint(0, 2)
        if op == 0:
            del chars[at]
        elif op == 1:
            chars.insert(at, chars[at])
        else:
            chars[at] = rnd.choice("(){}[]:;'\"`\\/*|,.=<>-!$")
    return "".join(chars)
