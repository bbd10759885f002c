"""SynthKGQA's LLM generator (spec ``synthkgqa.md`` §3.2-§3.3, §4 "Generate" and
"Paraphrase"; seed synthkgqa-gtsqa.txt §3 and App. A.1).

Per seed graph Q (the shared sampling loop, :func:`~kgbench.generate.synth.template.
run_generation`):

- **k**, the number of triples the question must combine, is drawn uniformly from
  1..min(4, ``max_edges``) with the run's seeded RNG (``k=`` fixes it). The original code
  takes k as a run parameter (``generate.py --num-edges``, default 2) and GTSQA mixes
  several runs; drawing per seed graph gives one run every size. Its prompts stop at
  k = 4 (spec, header).
- **Prompt** (:func:`generation_prompt`): a system message with the rules (exactly k
  triples, one unambiguous answer node, every triple needed, at least k+1 entities for
  k = 2, 3, no smaller set of triples enough for k >= 3), the five output lines and the
  form of the query — SPARQL (a ``wdt:`` basic graph pattern projecting ``?answer``, seeds
  as ``wd:Q…``) on the RDF back end, Cypher (one ``MATCH`` per triple, seeds as
  ``{eid: '…'}``, ``RETURN DISTINCT answer.eid AS answer``) on Neo4j; then 8 few-shot
  examples written for kgbench from WD50K facts (two per k, same-k ones last), each a user
  turn ``Use exactly k triple(s).`` + ``Graph: …`` and an assistant reply; then Q as
  :func:`seed_graph_text` spells it (spec §3.1).
- **Checks**, in order; the first failure is the logged reason (spec §3.3):

  1. the five lines parse (:func:`parse_reply`) — else ``invalid_llm_out``;
  2. every ``label (ID)`` (answer, seeds, the three parts of every triple) names an entity
     or relation of the KG whose label matches ignoring case and spaces — else
     ``invalid_label_format`` (as the original's ``parse_llm_label``: an unknown id is a
     label-format failure too);
  3. the seeds are nodes of Q — else ``no_node_match``; the triples (deduplicated, order
     kept) are triples of Q — else ``no_triple_match``;
  4. the query's constants (``kg.query_constants``) are the seed set, it has no ``rdfs``,
     and it has the required form (SPARQL: ``SELECT [DISTINCT] ?answer WHERE { BGP }``
     with ``wd:``/``wdt:`` terms and variables only; Cypher: ``MATCH`` clauses ending in
     ``RETURN DISTINCT <var>.eid AS answer``, read-only, no ``OPTIONAL``/``UNION``/
     ``WITH``/``NOT``…); it must execute — else ``invalid_sparql`` (either language);
  5. run with ``LIMIT max_answers + 1``, the LLM's query has at most ``max_answers``
     answers and the LLM's answer is among them — else ``exceeding_answer`` /
     ``no_answer_match`` (the count first, as in ``validate``: past the cap the set is
     incomplete; the original checks the answer first on the full result);
  6. the triples form a tree rooted at the answer (breadth-first from it; no cycle or
     parallel edge, connected, the answer not a seed, every seed a leaf, every other leaf
     a seed) — else ``invalid_graph_template``;
  7. then :func:`~kgbench.generate.synth.template.validate` with the LLM's question,
     ``generator="llm"`` and the LLM query's answers: the tree query must give the same
     answer set (else ``invalid_sparql``), the type must be in the original code's
     allow-list of 29 (:data:`ALLOWED_TYPES`, those with at most ``max_edges`` edges),
     full subgraph ⊇ G, minimality.

- **Paraphrase** (step 9, :func:`paraphrase_prompt`): accepted items' questions go to a
  second client (default: the same one); the reply's first line, label and quotes removed,
  becomes ``paraphrased_question`` unless empty, garbled (no letter, or over 4× the
  question plus 200 characters) or missing a seed label the question spells out — then it
  stays null and the report counts it.

The item's query is the tree's query (the one minimality uses), which the checks make
answer-equivalent to the LLM's; ``rng_seed`` is the run seed. Calls are batched through
:meth:`kgbench.llm.LLMClient.complete_many` (up to ``batch_size`` seed graphs at a time,
at most 4 per missing item); with a replay cache a rerun with the same seed replays
offline to identical items. An :class:`~kgbench.llm.LLMError` is not a rejection: it
propagates.

Deviations from the original code: the SPARQL line may span several lines (joined with
spaces; the original deletes newlines) and code fences are dropped; field names are
matched case-insensitively, tolerating list markers and bold; a failing query is
``invalid_sparql`` (the original treats it as no answers); the label checks of step 2 all
run before step 3 (the original checks the seeds against Q before reading the triples);
minimality compares answer sets (spec §6).
"""

from __future__ import annotations

import dataclasses
import random
import re
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kgbench.errors import InputError
from kgbench.generate.synth.template import (
    ALLOWED_TYPES,
    Outcome,
    SynthSettings,
    Tree,
    run_generation,
    validate,
)

Messages = list[dict[str, str]]

#: The largest k the prompts ask for (the original's prompts stop at 4).
MAX_K = 4

_WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}


# -- the seed graph ---------------------------------------------------------------------


def seed_graph_text(kg: Any, triple_ids: Sequence[int]) -> str:
    """The prompt's spelling of a seed graph (spec §3.1): ``h-r-t`` per triple in KG order
    (ascending triple index), ``;``-joined, entities as ``kg.named`` (``"label (ID)"``),
    relations as ``kg.relation_named`` (Wikidata ``"label (PID)"``, Neo4j the type)."""
    parts = []
    for j in sorted(int(j) for j in triple_ids):
        h, r, t = kg.triple(j)
        parts.append(f"{kg.named(h)}-{kg.relation_named(r)}-{kg.named(t)}")
    return ";".join(parts)


# -- few-shot examples (facts from the WD50K Wikidata sample) ------------------------------

#: QID -> (English label, node label of the Cypher rendering).
_ENTITIES: dict[str, tuple[str, str]] = {
    "Q47664": ("Catherine Zeta-Jones", "Person"),
    "Q119798": ("Michael Douglas", "Person"),
    "Q23051": ("Swansea", "City"),
    "Q845015": ("Chiswick", "City"),
    "Q188353": ("Welsh people", "EthnicGroup"),
    "Q361981": ("Russell T Davies", "Person"),
    "Q18659": ("Swansea City A.F.C.", "Club"),
    "Q1860": ("English", "Language"),
    "Q10690": ("Cardiff", "City"),
    "Q25": ("Wales", "Country"),
    "Q9309": ("Welsh", "Language"),
    "Q12191": ("Nantes", "City"),
    "Q390120": ("Torchwood", "TVSeries"),
    "Q18662": ("Cardiff City F.C.", "Club"),
    "Q190515": ("Craig Bellamy", "Person"),
    "Q247182": ("Gone Baby Gone", "Film"),
    "Q314623": ("Harry Gregson-Williams", "Person"),
    "Q100": ("Boston", "City"),
    "Q311744": ("Dennis Lehane", "Person"),
    "Q921518": ("Michael K. Williams", "Person"),
    "Q23346": ("Sussex", "City"),
    "Q1419737": ("Guildhall School of Music and Drama", "University"),
    "Q932744": ("Rupert Gregson-Williams", "Person"),
    "Q145": ("United Kingdom", "Country"),
    "Q4547": ("Daniel Craig", "Person"),
    "Q44467": ("Orlando Bloom", "Person"),
    "Q561401": ("Spike Milligan", "Person"),
    "Q707538": ("Stephen Dillane", "Person"),
    "Q23311": ("City of London", "City"),
    "Q221586": ("Mystic River", "Film"),
    "Q725539": ("The Town", "Film"),
    "Q43203": ("Clint Eastwood", "Person"),
    "Q156401": ("Chicken Run", "Film"),
    "Q106301": ("Academy Award for Best Supporting Actress", "Award"),
    "Q151973": ("Richard Burton", "Person"),
    "Q45909": ("John Cale", "Person"),
    "Q24632": ("John Barrowman", "Person"),
    "Q4093": ("Glasgow", "City"),
    "Q254876": ("Eve Myles", "Person"),
    "Q981821": ("Burn Gorman", "Person"),
    "Q16552": ("San Diego", "City"),
}

#: PID -> (English label, relationship type of the Cypher rendering).
_RELATIONS: dict[str, tuple[str, str]] = {
    "P19": ("place of birth", "bornIn"),
    "P26": ("spouse", "hasSpouse"),
    "P551": ("residence", "livesIn"),
    "P172": ("ethnic group", "hasEthnicity"),
    "P159": ("headquarters location", "headquarteredIn"),
    "P1412": ("languages spoken, written or signed", "speaksLanguage"),
    "P1376": ("capital of", "capitalOf"),
    "P37": ("official language", "hasOfficialLanguage"),
    "P190": ("twinned administrative body", "twinnedWith"),
    "P840": ("narrative location", "setIn"),
    "P86": ("composer", "hasComposer"),
    "P1877": ("after a work by", "basedOnWorkBy"),
    "P161": ("cast member", "hasCastMember"),
    "P69": ("educated at", "educatedAt"),
    "P3373": ("sibling", "hasSibling"),
    "P17": ("country", "inCountry"),
    "P27": ("country of citizenship", "citizenOf"),
    "P119": ("place of burial", "buriedIn"),
    "P937": ("work location", "worksIn"),
    "P131": ("located in the administrative territorial entity", "locatedIn"),
    "P166": ("award received", "receivedAward"),
}


@dataclass(frozen=True)
class _Example:
    k: int
    graph: tuple[tuple[str, str, str], ...]
    question: str
    seeds: tuple[str, ...]
    answer: str
    used: tuple[int, ...]  # indices into graph, in the reply's order
    pattern: tuple[tuple[str, str, str], ...]  # (term, PID, term); terms "?var" or QIDs


_EXAMPLES: tuple[_Example, ...] = (
    _Example(
        k=1,
        graph=(
            ("Q47664", "P26", "Q119798"),
            ("Q119798", "P26", "Q47664"),
            ("Q47664", "P19", "Q23051"),
            ("Q47664", "P551", "Q23051"),
            ("Q47664", "P551", "Q845015"),
            ("Q47664", "P172", "Q188353"),
            ("Q361981", "P19", "Q23051"),
            ("Q18659", "P159", "Q23051"),
            ("Q47664", "P1412", "Q1860"),
        ),
        question="In which city was Catherine Zeta-Jones born?",
        seeds=("Q47664",),
        answer="Q23051",
        used=(2,),
        pattern=(("Q47664", "P19", "?answer"),),
    ),
    _Example(
        k=1,
        graph=(
            ("Q10690", "P1376", "Q25"),
            ("Q10690", "P37", "Q9309"),
            ("Q10690", "P190", "Q12191"),
            ("Q12191", "P190", "Q10690"),
            ("Q390120", "P840", "Q10690"),
            ("Q390120", "P840", "Q25"),
            ("Q18662", "P159", "Q10690"),
            ("Q190515", "P19", "Q10690"),
        ),
        question="Which city is the capital of Wales?",
        seeds=("Q25",),
        answer="Q10690",
        used=(0,),
        pattern=(("?answer", "P1376", "Q25"),),
    ),
    _Example(
        k=2,
        graph=(
            ("Q247182", "P86", "Q314623"),
            ("Q247182", "P840", "Q100"),
            ("Q247182", "P1877", "Q311744"),
            ("Q247182", "P161", "Q921518"),
            ("Q314623", "P19", "Q23346"),
            ("Q314623", "P69", "Q1419737"),
            ("Q314623", "P3373", "Q932744"),
            ("Q23346", "P17", "Q145"),
            ("Q1419737", "P17", "Q145"),
        ),
        question="Where was the composer of Gone Baby Gone born?",
        seeds=("Q247182",),
        answer="Q23346",
        used=(0, 4),
        pattern=(("Q247182", "P86", "?composer"), ("?composer", "P19", "?answer")),
    ),
    _Example(
        k=2,
        graph=(
            ("Q4547", "P69", "Q1419737"),
            ("Q44467", "P69", "Q1419737"),
            ("Q314623", "P69", "Q1419737"),
            ("Q314623", "P19", "Q23346"),
            ("Q561401", "P119", "Q23346"),
            ("Q707538", "P937", "Q23346"),
            ("Q1419737", "P131", "Q23311"),
            ("Q314623", "P27", "Q145"),
            ("Q1419737", "P17", "Q145"),
        ),
        question="Which alumnus of the Guildhall School of Music and Drama was born in Sussex?",
        seeds=("Q1419737", "Q23346"),
        answer="Q314623",
        used=(2, 3),
        pattern=(("?answer", "P69", "Q1419737"), ("?answer", "P19", "Q23346")),
    ),
    _Example(
        k=3,
        graph=(
            ("Q247182", "P86", "Q314623"),
            ("Q247182", "P1877", "Q311744"),
            ("Q247182", "P840", "Q100"),
            ("Q221586", "P1877", "Q311744"),
            ("Q221586", "P840", "Q100"),
            ("Q221586", "P86", "Q43203"),
            ("Q725539", "P86", "Q314623"),
            ("Q725539", "P840", "Q100"),
            ("Q156401", "P86", "Q314623"),
            ("Q314623", "P19", "Q23346"),
        ),
        question=(
            "Which film based on a work by Dennis Lehane has music by a composer who was "
            "born in Sussex?"
        ),
        seeds=("Q311744", "Q23346"),
        answer="Q247182",
        used=(1, 0, 9),
        pattern=(
            ("?answer", "P1877", "Q311744"),
            ("?answer", "P86", "?composer"),
            ("?composer", "P19", "Q23346"),
        ),
    ),
    _Example(
        k=3,
        graph=(
            ("Q47664", "P172", "Q188353"),
            ("Q151973", "P172", "Q188353"),
            ("Q45909", "P172", "Q188353"),
            ("Q47664", "P166", "Q106301"),
            ("Q47664", "P19", "Q23051"),
            ("Q47664", "P26", "Q119798"),
            ("Q361981", "P19", "Q23051"),
            ("Q18659", "P159", "Q23051"),
        ),
        question=(
            "Where was the Welsh winner of the Academy Award for Best Supporting Actress born?"
        ),
        seeds=("Q188353", "Q106301"),
        answer="Q23051",
        used=(0, 3, 4),
        pattern=(
            ("?person", "P172", "Q188353"),
            ("?person", "P166", "Q106301"),
            ("?person", "P19", "?answer"),
        ),
    ),
    _Example(
        k=4,
        graph=(
            ("Q390120", "P161", "Q24632"),
            ("Q390120", "P161", "Q254876"),
            ("Q390120", "P161", "Q981821"),
            ("Q390120", "P840", "Q10690"),
            ("Q24632", "P19", "Q4093"),
            ("Q24632", "P551", "Q4093"),
            ("Q24632", "P937", "Q10690"),
            ("Q24632", "P937", "Q16552"),
            ("Q10690", "P1376", "Q25"),
            ("Q190515", "P19", "Q10690"),
        ),
        question=(
            "Which Torchwood cast member, born in Glasgow, works in the city that is the "
            "capital of Wales?"
        ),
        seeds=("Q390120", "Q4093", "Q25"),
        answer="Q24632",
        used=(0, 4, 6, 8),
        pattern=(
            ("Q390120", "P161", "?answer"),
            ("?answer", "P19", "Q4093"),
            ("?answer", "P937", "?city"),
            ("?city", "P1376", "Q25"),
        ),
    ),
    _Example(
        k=4,
        graph=(
            ("Q247182", "P86", "Q314623"),
            ("Q247182", "P1877", "Q311744"),
            ("Q221586", "P1877", "Q311744"),
            ("Q156401", "P86", "Q314623"),
            ("Q725539", "P86", "Q314623"),
            ("Q314623", "P69", "Q1419737"),
            ("Q314623", "P19", "Q23346"),
            ("Q4547", "P69", "Q1419737"),
            ("Q561401", "P119", "Q23346"),
            ("Q1419737", "P131", "Q23311"),
        ),
        question=(
            "Which film adapted from a work by Dennis Lehane was scored by the Sussex-born "
            "composer who studied at the Guildhall School of Music and Drama?"
        ),
        seeds=("Q311744", "Q23346", "Q1419737"),
        answer="Q247182",
        used=(1, 0, 6, 5),
        pattern=(
            ("?answer", "P1877", "Q311744"),
            ("?answer", "P86", "?composer"),
            ("?composer", "P19", "Q23346"),
            ("?composer", "P69", "Q1419737"),
        ),
    ),
)


def _ex_entity(qid: str, cypher: bool) -> str:
    label, node_label = _ENTITIES[qid]
    return f"{label} ({node_label}#{qid})" if cypher else f"{label} ({qid})"


def _ex_relation(pid: str, cypher: bool) -> str:
    label, rel_type = _RELATIONS[pid]
    return rel_type if cypher else f"{label} ({pid})"


def _ex_triple(t: tuple[str, str, str], cypher: bool) -> str:
    h, r, o = t
    return f"{_ex_entity(h, cypher)}-{_ex_relation(r, cypher)}-{_ex_entity(o, cypher)}"


def _ex_query(ex: _Example, cypher: bool) -> str:
    if not cypher:
        parts = []
        for s, p, o in ex.pattern:
            terms = [x if x.startswith("?") else f"wd:{x}" for x in (s, o)]
            parts.append(f"{terms[0]} wdt:{p} {terms[1]} .")
        return "SELECT ?answer WHERE { " + " ".join(parts) + " }"

    def node(x: str) -> str:
        if x.startswith("?"):
            return f"({x[1:]})"
        return f"({{eid: '{_ENTITIES[x][1]}#{x}'}})"

    matches = [f"MATCH {node(s)}-[:{_RELATIONS[p][1]}]->{node(o)}" for s, p, o in ex.pattern]
    return " ".join(matches) + " RETURN DISTINCT answer.eid AS answer"


def _ex_reply(ex: _Example, cypher: bool) -> str:
    lang = "Cypher" if cypher else "SPARQL"
    return "\n".join(
        [
            f"Question: {ex.question}",
            "Nodes mentioned in the question: "
            + "; ".join(_ex_entity(q, cypher) for q in ex.seeds),
            f"Answer: {_ex_entity(ex.answer, cypher)}",
            "Triples used: " + "; ".join(_ex_triple(ex.graph[i], cypher) for i in ex.used),
            f"{lang} query: {_ex_query(ex, cypher)}",
        ]
    )


def _ask(k: int, graph: str) -> str:
    return f"Use exactly {k} triple{'s' if k != 1 else ''}.\nGraph: {graph}"


# -- prompts ----------------------------------------------------------------------------

_RULES = """You write question-answer pairs grounded in a knowledge graph. The user gives a \
number k and a graph: triples separated by semicolons, each written head-relation-tail, \
every entity written as its label followed by its identifier in parentheses{rel_note}.

Write one question that is answered by combining exactly k triples of the graph:
- The answer is one node of the graph. It must be unique and unambiguous, and the question \
must not name it.
- Every one of the k triples is needed to reach the answer, and together they connect \
every entity named in the question to the answer without branches that lead nowhere.
- With k = 1, use your own knowledge as well: the question must have this single answer in \
the real world, not only in the graph shown.
- With k = 2 or k = 3, the triples involve at least k + 1 different entities.
- With k of 3 or more, no smaller set of triples of the graph is enough to find the answer.

Reply with exactly these five lines and nothing else:
Question: the question
Nodes mentioned in the question: the entities the question names, separated by semicolons
Answer: the answer entity
Triples used: the k triples, separated by semicolons
{lang} query: {query_rule}
Write every entity as "label (identifier)" and every triple exactly as the graph spells it."""

_SPARQL_RULE = (
    "a SPARQL query over Wikidata, on one line, of the form SELECT ?answer WHERE { ... }: a "
    "basic graph pattern with one triple pattern per triple used, properties written wdt:P…, "
    "the entities named in the question written wd:Q…, a variable for every other entity and "
    "?answer for the answer; no FILTER, OPTIONAL, UNION, rdfs labels or other constants"
)

_CYPHER_RULE = (
    "a Cypher query on one line with one MATCH clause per triple used, in the triple's "
    "direction, such as MATCH (x {eid: '…'})-[:TYPE]->(y): the entities named in the "
    "question are matched by their identifier as {eid: '…'}, every other entity is a "
    "variable, the answer is the variable answer, and the query ends with RETURN DISTINCT "
    "answer.eid AS answer; no OPTIONAL MATCH, WITH, UNION, NOT or other constants"
)


def _language(kg: Any) -> str:
    return "Cypher" if kg.query_field == "cypher_query" else "SPARQL"


def system_prompt(language: str) -> str:
    """The generation prompt's rules for ``language`` ("SPARQL" or "Cypher"; spec §4
    "Generate", seed App. A.1)."""
    cypher = language == "Cypher"
    return _RULES.format(
        rel_note=" (a relation is written as its type)"
        if cypher
        else " (a relation too: its label and its property id)",
        lang=language,
        query_rule=_CYPHER_RULE if cypher else _SPARQL_RULE,
    )


def generation_prompt(graph: str, k: int, language: str = "SPARQL") -> Messages:
    """The chat messages asking for one item from the seed graph ``graph`` (its
    :func:`seed_graph_text`) with exactly ``k`` triples (1..4): the rules, 8 few-shot
    examples (two per k; those with this k last) and the graph (spec §4 "Generate").

    Raises:
        InputError: ``k`` is not in 1..4 or ``language`` is not SPARQL or Cypher."""
    if k not in _WORDS:
        raise InputError(f"k must be 1..{MAX_K}, got {k}")
    if language not in ("SPARQL", "Cypher"):
        raise InputError(f"the query language must be SPARQL or Cypher, not {language!r}")
    cypher = language == "Cypher"
    messages = [{"role": "system", "content": system_prompt(language)}]
    order = sorted(_EXAMPLES, key=lambda ex: ex.k == k)  # stable: same-k examples last
    for ex in order:
        graph_text = ";".join(_ex_triple(t, cypher) for t in ex.graph)
        messages.append({"role": "user", "content": _ask(ex.k, graph_text)})
        messages.append({"role": "assistant", "content": _ex_reply(ex, cypher)})
    messages.append({"role": "user", "content": _ask(k, graph)})
    return messages


_PARAPHRASE_RULES = (
    "Rewrite the question the user gives so that it reads more naturally. Keep its meaning "
    "and its answer unchanged, and keep every entity it names. Reply with the rewritten "
    "question only, on one line."
)

_PARAPHRASE_EXAMPLES = (
    (
        "What is the place of birth of the person who is the composer of Gone Baby Gone?",
        "Where was the composer of Gone Baby Gone born?",
    ),
    (
        "Which film has after a work by Dennis Lehane and has composer someone whose place "
        "of birth is Sussex?",
        "Which film adapted from Dennis Lehane was scored by a composer born in Sussex?",
    ),
)


def paraphrase_prompt(question: str) -> Messages:
    """The chat messages asking for a more natural wording of ``question`` with the same
    meaning, answer and named entities (spec §4 "Paraphrase", seed App. A.1 step 4)."""
    messages = [{"role": "system", "content": _PARAPHRASE_RULES}]
    for q, p in _PARAPHRASE_EXAMPLES:
        messages.append({"role": "user", "content": f"Question: {q}"})
        messages.append({"role": "assistant", "content": p})
    messages.append({"role": "user", "content": f"Question: {question}"})
    return messages


# -- parsing ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """The five fields of a generation reply, as written: the question, the seed
    spellings, the answer spelling, the triple spellings and the query."""

    question: str
    seeds: list[str]
    answer: str
    triples: list[str]
    query: str


def _field(name: str) -> re.Pattern[str]:
    return re.compile(rf"^[ \t>#*-]*{name}[ \t*]*:[ \t*]*(.*)$", re.IGNORECASE | re.MULTILINE)


_QUESTION = _field("Question")
_NODES = _field("Nodes mentioned in the question")
_ANSWER = _field("Answer")
_TRIPLES = _field("Triples used")
_QUERY = {lang: _field(f"{lang} query") for lang in ("SPARQL", "Cypher")}
_ANY_FIELD = re.compile(
    r"^[ \t>#*-]*(Question|Nodes mentioned in the question|Answer|Triples used|"
    r"SPARQL query|Cypher query)[ \t*]*:",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^\s*```[\w-]*\s*$")


def _clean(text: str) -> str:
    return text.strip().strip("`").strip().rstrip(",").strip()


def _items(text: str) -> list[str]:
    return [x for x in (_clean(p) for p in text.split(";")) if x]


def parse_reply(text: str, language: str = "SPARQL") -> Candidate | None:
    """The five fields of a generation reply (spec §3.3 step 1), or None when one is missing
    or empty. One regex per line (``Question:``, ``Nodes mentioned in the question:``,
    ``Answer:``, ``Triples used:``, ``<language> query:``; case-insensitive, list markers and
    ``**`` tolerated); the lists are split on ``;``; the query runs from its label to the
    next field label or the end, code fences dropped and lines joined with spaces."""
    fields = {}
    for name, regex in (
        ("question", _QUESTION),
        ("nodes", _NODES),
        ("answer", _ANSWER),
        ("triples", _TRIPLES),
    ):
        m = regex.search(text)
        if m is None:
            return None
        fields[name] = _clean(m.group(1))
    m = _QUERY[language].search(text)
    if m is None:
        return None
    lines = [m.group(1)]
    for line in text[m.end() :].splitlines()[1:]:
        if _ANY_FIELD.match(line):
            break
        lines.append(line)
    query = " ".join(x.strip() for x in lines if x.strip() and not _FENCE.match(x))
    query = query.strip().strip("`").strip()
    seeds, triples = _items(fields["nodes"]), _items(fields["triples"])
    if not (fields["question"] and fields["answer"] and seeds and triples and query):
        return None
    return Candidate(fields["question"], seeds, fields["answer"], triples, query)


_LABEL_ID = re.compile(r"^(.*?)\s*\(([^()]+)\)$")


def _norm(text: str) -> str:
    return "".join(text.split()).lower()


def split_triple(text: str) -> tuple[str, str, str] | None:
    """A triple spelling split into (head, relation, tail) spellings, or None. As the
    original: split on ``)\\s?-``; three parts are ``label (ID)`` each (closing parentheses
    restored); two parts mean a bare relation (Neo4j types), split from the tail at its
    first ``-``."""
    parts = [p.strip() for p in re.split(r"\)\s?-", text.strip())]
    if len(parts) == 3:
        h, r, t = (p if p.endswith(")") else p + ")" for p in parts)
    elif len(parts) == 2:
        h = parts[0] + ")"
        m = re.match(r"^([^\s-][^-]*?)\s?-\s?(.+)$", parts[1])
        if m is None:
            return None
        r, t = m.group(1).strip(), m.group(2).strip()
    else:
        return None
    if min(len(h), len(r), len(t)) < 2:
        return None
    return h, r, t


# -- checking a reply -------------------------------------------------------------------


_SPARQL_TOKEN = re.compile(r"\s*(\?[A-Za-z_][A-Za-z0-9_]*|wd:Q[0-9]+|wdt:P[0-9]+|[.;,]|\S+)")
_SPARQL_FORM = re.compile(
    r"^\s*(?:PREFIX\s+[A-Za-z_]*:\s*<[^>]*>\s*)*SELECT\s+(?:DISTINCT\s+)?\?answer\s+"
    r"(?:WHERE\s*)?\{(.*)\}\s*$",
    re.IGNORECASE | re.DOTALL,
)


def sparql_is_bgp(query: str) -> bool:
    """Whether ``query`` is ``SELECT [DISTINCT] ?answer WHERE { … }`` over a basic graph
    pattern of ``wd:Q…`` / variable terms and ``wdt:P…`` predicates (``.``, ``;`` and ``,``
    abbreviations allowed) that uses ``?answer`` (spec §3.3 step 4)."""
    m = _SPARQL_FORM.match(query)
    if m is None:
        return False
    tokens = [t for t in _SPARQL_TOKEN.findall(m.group(1)) if t]
    if "?answer" not in tokens:
        return False

    def term(t: str) -> bool:
        return t.startswith(("?", "wd:"))

    i, n = 0, len(tokens)
    while i < n:
        if not term(tokens[i]):  # subject
            return False
        i += 1
        while True:  # predicate-object list: p o (, o)* (; p o (, o)*)* ;?
            if i + 1 >= n or not tokens[i].startswith("wdt:") or not term(tokens[i + 1]):
                return False
            i += 2
            while i < n and tokens[i] == ",":
                if i + 1 >= n or not term(tokens[i + 1]):
                    return False
                i += 2
            semicolon = False
            while i < n and tokens[i] == ";":
                i, semicolon = i + 1, True
            if not (semicolon and i < n and tokens[i].startswith("wdt:")):
                break
        if i < n:
            if tokens[i] != ".":
                return False
            i += 1
    return True


_CYPHER_FORM = re.compile(
    r"^\s*MATCH\b.*\bRETURN\s+DISTINCT\s+[A-Za-z_][A-Za-z0-9_]*\.eid\s+AS\s+answer\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_CYPHER_FORBIDDEN = re.compile(
    r"\b(OPTIONAL|UNION|CALL|WITH|UNWIND|CREATE|MERGE|DELETE|DETACH|SET|REMOVE|FOREACH|"
    r"LOAD|NOT|OR|XOR)\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`")


def cypher_is_pattern(query: str) -> bool:
    """Whether ``query`` is ``MATCH`` clauses (and ``WHERE`` conditions) ending in
    ``RETURN DISTINCT <var>.eid AS answer``, with no ``OPTIONAL``, ``UNION``, ``WITH``,
    ``NOT``, ``OR``, subqueries or writes outside string literals (spec §6)."""
    bare = _QUOTED.sub("''", query)
    return bool(_CYPHER_FORM.match(bare)) and not _CYPHER_FORBIDDEN.search(bare)


def build_tree(
    triples: Sequence[tuple[str, str, str]], seeds: Sequence[str], answer: str
) -> Tree | None:
    """The answer subgraph as a :class:`Tree` rooted at ``answer`` (node 0; nodes numbered
    breadth-first, edge j = triple j oriented parent → child), or None when it is not a
    valid GTSQA tree: a cycle, parallel edge or self-loop, disconnected, the answer absent
    or a seed, a seed absent or not a leaf, or a leaf other than the answer that is not a
    seed (spec §3.3 step 6)."""
    seed_set = set(seeds)
    if answer in seed_set:
        return None
    adj: dict[str, list[tuple[str, int]]] = {}
    for j, (h, _r, t) in enumerate(triples):
        if h == t:
            return None
        adj.setdefault(h, []).append((t, j))
        adj.setdefault(t, []).append((h, j))
    if answer not in adj:
        return None
    index = {answer: 0}
    nodes = [answer]
    edges: list[tuple[int, int] | None] = [None] * len(triples)
    queue = deque([answer])
    while queue:
        v = queue.popleft()
        for w, j in adj[v]:
            if edges[j] is not None:
                continue
            if w in index:
                return None  # a cycle or a parallel edge
            index[w] = len(nodes)
            nodes.append(w)
            edges[j] = (index[v], index[w])
            queue.append(w)
    if any(e is None for e in edges):
        return None  # disconnected
    if not seed_set <= index.keys():
        return None
    for w in nodes[1:]:
        leaf = len(adj[w]) == 1
        if leaf != (w in seed_set):
            return None  # a hanging branch, or a seed that is not a leaf
    return Tree(
        edges=[e for e in edges if e is not None],
        nodes=nodes,
        triples=list(triples),
        seeds=[index[s] for s in dict.fromkeys(seeds)],
    )


@dataclass
class ReplyChecker:
    """Steps 2-6 of the module docstring for one back end and run settings.

    ``kg``: the back end; ``settings``: the run's settings (``max_answers``, ``max_edges``);
    :meth:`check` turns one reply into a :class:`Tree` and the LLM query's answers, or a
    rejection reason."""

    kg: Any
    settings: SynthSettings

    def __post_init__(self) -> None:
        self.language = _language(self.kg)
        self._relations = {
            _norm(self.kg.relation_named(r)): r for r in getattr(self.kg, "relations", [])
        }

    def entity(self, text: str) -> str | None:
        """The id of an entity spelt ``label (ID)`` when it exists and the label matches
        ignoring case and spaces, else None."""
        m = _LABEL_ID.match(text.strip())
        if m is None:
            return None
        label, wid = m.group(1), m.group(2).strip()
        if wid not in self.kg.index or _norm(self.kg.label(wid)) != _norm(label):
            return None
        return str(wid)

    def relation(self, text: str) -> str | None:
        """The id of a relation spelt as the prompt spells it (``label (PID)`` on Wikidata,
        the type on Neo4j; case and spaces ignored), else None."""
        return self._relations.get(_norm(text))

    def check(
        self, reply: str, q_nodes: Sequence[int], q_triples: Sequence[int]
    ) -> tuple[Candidate, Tree, set[str]] | str:
        """(the parsed reply, its tree, its query's answers), or the first failing
        reason; never raises for a bad reply (a failing query is ``invalid_sparql``)."""
        kg = self.kg
        cand = parse_reply(reply, self.language)
        if cand is None:
            return "invalid_llm_out"
        # 2. labels
        answer = self.entity(cand.answer)
        seeds = [self.entity(s) for s in cand.seeds]
        if answer is None or any(s is None for s in seeds):
            return "invalid_label_format"
        triples = []
        for text in cand.triples:
            parts = split_triple(text)
            if parts is None:
                return "invalid_label_format"
            h, r, t = self.entity(parts[0]), self.relation(parts[1]), self.entity(parts[2])
            if h is None or r is None or t is None:
                return "invalid_label_format"
            triples.append((h, r, t))
        seed_ids = list(dict.fromkeys(s for s in seeds if s is not None))
        triples = list(dict.fromkeys(triples))
        # 3. seeds and triples in Q
        q_node_ids = {kg.node_ids[int(v)] for v in q_nodes}
        if not set(seed_ids) <= q_node_ids:
            return "no_node_match"
        q_set = {kg.triple(int(j)) for j in q_triples}
        if not set(triples) <= q_set:
            return "no_triple_match"
        # 4. the query
        query = cand.query
        if kg.query_constants(query) != set(seed_ids) or "rdfs" in query.lower():
            return "invalid_sparql"
        if self.language == "SPARQL":
            if not sparql_is_bgp(query):
                return "invalid_sparql"
            # distinct rows, so that the LIMIT below counts answers
            query = re.sub(
                r"\bSELECT\s+(?!DISTINCT\b)", "SELECT DISTINCT ", query, count=1, flags=re.I
            )
            if not re.search(r"\bPREFIX\b", query, re.IGNORECASE):
                from kgbench.generate.synth.kg import PREFIXES

                query = PREFIXES + query
        elif not cypher_is_pattern(query):
            return "invalid_sparql"
        # at most max_answers + 1 rows: enough to tell, bounded on a large KG
        cap = self.settings.max_answers + 1
        query = re.sub(r"\s*;?\s*$", "", query) + f" LIMIT {cap}"
        try:
            answers = kg.answers(query)
        except InputError:
            return "invalid_sparql"
        # 5. the answers (past the cap the set is incomplete: the count first)
        if len(answers) > self.settings.max_answers:
            return "exceeding_answer"
        if answer not in answers:
            return "no_answer_match"
        # 6. the tree
        tree = build_tree(triples, seed_ids, answer)
        if tree is None:
            return "invalid_graph_template"
        return cand, tree, answers


# -- paraphrases ------------------------------------------------------------------------

_PARA_LABEL = re.compile(
    r"^\s*(?:\**\s*(?:paraphrased|rewritten|reworded)?\s*question\s*\**\s*:\s*\**)\s*",
    re.IGNORECASE,
)


def parse_paraphrase(reply: str, question: str, seed_labels: Sequence[str] = ()) -> str | None:
    """The paraphrase in a reply: its first non-empty line with a leading
    ``(Paraphrased|Rewritten) question:`` label and surrounding quotes removed; None when
    empty, garbled (no letter, or longer than 4× the question plus 200 characters) or when
    it drops a seed label that ``question`` spells out (case ignored)."""
    lines = [x.strip() for x in reply.splitlines() if x.strip()]
    if not lines:
        return None
    text = _PARA_LABEL.sub("", lines[0]).strip().strip("\"'`*").strip()
    if not re.search(r"[^\W\d_]", text) or len(text) > 4 * len(question) + 200:
        return None
    low_q, low_p = question.lower(), text.lower()
    for label in seed_labels:
        if label and label.lower() in low_q and label.lower() not in low_p:
            return None
    return text


# -- the generator ----------------------------------------------------------------------


def generate_llm_items(
    kg: Any,
    settings: SynthSettings,
    client: Any,
    *,
    source: str = "",
    progress: Callable[[int, int], None] | None = None,
    paraphrase_client: Any | None = None,
    k: int | None = None,
    batch_size: int = 32,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """LLM items until ``settings.n`` are valid or the attempt budget (50·n seed graphs,
    one prompt each) is spent (module docstring; spec §3.2-§3.4, §4).

    ``client`` (a :class:`kgbench.llm.LLMClient`, or anything with ``complete_many`` and
    ``model``) generates; ``paraphrase_client`` paraphrases (default ``client``); ``k``
    fixes the number of triples (None: drawn per seed graph from 1..min(4, max_edges));
    ``batch_size`` bounds the prompts sent at once.

    Returns (items in generation order, ``{"report", "filter_log"}``) shaped as
    :func:`~kgbench.generate.synth.template.generate_template_items`'s, the report adding
    ``llm``: model names, k counts, generation and paraphrase prompts, requests and cache
    hits (the clients' ``stats`` deltas), paraphrases ok / empty_or_garbled /
    lost_entity, the allowed types and how k is chosen.

    Raises:
        kgbench.llm.LLMError: the endpoint failed (not a rejection).
        InputError: ``k`` or ``max_edges`` out of range.
    """
    from kgbench.iso import parse_isomorphism_type

    kmax = min(MAX_K, settings.max_edges)
    if kmax < 1:
        raise InputError(f"max_edges must be >= 1, got {settings.max_edges}")
    if k is not None and not 1 <= k <= kmax:
        raise InputError(f"k must be 1..{kmax}, got {k}")
    if batch_size < 1:
        raise InputError(f"batch_size must be >= 1, got {batch_size}")
    allowed = [t for t in ALLOWED_TYPES if len(parse_isomorphism_type(t)[0]) <= settings.max_edges]
    check_settings = dataclasses.replace(settings, types=dict.fromkeys(allowed, 1))
    checker = ReplyChecker(kg, settings)
    language = checker.language
    para_client = client if paraphrase_client is None else paraphrase_client
    clients = [client] if para_client is client else [client, para_client]
    before = [dict(getattr(c, "stats", {})) for c in clients]
    k_counts: Counter[int] = Counter()
    prompts = {"generation": 0, "paraphrase": 0}

    def attempts_of(
        samples: list[tuple[Any, Any]], rng: random.Random, timing: dict[str, float]
    ) -> Iterator[Outcome]:
        ks = [k if k is not None else rng.randint(1, kmax) for _ in samples]
        batch = [
            generation_prompt(seed_graph_text(kg, triples), kk, language)
            for (_nodes, triples), kk in zip(samples, ks, strict=True)
        ]
        t0 = time.perf_counter()
        replies = client.complete_many(batch) if batch else []
        timing["llm_s"] += time.perf_counter() - t0
        prompts["generation"] += len(batch)
        for (nodes, triples), kk, reply in zip(samples, ks, replies, strict=True):
            k_counts[kk] += 1
            t0 = time.perf_counter()
            got = checker.check(reply, nodes, triples)
            if isinstance(got, str):
                out = Outcome(None, got)
            else:
                cand, tree, answers = got
                out = validate(
                    tree,
                    "",
                    kg,
                    check_settings,
                    settings.seed,
                    source,
                    question=cand.question,
                    generator="llm",
                    llm_answers=answers,
                    timing=timing,
                )
            timing["validation_s"] += time.perf_counter() - t0
            yield out

    timing = {"sampling_s": 0.0, "llm_s": 0.0, "validation_s": 0.0, "paraphrase_s": 0.0}
    items, extra = run_generation(
        kg,
        settings,
        attempts_of,
        batch_size=lambda missing, left: min(batch_size, left, 4 * missing),
        timing=timing,
        progress=progress,
    )
    # step 9: paraphrases
    para = {"ok": 0, "empty_or_garbled": 0, "lost_entity": 0}
    if items:
        t0 = time.perf_counter()
        replies = para_client.complete_many([paraphrase_prompt(i["question"]) for i in items])
        timing["paraphrase_s"] += time.perf_counter() - t0
        prompts["paraphrase"] += len(items)
        for item, reply in zip(items, replies, strict=True):
            labels = [m.group(1) for m in map(_LABEL_ID.match, item["seed_entities"]) if m]
            text = parse_paraphrase(reply, item["question"], labels)
            if text is None:
                bare = parse_paraphrase(reply, item["question"])
                para["empty_or_garbled" if bare is None else "lost_entity"] += 1
            else:
                para["ok"] += 1
            item["paraphrased_question"] = text
    report = extra["report"]
    report["timing_s"] = {key: round(v, 3) for key, v in timing.items()}
    stats: dict[str, int] = {}
    for c, old in zip(clients, before, strict=True):
        for key, v in getattr(c, "stats", {}).items():
            stats[key] = stats.get(key, 0) + v - old.get(key, 0)
    report["llm"] = {
        "model": getattr(client, "model", None),
        "paraphrase_model": getattr(para_client, "model", None),
        "query_language": language,
        "k_choice": f"fixed {k}" if k is not None else f"uniform 1..{kmax} per seed graph",
        "k": {str(key): k_counts[key] for key in sorted(k_counts)},
        "prompts": dict(prompts),
        "requests": stats.get("requests", 0),
        "cache_hits": stats.get("cache_hits", 0),
        "paraphrases": para,
        "allowed_types": allowed,
    }
    return items, extra
