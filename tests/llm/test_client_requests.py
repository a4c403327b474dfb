"""What the client sends (tool_choice, assistant text, output cap) and what it records per call."""

from __future__ import annotations

import asyncio
import time

import pytest

from execmem.llm.client import OpenAIChatModel
from execmem.llm.config import ModelConfig
from execmem.testing.fake_server import FakeServer, Fault, Reply, ToolCallSpec, scripted
from tests.llm.support import TOOLS, ask

AFTER_A_TOOL_CALL = [
    {"role": "user", "content": "hello"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                           "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "{}"},
]  # fmt: skip


def _ask(server, messages=AFTER_A_TOOL_CALL, tools=TOOLS, **overrides):
    return ask(server.base_url, messages, tools, **overrides)


@pytest.mark.parametrize(("setting", "sent"), [("auto", "auto"), ("required", "required"), ("omit", None)])
def test_tool_choice_goes_with_the_tools(setting, sent):
    with FakeServer(scripted([Reply(content="ok")])) as server:
        _ask(server, tool_choice=setting)
        _ask(server, tools=None, tool_choice=setting)
    with_tools, without = server.requests
    assert with_tools.get("tool_choice") == sent and "tool_choice" not in without and "tools" not in without


def test_an_assistant_message_without_text_is_sent_as_an_empty_string():
    with FakeServer(scripted([Reply(content="ok")])) as server:
        _ask(server)
        _ask(server, null_content="null")
    empty, null = (r["messages"][1] for r in server.requests)
    assert empty["content"] == "" and empty["tool_calls"] and null["content"] is None
    assert AFTER_A_TOOL_CALL[1]["content"] is None  # the caller's conversation is left as it was


def test_the_output_cap_is_sent_and_a_cut_reply_says_so():
    cut = Reply(content="and and and", finish_reason="length", usage=(10, 16))
    with FakeServer(scripted([cut])) as server:
        reply = _ask(server, max_tokens=16)
    assert server.requests[0]["max_tokens"] == 16
    assert reply.finish_reason == "length" and reply.usage.output_tokens == 16


def test_queue_wait_is_not_model_latency():
    slow = Reply(content="ok", delay_s=0.3)
    with FakeServer(scripted([slow])) as server:
        model = OpenAIChatModel(ModelConfig(model="m", base_url=server.base_url, max_connections=1))

        async def two():
            try:
                return await asyncio.gather(
                    model.complete([{"role": "user", "content": "a"}]),
                    model.complete([{"role": "user", "content": "b"}]),
                )
            finally:
                await model.aclose()

        first, second = asyncio.run(two())
    waited = max(first.queue_s, second.queue_s)
    assert waited >= 0.25 and min(first.queue_s, second.queue_s) < 0.1
    assert 0.25 <= first.latency_s < 0.5 and 0.25 <= second.latency_s < 0.5


def test_retry_waits_and_failed_attempts_are_not_model_latency():
    script = [Fault(429, headers={"retry-after": "0.4"}), Fault(503, delay_s=0.2), Reply(content="ok")]
    with FakeServer(scripted(script)) as server:
        started = time.perf_counter()
        reply = _ask(server, backoff_base_s=0.001)
        total = time.perf_counter() - started
    assert reply.attempts == 3 and reply.retry_wait_s >= 0.4 and reply.failed_s >= 0.2
    assert reply.latency_s < 0.3 and total - reply.latency_s >= 0.6  # 0.4 s asked for, 0.2 s failed


def test_a_tool_call_reply_keeps_its_finish_reason():
    with FakeServer(scripted([Reply(tool_calls=[ToolCallSpec("f", {})])])) as server:
        reply = _ask(server)
    assert reply.finish_reason == "tool_calls" and reply.attempts == 1 and reply.queue_s < 0.1
