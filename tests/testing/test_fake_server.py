"""The fake OpenAI server, exercised through the real openai SDK over real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import math
import subprocess
import sys
import threading
import time
from pathlib import Path

import openai
import pytest

from execmem.testing.fake_server import (
    FakeServer,
    Fault,
    Policy,
    Reply,
    ScriptExhausted,
    ToolCallSpec,
    echo,
    hashed_embedding,
    scripted,
    with_faults,
    with_latency,
)

REPO = Path(__file__).resolve().parents[2]
HELLO = [{"role": "user", "content": "hello"}]


def constant(text: str) -> Policy:
    """A factory for the subprocess test: always reply ``text``."""
    return scripted([Reply(content=text)])


def client(server: FakeServer, **options) -> openai.OpenAI:
    options = {"max_retries": 0, **options}
    return openai.OpenAI(base_url=server.base_url, api_key="test", **options)


def ask(server: FakeServer, **options):
    with client(server, **options) as sdk:
        return sdk.chat.completions.create(model="m", messages=HELLO)


def test_content_reply_and_estimated_usage():
    with FakeServer(scripted([Reply(content="hi there")])) as server:
        completion = ask(server)
    assert completion.object == "chat.completion"
    assert completion.model == "m"
    choice = completion.choices[0]
    assert (choice.message.role, choice.message.content, choice.finish_reason) == (
        "assistant",
        "hi there",
        "stop",
    )
    assert choice.message.tool_calls is None
    prompt_chars = len(json.dumps({"messages": HELLO, "tools": []}))
    assert completion.usage.prompt_tokens == math.ceil(prompt_chars / 4)
    assert (
        completion.usage.total_tokens == completion.usage.prompt_tokens + completion.usage.completion_tokens
    )


def test_tool_call_reply_and_explicit_usage():
    reply = Reply(tool_calls=[ToolCallSpec("set_fan", {"level": 3})], usage=(10, 5))
    with FakeServer(scripted([reply])) as server:
        completion = ask(server)
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    call = choice.message.tool_calls[0]
    assert (call.type, call.function.name, json.loads(call.function.arguments)) == (
        "function",
        "set_fan",
        {"level": 3},
    )
    assert call.id
    assert (completion.usage.prompt_tokens, completion.usage.total_tokens) == (10, 15)


def test_ids_depend_on_the_request_not_on_arrival_order():
    reply = Reply(tool_calls=[ToolCallSpec("f", {}), ToolCallSpec("g", {})])
    with FakeServer(scripted([reply])) as first, FakeServer(scripted([reply])) as second:
        ask(first)  # shifts any arrival counter on the first server
        a, b = ask(first), ask(second)
    assert a.id == b.id
    assert [c.id for c in a.choices[0].message.tool_calls] == [c.id for c in b.choices[0].message.tool_calls]
    assert len({c.id for c in a.choices[0].message.tool_calls}) == 2


def test_malformed_arguments_are_delivered_verbatim():
    with FakeServer(scripted([Reply(tool_calls=[ToolCallSpec("f", "{'level': 3,")])])) as server:
        completion = ask(server)
    assert completion.choices[0].message.tool_calls[0].function.arguments == "{'level': 3,"


def test_requests_records_bodies_in_order():
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    with FakeServer(echo()) as server, client(server) as sdk:
        first = sdk.chat.completions.create(model="m", messages=HELLO, tools=tools)
        second = sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "again"}])
    assert (first.choices[0].message.content, second.choices[0].message.content) == ("hello", "again")
    assert [body["messages"][-1]["content"] for body in server.requests] == ["hello", "again"]
    assert server.requests[0]["tools"] == tools


def test_models_endpoint():
    with FakeServer(echo(), model="tiny") as server, client(server) as sdk:
        assert [model.id for model in sdk.models.list().data] == ["tiny"]


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_embeddings_through_the_sdk_float_and_base64():
    texts = ["the seat heater is on", "turn the seat heater on", "navigate to the airport"]
    with FakeServer(echo()) as server, client(server) as sdk:
        floats = sdk.embeddings.create(model="emb", input=texts, encoding_format="float")
        decoded = sdk.embeddings.create(model="emb", input=texts)  # the SDK asks for base64 by default
        single = sdk.embeddings.create(model="emb", input="hello", dimensions=16)
    assert [d.index for d in floats.data] == [0, 1, 2]
    assert floats.model == "emb" and floats.usage.prompt_tokens == floats.usage.total_tokens > 0
    vectors = [d.embedding for d in floats.data]
    assert all(len(v) == 384 and math.isclose(_cosine(v, v), 1.0, rel_tol=1e-6) for v in vectors)
    assert _cosine(vectors[0], vectors[1]) > 0.5 > abs(_cosine(vectors[0], vectors[2]))
    assert vectors == [hashed_embedding(t) for t in texts]
    for got, want in zip(decoded.data, vectors, strict=True):
        assert got.embedding == pytest.approx(want, abs=1e-6)
    assert len(single.data[0].embedding) == 16
    assert [body["input"] for body in server.embedding_requests] == [texts, texts, "hello"]
    assert server.requests == []  # chat requests only


def test_embeddings_reject_token_input_and_a_wordless_text_still_has_a_direction():
    with FakeServer(echo(), embedding_dim=8) as server, client(server) as sdk:
        with pytest.raises(openai.BadRequestError):
            sdk.embeddings.create(model="emb", input=[[1, 2, 3]])
        vector = sdk.embeddings.create(model="emb", input="?!", encoding_format="float").data[0].embedding
    assert len(vector) == 8 and math.isclose(_cosine(vector, vector), 1.0)


def test_rate_limit_carries_retry_after():
    rate_limited = scripted([Fault(429, headers={"retry-after": "0.05"})])
    with FakeServer(rate_limited) as server, pytest.raises(openai.RateLimitError) as caught:
        ask(server)
    assert caught.value.response.headers["retry-after"] == "0.05"
    assert caught.value.code == "rate_limit_exceeded"


def test_server_error():
    with FakeServer(scripted([Fault(500)])) as server, pytest.raises(openai.InternalServerError):
        ask(server)


def test_delay_beyond_client_timeout_times_out():
    with FakeServer(scripted([Reply(content="late", delay_s=3.0)])) as server:
        started = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            ask(server, timeout=0.2)
    assert time.monotonic() - started < 2.0  # stop() wakes the sleeping handler instead of waiting


def test_dropped_connection():
    with (
        FakeServer(scripted([Fault(drop_connection=True)])) as server,
        pytest.raises(openai.APIConnectionError),
    ):
        ask(server)


def test_malformed_body_raises_json_decode_error():
    # The SDK does not wrap this one: a 200 with a non-JSON body escapes as json.JSONDecodeError.
    with FakeServer(scripted([Fault(malformed_body=True)])) as server, pytest.raises(json.JSONDecodeError):
        ask(server)


def test_stream_requests_are_rejected():
    with FakeServer(echo()) as server, client(server) as sdk, pytest.raises(openai.BadRequestError):
        sdk.chat.completions.create(model="m", messages=HELLO, stream=True)
    assert server.requests[0]["stream"] is True


def test_policy_exception_becomes_500_and_is_logged():
    def broken(body: dict) -> Reply:
        raise RuntimeError("policy exploded")

    with FakeServer(broken) as server, pytest.raises(openai.InternalServerError) as caught:
        ask(server)
    assert "policy exploded" in str(caught.value)
    assert len(server.errors) == 1 and "RuntimeError: policy exploded" in server.errors[0]


def test_scripted_runs_in_order_then_repeats_or_raises():
    replies = [Reply(content="a"), Reply(content="b")]
    repeating, strict = scripted(replies), scripted(replies, repeat_last=False)
    assert [repeating({}).content for _ in range(4)] == ["a", "b", "b", "b"]
    assert [strict({}).content for _ in range(2)] == ["a", "b"]
    with pytest.raises(ScriptExhausted):
        strict({})


def test_concurrent_requests_overlap():
    async def wave(server: FakeServer) -> list[str]:
        async with openai.AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0) as sdk:
            calls = [
                sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": str(i)}])
                for i in range(64)
            ]
            return [c.choices[0].message.content for c in await asyncio.gather(*calls)]

    with FakeServer(with_latency(echo(), 0.5)) as server:
        contents = asyncio.run(wave(server))
    assert contents == [str(i) for i in range(64)]
    assert len(server.requests) == 64
    assert server.max_in_flight >= 16  # answered side by side, not one after another (no clock read)


def _fault_pattern(seed: int) -> list[bool]:
    injector = with_faults(echo(), rate=0.3, seed=seed)
    return [
        isinstance(injector({"messages": [{"role": "user", "content": str(i)}]}), Fault) for i in range(400)
    ]


def test_with_faults_is_deterministic_and_respects_rate():
    pattern = _fault_pattern(seed=7)
    assert pattern == _fault_pattern(seed=7)
    assert pattern != _fault_pattern(seed=8)
    assert 80 < sum(pattern) < 160


def test_with_faults_lets_the_retry_succeed():
    injector = with_faults(echo(), rate=1.0, seed=1, faulty_attempts=2)
    body = {"messages": HELLO}
    assert isinstance(injector(body), Fault) and isinstance(injector(body), Fault)
    assert injector(body) == Reply(content="hello")
    assert sum(injector.injected.values()) == 2
    with pytest.raises(ValueError, match="unknown fault kinds"):
        with_faults(echo(), rate=0.5, seed=1, kinds=("503",))


def test_with_faults_retried_over_http():
    injector = with_faults(echo(), rate=1.0, seed=3, kinds=("429",), retry_after_s=0.01)
    with FakeServer(injector) as server:
        with pytest.raises(openai.RateLimitError):
            ask(server)
        assert ask(server).choices[0].message.content == "hello"  # a manual retry of the same body
        with client(server, max_retries=1) as sdk:  # the SDK's own retry, after retry-after
            retried = sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "new"}])
    assert retried.choices[0].message.content == "new"
    assert injector.injected == {"429": 2}
    assert len(server.requests) == 4


def test_subprocess_entry_point_prints_ready_and_serves():
    command = [sys.executable, "-m", "execmem.testing.fake_server", "--policy", f"{__name__}:constant"]
    command += ["--arg", "text=from subprocess", "--latency", "0.01"]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True)
    watchdog = threading.Timer(10, process.kill)
    watchdog.start()
    try:
        ready = process.stdout.readline().split()
        assert ready[0] == "READY" and ready[1].startswith("http://127.0.0.1:")
        with openai.OpenAI(base_url=ready[1], api_key="test", max_retries=0) as sdk:
            completion = sdk.chat.completions.create(model="m", messages=HELLO)
        assert completion.choices[0].message.content == "from subprocess"
        process.terminate()
        assert process.wait(timeout=5) == 0
    finally:
        watchdog.cancel()
        process.kill()
        process.stdout.close()


def serve(*args: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "execmem.testing.fake_server", *args]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_data_option_serves_the_vehicle_oracle(vehicle_data):
    from execmem.suites.vehicle.dataset import load_questions
    from execmem.suites.vehicle.world import TOOLS

    question = load_questions(vehicle_data, [1])[0]
    process = serve("--data", str(vehicle_data))
    watchdog = threading.Timer(30, process.kill)
    watchdog.start()
    try:
        ready = process.stdout.readline().split()
        assert ready[0] == "READY" and ready[1].startswith("http://127.0.0.1:")
        request = [{"role": "user", "content": f"Request: {question.query}"}]
        with openai.OpenAI(base_url=ready[1], api_key="test", max_retries=0) as sdk:
            reply = sdk.chat.completions.create(model="m", messages=request).choices[0].message
        listed = {json.loads(call.function.arguments)["module_name"] for call in reply.tool_calls}
        assert {TOOLS[call.name].module for call in question.gold_calls} == listed
        process.terminate()
        assert process.wait(timeout=5) == 0
    finally:
        watchdog.cancel()
        process.kill()
        process.stdout.close()
        process.stderr.close()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--data", "/no/such/folder"], "VehicleMemBench data not found in /no/such/folder"),
        (["--data", "/no/such/folder", "--policy", "reader"], "VehicleMemBench data not found in /no/such"),
        (
            ["--data", "/tmp", "--policy", "execmem.testing.fake_server:echo"],
            "unexpected keyword argument 'data'",
        ),
    ],
)
def test_bad_data_option_is_one_line_and_exit_2(args, fragment):
    process = serve(*args)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 2 and fragment in stderr and "Traceback" not in stderr


def test_held_after_answers_n_requests_then_holds_the_rest_until_released():
    from execmem.testing.fake_policies import HeldAfter

    held = HeldAfter(echo(), 2, hold_s=30.0)
    body = {"messages": [{"role": "user", "content": "x"}]}
    assert held(body).content == "x" and held(body).content == "x"
    answers: list[str] = []
    later = threading.Thread(target=lambda: answers.append(held(body).content))
    later.start()
    later.join(timeout=0.3)
    assert later.is_alive() and answers == []  # the third request waits ...
    held.release()
    later.join(timeout=10)
    assert answers == ["x"]  # ... and is answered once released
