"""``langmem``: LangMem's memory store manager over a LangGraph ``InMemoryStore``.

Install with ``pip install "execmem[langmem]"``.

The chat model (``ChatOpenAI``) and the store's embedder (``OpenAIEmbeddings``) both reach one
OpenAI-compatible endpoint. Each ``add()`` call is one ``manager.invoke``: LangMem searches the
user's existing memories, asks the model to insert or update memories, and writes them.

* **User spaces**: the store namespace ``("execmem", <user id>)`` (slugged: LangGraph refuses
  dots in namespace labels), passed as LangGraph's ``langgraph_user_id``; ``reset`` deletes every
  item in it.
* **Timestamps**: the message time travels in the text (``[YYYY-MM-DD HH:MM] Speaker: ...``).
* **Cut-off**: by ledger. ``invoke`` returns the items it wrote; each is stamped with the source
  record of that call (an item updated by a later call takes the later stamp, as its text now
  holds the later facts). Search over-fetches and keeps the items stamped before the cut-off. The
  store and the ledger live in the adapter object, so they always agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from importlib.metadata import version
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.adapters.common import (
    make_item,
    message_text,
    name_id,
    openai_key,
    source_metadata,
    visible,
)
from execmem.memory.registry import MissingExtraError

NAMESPACE = ("execmem", "{langgraph_user_id}")


class LangMemConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = Field(
        default=None, description="OpenAI-compatible endpoint for chat and embeddings"
    )
    api_key_env: str = "OPENAI_API_KEY"
    model: str = "gpt-4o-mini"
    embedding_model: str = "text-embedding-3-small"
    embedding_dims: int = Field(default=1536, ge=1)
    send_dimensions: bool = False
    query_limit: int = Field(default=5, ge=1, description="existing memories LangMem shows the model")
    enable_deletes: bool = Field(default=False, description="let the model delete contradicted memories")
    overfetch: int = Field(default=4, ge=1, description="under a cut-off, ask for top_k * overfetch")
    assistant_speakers: tuple[str, ...] = ()


class LangMemMemory:
    """A ``MemorySystem`` over ``langmem.create_memory_store_manager``."""

    def __init__(self, config: LangMemConfig | None = None, **options: Any):
        self.config = config or LangMemConfig(**options)
        try:
            from langchain_openai import ChatOpenAI, OpenAIEmbeddings
            from langgraph.store.memory import InMemoryStore
            from langmem import create_memory_store_manager
        except ImportError as exc:
            raise MissingExtraError("the 'langmem' memory adapter", "execmem", "langmem", exc) from exc
        key = openai_key(self.config.api_key_env, self.config.base_url, "langmem")
        endpoint = {"base_url": self.config.base_url, "api_key": key}
        dims = {"dimensions": self.config.embedding_dims} if self.config.send_dimensions else {}
        embeddings = OpenAIEmbeddings(
            model=self.config.embedding_model, check_embedding_ctx_length=False, **endpoint, **dims
        )
        self.store = InMemoryStore(index={"dims": self.config.embedding_dims, "embed": embeddings})
        self.manager = create_memory_store_manager(
            ChatOpenAI(model=self.config.model, **endpoint),
            namespace=NAMESPACE,
            store=self.store,
            query_limit=self.config.query_limit,
            enable_deletes=self.config.enable_deletes,
        )
        self._ledgers: dict[str, dict[str, dict[str, Any]]] = {}

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        if not messages:
            return
        chat = [self.chat_message(m) for m in messages]
        puts = self.manager.invoke({"messages": chat}, config=self._config(user_id))
        record = source_metadata(messages, timestamp)
        ledger = self._ledgers.setdefault(user_id, {})
        for put in puts:
            ledger[put["key"]] = record

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        if top_k <= 0:
            return []
        limit = top_k if before is None else top_k * self.config.overfetch
        found = self.manager.search(query=query, limit=limit, config=self._config(user_id))
        ledger = self._ledgers.get(user_id, {})
        kept = [hit for hit in found if visible(ledger.get(hit.key), before)][:top_k]
        return [
            make_item(self.text(hit.value), hit.score or 0.0, ledger.get(hit.key), key=hit.key)
            for hit in kept
        ]

    def reset(self, user_id: str) -> None:
        namespace = (NAMESPACE[0], name_id(user_id))
        while items := self.store.search(namespace, limit=100):
            for item in items:
                self.store.delete(namespace, item.key)
        self._ledgers.pop(user_id, None)

    def describe(self) -> dict[str, Any]:
        settings = self.config.model_dump(mode="json", exclude={"api_key_env"})
        return {
            "system": "langmem",
            "package": f"langmem=={version('langmem')}",
            "store": "InMemoryStore",
            **settings,
        }

    def chat_message(self, message: MemoryMessage) -> dict[str, str]:
        role = "assistant" if message.speaker in self.config.assistant_speakers else "user"
        return {"role": role, "content": message_text(message)}

    @staticmethod
    def text(value: Any) -> str:
        """The memory text of a found value: LangMem's ``Memory`` model (or a dict) with a ``content``."""
        content = value.get("content") if isinstance(value, dict) else getattr(value, "content", value)
        return content if isinstance(content, str) else str(value)

    @staticmethod
    def _config(user_id: str) -> dict[str, Any]:
        return {"configurable": {"langgraph_user_id": name_id(user_id)}}
