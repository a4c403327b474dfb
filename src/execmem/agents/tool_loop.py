"""The small tool-using agent loop.

The model sees the environment's tools and the memory tools (if any). Each
step is one model call; tool calls run in order and their results go back as
tool messages. The loop ends at the first reply without tool calls, after
``max_steps`` model calls, or when the endpoint refuses the prompt as longer than
the model's context window (end reason ``context_length``: the model's limit,
scored like any other ending). Bad tool calls (arguments that are not a JSON
object, however they fail to parse) get an error message back and are counted:
they are the model's fault.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from execmem.core.jsonl import without_lone_surrogates
from execmem.core.protocols import Environment, Model, ModelReply, ToolRequest, Usage
from execmem.core.tokens import estimate_tokens
from execmem.llm.errors import ContextOverflow


class MemoryTools(Protocol):
    """Tools that read (or write) memory; their results count as memory text received."""

    def schemas(self) -> list[dict[str, Any]]: ...

    async def call(self, name: str, arguments: dict[str, Any]) -> str: ...


@dataclass
class LoopResult:
    messages: list[dict[str, Any]]
    steps: int = 0
    end_reason: str = "answered"
    usage: Usage = field(default_factory=Usage)
    model_latency_s: float = 0.0
    memory_tool_tokens: int = 0
    memory_tool_calls: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    calls: list[dict[str, Any]] = field(default_factory=list)  # per model call: see call_record
    tool_requests: int = 0  # tool calls the model asked for, of any tool
    context_error: str | None = None

    def add_reply(self, reply: ModelReply) -> None:
        """Count one model call."""
        self.steps += 1
        self.usage += reply.usage
        self.model_latency_s += reply.latency_s
        self.tool_requests += len(reply.tool_calls)
        self.calls.append(call_record(reply))

    def timing(self) -> dict[str, Any]:
        """Sums over the episode's calls: model latency, queue and retry waits, cut replies."""
        return {
            "model_latency_s": round(self.model_latency_s, 4),
            "queue_s": round(sum(c["queue_s"] for c in self.calls), 4),
            "retry_wait_s": round(sum(c["retry_wait_s"] for c in self.calls), 4),
            "truncated_replies": sum(c["finish_reason"] == "length" for c in self.calls),
        }


def call_record(reply: ModelReply) -> dict[str, Any]:
    """One model call as trajectories record it: tokens, why it stopped, where the time went."""
    return {
        "input_tokens": reply.usage.input_tokens,
        "output_tokens": reply.usage.output_tokens,
        "finish_reason": reply.finish_reason,
        "latency_s": round(reply.latency_s, 4),
        "queue_s": round(reply.queue_s, 4),
        "retry_wait_s": round(reply.retry_wait_s, 4),
        "attempts": reply.attempts,
        "cached": reply.cached,
    }


def as_openai_tools(schemas: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": schema} for schema in schemas]


async def run_tool_loop(
    model: Model,
    environment: Environment,
    messages: list[dict[str, Any]],
    memory: MemoryTools | None = None,
    max_steps: int = 10,
    result: LoopResult | None = None,
) -> LoopResult:
    """Run the loop on ``messages`` (recording into ``result`` when given, so a caller keeps what
    was done when :class:`execmem.llm.errors.InfraError` from the model propagates)."""
    result = result if result is not None else LoopResult(messages=messages)
    memory_names = {s["name"] for s in memory.schemas()} if memory else set()
    for _ in range(max_steps):
        schemas = environment.tool_schemas() + (memory.schemas() if memory else [])
        try:
            reply = await model.complete(messages, as_openai_tools(schemas))
        except ContextOverflow as exc:
            result.end_reason, result.context_error = "context_length", exc.message
            return result
        result.add_reply(reply)
        messages.append(assistant_message(reply))
        if not reply.tool_calls:
            return result
        for call in reply.tool_calls:
            content = await _run_call(call, environment, memory, memory_names, result)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    result.end_reason = "max_steps"
    return result


async def _run_call(
    call: ToolRequest,
    environment: Environment,
    memory: MemoryTools | None,
    memory_names: set[str],
    result: LoopResult,
) -> str:
    arguments = parse_arguments(call.arguments)
    if arguments is None:
        result.errors["malformed_arguments"] += 1
        return json.dumps({"success": False, "error": f"arguments of {call.name} are not a JSON object"})
    if memory is not None and call.name in memory_names:
        text = await memory.call(call.name, arguments)
        result.memory_tool_calls += 1
        result.memory_tool_tokens += estimate_tokens(text)
        return text
    return json.dumps(environment.run_tool(call.name, arguments), ensure_ascii=False)


MAX_ARGUMENT_DEPTH = 32  # no tool takes deeper arguments; deeper ones would break writing them down


def parse_arguments(text: str) -> dict[str, Any] | None:
    """The arguments object of a tool call (an empty string means no arguments), or None when it
    is not a JSON object of reasonable depth."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text, parse_constant=_not_a_number)
    except (ValueError, RecursionError):  # bad JSON, a 5,000-digit integer, nesting 100k deep, NaN
        return None
    if not isinstance(value, dict) or _depth(value) > MAX_ARGUMENT_DEPTH:
        return None
    return without_lone_surrogates(value)  # "\\ud800" in the arguments' JSON: text made runnable


def _not_a_number(name: str) -> Any:
    """``NaN`` and ``Infinity`` are not JSON: a tool never takes them, and they could not be written down."""
    raise ValueError(f"{name} is not a JSON number")


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (without recursing)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth <= MAX_ARGUMENT_DEPTH:
                stack.extend(
                    (child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)
                )
    return deepest


def assistant_message(reply: ModelReply) -> dict[str, Any]:
    """The reply as the assistant message sent back to the model in the next request."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ]
    return message
