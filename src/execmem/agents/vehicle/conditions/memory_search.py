"""The ``search_memory`` tool: a memory system's hits, shown to the model with their times."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from execmem.core.protocols import MemoryItem, MemorySystem

SEARCH_MEMORY = "search_memory"
NO_RESULTS = "No memories matched this query."
_STAMP = "%Y-%m-%d %H:%M"


def search_schema(default_k: int, max_k: int) -> dict[str, Any]:
    return {
        "name": SEARCH_MEMORY,
        "description": (
            "Search your memory of earlier conversations in this car. Returns the best matching "
            "passages, each line with the date and time it was said."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "what to look for"},
                "top_k": {
                    "type": "integer",
                    "description": f"how many passages to return (default {default_k}, at most {max_k})",
                    "minimum": 1,
                    "maximum": max_k,
                },
            },
            "required": ["query"],
        },
    }


def stamp(times: Sequence[datetime]) -> str:
    """``[2025-04-15 09:00]``, or ``[2025-04-15 09:00 - 2025-04-15 09:45]`` for a span."""
    first, last = min(times).strftime(_STAMP), max(times).strftime(_STAMP)
    return f"[{first}]" if first == last else f"[{first} - {last}]"


def format_item(item: MemoryItem) -> str:
    """The item's text, led by its time unless the text already opens with it."""
    text = item.text.strip()
    if not item.timestamps or text.startswith(f"[{min(item.timestamps).strftime(_STAMP)}"):
        return text
    return f"{stamp(item.timestamps)} {text}"


def format_results(items: Sequence[MemoryItem]) -> str:
    """The passages, best first, separated by blank lines."""
    if not items:
        return NO_RESULTS
    return "\n\n".join(f"({rank}) {format_item(item)}" for rank, item in enumerate(items, start=1))


def clamp_k(value: Any, default_k: int, max_k: int) -> int:
    """The model's ``top_k`` as an int in [1, max_k]; the default when it is missing or not a number."""
    try:
        k = int(value)
    except (TypeError, ValueError):
        return default_k
    return min(max(k, 1), max_k)


class SearchMemoryTool:
    """``MemoryTools`` over one user space of a memory system (read only)."""

    def __init__(self, memory: MemorySystem, user_id: str, default_k: int, max_k: int) -> None:
        self.memory, self.user_id = memory, user_id
        self.default_k, self.max_k = default_k, max(max_k, default_k)

    def schemas(self) -> list[dict[str, Any]]:
        return [search_schema(self.default_k, self.max_k)]

    async def call(self, name: str, arguments: dict[str, Any]) -> str:
        query = arguments.get("query")
        if name != SEARCH_MEMORY:
            return json.dumps({"success": False, "error": f"{name} is not available"})
        if not isinstance(query, str) or not query.strip():
            return json.dumps({"success": False, "error": "query must be a non-empty string"})
        k = clamp_k(arguments.get("top_k", self.default_k), self.default_k, self.max_k)
        items = await asyncio.to_thread(self.memory.search, query, self.user_id, k)
        return format_results(items)
