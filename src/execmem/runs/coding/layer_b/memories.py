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
from execmem.suites.coding.history import target_view
from execmem.suites.coding.records import InjectedMemory
from execmem.suites.coding.system_input import CONVERSATION_VERSION, target_query
from execmem.suites.coding.tasks import CodingTask

Entries = dict[str, dict[str, Any]]


class SystemMemories:
    """The memory of every target of a Layer B run. Opening it builds the system (registry errors,
    MemorySetupError) and reads the SIEVE history (HistoryArtifactError)."""

    def __init__(self, config: SystemMemoryConfig, run_folder: Path, history: SieveHistory) -> None:
        self.config, self.history = config, history
        self.state = run_folder / STATE_FOLDER
        self.state.mkdir(parents=True, exist_ok=True)
        offered = {"path": str(self.state / "memory.sqlite"), "windowing": WINDOWING}
        self.system: MemorySystem = open_memory(config.name, offered, config.options)
        taken = "path" in accepted_settings(memory_factory(config.name))
        self.on_disk = taken and config.options.get("path", offered["path"]) != IN_MEMORY
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
        return _slot(self.entries[target])

    def prepared(self, tasks: list[CodingTask]) -> dict[str, InjectedMemory]:
        """Every target's slot, prepared here and now (ingest and search in this process, memory.json
        written): what workers elsewhere are given instead of the system."""
        for task in tasks:
            if task.instance_id not in self.entries:
                self.entries = {**self.entries, task.instance_id: self._prepare(task)}
                self._saved(self.entries)
        return {task.instance_id: _slot(self.entries[task.instance_id]) for task in tasks}

    def _prepare(self, task: CodingTask) -> dict[str, Any]:
        view, space = target_view(task), user_space(task.instance_id)
        ingested = self._ingested(task, space)
        query = target_query(view, self.config.query)
        started = time.perf_counter()
        items = self.system.search(query, space, self.config.depth, before=view.created_at) if query else []
        search = {"seconds": round(time.perf_counter() - started, 4), "asked": self.config.depth,
                  "returned": len(items)}  # fmt: skip
        ranked = ranking(items, ingested["lines"], view)
        text, sources = fill_slot(ranked, self.config.top_k, self.config.truncate_chars)
        return {"text": text, **size(text), "sources": sources, "query": query, "user_space": space,
                "ranking": ranked, "ingested": ingested["ingested"], "ingest": ingested["ingest"],
                "search": search}  # fmt: skip

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
        """Close the system's files when it can (embedded systems and some adapters)."""
        close = getattr(self.system, "close", None)
        if callable(close):
            close()


def _slot(entry: dict[str, Any]) -> InjectedMemory:
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
