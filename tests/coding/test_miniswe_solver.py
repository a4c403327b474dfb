"""mini-swe-agent as the coding solver, over real HTTP (the fake server) and real commands.

Its own loop and prompts; execmem's budgets, memory slot, token accounting and trajectories. The
end-to-end runs (the paired protocol through bubblewrap) are in ``test_miniswe_runs.py``.
"""

from __future__ import annotations

import asyncio
import json
import time
from importlib.util import find_spec

import pytest

from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.prompts import MEMORY_OPEN, memory_slot_text
from execmem.agents.coding.solver import counter
from execmem.llm.client import OpenAIChatModel
from execmem.llm.config import ModelConfig
from execmem.llm.errors import InfraError
from execmem.testing.coding_policies import bash
from execmem.testing.fake_llamacpp import LlamaCppLike
from execmem.testing.fake_server import FakeServer, Fault, Reply, ToolCallSpec, scripted
from tests.coding.test_paired_solver import FolderRunner

pytestmark = pytest.mark.skipif(
    find_spec("minisweagent") is None, reason='mini-swe-agent missing: pip install -e ".[miniswe]"'
)
SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def run_mini(policy, folder, memory=None, **budgets):
    from execmem.agents.coding.miniswe.solver import MiniSweSolver

    steps: list[dict] = []
    solver = MiniSweSolver()

    async def go():
        model = OpenAIChatModel(ModelConfig(model="fake", base_url=server.base_url, max_retries=0))
        try:
            return await solver.solve(
                model, FolderRunner(folder), "fix it", memory, SolverConfig(**budgets), steps.append
            )
        finally:
            await model.aclose()

    with FakeServer(policy) as server:
        result = asyncio.run(go())
        return result, steps, server.requests, solver


def test_a_submitting_command_ends_the_episode_and_the_opening_is_what_was_sent(tmp_path):
    from execmem.agents.coding.miniswe.library import library

    policy = scripted([bash("echo fixed > out.txt"), bash(SUBMIT), bash("rm out.txt")])
    result, steps, requests, solver = run_mini(policy, tmp_path)
    assert result.end_reason == "submitted" and result.steps == 2 and len(requests) == 2
    assert (tmp_path / "out.txt").read_text() == "fixed\n" and result.commands == 2
    assert requests[0]["messages"] == solver.opening_messages("fix it", None)
    assert requests[0]["messages"][1]["content"].startswith("Please solve this issue: fix it")
    assert requests[0]["tools"] == [library().BASH_TOOL]
    observation = requests[1]["messages"][-1]
    assert observation["role"] == "tool"
    assert json.loads(observation["content"]) == {"returncode": 0, "output": ""}  # mini.yaml's template
    assert [s["step"] for s in steps] == [1, 2] and steps[1]["tool_results"][0]["submitted"]
    assert steps[0]["tool_results"][0]["command"] == "echo fixed > out.txt"
    assert result.usage.input_tokens == sum(s["input_tokens"] for s in steps) > 0
    assert result.messages[-1]["role"] == "exit"


def test_submission_needs_the_sentinel_as_first_line_and_exit_code_0(tmp_path):
    policy = scripted([bash(f"{SUBMIT}; false"), bash(f"echo not {SUBMIT}"), bash(SUBMIT)])
    result, steps, _, _ = run_mini(policy, tmp_path)
    assert result.end_reason == "submitted" and result.steps == 3
    assert [s["tool_results"][0]["submitted"] for s in steps] == [False, False, True]


def test_refused_replies_are_fed_back_with_mini_s_template_and_counted(tmp_path):
    replies = [
        Reply(content="thinking"),
        Reply(tool_calls=[ToolCallSpec("python", {"code": "1"})]),
        Reply(tool_calls=[ToolCallSpec("bash", "{not json")]),
        Reply(tool_calls=[ToolCallSpec("bash", {"cmd": "ls"})]),
    ]
    result, steps, requests, _ = run_mini(scripted(replies), tmp_path, max_steps=4)
    assert result.end_reason == "max_steps" and result.steps == 4 and len(requests) == 4
    assert dict(result.errors) == {"no_tool_call": 1, "unknown_tool": 1, "malformed_arguments": 2}
    fed_back = requests[1]["messages"][-1]
    assert fed_back["role"] == "user" and "No tool calls found in the response" in fed_back["content"]
    assert [m["role"] for m in requests[1]["messages"]] == [
        "system",
        "user",
        "user",
    ]  # the bad reply is dropped
    assert [s["tool_results"][0]["error"] for s in steps] == [
        "no_tool_call", "unknown_tool", "malformed_arguments", "malformed_arguments"
    ]  # fmt: skip


def test_the_built_in_solver_s_budgets_end_the_episode(tmp_path):
    heavy = scripted([Reply(tool_calls=[ToolCallSpec("bash", {"command": "true"})], usage=(900, 100))])
    result, _, _, _ = run_mini(heavy, tmp_path, max_total_tokens=2500)
    assert result.end_reason == "token_limit" and result.steps == 3 and result.usage.input_tokens == 2700

    from execmem.agents.coding.miniswe.solver import MiniSweSolver

    opening = json.dumps(MiniSweSolver().opening_messages("fix it", None), ensure_ascii=False)
    fits = counter("auto", "fake").count(opening) + 500  # the opening fits, 4,000 more characters do not
    flood = scripted([bash("python3 -c \"print('x' * 50000)\"")])
    result, steps, requests, _ = run_mini(flood, tmp_path, output_chars=4000, context_tokens=fits)
    assert result.end_reason == "context_limit" and result.steps == 1 and len(requests) == 1
    assert len(steps[0]["tool_results"][0]["output"]) == 4000

    started = time.monotonic()
    result, steps, requests, _ = run_mini(
        scripted([bash("sleep 600")]), tmp_path, time_limit_s=1.5, command_timeout_s=300
    )
    assert result.end_reason == "time_limit" and len(requests) == 1
    assert steps[0]["tool_results"][0]["timed_out"] and time.monotonic() - started < 10


def test_the_endpoint_s_window_ends_the_episode_as_the_model_s_limit(tmp_path):
    from execmem.agents.coding.miniswe.solver import MiniSweSolver

    opening = json.dumps(MiniSweSolver().opening_messages("fix it", None))
    window = len(opening) // 3 + 300  # the fake counts three characters a token: 2,000 lines do not fit
    policy = LlamaCppLike(scripted([bash("seq 1 2000")]), window=window)
    result, steps, _, _ = run_mini(policy, tmp_path, context_tokens=100_000)
    assert result.end_reason == "context_length" and result.steps == 1 and len(steps) == 1


def test_memory_opens_the_first_user_message_and_nothing_else(tmp_path):
    result, _, requests, solver = run_mini(scripted([bash(SUBMIT)]), tmp_path, memory="fix: calc/core.py")
    messages = requests[0]["messages"]
    assert memory_slot_text(messages[1]["content"]) == "fix: calc/core.py"
    assert messages[1]["content"].startswith("Notes from your memory of earlier work:\n<memory>")
    assert [MEMORY_OPEN in m["content"] for m in messages] == [False, True]
    without = solver.opening_messages("fix it", None)[1]["content"]
    assert messages[1]["content"].endswith(without) and memory_slot_text(without) is None


def test_an_endpoint_that_keeps_failing_is_an_infrastructure_error(tmp_path):
    with pytest.raises(InfraError):
        run_mini(lambda body: Fault(500), tmp_path)


def test_describe_names_mini_swe_agent_and_its_version():
    import minisweagent

    from execmem.agents.coding.miniswe.library import library
    from execmem.agents.coding.solvers import make_solver

    solver = make_solver("miniswe")
    described = solver.describe()
    assert (described["kind"], described["version"]) == ("mini-swe-agent", minisweagent.__version__)
    assert described["config"] == "mini.yaml" and len(described["templates_sha256"]) == 64
    assert solver.tools() == [library().BASH_TOOL["function"]]
    assert make_solver("bash").describe()["kind"] == "execmem-bash"
