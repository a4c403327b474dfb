"""``supermemory``: the Supermemory API through its Python SDK (``pip install "execmem[supermemory]"``).

* **User spaces**: one Supermemory namespace per user, ``<namespace_prefix><user id>`` (the id
  slugged to letters, digits, ``-`` and ``_``); ``reset`` deletes the namespace.
* **Timestamps**: each ``add()`` call is one document: its lines as ``[YYYY-MM-DD HH:MM] Speaker:
  text``, ``date`` = the latest message time (ISO 8601), and the source record as metadata.
* **Cut-off**: native. ``before`` becomes a metadata filter ``execmem_time < t`` applied by
  Supermemory before ranking; results are checked again after retrieval.
* Supermemory processes documents asynchronously; with ``wait`` (default) ``add()`` polls each
  document until its status and its memory generation are ``done`` (or fails on ``failed``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import version
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.adapters.common import (
    TIME,
    api_key,
    make_item,
    message_text,
    name_id,
    posix,
    source_metadata,
    visible,
)
from execmem.memory.registry import MissingExtraError


class SupermemoryConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = Field(default=None, description="API URL; None: the SDK's default (hosted)")
    api_key_env: str = "SUPERMEMORY_API_KEY"
    namespace_prefix: str = Field(default="execmem-", description="prepended to every user namespace")
    search_mode: Literal["memories", "hybrid", "chunks"] = "memories"
    threshold: float | None = Field(default=None, ge=0.0, le=1.0, description="None: the service default")
    dreaming: Literal["dynamic", "instant"] | None = Field(
        default="instant", description="instant: process each document on its own, right away"
    )
    wait: bool = Field(default=True, description="add() returns once the documents are processed")
    poll_s: float = Field(default=1.0, gt=0)
    timeout_s: float = Field(default=600.0, gt=0)


class SupermemoryMemory:
    """A ``MemorySystem`` over the Supermemory API. ``client`` replaces the SDK client (tests)."""

    def __init__(self, config: SupermemoryConfig | None = None, client: Any = None, **options: Any):
        self.config = config or SupermemoryConfig(**options)
        self.client = client or self._connect()

    def _connect(self) -> Any:
        try:
            from supermemory import Supermemory
        except ImportError as exc:
            raise MissingExtraError(
                "the 'supermemory' memory adapter", "execmem", "supermemory", exc
            ) from exc
        key = api_key(self.config.api_key_env)
        if not key:
            raise ValueError(f"set {self.config.api_key_env} to the Supermemory API key")
        return Supermemory(api_key=key, base_url=self.config.base_url)

    def namespace(self, user_id: str) -> str:
        return self.config.namespace_prefix + name_id(user_id)

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        if not messages:
            return
        latest = max(m.timestamp for m in messages)
        options = {"dreaming": self.config.dreaming} if self.config.dreaming else {}
        ref = self.client.add(
            self.namespace(user_id),
            content="\n".join(message_text(m) for m in messages),
            metadata=source_metadata(messages, timestamp),
            date=(latest if latest.tzinfo else latest.replace(tzinfo=UTC)).isoformat(),
            **options,
        )
        if self.config.wait:
            self._wait(self.namespace(user_id), ref.id)

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        if top_k <= 0:
            return []
        options: dict[str, Any] = {"search_mode": self.config.search_mode, "limit": top_k}
        if before is not None:
            options["filter"] = {"field": TIME, "operator": "lt", "value": posix(before)}
        if self.config.threshold is not None:
            options["threshold"] = self.config.threshold
        found = self.client.search(self.namespace(user_id), query=query, **options)
        hits = [hit for hit in found.results if visible(hit.metadata, before)]
        return [self.item(hit) for hit in hits[:top_k]]

    def reset(self, user_id: str) -> None:
        from supermemory.core.api_error import ApiError

        try:
            self.client.namespaces.delete(self.namespace(user_id))
        except ApiError as exc:
            if exc.status_code != 404:  # a namespace never written is already empty
                raise

    def describe(self) -> dict[str, Any]:
        settings = self.config.model_dump(mode="json", exclude={"api_key_env", "poll_s", "timeout_s"})
        return {"system": "supermemory", "package": f"supermemory=={version('supermemory')}", **settings}

    @staticmethod
    def item(hit: Any) -> MemoryItem:
        text = hit.memory if hit.memory is not None else hit.chunk or ""
        kind = "memory" if hit.memory is not None else "chunk"
        return make_item(text, hit.similarity, hit.metadata, id=hit.id, kind=kind)

    def _wait(self, namespace: str, document_id: str) -> None:
        deadline = time.monotonic() + self.config.timeout_s
        while True:
            system = self.client.documents.get(namespace, document_id).system
            if system.status == "failed":
                raise RuntimeError(f"Supermemory failed to process document {document_id} in {namespace}")
            if system.status == "done" and system.dreaming_status == "done":
                return
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"document {document_id} still {system.status} after {self.config.timeout_s}s"
                )
            time.sleep(self.config.poll_s)
