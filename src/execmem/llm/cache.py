"""A response cache keyed on the full request, so resuming or re-scoring never pays twice.

The key is the sha256 of the request's JSON as sent (model, messages, tools, sampling); the
value is the response's JSON text, stored only after it parsed as a chat completion. Writes are
batched into one transaction every ``flush_every`` answers or ``flush_interval_s`` (and on
close): a killed run loses at most those answers, which it then asks for again.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Protocol


class Cache(Protocol):
    """What the client needs of a response cache: this file's, or a cluster's (the Ray executor
    keeps the run's file on the driver's node and answers its workers' lookups)."""

    async def lookup(self, key: str) -> str | None: ...

    def put_text(self, key: str, text: str) -> None: ...


def request_key(request: dict[str, Any]) -> str:
    """sha256 of the request's JSON in the form the client sends it.

    Keys are not sorted: requests are built in a fixed order, and sorting a request that
    carries every tool schema costs more than the request's hashing itself."""
    canonical = json.dumps(request, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class CacheError(ValueError):
    """A cache file that cannot be used; the message names it and what to do."""


class ResponseCache:
    """Raw chat-completion responses in one SQLite file (safe to share between runs)."""

    def __init__(self, path: Path, flush_every: int = 256, flush_interval_s: float = 1.0) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.flush_every, self.flush_interval_s = flush_every, flush_interval_s
        self._pending: dict[str, str] = {}
        self._flushed_at = time.monotonic()
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL survives a killed process
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, response TEXT NOT NULL)"
            )
        except sqlite3.DatabaseError as exc:  # a damaged file, or no SQLite file at all
            raise CacheError(
                f"{path}: not a readable response cache ({exc}); it only holds answers already "
                "received: delete it (and its -wal/-shm files) and re-run, which asks for them again"
            ) from None

    async def lookup(self, key: str) -> str | None:
        return self.get_text(key)

    def get_text(self, key: str) -> str | None:
        with self._lock:
            if key in self._pending:
                return self._pending[key]
            row = self._db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def keys(self) -> set[str]:
        """Every key answered so far."""
        with self._lock:
            stored = {row[0] for row in self._db.execute("SELECT key FROM responses")}
            return stored | set(self._pending)

    def put_text(self, key: str, text: str) -> None:
        with self._lock:
            self._pending[key] = text
            due = time.monotonic() - self._flushed_at >= self.flush_interval_s
            if due or len(self._pending) >= self.flush_every:
                self._flush()

    def get(self, key: str) -> dict[str, Any] | None:
        text = self.get_text(key)
        return json.loads(text) if text is not None else None

    def put(self, key: str, response: dict[str, Any]) -> None:
        self.put_text(key, json.dumps(response))

    def flush(self) -> None:
        with self._lock:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._db.execute("BEGIN")  # one transaction for the batch
            self._db.executemany(
                "INSERT OR REPLACE INTO responses (key, response) VALUES (?, ?)", self._pending.items()
            )
            self._db.execute("COMMIT")
            self._pending.clear()
        self._flushed_at = time.monotonic()

    def close(self) -> None:
        with self._lock:
            self._flush()
            self._db.close()
