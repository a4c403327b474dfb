"""``amem``: A-MEM's ``AgenticMemorySystem`` from PyPI ``a-mem`` (``pip install "execmem[amem]"``).

``a-mem`` (module ``agentic_memory``) keeps notes in a persistent ChromaDB collection embedded by a
sentence-transformers model (``model_name``: a hub name or a local directory), and asks an LLM to
annotate every note (keywords, context, tags) and to evolve it with its neighbours (links, new tags
and contexts of the neighbours).

* **User spaces**: one ``AgenticMemorySystem`` per user, each with its own ChromaDB directory
  ``<path>/<user id slugged>`` (A-MEM's collection name is fixed, so a directory is the space).
  ``path=None`` uses a temporary directory removed by ``close()``.
* **Timestamps**: native. Each message becomes one note (as in A-MEM's own LoCoMo evaluation),
  ``add_note(text, time=YYYYMMDDHHMM)`` with the message time (an aware time in UTC); A-MEM only
  keeps minutes. The text carries ``[YYYY-MM-DD HH:MM] Speaker:`` as well. ``add_note`` takes no
  free metadata, so the source record (``execmem.memory.adapters.common``) is kept in the note's
  ``category``, a field A-MEM stores but never sets, rewrites or shows to its model.
* **Cut-off**: native pre-filter, exact check after. Under ``before`` the search is A-MEM's
  ``search_by_time(time_to=<before's minute>, query=…)`` (inclusive, minute precision, over
  ``top_k * overfetch`` semantic candidates); every hit is then checked against its source record.
* **Search**: ``retrieval="agentic"`` is ``search_agentic`` (hits plus their linked notes),
  ``"vector"`` is ``search``; neither returns the note text, so each hit is ``read()`` (which, as in
  A-MEM's own ``search``, bumps the note's retrieval count). The score is ``1 / (1 + distance)``
  from ChromaDB; linked neighbours carry no distance and score 0.
* **Model endpoint**: A-MEM's OpenAI backend builds ``OpenAI(api_key=…)`` without a base URL; with
  ``base_url`` the adapter replaces that client (``llm_controller.llm.client``) with one for the
  endpoint. The ``sglang`` backend takes ``base_url`` as its host and port. ``ollama`` and
  ``openrouter`` go through litellm with their own defaults: a ``base_url`` is refused there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.adapters.common import (
    PerUserSystems,
    StateDirectory,
    api_key,
    make_item,
    message_text,
    name_id,
    openai_key,
    package_version,
    source_metadata,
    visible,
)
from execmem.memory.registry import MissingExtraError

RECORD_PREFIX = "execmem "


class AMemConfig(BaseModel):
    """How the adapter builds each user's ``AgenticMemorySystem``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: StateDirectory = Field(
        default=None, description="directory (absolute) holding one ChromaDB per user; None: temporary"
    )
    model_name: str = Field(
        default="all-MiniLM-L6-v2", description="sentence-transformers model (hub name or local directory)"
    )
    llm_backend: Literal["openai", "ollama", "sglang", "openrouter"] = "openai"
    llm_model: str = "gpt-4o-mini"
    base_url: str | None = Field(
        default=None, description="openai: OpenAI-compatible endpoint (…/v1); sglang: http://host:port"
    )
    api_key_env: str = Field(default="OPENAI_API_KEY", description="variable holding the LLM key")
    evo_threshold: int = Field(default=100, ge=1)
    retrieval: Literal["agentic", "vector"] = "agentic"
    overfetch: int = Field(default=4, ge=1, description="under a cut-off, ask for top_k * overfetch")

    @model_validator(mode="after")
    def _endpoint(self) -> AMemConfig:
        if self.base_url and self.llm_backend in ("ollama", "openrouter"):
            raise ValueError(f"a-mem's {self.llm_backend} backend takes no base URL (only openai and sglang)")
        return self


def record_text(metadata: Mapping[str, Any]) -> str:
    """The source record as the note's category (a prefix keeps A-MEM from parsing it as JSON)."""
    return RECORD_PREFIX + json.dumps(dict(metadata), separators=(",", ":"))


def record_of(category: Any) -> dict[str, Any]:
    """The source record back from a category (empty for notes written by someone else)."""
    if not isinstance(category, str) or not category.startswith(RECORD_PREFIX):
        return {}
    try:
        record = json.loads(category[len(RECORD_PREFIX) :])
    except ValueError:
        return {}
    return record if isinstance(record, dict) else {}


def minute(moment: datetime) -> str:
    """A-MEM's ``YYYYMMDDHHMM`` (an aware time converted to UTC, a naive one kept as it is)."""
    if moment.tzinfo:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime("%Y%m%d%H%M")


def _import_amem() -> Any:
    try:
        from agentic_memory.memory_system import AgenticMemorySystem
    except ImportError as exc:
        raise MissingExtraError("the 'amem' memory adapter", "execmem", "amem", exc) from exc
    return AgenticMemorySystem


class AMemMemory(PerUserSystems):
    """A ``MemorySystem`` over A-MEM notes, one ``AgenticMemorySystem`` per user space."""

    accepts = frozenset({"path"})  # the state directory; windowing is the system's own

    def __init__(self, config: AMemConfig | None = None, **options: Any):
        self.config = config or AMemConfig(**options)
        self._system_class = _import_amem()
        self._init_systems(self.config.path, "execmem-amem-")

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        if not messages:
            return
        with self._lock:
            system = self.system(user_id)
            for message in messages:
                system.add_note(
                    message_text(message),
                    time=minute(message.timestamp),
                    category=record_text(source_metadata([message], timestamp)),
                )

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        if top_k <= 0:
            return []
        with self._lock:
            system = self.system(user_id) if self._exists(user_id) else None
            if system is None:
                return []
            if before is not None:
                k = top_k * self.config.overfetch
                hits = system.search_by_time(time_to=minute(before), query=query, k=k)
            elif self.config.retrieval == "agentic":
                hits = system.search_agentic(query, top_k)
            else:
                hits = system.search(query, top_k)
            items = []
            for hit in hits:
                note = system.read(hit["id"])
                if note is None:
                    continue
                record = record_of(note.category)
                if visible(record, before):
                    items.append(self.item(hit, note, record))
            return items[:top_k]

    def reset(self, user_id: str) -> None:
        """Delete every note of the user's space (through A-MEM's ``delete``)."""
        with self._lock:
            if not self._exists(user_id):
                return
            system = self.system(user_id)
            for note_id in list(system.retriever.get_all_ids()):
                system.delete(note_id)

    def describe(self) -> dict[str, Any]:
        settings = self.config.model_dump(mode="json", exclude={"api_key_env"})
        return {"system": "amem", "package": f"a-mem=={package_version('a-mem')}", **settings}

    def directory(self, user_id: str) -> str:
        return f"{self.root}/{name_id(user_id)}"

    def system(self, user_id: str) -> Any:
        """The user's ``AgenticMemorySystem`` (built on first use)."""
        if user_id not in self._systems:
            self._systems[user_id] = self._build(self.directory(user_id))
        return self._systems[user_id]

    def _exists(self, user_id: str) -> bool:
        return user_id in self._systems or os.path.isdir(self.directory(user_id))

    def _build(self, storage_path: str) -> Any:
        config = self.config
        options: dict[str, Any] = {
            "model_name": config.model_name,
            "llm_backend": config.llm_backend,
            "llm_model": config.llm_model,
            "evo_threshold": config.evo_threshold,
            "storage_path": storage_path,
        }
        if config.llm_backend == "openai":
            options["api_key"] = openai_key(config.api_key_env, config.base_url, "A-MEM")
        elif config.llm_backend == "openrouter":
            options["api_key"] = api_key(config.api_key_env)
        elif config.llm_backend == "sglang" and config.base_url:
            parts = urlsplit(config.base_url)
            options["sglang_host"] = f"{parts.scheme or 'http'}://{parts.hostname}"
            if parts.port:
                options["sglang_port"] = parts.port
        system = self._system_class(**options)
        if config.llm_backend == "openai" and config.base_url:
            from openai import OpenAI

            system.llm_controller.llm.client = OpenAI(api_key=options["api_key"], base_url=config.base_url)
        return system

    @staticmethod
    def item(hit: Mapping[str, Any], note: Any, record: Mapping[str, Any]) -> MemoryItem:
        distance = hit.get("score")
        score = 1.0 / (1.0 + float(distance)) if isinstance(distance, int | float) else 0.0
        extra = {
            "id": hit["id"],
            "amem_timestamp": str(note.timestamp),
            "context": note.context,
            "keywords": list(note.keywords or []),
            "tags": list(note.tags or []),
            "neighbor": bool(hit.get("is_neighbor", False)),
        }
        return make_item(note.content, score, record, **extra)
