"""kgbench predict --agent's own cost per turn against a local endpoint that answers instantly.

Setting (issue 39, "Agent runs"): N CypherBench-family tasks (default 1,000) on the
``mini_company`` graph (``tests/data/graphs/mini_company.json``) loaded into a disposable
local Neo4j, at concurrency 32, against the chat-completions test double
(``tests/chat_completions_double.py``) in another process (its CPU is not counted), scripted
to 5 turns per task: ``get_schema``, three ``run_query`` calls, ``final_answer``. Printed:

- turns/s and kgbench's CPU per turn (user + system CPU of this process, all threads, over the
  whole ``predict()`` call: tasks, prompts, HTTP, the replay cache, the tools, the driver's
  client side of the queries, trajectories.jsonl and run.json), with the queries' wall time
  (sum of the executed queries' ``elapsed_s``, server included) reported apart;
- the rerun of the same command (every reply from the replay cache, tool queries run again):
  its wall and CPU per task.

Target: under 1 ms of kgbench CPU per turn, beside the executed queries.

Usage: ``python benches/bench_agent.py [--tasks N] [--concurrency C]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

from endpoint import instant_endpoint

REPO = Path(__file__).resolve().parents[1]

REPLY = """
SCRIPT = [
    ("get_schema", {}),
    ("run_query", {"query": "MATCH (c:Company) RETURN c.name AS name"}),
    ("run_query", {"query": "MATCH (c:Company)-[:basedIn]->(k) RETURN k.name, count(c)"}),
    ("run_query", {"query": "MATCH (c:Company) RETURN count(c) AS n"}),
    ("final_answer", {"query": "MATCH (c:Company) RETURN count(c) AS n"}),
]

def reply(messages):
    turn = sum(1 for m in messages if m["role"] == "assistant")
    name, args = SCRIPT[min(turn, len(SCRIPT) - 1)]
    call = {"id": f"c{turn}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}
    return {"content": None, "tool_calls": [call]}

"""


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=32)
    args = ap.parse_args()

    from kgbench.families import predict
    from kgbench.neo4j.disposable import DisposableNeo4j

    n, conc = args.tasks, args.concurrency
    graph = REPO / "tests" / "data" / "graphs" / "mini_company.json"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tasks = work / "tasks.json"
        tasks.write_text(
            json.dumps(
                [
                    {
                        "qid": f"q{i}",
                        "graph": "mini_company",
                        "gold_cypher": "MATCH (c:Company) RETURN count(c) AS n",
                        "nl_question": f"How many companies are there? (variant {i})",
                    }
                    for i in range(n)
                ]
            )
        )
        with instant_endpoint(REPLY) as url:
            db = DisposableNeo4j(graph, data_dir=work / "db", heap="1g", pagecache="256m")
            db.start()
            try:
                common = {
                    "base_url": url,
                    "model": "bench",
                    "out_dir": work / "out",
                    "uri": db.uri,
                    "agent": True,
                    "concurrency": conc,
                }
                figures = []
                for label in ("first run", "cached rerun"):
                    c0, t0 = cpu_s(), time.perf_counter()
                    result = predict("cypherbench", tasks, **common)
                    wall, cpu = time.perf_counter() - t0, cpu_s() - c0
                    figures.append((label, wall, cpu, result))
            finally:
                db.stop()
        out = work / "out"
        lines = [json.loads(x) for x in (out / "trajectories.jsonl").read_text().splitlines()]
        query_s = sum(
            call.get("elapsed_s", 0.0)
            for t in lines
            for step in t["steps"]
            for call in step["tool_calls"]
        )
    print(f"agent run: {n} tasks x 5 turns, concurrency {conc}, mini_company on Neo4j")
    for label, wall, cpu, result in figures:
        agent = result.run["agent"]
        turns = agent["turns"]
        print(
            f"{label}: {wall:.2f} s wall, {turns / wall:,.0f} turns/s, "
            f"CPU {cpu * 1000 / turns:.3f} ms/turn ({cpu * 1000 / n:.2f} ms/task), "
            f"requests {result.run['requests']}, cache hits {result.run['cache_hits']}, "
            f"queries executed {agent['queries_executed']}, endings {agent['endings']}"
        )
    first_turns = figures[0][3].run["agent"]["turns"]
    print(
        f"queries' wall time in the cached rerun (server included, summed over threads): "
        f"{query_s:.2f} s, {query_s * 1000 / max(1, first_turns):.3f} ms per turn"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
