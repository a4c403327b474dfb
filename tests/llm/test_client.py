"""The OpenAI-compatible client over real HTTP: retries, retry-after, infra errors, cache, usage, limits."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from execmem.llm.cache import ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.llm.config import ModelConfig
from execmem.llm.errors import InfraError
from execmem.testing.fake_server import FakeServer, Fault, Reply, ToolCallSpec, scripted

MESSAGES = [{"role": "user", "content": "hello"}]


def _model(server: FakeServer, **overrides) -> OpenAIChatModel:
    settings = {
        "model": "m",
        "base_url": server.base_url,
        "backoff_base_s": 0.01,
        "timeout_s": 2.0,
    } | overrides
    return OpenAIChatModel(ModelConfig(**settings), cache=overrides.pop("cache", None))


def _complete(model: OpenAIChatModel, tools=None):
    async def go():
        try:
            return await model.complete(MESSAGES, tools)
        finally:
            await model.aclose()

    return asyncio.run(go())


def test_tool_calls_and_usage_are_read():
    reply = Reply(tool_calls=[ToolCallSpec("f", {"a": 1})], usage=(120, 7))
    with FakeServer(scripted([reply])) as server:
        result = _complete(_model(server))
    assert result.tool_calls[0].name == "f" and result.tool_calls[0].arguments == '{"a": 1}'
    assert (result.usage.input_tokens, result.usage.output_tokens) == (120, 7)
    assert server.requests[0]["temperature"] == 0.0


def test_retry_after_is_honoured():
    faults = [Fault(429, headers={"retry-after": "0.3"}), Reply(content="ok")]
    with FakeServer(scripted(faults)) as server:
        model = _model(server)
        started = time.perf_counter()
        result = _complete(model)
    assert result.content == "ok" and time.perf_counter() - started >= 0.3
    assert model.stats.retries == 1 and len(server.requests) == 2


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
@pytest.mark.parametrize(
    "fault",
    [Fault(500), Fault(503), Fault(drop_connection=True), Fault(malformed_body=True), Fault(delay_s=1.0)],
)
def test_transient_faults_are_retried(fault, transport):
    with FakeServer(scripted([fault, Reply(content="ok")])) as server:
        result = _complete(_model(server, timeout_s=0.4, transport=transport))
    assert result.content == "ok"


def test_exhausted_retries_raise_infra_error_with_reason():
    with FakeServer(scripted([Fault(503)])) as server:
        model = _model(server, max_retries=2)
        with pytest.raises(InfraError) as info:
            _complete(model)
    assert info.value.attempts == 3 and "503" in info.value.reason and len(server.requests) == 3


def test_client_errors_are_not_retried():
    with FakeServer(scripted([Fault(400)])) as server, pytest.raises(InfraError, match="400"):
        _complete(_model(server))
    assert len(server.requests) == 1


def test_cache_answers_identical_requests(tmp_path):
    with FakeServer(scripted([Reply(content="first"), Reply(content="second")])) as server:
        cache = ResponseCache(tmp_path / "cache.sqlite")
        first = _complete(OpenAIChatModel(ModelConfig(model="m", base_url=server.base_url), cache))
        again = _complete(OpenAIChatModel(ModelConfig(model="m", base_url=server.base_url), cache))
        other = _complete(
            OpenAIChatModel(ModelConfig(model="m", base_url=server.base_url, temperature=0.5), cache)
        )
    assert (first.content, again.content, other.content) == ("first", "first", "second")
    assert again.cached and again.usage == first.usage and len(server.requests) == 2


def test_concurrency_limit_holds():
    in_flight, peak, lock = 0, 0, threading.Lock()

    def policy(body):
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.05)
        with lock:
            in_flight -= 1
        return Reply(content="ok")

    with FakeServer(policy) as server:
        model = _model(server, max_connections=3)

        async def many():
            try:
                await asyncio.gather(
                    *(model.complete([{"role": "user", "content": str(i)}]) for i in range(12))
                )
            finally:
                await model.aclose()

        asyncio.run(many())
    assert peak == 3


def test_api_key_comes_from_the_named_variable(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-test-123")
    config = ModelConfig(model="m", api_key_env="MY_KEY")
    assert config.api_key() == "sk-test-123"
    assert "sk-test-123" not in str(config.describe())
