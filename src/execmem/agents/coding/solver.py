"""The solver loop: model call, bash commands, observations, until submission or a budget runs out.

Each step is one model call plus the commands it asked for. Budgets are
checked before every model call, in this order: steps, tokens, time, context
(the end reason names the first one hit). A command gets at most the time that
is left, so a command that never ends is killed when the episode's time runs
out. A reply without tool calls is a format error and gets a reminder, unless
it contains the submit sentinel. When the endpoint refuses the prompt as over the
model's window, the episode ends with ``context_length`` (and is evaluated as it stands).
``InfraError`` from the model propagates.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from execmem.agents.coding.bash_tool import BASH_SCHEMA, CommandRunner, run_bash
from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.prompts import NO_TOOL_CALL, SUBMIT_SENTINEL, SYSTEM, first_user_message
from execmem.agents.tool_loop import as_openai_tools, assistant_message, call_record, parse_arguments
from execmem.core.protocols import Model, ModelReply, ToolRequest, Usage
from execmem.core.tokens import estimate_tokens
from execmem.llm.errors import ContextOverflow
from execmem.llm.token_counter import TokenCounter, make_counter

TOOLS = as_openai_tools([BASH_SCHEMA])
StepHook = Callable[[dict[str, Any]], None]
TokenCount = Callable[[str], int]


@dataclass
class SolveResult:
    """How an episode's agent part went; ``messages`` is the full conversation."""

    messages: list[dict[str, Any]]
    end_reason: str = ""
    steps: int = 0
    commands: int = 0
    usage: Usage = field(default_factory=Usage)
    model_latency_s: float = 0.0
    seconds: float = 0.0
    errors: Counter[str] = field(default_factory=Counter)

    @property
    def submitted(self) -> bool:
        return self.end_reason == "submitted"


class Clock:
    """An episode's agent time: how much is left of the limit, how much has passed."""

    def __init__(self, limit_s: float) -> None:
        self.start = time.monotonic()
        self.deadline = self.start + limit_s

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.start


def opening_messages(statement: str, memory: str | None) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": first_user_message(statement, memory)},
    ]


async def solve(
    model: Model,
    runner: CommandRunner,
    statement: str,
    memory: str | None,
    config: SolverConfig,
    on_step: StepHook | None = None,
) -> SolveResult:
    """Run the loop on ``runner`` (an episode); ``on_step`` gets each finished step as a dict."""
    clock = Clock(config.time_limit_s)
    result = SolveResult(messages=opening_messages(statement, memory))
    count = counter(config.tokenizer, model.describe().get("model", "")).count
    while not (reason := budget_exhausted(result, config, clock.left(), count)):
        try:
            reply = await model.complete(result.messages, TOOLS)
        except ContextOverflow:  # the endpoint's window, not the estimate, ran out: the model's limit
            reason = "context_length"
            break
        result.steps += 1
        result.usage += reply.usage
        result.model_latency_s += reply.latency_s
        result.messages.append(assistant_message(reply))
        outputs = await _act(reply, runner, config, clock, result)
        if on_step is not None:
            on_step(_step_record(result.steps, reply, outputs, clock.elapsed()))
        if result.submitted:
            break
    if reason:
        result.end_reason = reason
    result.seconds = clock.elapsed()
    return result


@functools.lru_cache(maxsize=8)
def counter(spec: str, model: str) -> TokenCounter:
    """The token counter of ``--tokenizer`` for ``model``, loaded once per run."""
    return make_counter(spec, model)


def budget_exhausted(
    result: SolveResult, config: SolverConfig, time_left: float, count_tokens: TokenCount = estimate_tokens
) -> str:
    """The first budget that is used up ("" while all are left)."""
    if result.steps >= config.max_steps:
        return "max_steps"
    if result.usage.input_tokens + result.usage.output_tokens >= config.max_total_tokens:
        return "token_limit"
    if time_left <= 0:
        return "time_limit"
    if count_tokens(json.dumps(result.messages, ensure_ascii=False)) > config.context_tokens:
        return "context_limit"
    return ""


async def _act(
    reply: ModelReply, runner: CommandRunner, config: SolverConfig, clock: Clock, result: SolveResult
) -> list[dict[str, Any]]:
    """Run the reply's tool calls in order (stopping at a submission); return what each gave."""
    if not reply.tool_calls:
        if SUBMIT_SENTINEL in (reply.content or ""):
            result.end_reason = "submitted"
            return []
        result.errors["no_tool_call"] += 1
        result.messages.append({"role": "user", "content": NO_TOOL_CALL})
        return []
    outputs = []
    for call in reply.tool_calls:
        output, text = await _run_call(call, runner, config, clock, result)
        outputs.append({"tool_call_id": call.id, **output})
        result.messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
        if result.submitted:
            break
    return outputs


async def _run_call(
    call: ToolRequest, runner: CommandRunner, config: SolverConfig, clock: Clock, result: SolveResult
) -> tuple[dict[str, Any], str]:
    """One tool call: (record for the trajectory, text for the model)."""
    arguments = parse_arguments(call.arguments)
    if call.name != "bash":
        return _refuse(result, "unknown_tool", f"unknown tool {call.name!r}; the only tool is bash")
    if arguments is None or not isinstance(arguments.get("command"), str):
        return _refuse(result, "malformed_arguments", 'bash takes {"command": "<a shell command>"}')
    time_left = clock.left()
    if time_left <= 0:  # the harness's budget, not the model's error: not counted
        message = "not run: the episode's time limit is reached"
        return {"error": "time_limit", "message": message}, f"error: {message}"
    timeout_s = min(config.command_timeout_s, time_left)
    observation = await asyncio.to_thread(
        run_bash, runner, arguments["command"], timeout_s, config.output_chars
    )
    result.commands += 1
    if observation.submitted:
        result.end_reason = "submitted"
    return observation.to_dict(), observation.to_model()


def _refuse(result: SolveResult, kind: str, message: str) -> tuple[dict[str, Any], str]:
    result.errors[kind] += 1
    return {"error": kind, "message": message}, f"error: {message}"


def _step_record(
    step: int, reply: ModelReply, outputs: list[dict[str, Any]], elapsed_s: float
) -> dict[str, Any]:
    return {
        "step": step,
        "assistant": assistant_message(reply),
        "tool_results": outputs,
        **call_record(reply),
        "elapsed_s": round(elapsed_s, 3),
    }
