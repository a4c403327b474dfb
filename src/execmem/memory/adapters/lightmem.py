"""``lightmem``: LightMem (zjunlp), installed from its repository (``pip install "execmem[lightmem]"``).

LightMem compresses incoming messages with LLMLingua-2, cuts them into topic segments (LLMLingua-2
attention plus embedding similarity), has a model extract facts per segment ("memory entries" with
the time of the user turn they came from), embeds each entry and keeps it in a local Qdrant
collection; an optional offline update rewrites or deletes entries from the later entries they
resemble. PyPI's ``lightmem`` 0.0.0 is an unrelated early stub (its methods are empty).

* **User spaces**: one ``LightMemory`` per user, each with its own Qdrant folder
  ``<path>/<user id slugged>`` (collection ``execmem``, ``on_disk``: LightMem deletes a folder that
  is not). ``reset`` empties the collection, drops the object (and its buffers) and the folder.
* **Messages**: LightMem wants strictly alternating user and assistant messages, each with a
  ``time_stamp``: see ``adapters.turns`` (``assistant_speakers``, ``no_reply``). A side with one
  speaker is sent as that ``speaker_name`` with the plain texts; a side with several speakers as
  ``Speaker: text`` lines. Each ``add()`` is processed at once (``force_segment`` and
  ``force_extract``), so its entries come from that call alone.
* **Cut-off**: every entry new after an ``add()`` gets the call's source record in its Qdrant
  payload (``set_payload``), as mem0's facts do; an entry the offline update rewrites takes the
  stamp of the call that rewrote it (no earlier than anything stamped before). Under ``before`` the
  search is LightMem's own Qdrant search with the range filter ``execmem_time <= t`` (LightMem's
  filters are inclusive) over ``top_k * overfetch`` hits, then checked strictly.
* **Search**: the query is embedded by LightMem's embedder and searched as ``LightMemory.retrieve``
  does, keeping the hits (``retrieve`` joins them into one string); an item's text is what
  ``retrieve`` shows, ``"<time_stamp> <weekday> <memory>"``, and its score Qdrant's cosine.
* LightMem catches its model-call errors and stores nothing; the adapter raises ``ModelCallError``
  instead (``adapters.call_meter``), which also gives ``usage()``. LightMem's OpenAI manager sends
  every call to OpenRouter when ``OPENROUTER_API_KEY`` is set, so the adapter refuses to start then.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.adapters.call_meter import CallMeter
from execmem.memory.adapters.common import (
    TIME,
    PerUserSystems,
    StateDirectory,
    make_item,
    name_id,
    openai_key,
    package_version,
    posix,
    source_metadata,
    visible,
)
from execmem.memory.adapters.lightmem_config import lightmem_config
from execmem.memory.adapters.turns import NO_REPLY, exchanges
from execmem.memory.registry import MissingExtraError

LLMLINGUA_2 = "microsoft/llmlingua-2-bert-base-multilingual-cased-meetingbank"
COLLECTION = "execmem"


class LightMemConfig(BaseModel):
    """How the adapter builds each user's ``LightMemory``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: StateDirectory = Field(
        default=None, description="directory (absolute) of the users' Qdrant folders"
    )
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint (…/v1)")
    api_key_env: str = "OPENAI_API_KEY"
    model: str = Field(default="gpt-4o-mini", description="the memory manager's model (fact extraction)")
    max_tokens: int = Field(default=2000, ge=1, description="per extraction reply")
    llmlingua_model: str = Field(default=LLMLINGUA_2, description="LLMLingua-2 hub name or directory")
    device: str = "cpu"
    pre_compress: bool = Field(default=True, description="compress messages with LLMLingua-2 first")
    compress_rate: float = Field(default=0.7, gt=0, le=1)
    topic_segment: bool = Field(default=True, description="topic segments (LLMLingua-2 attention, shared)")
    embedder: Literal["huggingface", "openai"] = "huggingface"
    embedding_model: str = Field(
        default="sentence-transformers/all-MiniLM-L6-v2",
        description="hub name or directory; or endpoint model",
    )
    embedding_dims: int = Field(default=384, ge=1)
    messages_use: Literal["user_only", "assistant_only", "hybrid"] = "user_only"
    extraction_mode: Literal["flat", "event"] = "flat"
    extract_threshold: float = 0.1
    offline_update: bool = Field(default=False, description="LightMem's offline update after every add()")
    update_threshold: float = Field(default=0.8, description="offline update: minimum similarity")
    overfetch: int = Field(default=2, ge=1, description="under a cut-off, ask Qdrant for top_k * overfetch")
    assistant_speakers: tuple[str, ...] = ()
    no_reply: str = NO_REPLY

    @model_validator(mode="after")
    def _segmenter_model(self) -> LightMemConfig:
        if self.topic_segment and not self.pre_compress:  # LightMemory's constructor needs it then
            raise ValueError(
                "topic_segment needs pre_compress: LightMem's segmenter uses the compressor's model"
            )
        return self


def _import_lightmem() -> Any:
    try:
        from lightmem.memory.lightmem import LightMemory
    except ImportError as exc:
        raise MissingExtraError("the 'lightmem' memory adapter", "execmem", "lightmem", exc) from exc
    return LightMemory


def lightmem_messages(messages: Sequence[MemoryMessage], config: LightMemConfig) -> list[dict[str, Any]]:
    """The messages as LightMem's alternating user / assistant dicts (see the module docstring)."""
    sent: list[dict[str, Any]] = []
    for exchange in exchanges(messages, config.assistant_speakers):
        for role, side in (("user", exchange.user), ("assistant", exchange.assistant)):
            latest = max(m.timestamp for m in side) if side else exchange.latest
            sent.append({"role": role, "time_stamp": latest.isoformat(), **_side(side, config.no_reply)})
    return sent


def _side(side: Sequence[MemoryMessage], no_reply: str) -> dict[str, str]:
    speakers = {m.speaker for m in side}
    if len(speakers) == 1:
        return {"content": "\n".join(m.text for m in side), "speaker_name": side[0].speaker}
    return {"content": "\n".join(f"{m.speaker}: {m.text}" for m in side) or no_reply}


class LightMemMemory(PerUserSystems):
    """A ``MemorySystem`` over LightMem's memory entries, one ``LightMemory`` per user space."""

    accepts = frozenset({"path"})  # the state directory; LightMem segments the history itself

    def __init__(self, config: LightMemConfig | None = None, **options: Any):
        self.config = config or LightMemConfig(**options)
        if os.environ.get("OPENROUTER_API_KEY"):
            raise ValueError(
                "LightMem sends every model call to OpenRouter while OPENROUTER_API_KEY is set: unset it"
            )
        self._lightmemory = _import_lightmem()
        self._key = openai_key(self.config.api_key_env, self.config.base_url, "LightMem")
        self._meter = CallMeter()
        self._init_systems(self.config.path, "execmem-lightmem-")

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        if not messages:
            return
        with self._lock, self._meter.checked("LightMem add()"):
            system = self.system(user_id)
            known = self._entries(system)
            system.add_memory(
                messages=lightmem_messages(messages, self.config), force_segment=True, force_extract=True
            )
            record = source_metadata(messages, timestamp)
            for point_id in self._entries(system).keys() - known.keys():
                system.embedding_retriever.update(vector_id=point_id, payload=record)
            if self.config.offline_update:
                self._offline_update(system, record)

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        if top_k <= 0:
            return []
        with self._lock, self._meter.checked("LightMem search()"):
            if not self._exists(user_id):
                return []
            system = self.system(user_id)
            hits = system.embedding_retriever.search(
                query_vector=system.text_embedder.embed(query),
                limit=top_k * self.config.overfetch if before is not None else top_k,
                filters={TIME: {"lte": posix(before)}} if before is not None else None,
                return_full=True,
            )
            kept = [hit for hit in hits if visible(hit["payload"], before)][:top_k]
            return [item(hit) for hit in kept]

    def reset(self, user_id: str) -> None:
        with self._lock:
            system = self._systems.pop(user_id, None)
            if system is not None:
                system.embedding_retriever.reset()
                system.embedding_retriever.client.close()  # local Qdrant locks its folder
            shutil.rmtree(self.folder(user_id), ignore_errors=True)

    def close(self) -> None:
        with self._lock:
            for system in self._systems.values():
                system.embedding_retriever.client.close()
            super().close()

    def describe(self) -> dict[str, Any]:
        settings = self.config.model_dump(mode="json", exclude={"api_key_env"})
        return {"system": "lightmem", "package": f"lightmem=={package_version('lightmem')}", **settings}

    def usage(self) -> dict[str, int]:
        """LightMem's chat completions so far (with their tokens) and how many failed."""
        return self._meter.usage()

    def folder(self, user_id: str) -> Path:
        return Path(self.root, name_id(user_id))

    def system(self, user_id: str) -> Any:
        """The user's ``LightMemory`` (built on first use, over its Qdrant folder)."""
        if user_id not in self._systems:
            config = lightmem_config(self.config, self._key, str(self.folder(user_id)), COLLECTION)
            system = self._lightmemory.from_config(config)
            self._meter.attach(system.manager.client)
            self._systems[user_id] = system
        return self._systems[user_id]

    def _exists(self, user_id: str) -> bool:
        return user_id in self._systems or self.folder(user_id).is_dir()

    @staticmethod
    def _entries(system: Any) -> dict[Any, dict[str, Any]]:
        """Point id -> payload of every entry in the user's collection."""
        points = system.embedding_retriever.get_all(with_vectors=False)
        return {point["id"]: point["payload"] or {} for point in points}

    def _offline_update(self, system: Any, record: dict[str, Any]) -> None:
        """LightMem's offline update; each entry it rewrites takes this call's stamp."""
        before = self._entries(system)
        system.construct_update_queue_all_entries()
        system.offline_update_all_entries(score_threshold=self.config.update_threshold)
        after = self._entries(system)
        stamped = [payload[TIME] for payload in after.values() if isinstance(payload.get(TIME), int | float)]
        latest = max([record[TIME], *stamped])
        for point_id, payload in after.items():
            if payload.get("memory") != before.get(point_id, {}).get("memory"):
                system.embedding_retriever.update(vector_id=point_id, payload={**record, TIME: latest})


def item(hit: dict[str, Any]) -> MemoryItem:
    """A Qdrant hit as ``LightMemory.retrieve`` shows it, with its source record."""
    payload = hit["payload"] or {}
    text = f"{payload.get('time_stamp', '')} {payload.get('weekday', '')} {payload.get('memory', '')}"
    extra = {
        "id": str(hit["id"]),
        "lightmem_time_stamp": payload.get("time_stamp"),
        "topic_id": payload.get("topic_id"),
        "speaker_name": payload.get("speaker_name"),
    }
    return make_item(text, float(hit.get("score") or 0.0), payload, **extra)
