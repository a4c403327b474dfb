"""``memos``: a MemOS server (MemTensor, 2.x) through its REST API, with httpx (no extra needed).

Endpoints used: ``POST /product/add``, ``POST /product/search``, ``POST /product/delete_memory``
(the request shapes of MemOS 2.0.x's ``APIADDRequest`` / ``APISearchRequest`` / ``DeleteMemoryRequest``).

* **User spaces**: one MemOS user and cube per user space, both ``<cube_prefix><user id>``
  (percent-encoded); reads use ``readable_cube_ids``, writes ``writable_cube_ids``. ``reset``
  deletes every memory of that user.
* **Timestamps**: native. Each message is sent with ``chat_time`` = its time; the source record of
  the ``add()`` call goes in ``info``, which MemOS keeps in each memory's ``metadata.info``.
* **Cut-off**: post-filter. MemOS filters on its own ``created_at`` (server time), so search
  over-fetches (``top_k * overfetch``) and keeps the memories whose ``metadata.info`` says they came
  from messages before the cut-off; memories without that record are hidden by any cut-off.
* ``add()`` asks for ``async_mode="sync"``, so memories exist when it returns. Only textual
  memories are searched (preference, tool and skill memories are switched off).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.adapters.common import api_key, make_item, safe_id, source_metadata, visible


class MemosConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(description="MemOS server, e.g. http://localhost:8000")
    api_key_env: str | None = Field(default="MEMOS_API_KEY", description="sent as a bearer token when set")
    cube_prefix: str = "execmem-"
    add_mode: Literal["fast", "fine"] = Field(default="fine", description="fine: the model extracts memories")
    search_mode: Literal["fast", "fine", "mixture"] = "fast"
    relativity: float = Field(default=0.0, ge=0.0, description="MemOS's relevance floor (0: none)")
    overfetch: int = Field(default=3, ge=1, description="under a cut-off, ask for top_k * overfetch")
    timeout_s: float = Field(default=600.0, gt=0)


class MemosMemory:
    """A ``MemorySystem`` over MemOS's REST API. ``http`` replaces the httpx client (tests)."""

    def __init__(self, config: MemosConfig | None = None, http: httpx.Client | None = None, **options: Any):
        self.config = config or MemosConfig(**options)
        key = api_key(self.config.api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.http = http or httpx.Client(
            base_url=self.config.base_url.rstrip("/"), headers=headers, timeout=self.config.timeout_s
        )

    def space(self, user_id: str) -> str:
        return self.config.cube_prefix + safe_id(user_id)

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        if not messages:
            return
        space = self.space(user_id)
        self.call(
            "/product/add",
            user_id=space,
            writable_cube_ids=[space],
            messages=[self.chat_message(m) for m in messages],
            async_mode="sync",
            mode=self.config.add_mode,
            info=source_metadata(messages, timestamp),
        )

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        if top_k <= 0:
            return []
        space = self.space(user_id)
        data = self.call(
            "/product/search",
            query=query,
            user_id=space,
            readable_cube_ids=[space],
            top_k=top_k if before is None else top_k * self.config.overfetch,
            mode=self.config.search_mode,
            relativity=self.config.relativity,
            include_preference=False,
            search_tool_memory=False,
            include_skill_memory=False,
        )
        memories = [m for bucket in data.get("text_mem", []) for m in bucket.get("memories", [])]
        kept = [m for m in memories if visible(m.get("metadata", {}).get("info"), before)]
        return [self.item(m) for m in kept[:top_k]]

    def reset(self, user_id: str) -> None:
        space = self.space(user_id)
        self.call("/product/delete_memory", writable_cube_ids=[space], user_id=space)

    def describe(self) -> dict[str, Any]:
        return {
            "system": "memos",
            "api": "rest",
            **self.config.model_dump(mode="json", exclude={"api_key_env"}),
        }

    def call(self, path: str, **body: Any) -> Any:
        """POST ``body``; the response's ``data``. HTTP errors and non-200 codes raise."""
        response = self.http.post(path, json=body)
        response.raise_for_status()
        document = response.json()
        if document.get("code", 200) != 200:
            raise RuntimeError(f"MemOS {path} failed: {document.get('message')!r}")
        return document.get("data") or {}

    @staticmethod
    def chat_message(message: MemoryMessage) -> dict[str, str]:
        content = f"{message.speaker}: {message.text}" if message.speaker else message.text
        return {"role": "user", "content": content, "chat_time": message.timestamp.isoformat()}

    @staticmethod
    def item(memory: dict[str, Any]) -> MemoryItem:
        metadata = memory.get("metadata", {})
        score = metadata.get("relativity") or 0.0
        extra = {"id": memory.get("id"), "memory_type": metadata.get("memory_type")}
        return make_item(memory.get("memory", ""), score, metadata.get("info"), **extra)
