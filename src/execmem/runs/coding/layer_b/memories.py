"""The ``--memory SYSTEM`` condition: each target's slot filled from a registered memory system.

A target is prepared once, before its first episode: its eligible history is ingested into its own
user space (once; the marker lets a resume skip it when the system keeps its state on disk), the
declared query is searched with the target's ``created_at`` as cut-off, and the records fill the
slot. The entry (text, sizes, ranking, ingestion and search cost) goes into memory.json, which a
resume reads back: a prepared target is never searched again. Targets are prepared one at a time.

The system's state lives in ``<run>/memory-system/`` (``memory.sqlite`` is the path offered to
systems that take one; some make it a folder). The system sees only what ``system_input`` makes of
the HistoryItems and the TargetView: no target id (the space is a hash), no gold or test patch.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execmem.core.protocols import MemorySystem
from execmem.memory import accepted_settings, memory_factory, open_memory
from execmem.memory.store import IN_MEMORY
from execmem.runs.coding.layer_b.config import STATE_FOLDER, WINDOWING, SystemMemoryConfig
from execmem.runs.coding.layer_b.history import SieveHistory
from execmem.runs.coding.layer_b.ingest import IngestMarkers, ingest, user_space
from execmem.runs.coding.layer_b.slot import fill_slot, ranking, size
from execmem.runs.executors.base import Shipment
from execmem.suites.coding.history import target_view
from execmem.suites.coding.records import InjectedMemory
from execmem.suites.coding.system_input import CONVERSATION_VERSION, target_query
from execmem.suites.coding.tasks import CodingTask

Entries = dict[str, dict[str, Any]]


class SystemMemories:
    """The memory of every target of a Layer B run. Opening it builds the system (registry errors,
    MemorySetupError) and reads the SIEVE history (HistoryArtifactError)."""

    def __init__(
        self, config: SystemMemoryConfig, run_folder: Path, history: SieveHistory, tasks: list[CodingTask]
    ) -> None:
        self.config, self.history = config, history
        self.tasks = {task.instance_id: task for task in tasks}
        self.state = run_folder / STATE_FOLDER
        self.state.mkdir(parents=True, exist_ok=True)
        self.system: MemorySystem = open_system(config, self.state)
        taken = "path" in accepted_settings(memory_factory(config.name))
        self.on_disk = taken and config.options.get("path") != IN_MEMORY
        self.markers = IngestMarkers(self.state)
        self.entries: Entries = {}
        self._ingested_here: set[str] = set()
        self._preparing = asyncio.Lock()
        self._saved: Callable[[Entries], None] = lambda entries: None

    def block(self) -> dict[str, Any]:
        """The manifest's memory block."""
        return memory_block(self.config, self.history, _portable(self.system.describe(), str(self.state)))

    def resume(self, saved: Entries, targets: list[str], on_change: Callable[[Entries], None]) -> None:
        """Keep the entries memory.json already holds for the run's targets; report every change."""
        self.entries = {t: saved[t] for t in targets if t in saved}
        self._saved = on_change
        on_change(self.entries)

    async def memory(self, task: CodingTask) -> InjectedMemory:
        """The target's slot (prepared on first use)."""
        target = task.instance_id
        if target not in self.entries:
            async with self._preparing:
                if target not in self.entries:
                    entry = await asyncio.to_thread(self._prepare, task)
                    self.entries = {**self.entries, target: entry}
                    self._saved(self.entries)
        return slot_of(self.entries[target])

    # ------------------------------------------------ the run's shared input on workers (runs.executors)

    @staticmethod
    def key(item: tuple[CodingTask, int]) -> str:
        return item[0].instance_id

    def ready(self, target: str) -> bool:
        """Prepared before (memory.json has it): the driver ships the entry."""
        return target in self.entries

    async def local(self, target: str) -> Shipment:
        await self.memory(self.tasks[target])
        return Shipment(self.entries[target], {})

    def inputs(self, target: str) -> tuple[CodingTask, list[Any]]:
        """What a worker ingests: the target and its eligible history (workers hold no SIEVE folder)."""
        return self.tasks[target], self.history.eligible(target)

    def adopt(self, target: str, shipment: Shipment) -> None:
        """A worker's entry into memory.json (the store it ingested stayed there: a resume reads
        the entry, never the store)."""
        self.entries = {**self.entries, target: shipment.value}
        self._saved(self.entries)

    def _prepare(self, task: CodingTask) -> dict[str, Any]:
        ingested = self._ingested(task, user_space(task.instance_id))
        return prepare_target(self.system, self.config, task, ingested)

    def _ingested(self, task: CodingTask, space: str) -> dict[str, Any]:
        """The target's ingestion record: the marker when its space still holds it, else a new ingest."""
        marker = self.markers.load(space)
        if marker is not None and (self.on_disk or space in self._ingested_here):
            return {**marker, "ingest": {**marker["ingest"], "reused": True}}
        record = ingest(self.system, space, self.history.eligible(task.instance_id), target_view(task))
        self.markers.save(space, record)
        self._ingested_here.add(space)
        return record

    def close(self) -> None:
        close_system(self.system)


def open_system(config: SystemMemoryConfig, folder: Path, own_store: bool = False) -> MemorySystem:
    """The run's system, offered ``folder/memory.sqlite`` as its store; with ``own_store`` a path
    the options name is replaced by that one too (a worker's store is its own, never the run's)."""
    offered = {"path": str(folder / "memory.sqlite"), "windowing": WINDOWING}
    options = dict(config.options)
    if own_store and options.get("path", IN_MEMORY) != IN_MEMORY:
        options["path"] = offered["path"]
    return open_memory(config.name, offered, options)


def close_system(system: MemorySystem) -> None:
    """Close the system's files when it can (embedded systems and some adapters)."""
    close = getattr(system, "close", None)
    if callable(close):
        close()


def prepare_target(
    system: MemorySystem, config: SystemMemoryConfig, task: CodingTask, ingested: dict[str, Any]
) -> dict[str, Any]:
    """The target's memory.json entry: its space (holding ``ingested``) searched, the slot filled."""
    view, space = target_view(task), user_space(task.instance_id)
    query = target_query(view, config.query)
    started = time.perf_counter()
    items = system.search(query, space, config.depth, before=view.created_at) if query else []
    search = {"seconds": round(time.perf_counter() - started, 4), "asked": config.depth,
              "returned": len(items)}  # fmt: skip
    ranked = ranking(items, ingested["lines"], view)
    text, sources = fill_slot(ranked, config.top_k, config.truncate_chars)
    return {"text": text, **size(text), "sources": sources, "query": query, "user_space": space,
            "ranking": ranked, "ingested": ingested["ingested"], "ingest": ingested["ingest"],
            "search": search}  # fmt: skip


def slot_of(entry: dict[str, Any]) -> InjectedMemory:
    """A memory.json entry as what the slot holds."""
    return InjectedMemory(entry["text"], tuple(entry["sources"]))


def memory_block(config: SystemMemoryConfig, history: SieveHistory, describe: Any) -> dict[str, Any]:
    """The manifest's memory block of a Layer B run (``describe``: the system's own, or None before
    it is opened)."""
    return {
        "condition": "system",
        "system": config.name,
        "describe": describe,
        **config.policy(),
        "conversation": CONVERSATION_VERSION,
        "user_space": "target-<sha256(target id)[:16]>, one per target",
        "history": history.identity(),
    }


def _portable(value: Any, state: str) -> Any:
    """``value`` with the run's state folder written as ``<run>/memory-system``: where the state is
    kept is not what the system is, so a moved run folder still resumes."""
    if isinstance(value, dict):
        return {key: _portable(item, state) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_portable(item, state) for item in value]
    if isinstance(value, str) and value.startswith(state):
        return f"<run>/{STATE_FOLDER}{value[len(state) :]}"
    return value
