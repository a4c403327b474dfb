"""``memobase``: a Memobase server through its Python client (``pip install "execmem[memobase]"``).

* **User spaces**: one Memobase user per user space; Memobase wants UUIDs, so the id is
  ``uuid5(uuid5(NAMESPACE_URL, space_namespace), user_id)``. ``reset`` deletes that user.
* **Timestamps**: native for the model. Each message goes into a chat blob with ``alias`` = the
  speaker and ``created_at`` = its time; each ``add()`` inserts one blob and flushes the buffer
  synchronously, so Memobase has extracted its profile and events before ``add()`` returns.
* **Cut-off**: by ledger. Memobase stamps events and profile entries with server time, not source
  time, and keeps no caller metadata. After each flush the adapter lists the user's events and
  profile entries: what is new (or, for a profile entry, changed) was made from that ``add()``
  call and gets its source record. Search results are filtered by that record. The ledger lives in
  the adapter object: entries it did not see being made (an earlier process, another writer, more
  than ``event_scan`` events in one flush) have no record and are hidden by any cut-off. A profile
  entry updated by a later call carries the later stamp, as its text now holds the later facts.
* **Search**: Memobase ranks events against a query but not profile entries. Results are the
  user's ``profile_items`` most recently updated profile entries (score 0), then the events of
  ``search_event`` by similarity, up to ``top_k``.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from importlib.metadata import version
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.adapters.common import api_key, make_item, source_metadata, visible
from execmem.memory.registry import MissingExtraError


class MemobaseConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(description="project URL of the Memobase server, e.g. http://localhost:8019")
    api_key_env: str = "MEMOBASE_API_KEY"
    space_namespace: str = Field(default="execmem", description="seeds the UUIDs of user spaces")
    profile_items: int = Field(default=5, ge=0, description="profile entries leading every result list")
    similarity_threshold: float = Field(default=0.2, ge=0.0, le=1.0)
    time_range_in_days: int = Field(default=36500, ge=1, description="how far back event search looks")
    event_scan: int = Field(default=500, ge=1, description="events listed after each flush")
    assistant_speakers: tuple[str, ...] = ()


Record = dict[str, Any] | None


class MemobaseMemory:
    """A ``MemorySystem`` over a Memobase server. ``client`` replaces the SDK client (tests)."""

    def __init__(self, config: MemobaseConfig | None = None, client: Any = None, **options: Any):
        self.config = config or MemobaseConfig(**options)
        self._blob_types = self._import()
        self.client = client or self._blob_types["client"](
            project_url=self.config.base_url, api_key=api_key(self.config.api_key_env)
        )
        self._ledgers: dict[str, dict[str, Record]] = {}
        self._versions: dict[str, dict[str, str]] = {}

    @staticmethod
    def _import() -> dict[str, Any]:
        try:
            from memobase import ChatBlob, MemoBaseClient
            from memobase.core.blob import OpenAICompatibleMessage
        except ImportError as exc:
            raise MissingExtraError("the 'memobase' memory adapter", "execmem", "memobase", exc) from exc
        return {"client": MemoBaseClient, "blob": ChatBlob, "message": OpenAICompatibleMessage}

    def space(self, user_id: str) -> str:
        """The Memobase user id of a user space."""
        return str(uuid.uuid5(uuid.uuid5(uuid.NAMESPACE_URL, self.config.space_namespace), user_id))

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        if not messages:
            return
        user = self._user(user_id)
        user.insert(self._blob_types["blob"](messages=[self.chat_message(m) for m in messages]), sync=True)
        user.flush(sync=True)
        self._stamp(user_id, user, source_metadata(messages, timestamp))

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        if top_k <= 0:
            return []
        user = self._user(user_id)
        ledger = self._ledgers[user_id]
        profiles = sorted(user.profile(), key=lambda p: str(p.updated_at), reverse=True)
        stamped = [(p, ledger.get(f"profile:{p.id}")) for p in profiles]
        shown = [(p, record) for p, record in stamped if visible(record, before)]
        items = [self.profile_item(p, record) for p, record in shown[: self.config.profile_items]]
        events = user.search_event(
            query,
            topk=top_k,
            similarity_threshold=self.config.similarity_threshold,
            time_range_in_days=self.config.time_range_in_days,
        )
        for event in events:
            record = ledger.get(f"event:{event.id}")
            if visible(record, before):
                items.append(self.event_item(event, record))
        return items[:top_k]

    def reset(self, user_id: str) -> None:
        from memobase.error import ServerError

        space = self.space(user_id)
        try:
            self.client.delete_user(space)
        except ServerError:
            if self._exists(space, ServerError):  # a missing user has nothing to forget
                raise
        self._ledgers.pop(user_id, None)
        self._versions.pop(user_id, None)

    def describe(self) -> dict[str, Any]:
        settings = self.config.model_dump(mode="json", exclude={"api_key_env", "event_scan"})
        return {"system": "memobase", "package": f"memobase=={version('memobase')}", **settings}

    def chat_message(self, message: MemoryMessage) -> Any:
        role = "assistant" if message.speaker in self.config.assistant_speakers else "user"
        return self._blob_types["message"](
            role=role,
            content=message.text,
            alias=message.speaker or None,
            created_at=message.timestamp.isoformat(),
        )

    @staticmethod
    def profile_item(profile: Any, record: Record) -> MemoryItem:
        text = f"{profile.topic} / {profile.sub_topic}: {profile.content}"
        return make_item(text, 0.0, record, id=str(profile.id), kind="profile")

    @staticmethod
    def event_item(event: Any, record: Record) -> MemoryItem:
        data = event.event_data
        text = (data.event_tip if data else None) or "; ".join(
            d.content for d in (data.profile_delta if data else [])
        )
        return make_item(text, event.similarity or 0.0, record, id=str(event.id), kind="event")

    def _exists(self, space: str, not_found: type[Exception]) -> bool:
        try:
            self.client.get_user(space)
        except not_found:
            return False
        return True

    def _user(self, user_id: str) -> Any:
        """The Memobase user; on first sight its existing entries enter the ledger without a record."""
        user = self.client.get_or_create_user(self.space(user_id))
        if user_id not in self._ledgers:
            self._ledgers[user_id], self._versions[user_id] = {}, {}
            self._stamp(user_id, user, None)
        return user

    def _stamp(self, user_id: str, user: Any, record: Record) -> None:
        """Give ``record`` to every event and profile entry the ledger has not seen in this state."""
        ledger, versions = self._ledgers[user_id], self._versions[user_id]
        for event in user.event(topk=self.config.event_scan):
            ledger.setdefault(f"event:{event.id}", record)
        for profile in user.profile():
            seen = str(profile.updated_at)
            if versions.get(str(profile.id)) != seen:
                versions[str(profile.id)] = seen
                ledger[f"profile:{profile.id}"] = record
