"""The memory a run's targets get, behind one ``await memory(task)``: texts fixed up front (off,
record, frozen and the controls) or a memory system's, prepared per target (Layer B)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from execmem.runs.coding.config import CodingRunConfig
from execmem.runs.coding.layer_b.opening import open_system_run
from execmem.runs.coding.store import CodingRunStore
from execmem.suites.coding.conditions import MemorySource, memory_for
from execmem.suites.coding.records import InjectedMemory
from execmem.suites.coding.tasks import CodingTask


class TargetMemories(Protocol):
    async def memory(self, task: CodingTask) -> InjectedMemory: ...

    def close(self) -> None: ...


class FixedMemories:
    """Every target's memory, computed before the run: a condition's (records come from the whole
    task file: a subset changes the targets, not their history)."""

    def __init__(self, by_target: dict[str, InjectedMemory]) -> None:
        self.by_target = by_target

    async def memory(self, task: CodingTask) -> InjectedMemory:
        return self.by_target[task.instance_id]

    def saved(self) -> dict[str, dict[str, Any]]:
        return {key: memory.to_dict() for key, memory in self.by_target.items()}

    def close(self) -> None:
        return None


def open_memories(
    config: CodingRunConfig,
    folder: Path,
    source: MemorySource,
    tasks: list[CodingTask],
    manifest: Callable[..., dict[str, Any]],
) -> tuple[TargetMemories, CodingRunStore]:
    """The targets' memories and the run's store; ``manifest(memory_block=None)`` makes the manifest."""
    if config.system is not None:
        return open_system_run(config.system, folder, lambda block: manifest(memory_block=block), tasks)
    fixed = FixedMemories({task.instance_id: memory_for(config.memory, task, source) for task in tasks})
    store = CodingRunStore(folder, manifest())
    store.save_memory(fixed.saved())
    return fixed, store
