"""A scenario's memory between machines: packed where it was made, opened where it is used, and kept
by the driver as a run in one process would have kept it.

Memories that are data (a prompt text, key-value entries) travel as they are. A memory system's
memory is a user space in a store: it travels as a :class:`ShippedStore` naming the store, whose
packed files go with it as a part (sent once per store, however many scenarios it holds), and each
worker opens the system over its own copy of those files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from execmem.agents.vehicle.conditions.base import MemoryCondition, MemoryCost, ScenarioMemory
from execmem.agents.vehicle.conditions.build_cache import BuildCache
from execmem.agents.vehicle.conditions.memory_system import MemorySystemCondition, SystemMemory
from execmem.core.protocols import MemorySystem
from execmem.runs.executors.base import Shipment


@dataclass(frozen=True)
class ShippedStore:
    """A scenario's space in a memory system's store, without the store itself."""

    store: str  # the part holding the store's files
    user_id: str
    top_k: int
    cost: dict[str, Any]
    notes: dict[str, Any]
    marker: dict[str, Any]  # the ingestion record, which the driver keeps


def is_built(condition: MemoryCondition, scenario: int) -> bool:
    """Whether the scenario's memory can be had here at once: nothing to build, or built before."""
    if isinstance(condition, MemorySystemCondition):
        return condition.ingestion(scenario) is not None
    cache = getattr(condition, "cache", None)
    return not isinstance(cache, BuildCache) or cache.path(scenario).exists()


def ship(
    condition: MemoryCondition,
    scenario: int,
    memory: ScenarioMemory,
    packed: dict[str, bytes],
    name: str | None = None,
) -> Shipment:
    """``memory`` for the workers; a store's files are packed once into ``packed`` (by store), and
    sent under the store's name (or ``name``: a store made on a worker is the scenario's own)."""
    if not isinstance(memory, SystemMemory):
        return Shipment(memory)
    assert isinstance(condition, MemorySystemCondition)
    store = condition.store_of(scenario)
    if store not in packed:
        packed[store] = condition.pack_store(store)
    marker = condition.ingestion(scenario) or {}
    sent = name or store
    value = ShippedStore(sent, memory.user_id, memory.top_k, memory.cost.to_json(), memory.notes, marker)
    return Shipment(value, {sent: packed[store]})


def keep(condition: MemoryCondition, scenario: int, shipment: Shipment) -> None:
    """On the driver: what a worker made goes where this process would have put it (an ingested
    store beside the run's, a built memory into the build cache)."""
    value = shipment.value
    if isinstance(value, ShippedStore):
        assert isinstance(condition, MemorySystemCondition)
        condition.adopt(scenario, shipment.parts[value.store], value.marker)
        return
    cache = getattr(condition, "cache", None)
    if isinstance(cache, BuildCache) and not cache.path(scenario).exists():
        cache.save(scenario, value.record())


def opened(value: Any, system: Callable[[str], MemorySystem]) -> ScenarioMemory:
    """The memory a shipped value stands for; ``system(store)`` opens a store sent before."""
    if not isinstance(value, ShippedStore):
        return value
    cost = MemoryCost.from_json(value.cost)
    return SystemMemory(system(value.store), value.user_id, value.top_k, cost, value.notes)
