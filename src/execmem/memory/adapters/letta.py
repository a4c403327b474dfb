"""``letta``: a Letta server's archival memory through ``letta-client`` (``pip install "execmem[letta]"``).

* **User spaces**: one Letta agent per user, named ``<agent_prefix><user id>`` (slugged), created
  on first write with the configured model and embedding handles; ``reset`` deletes the agent.
* **Timestamps**: native. Each message becomes one archival passage written with
  ``created_at`` = the message time; the source record travels in the passage's tags
  (``execmem_time=…``, ``execmem_line_ids=…``).
* **Cut-off**: native. ``before`` becomes the search's ``end_datetime``; results are checked
  again against the tags (so a passage at exactly ``before`` is hidden too).
* What this measures is Letta's archival store and its semantic search. The agent's own
  self-editing memory (core blocks, deciding what to archive) is not exercised: no model is called.
  Letta returns no similarity, so an item's score is ``1 / rank``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import version
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.adapters.common import (
    SOURCE_KEYS,
    api_key,
    make_item,
    message_text,
    name_id,
    source_metadata,
    visible,
)
from execmem.memory.registry import MissingExtraError


class LettaConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = Field(default=None, description="server URL, e.g. http://localhost:8283")
    api_key_env: str | None = Field(default="LETTA_API_KEY", description="unset variable: no key sent")
    agent_prefix: str = "execmem-"
    model: str = Field(default="openai/gpt-4o-mini", description="model handle of created agents")
    embedding: str = Field(default="openai/text-embedding-3-small", description="embedding handle")
    overfetch: int = Field(default=2, ge=1, description="under a cut-off, ask for top_k * overfetch")


def tags_of(metadata: dict[str, Any]) -> list[str]:
    """The source record as ``key=value`` tags."""
    return [f"{key}={metadata[key]}" for key in SOURCE_KEYS if metadata.get(key) not in (None, "")]


def metadata_of(tags: Sequence[str] | None) -> dict[str, Any]:
    """The source record back from tags (``execmem_time`` as a number)."""
    pairs = dict(tag.split("=", 1) for tag in tags or () if "=" in tag)
    record: dict[str, Any] = {key: pairs[key] for key in SOURCE_KEYS if key in pairs}
    if "execmem_time" in record:
        record["execmem_time"] = float(record["execmem_time"])
    return record


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class LettaMemory:
    """A ``MemorySystem`` over Letta archival passages. ``client`` replaces the SDK client (tests)."""

    def __init__(self, config: LettaConfig | None = None, client: Any = None, **options: Any):
        self.config = config or LettaConfig(**options)
        self.client = client or self._connect()
        self._agents: dict[str, str] = {}

    def _connect(self) -> Any:
        try:
            from letta_client import Letta
        except ImportError as exc:
            raise MissingExtraError("the 'letta' memory adapter", "execmem", "letta", exc) from exc
        options: dict[str, Any] = {"api_key": api_key(self.config.api_key_env)}
        if self.config.base_url:
            options["base_url"] = self.config.base_url
        return Letta(**options)

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        if not messages:
            return
        agent_id = self.agent_id(user_id, create=True)
        for message in messages:
            self.client.agents.passages.create(
                agent_id,
                text=message_text(message),
                created_at=_aware(message.timestamp),
                tags=tags_of(source_metadata([message], timestamp)),
            )

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        agent_id = self.agent_id(user_id, create=False)
        if top_k <= 0 or agent_id is None:
            return []
        options: dict[str, Any] = {"top_k": top_k}
        if before is not None:
            options = {"top_k": top_k * self.config.overfetch, "end_datetime": _aware(before)}
        found = self.client.agents.passages.search(agent_id, query=query, **options)
        hits = [(hit, metadata_of(hit.tags)) for hit in found.results]
        kept = [(hit, record) for hit, record in hits if visible(record, before)][:top_k]
        return [
            make_item(hit.content, 1.0 / rank, record, id=hit.id, letta_timestamp=hit.timestamp)
            for rank, (hit, record) in enumerate(kept, start=1)
        ]

    def reset(self, user_id: str) -> None:
        agent_id = self.agent_id(user_id, create=False)
        if agent_id is not None:
            self.client.agents.delete(agent_id)
        self._agents.pop(user_id, None)

    def describe(self) -> dict[str, Any]:
        settings = self.config.model_dump(mode="json", exclude={"api_key_env"})
        return {"system": "letta", "package": f"letta-client=={version('letta-client')}", **settings}

    def agent_id(self, user_id: str, create: bool) -> str | None:
        """The id of the user's agent; a new agent if ``create`` and there is none yet."""
        if user_id in self._agents:
            return self._agents[user_id]
        name = self.config.agent_prefix + name_id(user_id)
        found = [agent.id for agent in self.client.agents.list(name=name) if agent.name == name]
        if found:
            self._agents[user_id] = found[0]
        elif create:
            agent = self.client.agents.create(
                name=name, model=self.config.model, embedding=self.config.embedding, tags=["execmem"]
            )
            self._agents[user_id] = agent.id
        return self._agents.get(user_id)
