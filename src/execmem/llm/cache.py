"""A response cache keyed on the full request, so resuming or re-scoring never pays twice."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any


def request_key(request: dict[str, Any]) -> str:
    """sha256 of the JSON of everything sent (model, messages, tools, sampling).

    Keys are not sorted: requests are built in a fixed order, and sorting a request that
    carries every tool schema costs more than the request's hashing itself."""
    canonical = json.dumps(request, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Raw chat-completion responses in one SQLite file (safe to share between runs)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL survives a killed process
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, response TEXT NOT NULL)"
        )

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, response: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, response) VALUES (?, ?)", (key, json.dumps(response))
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()
