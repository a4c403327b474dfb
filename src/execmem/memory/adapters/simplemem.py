"""``simplemem``: SimpleMem's ``SimpleMemSystem`` (``pip install "execmem[simplemem]"``).

SimpleMem turns windows of dialogue into self-contained "memory entries" with an LLM (coreference
and relative times resolved) and indexes them in LanceDB, embedded by a sentence-transformers model.
Its headline call ``ask()`` answers a question; the adapter uses the retrieval ``ask()`` runs on, which
returns the entries themselves.

* **User spaces**: one ``SimpleMemSystem`` per user, each with its own LanceDB table
  ``execmem_<user id slugged>`` in the directory ``path`` (``None``: a temporary directory removed
  by ``close()``). Every system loads its own embedding model.
* **Timestamps**: each message is ``add_dialogue(speaker, text, timestamp=<ISO 8601>)``, and each
  ``add()`` call is processed right away (``finalize()``), so the entries it produces come from that
  call alone. Entries hold no free metadata: the adapter keeps the source record of every new entry
  (all stamped with the latest message of the call, as for mem0 with ``infer``) in a side file
  ``<path>/<table>.execmem.json``. An entry's own ``timestamp`` is the model's and is kept as
  ``simplemem_timestamp``.
* **Cut-off**: after retrieval, against the source records (SimpleMem's only time filter matches
  the model's event times, not when something was said). Entries without a record are hidden.
* **Search**: ``retrieval="semantic"`` is ``vector_store.semantic_search(query, top_k)`` (``top_k *
  overfetch`` under a cut-off); ``"hybrid"`` is ``hybrid_retriever.retrieve(query)``, SimpleMem's
  planning retrieval (LLM calls per query; ``reflection`` adds rounds). Scores are ``1 / rank``.
* ``reset`` drops the user's table and the builder's buffer and "previous entries" context.
* The embedding model is set through SimpleMem's global config (``get_config().embedding_model``),
  the only way its constructor takes one. SimpleMem prints its progress to stdout.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.adapters.common import (
    PerUserSystems,
    StateDirectory,
    make_item,
    name_id,
    openai_key,
    package_version,
    source_metadata,
    visible,
)
from execmem.memory.registry import MissingExtraError


class SimpleMemConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    path: StateDirectory = Field(default=None, description="LanceDB directory (absolute); None: temporary")
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint (…/v1)")
    api_key_env: str = "OPENAI_API_KEY"
    model: str = Field(default="gpt-4.1-mini", description="chat model for extraction (and planning)")
    embedding_model: str = Field(
        default="Qwen/Qwen3-Embedding-0.6B", description="sentence-transformers model (hub name or directory)"
    )
    retrieval: Literal["semantic", "hybrid"] = "semantic"
    reflection: bool = Field(default=False, description="hybrid only: SimpleMem's reflection rounds")
    overfetch: int = Field(default=4, ge=1, description="semantic under a cut-off: top_k * overfetch")
    parallel: bool = Field(default=False, description="SimpleMem's parallel window processing")


def _import_simplemem() -> Any:
    try:
        import simplemem
    except ImportError as exc:
        raise MissingExtraError("the 'simplemem' memory adapter", "execmem", "simplemem", exc) from exc
    return simplemem


class SimpleMemMemory(PerUserSystems):
    """A ``MemorySystem`` over SimpleMem's memory entries, one ``SimpleMemSystem`` per user space."""

    accepts = frozenset({"path"})  # the state directory; windowing is the system's own

    def __init__(self, config: SimpleMemConfig | None = None, **options: Any):
        self.config = config or SimpleMemConfig(**options)
        self._simplemem = _import_simplemem()
        self._sources: dict[str, dict[str, dict[str, Any]]] = {}
        self._init_systems(self.config.path, "execmem-simplemem-")
        os.makedirs(self.root, exist_ok=True)

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        if not messages:
            return
        with self._lock:
            system = self.system(user_id)
            known = {entry.entry_id for entry in system.get_all_memories()}
            for message in messages:
                system.add_dialogue(message.speaker, message.text, message.timestamp.isoformat())
            system.finalize()
            record = source_metadata(messages, timestamp)
            sources = self.sources(user_id)
            for entry in system.get_all_memories():
                if entry.entry_id not in known:
                    sources[entry.entry_id] = record
            self._save(user_id)

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        if top_k <= 0:
            return []
        with self._lock:
            if not self._exists(user_id):
                return []
            system = self.system(user_id)
            if self.config.retrieval == "hybrid":
                entries = system.hybrid_retriever.retrieve(query)
            else:
                k = top_k * self.config.overfetch if before is not None else top_k
                entries = system.vector_store.semantic_search(query, top_k=k)
            sources = self.sources(user_id)
            kept = [(e, sources.get(e.entry_id)) for e in entries]
            kept = [(e, record) for e, record in kept if visible(record, before)][:top_k]
            return [self.item(entry, record, rank) for rank, (entry, record) in enumerate(kept, start=1)]

    def reset(self, user_id: str) -> None:
        with self._lock:
            if not self._exists(user_id):
                return
            system = self.system(user_id)
            system.vector_store.clear()
            builder = system.memory_builder
            builder.dialogue_buffer, builder.previous_entries, builder.processed_count = [], [], 0
            self._sources[user_id] = {}
            if os.path.exists(self._side_file(user_id)):
                os.remove(self._side_file(user_id))

    def describe(self) -> dict[str, Any]:
        settings = self.config.model_dump(mode="json", exclude={"api_key_env"})
        return {"system": "simplemem", "package": f"simplemem=={package_version('simplemem')}", **settings}

    def table(self, user_id: str) -> str:
        return "execmem_" + name_id(user_id)

    def system(self, user_id: str) -> Any:
        """The user's ``SimpleMemSystem`` (built on first use)."""
        if user_id not in self._systems:
            config = self.config
            self._simplemem.get_config().embedding_model = config.embedding_model
            self._systems[user_id] = self._simplemem.SimpleMemSystem(
                api_key=openai_key(config.api_key_env, config.base_url, "SimpleMem"),
                model=config.model,
                base_url=config.base_url,
                db_path=self.root,
                table_name=self.table(user_id),
                enable_planning=config.retrieval == "hybrid",
                enable_reflection=config.reflection,
                enable_parallel_processing=config.parallel,
            )
        return self._systems[user_id]

    def sources(self, user_id: str) -> dict[str, dict[str, Any]]:
        """Entry id -> source record for the user's space (read from the side file once)."""
        if user_id not in self._sources:
            path = self._side_file(user_id)
            if os.path.exists(path):
                with open(path) as handle:
                    self._sources[user_id] = json.load(handle)
            else:
                self._sources[user_id] = {}
        return self._sources[user_id]

    @staticmethod
    def item(entry: Any, record: dict[str, Any] | None, rank: int) -> MemoryItem:
        extra = {
            "id": entry.entry_id,
            "simplemem_timestamp": entry.timestamp,
            "keywords": list(entry.keywords or []),
            "persons": list(entry.persons or []),
            "location": entry.location,
            "topic": entry.topic,
        }
        return make_item(entry.lossless_restatement, 1.0 / rank, record, **extra)

    def _side_file(self, user_id: str) -> str:
        return os.path.join(self.root, self.table(user_id) + ".execmem.json")

    def _exists(self, user_id: str) -> bool:
        return user_id in self._systems or os.path.exists(self._side_file(user_id))

    def _save(self, user_id: str) -> None:
        with open(self._side_file(user_id), "w") as handle:
            json.dump(self._sources[user_id], handle)
