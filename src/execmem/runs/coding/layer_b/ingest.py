"""Writing a target's eligible history into its own user space, once, with what it cost.

Each history item is one ``add()`` (``suites.coding.system_input``), oldest first; line ids run on
from 1 over the target's items, and the marker records which lines came from which item, so a
record's ``line_ids`` name its history items. The marker (``ingested/<space>.json``) is written
after the last ``add()``: a target cut off mid-ingest is written again from a reset space.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from execmem.core.files import read_json_document, write_json_atomic
from execmem.core.protocols import MemorySystem
from execmem.memory.usage import reported_usage, usage_since
from execmem.suites.coding.history import HistoryItem, TargetView
from execmem.suites.coding.system_input import conversation


def user_space(target: str) -> str:
    """The target's user space: a hash, so the target's id never reaches the system."""
    return "target-" + hashlib.sha256(target.encode()).hexdigest()[:16]


def ingest(
    memory: MemorySystem, space: str, items: Sequence[HistoryItem], view: TargetView
) -> dict[str, Any]:
    """Reset ``space`` and write every item into it; the line ranges of each item and the cost."""
    usage, started = reported_usage(memory), time.perf_counter()
    memory.reset(space)
    ranges, line = [], 1
    for item in items:
        messages = conversation(item, view.created_at, line)
        memory.add(messages, space, messages[-1].timestamp)
        last = line + len(messages) - 1
        ranges.append({"history_id": item.instance_id, "first_line": line, "last_line": last})
        line = last + 1
    cost = {"seconds": round(time.perf_counter() - started, 4), **usage_since(memory, usage)}
    return {"ingested": [item.instance_id for item in items], "lines": ranges, "messages": line - 1,
            "ingest": {**cost, "items": len(items)}}  # fmt: skip


class IngestMarkers:
    """The ingestion records of a run's memory system (``<state>/ingested/``)."""

    def __init__(self, state: Path) -> None:
        self.folder = state / "ingested"

    def load(self, space: str) -> dict[str, Any] | None:
        path = self.folder / f"{space}.json"
        return read_json_document(path) if path.exists() else None

    def save(self, space: str, record: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.folder / f"{space}.json", record)


def history_ids(line_ids: Sequence[int], ranges: Sequence[dict[str, Any]]) -> list[str]:
    """The history items whose lines these are, in ingestion order."""
    found = {r["history_id"] for r in ranges for i in line_ids if r["first_line"] <= i <= r["last_line"]}
    return [r["history_id"] for r in ranges if r["history_id"] in found]
