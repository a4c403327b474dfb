"""Opening a Layer B run folder: another run's folder is refused before the system touches it; then
the system is opened, the store made with the system's own description, and memory.json read back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from execmem.runs.coding.layer_b.config import SystemMemoryConfig
from execmem.runs.coding.layer_b.history import SieveHistory
from execmem.runs.coding.layer_b.memories import SystemMemories, memory_block
from execmem.runs.coding.store import MANIFEST, CodingRunStore, manifest_problems
from execmem.runs.episode_log import saved_document
from execmem.suites.coding.tasks import CodingTask

Manifest = Callable[[dict[str, Any]], dict[str, Any]]
"""The run's manifest, given its memory block."""


def _without_describe(manifest: dict[str, Any]) -> dict[str, Any]:
    memory = manifest.get("memory")
    if not isinstance(memory, dict):
        return manifest
    return {**manifest, "memory": {k: v for k, v in memory.items() if k != "describe"}}


def open_system_run(
    config: SystemMemoryConfig, folder: Path, manifest: Manifest, tasks: list[CodingTask]
) -> tuple[SystemMemories, CodingRunStore]:
    """The run's memories and its store (RunFolderError, registry errors, MemorySetupError,
    HistoryArtifactError before any episode)."""
    history = SieveHistory(config.history_dir)
    planned = _without_describe(manifest(memory_block(config, history, None)))
    saved_document(folder / MANIFEST, lambda saved: manifest_problems(_without_describe(saved), planned))
    memories = SystemMemories(config, folder, history, tasks)
    try:
        store = CodingRunStore(folder, manifest(memories.block()))
    except BaseException:
        memories.close()
        raise
    memories.resume(store.saved_memory(), [task.instance_id for task in tasks], store.save_memory)
    return memories, store
