"""``memoryos``: MemoryOS (BAI-LAB), PyPI ``memoryos-pro`` (``pip install "execmem[memoryos]"``).

MemoryOS keeps a user's dialogue as question-answer pairs in three tiers: a short-term queue of
the last ``short_term_capacity`` pairs; mid-term *sessions* of pages, filled one evicted pair at a
time (the model checks continuity, writes a meta-summary, a topic summary and keywords), searched
by embedding and keyword overlap; and a long-term user profile, user knowledge and assistant
knowledge, which the model extracts from a session once its "heat" passes
``mid_term_heat_threshold``.

* **User spaces**: one ``Memoryos`` per user, with ``user_id`` *and* ``assistant_id`` set to the
  user's slugged id: MemoryOS files assistant knowledge under the assistant id, so a shared one
  would leak knowledge between spaces. Everything lives under ``path`` (``None``: a temporary
  directory removed by ``close()``); ``reset`` deletes the user's two folders.
* **Messages**: MemoryOS stores ``(user_input, agent_response)`` pairs: see ``adapters.turns``
  (speakers in ``assistant_speakers`` answer; ``no_reply`` fills an empty side). Each pair is
  ``add_memory`` with the timestamp of its latest message (``YYYY-MM-DD HH:MM:SS``).
* **Cut-off**: MemoryOS keeps no caller metadata, so a side file (``<path>/execmem/<user>.json``,
  ``adapters.ledger``) holds the source record of every pair, found again from the page's own
  timestamp and text: exact per pair. Knowledge entries and the profile are stamped when they
  first appear, after the pair whose ``add_memory`` produced them, no earlier than the latest
  source written so far; a profile rewritten later is a new text with a later stamp. Hits are
  filtered after retrieval, so fewer than ``top_k`` can come back.
* **Search**: ``retriever.retrieve_context`` (one model call for the query's keywords), then the
  stores in ``stores`` order: retrieved pages, user knowledge, assistant knowledge, the profile,
  the short-term queue (newest first; MemoryOS shows it whole, unranked). Scores are ``1 / rank``.
* **Embedding**: see ``memoryos_embedding`` (default: all-MiniLM-L6-v2, MemoryOS's own model).
* MemoryOS hides failed model calls behind a placeholder text; the adapter raises
  ``ModelCallError`` instead (``adapters.call_meter``), which also gives ``usage()``.
  MemoryOS prints its progress to stdout.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.adapters.call_meter import CallMeter
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
from execmem.memory.adapters.ledger import SourceLedger, key_of
from execmem.memory.adapters.memoryos_embedding import install, make_encoder
from execmem.memory.adapters.turns import NO_REPLY, exchanges
from execmem.memory.registry import MissingExtraError

Store = Literal["pages", "user_knowledge", "assistant_knowledge", "profile", "short_term"]
STORES: tuple[Store, ...] = ("pages", "user_knowledge", "assistant_knowledge", "profile", "short_term")


class MemoryOSConfig(BaseModel):
    """How the adapter builds each user's ``Memoryos`` and reads it back."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: StateDirectory = Field(default=None, description="directory (absolute) of every user's files")
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint (…/v1)")
    api_key_env: str = "OPENAI_API_KEY"
    model: str = Field(default="gpt-4o-mini", description="MemoryOS's one model for every call")
    embedder: Literal["minilm", "sentence-transformers", "openai"] = "minilm"
    embedding_model: str | None = Field(
        default=None, description="sentence-transformers: hub name or directory; openai: endpoint model"
    )
    short_term_capacity: int = Field(default=10, ge=1)
    mid_term_capacity: int = Field(default=2000, ge=1)
    long_term_knowledge_capacity: int = Field(default=100, ge=1)
    retrieval_queue_capacity: int = Field(default=7, ge=1, description="pages a search retrieves")
    mid_term_heat_threshold: float = Field(default=5.0, ge=0)
    mid_term_similarity_threshold: float = 0.6
    top_k_sessions: int = Field(default=5, ge=1)
    top_k_knowledge: int = Field(default=20, ge=1)
    stores: tuple[Store, ...] = Field(default=STORES, min_length=1, description="what a search returns")
    assistant_speakers: tuple[str, ...] = ()
    no_reply: str = NO_REPLY

    @model_validator(mode="after")
    def _named_model(self) -> MemoryOSConfig:
        if self.embedder == "sentence-transformers" and not self.embedding_model:
            raise ValueError("embedder 'sentence-transformers' needs embedding_model (hub name or directory)")
        return self


@dataclass(frozen=True)
class Found:
    """One thing a search can return, before the cut-off."""

    store: str
    text: str
    key: str
    extra: dict[str, Any] = field(default_factory=dict)


def wall_clock(moment: datetime) -> str:
    """``YYYY-MM-DD HH:MM:SS`` (an aware time in UTC): the format MemoryOS stamps its records in."""
    if moment.tzinfo:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def pair_key(timestamp: str, user_input: str, agent_response: str) -> str:
    return key_of("pair", timestamp, user_input, agent_response)


def _import_memoryos() -> tuple[Any, Any]:
    try:
        from memoryos import Memoryos, utils
    except ImportError as exc:
        raise MissingExtraError("the 'memoryos' memory adapter", "execmem", "memoryos", exc) from exc
    return Memoryos, utils


class MemoryOSMemory(PerUserSystems):
    """A ``MemorySystem`` over MemoryOS, one ``Memoryos`` per user space."""

    accepts = frozenset({"path"})  # the state directory; MemoryOS pages its own history

    def __init__(self, config: MemoryOSConfig | None = None, **options: Any):
        self.config = config or MemoryOSConfig(**options)
        self._memoryos, self._utils = _import_memoryos()
        self._key = openai_key(self.config.api_key_env, self.config.base_url, "MemoryOS")
        config = self.config
        self._encoder = make_encoder(config.embedder, config.embedding_model, config.base_url, self._key)
        self._meter = CallMeter()
        self._ledgers: dict[str, SourceLedger] = {}
        self._init_systems(config.path, "execmem-memoryos-")

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        if not messages:
            return
        with self._calls("MemoryOS add()"):
            system, ledger = self.system(user_id), self.ledger(user_id)
            no_reply = self.config.no_reply
            for exchange in exchanges(messages, self.config.assistant_speakers):
                record = source_metadata(exchange.messages, timestamp)
                stamp = wall_clock(exchange.latest)
                user, answer = exchange.user_text(no_reply), exchange.assistant_text(no_reply)
                ledger.stamp(pair_key(stamp, user, answer), record)
                system.add_memory(user_input=user, agent_response=answer, timestamp=stamp)
                for found in self._derived(system):
                    ledger.stamp_derived(found.key, record)
            ledger.save()

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        if top_k <= 0:
            return []
        with self._calls("MemoryOS search()"):
            if not self._exists(user_id):
                return []
            system, ledger = self.system(user_id), self.ledger(user_id)
            found = [f for f in self._found(system, query) if visible(ledger.get(f.key), before)]
            return [
                make_item(f.text, 1.0 / rank, ledger.get(f.key), store=f.store, **f.extra)
                for rank, f in enumerate(found[:top_k], start=1)
            ]

    def reset(self, user_id: str) -> None:
        with self._lock:
            self._systems.pop(user_id, None)
            for folder in ("users", "assistants"):
                shutil.rmtree(Path(self.root, folder, name_id(user_id)), ignore_errors=True)
            self.ledger(user_id).delete()

    def describe(self) -> dict[str, Any]:
        settings = self.config.model_dump(mode="json", exclude={"api_key_env"})
        return {
            "system": "memoryos",
            "package": f"memoryos-pro=={package_version('memoryos-pro')}",
            **settings,
        }

    def usage(self) -> dict[str, int]:
        """MemoryOS's model calls so far (with their tokens) and how many failed."""
        return self._meter.usage()

    def system(self, user_id: str) -> Any:
        """The user's ``Memoryos`` (built on first use; it reloads its files from ``path``)."""
        if user_id not in self._systems:
            self._systems[user_id] = self._build(name_id(user_id))
        return self._systems[user_id]

    def ledger(self, user_id: str) -> SourceLedger:
        if user_id not in self._ledgers:
            self._ledgers[user_id] = SourceLedger(Path(self.root, "execmem", name_id(user_id) + ".json"))
        return self._ledgers[user_id]

    @contextlib.contextmanager
    def _calls(self, what: str) -> Iterator[None]:
        """The adapter's lock, this adapter's encoder in MemoryOS, failed model calls raised."""
        with self._lock, self._meter.checked(what):
            install(self._utils, self._encoder)
            yield

    def _exists(self, user_id: str) -> bool:
        return user_id in self._systems or Path(self.root, "users", name_id(user_id)).is_dir()

    def _build(self, space: str) -> Any:
        c = self.config
        system = self._memoryos(
            user_id=space, assistant_id=space, openai_api_key=self._key, data_storage_path=self.root,
            openai_base_url=c.base_url, llm_model=c.model,
            short_term_capacity=c.short_term_capacity, mid_term_capacity=c.mid_term_capacity,
            long_term_knowledge_capacity=c.long_term_knowledge_capacity,
            retrieval_queue_capacity=c.retrieval_queue_capacity,
            mid_term_heat_threshold=c.mid_term_heat_threshold,
            mid_term_similarity_threshold=c.mid_term_similarity_threshold,
        )  # fmt: skip
        self._meter.attach(system.client.client)
        return system

    def _found(self, system: Any, query: str) -> list[Found]:
        """Everything the configured stores offer for ``query``, in ``stores`` order."""
        context: dict[str, Any] = {}
        if {"pages", "user_knowledge", "assistant_knowledge"} & set(self.config.stores):
            context = system.retriever.retrieve_context(
                user_query=query, user_id=system.user_id,
                top_k_sessions=self.config.top_k_sessions, top_k_knowledge=self.config.top_k_knowledge,
            )  # fmt: skip
        by_store = {
            "pages": [self._pair(page, "pages") for page in context.get("retrieved_pages", [])],
            "user_knowledge": [
                knowledge("user_knowledge", e) for e in context.get("retrieved_user_knowledge", [])
            ],
            "assistant_knowledge": [
                knowledge("assistant_knowledge", e) for e in context.get("retrieved_assistant_knowledge", [])
            ],
            "profile": profile(system),
            "short_term": [
                self._pair(qa, "short_term") for qa in reversed(system.short_term_memory.get_all())
            ],
        }
        return [found for store in self.config.stores for found in by_store[store]]

    def _derived(self, system: Any) -> list[Found]:
        """What MemoryOS derives rather than stores: knowledge entries and the profile."""
        user = system.user_long_term_memory.get_user_knowledge()
        assistant = system.assistant_long_term_memory.get_assistant_knowledge()
        return [
            *(knowledge("user_knowledge", entry) for entry in user),
            *(knowledge("assistant_knowledge", entry) for entry in assistant),
            *profile(system),
        ]

    def _pair(self, page: dict[str, Any], store: str) -> Found:
        """A mid-term page or a short-term pair: its two sides, placeholders left out."""
        user, answer = page.get("user_input", ""), page.get("agent_response", "")
        text = "\n".join(side for side in (user, answer) if side and side != self.config.no_reply)
        extra = {"memoryos_timestamp": page.get("timestamp", "")}
        if store == "pages":
            extra |= {"id": page.get("page_id"), "meta_info": page.get("meta_info")}
        return Found(store, text, pair_key(page.get("timestamp", ""), user, answer), extra)


def knowledge(store: str, entry: dict[str, Any]) -> Found:
    text, stamp = entry.get("knowledge", ""), entry.get("timestamp", "")
    return Found(store, text, key_of(store, text, stamp), {"memoryos_timestamp": stamp})


def profile(system: Any) -> list[Found]:
    """The user's profile (none while MemoryOS has not written one)."""
    text = system.user_long_term_memory.get_raw_user_profile(system.user_id)
    if not text or text.strip().lower() == "none":
        return []
    return [Found("profile", text, key_of("profile", text))]
