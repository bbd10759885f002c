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
  its wall and CPU per task;
- the CPU split, from two baselines run in the same process on the same input: the bare HTTP
  client (``httpx`` posting the very request bodies the first run sent, read back from its
  replay cache, at the same concurrency) and the bare driver (the official ``neo4j`` driver
  running the very tool queries of the run in READ sessions, results fetched, at the same
  concurrency). kgbench's own CPU per turn is the run's CPU less those two (the rerun's:
  less the driver's only: it sends no request).

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


def bare_driver(uri: str, queries: list[str], conc: int) -> float:
    """CPU seconds of this process running ``queries`` with the official driver at ``conc``
    threads (READ sessions, every record fetched): the driver's client side of the tools."""
    from concurrent.futures import ThreadPoolExecutor

    import neo4j

    with neo4j.GraphDatabase.driver(uri, auth=None) as driver:

        def run(query: str) -> int:
            with driver.session(default_access_mode=neo4j.READ_ACCESS) as s:
                return len(list(s.run(query)))

        run(queries[0])  # connections warm, as in the run
        c0 = cpu_s()
        with ThreadPoolExecutor(conc) as pool:
            list(pool.map(run, queries))
        return cpu_s() - c0


def bare_http(url: str, cache: Path, conc: int) -> float:
    """CPU seconds of this process posting the request bodies kept in the replay ``cache``
    (model, messages, temperature, tools) with ``httpx`` at ``conc`` threads, replies parsed."""
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    keys = ("model", "messages", "temperature", "tools")
    bodies = []
    for line in cache.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        bodies.append({k: entry[k] for k in keys if k in entry})
    limits = httpx.Limits(max_connections=conc, max_keepalive_connections=conc)
    with httpx.Client(limits=limits, timeout=120) as http:

        def send(body: dict[str, object]) -> object:
            r = http.post(url + "/chat/completions", json=body)
            return r.json()["choices"][0]["message"]

        c0 = cpu_s()
        with ThreadPoolExecutor(conc) as pool:
            list(pool.map(send, bodies))
        return cpu_s() - c0


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
                out = work / "out"
                lines = [
                    json.loads(x) for x in (out / "trajectories.jsonl").read_text().splitlines()
                ]
                queries = [
                    json.loads(call["arguments"])["query"]
                    for t in lines
                    for step in t["steps"]
                    for call in step["tool_calls"]
                    if call["name"] == "run_query"
                ]
                driver_cpu = bare_driver(db.uri, queries, conc)
                http_cpu = bare_http(url, out / "cache.jsonl", conc)
            finally:
                db.stop()
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
    (_, _, cpu1, _), (_, _, cpu2, _) = figures
    own1 = (cpu1 - http_cpu - driver_cpu) * 1000 / first_turns
    own2 = (cpu2 - driver_cpu) * 1000 / first_turns
    print(
        f"baselines, same process, same input: bare httpx {http_cpu * 1000 / first_turns:.3f} "
        f"ms CPU/turn ({figures[0][3].run['requests']} requests), bare neo4j driver "
        f"{driver_cpu * 1000 / first_turns:.3f} ms CPU/turn ({len(queries)} queries)"
    )
    print(
        f"kgbench's own CPU per turn (run less the baselines): first run {own1:.3f} ms, cached "
        f"rerun {own2:.3f} ms (target < 1 ms: {'met' if max(own1, own2) < 1.0 else 'NOT met'})"
    )
    print(
        f"queries' wall time in the cached rerun (server included, summed over threads): "
        f"{query_s:.2f} s, {query_s * 1000 / max(1, first_turns):.3f} ms per turn"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
