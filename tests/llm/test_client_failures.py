"""What the client makes of each way an endpoint fails, over real HTTP against the fake server."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest

from execmem.llm.cache import ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.llm.config import ModelConfig
from execmem.llm.errors import (
    AuthError,
    ContextOverflow,
    EndpointError,
    EndpointNotFound,
    EndpointUnreachable,
    InfraError,
    ServerDefect,
)
from execmem.testing.fake_llamacpp import overflow_body
from execmem.testing.fake_server import FakeServer, Fault, Reply, error_body, scripted

MESSAGES = [{"role": "user", "content": "hello"}]
KEY = "sk-test-0123456789abcdef"


def _model(base_url: str, cache: ResponseCache | None = None, **overrides) -> OpenAIChatModel:
    settings = {"model": "m", "base_url": base_url, "backoff_base_s": 0.01, "timeout_s": 2.0}
    return OpenAIChatModel(ModelConfig(**settings | overrides), cache)


def _run(model: OpenAIChatModel, call):
    async def go():
        try:
            return await call(model)
        finally:
            await model.aclose()

    return asyncio.run(go())


def _complete(model: OpenAIChatModel):
    return _run(model, lambda m: m.complete(MESSAGES))


def _probe(model: OpenAIChatModel):
    return _run(model, lambda m: m.probe())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_same_500_twice_is_a_server_defect_not_minutes_of_retries():
    validation = Fault(500, body=error_body(500, "7 validation errors for CreateChatCompletionRequest"))
    with FakeServer(scripted([validation])) as server:
        model = _model(server.base_url, max_retries=6, backoff_base_s=0.2)
        started = time.perf_counter()
        with pytest.raises(ServerDefect, match="7 validation errors") as info:
            _complete(model)
    assert len(server.requests) == 2 and info.value.attempts == 2
    assert time.perf_counter() - started < 3.0  # six backoffs from 0.2 s would take over 12 s
    assert list(model.stats.defects.values()) == [1]


def test_different_500s_are_retried_as_outages():
    faults = [Fault(500, body=error_body(500, f"overloaded {i}")) for i in range(3)]
    with FakeServer(scripted([*faults, Reply(content="ok")])) as server:
        reply = _complete(_model(server.base_url))
    assert reply.content == "ok" and reply.attempts == 4 and len(server.requests) == 4


@pytest.mark.parametrize(
    "body",
    [
        overflow_body(8192, 8534, None),  # llama-cpp-python / OpenAI: code context_length_exceeded
        error_body(400, "This model's maximum context length is 4096 tokens. However, you requested 5000"),
        error_body(400, "the request exceeds the available context size, try increasing it"),
    ],
)
def test_a_prompt_over_the_window_is_the_models_limit_not_retried(body):
    server = FakeServer(scripted([Fault(400, body=body)]))
    with server, pytest.raises(ContextOverflow, match="HTTP 400"):
        _complete(_model(server.base_url))
    assert len(server.requests) == 1


def test_other_400s_are_infra_errors_without_retries():
    server = FakeServer(scripted([Fault(400, body=error_body(400, "temperature must be <= 2"))]))
    with server, pytest.raises(InfraError, match="temperature") as info:
        _complete(_model(server.base_url))
    assert not isinstance(info.value, ServerDefect) and len(server.requests) == 1


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_stops_at_once(status):
    with FakeServer(scripted([Fault(status)])) as server, pytest.raises(AuthError, match=str(status)):
        _complete(_model(server.base_url))
    assert len(server.requests) == 1


def test_probe_passes_without_reaching_the_policy():
    with FakeServer(scripted([Reply(content="scripted")])) as server:
        _probe(_model(server.base_url))
    assert len(server.probes) == 1 and server.requests == []


def test_probe_of_a_refused_connection_fails_within_seconds():
    model = _model(f"http://127.0.0.1:{_free_port()}/v1", max_retries=6, backoff_base_s=1.0)
    started = time.perf_counter()
    with pytest.raises(EndpointUnreachable, match="nothing answers at http://127.0.0.1"):
        _probe(model)
    assert time.perf_counter() - started < 5.0  # six backoffs from 1 s would take a minute


def test_probe_names_an_unknown_model_and_a_wrong_key(monkeypatch):
    monkeypatch.setenv("EXECMEM_TEST_KEY", KEY)
    with FakeServer(scripted([Reply(content="x")]), serves=["served"], api_key=KEY) as server:
        with pytest.raises(EndpointNotFound, match="model `m` does not exist"):
            _probe(_model(server.base_url, api_key_env="EXECMEM_TEST_KEY"))
        with pytest.raises(AuthError, match="401"):
            _probe(_model(server.base_url, model="served", api_key_env="NO_SUCH_VARIABLE"))
        _probe(_model(server.base_url, model="served", api_key_env="EXECMEM_TEST_KEY"))
    assert server.requests == [] and len(server.probes) == 1


def test_a_body_that_does_not_parse_is_retried_and_never_cached(tmp_path):
    broken = json.dumps(
        {"choices": [{"message": {"role": "assistant", "content": "x"}}], "usage": {"prompt_tokens": "lots"}}
    )
    cache = ResponseCache(tmp_path / "cache.sqlite")
    server = FakeServer(scripted([Fault(200, body=broken)]))
    with server, pytest.raises(InfraError, match="usage.prompt_tokens is 'lots'"):
        _complete(_model(server.base_url, cache, max_retries=1))
    cache.close()
    assert len(server.requests) == 2
    reopened = ResponseCache(tmp_path / "cache.sqlite")
    assert reopened._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 0  # noqa: SLF001
    with FakeServer(scripted([Reply(content="fine")])) as server:
        assert _complete(_model(server.base_url, reopened)).content == "fine"


def test_a_broken_body_cached_by_an_older_version_is_asked_again(tmp_path):
    model_config = ModelConfig(model="m", base_url="http://unused/v1")
    request = OpenAIChatModel(model_config).request(MESSAGES)
    cache = ResponseCache(tmp_path / "cache.sqlite")
    from execmem.llm.cache import request_key

    cache.put(request_key(request), {"choices": [{"message": {"content": 3}}]})
    with FakeServer(scripted([Reply(content="fresh")])) as server:
        reply = _complete(_model(server.base_url, cache))
    assert reply.content == "fresh" and not reply.cached and len(server.requests) == 1


def test_the_api_key_is_masked_wherever_an_endpoint_echoes_it(tmp_path, monkeypatch):
    monkeypatch.setenv("EXECMEM_TEST_KEY", KEY)
    cache = ResponseCache(tmp_path / "cache.sqlite")
    replies = [Fault(503), Reply(content=f"your key is {KEY}"), Fault(400)]
    with FakeServer(scripted(replies, repeat_last=True), echo_auth=True) as server:
        model = _model(server.base_url, cache, api_key_env="EXECMEM_TEST_KEY", max_retries=0)
        with pytest.raises(InfraError) as failed:
            _complete(model)
        model = _model(server.base_url, cache, api_key_env="EXECMEM_TEST_KEY")
        reply = _complete(model)
        with pytest.raises(InfraError) as refused:
            _run(model, lambda m: m.complete([{"role": "user", "content": "again"}]))
    cache.close()
    assert "Authorization: Bearer ***" in failed.value.reason and KEY not in failed.value.reason
    assert "Bearer ***" in refused.value.reason and KEY not in refused.value.reason
    assert reply.content == "your key is ***"
    assert KEY.encode() not in (tmp_path / "cache.sqlite").read_bytes()


def test_a_refused_key_echoed_back_is_masked_too(monkeypatch):
    monkeypatch.setenv("EXECMEM_TEST_KEY", KEY)
    server = FakeServer(scripted([Reply(content="x")]), api_key="another-key-entirely", echo_auth=True)
    with server, pytest.raises(AuthError) as info:
        _probe(_model(server.base_url, api_key_env="EXECMEM_TEST_KEY"))
    assert "Bearer ***" in str(info.value) and KEY not in str(info.value)


def test_probe_names_a_server_that_refuses_tool_calls():
    """vLLM started without --enable-auto-tool-choice refuses tool_choice "auto" with a 400."""
    refusal = error_body(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser')

    def vllm_without_flags(body):
        return Fault(400, body=refusal) if body.get("tool_choice") else Reply(content="OK")

    with FakeServer(vllm_without_flags, answer_probes=False) as server:
        with pytest.raises(EndpointError, match="refuses tool calls .*--enable-auto-tool-choice"):
            _probe(_model(server.base_url))
        _probe(_model(server.base_url, tool_choice="omit"))
    assert server.requests[0]["tool_choice"] == "auto" and "tool_choice" not in server.requests[1]
    other = Fault(400, body=error_body(400, "Unsupported parameter: 'max_tokens'"))
    with FakeServer(scripted([other]), answer_probes=False) as server:
        _probe(_model(server.base_url))  # other refusals are left for the run's requests


def test_probe_of_a_slow_server_gives_way_to_the_run():
    with FakeServer(lambda body: Reply(content="OK", delay_s=3.0), answer_probes=False) as server:
        started = time.perf_counter()
        _probe(_model(server.base_url, timeout_s=0.3, max_retries=6))
    assert time.perf_counter() - started < 2.5 and len(server.requests) == 1  # not the 3 s reply
