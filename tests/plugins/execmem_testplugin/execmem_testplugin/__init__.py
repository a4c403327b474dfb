"""A trivial memory system: the most recent messages that share a word with the query."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from execmem.core.protocols import MemoryItem, MemoryMessage

_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)}


class RecentMemory:
    """Keeps every message per user in a list; ``label`` shows that config reaches the factory."""

    def __init__(self, label: str = "recent"):
        self.label = label
        self._spaces: dict[str, list[MemoryMessage]] = {}

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        self._spaces.setdefault(user_id, []).extend(messages)

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        wanted = _words(query)
        hits = [
            m
            for m in self._spaces.get(user_id, [])
            if (before is None or m.timestamp < before) and wanted & _words(m.text)
        ]
        hits = hits[::-1][:top_k]
        line_ids = [() if m.line_id is None else (m.line_id,) for m in hits]
        return [MemoryItem(m.text, 1.0, (m.timestamp,), ids) for m, ids in zip(hits, line_ids, strict=True)]

    def reset(self, user_id: str) -> None:
        self._spaces.pop(user_id, None)

    def describe(self) -> dict[str, Any]:
        return {"system": "recent", "label": self.label}
