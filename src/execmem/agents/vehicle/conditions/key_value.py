"""Key-value memory: the model files each day's preferences with add/remove/search tools,
then answers with search."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from execmem.agents.tool_loop import run_tool_loop
from execmem.agents.vehicle.conditions.base import MemoryCost, format_lines
from execmem.agents.vehicle.conditions.build_cache import BuildCache, by_day
from execmem.agents.vehicle.prompts import KV_PROMPT_VERSION, KV_SYSTEM, KV_USER
from execmem.core.protocols import Model
from execmem.suites.vehicle.dataset import Question

_WORD = re.compile(r"\w+", re.UNICODE)


def string_tool_schema(name: str, description: str, **params: str) -> dict[str, Any]:
    properties = {k: {"type": "string", "description": v} for k, v in params.items()}
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": list(params)},
    }


ADD = string_tool_schema(
    "memory_add", "Store or overwrite a memory entry.", key="what the entry is about", value="the fact"
)
REMOVE = string_tool_schema("memory_remove", "Delete a memory entry by key.", key="the entry's key")
SEARCH = string_tool_schema(
    "memory_search", "Search the memory; returns the best matching entries.", query="what to look for"
)


@dataclass
class KeyValueStore:
    """The store, and the tools over it. Search ranks entries by shared words with the query."""

    entries: dict[str, str] = field(default_factory=dict)
    top_k: int = 10
    writable: bool = True

    def schemas(self) -> list[dict[str, Any]]:
        return [ADD, REMOVE, SEARCH] if self.writable else [SEARCH]

    async def call(self, name: str, arguments: dict[str, Any]) -> str:
        if name == "memory_search":
            return json.dumps({"results": self.search(str(arguments.get("query", "")))}, ensure_ascii=False)
        if not self.writable:
            return json.dumps({"success": False, "error": f"{name} is not available"})
        key = str(arguments.get("key", "")).strip()
        if not key:
            return json.dumps({"success": False, "error": "key is required"})
        if name == "memory_add":
            self.entries[key] = str(arguments.get("value", ""))
        else:
            self.entries.pop(key, None)
        return json.dumps({"success": True})

    def search(self, query: str) -> list[dict[str, str]]:
        wanted = set(_WORD.findall(query.lower()))
        scored = []
        for key, value in self.entries.items():
            overlap = len(wanted & set(_WORD.findall(f"{key} {value}".lower())))
            if overlap:
                scored.append((overlap, key, value))
        scored.sort(key=lambda item: -item[0])
        return [{"key": k, "value": v} for _, k, v in scored[: self.top_k]]


@dataclass
class KeyValueMemory:
    store: KeyValueStore
    cost: MemoryCost

    def prompt_memory(self, question: Question) -> str | None:
        return None

    def tools(self) -> KeyValueStore:
        return KeyValueStore(dict(self.store.entries), self.store.top_k, writable=False)

    def record(self) -> dict[str, Any]:
        return {"entries": self.store.entries, "cost": self.cost.to_json()}


class _NoEnvironment:
    """Memory building acts on nothing but the store."""

    def tool_schemas(self) -> list[dict[str, Any]]:
        return []

    def run_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"success": False, "error": f"Function {name} not found"}


class KeyValueCondition:
    name = "key-value"

    def __init__(self, model: Model, history_loader, cache: BuildCache, max_steps_per_day: int = 20) -> None:
        self.model = model
        self._load = history_loader
        self.cache = cache
        self.max_steps_per_day = max_steps_per_day

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "prompt_version": KV_PROMPT_VERSION,
            "max_steps_per_day": self.max_steps_per_day,
        }

    async def prepare(self, scenario: int) -> KeyValueMemory:
        cached = self.cache.load(scenario)
        if cached is not None:
            return KeyValueMemory(KeyValueStore(cached["entries"]), MemoryCost.from_json(cached["cost"]))
        store, cost = KeyValueStore(), MemoryCost()
        started = time.perf_counter()
        for day, lines in by_day(self._load(scenario)):
            messages = [
                {"role": "system", "content": KV_SYSTEM},
                {"role": "user", "content": KV_USER.format(day=day, dialogue=format_lines(lines))},
            ]
            result = await run_tool_loop(
                self.model, _NoEnvironment(), messages, store, self.max_steps_per_day
            )
            cost.add_loop(result)
        cost.seconds = time.perf_counter() - started
        built = KeyValueMemory(store, cost)
        self.cache.save(scenario, built.record())
        return built
