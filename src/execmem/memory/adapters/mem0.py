"""``mem0``: mem0's open-source ``Memory`` in local mode (``pip install "execmem[mem0]"``).

Storage is embedded: a local Qdrant (in memory, or a directory) plus mem0's SQLite history. The
chat model and the embedder are both reached through one OpenAI-compatible endpoint.

* **User spaces**: our ``user_id`` (percent-encoded, as mem0 refuses whitespace in ids) is mem0's
  ``user_id``; searches pass it in ``filters``, the form mem0 2.x requires.
* **Timestamps**: mem0's open-source ``add()`` rejects a ``timestamp``. The message time goes into
  the text (``[YYYY-MM-DD HH:MM] Speaker: ...``) so the extraction model sees it, and the source
  record (``execmem.memory.adapters.common``) into the memory's metadata.
* **Cut-off**: native. ``before`` becomes a metadata range filter on ``execmem_time`` that mem0
  hands to Qdrant; results are checked again after retrieval.
* ``infer=False`` stores each message raw (one memory per message, stamped with its own time).
  ``infer=True`` sends each ``add()`` call to mem0's extraction model in one piece; every fact it
  extracts is stamped with the latest message of that call, so the cut-off is as fine as the
  calls are (the vehicle suite writes one hour per call).
* mem0's telemetry is switched off (``MEM0_TELEMETRY=False``) unless the variable is already set;
  mem0 reads it when first imported. Importing mem0 creates ``~/.mem0`` (or ``$MEM0_DIR``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from datetime import datetime
from importlib.metadata import version
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.adapters.common import (
    TIME,
    make_item,
    message_text,
    openai_key,
    posix,
    safe_id,
    source_metadata,
)
from execmem.memory.base import check_path
from execmem.memory.registry import MissingExtraError
from execmem.memory.store import IN_MEMORY


class Mem0Config(BaseModel):
    """How the adapter builds mem0's local ``Memory``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = Field(
        default=None, description="OpenAI-compatible endpoint (…/v1) for chat and embeddings"
    )
    api_key_env: str = Field(default="OPENAI_API_KEY", description="environment variable holding the key")
    model: str = Field(default="gpt-4o-mini", description="chat model for fact extraction")
    embedding_model: str = "text-embedding-3-small"
    embedding_dims: int = Field(default=1536, ge=1, description="vector size the embedder returns")
    send_dimensions: bool = Field(
        default=False, description="ask the endpoint for embedding_dims (only models that support it)"
    )
    infer: bool = Field(default=True, description="extract facts with the model (False: store raw messages)")
    threshold: float = Field(default=0.1, ge=0.0, le=1.0, description="mem0's minimum semantic score")
    path: str = Field(default=IN_MEMORY, description="local Qdrant directory (absolute), or ':memory:'")
    history_db_path: str = Field(
        default=IN_MEMORY, description="mem0's SQLite history (absolute), or ':memory:'"
    )
    collection: str = Field(default="execmem", min_length=1)
    assistant_speakers: tuple[str, ...] = Field(
        default=(), description="speakers sent with role 'assistant' (everyone else is 'user')"
    )

    @field_validator("path", "history_db_path", mode="before")
    @classmethod
    def _absolute(cls, value: Any) -> str:
        return check_path(value)

    def mem0_config(self, on_response: Any) -> dict[str, Any]:
        """The ``Memory.from_config`` dictionary (``on_response`` sees every chat completion)."""
        key = openai_key(self.api_key_env, self.base_url, "mem0")
        embedder: dict[str, Any] = {"model": self.embedding_model, "api_key": key}
        llm: dict[str, Any] = {"model": self.model, "api_key": key, "response_callback": on_response}
        if self.base_url:
            embedder["openai_base_url"] = llm["openai_base_url"] = self.base_url
        if self.send_dimensions:
            embedder["embedding_dims"] = self.embedding_dims
        qdrant = {"collection_name": self.collection, "embedding_model_dims": self.embedding_dims}
        return {
            "vector_store": {"provider": "qdrant", "config": {**qdrant, "path": self.path}},
            "llm": {"provider": "openai", "config": llm},
            "embedder": {"provider": "openai", "config": embedder},
            "history_db_path": self.history_db_path,
        }


def _import_mem0() -> Any:
    os.environ.setdefault("MEM0_TELEMETRY", "False")
    try:
        import mem0
    except ImportError as exc:
        raise MissingExtraError("the 'mem0' memory adapter", "execmem", "mem0", exc) from exc
    return mem0


class Mem0Memory:
    """A ``MemorySystem`` over mem0's local ``Memory``; ``usage()`` counts its chat completions."""

    accepts = frozenset({"path"})  # the state directory; windowing is the system's own

    def __init__(self, config: Mem0Config | None = None, **options: Any):
        self.config = config or Mem0Config(**options)
        mem0 = _import_mem0()
        self._lock = threading.RLock()
        self._usage = {"llm_calls": 0, "input_tokens": 0, "output_tokens": 0}
        self.memory = mem0.Memory.from_config(self.config.mem0_config(self._count))

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        if not messages:
            return
        groups = [[m] for m in messages] if not self.config.infer else [list(messages)]
        with self._lock:
            for group in groups:
                self.memory.add(
                    [self.chat_message(m) for m in group],
                    user_id=safe_id(user_id),
                    metadata=source_metadata(group, timestamp),
                    infer=self.config.infer,
                )

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        if top_k <= 0:
            return []
        space = safe_id(user_id)
        filters: dict[str, Any] = {"user_id": space}
        if before is not None:
            filters[TIME] = {"lt": posix(before)}
        with self._lock:
            found = self.memory.search(query, top_k=top_k, filters=filters, threshold=self.config.threshold)
        return [self.item(hit) for hit in found["results"] if hit.get("user_id") == space][:top_k]

    def reset(self, user_id: str) -> None:
        """Delete the user's memories, and the recent messages mem0 keeps as extraction context."""
        with self._lock:
            self.memory.delete_all(user_id=safe_id(user_id))
            self._forget_recent_messages(safe_id(user_id))

    def usage(self) -> dict[str, int]:
        """Running totals of chat completions and their tokens (embeddings are not counted)."""
        with self._lock:
            return dict(self._usage)

    def close(self) -> None:
        """Release mem0's SQLite history and the local Qdrant (the object is unusable afterwards)."""
        with self._lock:
            self.memory.close()
            self.memory.vector_store.client.close()

    def describe(self) -> dict[str, Any]:
        settings = self.config.model_dump(mode="json", exclude={"api_key_env"})
        return {"system": "mem0", "package": f"mem0ai=={version('mem0ai')}", **settings}

    def chat_message(self, message: MemoryMessage) -> dict[str, str]:
        """The chat message mem0 receives for one of ours."""
        role = "assistant" if message.speaker in self.config.assistant_speakers else "user"
        chat = {"role": role, "content": message_text(message)}
        return {**chat, "name": message.speaker} if message.speaker else chat

    @staticmethod
    def item(hit: dict[str, Any]) -> MemoryItem:
        """One mem0 search result as a ``MemoryItem`` (mem0 nests custom keys under ``metadata``)."""
        extra = {"id": hit.get("id"), "created_at": hit.get("created_at")}
        return make_item(hit["memory"], hit.get("score") or 0.0, hit.get("metadata"), **extra)

    def _count(self, llm: Any, response: Any, params: dict[str, Any]) -> None:
        usage = getattr(response, "usage", None)
        with self._lock:
            self._usage["llm_calls"] += 1
            self._usage["input_tokens"] += getattr(usage, "prompt_tokens", 0) or 0
            self._usage["output_tokens"] += getattr(usage, "completion_tokens", 0) or 0

    def _forget_recent_messages(self, space: str) -> None:
        # mem0 keeps the last messages of each session in its SQLite history and shows them to the
        # extraction model; delete_all() leaves them, and mem0 has no call that removes them.
        from mem0.memory.main import _build_session_scope

        db = self.memory.db
        with db._lock:
            db.connection.execute(
                "DELETE FROM messages WHERE session_scope = ?", (_build_session_scope({"user_id": space}),)
            )
            db.connection.commit()
