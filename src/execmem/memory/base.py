"""What the embedded systems share: config, windowing messages into units, storing and indexing them.

A system is a ``UnitStore`` plus one or more indexes over the same units, and a ranking rule.

Cut-off: a unit is stamped with its latest source timestamp. ``search(..., before=t)`` sees only
units stamped strictly before ``t``; a unit that runs past ``t`` (an hour window that straddles
it, say) is hidden whole. ``add()``'s own ``timestamp`` is kept as ``written_at`` in the item
metadata but plays no part in the cut-off.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from datetime import datetime
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.store import IN_MEMORY, Hit, Scope, UnitStore, check_name, transaction
from execmem.memory.windowing import WindowingConfig, make_units


def check_path(value: Any) -> str:
    """``value`` as a string if it is an absolute path or ':memory:' (never resolved against the cwd)."""
    text = os.fspath(value)
    if text != IN_MEMORY and not os.path.isabs(text):
        raise ValueError(f"path must be absolute or ':memory:', got {text!r}")
    return text


class FileConfig(BaseModel):
    """Where a system keeps its state: the run's SQLite file and its tables' prefix."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(default=IN_MEMORY, description="the run's SQLite file (absolute), or ':memory:'")
    collection: str = Field(description="table-name prefix inside the file")

    @field_validator("path", mode="before")
    @classmethod
    def _absolute_path(cls, value: Any) -> str:
        return check_path(value)

    @field_validator("collection")
    @classmethod
    def _table_name(cls, value: str) -> str:
        return check_name(value)


class StoreConfig(FileConfig):
    """Where a system keeps its state and how it cuts messages into units."""

    windowing: WindowingConfig = WindowingConfig()

    @field_validator("windowing", mode="before")
    @classmethod
    def _mode_shorthand(cls, value: Any) -> Any:
        return {"mode": value} if isinstance(value, str) else value


class UnitIndex(Protocol):
    """One way of ranking stored units (full text, vectors)."""

    def index(self, user_id: str, rows: Sequence[tuple[int, str]]) -> None: ...

    def reset(self, user_id: str) -> None: ...

    def rank(self, query: str, scope: Scope, limit: int) -> list[Hit]: ...

    def describe(self) -> dict[str, Any]: ...


class UnitMemory:
    """A ``MemorySystem`` over stored units; subclasses choose the indexes and the ranking."""

    name: ClassVar[str]
    accepts: ClassVar[frozenset[str]] = frozenset({"path", "windowing"})
    """The harness settings every embedded system takes (see ``registry.accepted_settings``)."""

    def __init__(self, config: StoreConfig, store: UnitStore, indexes: Sequence[UnitIndex]):
        self.config = config
        self.store = store
        self.indexes = tuple(indexes)
        self._lock = threading.RLock()
        store.claim(self.layout())

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        units = make_units(messages, self.config.windowing)
        if not units:
            return
        with self._lock, transaction(self.store.conn):
            ids = self.store.insert(user_id, units, timestamp)
            rows = list(zip(ids, (unit.text for unit in units), strict=True))
            for index in self.indexes:
                index.index(user_id, rows)

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        if top_k <= 0:
            return []
        with self._lock:
            return self.store.items(self.rank(query, self.store.scope(user_id, before), top_k))

    def reset(self, user_id: str) -> None:
        with self._lock, transaction(self.store.conn):
            for index in self.indexes:
                index.reset(user_id)
            self.store.delete_user(user_id)

    def close(self) -> None:
        """Close the run file (the object is unusable afterwards)."""
        self.store.conn.close()

    def rank(self, query: str, scope: Scope, limit: int) -> list[Hit]:
        """The best ``limit`` units in ``scope`` for ``query``, best first."""
        raise NotImplementedError

    def layout(self) -> dict[str, Any]:
        """What must not change between runs writing the same collection."""
        return {
            "system": self.name,
            "windowing": self.config.windowing.describe(),
            "indexes": [index.describe() for index in self.indexes],
        }

    def describe(self) -> dict[str, Any]:
        return {
            **self.layout(),
            "path": self.config.path,
            "collection": self.config.collection,
            "settings": self.config.model_dump(mode="json", exclude={"path", "collection", "windowing"}),
        }
