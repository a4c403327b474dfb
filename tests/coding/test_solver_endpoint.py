"""The coding solver against an endpoint's limits: the context window, monstrous arguments."""

from __future__ import annotations

from execmem.llm.fake_llamacpp import LlamaCppLike
from execmem.llm.fake_server import Reply, ToolCallSpec, scripted
from tests.coding.paired_support import bash
from tests.coding.test_paired_solver import run_solver


def test_a_prompt_over_the_endpoints_window_ends_the_episode_as_the_models_limit(tmp_path):
    """The solver's own estimate allows the prompt; the endpoint's window (600 tokens) does not."""
    policy = LlamaCppLike(scripted([bash("seq 1 2000")]), window=600)
    result, steps, requests = run_solver(policy, tmp_path, context_tokens=100_000)
    assert result.end_reason == "context_length" and result.steps == 1 and len(steps) == 1
    assert len(requests) == 2 and requests[0]["tool_choice"] == "auto"


def test_unparseable_arguments_are_the_models_errors(tmp_path):
    monstrous = [Reply(tool_calls=[ToolCallSpec("bash", "[" * 100_000)]),
                 Reply(tool_calls=[ToolCallSpec("bash", '{"command": ' + "7" * 5000 + "}")]),
                 bash("echo EXECMEM_SUBMIT")]  # fmt: skip
    result, steps, _ = run_solver(scripted(monstrous), tmp_path)
    assert result.end_reason == "submitted" and result.errors["malformed_arguments"] == 2
    assert steps[0]["finish_reason"] == "tool_calls" and steps[0]["attempts"] == 1
