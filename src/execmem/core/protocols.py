"""The protocols every component matches, in one place: Model, MemorySystem, Environment.

Implementations do not inherit from these; they only need the same methods.
Every component can ``describe()`` itself as a JSON-able dict, so a run
records exactly what it used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

# ---------------------------------------------------------------- memory


@dataclass(frozen=True)
class MemoryMessage:
    """One utterance given to a memory system."""

    speaker: str
    text: str
    timestamp: datetime
    line_id: int | None = None  # where it came from in the source history, when known


@dataclass(frozen=True)
class MemoryItem:
    """One search hit. Systems that know their sources fill timestamps and line ids."""

    text: str
    score: float
    timestamps: tuple[datetime, ...] = ()
    line_ids: tuple[int, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class MemorySystem(Protocol):
    """A long-term memory: written with dialogue, searched per user space.

    ``user_id`` isolates spaces completely: nothing added under one id may be
    returned under another. ``before`` is a time cut-off: nothing written
    after it may be returned.
    """

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None: ...

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]: ...

    def reset(self, user_id: str) -> None: ...

    def describe(self) -> dict[str, Any]: ...


# ---------------------------------------------------------------- models


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)


@dataclass(frozen=True)
class ToolRequest:
    """A tool call the model asked for; ``arguments`` is the raw JSON text it sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ModelReply:
    """A model's answer. ``latency_s`` is the model's time on the answering request alone: waiting
    for a free connection (``queue_s``), for retries (``retry_wait_s``) and on failed attempts
    (``failed_s``) is counted apart. ``finish_reason`` "length" marks a reply cut at its cap."""

    content: str | None
    tool_calls: tuple[ToolRequest, ...]
    usage: Usage
    latency_s: float = 0.0
    cached: bool = False
    raw: dict[str, Any] = field(default_factory=dict)
    finish_reason: str | None = None
    attempts: int = 1
    queue_s: float = 0.0
    retry_wait_s: float = 0.0
    failed_s: float = 0.0


@runtime_checkable
class Model(Protocol):
    """A chat model with tool calling (OpenAI chat-completions shaped messages)."""

    async def complete(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> ModelReply: ...

    def describe(self) -> dict[str, Any]: ...


# ---------------------------------------------------------------- environments


@runtime_checkable
class Environment(Protocol):
    """The world an agent acts on: tools to offer and a way to run them."""

    def tool_schemas(self) -> list[dict[str, Any]]: ...

    def run_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]: ...
