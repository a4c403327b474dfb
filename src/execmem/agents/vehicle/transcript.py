"""Reading an episode's messages back: the memory the agent was shown, and its memory-tool calls.

The agent's prompt carries a memory as a ``<memory>`` block (``prompts.MEMORY_BLOCK``); memory
tools are the tools that are neither ``list_module_tools`` nor a car tool (``carcontrol_*``):
``search_memory``, ``memory_search``, ``memory_list``, or a plugin's own. A trajectory may hold a
long scenario memory as a reference (``<memory: memory/scenario-N.json#text>``); ``resolve`` turns
it back into the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from execmem.suites.vehicle.environment import LIST_TOOLS

_BLOCK = re.compile(r"<memory>\n?(.*?)\n?</memory>", re.DOTALL)
MEMORY_REFERENCE = re.compile(r"^<memory: (?P<path>[^#>]+)#text>$")


@dataclass(frozen=True)
class MemoryToolCall:
    """One memory-tool call and what it returned."""

    name: str
    arguments: str
    result: str


def is_memory_tool(name: str) -> bool:
    return name != LIST_TOOLS and not name.startswith("carcontrol_")


def prompt_memory(messages: Iterable[dict[str, Any]]) -> str | None:
    """The memory block of the first user message, or None when the prompt carries none."""
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str):
            found = _BLOCK.search(content)
            return found.group(1) if found else None
    return None


def memory_tool_calls(messages: Iterable[dict[str, Any]]) -> list[MemoryToolCall]:
    """Every memory-tool call of the episode, in order, with its result (empty when it has none)."""
    asked: dict[str, tuple[str, str]] = {}
    order: list[str] = []
    results: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            name = str(function.get("name", ""))
            if is_memory_tool(name):
                asked[call.get("id")] = (name, str(function.get("arguments") or ""))
                order.append(call.get("id"))
        if message.get("role") == "tool" and message.get("tool_call_id") in asked:
            results[message["tool_call_id"]] = str(message.get("content") or "")
    return [MemoryToolCall(*asked[key], results.get(key, "")) for key in order]


def shown_memory(messages: list[dict[str, Any]], resolve: Callable[[str], str] | None = None) -> str:
    """All the memory text the agent was shown: the prompt's memory block (a reference resolved
    with ``resolve``) and every memory-tool result, one after the other."""
    parts = []
    prompt = prompt_memory(messages)
    if prompt is not None:
        parts.append(resolve(prompt) if resolve is not None else prompt)
    parts.extend(call.result for call in memory_tool_calls(messages))
    return "\n".join(parts)
