"""A side file of source records, for systems that keep no caller metadata on what they store.

The adapter names each stored thing by a key it can rebuild from what the system returns (a hash
of its text and the system's own stamp) and records that thing's source record
(``execmem.memory.adapters.common``) under the key. ``latest`` is the latest source time written
so far: what a system derives from everything it holds (a profile, extracted knowledge) cannot be
older than that, whatever order the writes came in.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from execmem.core.files import write_json_atomic
from execmem.memory.adapters.common import TIME


def key_of(*parts: str) -> str:
    """A stable key for a stored thing from the parts that identify it."""
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]


class SourceLedger:
    """Key -> source record, read from and saved to one JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: dict[str, dict[str, Any]] = {}
        self.latest: float | None = None
        if path.exists():
            saved = json.loads(path.read_text(encoding="utf-8"))
            self.records, self.latest = saved["records"], saved["latest"]

    def get(self, key: str) -> dict[str, Any] | None:
        return self.records.get(key)

    def stamp(self, key: str, record: dict[str, Any]) -> None:
        """Record the source of a thing written now (its latest time counts towards ``latest``)."""
        self.records[key] = record
        self.latest = max(self.latest or record[TIME], record[TIME])

    def stamp_derived(self, key: str, record: dict[str, Any]) -> None:
        """Record a thing the system derived while ``record``'s call ran: stamped no earlier than
        anything written so far. A key already known keeps its first stamp."""
        if key not in self.records:
            self.records[key] = {**record, TIME: max(self.latest or record[TIME], record[TIME])}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.path, {"records": self.records, "latest": self.latest})

    def delete(self) -> None:
        self.records, self.latest = {}, None
        self.path.unlink(missing_ok=True)
