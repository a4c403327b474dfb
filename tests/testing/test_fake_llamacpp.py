"""The llama-cpp-python-like mode of the fake server, met by the real client over HTTP."""

from __future__ import annotations

import subprocess
import sys

import pytest

from execmem.llm.errors import ContextOverflow, ServerDefect
from execmem.testing.fake_llamacpp import LlamaCppLike
from execmem.testing.fake_server import FakeServer, Reply, ToolCallSpec, scripted
from tests.llm.support import HELLO, TOOLS, ask


def _calls_f():
    return scripted([Reply(tool_calls=[ToolCallSpec("f", {"x": 1})])])


def _ask(server, messages=HELLO, tools=TOOLS, **overrides):
    return ask(server.base_url, messages, tools, **overrides)


def test_tools_are_ignored_unless_tool_choice_is_sent():
    policy = LlamaCppLike(scripted([Reply(tool_calls=[ToolCallSpec("f", {"x": 1})])]))
    with FakeServer(policy) as server:
        ignored = _ask(server, tool_choice="omit")
        used = _ask(server)
    assert ignored.tool_calls == () and ignored.content == 'To do this I would use f({"x": 1}).'
    assert [c.name for c in used.tool_calls] == ["f"] and policy.ignored_tools == 1
    assert ignored.usage.input_tokens < used.usage.input_tokens  # the tools never reached the prompt


def test_null_assistant_content_is_a_500_validation_error_every_time():
    after_call = [*HELLO, {"role": "assistant", "content": None}, {"role": "user", "content": "and?"}]
    with FakeServer(LlamaCppLike(_calls_f())) as server:
        with pytest.raises(ServerDefect, match="7 validation errors"):
            _ask(server, after_call, null_content="null", backoff_base_s=0.01)
        assert len(server.requests) == 2
        assert _ask(server, after_call).tool_calls  # sent as "" it is accepted


def test_a_prompt_over_the_window_is_refused_with_400():
    long = [{"role": "user", "content": "word " * 3000}]
    with FakeServer(LlamaCppLike(_calls_f(), window=2048)) as server:
        with pytest.raises(ContextOverflow, match="maximum context length is 2048"):
            _ask(server, long)
        with pytest.raises(ContextOverflow):
            _ask(server, [{"role": "user", "content": "word " * 1100}], max_tokens=1500)
        assert _ask(server, [{"role": "user", "content": "word " * 1100}]).tool_calls


def test_a_runaway_reply_stops_at_the_cap_or_at_the_window():
    policy = LlamaCppLike(scripted([Reply(content="Done.")]), window=1000, runaway=True)
    with FakeServer(policy) as server:
        capped = _ask(server, max_tokens=32)
        uncapped = _ask(server)
    assert capped.finish_reason == "length" and capped.usage.output_tokens == 32
    assert uncapped.finish_reason == "length"
    assert uncapped.usage.input_tokens + uncapped.usage.output_tokens == 1000


def test_the_server_command_serves_the_mode(tmp_path):
    command = [sys.executable, "-m", "execmem.testing.fake_server", "--policy",
               "tests.testing.test_fake_server:constant", "--arg", "text=hi", "--mode", "llama-cpp",
               "--window", "64"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        base_url = process.stdout.readline().split()[1]
        server = type("Running", (), {"base_url": base_url})()
        with pytest.raises(ContextOverflow, match="maximum context length is 64"):
            _ask(server, [{"role": "user", "content": "word " * 100}])
        assert _ask(server).content == "hi"
    finally:
        process.terminate()
        process.wait(timeout=10)
