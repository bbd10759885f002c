"""kgbench predict's own cost per request against a local endpoint that answers instantly.

Setting (issue "Model runs"): 10,000 CypherBench-family tasks on the mini_company schema
(prompts of about 1.9 kB) at concurrency 32, against a chat-completions endpoint in another
process (the test double ``tests/chat_completions_double.py``, no delay), so the endpoint's
CPU is not counted. Printed:

- requests/s and the client's CPU per request (user + system CPU of this process, all
  threads, over the whole ``predict()`` call: reading tasks, building prompts, HTTP, the
  replay cache, post-processing, writing result.json and run.json);
- the same figures of the baseline: a bare ``httpx`` loop on as many threads sending the same
  10,000 bodies and parsing the replies (no cache, no prompts, no files): the difference is
  what kgbench adds over the HTTP client itself (target: under 1 ms per request);
- the rerun of the same command (every reply from the replay cache, no request sent).

Usage: ``python benches/bench_predict.py [--tasks N] [--concurrency C]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from endpoint import instant_endpoint

REPO = Path(__file__).resolve().parents[1]

REPLY = 'reply = lambda m: "```cypher\\nMATCH (n:Company) RETURN n.name\\n```"'


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", type=int, default=10_000)
    ap.add_argument("--concurrency", type=int, default=32)
    args = ap.parse_args()

    from kgbench.families import predict

    n, conc = args.tasks, args.concurrency
    with instant_endpoint(REPLY) as url, tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        schema = json.loads((REPO / "tests/data/graphs/mini_company.json").read_text())
        (d / "schemas").mkdir()
        (d / "schemas/mini_company_schema.json").write_text(json.dumps(schema["schema"]))
        tasks = [
            {
                "qid": str(i),
                "graph": "mini_company",
                "gold_cypher": "MATCH (n:Company) RETURN n.name",
                "nl_question": f"Which companies were founded in the year {1900 + i}?",
            }
            for i in range(n)
        ]
        (d / "tasks.json").write_text(json.dumps(tasks))

        def run(label: str) -> tuple[float, float, dict[str, object]]:
            c0, t0 = cpu_s(), time.perf_counter()
            res = predict(
                "cypherbench",
                d / "tasks.json",
                base_url=url,
                model="bench",
                out_dir=d / "out",
                schema_dir=d / "schemas",
                concurrency=conc,
            )
            wall, cpu = time.perf_counter() - t0, cpu_s() - c0
            print(
                f"{label:<34} {n / wall:>9,.0f} req/s  {cpu / n * 1e3:>7.3f} ms CPU/request  "
                f"({res.run['requests']} requests sent, {res.run['cache_hits']} from cache)"
            )
            return wall, cpu, res.run

        wall, cpu, first = run("kgbench predict (endpoint)")
        assert first["counts"]["empty_predictions"] == 0, first
        assert first["requests"] == n, first
        run("kgbench predict (rerun, cache)")

        import httpx

        prompt = (d / "out" / "cache.jsonl").open().readline()
        body = json.loads(prompt)
        bodies = [
            {
                "model": "bench",
                "messages": [
                    {
                        "role": "user",
                        "content": body["messages"][0]["content"].replace("1900", str(1900 + i)),
                    }
                ],
                "temperature": 0.0,
                "stop": "\n```",
            }
            for i in range(n)
        ]
        limits = httpx.Limits(max_connections=conc, max_keepalive_connections=conc)
        with httpx.Client(limits=limits, timeout=120) as http:

            def send(b: dict[str, object]) -> str:
                r = http.post(url + "/chat/completions", json=b)
                return str(r.json()["choices"][0]["message"]["content"])

            c0, t0 = cpu_s(), time.perf_counter()
            with ThreadPoolExecutor(conc) as pool:
                replies = list(pool.map(send, bodies))
            bwall, bcpu = time.perf_counter() - t0, cpu_s() - c0
        assert len(replies) == n
        print(
            f"{'baseline: bare httpx, same bodies':<34} {n / bwall:>9,.0f} req/s  "
            f"{bcpu / n * 1e3:>7.3f} ms CPU/request"
        )
        per, added = cpu / n * 1e3, (cpu - bcpu) / n * 1e3
        print(
            f"client CPU per request {per:.3f} ms, of which kgbench adds {added:.3f} ms over "
            f"the bare HTTP client (target: adds < 1 ms: {'met' if added < 1.0 else 'NOT met'}"
            f"; whole client < 1 ms: {'met' if per < 1.0 else 'not met'}); ratio to bare "
            f"httpx {cpu / bcpu:.2f}x CPU, {wall / bwall:.2f}x wall; {n} tasks, "
            f"concurrency {conc}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
