"""The key-value memory in the release's style: the store and tools of the VehicleMemBench release.

Building, per history day: a tool loop of at most ``rounds`` model calls (the release runs as many
as its agent gets, 10 by default: here ``--max-steps``) offering ``memory_add(key, value)``,
``memory_remove(key)`` and ``memory_search(key)``, with the keys stored so far in the prompt;
``memory_list()`` is not offered but answered when called. Answering: the agent gets
``memory_search(key)`` and ``memory_list()``.

The tools, as the release's: ``memory_add`` stores or replaces an entry (``action`` "added" or
"updated"); ``memory_remove`` of a key that is not stored fails; ``memory_search`` returns the
entry under exactly that key, else every entry whose key or value contains it (case-insensitive),
all of them, with a message when there is none; ``memory_list`` returns the keys and their count.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from execmem.agents.tool_loop import run_tool_loop
from execmem.agents.vehicle.conditions.base import MemoryCost, format_lines
from execmem.agents.vehicle.conditions.build_cache import BuildCache, by_day
from execmem.agents.vehicle.conditions.key_value import KeyValueMemory, string_tool_schema
from execmem.agents.vehicle.release_prompts import (
    KV_RELEASE_NO_KEYS,
    KV_RELEASE_SYSTEM,
    KV_RELEASE_USER,
    KV_RELEASE_VERSION,
)
from execmem.core.protocols import Model

ADD = string_tool_schema(
    "memory_add",
    "Store an entry, or replace the value of a key already stored.",
    key="a key naming the person and the setting, e.g. 'Dana_ambient_light_color'",
    value="the value, short, e.g. 'blue', '44', 'on'",
)
REMOVE = string_tool_schema("memory_remove", "Delete the entry stored under a key.", key="the key to delete")
SEARCH = string_tool_schema(
    "memory_search",
    "Look up the entry stored under a key, or else every entry whose key or value contains the words.",
    key="a key, or a word to look for",
)
LIST = {
    "name": "memory_list",
    "description": "List every stored key.",
    "parameters": {"type": "object", "properties": {}, "required": []},
}


@dataclass
class ReleaseStore:
    """The entries, and the release's tools over them (``writable``: while building)."""

    entries: dict[str, str] = field(default_factory=dict)
    writable: bool = True

    def schemas(self) -> list[dict[str, Any]]:
        return [ADD, REMOVE, SEARCH] if self.writable else [SEARCH, LIST]

    async def call(self, name: str, arguments: dict[str, Any]) -> str:
        return json.dumps(self.run(name, arguments), ensure_ascii=False)

    def run(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == "memory_list":
            return {"success": True, "keys": list(self.entries), "count": len(self.entries)}
        if "key" not in arguments:
            return {"success": False, "error": f"{name} needs a 'key'"}
        key = str(arguments["key"])
        if name == "memory_search":
            return self.search(key)
        if not self.writable:
            return {"success": False, "error": f"{name} is not available"}
        if name == "memory_add":
            action = "updated" if key in self.entries else "added"
            self.entries[key] = str(arguments.get("value", ""))
            return {"success": True, "action": action, "key": key, "value": self.entries[key]}
        if self.entries.pop(key, None) is None:
            return {"success": False, "error": f"Key '{key}' not found"}
        return {"success": True, "action": "removed", "key": key}

    def search(self, key: str) -> dict[str, Any]:
        if key in self.entries:
            return {"success": True, "results": {key: self.entries[key]}}
        wanted = key.lower()
        found = {k: v for k, v in self.entries.items() if wanted in k.lower() or wanted in v.lower()}
        if found:
            return {"success": True, "results": found}
        return {"success": True, "results": {}, "message": "No matching entries found"}

    def keys_text(self) -> str:
        return ", ".join(self.entries) if self.entries else KV_RELEASE_NO_KEYS

    def read_only(self) -> ReleaseStore:
        return ReleaseStore(dict(self.entries), writable=False)


class _ListOnly:
    """What building acts on besides the offered tools: ``memory_list``, answered though not offered."""

    def __init__(self, store: ReleaseStore) -> None:
        self.store = store

    def tool_schemas(self) -> list[dict[str, Any]]:
        return []

    def run_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == "memory_list":
            return self.store.run(name, arguments)
        return {"success": False, "error": f"Unknown function: {name}"}


@dataclass
class ReleaseKeyValueMemory(KeyValueMemory):
    """A built store, searched by the agent with the release's read-only tools."""

    def tools(self) -> ReleaseStore:
        return self.store.read_only()


class ReleaseKeyValueCondition:
    """``--memory key-value --memory-style release``."""

    name = "key-value"
    style = "release"

    def __init__(self, model: Model, history_loader, cache: BuildCache, rounds: int) -> None:
        self.model, self._load, self.cache, self.rounds = model, history_loader, cache, rounds

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "style": self.style,
            "prompt_version": KV_RELEASE_VERSION,
            "rounds_per_day": self.rounds,
            "build_tools": [s["name"] for s in (ADD, REMOVE, SEARCH)],
            "answer_tools": [s["name"] for s in (SEARCH, LIST)],
        }

    async def prepare(self, scenario: int) -> ReleaseKeyValueMemory:
        cached = self.cache.load(scenario)
        if cached is not None:
            return ReleaseKeyValueMemory(
                ReleaseStore(cached["entries"]), MemoryCost.from_json(cached["cost"])
            )
        store, cost = ReleaseStore(), MemoryCost()
        started = time.perf_counter()
        for day, lines in by_day(self._load(scenario)):
            user = KV_RELEASE_USER.format(keys=store.keys_text(), day=day, dialogue=format_lines(lines))
            messages = [{"role": "system", "content": KV_RELEASE_SYSTEM}, {"role": "user", "content": user}]
            result = await run_tool_loop(self.model, _ListOnly(store), messages, store, self.rounds)
            cost.add_loop(result)
        cost.seconds = time.perf_counter() - started
        built = ReleaseKeyValueMemory(store, cost)
        self.cache.save(scenario, built.record())
        return built
