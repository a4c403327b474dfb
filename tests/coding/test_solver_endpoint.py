"""The coding solver against an endpoint's limits: the context window, monstrous arguments."""

from __future__ import annotations

import json
import socket

import pytest
from typer.testing import CliRunner

import execmem.cli.coding_run  # noqa: F401 - adds run/compare to the coding app
from execmem.agents.coding.solver import opening_messages
from execmem.cli.coding import app
from execmem.core.files import complete_records
from execmem.testing.coding_policies import bash
from execmem.testing.fake_llamacpp import LlamaCppLike
from execmem.testing.fake_server import FakeServer, Fault, Reply, ToolCallSpec, scripted
from tests.coding.conftest import needs_bwrap
from tests.coding.paired_support import make_tasks
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


def _coding_run(tasks_file, base_url: str, out, *extra: str):
    args = ["run", "--tasks", str(tasks_file), "--model", "fake", "--base-url", base_url,
            "--out", str(out), "--seeds", "1", "--quiet", *extra]  # fmt: skip
    return CliRunner().invoke(app, args)


@needs_bwrap
def test_coding_run_stops_with_one_line_when_the_endpoint_cannot_serve_it(tmp_path):
    tasks_file = make_tasks(tmp_path, pkgs=("alpha",))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    dead = _coding_run(tasks_file, f"http://127.0.0.1:{port}/v1", tmp_path / "dead")
    assert dead.exit_code == 2 and dead.output.strip().startswith("error: nothing answers at")
    with FakeServer(scripted([Fault(401)])) as server:
        refused = _coding_run(tasks_file, server.base_url, tmp_path / "refused")
    assert refused.exit_code == 2 and "refused the API key" in refused.output
    assert complete_records(tmp_path / "refused" / "infra_errors.jsonl") == [] and len(server.requests) <= 4
    bad = _coding_run(tasks_file, "http://x/v1", tmp_path / "bad", "--tokenizer", "tiktoken:nope")
    assert bad.exit_code == 2 and "cannot load the nope encoding" in bad.output


def test_text_that_is_not_unicode_is_the_models_and_the_episode_is_scored(tmp_path):
    """Lone surrogates (valid JSON escapes that pair with nothing) become U+FFFD; NaN is no argument."""
    replies = [Reply(tool_calls=[ToolCallSpec("bash", '{"command": "echo \\ud800 lone"}')]),
               Reply(content="thinking \udc80", tool_calls=[ToolCallSpec("bash", '{"command": "ls"}')]),
               Reply(tool_calls=[ToolCallSpec("bash", '{"command": NaN}')]),
               bash("echo EXECMEM_SUBMIT")]  # fmt: skip
    result, steps, requests = run_solver(scripted(replies), tmp_path)
    assert result.end_reason == "submitted" and result.errors == {"malformed_arguments": 1}
    assert "\ufffd lone" in steps[0]["tool_results"][0]["output"]
    json.dumps(steps, ensure_ascii=False).encode("utf-8")  # every step can be written down
    json.dumps(requests[-1], ensure_ascii=False).encode("utf-8")  # and was sent back
