"""An in-process ``Model`` that replays scripted replies: fast unit tests of the agent loops.

No HTTP and no client: ``complete`` records what it was asked and returns the next reply. The
HTTP path (client -> fake server) is tested end to end elsewhere; this one tests a loop alone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from execmem.core.protocols import ModelReply, ToolRequest, Usage


def text(content: str) -> ModelReply:
    """A reply in words, without tool calls."""
    return ModelReply(content=content, tool_calls=(), usage=Usage(1, 1))


def calls(*requests: tuple[str, dict[str, Any] | str]) -> ModelReply:
    """A reply calling tools: ``(name, arguments)`` pairs (a str is sent as the raw argument text)."""
    made = tuple(
        ToolRequest(f"call_{i}", name, args if isinstance(args, str) else json.dumps(args))
        for i, (name, args) in enumerate(requests)
    )
    return ModelReply(content=None, tool_calls=made, usage=Usage(1, 1))


class ScriptedModel:
    """Returns ``replies`` in order; ``requests`` keeps each call's messages and tools."""

    def __init__(self, replies: Sequence[ModelReply], name: str = "scripted") -> None:
        self.replies, self.name = list(replies), name
        self.requests: list[dict[str, Any]] = []

    async def complete(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict] | None = None):
        self.requests.append({"messages": [dict(m) for m in messages], "tools": list(tools or [])})
        if len(self.requests) > len(self.replies):
            raise AssertionError(f"the script has {len(self.replies)} replies; call {len(self.requests)}")
        return self.replies[len(self.requests) - 1]

    def describe(self) -> dict[str, Any]:
        return {"kind": "scripted", "model": self.name}
