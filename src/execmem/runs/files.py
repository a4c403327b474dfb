"""Crash-safe files: atomic JSON documents and append-only JSON lines.

A kill at any moment leaves every file readable: documents are replaced
atomically, and a JSON-lines file loses at most a torn last line, which is
cut off before anything new is appended.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any


def write_json_atomic(path: Path, document: Any) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The complete records of a JSON-lines file (a torn last line is ignored)."""
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if not line.endswith("\n"):
            break  # torn by a kill mid-write
        if line.strip():
            records.append(json.loads(line))
    return records


class JsonlAppender:
    """Appends one record per line, each written whole with one ``write``.

    A written line is in the OS and survives a killed process at once. With
    ``durable``, lines are also fsynced (at most every ``sync_interval_s``, and
    on close), so a machine crash loses at most that window, without an fsync
    stalling every append.
    """

    def __init__(self, path: Path, durable: bool = True, sync_interval_s: float = 0.2) -> None:
        self.path = path
        self.durable = durable
        self.sync_interval_s = sync_interval_s
        self._synced_at = time.monotonic()
        self._dirty = False
        _cut_torn_tail(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, record: dict[str, Any]) -> None:
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        os.write(self._fd, data)
        self._dirty = self.durable
        if self._dirty and time.monotonic() - self._synced_at >= self.sync_interval_s:
            self.sync()

    def sync(self) -> None:
        if self._dirty:
            os.fsync(self._fd)
            self._dirty = False
        self._synced_at = time.monotonic()

    def close(self) -> None:
        self.sync()
        os.close(self._fd)


def _cut_torn_tail(path: Path) -> None:
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as handle:
            handle.truncate(data.rfind(b"\n") + 1)
