"""The coding solver against an endpoint's limits: the context window, monstrous arguments."""

from __future__ import annotations

import json

import pytest

from execmem.agents.coding.solver import opening_messages
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


def test_the_context_budget_is_counted_with_the_named_tokenizer(tmp_path):
    """A tokenizer with one token per character: the same conversation is over a budget that the
    characters/4 fallback would let pass."""
    tokenizers = pytest.importorskip("tokenizers")
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Split(tokenizers.Regex("."), behavior="isolated")
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    work = tmp_path / "work"
    work.mkdir()
    opening = len(json.dumps(opening_messages("fix it", None), ensure_ascii=False))
    budget = {"context_tokens": opening + 50, "max_steps": 3}  # characters: one step's worth of room
    per_char, _, _ = run_solver(
        scripted([bash("echo hi")]), work, tokenizer=str(tmp_path / "tokenizer.json"), **budget
    )
    fallback, _, _ = run_solver(scripted([bash("echo hi")]), work, tokenizer="chars", **budget)
    assert per_char.end_reason == "context_limit" and per_char.steps < 3
    assert fallback.end_reason == "max_steps"
