"""Test doubles: in-process fakes of the A-MEM (``agentic_memory.memory_system.AgenticMemorySystem``)
and SimpleMem (``simplemem.SimpleMemSystem``) library classes, shaped like ``a-mem`` 0.2.6 and
``simplemem`` 0.1.0: notes/entries per storage directory or table, ranked by word overlap. Tests
install them as the modules the adapters import."""

from __future__ import annotations

import itertools
import os
from types import SimpleNamespace as Obj
from typing import Any

from execmem.testing.fake_memory_services import overlap, ranked

_ids = itertools.count(1)


class FakeAgenticMemorySystem:
    """``add_note`` / ``search`` / ``search_agentic`` / ``search_by_time`` / ``read`` / ``delete``."""

    stores: dict[str, dict[str, Obj]] = {}  # storage_path -> notes: persistence across instances
    built: list[dict[str, Any]] = []

    def __init__(self, **options: Any):
        FakeAgenticMemorySystem.built.append(options)
        self.options = options
        self.notes = self.stores.setdefault(options["storage_path"], {})
        os.makedirs(options["storage_path"], exist_ok=True)  # as chromadb.PersistentClient does
        self.retriever = Obj(get_all_ids=lambda: list(self.notes))
        self.llm_controller = Obj(llm=Obj(client="library client"))
        self.reads = 0

    def add_note(self, content: str, time: str | None = None, **kwargs: Any) -> str:
        assert set(kwargs) <= {"category", "id", "keywords", "tags", "context"}  # MemoryNote's fields
        note = Obj(id=f"note-{next(_ids)}", content=content, timestamp=time, keywords=["k"], tags=["t"])
        note.context, note.category, note.links = "ctx", kwargs.get("category", "Uncategorized"), []
        if self.notes:  # "evolution": link to the previous note
            note.links.append(next(reversed(self.notes)))
        self.notes[note.id] = note
        return note.id

    def _hits(self, query: str, notes: list[Obj], k: int) -> list[dict[str, Any]]:
        found = ranked(query, notes, lambda n: n.content, k)
        return [
            {"id": n.id, "score": 1.0 - overlap(query, n.content), "timestamp": n.timestamp} for n in found
        ]

    def search(self, query: str, k: int = 5) -> list[dict[str, Any]]:
        return self._hits(query, list(self.notes.values()), k)

    def search_agentic(self, query: str, k: int = 5) -> list[dict[str, Any]]:
        hits = [{**hit, "is_neighbor": False} for hit in self.search(query, k)]
        seen = {hit["id"] for hit in hits}
        for hit in list(hits):
            for link in self.notes[hit["id"]].links:
                if link not in seen and link in self.notes:
                    hits.append({"id": link, "is_neighbor": True, "timestamp": self.notes[link].timestamp})
                    seen.add(link)
        return hits[:k]

    def search_by_time(self, time_from=None, time_to=None, query=None, k: int = 10) -> list[dict[str, Any]]:
        notes = [n for n in self.notes.values() if not time_to or n.timestamp <= time_to]  # inclusive
        return self._hits(query, notes, k)

    def read(self, memory_id: str) -> Obj | None:
        self.reads += 1
        return self.notes.get(memory_id)

    def delete(self, memory_id: str) -> bool:
        self.notes.pop(memory_id, None)
        return True


class FakeSimpleMemSystem:
    """``add_dialogue`` / ``finalize`` / ``get_all_memories`` and the retrieval components, per table."""

    tables: dict[tuple[str, str], list[Obj]] = {}
    built: list[dict[str, Any]] = []
    config = Obj(embedding_model="default")

    def __init__(self, **options: Any):
        FakeSimpleMemSystem.built.append({**options, "embedding_model": self.config.embedding_model})
        self.key = (options["db_path"], options["table_name"])
        self.tables.setdefault(self.key, [])
        self.memory_builder = Obj(dialogue_buffer=[], previous_entries=["old"], processed_count=3)
        self.vector_store = Obj(
            semantic_search=self._semantic, clear=lambda: self.tables.update({self.key: []})
        )
        self.hybrid_retriever = Obj(retrieve=lambda query: self._semantic(query, top_k=25))

    def add_dialogue(self, speaker: str, content: str, timestamp: str | None = None) -> None:
        self.memory_builder.dialogue_buffer.append((speaker, content, timestamp))

    def finalize(self) -> None:  # one entry per dialogue, restated with the speaker's name
        for speaker, content, timestamp in self.memory_builder.dialogue_buffer:
            entry = Obj(entry_id=f"entry-{next(_ids)}", lossless_restatement=f"{speaker} said: {content}")
            entry.timestamp, entry.keywords, entry.persons = timestamp, ["kw"], [speaker]
            entry.location, entry.topic = None, "topic"
            self.tables[self.key].append(entry)
        self.memory_builder.dialogue_buffer = []

    def get_all_memories(self) -> list[Obj]:
        return list(self.tables[self.key])

    def _semantic(self, query: str, top_k: int = 5) -> list[Obj]:
        return ranked(query, self.tables[self.key], lambda e: e.lossless_restatement, top_k)
