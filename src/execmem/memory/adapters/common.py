"""What the adapters to outside memory systems share: source stamps, the cut-off, message text.

Every adapter writes the same source record next to what it stores, as flat metadata (strings
and numbers only, which every backend accepts):

* ``execmem_time``: the latest source timestamp, as POSIX seconds (a naive time counts as UTC,
  so naive times compare as wall-clock times, like the built-in systems do);
* ``execmem_times`` / ``execmem_line_ids``: every source timestamp (ISO) and line id, comma-joined;
* ``execmem_written_at``: the ``timestamp`` argument of ``add()`` (ISO), kept for the record.

Reading it back gives a ``MemoryItem``'s ``timestamps`` and ``line_ids``, and the cut-off: an item
is visible under ``before=t`` only if its latest source timestamp is strictly before ``t``. An item
without a source record (written by someone else) is hidden by any cut-off: it cannot be placed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any
from urllib.parse import quote

from pydantic import BeforeValidator

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.base import check_path
from execmem.memory.store import IN_MEMORY
from execmem.memory.windowing import format_line

TIME = "execmem_time"
TIMES = "execmem_times"
LINE_IDS = "execmem_line_ids"
WRITTEN_AT = "execmem_written_at"
SOURCE_KEYS = (TIME, TIMES, LINE_IDS, WRITTEN_AT)


def posix(moment: datetime) -> float:
    """Seconds since the epoch; a naive time is read as UTC."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def source_metadata(messages: Sequence[MemoryMessage], written_at: datetime) -> dict[str, Any]:
    """The source record of what ``messages`` become (they must not be empty)."""
    stamps = list(dict.fromkeys(m.timestamp for m in messages))
    return {
        TIME: max(posix(t) for t in stamps),
        TIMES: ",".join(t.isoformat() for t in stamps),
        LINE_IDS: ",".join(str(m.line_id) for m in messages if m.line_id is not None),
        WRITTEN_AT: written_at.isoformat(),
    }


def source_of(metadata: Mapping[str, Any] | None) -> tuple[tuple[datetime, ...], tuple[int, ...]]:
    """The timestamps and line ids a stored source record names (empty when there is none)."""
    metadata = metadata or {}
    times = str(metadata.get(TIMES) or "")
    line_ids = str(metadata.get(LINE_IDS) or "")
    return (
        tuple(datetime.fromisoformat(t) for t in times.split(",") if t),
        tuple(int(i) for i in line_ids.split(",") if i),
    )


def visible(metadata: Mapping[str, Any] | None, before: datetime | None) -> bool:
    """Whether an item with this stored metadata may be returned under the cut-off ``before``."""
    if before is None:
        return True
    stamp = (metadata or {}).get(TIME)
    return isinstance(stamp, int | float) and stamp < posix(before)


def make_item(text: str, score: float, metadata: Mapping[str, Any] | None, **extra: Any) -> MemoryItem:
    """A search hit with its source (from the stored record) and ``extra`` as item metadata."""
    timestamps, line_ids = source_of(metadata)
    written = (metadata or {}).get(WRITTEN_AT)
    details = {"written_at": written} if written else {}
    return MemoryItem(text, float(score), timestamps, line_ids, {**details, **extra})


def keep_before(items: Iterable[MemoryItem], before: datetime | None, top_k: int) -> list[MemoryItem]:
    """The first ``top_k`` items whose every source timestamp is strictly before ``before``.

    For systems that return ``MemoryItem``s already: an item without timestamps is dropped
    under a cut-off.
    """
    if before is None:
        return list(items)[:top_k]
    limit = posix(before)
    kept = [i for i in items if i.timestamps and max(posix(t) for t in i.timestamps) < limit]
    return kept[:top_k]


def message_text(message: MemoryMessage) -> str:
    """``[YYYY-MM-DD HH:MM] Speaker: text``: the time travels inside the text for systems that
    only know their own clock (and for the model that reads the memory later)."""
    return format_line(message)


def safe_id(user_id: str) -> str:
    """``user_id`` with everything but letters, digits and ``-_.~`` percent-encoded.

    One-to-one, so two spaces never merge; for systems that refuse spaces or punctuation in ids.
    """
    if not user_id:
        raise ValueError("user_id must not be empty")
    return quote(user_id, safe="")


def name_id(user_id: str) -> str:
    """``user_id`` in letters, digits and ``-`` only, one-to-one: any other byte becomes ``_xx``."""
    if not user_id:
        raise ValueError("user_id must not be empty")
    return "".join(
        chr(b) if chr(b).isascii() and (chr(b).isalnum() or chr(b) == "-") else f"_{b:02x}"
        for b in user_id.encode("utf-8")
    )


def _state_directory(value: Any) -> str | None:
    if value is None:
        return None
    text = check_path(value)
    if text == IN_MEMORY:
        raise ValueError(
            "this system keeps its state in files: give a directory, or None for a temporary one"
        )
    return text


StateDirectory = Annotated[str | None, BeforeValidator(_state_directory)]
"""The ``path`` of a system that keeps files: an absolute directory, or None for a temporary one."""


def api_key(env_name: str | None) -> str | None:
    """The key from the named environment variable (``None`` when no variable is named or set)."""
    return os.environ.get(env_name) if env_name else None


LOCAL_SERVER_KEY = "not-set"


def openai_key(env_name: str, base_url: str | None, system: str) -> str:
    """The key for an OpenAI-compatible endpoint used by ``system``.

    A local server (``base_url`` given) accepts any key, so a missing one becomes a
    placeholder; the hosted API needs one, and its absence is a setup error that names
    the variable rather than a traceback from deep inside the system's client.
    """
    key = api_key(env_name)
    if key:
        return key
    if base_url:
        return LOCAL_SERVER_KEY
    raise ValueError(
        f"{system} needs an API key: set ${env_name} (or choose the variable with api_key_env), "
        "or point base_url at an OpenAI-compatible server"
    )


def package_version(name: str) -> str:
    """The installed version of a distribution, for ``describe()`` ("unknown" when not installed)."""
    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


class PerUserSystems:
    """For adapters that keep one library system per user space under one root directory:
    the lock, the systems, and a temporary root (removed by ``close``) when no path is given."""

    def _init_systems(self, path: str | None, prefix: str) -> None:
        self._lock = threading.RLock()
        self._systems: dict[str, Any] = {}
        self._temporary = None if path else tempfile.mkdtemp(prefix=prefix)
        self.root = path or self._temporary

    def close(self) -> None:
        """Forget the systems, and remove the temporary directory if the adapter made one."""
        with self._lock:
            self._systems.clear()
            if self._temporary:
                shutil.rmtree(self._temporary, ignore_errors=True)
