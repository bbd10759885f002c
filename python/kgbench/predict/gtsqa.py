"""The ``gtsqa`` family of ``kgbench predict``: GTSQA / SynthKGQA questions → SPARQL → answers
and the answer subgraph the query's pattern matched.

Tasks are GTSQA records (spec ``synthkgqa.md`` §2; ``kgbench generate synth`` writes them):
``id``, ``question`` and ``seed_entities`` (``["label (QID)"]``) are used. The KG is a
Wikidata RDF dump (``--kg FILE``, N-Triples or Turtle, ``.gz`` / ``.bz2`` too) loaded into
pyoxigraph's in-memory store, as ``kgbench generate synth`` does.

**Prompt.** The SynthKGQA paper (seed synthkgqa-gtsqa.txt) and its code publish prompts for
*generating* items and for answering with a retrieved subgraph, not a text-to-SPARQL baseline,
so the default prompt ``gtsqa_sparql`` is kgbench's own (``prompts/README.md``): the question,
its seed entities as GTSQA spells them (``label (QID)``, one a line) and the relations of the
KG (``label (PID)``, one a line, by PID number: every ``wdt:`` predicate in the dump, English
labels from ``rdfs:label``), as ONE user message. Placeholders ``{question}``,
``{seed_entities}``, ``{relations}``.

**Post-processing** (:func:`postprocess`): cut at the first chat end token, then the body of
the first fenced code block when there is one (```` ```sparql ```` or ```` ``` ````), stripped.

**Execution** (:func:`execute`): ``wd:``, ``wdt:``, ``rdfs:`` and ``schema:`` prefixes the
query uses without declaring are declared (Wikidata's standard IRIs). The query must be a
SELECT; its answers are the values of ``?answer`` when projected, else of the first projected
variable (IRIs of ``wd:`` entities as their QID, other IRIs whole, literals as their lexical
form), deduplicated in first-seen order. **The triples the pattern matched**: rdflib's SPARQL
algebra of the query gives the triple patterns of its WHERE clause (those joined into the
solutions: basic graph patterns under joins, OPTIONAL, UNION, FILTER and subqueries; not those
inside ``FILTER (NOT) EXISTS`` or the right side of ``MINUS``, which bind nothing; property
paths and blank-node patterns are skipped). kgbench rewrites the query's head ``SELECT … WHERE``
into ``CONSTRUCT { <those patterns> } WHERE`` over the same group (solution modifiers kept,
except after ``GROUP BY`` / ``HAVING``, where the pattern's variables are out of scope: then
the bare group), runs it on the store and keeps the constructed triples whose subject and
object are IRIs, as ``[subject, predicate, object]`` ids (the last IRI segment: ``Q…``,
``P…``), sorted. These are the prediction's answer subgraph (GTSQA's R), scored against
``full_answer_subgraph_wikidata`` by :func:`kgbench.evaluate.gtsqa.evaluate_gtsqa`.

A query that does not parse or fails gives no answers and no triples, with ``error`` set.

**Cypher with ``--uri``** (no ``--kg``; :class:`CypherGraph`): the KG is its Neo4j conversion
(``kgbench convert`` with a ``.wd2neo4j.json`` schema, then ``kgbench load``; nodes carry
``eid`` = ``Label#QID``), ``--schema`` names that conversion schema. The default prompt
``gtsqa_cypher`` has ``{question}``, ``{seed_entities}`` and ``{schema}`` (the server's
schema as the ``cypherbench`` family writes it). The reply (post-processed as above) goes
through the evaluation read-only gate (a write query is refused, never sent) and runs in a
read session; its ``answer`` column (else its first) gives ``pred_answers`` (eids as QIDs);
the relationships its MATCH part matched (Rust's provenance queries, anonymous and
variable-length relationships included) are read back as ``[head QID, PID, tail QID]``
(types to PIDs through the schema) into ``retrieved_triples``. Records carry
``pred_cypher`` instead of ``pred_sparql``.

Output ``predictions.jsonl``: one record per task ``{id, question, pred_sparql,
pred_answers, retrieved_triples, error}`` in task order; formats.md §15. With samples (``--samples
K``), ``pred_sparql_samples`` holds the K queries and ``pred_answers_samples`` the answers of
each, executed as the first (its first element is ``pred_answers``): ``kgbench evaluate
--family gtsqa --samples K`` reads them for pass@k.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.predict.cypherbench import cut_end_tokens

#: Placeholders the family's prompt needs.
PLACEHOLDERS = ("question", "seed_entities", "relations")

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"

#: Prefixes declared for a query that uses them without declaring them.
STANDARD_PREFIXES = {
    "wd": WD,
    "wdt": WDT,
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "schema": "http://schema.org/",
}

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.S)


def postprocess(reply: str) -> str:
    """The query of a reply: cut at the first chat end token, then the body of the first
    fenced code block when there is one, stripped."""
    text = cut_end_tokens(reply)
    m = _FENCE.search(text)
    if m is not None:
        text = m.group(1)
    return text.strip()


def read_tasks(path: str | Path) -> list[dict[str, Any]]:
    """GTSQA records with a string ``question`` and a list ``seed_entities``; ``qid`` is the
    record's ``id`` (its position when absent); ``graph`` is ``"wikidata"``.

    Raises:
        InputError: unreadable file, a record without ``question`` or with ``seed_entities``
            not a list of strings, or a duplicate id (file and record named)."""
    from kgbench.tasks import read_records

    tasks = []
    seen: dict[str, str] = {}
    for i, (where, rec) in enumerate(read_records(path)):
        question = rec.get("question")
        if not isinstance(question, str) or not question:
            raise InputError(f"{where}: field 'question' must be a non-empty string")
        seeds = rec.get("seed_entities", [])
        if not isinstance(seeds, list) or not all(isinstance(s, str) for s in seeds):
            raise InputError(f"{where}: field 'seed_entities' must be a list of strings")
        qid = str(rec.get("id", i))
        if qid in seen:
            raise InputError(f"{where}: duplicate id {qid!r} (first at {seen[qid]})")
        seen[qid] = where
        tasks.append({"record": rec, "qid": qid, "graph": "wikidata", "question": question})
    return tasks


def prompt_values(task: Mapping[str, Any], relations: str) -> dict[str, str]:
    """The placeholder values of one task; ``relations`` is the KG's text, the relation
    list on the RDF dump or the schema text with ``--uri`` (given as both ``{relations}``
    and ``{schema}``)."""
    seeds = task["record"].get("seed_entities", [])
    return {
        "question": str(task["question"]),
        "seed_entities": "\n".join(seeds),
        "relations": relations,
        "schema": relations,
    }


def _id(iri: str) -> str:
    return iri.rsplit("/", 1)[-1]


def _pid_key(pid: str) -> tuple[int, str]:
    digits = pid[1:]
    return (int(digits), pid) if pid[:1] == "P" and digits.isdigit() else (1 << 62, pid)


class KnowledgeGraph:
    """A Wikidata RDF dump in pyoxigraph's in-memory store (``kgbench generate synth``'s
    loader) and the relation list of the prompt."""

    def __init__(self, paths: Sequence[str | Path]) -> None:
        from kgbench.query.sparql import load_store

        if not paths:
            raise InputError("--family gtsqa needs --kg FILE (a Wikidata RDF dump)")
        for p in paths:
            if not Path(p).is_file():
                raise InputError(f"--kg {p}: no such file")
        self.paths = [str(p) for p in paths]
        self.store = load_store(list(paths))

    def relations(self) -> list[tuple[str, str]]:
        """(PID, English label or the PID) of every ``wdt:`` predicate, by PID number."""
        pids = {
            _id(s["p"].value)
            for s in self.store.query(
                f"SELECT DISTINCT ?p WHERE {{ ?s ?p ?o FILTER(STRSTARTS(STR(?p), '{WDT}')) }}"
            )
        }
        labels: dict[str, str] = {}
        for s in self.store.query(
            "SELECT ?e ?l WHERE { ?e <http://www.w3.org/2000/01/rdf-schema#label> ?l "
            f"FILTER(STRSTARTS(STR(?e), '{WD}P') && LANGMATCHES(LANG(?l), 'en')) }}"
        ):
            pid = _id(s["e"].value)
            if pid in pids:
                labels[pid] = min(labels.get(pid, s["l"].value), s["l"].value)
        return [(p, labels.get(p, p)) for p in sorted(pids, key=_pid_key)]

    def relations_text(self) -> str:
        """The ``{relations}`` placeholder: ``label (PID)`` lines."""
        rels = self.relations()
        if not rels:
            raise InputError(f"{', '.join(self.paths)}: the KG has no wdt: triple")
        return "\n".join(f"{label} ({pid})" for pid, label in rels)


class KnowledgeGraphChecker:
    """The :class:`kgbench.predict.repair.QueryChecker` of ``--repair`` / ``--agent`` on a
    :class:`KnowledgeGraph`: predicted SPARQL run on its in-memory store as
    :func:`execute` runs it (standard prefixes declared; values as :func:`execute` gives
    answers: ``wd:`` entities as QIDs, other IRIs whole, literals as their lexical form).
    One query at a time (a lock); in-process, so without a timeout (as :func:`records`)."""

    language = "sparql"

    def __init__(self, kg: KnowledgeGraph) -> None:
        import threading

        self.kg = kg
        self._lock = threading.Lock()

    def applies(self, task: Mapping[str, Any]) -> bool:
        """Every task is repaired."""
        return True

    def check(self, task: Mapping[str, Any], query: str) -> tuple[str, str] | None:
        """``(error_class, message)`` of a failing ``query`` (``empty``, ``syntax``,
        ``execution``, ``not_select``), else None."""
        return self.rows(task, query)[0]

    def rows(
        self, task: Mapping[str, Any], query: str
    ) -> tuple[tuple[str, str] | None, list[str], list[list[Any]]]:
        """``(failure, columns, rows)``: :meth:`check`'s failure, or the SELECT's variables
        and rows (unbound values ``None``)."""
        import pyoxigraph as ox

        if not query.strip():
            return ("empty", "the predicted query is empty"), [], []
        with self._lock:
            try:
                solutions = self.kg.store.query(with_prefixes(query))
            except SyntaxError as exc:
                return ("syntax", " ".join(str(exc).split())), [], []
            except (OSError, ValueError) as exc:
                return ("execution", " ".join(str(exc).split())), [], []
            try:
                if not isinstance(solutions, ox.QuerySolutions):
                    return ("not_select", "not a SELECT query"), [], []
                names = [v.value for v in solutions.variables]
                rows = [
                    [None if sol[n] is None else _value(sol[n]) for n in names] for sol in solutions
                ]
            except (OSError, ValueError) as exc:
                return ("execution", " ".join(str(exc).split())), [], []
            finally:
                del solutions  # pyoxigraph's results must be dropped on this thread
        return None, names, rows

    def fingerprints(self) -> dict[str, str]:
        """``{"wikidata": SHA-256 of the store's sorted N-Triples}``
        (:func:`kgbench.query.sparql.store_fingerprint`)."""
        from kgbench.query.sparql import store_fingerprint

        with self._lock:
            return {"wikidata": store_fingerprint(self.kg.store)}

    def close(self) -> None:
        """Nothing to release: the store is the family's (closed with the run)."""


def with_prefixes(query: str) -> str:
    """``query`` with the :data:`STANDARD_PREFIXES` it uses but does not declare declared."""
    missing = [
        f"PREFIX {p}: <{iri}>\n"
        for p, iri in STANDARD_PREFIXES.items()
        if re.search(rf"(?<![\w:]){p}:", query) and not re.search(rf"(?i)\bPREFIX\s+{p}\s*:", query)
    ]
    return "".join(missing) + query


def _patterns(node: Any, out: list[Any]) -> None:
    """Triple patterns of an rdflib algebra node that bind solutions (module docstring)."""
    from rdflib.plugins.sparql.parserutils import CompValue

    if isinstance(node, CompValue):
        if node.name == "BGP":
            out.extend(node.get("triples") or [])
            return
        for key in ("p", "p1", "p2"):
            if key == "p2" and node.name == "Minus":
                continue
            child = node.get(key)
            if child is not None:
                _patterns(child, out)


def _term(t: Any) -> str | None:
    from rdflib import Literal, URIRef, Variable

    if isinstance(t, (URIRef, Literal, Variable)):
        return str(t.n3())
    return None


def _group_span(query: str) -> tuple[int, int, int]:
    """(start of the head keyword SELECT, index of the group's ``{``, index after its
    ``}``), skipping braces inside strings, IRIs and comments."""
    m = re.search(r"(?i)\bSELECT\b", query)
    if m is None:
        raise ValueError("not a SELECT query")
    i, depth, open_at = m.end(), 0, -1
    n = len(query)
    while i < n:
        c = query[i]
        if c in "\"'":
            quote = query[i : i + 3] if query[i : i + 3] in ('"""', "'''") else c
            j = query.find(quote, i + len(quote))
            while j > 0 and len(quote) == 1 and query[j - 1] == "\\":
                j = query.find(quote, j + 1)
            i = n if j < 0 else j + len(quote)
            continue
        if c == "#":
            j = query.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if c == "<" and re.match(r"<[^\s<>\"{}|^`\\]*>", query[i:]):
            i = query.index(">", i) + 1
            continue
        if c == "{":
            if depth == 0:
                open_at = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return m.start(), open_at, i + 1
        i += 1
    raise ValueError("unbalanced braces")


def construct_query(query: str) -> str | None:
    """The CONSTRUCT of the triples a SELECT's pattern matched (module docstring), or None
    when the pattern has no triple pattern to instantiate.

    Raises:
        ValueError: the query does not parse (rdflib's message) or is not a SELECT."""
    from rdflib.plugins.sparql import prepareQuery

    try:
        parsed = prepareQuery(query)
    except Exception as exc:  # pyparsing and rdflib raise several classes
        raise ValueError(" ".join(str(exc).split()) or type(exc).__name__) from exc
    if parsed.algebra.name != "SelectQuery":
        raise ValueError(f"not a SELECT query ({parsed.algebra.name})")
    found: list[Any] = []
    _patterns(parsed.algebra.get("p"), found)
    template: list[str] = []
    for s, p, o in found:
        terms = [_term(s), _term(p), _term(o)]
        if all(terms):
            line = " ".join(t for t in terms if t) + " ."
            if line not in template:
                template.append(line)
    if not template:
        return None
    head, open_at, close_at = _group_span(query)
    tail = query[close_at:]
    if re.search(r"(?i)\b(GROUP\s+BY|HAVING)\b", tail):
        tail = ""
    return (
        query[:head]
        + "CONSTRUCT { "
        + " ".join(template)
        + " } WHERE "
        + query[open_at:close_at]
        + tail
    )


def _value(term: Any) -> str:
    value = str(term.value)
    return _id(value) if value.startswith(WD) else value


def execute(store: Any, query: str) -> dict[str, Any]:
    """Run a predicted SPARQL SELECT on ``store``: ``{pred_answers, retrieved_triples,
    error}`` (module docstring). Never raises for a bad query: ``error`` holds the reason."""
    import pyoxigraph as ox

    out: dict[str, Any] = {"pred_answers": [], "retrieved_triples": [], "error": None}
    if not query.strip():
        out["error"] = "empty prediction"
        return out
    full = with_prefixes(query)
    try:
        answers = _answers(store, full)
        if isinstance(answers, str):
            out["error"] = answers
            return out
        out["pred_answers"] = answers
        construct = construct_query(full)
        if construct is not None:
            triples = set()
            results = store.query(construct)
            try:
                for t in results:
                    if isinstance(t.subject, ox.NamedNode) and isinstance(t.object, ox.NamedNode):
                        s, p, o = t.subject.value, t.predicate.value, t.object.value
                        triples.add((_id(s), _id(p), _id(o)))
            finally:
                del results  # pyoxigraph's results must be dropped on this thread
            out["retrieved_triples"] = [list(t) for t in sorted(triples)]
    except (SyntaxError, OSError, ValueError) as exc:
        out["error"] = " ".join(str(exc).split()) or type(exc).__name__
    return out


def _answers(store: Any, query: str) -> list[str] | str:
    """The answer values of a SELECT (module docstring), or the reason there are none."""
    import pyoxigraph as ox

    solutions = store.query(query)
    try:
        if not isinstance(solutions, ox.QuerySolutions):
            return "not a SELECT query"
        names = [v.value for v in solutions.variables]
        if not names:
            return "the query projects no variable"
        var = "answer" if "answer" in names else names[0]
        answers: dict[str, None] = {}
        for sol in solutions:
            term = sol[var]
            if term is not None:
                answers.setdefault(_value(term), None)
        return list(answers)
    finally:
        del solutions  # pyoxigraph's results must be dropped on this thread


def records(
    tasks: Sequence[Mapping[str, Any]],
    preds: Sequence[Sequence[str]],
    kg: KnowledgeGraph | CypherGraph,
) -> list[dict[str, Any]]:
    """The prediction records (module docstring): the first sample of each task executed,
    on the RDF store (``pred_sparql``) or, with a :class:`CypherGraph`, on Neo4j
    (``pred_cypher``)."""

    def run(query: str) -> dict[str, Any]:
        if isinstance(kg, CypherGraph):
            return kg.execute(query)
        return execute(kg.store, query)

    out = []
    for task, samples in zip(tasks, preds, strict=True):
        query = samples[0] if samples else ""
        rec: dict[str, Any] = {"id": task["qid"], "question": task["question"]}
        field = "pred_cypher" if isinstance(kg, CypherGraph) else "pred_sparql"
        rec[field] = query
        if len(samples) > 1:
            rec[f"{field}_samples"] = list(samples)
        rec.update(run(query))
        if len(samples) > 1:
            rec["pred_answers_samples"] = [rec["pred_answers"]] + [
                run(q)["pred_answers"] for q in samples[1:]
            ]
        out.append(rec)
    return out


def kg_paths(value: str | Path | Iterable[str | Path] | None) -> list[str | Path]:
    """``--kg`` as a list of paths."""
    if value is None:
        return []
    if isinstance(value, (str, Path)):
        return [value]
    return list(value)


# --------------------------------------------------------------------------- Cypher (--uri)

#: Placeholders of the family's prompt with ``--uri`` (default prompt ``gtsqa_cypher``).
CYPHER_PLACEHOLDERS = ("question", "seed_entities", "schema")

_EID = re.compile(r"^[^#]+#(Q\d+)$")


def wikidata_id(value: Any) -> str:
    """The Wikidata form of a Cypher value: an eid ``Label#QID`` (or a node dict with an
    ``eid`` property, as :func:`kgbench.neo4j.executor.to_plain` writes nodes) as its QID,
    other values as their string."""
    if isinstance(value, dict):
        props = value.get("properties")
        if isinstance(props, dict) and "eid" in props:
            value = props["eid"]
    text = str(value)
    m = _EID.match(text)
    return m.group(1) if m else text


class CypherGraph:
    """The Neo4j conversion of the KG (``kgbench convert`` with a ``.wd2neo4j.json``
    schema, loaded by ``kgbench load``) that predicted Cypher runs on, read-only, through
    :class:`kgbench.neo4j.QueryExecutor` (its read-only gate refuses write queries before
    sending them). ``schema`` is the conversion schema: its ``relations`` map relationship
    types back to PIDs (``(label, subj_label, obj_label)`` -> ``wd_source``, so one type
    converted from several PIDs between different node labels reads back right; a type
    whose end labels match no relation takes its first PID in file order). The prompt's
    ``{schema}`` is the server's schema as the ``cypherbench`` family writes it.

    Raises:
        InputError: unreadable schema file, or the server cannot be reached."""

    def __init__(
        self,
        uri: str,
        schema: str | Path,
        *,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        timeout_s: float = 120.0,
    ) -> None:
        import json

        from kgbench.neo4j.executor import QueryExecutor, connect

        try:
            data = json.loads(Path(schema).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"--schema {schema}: {' '.join(str(exc).split())}") from exc
        rels = data.get("relations") if isinstance(data, dict) else None
        if not isinstance(rels, list):
            raise InputError(f"--schema {schema}: field 'relations' must be a list")
        self.pid_of: dict[str, str] = {}
        self.pid_between: dict[tuple[str, str, str], str] = {}
        for i, rel in enumerate(rels):
            if not isinstance(rel, dict) or "label" not in rel or "wd_source" not in rel:
                raise InputError(f"--schema {schema}: relations[{i}] needs label and wd_source")
            label, pid = str(rel["label"]), str(rel["wd_source"])
            self.pid_of.setdefault(label, pid)
            ends = (label, str(rel.get("subj_label", "")), str(rel.get("obj_label", "")))
            self.pid_between.setdefault(ends, pid)
        self.uri = uri
        self.database = database
        self.driver = connect(uri, user, password)
        self.executor = QueryExecutor(self.driver, database, timeout_s=timeout_s, workers=1)

    def close(self) -> None:
        """Close the driver."""
        self.driver.close()

    def _pid(self, rel_type: str, head_labels: Any, tail_labels: Any) -> str:
        """The PID a relationship of ``rel_type`` between nodes of those labels was
        converted from (class docstring); a type the schema lacks is kept as is."""
        for a in head_labels or ():
            for b in tail_labels or ():
                pid = self.pid_between.get((rel_type, str(a), str(b)))
                if pid is not None:
                    return pid
        return self.pid_of.get(rel_type, rel_type)

    def schema_text(self) -> str:
        """The ``{schema}`` placeholder: CypherBench's schema text of the server's graph.

        Raises:
            InputError: the schema cannot be read from the server."""
        import neo4j

        from kgbench.neo4j.schema import fetch_schema
        from kgbench.predict.cypherbench import schema_text

        try:
            data = fetch_schema(self.driver, name="wikidata", database=self.database, omit_rid=True)
        except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, OSError) as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise InputError(f"could not fetch the schema from {self.uri}: {reason}") from exc
        return schema_text(data, where=f"schema of {self.uri}", graph="wikidata")

    def execute(self, query: str) -> dict[str, Any]:
        """Run a predicted Cypher query read-only: ``{pred_answers, retrieved_triples,
        error}``. Answers are the values of the column ``answer`` when returned, else of
        the first column (:func:`wikidata_id`), deduplicated in first-seen order. The
        answer subgraph: the relationships the query's MATCH part matched (the
        ``relationship_cypher`` of :func:`kgbench._core.cypher.provenance_details`, every
        UNION branch), read back as ``[head QID, PID, tail QID]`` (types mapped through the
        conversion schema, a type it lacks kept as is), sorted. A write query is refused
        before sending (``error`` says so); a failing query gives no answers and no
        triples. Never raises for a bad query."""
        from kgbench._core.cypher import CypherSyntaxError, provenance_details
        from kgbench.generate.synth.neo4j_kg import cypher_string

        out: dict[str, Any] = {"pred_answers": [], "retrieved_triples": [], "error": None}
        if not query.strip():
            out["error"] = "empty prediction"
            return out
        res = self.executor.run(query)
        if not res.ok:
            out["error"] = f"{res.error_class}: {res.error}"
            return out
        cols = list(res.columns)
        if cols:
            col = cols.index("answer") if "answer" in cols else 0
            answers: dict[str, None] = {}
            for row in res.rows:
                if row[col] is not None:
                    answers.setdefault(wikidata_id(row[col]), None)
            out["pred_answers"] = list(answers)
        try:
            branches = provenance_details(query, self.executor.dialect)
        except CypherSyntaxError as exc:
            out["error"] = f"answer subgraph: {' '.join(str(exc).split())}"
            return out
        ids: set[str] = set()
        for branch in branches:
            got = self.executor.run(str(branch["relationship_cypher"]))
            if not got.ok:
                out["error"] = f"answer subgraph: {got.error_class}: {got.error}"
                return out
            ids.update(str(r[0]) for r in got.rows)
        if ids:
            listed = ", ".join(cypher_string(i) for i in sorted(ids))
            got = self.executor.run(
                f"MATCH (a)-[r]->(b) WHERE elementId(r) IN [{listed}] "
                "RETURN a.eid AS head, type(r) AS type, b.eid AS tail, labels(a) AS al, "
                "labels(b) AS bl"
            )
            if not got.ok:
                out["error"] = f"answer subgraph: {got.error_class}: {got.error}"
                return out
            triples = {
                (wikidata_id(h), self._pid(str(t), al, bl), wikidata_id(o))
                for h, t, o, al, bl in got.rows
            }
            out["retrieved_triples"] = [list(t) for t in sorted(triples)]
        return out
