"""Writing a scenario's history into a memory system, one clock hour per ``add()``.

Each message keeps its timestamp and its source line (the history file's ``line_no``), so
systems that record sources can say which lines an item came from. An hour is written with the
timestamp of its last line, as if the memory were updated just after each hour of dialogue.

Cost: wall seconds, plus model calls and tokens for systems that report them
(``execmem.memory.usage``: the difference of the system's running totals across ingestion).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby

from execmem.core.protocols import MemoryMessage, MemorySystem
from execmem.memory.usage import reported_usage, usage_since
from execmem.suites.vehicle.dataset import HistoryLine


@dataclass(frozen=True)
class Ingestion:
    """What writing one history cost."""

    lines: int
    hours: int
    seconds: float
    usage: Mapping[str, int]


def to_message(line: HistoryLine) -> MemoryMessage:
    return MemoryMessage(line.speaker, line.text, line.timestamp, line.line_no)


def by_hour(history: Sequence[HistoryLine]) -> list[list[HistoryLine]]:
    """Consecutive lines of the same date and clock hour, oldest first."""
    return [list(group) for _, group in groupby(history, key=_hour)]


def _hour(line: HistoryLine) -> datetime:
    return line.timestamp.replace(minute=0, second=0, microsecond=0)


def ingest_history(memory: MemorySystem, user_id: str, history: Sequence[HistoryLine]) -> Ingestion:
    """Add the history to ``user_id``'s space, one hour per call; what it cost."""
    before = reported_usage(memory)
    started = time.perf_counter()
    hours = by_hour(history)
    for lines in hours:
        memory.add([to_message(line) for line in lines], user_id, lines[-1].timestamp)
    seconds = time.perf_counter() - started
    return Ingestion(len(history), len(hours), seconds, usage_since(memory, before))
