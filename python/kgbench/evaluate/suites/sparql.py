"""The SPARQL backend of test-suite EX (:mod:`kgbench.evaluate.suites.core`; spec
``test-suite.md``): neighbour queries mutated from the gold's tokens, neighbour graphs as
triples inserted / deleted in the embedded pyoxigraph store of a
:class:`~kgbench.query.sparql.SparqlExecutor` worker, then restored exactly.

**Neighbour queries** (:func:`neighbour_queries`). The gold is split into SPARQL 1.1 tokens
(:func:`tokenize`: IRIs, prefixed names with ``\\#`` escapes, variables, literals, keywords,
operators; comments and spacing kept) and mutated one place at a time, the kinds of Zhong et
al. (2020) §3: drop or negate one FILTER (or one ``&&`` conjunct of it), ``NOT EXISTS`` <->
``EXISTS``; replace a comparison operator (``<`` ``<=`` ``=`` ``>=`` ``>`` ``!=``); vary a
numeric constant (also a quoted one such as ``'2014'``) by -1 / +1; add or drop ``DISTINCT``;
change an aggregate (COUNT, SUM, AVG, MIN, MAX; COUNT <-> COUNT DISTINCT); flip ``ASC`` /
``DESC`` (a bare ``ORDER BY ?x`` becomes ``DESC(?x)``); change a ``LIMIT`` by -1 / +1 or drop
it; swap a predicate for another of the graph's predicates whose objects have the same kind
(the same datatype, or IRIs), same-class predicates first; swap a class (``a :c``) for another.
Every neighbour must parse and run in pyoxigraph (checked on an empty store); at most
``max_neighbours`` are kept (a seeded sample, in generation order). rdflib's algebra was not
used: its parser keeps the backslash of Spider4SPARQL's ``:singer\\#age`` and its
``translateAlgebra`` then refuses 475 of the 493 published gold queries.

**Neighbour graphs** (:meth:`SparqlSuiteBackend.candidate_deltas`), near the gold's matched
subgraph: the gold's WHERE group runs as ``SELECT *`` and the IRIs it binds are the matched
resources (when it binds nothing, resources of the gold's classes). Kinds: ``delete_relationship``
(one triple of a matched resource, predicates of the gold first), ``delete_node`` (every triple
of a resource), ``duplicate_node`` (a new resource with the same outgoing triples, and its
incoming links), ``add_relationship`` (an existing object predicate of the gold between an
existing subject and object not yet linked), ``set_property`` (a literal of a gold predicate
set to a boundary value around the gold's constants: c-1, c, c+1, or the string constant
itself, or to another resource's value of the same predicate: a tie), ``satisfy`` (one resource
of a class the gold matches gets every (predicate, constant) pair of the gold's filters: a
graph where an empty gold has an answer). Seeded: the same gold, graph and seed give the same
deltas. Ops are ``{"op": "insert" | "delete", "triple": [s, p, o]}`` in N-Triples syntax.

EX's rule (:meth:`SparqlSuiteBackend.same`) is the evaluation's
(:func:`kgbench.query.sparql.sparql_execution_accuracy` with the same ``compat``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kgbench.evaluate.suites.core import Delta
from kgbench.query.sparql import (
    XSD,
    SparqlExecutor,
    SparqlResult,
    sparql_execution_accuracy,
    sparql_order_matters,
)

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+|\#[^\n]*)
  | (?P<string>'''(?:[^\\]|\\.)*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\"
        |'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
  | (?P<iri><[^<>"{}|^`\\\s]*>)
  | (?P<var>[?$][A-Za-z0-9_\u00b7\u00c0-\uffff]+)
  | (?P<number>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)
  | (?P<pname>(?:[A-Za-z][\w\-.]*)?:(?:(?:[\w\-]|\\.|%[0-9A-Fa-f]{2})
        (?:[\w\-.]|\\.|%[0-9A-Fa-f]{2})*(?<!\.))?)
  | (?P<langtag>@[A-Za-z]+(?:-[A-Za-z0-9]+)*)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><=|>=|!=|&&|\|\||\^\^|[<>=!(){}\[\].,;*+/\-|^])
    """,
    re.VERBOSE,
)

#: Comparison operators (Zhong et al.'s list, SPARQL spelling).
COMPARISONS = ("<", "<=", "=", ">=", ">", "!=")
AGGREGATES = ("COUNT", "SUM", "AVG", "MIN", "MAX")


@dataclass(frozen=True)
class Token:
    """One token: ``kind`` (a group of :data:`_TOKEN`), ``text``, ``start`` offset."""

    kind: str
    text: str
    start: int

    @property
    def upper(self) -> str:
        """``text`` in upper case (keywords are case-insensitive)."""
        return self.text.upper()


def tokenize(query: str) -> list[Token]:
    """The tokens of ``query`` (spacing and comments as ``ws`` tokens; the text is the
    concatenation of the tokens' texts).

    Raises:
        ValueError: a character no SPARQL token starts with (names the offset)."""
    out, pos = [], 0
    while pos < len(query):
        m = _TOKEN.match(query, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"unexpected character {query[pos]!r} at offset {pos}")
        kind = m.lastgroup or "op"
        out.append(Token(kind, m.group(0), pos))
        pos = m.end()
    return out


def _text(tokens: Sequence[Token | str]) -> str:
    return "".join(t if isinstance(t, str) else t.text for t in tokens)


def _prefixes(tokens: Sequence[Token]) -> dict[str, str]:
    out: dict[str, str] = {}
    sig = [t for t in tokens if t.kind != "ws"]
    for i, t in enumerate(sig[:-2]):
        if t.upper == "PREFIX" and sig[i + 1].kind == "pname" and sig[i + 2].kind == "iri":
            out[sig[i + 1].text.rstrip(":").split(":")[0]] = sig[i + 2].text[1:-1]
    return out


def _iri_of(token: Token, prefixes: dict[str, str]) -> str | None:
    """The full IRI of an ``iri`` / ``pname`` token (``\\#`` unescaped), else None."""
    if token.kind == "iri":
        return token.text[1:-1]
    if token.kind == "pname":
        prefix, _, local = token.text.partition(":")
        if prefix not in prefixes:
            return None
        return prefixes[prefix] + re.sub(r"\\(.)", r"\1", local)
    if token.kind == "word" and token.text == "a":
        return RDF_TYPE
    return None


def _match(tokens: Sequence[Token], i: int) -> int:
    """The index of the bracket closing the one at ``i`` (or len - 1)."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    opener = tokens[i].text
    closer, depth = pairs[opener], 0
    for j in range(i, len(tokens)):
        if tokens[j].kind == "op":
            if tokens[j].text == opener:
                depth += 1
            elif tokens[j].text == closer:
                depth -= 1
                if depth == 0:
                    return j
    return len(tokens) - 1


def _next_sig(tokens: Sequence[Token], i: int) -> int:
    j = i + 1
    while j < len(tokens) and tokens[j].kind == "ws":
        j += 1
    return j


def _prev_sig(tokens: Sequence[Token], i: int) -> int:
    j = i - 1
    while j >= 0 and tokens[j].kind == "ws":
        j -= 1
    return j


def _replace(tokens: Sequence[Token], i: int, j: int, text: str) -> str:
    """The query with tokens ``i..j`` (inclusive) replaced by ``text``."""
    return _text(tokens[:i]) + text + _text(tokens[j + 1 :])


def _split_conjuncts(tokens: Sequence[Token], lo: int, hi: int) -> list[tuple[int, int]]:
    """The top-level ``&&`` operands of the expression tokens ``lo..hi``."""
    parts, depth, start = [], 0, lo
    for k in range(lo, hi + 1):
        t = tokens[k]
        if t.kind == "op" and t.text in "([{":
            depth += 1
        elif t.kind == "op" and t.text in ")]}":
            depth -= 1
        elif depth == 0 and t.kind == "op" and t.text == "&&":
            parts.append((start, k - 1))
            start = k + 1
    parts.append((start, hi))
    return parts


def _numeric_variants(text: str) -> list[str]:
    try:
        if re.fullmatch(r"-?[0-9]+", text):
            v = int(text)
            return [str(v - 1), str(v + 1)]
        v2 = float(text)
    except ValueError:
        return []
    return [repr(v2 - 1), repr(v2 + 1)]


def syntactic_neighbours(gold: str) -> list[tuple[str, str]]:
    """``(kind, query)`` mutations of ``gold`` that need no graph (module docstring), in a
    fixed order; not yet checked to parse."""
    toks = tokenize(gold)
    out: list[tuple[str, str]] = []
    n = len(toks)
    for i, t in enumerate(toks):
        up = t.upper
        if t.kind == "word" and up == "FILTER":
            j = _next_sig(toks, i)
            if j < n and toks[j].upper == "NOT":
                out.append(("negate_filter", _replace(toks, j, j, "")))
                continue
            if j < n and toks[j].upper == "EXISTS":
                out.append(("negate_filter", _replace(toks, j, j, "NOT EXISTS")))
                continue
            if j >= n or toks[j].text != "(":
                continue
            end = _match(toks, j)
            after = _next_sig(toks, end)
            drop_end = after if after < n and toks[after].text == "." else end
            out.append(("drop_filter", _replace(toks, i, drop_end, " ")))
            inner = _text(toks[j + 1 : end])
            out.append(("negate_filter", _replace(toks, j, end, f"(!({inner}))")))
            conj = _split_conjuncts(toks, j + 1, end - 1)
            if len(conj) > 1:
                for a, b in conj:
                    rest = [_text(toks[x : y + 1]) for x, y in conj if (x, y) != (a, b)]
                    out.append(("drop_filter", _replace(toks, j + 1, end - 1, " && ".join(rest))))
                    neg = [
                        f"!({_text(toks[x : y + 1])})"
                        if (x, y) == (a, b)
                        else _text(toks[x : y + 1])
                        for x, y in conj
                    ]
                    out.append(("negate_filter", _replace(toks, j + 1, end - 1, " && ".join(neg))))
        elif t.kind == "op" and t.text in COMPARISONS:
            for other in COMPARISONS:
                if other != t.text:
                    out.append(("comparison", _replace(toks, i, i, other)))
        elif t.kind == "number":
            p = _prev_sig(toks, i)
            if p >= 0 and toks[p].upper in ("LIMIT", "OFFSET"):
                continue
            for v in _numeric_variants(t.text):
                out.append(("constant", _replace(toks, i, i, v)))
        elif t.kind == "string":
            q = t.text[0]
            body = "" if t.text.startswith(q * 3) else t.text[1:-1]
            if body and re.fullmatch(r"-?[0-9]+(?:\.[0-9]+)?", body):
                for v in _numeric_variants(body):
                    out.append(("constant", _replace(toks, i, i, f"{q}{v}{q}")))
        elif t.kind == "word" and up == "SELECT":
            j = _next_sig(toks, i)
            if j < n and toks[j].upper in ("DISTINCT", "REDUCED"):
                out.append(("distinct", _replace(toks, j, j, "")))
            else:
                out.append(("distinct", _replace(toks, i, i, t.text + " DISTINCT")))
        elif t.kind == "word" and up in AGGREGATES:
            j = _next_sig(toks, i)
            if j >= n or toks[j].text != "(":
                continue
            for other in AGGREGATES:
                if other != up:
                    out.append(("aggregate", _replace(toks, i, i, other)))
            k = _next_sig(toks, j)
            if k < n and toks[k].upper == "DISTINCT":
                out.append(("aggregate", _replace(toks, k, k, "")))
            elif k < n:
                out.append(("aggregate", _replace(toks, j, j, "(DISTINCT ")))
        elif t.kind == "word" and up in ("ASC", "DESC"):
            out.append(("order", _replace(toks, i, i, "DESC" if up == "ASC" else "ASC")))
        elif t.kind == "word" and up == "BY":
            p = _prev_sig(toks, i)
            j = _next_sig(toks, i)
            if p >= 0 and toks[p].upper == "ORDER" and j < n and toks[j].kind == "var":
                out.append(("order", _replace(toks, j, j, f"DESC({toks[j].text})")))
        elif t.kind == "word" and up == "LIMIT":
            j = _next_sig(toks, i)
            if j < n and toks[j].kind == "number" and toks[j].text.isdigit():
                lim = int(toks[j].text)
                for w in (lim - 1, lim + 1):
                    if w >= 0:
                        out.append(("limit", _replace(toks, j, j, str(w))))
                out.append(("limit", _replace(toks, i, j, "")))
    return out


@dataclass(frozen=True)
class GoldShape:
    """What the gold matches, read from its tokens: ``predicates`` (full IRIs in predicate
    position, in order), ``classes`` (objects of ``a``), ``constants`` (literal tokens' values:
    numbers as ``int``/``float``, strings as ``str``), ``pairs`` ((predicate, constant) the
    gold compares with ``=`` / ``<`` / ... or writes as a triple's object), and
    ``class_of_pair`` (the class of each pair's subject variable, or ``None``)."""

    predicates: tuple[str, ...]
    classes: tuple[str, ...]
    constants: tuple[Any, ...]
    pairs: tuple[tuple[str, Any, str | None], ...]


def _literal_value(token: Token) -> Any:
    if token.kind == "number":
        return int(token.text) if token.text.isdigit() else float(token.text)
    body = token.text[3:-3] if token.text[:3] in ("'''", '"""') else token.text[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


def gold_shape(gold: str) -> GoldShape:
    """The :class:`GoldShape` of ``gold``.

    Raises:
        ValueError: text that does not tokenize."""
    toks = tokenize(gold)
    prefixes = _prefixes(toks)
    sig = [t for t in toks if t.kind != "ws"]
    preds: list[str] = []
    classes: list[str] = []
    var_pred: dict[str, tuple[str, str]] = {}  # object var -> (subject var, predicate)
    var_class: dict[str, str] = {}
    pairs: list[tuple[str, Any, str | None]] = []
    consts: list[Any] = []
    for i in range(1, len(sig) - 1):
        s, p, o = sig[i - 1], sig[i], sig[i + 1]
        iri = _iri_of(p, prefixes) if p.kind in ("iri", "pname", "word") else None
        if iri is None or s.kind not in ("var", "iri", "pname"):
            continue
        if p.kind == "word" and p.text != "a":
            continue
        if iri == RDF_TYPE:
            c = _iri_of(o, prefixes)
            if c is not None:
                classes.append(c)
                if s.kind == "var":
                    var_class[s.text] = c
            continue
        if i >= 2 and sig[i - 2].upper == "PREFIX":
            continue
        preds.append(iri)
        if o.kind == "var" and s.kind == "var":
            var_pred[o.text] = (s.text, iri)
        elif o.kind in ("string", "number") and s.kind == "var":
            pairs.append((iri, _literal_value(o), s.text))
    for i, t in enumerate(sig):
        if t.kind in ("string", "number"):
            if i > 0 and sig[i - 1].upper in ("LIMIT", "OFFSET"):
                continue
            consts.append(_literal_value(t))
        if t.kind == "op" and t.text in COMPARISONS and 0 < i < len(sig) - 1:
            a, b = sig[i - 1], sig[i + 1]
            if a.kind == "var" and b.kind in ("string", "number") and a.text in var_pred:
                sv, pr = var_pred[a.text]
                pairs.append((pr, _literal_value(b), sv))
            elif b.kind == "var" and a.kind in ("string", "number") and b.text in var_pred:
                sv, pr = var_pred[b.text]
                pairs.append((pr, _literal_value(a), sv))
    resolved = tuple((p, v, var_class.get(sv) if sv else None) for p, v, sv in pairs)
    return GoldShape(
        tuple(dict.fromkeys(preds)),
        tuple(dict.fromkeys(classes)),
        tuple(consts),
        resolved,
    )


def where_as_select_star(gold: str, limit: int = 500) -> str | None:
    """The gold's top-level WHERE group as ``SELECT * WHERE {...} LIMIT limit`` (its
    prologue kept), or None when it has none."""
    toks = tokenize(gold)
    for i, t in enumerate(toks):
        if t.kind == "word" and t.upper in ("SELECT", "ASK"):
            for j in range(i + 1, len(toks)):
                if toks[j].kind == "op" and toks[j].text == "{":
                    end = _match(toks, j)
                    prologue = _text(toks[:i])
                    return f"{prologue}SELECT * WHERE {_text(toks[j : end + 1])} LIMIT {limit}"
            return None
    return None


def _nt_literal(value: Any, datatype: str | None) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    if datatype and datatype != XSD + "string":
        return f'"{text}"^^<{datatype}>'
    return f'"{text}"'


class SparqlSuiteBackend:
    """A :class:`~kgbench.evaluate.suites.core.SuiteBackend` on the graph of a running
    :class:`~kgbench.query.sparql.SparqlExecutor` (module docstring).

    ``compat``: EX's rules (``None`` or ``"s4s"``); ``max_neighbours``: the most neighbour
    queries kept per gold."""

    def __init__(
        self, executor: SparqlExecutor, *, compat: str | None = None, max_neighbours: int = 48
    ) -> None:
        self.ex = executor
        self.compat = compat
        self.max_neighbours = max_neighbours
        self._fingerprint: str | None = None
        self._schema: dict[str, str] | None = None
        self._pred_class: dict[str, str] = {}
        self._classes: list[str] | None = None
        self._checker: Any = None

    # -- graph facts ---------------------------------------------------------------
    def fingerprint(self) -> str:
        """SHA-256 of the graph's sorted N-Triples (:meth:`SparqlExecutor.fingerprint`)."""
        if self._fingerprint is None:
            self._fingerprint = self.ex.fingerprint()
        return self._fingerprint

    def _rows(self, query: str) -> list[list[Any]]:
        res = self.ex.run(query)
        return res.rows if res.ok else []

    def predicate_kinds(self) -> dict[str, str]:
        """Each predicate's object kind: ``"IRI"`` or the literals' datatype IRI (the most
        frequent when mixed), and, in ``_pred_class``, the class of its subjects."""
        if self._schema is None:
            rows = self._rows(
                "SELECT ?p ?k (COUNT(*) AS ?n) WHERE { ?s ?p ?o "
                'BIND(IF(isIRI(?o), "IRI", STR(DATATYPE(?o))) AS ?k) } GROUP BY ?p ?k '
                "ORDER BY ?p DESC(?n) ?k"
            )
            kinds: dict[str, str] = {}
            for p, k, _n in rows:
                kinds.setdefault(str(p), str(k))
            self._schema = kinds
            for p, c in self._rows(
                f"SELECT ?p (MIN(STR(?c)) AS ?cls) WHERE {{ ?s ?p ?o . ?s <{RDF_TYPE}> ?c }} "
                "GROUP BY ?p ORDER BY ?p"
            ):
                self._pred_class[str(p)] = str(c)
        return self._schema

    def classes(self) -> list[str]:
        """The graph's classes (objects of ``rdf:type``), sorted."""
        if self._classes is None:
            rows = self._rows(f"SELECT DISTINCT ?c WHERE {{ ?s <{RDF_TYPE}> ?c }} ORDER BY ?c")
            self._classes = [str(r[0]) for r in rows]
        return self._classes

    def parses(self, query: str) -> bool:
        """Whether pyoxigraph parses and evaluates ``query`` (on an empty store)."""
        import pyoxigraph as ox

        if self._checker is None:
            self._checker = ox.Store()
        try:
            self._checker.query(query)
        except Exception:
            return False
        return True

    # -- neighbour queries -----------------------------------------------------------
    def neighbour_queries(self, gold: str, seed: int) -> list[str]:
        """Mutations of ``gold`` (module docstring) that parse, at most ``max_neighbours``
        (a seeded sample kept in generation order)."""
        cands = [q for _k, q in syntactic_neighbours(gold)]
        cands += self._swaps(gold, seed)
        seen = {gold}
        ok = []
        for q in cands:
            if q not in seen:
                seen.add(q)
                if self.parses(q):
                    ok.append(q)
        if len(ok) > self.max_neighbours:
            keep = sorted(random.Random(seed).sample(range(len(ok)), self.max_neighbours))
            ok = [ok[i] for i in keep]
        return ok

    def _swaps(self, gold: str, seed: int) -> list[str]:
        kinds = self.predicate_kinds()
        toks = tokenize(gold)
        prefixes = _prefixes(toks)
        rng = random.Random(seed)
        out = []
        for i, t in enumerate(toks):
            if t.kind not in ("iri", "pname"):
                continue
            iri = _iri_of(t, prefixes)
            if iri is None:
                continue
            p = _prev_sig(toks, i)
            if p >= 0 and toks[p].kind == "word" and toks[p].text == "a":
                others = [c for c in self.classes() if c != iri]
                out += [
                    _replace(toks, i, i, f"<{c}>") for c in rng.sample(others, min(2, len(others)))
                ]
                continue
            if iri not in kinds:
                continue
            same = sorted(
                q for q, k in kinds.items() if k == kinds[iri] and q != iri and q != RDF_TYPE
            )
            cls = self._pred_class.get(iri)
            first = [q for q in same if self._pred_class.get(q) == cls]
            pool = first if first else same
            for q in rng.sample(pool, min(2, len(pool))):
                out.append(_replace(toks, i, i, f"<{q}>"))
        return out

    # -- neighbour graphs ------------------------------------------------------------
    def _triples_of(self, iri: str) -> list[tuple[str, str, str]]:
        """The triples with ``iri`` as subject or object, in N-Triples syntax, sorted."""
        out = []
        res = self.ex.run(
            f"SELECT ?p ?o (isIRI(?o) AS ?i) (DATATYPE(?o) AS ?d) (LANG(?o) AS ?l) "
            f"WHERE {{ <{iri}> ?p ?o }}"
        )
        for p, o, is_iri, dt, _lang in res.rows if res.ok else []:
            obj = f"<{o}>" if is_iri else _nt_literal(o, str(dt) if dt else None)
            out.append((f"<{iri}>", f"<{p}>", obj))
        for s, p in self._rows(f"SELECT ?s ?p WHERE {{ ?s ?p <{iri}> }}"):
            out.append((f"<{s}>", f"<{p}>", f"<{iri}>"))
        return sorted(set(out))

    def _raw_literal_rows(self, query: str) -> list[tuple[Any, ...]]:
        """Rows with literal terms kept as N-Triples text (via STR + DATATYPE)."""
        return [tuple(r) for r in self._rows(query)]

    def candidate_deltas(self, gold: str, seed: int, count: int) -> list[Delta]:
        """At most ``count`` seeded deltas near the gold's matched resources (module
        docstring); a deterministic interleaving of the kinds so that a small ``count``
        still holds each kind."""
        rng = random.Random(seed)
        shape = gold_shape(gold)
        kinds = self.predicate_kinds()
        star = where_as_select_star(gold)
        bound: list[str] = []
        if star is not None:
            res = self.ex.run(star)
            if res.ok:
                for row in res.rows:
                    for v in row:
                        if (
                            isinstance(v, str)
                            and v.startswith(("http://", "https://", "urn:"))
                            and v not in bound
                            and v not in kinds
                            and v not in self.classes()
                        ):
                            bound.append(v)
        members: list[str] = []
        of_class: dict[str, list[str]] = {}
        for c in shape.classes:
            rows = self._rows(f"SELECT ?s WHERE {{ ?s <{RDF_TYPE}> <{c}> }} ORDER BY ?s")
            of_class[c] = [str(r[0]) for r in rows]
            members += of_class[c]
        near = bound or members
        rng_near = sorted(set(near))
        focus = rng.sample(rng_near, min(6, len(rng_near)))
        bound_set = set(bound)
        others = [m for m in sorted(set(members)) if m not in bound_set]
        focus_out = rng.sample(others, min(3, len(others)))
        gold_preds = set(shape.predicates)
        groups: dict[str, list[tuple[str, tuple[dict[str, Any], ...], str]]] = {}

        def add(kind: str, ops: list[dict[str, Any]], desc: str) -> None:
            groups.setdefault(kind, []).append((kind, tuple(ops), desc))

        def ins(s: str, p: str, o: str) -> dict[str, Any]:
            return {"op": "insert", "triple": [s, p, o]}

        def dele(s: str, p: str, o: str) -> dict[str, Any]:
            return {"op": "delete", "triple": [s, p, o]}

        nums = [c for c in shape.constants if isinstance(c, (int, float))]
        strs = [c for c in shape.constants if isinstance(c, str)]
        for k, r in enumerate(focus + focus_out):
            triples = self._triples_of(r)
            if not triples:
                continue
            mine = [t for t in triples if t[0] == f"<{r}>"]
            rel = [t for t in mine if t[1][1:-1] in gold_preds] or mine
            for t in rng.sample(rel, min(2, len(rel))):
                add("delete_relationship", [dele(*t)], f"delete {t[0]} {t[1]} {t[2]}")
            add(
                "delete_node",
                [dele(*t) for t in triples],
                f"delete <{r}> and its {len(triples)} triples",
            )
            twin = f"<{r}_ts{k}>"
            dup = [
                ins(twin if s == f"<{r}>" else s, p, twin if o == f"<{r}>" else o)
                for s, p, o in triples
            ]
            add("duplicate_node", dup, f"add {twin}, a copy of <{r}> with its links")
            for s, p, o in mine:
                pred = p[1:-1]
                if pred not in gold_preds or kinds.get(pred) == "IRI" or pred == RDF_TYPE:
                    continue
                dt_m = re.search(r"\^\^<([^>]+)>$", o)
                dt = dt_m.group(1) if dt_m else None
                values: list[Any] = []
                for num in nums:
                    values += [num - 1, num, num + 1]
                for text in strs:
                    if re.fullmatch(r"-?[0-9]+", text):
                        values += [str(int(text) - 1), text, str(int(text) + 1)]
                    else:
                        values.append(text)
                tie = self._rows(
                    f"SELECT ?o WHERE {{ ?x <{pred}> ?o FILTER(?x != <{r}>) }} ORDER BY ?o LIMIT 50"
                )
                if tie:
                    values.append(rng.choice(tie)[0])
                for v in values:
                    lit = _nt_literal(v, dt)
                    if lit != o:
                        add(
                            "set_property",
                            [dele(s, p, o), ins(s, p, lit)],
                            f"set {s} {p} to {lit} (was {o})",
                        )
        # object predicates of the gold: a new link between existing subject and object
        for pred in sorted(p for p in gold_preds if kinds.get(p) == "IRI"):
            subj = [
                str(r[0])
                for r in self._rows(f"SELECT DISTINCT ?s WHERE {{ ?s <{pred}> ?o }} ORDER BY ?s")
            ]
            obj = [
                str(r[0])
                for r in self._rows(f"SELECT DISTINCT ?o WHERE {{ ?s <{pred}> ?o }} ORDER BY ?o")
            ]
            for _ in range(3):
                if not subj or not obj:
                    break
                s, o = rng.choice(subj), rng.choice(obj)
                if not self._rows(f"ASK {{ <{s}> <{pred}> <{o}> }}")[0][0]:
                    add(
                        "add_relationship",
                        [ins(f"<{s}>", f"<{pred}>", f"<{o}>")],
                        f"link <{s}> <{pred}> <{o}>",
                    )
        # a resource of the gold's class satisfying every (predicate, constant) pair
        by_class: dict[str | None, list[tuple[str, Any]]] = {}
        for pair_pred, value, pair_cls in shape.pairs:
            by_class.setdefault(pair_cls, []).append((pair_pred, value))
        for cls, pvs in sorted(by_class.items(), key=lambda x: str(x[0])):
            cands = sorted(set(members) if cls is None else of_class.get(cls, []))
            for r in rng.sample(cands, min(3, len(cands))):
                ops: list[dict[str, Any]] = []
                for p, v in pvs:
                    old = self._raw_objects(r, p)
                    odt = old[0][1] if old else (XSD + "integer" if isinstance(v, int) else None)
                    ops += [dele(f"<{r}>", f"<{p}>", lit) for lit, _d in old]
                    ops.append(ins(f"<{r}>", f"<{p}>", _nt_literal(v, odt)))
                add("satisfy", ops, f"<{r}> gets the gold's constants ({len(pvs)} values)")
        order = [
            "satisfy",
            "set_property",
            "delete_relationship",
            "duplicate_node",
            "add_relationship",
            "delete_node",
        ]
        queues = {k: list(groups.get(k, [])) for k in order}
        picked: list[tuple[str, tuple[dict[str, Any], ...], str]] = []
        while any(queues.values()) and len(picked) < count:
            for kind in order:
                if queues[kind] and len(picked) < count:
                    picked.append(queues[kind].pop(0))
        return [Delta(f"d{i:02d}", kind, ops, desc) for i, (kind, ops, desc) in enumerate(picked)]

    def _raw_objects(self, iri: str, pred: str) -> list[tuple[str, str | None]]:
        res = self.ex.run(
            f"SELECT ?o (isIRI(?o) AS ?i) (DATATYPE(?o) AS ?d) WHERE {{ <{iri}> <{pred}> ?o }}"
        )
        out = []
        for o, is_iri, dt in res.rows if res.ok else []:
            d = str(dt) if dt else None
            out.append((f"<{o}>" if is_iri else _nt_literal(o, d), d))
        return out

    # -- running -----------------------------------------------------------------------
    def run_with(self, delta: Delta | None, queries: Sequence[str]) -> list[SparqlResult]:
        """Each query's :class:`SparqlResult` on the graph + ``delta``, restored after."""
        if delta is None:
            return [self.ex.run(q) for q in queries]
        self.ex.apply(delta.ops)
        try:
            return [self.ex.run(q) for q in queries]
        finally:
            self.ex.restore()

    def same(self, gold: str, gold_result: Any, other: Any) -> bool:
        """EX's rule on two :class:`SparqlResult` (false when either failed)."""
        if not (gold_result.ok and other.ok):
            return False
        return (
            sparql_execution_accuracy(
                gold_result.rows, other.rows, sparql_order_matters(gold), compat=self.compat
            )
            == 1
        )
