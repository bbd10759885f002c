"""kgbench.llm.LLMClient against a real local HTTP server speaking chat completions.

The only fake is the endpoint (:class:`ChatCompletionsTestDouble`); the client sends real HTTP.
Backoff delays are made tiny through the constructor so the whole module runs in seconds.
"""

from __future__ import annotations

import hashlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat_completions_double import FAST, ChatCompletionsTestDouble, last_user_content
from kgbench.errors import InputError, KgbenchError
from kgbench.llm import LLMClient, LLMError, cache_key

pytestmark = pytest.mark.usefixtures("no_api_key_env")


def user(text: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You answer briefly."},
        {"role": "user", "content": text},
    ]


@pytest.fixture
def server() -> Iterator[ChatCompletionsTestDouble]:
    with ChatCompletionsTestDouble() as double:
        yield double


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_completion_sends_model_messages_and_temperature_zero(
    server: ChatCompletionsTestDouble,
) -> None:
    with LLMClient(server.url + "/", "test-model") as client:
        assert client.complete(user("hello")) == "echo: hello"
    assert server.paths == ["/v1/chat/completions"]
    assert server.requests == [
        {"model": "test-model", "messages": user("hello"), "temperature": 0.0}
    ]
    assert "authorization" not in server.headers[0]
    assert client.stats == {"requests": 1, "cache_hits": 0, "retries": 0}


def test_api_key_from_argument_then_environment(
    server: ChatCompletionsTestDouble, monkeypatch: pytest.MonkeyPatch
) -> None:
    with LLMClient(server.url, "m", api_key="sk-arg") as client:
        client.complete(user("a"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    with LLMClient(server.url, "m") as client:
        client.complete(user("b"))
    monkeypatch.setenv("KGBENCH_LLM_API_KEY", "sk-kgbench")
    with LLMClient(server.url, "m", temperature=0.7) as client:
        client.complete(user("c"))
    assert [h["authorization"] for h in server.headers] == [
        "Bearer sk-arg",
        "Bearer sk-openai",
        "Bearer sk-kgbench",
    ]
    assert server.requests[2]["temperature"] == 0.7


def test_retries_after_500_then_succeeds(server: ChatCompletionsTestDouble) -> None:
    server.fail_next(2, status=500)
    with LLMClient(server.url, "m", **FAST) as client:
        assert client.complete(user("x")) == "echo: x"
    assert len(server.requests) == 3
    assert client.stats == {"requests": 3, "cache_hits": 0, "retries": 2}


def test_retries_after_429_and_honours_retry_after(server: ChatCompletionsTestDouble) -> None:
    server.fail_next(1, status=429, retry_after="0.3")
    with LLMClient(server.url, "m", backoff_s=0.001, max_backoff_s=5.0) as client:
        t0 = time.perf_counter()
        assert client.complete(user("x")) == "echo: x"
        waited = time.perf_counter() - t0
    assert waited >= 0.3
    assert client.stats["retries"] == 1
    assert len(server.requests) == 2


def test_retry_after_is_capped(server: ChatCompletionsTestDouble) -> None:
    server.fail_next(2, status=503, retry_after="3600")
    with LLMClient(server.url, "m", backoff_s=0.001, max_backoff_s=0.05) as client:
        t0 = time.perf_counter()
        assert client.complete(user("x")) == "echo: x"
        assert time.perf_counter() - t0 < 2.0
    assert len(server.requests) == 3


def test_endpoint_that_keeps_failing_gives_status_after_retries(
    server: ChatCompletionsTestDouble,
) -> None:
    server.fail_next(3, status=503, body="upstream overloaded")
    with (
        LLMClient(server.url, "m", max_retries=2, **FAST) as client,
        pytest.raises(LLMError) as err,
    ):
        client.complete(user("x"))
    message = str(err.value)
    assert message == (
        f"the LLM endpoint {server.url}/chat/completions kept failing: "
        "HTTP 503: upstream overloaded (3 attempts)"
    )
    assert len(server.requests) == 3


def test_down_endpoint_gives_one_line_error_with_url() -> None:
    url = closed_port_url()
    with LLMClient(url, "m", max_retries=2, **FAST) as client, pytest.raises(LLMError) as err:
        client.complete(user("x"))
    message = str(err.value)
    assert message.startswith(f"could not reach the LLM endpoint {url}/chat/completions: ")
    assert message.endswith("(3 attempts)")
    assert "\n" not in message
    assert isinstance(err.value, KgbenchError)
    assert client.stats == {"requests": 3, "cache_hits": 0, "retries": 2}


def test_timeout_is_retried_then_reported(server: ChatCompletionsTestDouble) -> None:
    server.sleep_next(1, 0.4)
    with LLMClient(server.url, "m", timeout_s=0.1, **FAST) as client:
        assert client.complete(user("slow once")) == "echo: slow once"
        assert client.stats["retries"] == 1
    server.sleep_next(2, 0.4)
    with (
        LLMClient(server.url, "m", timeout_s=0.1, max_retries=1, **FAST) as client,
        pytest.raises(LLMError, match=r"could not reach .*: timed out after 0.1 s"),
    ):
        client.complete(user("slow twice"))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("<html>Bad Gateway</html>", "not JSON: '<html>Bad Gateway</html>'"),
        ('["a list"]', "not a JSON object: '[\"a list\"]'"),
        (
            '{"id": "x", "object": "chat.completion"}',
            "no choices (expected choices[0].message.content)",
        ),
        ('{"choices": []}', "no choices (expected choices[0].message.content)"),
        ('{"choices": [{"index": 0}]}', "no choices[0].message"),
        ('{"choices": [{"message": {"role": "assistant"}}]}', "no choices[0].message.content"),
        (
            '{"choices": [{"message": {"role": "assistant", "content": null}}]}',
            "choices[0].message.content is null, not a string",
        ),
        (
            '{"choices": [{"message": {"content": ["a", "b"]}}]}',
            "choices[0].message.content is list, not a string",
        ),
    ],
)
def test_malformed_reply_names_what_is_missing(
    server: ChatCompletionsTestDouble, body: str, expected: str
) -> None:
    server.malformed_next(body)
    with LLMClient(server.url, "m", **FAST) as client, pytest.raises(LLMError) as err:
        client.complete(user("x"))
    # the status and what is missing; an excerpt of the body follows when it helps
    assert str(err.value).startswith(
        f"the LLM endpoint {server.url}/chat/completions sent a malformed reply (HTTP 200): "
        f"{expected}"
    )
    assert len(server.requests) == 1


def test_non_retryable_400_raises_at_once(server: ChatCompletionsTestDouble) -> None:
    server.fail_next(1, status=400, body='{"error": {"message": "model \\"m\\" does not exist"}}')
    with LLMClient(server.url, "m", **FAST) as client, pytest.raises(LLMError) as err:
        client.complete(user("x"))
    assert str(err.value) == (
        f"the LLM endpoint {server.url}/chat/completions refused the request: "
        'HTTP 400: {"error": {"message": "model \\"m\\" does not exist"}}'
    )
    assert len(server.requests) == 1
    assert client.stats == {"requests": 1, "cache_hits": 0, "retries": 0}


def test_cache_replays_offline_exactly(tmp_path: Path) -> None:
    cache = tmp_path / "llm" / "cache.jsonl"
    answers = {"q1": "Paris.", "q2": "  spaced\nreply with ünïcödé  ", "q3": '{"json": true}'}
    prompts = [user(q) for q in answers]
    with ChatCompletionsTestDouble(reply=lambda m: answers[last_user_content(m)]) as double:
        with LLMClient(double.url, "m", cache_path=cache) as first:
            got = first.complete_many(prompts)
            assert first.complete(user("q1")) == "Paris."
        assert len(double.requests) == 3
        assert first.stats == {"requests": 3, "cache_hits": 1, "retries": 0}
        url = double.url
    assert got == list(answers.values())

    lines = [json.loads(line) for line in cache.read_text(encoding="utf-8").splitlines()]
    assert sorted(line["response"] for line in lines) == sorted(answers.values())
    for line in lines:
        canonical = json.dumps(
            {"model": "m", "messages": line["messages"], "temperature": 0.0},
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        assert line["key"] == hashlib.sha256(canonical.encode()).hexdigest()
        assert line["key"] == cache_key("m", line["messages"], 0.0)
        assert line["model"] == "m"

    # the server is gone (its port refuses connections): every answer replays from the cache
    with LLMClient(url, "m", cache_path=cache, max_retries=0) as second:
        assert second.complete_many(prompts) == list(answers.values())
        assert [second.complete(p) for p in prompts] == list(answers.values())
        assert second.stats == {"requests": 0, "cache_hits": 6, "retries": 0}
        # a prompt that is not cached does try the (dead) endpoint
        with pytest.raises(LLMError, match="could not reach the LLM endpoint"):
            second.complete(user("q4"))
    # another model or temperature is another prompt
    with (
        LLMClient(url, "other", cache_path=cache, replay_only=True) as other,
        pytest.raises(LLMError) as err,
    ):
        other.complete(user("q1"))
    assert str(err.value) == (
        f"no cached response for this prompt in {cache}; run with the endpoint to fill it"
    )
    with (
        LLMClient(url, "m", cache_path=cache, replay_only=True, temperature=1.0) as hot,
        pytest.raises(LLMError, match="no cached response"),
    ):
        hot.complete(user("q1"))
    with LLMClient(url, "m", cache_path=cache, replay_only=True) as replay:
        assert replay.complete(user("q3")) == '{"json": true}'
        assert replay.stats["requests"] == 0


def test_corrupt_cache_line_names_file_and_line(tmp_path: Path) -> None:
    cache = tmp_path / "cache.jsonl"
    good: dict[str, Any] = {
        "key": cache_key("m", user("a"), 0.0),
        "model": "m",
        "messages": user("a"),
        "temperature": 0.0,
        "response": "A",
    }
    cache.write_text(json.dumps(good) + "\n\n{not json\n", encoding="utf-8")
    with pytest.raises(LLMError, match=rf"^{cache}:3: not a JSON line"):
        LLMClient("http://127.0.0.1:9/v1", "m", cache_path=cache)

    bad_key = dict(good, key="0" * 64)
    cache.write_text(json.dumps(bad_key) + "\n", encoding="utf-8")
    with pytest.raises(LLMError, match=rf"^{cache}:1: 'key' does not match"):
        LLMClient("http://127.0.0.1:9/v1", "m", cache_path=cache)

    no_response = {k: v for k, v in good.items() if k != "response"}
    cache.write_text(json.dumps(good) + "\n" + json.dumps(no_response) + "\n", encoding="utf-8")
    with pytest.raises(LLMError, match=rf"^{cache}:2: 'response' must be a string"):
        LLMClient("http://127.0.0.1:9/v1", "m", cache_path=cache)


def test_cache_without_final_newline_stays_valid(
    server: ChatCompletionsTestDouble, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.jsonl"
    line = {"key": cache_key("m", user("a"), 0.0), "response": "A"}
    cache.write_text(json.dumps(line), encoding="utf-8")  # hand-written, no newline at the end
    with LLMClient(server.url, "m", cache_path=cache) as client:
        assert client.complete(user("a")) == "A"
        assert client.complete(user("b")) == "echo: b"
    with LLMClient(server.url, "m", cache_path=cache, replay_only=True) as replay:
        assert [replay.complete(user("a")), replay.complete(user("b"))] == ["A", "echo: b"]
    assert len(server.requests) == 1


def test_complete_many_keeps_order_and_bounds_concurrency() -> None:
    prompts = [user(f"q{i}") for i in range(12)]

    def delay(messages: Any) -> float:  # later prompts answer sooner: completion order differs
        return 0.01 * (12 - int(last_user_content(messages)[1:]))

    with ChatCompletionsTestDouble(delay_s=delay) as double:
        with LLMClient(double.url, "m", max_concurrency=3) as client:
            got = client.complete_many(prompts)
        assert got == [f"echo: q{i}" for i in range(12)]
        assert len(double.requests) == 12
        assert 2 <= double.max_in_flight <= 3
        assert double.in_flight == 0


def test_complete_many_bound_holds_across_threads_and_dedups() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ChatCompletionsTestDouble(delay_s=0.03) as double:
        with LLMClient(double.url, "m", max_concurrency=2) as client:
            with ThreadPoolExecutor(4) as pool:
                results = list(pool.map(lambda i: client.complete(user(f"t{i}")), range(8)))
            dup = client.complete_many([user("d"), user("e"), user("d"), user("d")])
        assert results == [f"echo: t{i}" for i in range(8)]
        assert dup == ["echo: d", "echo: e", "echo: d", "echo: d"]
        assert double.max_in_flight == 2
        assert len(double.requests) == 10
        assert client.stats["cache_hits"] == 2


def test_complete_many_raises_the_first_failure(server: ChatCompletionsTestDouble) -> None:
    server.fail_next(1, status=401, body="bad key")
    with (
        LLMClient(server.url, "m", max_concurrency=1, **FAST) as client,
        pytest.raises(LLMError, match="HTTP 401: bad key"),
    ):
        client.complete_many([user("a"), user("b"), user("c")])


def test_bad_arguments_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="must start with http"):
        LLMClient("127.0.0.1:8000/v1", "m")
    with pytest.raises(InputError, match="replay_only needs a cache_path"):
        LLMClient("http://127.0.0.1:8000/v1", "m", replay_only=True)
    with pytest.raises(InputError, match="max_concurrency"):
        LLMClient("http://127.0.0.1:8000/v1", "m", max_concurrency=0)
    client = LLMClient("http://127.0.0.1:8000/v1", "m", cache_path=tmp_path / "c.jsonl")
    with pytest.raises(InputError, match=r"messages\[0\]"):
        client.complete([{"role": "user"}])


def test_complete_full_options_are_sent_and_keyed(
    server: ChatCompletionsTestDouble, tmp_path: Path
) -> None:
    cache = tmp_path / "c.jsonl"
    with LLMClient(server.url, "m", cache_path=cache, **FAST) as client:
        done = client.complete_full(user("hi"), stop="\n```", max_tokens=9, seed=3, sample=1)
        assert done.text == "echo: hi" and not done.cached
        assert done.prompt_tokens == 4 and done.completion_tokens == 2
        assert client.usage == {"prompt_tokens": 4, "completion_tokens": 2}
        plain = client.complete(user("hi"))  # no options: another request, the old key
        assert plain == "echo: hi"
    assert server.requests[0] == {
        "model": "m",
        "messages": user("hi"),
        "temperature": 0.0,
        "stop": "\n```",
        "max_tokens": 9,
        "seed": 3,
    }
    assert len(server.requests) == 2
    lines = [json.loads(x) for x in cache.read_text().splitlines()]
    assert lines[0]["sample"] == 1 and lines[0]["usage"] == {
        "prompt_tokens": 4,
        "completion_tokens": 2,
    }
    assert lines[1]["key"] == cache_key("m", user("hi"), 0.0)
    with LLMClient(server.url, "m", cache_path=cache, replay_only=True) as again:
        hit = again.complete_full(user("hi"), stop="\n```", max_tokens=9, seed=3, sample=1)
        assert hit.cached and hit.text == "echo: hi" and hit.completion_tokens == 2
        with pytest.raises(LLMError, match="no cached response"):
            again.complete_full(user("hi"), stop="\n```", max_tokens=9, seed=3, sample=2)


def test_complete_full_refusal_is_an_empty_text(server: ChatCompletionsTestDouble) -> None:
    server.refuse_next(1)
    with LLMClient(server.url, "m", **FAST) as client:
        done = client.complete_full(user("x"))
    assert done.text == "" and done.unusable == "refusal"


# -- request parameters an endpoint may refuse (issue 39) ------------------------------------

OPENAI_STOP_REFUSED = json.dumps(
    {
        "error": {
            "message": "Unsupported parameter: 'stop' is not supported with this model.",
            "type": "invalid_request_error",
            "param": "stop",
            "code": "unsupported_parameter",
        }
    }
)


def test_temperature_none_reasoning_effort_and_max_completion_tokens_are_sent_as_asked(
    server: ChatCompletionsTestDouble, tmp_path: Path
) -> None:
    cache = tmp_path / "c.jsonl"
    options: dict[str, Any] = {
        "temperature": None,
        "reasoning_effort": "low",
        "max_tokens_field": "max_completion_tokens",
        "cache_path": cache,
    }
    with LLMClient(server.url, "m", **options) as client:
        assert client.request_parameters(stop="X", max_tokens=64) == {
            "stop": "X",
            "max_completion_tokens": 64,
            "reasoning_effort": "low",
        }
        client.complete_full(user("a"), stop="X", max_tokens=64)
        client.complete(user("b"))
    assert server.requests[0] == {
        "model": "m",
        "messages": user("a"),
        "stop": "X",
        "max_completion_tokens": 64,
        "reasoning_effort": "low",
    }
    assert server.requests[1] == {"model": "m", "messages": user("b"), "reasoning_effort": "low"}
    # the cache lines say what was sent and replay offline
    lines = [json.loads(x) for x in cache.read_text().splitlines()]
    assert lines[0]["temperature"] is None and lines[0]["max_completion_tokens"] == 64
    assert lines[0]["reasoning_effort"] == "low" and "max_tokens" not in lines[0]
    with LLMClient(server.url, "m", **options, replay_only=True) as again:
        assert again.complete_full(user("a"), stop="X", max_tokens=64).cached
        assert again.complete(user("b")) == "echo: b"


def test_other_request_parameters_are_other_cache_entries(
    server: ChatCompletionsTestDouble, tmp_path: Path
) -> None:
    cache = tmp_path / "c.jsonl"
    with LLMClient(server.url, "m", cache_path=cache) as client:
        client.complete_full(user("a"), stop="X", max_tokens=64)
    variants: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({"temperature": None}, {"stop": "X", "max_tokens": 64}),
        ({}, {"max_tokens": 64}),  # --no-stop
        ({"max_tokens_field": "max_completion_tokens"}, {"stop": "X", "max_tokens": 64}),
        ({"reasoning_effort": "high"}, {"stop": "X", "max_tokens": 64}),
    ]
    for ctor, call in variants:
        with LLMClient(server.url, "m", cache_path=cache, **ctor) as client:
            assert not client.complete_full(user("a"), **call).cached
    assert len(server.requests) == 1 + len(variants)
    # and the default request keeps the key it always had
    with LLMClient(server.url, "m", cache_path=cache) as client:
        assert client.complete_full(user("a"), stop="X", max_tokens=64).cached
    expected = {"model": "m", "messages": user("a"), "temperature": 0.0}
    expected |= {"stop": "X", "max_tokens": 64}
    canon = json.dumps(expected, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    first = json.loads(cache.read_text().splitlines()[0])
    assert first["key"] == hashlib.sha256(canon.encode()).hexdigest()


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        (OPENAI_STOP_REFUSED, "stop", "unsupported_parameter"),
        (
            json.dumps(
                {
                    "error": {
                        "message": "Unsupported value: 'temperature' does not support 0 with "
                        "this model. Only the default (1) value is supported.",
                        "type": "invalid_request_error",
                        "param": "temperature",
                        "code": "unsupported_value",
                    }
                }
            ),
            "temperature",
            "unsupported_value",
        ),
        # a proxy's shape without "param": the name is read from the message
        (
            json.dumps(
                {
                    "error": {
                        "message": "Unsupported parameter: 'max_tokens' is not supported with "
                        "this model. Use 'max_completion_tokens' instead.",
                        "code": "invalid_request_body",
                    }
                }
            ),
            "max_tokens",
            "invalid_request_body",
        ),
    ],
)
def test_a_400_naming_a_sent_parameter_is_a_refused_parameter_error(
    server: ChatCompletionsTestDouble, body: str, param: str, code: str
) -> None:
    from kgbench.llm import RefusedParameterError

    server.fail_next(1, status=400, body=body)
    with (
        LLMClient(server.url, "m", **FAST) as client,
        pytest.raises(RefusedParameterError) as info,
    ):
        client.complete_full(user("a"), stop="X", max_tokens=8)
    assert info.value.param == param and info.value.code == code and info.value.status == 400
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith(f"the LLM endpoint {server.url}/chat/completions refused '{param}' ")
    assert f"(HTTP 400 {code}: " in msg
    assert len(server.requests) == 1  # not retried


def test_a_400_naming_a_parameter_not_sent_stays_a_plain_refusal(
    server: ChatCompletionsTestDouble,
) -> None:
    from kgbench.llm import RefusedParameterError

    server.fail_next(1, status=400, body=OPENAI_STOP_REFUSED)
    with LLMClient(server.url, "m", **FAST) as client, pytest.raises(LLMError) as info:
        client.complete_full(user("a"))  # no stop sent
    assert not isinstance(info.value, RefusedParameterError)
    assert "refused the request: HTTP 400" in str(info.value)


def test_bad_max_tokens_field_is_an_input_error() -> None:
    with pytest.raises(InputError, match="max_tokens_field must be one of"):
        LLMClient("http://127.0.0.1:1/v1", "m", max_tokens_field="max_output_tokens")
