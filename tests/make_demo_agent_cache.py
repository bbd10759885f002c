"""Record the reply cache of the demo's agent run (``kgbench demo``, issue 39), deterministically.

The model is the chat-completions test double (``chat_completions_double.py``, a real local
HTTP server) driven by :func:`scripted`, a function of the conversation it receives — no real
model is involved. It answers the first :data:`kgbench.demo.run.AGENT_TASKS` Spider4SPARQL
questions of concert_singer (the shipped gold pairs) with tools, on the RDF graph ``kgbench
rdb`` writes, one conversation at a time (so the cache's lines are in task order):

- q0 "How many singers do we have?": one ``run_query``, then ``final_answer`` (2 turns);
- q1 "What is the total number of singers?": ``final_answer`` at once, with a class that is
  not in the graph (``:Singer``): wrong (1 turn);
- q2 "Show name, country, age ...": ``get_schema``, a guess with the wrong property names (no
  rows), the query with the graph's names, then ``final_answer`` (4 turns);
- q3 "What are the names, countries, and ages ...": queries without ever answering, until
  ``max_turns`` (:data:`kgbench.demo.run.AGENT_MAX_TURNS`) ends it.

The cache is written to ``python/kgbench/demo/data/demo_agent.cache.jsonl`` (or the path
given); the demo replays it with ``--replay-only`` semantics. Rerunning this script gives the
same bytes (``tests/test_demo.py`` checks it)::

    PYTHONPATH=python:tests .venv/bin/python tests/make_demo_agent_cache.py [OUT]
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from chat_completions_double import FAST, ChatCompletionsTestDouble, Messages
from kgbench.demo.run import AGENT_CACHE, AGENT_MAX_TURNS, AGENT_MODEL, AGENT_TASKS, demo_files

#: The gold pairs of concert_singer, as shipped.
GOLD = [r["query"] for r in json.loads(demo_files().s4s_gold.read_text(encoding="utf-8"))]

#: q2's first guess: the property names of the published zero-shot reply (no such
#: predicates in the graph: no rows).
GUESS = (
    "SELECT ?name ?country ?age WHERE { ?singer a :singer . ?singer :name ?name . "
    "?singer :country ?country . ?singer :age ?age . } ORDER BY DESC(?age)"
)


def _call(name: str, arguments: dict[str, Any], ident: str) -> dict[str, Any]:
    return {
        "content": None,
        "tool_calls": [
            {
                "id": ident,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


def scripted(messages: Messages) -> Any:
    """The scripted model (module docstring): its reply to the conversation ``messages``."""
    question = next(m["content"] for m in messages if m["role"] == "user")
    turn = sum(1 for m in messages if m["role"] == "assistant")
    questions = [r["question"] for r in json.loads(demo_files().s4s_gold.read_text("utf-8"))]
    task = questions.index(question.splitlines()[0])
    if task == 0:
        script = [
            _call("run_query", {"query": GOLD[0]}, "q0-1"),
            _call("final_answer", {"query": GOLD[0]}, "q0-2"),
        ]
    elif task == 1:
        wrong = "SELECT (COUNT(?s) AS ?n) WHERE { ?s a :Singer . }"
        script = [_call("final_answer", {"query": wrong}, "q1-1")]
    elif task == 2:
        script = [
            _call("get_schema", {}, "q2-1"),
            _call("run_query", {"query": GUESS}, "q2-2"),
            _call("run_query", {"query": GOLD[2]}, "q2-3"),
            _call("final_answer", {"query": GOLD[2]}, "q2-4"),
        ]
    else:
        return _call(
            "run_query",
            {"query": f"SELECT ?s WHERE {{ ?s a :singer . }} ORDER BY ?s LIMIT {turn + 1}"},
            f"q3-{turn + 1}",
        )
    return script[turn]


def record(out: Path) -> Path:
    """Run the scripted agent and write its reply cache to ``out``; return ``out``."""
    from kgbench.families import predict
    from kgbench.rdb.convert import convert_rdb

    files = demo_files()
    with tempfile.TemporaryDirectory() as tmp:
        rdf = Path(tmp) / "spider"
        convert_rdb(files.spider_db, files.spider_tables, "concert_singer", rdf)
        cache = Path(tmp) / "cache.jsonl"
        with ChatCompletionsTestDouble(reply=scripted) as double:
            predict(
                "spider4sparql",
                files.s4s_gold,
                base_url=double.url,
                model=AGENT_MODEL,
                out_dir=Path(tmp) / "run",
                rdf_dir=rdf,
                cache_path=cache,
                agent=True,
                max_turns=AGENT_MAX_TURNS,
                limit=AGENT_TASKS,
                concurrency=1,
                **FAST,
            )
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cache, out)
    return out


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else AGENT_CACHE
    print(f"wrote {record(target)}")
