"""Recursive summary: one model call per history day updates a running memory (capped)."""

from __future__ import annotations

import time
from typing import Any

from execmem.agents.vehicle.conditions.base import MemoryCost, PromptMemory, ScenarioMemory, format_lines
from execmem.agents.vehicle.conditions.build_cache import BuildCache, by_day
from execmem.agents.vehicle.prompts import SUMMARY_PROMPT_VERSION, SUMMARY_SYSTEM, SUMMARY_USER
from execmem.core.protocols import Model
from execmem.llm.errors import ContextOverflow

SUMMARY_LIMIT_CHARS = 8192


class RecursiveSummary:
    name = "summary"

    def __init__(
        self, model: Model, history_loader, cache: BuildCache, limit: int = SUMMARY_LIMIT_CHARS
    ) -> None:
        self.model = model
        self._load = history_loader
        self.cache = cache
        self.limit = limit

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "prompt_version": SUMMARY_PROMPT_VERSION, "limit_chars": self.limit}

    async def prepare(self, scenario: int) -> ScenarioMemory:
        cached = self.cache.load(scenario)
        if cached is not None:
            return PromptMemory(
                text=cached["text"], cost=MemoryCost.from_json(cached["cost"]), notes={"cached": True}
            )
        memory, cost = "(empty)", MemoryCost()
        started = time.perf_counter()
        for day, lines in by_day(self._load(scenario)):
            messages = [
                {"role": "system", "content": SUMMARY_SYSTEM.format(limit=self.limit)},
                {
                    "role": "user",
                    "content": SUMMARY_USER.format(memory=memory, day=day, dialogue=format_lines(lines)),
                },
            ]
            try:
                reply = await self.model.complete(messages)
            except ContextOverflow:  # the day does not fit the model's window: the memory goes on without it
                cost.context_overflows += 1
                continue
            cost.llm_calls += 1
            cost.usage += reply.usage
            memory = (reply.content or "").strip()[: self.limit] or memory
        cost.seconds = time.perf_counter() - started
        built = PromptMemory(text=memory, cost=cost)
        self.cache.save(scenario, built.record())
        return built
