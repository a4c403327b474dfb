"""Each scenario's memory, made once per run and shared by the scenario's episodes.

In one process (the local executor) :meth:`ScenarioMemories.get` builds a scenario's memory with
the run's condition when its first episode asks, and records it in ``memory/``. For executors with
workers elsewhere it is the run's shared input: a memory with nothing to build, or built before
(cached, ingested), is made on the driver and shipped; any other is made by a worker
(:class:`WorkerMemories`) from the scenario's dialogue, which is sent along (workers need no copy
of the data), and the driver keeps what the worker made (the build cache entry, the ingested
store) where a local run would have put it.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execmem.agents.vehicle.conditions.base import MemoryCondition, ScenarioMemory
from execmem.agents.vehicle.conditions.memory_system import STORE_FILE, MemorySystemCondition, own_store
from execmem.core.archive import unpack_folder
from execmem.core.protocols import MemorySystem
from execmem.runs.executors.base import Shipment
from execmem.runs.vehicle.conditions import History
from execmem.runs.vehicle.memory_shipping import is_built, keep, opened, ship
from execmem.runs.vehicle.trials import Trial

FreshCondition = Callable[[History, Path], MemoryCondition]
"""A new condition reading the given dialogue, keeping its state under the given folder."""
Memories = dict[int, "asyncio.Future[ScenarioMemory]"]


def scenario_of(item: Trial) -> int:
    return item.question.scenario


def memory_of(memories: Memories, scenario: int, build: Callable[[], Any]) -> asyncio.Future[ScenarioMemory]:
    """The scenario's memory, started with ``build()`` on first use (or after a cancelled build)."""
    if scenario not in memories or memories[scenario].cancelled():
        memories[scenario] = asyncio.ensure_future(build())
    return memories[scenario]


class ScenarioMemories:
    """The memories of one run's scenarios, on the driver."""

    def __init__(self, condition: MemoryCondition, store: Any, history: History) -> None:
        self.condition, self.store, self.history = condition, store, history
        self._memories: Memories = {}
        self._packed: dict[str, bytes] = {}

    key = staticmethod(scenario_of)

    def get(self, scenario: int) -> asyncio.Future[ScenarioMemory]:
        """The scenario's memory, built here on first use."""
        return memory_of(self._memories, scenario, lambda: self._build(scenario))

    async def _build(self, scenario: int) -> ScenarioMemory:
        memory = await self.condition.prepare(scenario)
        self.store.save_memory(scenario, memory.record())
        return memory

    def ready(self, scenario: int) -> bool:
        return is_built(self.condition, scenario)

    async def local(self, scenario: int) -> Shipment:
        memory = await self.get(scenario)
        return ship(self.condition, scenario, memory, self._packed)

    def inputs(self, scenario: int) -> Any:
        return self.history(scenario)

    def adopt(self, scenario: int, shipment: Shipment) -> None:
        keep(self.condition, scenario, shipment)


class WorkerMemories:
    """The memories a worker's episodes use: built on this worker, or installed as sent."""

    def __init__(
        self, store: Any, fresh: FreshCondition, scratch: Path, open_store: Callable[[Path], MemorySystem]
    ) -> None:
        self.store, self._fresh, self.scratch, self._open_store = store, fresh, scratch, open_store
        self._memories: Memories = {}
        self._stores: dict[str, MemorySystem] = {}

    key = staticmethod(scenario_of)

    def get(self, scenario: int) -> asyncio.Future[ScenarioMemory]:
        if scenario not in self._memories:
            raise KeyError(f"scenario {scenario}'s memory was not sent to this worker")
        return self._memories[scenario]

    async def remote(self, scenario: int, history: Any) -> Shipment:
        """Build the memory here, with a condition of its own (a store of its own, for a system)."""
        folder = self.scratch / f"build-{scenario}"
        shutil.rmtree(folder, ignore_errors=True)
        condition = self._fresh(lambda _scenario: history, folder)
        try:
            memory = await condition.prepare(scenario)
            self.store.save_memory(scenario, memory.record())
            if isinstance(condition, MemorySystemCondition):
                condition.close()  # the store's files are complete before they are packed
            return ship(condition, scenario, memory, {}, name=own_store(scenario))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def install(self, scenario: int, value: Any, parts: dict[str, bytes]) -> None:
        for name, files in parts.items():
            unpack_folder(files, self.scratch / "stores" / name)
        future: asyncio.Future[ScenarioMemory] = asyncio.get_running_loop().create_future()
        future.set_result(opened(value, self._system))
        self._memories[scenario] = future

    def _system(self, store: str) -> MemorySystem:
        """One system per store sent to this worker, shared by the scenarios it holds."""
        if store not in self._stores:
            self._stores[store] = self._open_store(self.scratch / "stores" / store / STORE_FILE)
        return self._stores[store]
