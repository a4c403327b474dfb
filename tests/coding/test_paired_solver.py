"""The solver loop over real HTTP (fake server) and a real subprocess: submission, budgets, errors, slot."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from execmem.agents.coding.bash_tool import truncate_middle
from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.prompts import MEMORY_OPEN, first_user_message, memory_slot_text
from execmem.agents.coding.solver import solve
from execmem.llm.client import OpenAIChatModel
from execmem.llm.config import ModelConfig
from execmem.suites.coding.sandbox.local import UnsafeLocalSandbox
from execmem.testing.coding_policies import bash
from execmem.testing.fake_server import FakeServer, Reply, ToolCallSpec, scripted


class FolderRunner:
    """Commands in a scratch folder (no isolation needed: the commands are the test's own)."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.sandbox = folder, UnsafeLocalSandbox()

    def run(self, command: str, timeout_s: float):
        return self.sandbox.run(command, self.folder, timeout_s)


def run_solver(policy, folder: Path, memory: str | None = None, **budgets):
    steps: list[dict] = []

    async def go():
        model = OpenAIChatModel(ModelConfig(model="fake", base_url=server.base_url, max_retries=0))
        try:
            return await solve(
                model, FolderRunner(folder), "fix it", memory, SolverConfig(**budgets), steps.append
            )
        finally:
            await model.aclose()

    with FakeServer(policy) as server:
        result = asyncio.run(go())
        return result, steps, server.requests


def test_submit_command_ends_the_episode_and_files_stay_changed(tmp_path):
    policy = scripted([bash("echo fixed > out.txt"), bash("echo EXECMEM_SUBMIT"), bash("rm out.txt")])
    result, steps, requests = run_solver(policy, tmp_path)
    assert result.end_reason == "submitted" and result.steps == 2 and len(requests) == 2
    assert (tmp_path / "out.txt").read_text() == "fixed\n"
    assert [s["step"] for s in steps] == [1, 2] and steps[1]["tool_results"][0]["submitted"]
    assert result.usage.input_tokens > 0 and result.commands == 2


def test_sentinel_must_start_the_output_to_submit(tmp_path):
    policy = scripted([bash("echo not EXECMEM_SUBMIT"), Reply(content="Done. EXECMEM_SUBMIT")])
    result, steps, _ = run_solver(policy, tmp_path)
    assert not steps[0]["tool_results"][0]["submitted"]
    assert result.end_reason == "submitted" and result.steps == 2 and result.commands == 1


def test_replies_without_tool_calls_get_a_reminder_until_the_step_budget(tmp_path):
    result, _, requests = run_solver(scripted([Reply(content="thinking")]), tmp_path, max_steps=3)
    assert result.end_reason == "max_steps" and result.errors["no_tool_call"] == 3
    assert requests[1]["messages"][-1]["content"].startswith("Call the `bash` tool")


def test_bad_tool_calls_are_fed_back_and_counted(tmp_path):
    policy = scripted(
        [
            Reply(tool_calls=[ToolCallSpec("python", {"code": "1"})]),
            Reply(tool_calls=[ToolCallSpec("bash", "{not json")]),
            Reply(tool_calls=[ToolCallSpec("bash", {"cmd": "ls"})]),
            bash("echo EXECMEM_SUBMIT"),
        ]
    )
    result, _, requests = run_solver(policy, tmp_path)
    assert dict(result.errors) == {"unknown_tool": 1, "malformed_arguments": 2}
    assert result.end_reason == "submitted" and result.commands == 1
    assert requests[1]["messages"][-1] == {
        "role": "tool",
        "tool_call_id": requests[1]["messages"][-2]["tool_calls"][0]["id"],
        "content": "error: unknown tool 'python'; the only tool is bash",
    }


def test_token_budget_stops_the_loop(tmp_path):
    policy = scripted([Reply(tool_calls=[ToolCallSpec("bash", {"command": "true"})], usage=(900, 100))])
    result, _, _ = run_solver(policy, tmp_path, max_total_tokens=2500)
    assert result.end_reason == "token_limit" and result.steps == 3
    assert result.usage.input_tokens == 2700


def test_context_budget_stops_before_an_oversized_prompt(tmp_path):
    policy = scripted([bash("python3 -c \"print('x' * 50000)\"")])
    result, steps, requests = run_solver(policy, tmp_path, output_chars=4000, context_tokens=1000)
    assert result.end_reason == "context_limit" and result.steps == 1 and len(requests) == 1
    assert len(steps[0]["tool_results"][0]["output"]) == 4000


def test_a_command_that_never_ends_is_killed_at_the_time_limit(tmp_path):
    started = time.monotonic()
    result, steps, requests = run_solver(
        scripted([bash("sleep 600")]), tmp_path, time_limit_s=1.5, command_timeout_s=300
    )
    assert result.end_reason == "time_limit" and len(requests) == 1
    assert steps[0]["tool_results"][0]["timed_out"] and time.monotonic() - started < 10


def test_memory_goes_only_into_the_first_user_message(tmp_path):
    policy = scripted([bash("echo EXECMEM_SUBMIT")])
    _, _, requests = run_solver(policy, tmp_path, memory="earlier fix: calc/core.py")
    messages = requests[0]["messages"]
    assert memory_slot_text(messages[1]["content"]) == "earlier fix: calc/core.py"
    assert [MEMORY_OPEN in m["content"] for m in messages] == [False, True]
    _, _, requests = run_solver(policy, tmp_path, memory=None)
    assert memory_slot_text(requests[0]["messages"][1]["content"]) is None
    assert first_user_message("fix it", None) in first_user_message("fix it", "x")


@pytest.mark.parametrize("size", [0, 199, 200, 5000])
def test_output_is_cut_in_the_middle_to_the_limit(size):
    text = "".join(chr(97 + i % 26) for i in range(size))
    cut = truncate_middle(text, 200)
    assert len(cut) == min(size, 200) and cut[:10] == text[:10] and cut[-10:] == text[-10:]
