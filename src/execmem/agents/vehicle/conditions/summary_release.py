"""The summary memory in the release's style: one model call per history day offering a
``memory_update(new_memory)`` tool; the memory changes only when the model calls it.

Behaviour (the VehicleMemBench release's, prompts in our words): the memory starts empty; a day
whose reply calls ``memory_update`` replaces the memory with ``new_memory`` (the first such call;
arguments that are not JSON are salvaged when they hold a ``"new_memory": "..."`` string, else the
memory is kept); a day without the call keeps the memory (an empty one becomes "No vehicle
preferences recorded."). A memory over 8,192 characters is cut at the last line starting "-"
before the limit when that lies past half of it, else at the limit, and marked as cut. A day
whose prompt is over the model's window keeps the memory too (counted).
"""

from __future__ import annotations

import re
import time
from typing import Any

from execmem.agents.tool_loop import as_openai_tools, parse_arguments
from execmem.agents.vehicle.conditions.base import MemoryCost, PromptMemory, ScenarioMemory, format_lines
from execmem.agents.vehicle.conditions.build_cache import BuildCache, by_day
from execmem.agents.vehicle.release_prompts import (
    MEMORY_UPDATE_SCHEMA,
    SUMMARY_RELEASE_EMPTY,
    SUMMARY_RELEASE_SYSTEM,
    SUMMARY_RELEASE_USER,
    SUMMARY_RELEASE_VERSION,
)
from execmem.core.protocols import Model, ModelReply
from execmem.llm.errors import ContextOverflow

LIMIT_CHARS = 8192
CUT_MARK = "\n[Memory truncated due to length limit]"
NOTHING_RECORDED = "No vehicle preferences recorded."
UPDATE = MEMORY_UPDATE_SCHEMA["name"]
_SALVAGE = re.compile(r'"new_memory"\s*:\s*"(.*)"', re.DOTALL)


def cut(memory: str, limit: int = LIMIT_CHARS) -> str:
    """The memory within ``limit`` characters (plus the mark), cut at a bullet where one lies in
    the second half of the limit."""
    if len(memory) <= limit:
        return memory
    at = memory.rfind("\n-", 0, limit)
    return (memory[:at] if at > limit // 2 else memory[:limit]) + CUT_MARK


def update_of(reply: ModelReply) -> str | None:
    """The new memory a reply asks for (its first ``memory_update`` call), or None to keep it."""
    for call in reply.tool_calls:
        if call.name != UPDATE:
            continue
        arguments = parse_arguments(call.arguments)
        if arguments is not None:
            return cut(str(arguments.get("new_memory", "")))
        salvaged = _SALVAGE.search(call.arguments)
        return cut(salvaged.group(1).replace('\\"', '"').replace("\\n", "\n")) if salvaged else None
    return None


class ReleaseSummary:
    """``--memory summary --memory-style release``."""

    name = "summary"
    style = "release"

    def __init__(self, model: Model, history_loader, cache: BuildCache) -> None:
        self.model, self._load, self.cache = model, history_loader, cache

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "style": self.style,
            "prompt_version": SUMMARY_RELEASE_VERSION,
            "tool": UPDATE,
            "limit_chars": LIMIT_CHARS,
            "aim_words": 2000,
        }

    async def prepare(self, scenario: int) -> ScenarioMemory:
        cached = self.cache.load(scenario)
        if cached is not None:
            notes = {"cached": True, "updates": cached.get("updates"), "days": cached.get("days")}
            return PromptMemory(text=cached["text"], cost=MemoryCost.from_json(cached["cost"]), notes=notes)
        memory, cost, updates = "", MemoryCost(), 0
        started = time.perf_counter()
        days = by_day(self._load(scenario))
        for day, lines in days:
            new = await self._day(memory, day, format_lines(lines), cost)
            updates += new is not None
            memory = new if new is not None else memory or NOTHING_RECORDED
        cost.seconds = time.perf_counter() - started
        built = PromptMemory(text=memory, cost=cost, notes={"updates": updates, "days": len(days)})
        self.cache.save(scenario, built.record())
        return built

    async def _day(self, memory: str, day: str, dialogue: str, cost: MemoryCost) -> str | None:
        """One day's call: the new memory, or None to keep the old one."""
        shown = memory if memory and memory != NOTHING_RECORDED else SUMMARY_RELEASE_EMPTY
        messages = [
            {"role": "system", "content": SUMMARY_RELEASE_SYSTEM},
            {
                "role": "user",
                "content": SUMMARY_RELEASE_USER.format(memory=shown, day=day, dialogue=dialogue),
            },
        ]
        try:
            reply = await self.model.complete(messages, as_openai_tools([MEMORY_UPDATE_SCHEMA]))
        except ContextOverflow:  # the day does not fit the model's window: the memory stays
            cost.context_overflows += 1
            return None
        cost.llm_calls += 1
        cost.usage += reply.usage
        return update_of(reply)
