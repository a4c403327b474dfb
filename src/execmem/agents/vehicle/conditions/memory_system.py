"""Protocol B: a registered memory system holds each scenario's history; the agent searches it.

Every scenario gets its own user space (``<space>-<scenario>``) in the run's memory system, which
keeps its state in one SQLite file. The history is written one clock hour per ``add()``, then the
agent gets a ``search_memory`` tool over that space (no time cut-off: all of a scenario's history
precedes its questions). Ingestion runs one scenario at a time, so each scenario's recorded
seconds are its own; a scenario is ingested once per run (a marker file records it with its cost),
so a resumed run reuses what was written, and a scenario cut off mid-ingest is written again.

A scenario ingested on another machine (a Ray worker) arrives as its own store, kept in
``scenario-N/`` beside the run's file; its marker names that folder (``store``), and searches of
the scenario go to it. ``pack_store`` packs the files of a store for shipping.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execmem.agents.vehicle.conditions.base import MemoryCost
from execmem.agents.vehicle.conditions.ingest import ingest_history
from execmem.agents.vehicle.conditions.memory_search import SearchMemoryTool
from execmem.core.archive import pack_folder, unpack_folder
from execmem.core.files import is_temporary, read_json_document, write_json_atomic
from execmem.core.protocols import MemorySystem, Usage
from execmem.memory import MemorySetupError, open_memory
from execmem.suites.vehicle.dataset import HistoryLine, Question
from execmem.suites.vehicle.lexicon import car_lexicon

DEFAULT_WINDOWING = "hour"
MAX_TOP_K = 20
STORE_FILE = "memory.sqlite"
SHARED_STORE = "shared"
MARKER_SUFFIX = ".ingested.json"
_OWN_STORE = re.compile(r"^scenario-[0-9]+$")


def open_system(name: str, path: str, options: Mapping[str, Any]) -> MemorySystem:
    """The registered system ``name``, with ``options``; unknown names and missing extras raise the
    registry's own errors, a system that refuses its options raises MemorySetupError.

    Three settings are *offered* unless ``options`` gives them: ``path`` (the SQLite file for the
    state), ``windowing`` (``DEFAULT_WINDOWING``) and ``lexicon`` (the car's tool vocabulary, for
    systems that take domain terms), each only to a system that declares it takes it (``accepts``,
    see ``memory.registry``). Adapters with their own storage and plugins that declare nothing are
    built with the user's options alone.
    """
    offered = {"path": path, "windowing": DEFAULT_WINDOWING, "lexicon": list(car_lexicon())}
    return open_memory(name, offered, options)


@dataclass
class SystemMemory:
    """One scenario's space in the run's memory system, searched through a tool."""

    memory: MemorySystem
    user_id: str
    top_k: int
    cost: MemoryCost = field(default_factory=MemoryCost)
    notes: dict[str, Any] = field(default_factory=dict)

    def prompt_memory(self, question: Question) -> str | None:
        return None

    def tools(self) -> SearchMemoryTool:
        return SearchMemoryTool(self.memory, self.user_id, self.top_k, MAX_TOP_K)

    def record(self) -> dict[str, Any]:
        return {"user_id": self.user_id, **self.notes, "cost": self.cost.to_json()}


class MemorySystemCondition:
    """The ``--memory NAME`` condition for any registered memory system."""

    def __init__(
        self,
        name: str,
        memory: MemorySystem,
        history_loader: Callable[[int], list[HistoryLine]],
        state_dir: Path,
        space: str,
        top_k: int,
        open_store: Callable[[Path], MemorySystem] | None = None,
    ) -> None:
        self.name, self.memory, self._load = name, memory, history_loader
        self.state_dir, self.space, self.top_k = state_dir, space, top_k
        self._open_store = open_store  # a store file -> the system over it (scenarios ingested elsewhere)
        self._stores: dict[str, MemorySystem] = {}
        self._ingesting = asyncio.Lock()

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "protocol": "B",
            "system": self.memory.describe(),
            "ingest": "one add() per clock hour of history, stamped with its last line",
            "user_space": f"{self.space}-<scenario>",
            "search": {"tool": "search_memory", "top_k": self.top_k, "max_top_k": MAX_TOP_K, "before": None},
        }

    def user_id(self, scenario: int) -> str:
        return f"{self.space}-{scenario}"

    async def prepare(self, scenario: int) -> SystemMemory:
        async with self._ingesting:
            record = self._ingested(scenario) or await asyncio.to_thread(self._ingest, scenario)
        cost = MemoryCost.from_json(record["cost"])
        notes = {"lines": record["lines"], "hours": record["hours"]}
        return SystemMemory(self._system(record), self.user_id(scenario), self.top_k, cost, notes)

    def _system(self, record: dict[str, Any]) -> MemorySystem:
        """The run's system, or the scenario's own store when it was ingested elsewhere."""
        folder = record.get("store")
        if folder is None:
            return self.memory
        if folder not in self._stores:
            if self._open_store is None:
                raise MemorySetupError(f"{self.state_dir / folder}: no way to open a scenario's own store")
            self._stores[folder] = self._open_store(self.state_dir / folder / STORE_FILE)
        return self._stores[folder]

    def _marker(self, scenario: int) -> Path:
        return self.state_dir / f"scenario-{scenario}{MARKER_SUFFIX}"

    def _ingested(self, scenario: int) -> dict[str, Any] | None:
        path = self._marker(scenario)
        return read_json_document(path) if path.exists() else None

    def ingestion(self, scenario: int) -> dict[str, Any] | None:
        """The scenario's marker (lines, hours, cost; ``store`` when it has its own), or None."""
        return self._ingested(scenario)

    def store_of(self, scenario: int) -> str:
        """The store holding an ingested scenario's space: its own folder, or ``shared`` (the run's)."""
        return (self._ingested(scenario) or {}).get("store") or SHARED_STORE

    def pack_store(self, store: str) -> bytes:
        """A store's files, packed (the run's without the markers and the scenarios' own stores)."""
        if store == SHARED_STORE:
            return pack_folder(self.state_dir, keep=_shared_state)
        return pack_folder(self.state_dir / store)

    def adopt(self, scenario: int, files: bytes, record: dict[str, Any]) -> None:
        """Keep a store ingested elsewhere as the scenario's own, then mark the scenario done."""
        folder = own_store(scenario)
        shutil.rmtree(self.state_dir / folder, ignore_errors=True)
        unpack_folder(files, self.state_dir / folder)
        self._stores.pop(folder, None)
        write_json_atomic(self._marker(scenario), {**record, "store": folder})

    def close(self) -> None:
        """Close the systems that can be closed (their files are complete afterwards)."""
        for system in [self.memory, *self._stores.values()]:
            close = getattr(system, "close", None)
            if callable(close):
                close()

    def _ingest(self, scenario: int) -> dict[str, Any]:
        """Write the scenario's history into a clean space, then mark it done."""
        user_id = self.user_id(scenario)
        self.memory.reset(user_id)
        done = ingest_history(self.memory, user_id, self._load(scenario))
        usage = Usage(done.usage["input_tokens"], done.usage["output_tokens"])
        cost = MemoryCost(done.usage["llm_calls"], usage, done.seconds)
        record = {"lines": done.lines, "hours": done.hours, "cost": cost.to_json()}
        self.state_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self._marker(scenario), record)
        return record


def own_store(scenario: int) -> str:
    """The folder of a scenario's own store (one ingested elsewhere), beside the run's."""
    return f"scenario-{scenario}"


def _shared_state(path: Path) -> bool:
    """Whether a path of the state folder belongs to the run's own store."""
    name = path.parts[0]
    return not (
        name.endswith(MARKER_SUFFIX) or name.endswith("-shm") or is_temporary(name) or _OWN_STORE.match(name)
    )
