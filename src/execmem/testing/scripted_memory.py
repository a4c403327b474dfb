"""Test double: a memory system that answers each query with fixed items and records what was added."""

from __future__ import annotations

from datetime import datetime

from execmem.core.protocols import MemoryItem


class ScriptedMemory:
    """Answers each query with fixed items; records what was added (``adds``)."""

    def __init__(self, answers: dict[str, list[MemoryItem]]):
        self.answers = answers
        self.adds: list[tuple[str, list[int], datetime]] = []

    def add(self, messages, user_id, timestamp):
        self.adds.append((user_id, [m.line_id for m in messages], timestamp))

    def search(self, query, user_id, top_k, before=None):
        return self.answers.get(query, [])[:top_k]

    def reset(self, user_id):
        pass

    def describe(self):
        return {"system": "scripted"}
