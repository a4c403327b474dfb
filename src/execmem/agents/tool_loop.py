"""The small tool-using agent loop.

The model sees the environment's tools and the memory tools (if any). Each
step is one model call; tool calls run in order and their results go back as
tool messages. The loop ends at the first reply without tool calls, or after
``max_steps`` model calls. Bad tool calls (arguments that are not a JSON
object) get an error message back and are counted: they are the model's fault.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from execmem.agents.tokens import estimate_tokens
from execmem.core.protocols import Environment, Model, ToolRequest, Usage


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
    calls: list[dict[str, Any]] = field(default_factory=list)  # per model call: tokens, latency, cache


def as_openai_tools(schemas: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": schema} for schema in schemas]


async def run_tool_loop(
    model: Model,
    environment: Environment,
    messages: list[dict[str, Any]],
    memory: MemoryTools | None = None,
    max_steps: int = 10,
) -> LoopResult:
    """Run the loop; :class:`execmem.llm.errors.InfraError` from the model propagates."""
    result = LoopResult(messages=messages)
    memory_names = {s["name"] for s in memory.schemas()} if memory else set()
    for _ in range(max_steps):
        schemas = environment.tool_schemas() + (memory.schemas() if memory else [])
        reply = await model.complete(messages, as_openai_tools(schemas))
        result.steps += 1
        result.usage += reply.usage
        result.model_latency_s += reply.latency_s
        result.calls.append(
            {
                "input_tokens": reply.usage.input_tokens,
                "output_tokens": reply.usage.output_tokens,
                "latency_s": round(reply.latency_s, 4),
                "cached": reply.cached,
            }
        )
        messages.append(_assistant_message(reply.content, reply.tool_calls))
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


def parse_arguments(text: str) -> dict[str, Any] | None:
    """The arguments object of a tool call; an empty string means no arguments."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _assistant_message(content: str | None, calls: Sequence[ToolRequest]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls
        ]
    return message
