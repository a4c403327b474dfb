"""A Layer B run's targets on workers elsewhere (``runs.executors``): the driver ships the entries
memory.json already holds; a target without one is prepared by a worker as a task of its own.

The worker ingests the target's eligible history (sent by the driver: workers hold no SIEVE folder)
into a store of its own in its scratch folder, searches it as one process would
(:func:`~execmem.runs.coding.layer_b.memories.prepare_target`), and removes the store; the entry
travels back and the driver writes it into memory.json, which a resume reads (the store is never
needed again). Episodes on the worker read the entries the driver installs.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

from execmem.runs.coding.layer_b.config import SystemMemoryConfig
from execmem.runs.coding.layer_b.ingest import ingest, user_space
from execmem.runs.coding.layer_b.memories import (
    SystemMemories,
    close_system,
    open_system,
    prepare_target,
    slot_of,
)
from execmem.runs.executors.base import Shipment
from execmem.suites.coding.history import HistoryItem, target_view
from execmem.suites.coding.records import InjectedMemory
from execmem.suites.coding.tasks import CodingTask


class WorkerTargetMemories:
    """The targets' memories on one worker: prepared here, or installed as the driver sent them."""

    def __init__(self, config: SystemMemoryConfig) -> None:
        self.config = config
        self.scratch: Path | None = None  # the worker's, set when the runner copy is attached
        self.by_target: dict[str, InjectedMemory] = {}

    key = staticmethod(SystemMemories.key)

    async def memory(self, task: CodingTask) -> InjectedMemory:
        if task.instance_id not in self.by_target:
            raise KeyError(f"the memory of {task.instance_id} was not sent to this worker")
        return self.by_target[task.instance_id]

    async def remote(self, target: str, inputs: tuple[CodingTask, list[HistoryItem]]) -> Shipment:
        task, items = inputs
        return Shipment(await asyncio.to_thread(self._prepare, task, items), {})

    def install(self, target: str, value: dict[str, Any], parts: dict[str, bytes]) -> None:
        self.by_target[target] = slot_of(value)

    def close(self) -> None:
        return None

    def _prepare(self, task: CodingTask, items: list[HistoryItem]) -> dict[str, Any]:
        space = user_space(task.instance_id)
        folder = self._scratch() / space
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        system = open_system(self.config, folder, own_store=True)
        try:
            ingested = ingest(system, space, items, target_view(task))
            return prepare_target(system, self.config, task, ingested)
        finally:
            close_system(system)
            shutil.rmtree(folder, ignore_errors=True)

    def _scratch(self) -> Path:
        if self.scratch is None:
            raise RuntimeError("a worker's Layer B memories are used before the runner was attached")
        return self.scratch
