"""How incoming messages become stored units.

* ``turn``: one unit per message.
* ``window``: ``window_lines`` consecutive messages per unit (the last unit may be shorter).
* ``hour``: consecutive messages of the same clock hour (date and hour of their timestamp).

Windowing applies within one ``add()`` call: units never span two calls. A unit's text keeps
every line with its time and speaker (``[2025-03-03 08:30] Gary Allen: ...``); the unit also
records the distinct timestamps and the source line ids it covers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from execmem.core.protocols import MemoryMessage

Mode = Literal["turn", "window", "hour"]


class WindowingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Mode = "turn"
    window_lines: int = Field(default=8, ge=1, description="lines per unit in 'window' mode")

    def describe(self) -> dict[str, Any]:
        """The mode, with ``window_lines`` only where it matters."""
        if self.mode == "window":
            return {"mode": self.mode, "window_lines": self.window_lines}
        return {"mode": self.mode}


@dataclass(frozen=True)
class Unit:
    """One stored piece of memory: its text and the source it came from."""

    text: str
    timestamps: tuple[datetime, ...]
    line_ids: tuple[int, ...]

    @property
    def latest(self) -> datetime:
        """The time the unit is stamped with for cut-offs: its latest source timestamp."""
        return max(self.timestamps)

    @property
    def earliest(self) -> datetime:
        return min(self.timestamps)


def format_line(message: MemoryMessage) -> str:
    """``[YYYY-MM-DD HH:MM] Speaker: text`` (just ``[...] text`` when there is no speaker)."""
    stamp = message.timestamp.strftime("%Y-%m-%d %H:%M")
    return f"[{stamp}] {message.speaker}: {message.text}" if message.speaker else f"[{stamp}] {message.text}"


def make_units(messages: Sequence[MemoryMessage], config: WindowingConfig) -> list[Unit]:
    """The units the messages form under ``config``, in input order."""
    return [_unit(group) for group in _GROUPERS[config.mode](messages, config)]


def _unit(group: Sequence[MemoryMessage]) -> Unit:
    return Unit(
        text="\n".join(format_line(m) for m in group),
        timestamps=tuple(dict.fromkeys(m.timestamp for m in group)),
        line_ids=tuple(m.line_id for m in group if m.line_id is not None),
    )


def _by_turn(messages: Sequence[MemoryMessage], _: WindowingConfig) -> Iterator[Sequence[MemoryMessage]]:
    for message in messages:
        yield (message,)


def _by_window(
    messages: Sequence[MemoryMessage], config: WindowingConfig
) -> Iterator[Sequence[MemoryMessage]]:
    size = config.window_lines
    for start in range(0, len(messages), size):
        yield messages[start : start + size]


def _by_hour(messages: Sequence[MemoryMessage], _: WindowingConfig) -> Iterator[Sequence[MemoryMessage]]:
    def hour(message: MemoryMessage) -> datetime:
        return message.timestamp.replace(minute=0, second=0, microsecond=0)

    for _key, group in groupby(messages, key=hour):
        yield tuple(group)


_GROUPERS: dict[
    str, Callable[[Sequence[MemoryMessage], WindowingConfig], Iterator[Sequence[MemoryMessage]]]
] = {
    "turn": _by_turn,
    "window": _by_window,
    "hour": _by_hour,
}
