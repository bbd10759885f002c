"""SPARQL execution and execution accuracy (spec ``spider4sparql.md`` §2, §5): queries run on
an embedded store (pyoxigraph, loaded from N-Triples / Turtle files) inside a worker process
that is killed at the timeout, and results become typed values that kgbench's exact EX
compares.

Typed values (kgbench's default, spec §5):

- IRI -> its string; blank node -> ``_:`` + its id; unbound -> ``None``;
- ``xsd:integer`` and its derived integer types -> ``int``;
- ``xsd:decimal``, ``xsd:double``, ``xsd:float`` -> ``float`` rounded to 10 significant
  digits (SPARQL's AVG gives ``xsd:decimal`` 10621.666666666666666666, SQLite
  10621.6666666667: both become 10621.66666667);
- ``xsd:boolean`` -> ``bool``; ``xsd:date`` / ``xsd:dateTime`` -> the ISO lexical form;
- any other literal -> its lexical form (language tags dropped).

EX (:func:`sparql_execution_accuracy`): kgbench's exact EX (column bijection; bag of rows;
row order only when the gold query has a top-level ``ORDER BY``, :func:`sparql_order_matters`).
``compat="s4s"``: the 2021 ValueNet4SPARQL scorer's rules — numbers rounded to 12 decimals,
date-times as ``%Y-%m-%d %H:%M:%S``, equal iff the bags of rows are equal with columns in
their positions (no permutation), order ignored.

Spider4SPARQL's published queries have no PREFIX and escape ``#`` in local names
(``:singer\\#age``); :func:`with_s4s_prefix` adds ``PREFIX : <http://valuenet/ontop/>`` when
a query declares no ``:`` prefix. (rdflib keeps the backslash of ``\\#`` in the IRI, so such
queries match nothing there; pyoxigraph reads them right.)
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.fileio import open_decompressed

XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGERS = {
    XSD + t
    for t in (
        "integer",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "nonPositiveInteger",
        "negativeInteger",
        "positiveInteger",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
    )
}
_FLOATS = {XSD + "decimal", XSD + "double", XSD + "float"}

#: Spider4SPARQL's base IRI, the ``:`` prefix its queries leave out.
S4S_PREFIX = "PREFIX : <http://valuenet/ontop/>\n"

_COLON_PREFIX = re.compile(r"(?i)\bPREFIX\s+:\s*<")


def with_s4s_prefix(query: str) -> str:
    """``query`` with ``PREFIX : <http://valuenet/ontop/>`` prepended unless it declares
    the ``:`` prefix itself (spec §2)."""
    return query if _COLON_PREFIX.search(query) else S4S_PREFIX + query


def round_significant(x: float, digits: int = 10) -> float:
    """``x`` rounded to ``digits`` significant digits (0, inf and NaN unchanged)."""
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, digits - 1 - math.floor(math.log10(abs(x))))


def typed_value(term: Any) -> Any:
    """A pyoxigraph term (or None) as a typed Python value (module docstring)."""
    if term is None:
        return None
    kind = type(term).__name__
    if kind == "NamedNode":
        return str(term.value)
    if kind == "BlankNode":
        return "_:" + str(term.value)
    if kind != "Literal":
        return str(term)
    text = str(term.value)
    dt = term.datatype.value if term.datatype is not None else None
    try:
        if dt in _INTEGERS:
            return int(text)
        if dt in _FLOATS:
            return round_significant(float(text))
        if dt == XSD + "boolean":
            return text in ("true", "1")
    except ValueError:
        return text  # an ill-typed literal keeps its lexical form
    return text


def _s4s_cell(value: Any) -> Any:
    """A typed value under the 2021 scorer's rules (module docstring)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return round(float(value), 12)
    if isinstance(value, str) and "T" in value and value[:4].isdigit():
        try:
            return datetime.fromisoformat(value).strftime("%Y-%m-%d %H:%M:%S")
        except ValueError:
            return value
    return value


def _strip_strings(query: str) -> str:
    """``query`` with string literals, IRIs and comments blanked (same length)."""
    out = []
    i, n = 0, len(query)
    while i < n:
        ch = query[i]
        if ch in "\"'":
            long = query.startswith(ch * 3, i)
            end = ch * 3 if long else ch
            j = i + len(end)
            while j < n and not query.startswith(end, j):
                j += 2 if query[j] == "\\" else 1
            j = min(n, j + len(end))
            out.append(" " * (j - i))
            i = j
        elif ch == "<" and re.match(r"<[^<>\"{}|^`\\\s]*>", query[i:]):
            m = re.match(r"<[^<>\"{}|^`\\\s]*>", query[i:])
            assert m is not None
            out.append(" " * len(m.group(0)))
            i += len(m.group(0))
        elif ch == "#" and (i == 0 or query[i - 1] != "\\"):
            j = query.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def sparql_order_matters(gold_query: str) -> bool:
    """Whether row order counts: the gold query has an ``ORDER BY`` at the top level (outside
    every ``{ }`` group, so not inside a subquery; strings, IRIs and comments ignored)."""
    text = _strip_strings(gold_query)
    depth = 0
    for m in re.finditer(r"[{}]|\bORDER\s+BY\b", text, re.IGNORECASE):
        tok = m.group(0)
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
        elif depth == 0:
            return True
    return False


@dataclass
class SparqlResult:
    """One execution: ``columns`` and typed ``rows``, or ``error`` (``syntax``, ``execution``,
    ``timeout``, ``not_select``) with its message."""

    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    error: str | None = None
    message: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the query ran."""
        return self.error is None


def _run_in_store(store: Any, query: str) -> tuple[Any, ...]:
    try:
        result = store.query(query)
    except SyntaxError as exc:
        return ("error", "syntax", str(exc))
    except Exception as exc:  # evaluation errors (OSError, ValueError...)
        return ("error", "execution", str(exc))
    if isinstance(result, bool) or type(result).__name__ == "QueryBoolean":
        return ("ok", ["ask"], [[bool(result)]])  # pyoxigraph 0.5: a QueryBoolean
    if not hasattr(result, "variables"):
        return ("error", "not_select", "a CONSTRUCT/DESCRIBE query has no result table")
    columns = [v.value for v in result.variables]
    try:
        rows = [[typed_value(s[c]) for c in columns] for s in result]
    except Exception as exc:
        return ("error", "execution", str(exc))
    return ("ok", columns, rows)


def _quad(line: str) -> Any:
    """The pyoxigraph quad of one N-Triples statement ``<s> <p> o`` (without the dot)."""
    import pyoxigraph as ox

    (quad,) = ox.parse((line + " .\n").encode("utf-8"), format=ox.RdfFormat.N_TRIPLES)
    return quad


def _command(store: Any, msg: tuple[Any, ...], undo: list[tuple[str, Any]]) -> tuple[Any, ...]:
    """A worker command (not a query): ``("apply", ops)`` inserts / deletes triples (ops
    ``{"op": "insert" | "delete", "triple": [s, p, o]}``, terms in N-Triples syntax) and
    remembers what actually changed; ``("restore",)`` undoes exactly that; ``("fingerprint",)``
    is the SHA-256 of the sorted N-Triples statements (:func:`store_fingerprint`)."""
    try:
        if msg[0] == "apply":
            for op in msg[1]:
                quad = _quad(" ".join(op["triple"]))
                if op["op"] == "insert" and quad not in store:
                    store.add(quad)
                    undo.append(("inserted", quad))
                elif op["op"] == "delete" and quad in store:
                    store.remove(quad)
                    undo.append(("deleted", quad))
            return ("ok",)
        if msg[0] == "restore":
            while undo:
                what, quad = undo.pop()
                if what == "inserted":
                    store.remove(quad)
                else:
                    store.add(quad)
            return ("ok",)
        if msg[0] == "fingerprint":
            return ("ok", store_fingerprint(store))
    except Exception as exc:  # a malformed op: the caller's error
        return ("error", "command", f"{type(exc).__name__}: {exc}")
    return ("error", "command", f"unknown worker command {msg[0]!r}")


def store_fingerprint(store: Any) -> str:
    """SHA-256 (hex) of the statements of a pyoxigraph ``store`` as sorted N-Triples lines
    (``subject predicate object``, one a line): a key of its content, not of its files."""
    import hashlib

    h = hashlib.sha256()
    for line in sorted(f"{q.subject} {q.predicate} {q.object}" for q in store):
        h.update(line.encode("utf-8") + b"\n")
    return h.hexdigest()


def _worker(paths: list[str], conn: Any) -> None:
    """The worker process: load ``paths`` into a store, then answer queries until EOF."""
    try:
        store = load_store(paths)
    except Exception as exc:
        conn.send(("error", "load", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready",))
    undo: list[tuple[str, Any]] = []
    while True:
        try:
            query = conn.recv()
        except EOFError:
            return
        if query is None:
            return
        if isinstance(query, tuple):
            conn.send(_command(store, query, undo))
            continue
        conn.send(_run_in_store(store, query))


def load_store(paths: Sequence[str | os.PathLike[str]]) -> Any:
    """An in-memory pyoxigraph store holding the triples of the RDF files ``paths``, in order
    (N-Triples, or Turtle when the name contains ``.ttl``; gzip / bzip2 detected from the
    content, :func:`kgbench.fileio.open_decompressed`).

    Raises:
        InputError: a file that cannot be read or parsed (the parser's message names the
            line)."""
    import pyoxigraph as ox

    store = ox.Store()
    for p in map(Path, paths):
        fmt = ox.RdfFormat.TURTLE if ".ttl" in p.name else ox.RdfFormat.N_TRIPLES
        try:
            with open_decompressed(p) as fh:
                store.bulk_load(input=fh, format=fmt)
        except OSError as exc:
            raise InputError(f"{p}: cannot read: {exc}") from exc
        except SyntaxError as exc:
            raise InputError(f"{p}: not valid RDF: {exc}") from exc
    return store


class SparqlExecutor:
    """SPARQL on one RDF graph in a worker process (module docstring).

    ``paths``: the graph's RDF files; ``timeout_s``: per query (the worker is killed and
    restarted when one runs over; the result is ``timeout``). Use as a context manager or
    call :meth:`close`.

    Raises (from :meth:`run`):
        InputError: the graph cannot be loaded (its message)."""

    def __init__(self, paths: Sequence[str | os.PathLike[str]], timeout_s: float = 30.0) -> None:
        self.paths = [str(p) for p in paths]
        self.timeout_s = timeout_s
        self._proc: Any = None
        self._conn: Any = None
        self.restarts = 0
        self._ops: list[dict[str, Any]] | None = None

    def _start(self) -> None:
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(self.paths, child), daemon=True)
        proc.start()
        child.close()
        # loading is not a query: no timeout, but a dead worker is an error
        while not parent.poll(1.0):
            if not proc.is_alive():
                raise InputError(f"the SPARQL worker for {self.paths} died while loading")
        msg = parent.recv()
        if msg[0] != "ready":
            proc.join()
            raise InputError(f"cannot load {', '.join(self.paths)}: {msg[2]}")
        self._proc, self._conn = proc, parent

    def run(self, query: str) -> SparqlResult:
        """Execute ``query``; never raises for a bad query (its error is in the result)."""
        import time

        if self._proc is None:
            self._start()
            if self._ops is not None:  # a fresh worker holds the original graph: re-apply
                self._command(("apply", self._ops))
        t0 = time.perf_counter()
        self._conn.send(query)
        if not self._conn.poll(self.timeout_s):
            self._kill()
            self.restarts += 1
            return SparqlResult(
                error="timeout",
                message=f"over {self.timeout_s:g} s",
                seconds=time.perf_counter() - t0,
            )
        try:
            msg = self._conn.recv()
        except EOFError:
            self._kill()
            self.restarts += 1
            return SparqlResult(error="execution", message="the SPARQL worker died")
        seconds = time.perf_counter() - t0
        if msg[0] == "ok":
            return SparqlResult(columns=msg[1], rows=msg[2], seconds=seconds)
        return SparqlResult(error=msg[1], message=msg[2], seconds=seconds)

    def _command(self, msg: tuple[Any, ...]) -> tuple[Any, ...]:
        if self._proc is None:
            self._start()
        self._conn.send(msg)
        reply: tuple[Any, ...] = self._conn.recv()
        if reply[0] != "ok":
            raise InputError(f"SPARQL worker: {reply[2]}")
        return reply

    def apply(self, ops: Sequence[dict[str, Any]]) -> None:
        """Change the graph for the next queries: ``ops`` insert or delete triples
        (``{"op": "insert" | "delete", "triple": [s, p, o]}``, terms in N-Triples syntax,
        e.g. ``<http://x/a>`` or ``"5"^^<http://www.w3.org/2001/XMLSchema#integer>``) until
        :meth:`restore`; kept across a worker restart (a timeout).

        Raises:
            InputError: a malformed op (the parser's message); ValueError: a delta already
                applied."""
        if self._ops is not None:
            raise ValueError("a delta is already applied: restore() first")
        self._ops = [dict(op) for op in ops]
        try:
            self._command(("apply", self._ops))
        except InputError:
            self.restore()
            raise

    def restore(self) -> None:
        """Undo :meth:`apply` exactly (only the triples it actually inserted or deleted)."""
        self._ops = None
        if self._proc is not None:
            self._command(("restore",))

    def fingerprint(self) -> str:
        """SHA-256 of the graph's sorted N-Triples statements (the content, not the files)."""
        return str(self._command(("fingerprint",))[1])

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join()
        self._proc = self._conn = None

    def close(self) -> None:
        """Stop the worker."""
        if self._proc is not None:
            try:
                self._conn.send(None)
                self._proc.join(5)
            except (OSError, BrokenPipeError):
                pass
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join()
        self._proc = self._conn = None

    def __enter__(self) -> SparqlExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def sparql_execution_accuracy(
    gold_rows: Iterable[Sequence[Any]],
    pred_rows: Iterable[Sequence[Any]],
    order_matters: bool,
    *,
    compat: str | None = None,
) -> float:
    """EX of two typed result tables (module docstring): kgbench's exact EX, or with
    ``compat="s4s"`` the 2021 scorer's rules.

    Raises:
        ValueError: an unknown ``compat``."""
    gold, pred = [list(r) for r in gold_rows], [list(r) for r in pred_rows]
    if compat is None:
        from kgbench.query.compare import execution_accuracy

        return execution_accuracy(gold, pred, order_matters)
    if compat != "s4s":
        raise ValueError(f"compat must be None or 's4s', not {compat!r}")
    g = Counter(tuple(_s4s_cell(v) for v in r) for r in gold)
    p = Counter(tuple(_s4s_cell(v) for v in r) for r in pred)
    return 1.0 if g == p else 0.0


RDF_SUFFIXES = (".nt", ".nt.gz", ".nt.bz2", ".ttl", ".ttl.gz", ".ttl.bz2")
"""File name endings read as RDF by :func:`rdf_files_of` (what :func:`load_store` parses:
N-Triples or Turtle, plain or gzip / bzip2 compressed)."""


def rdf_files_of(rdf_dir: str | os.PathLike[str], graph: str) -> list[Path]:
    """The RDF files of ``graph`` in ``rdf_dir``: ``<graph><suffix>`` for the first of
    :data:`RDF_SUFFIXES` present, else every file of ``rdf_dir/<graph>/`` (a converter output
    directory) whose name ends in one of them, sorted by name.

    Raises:
        InputError: none found (the message says where it looked)."""
    d = Path(rdf_dir)
    for suffix in RDF_SUFFIXES:
        if (d / f"{graph}{suffix}").is_file():
            return [d / f"{graph}{suffix}"]
    sub = d / graph
    if sub.is_dir():
        files = sorted(p for p in sub.iterdir() if p.name.endswith(RDF_SUFFIXES) and p.is_file())
        if files:
            return files
    raise InputError(
        f"no RDF for graph {graph!r} in {d} (looked for {graph}.nt and {graph}/*.nt, "
        f"also as .ttl, .gz and .bz2)"
    )
