"""Memory conditions: what the agent knows of a scenario's history, and how it gets it.

A condition builds a :class:`ScenarioMemory` once per scenario; the agent then
receives its memory in the prompt, or through memory tools, or not at all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from execmem.agents.tool_loop import MemoryTools
from execmem.core.protocols import Usage
from execmem.core.tokens import estimate_tokens
from execmem.suites.vehicle.dataset import HistoryLine, Question

TokenCount = Callable[[str], int]


@dataclass
class MemoryCost:
    """What building a scenario's memory cost."""

    llm_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    context_overflows: int = 0  # days whose update the endpoint refused as over the model's window

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> MemoryCost:
        usage = Usage(record["input_tokens"], record["output_tokens"])
        return cls(record["llm_calls"], usage, record["seconds"], record.get("context_overflows", 0))

    def to_json(self) -> dict[str, Any]:
        return {
            "llm_calls": self.llm_calls,
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "seconds": round(self.seconds, 3),
            "context_overflows": self.context_overflows,
        }


class ScenarioMemory(Protocol):
    cost: MemoryCost

    def prompt_memory(self, question: Question) -> str | None: ...

    def tools(self) -> MemoryTools | None: ...

    def record(self) -> dict[str, Any]: ...


class MemoryCondition(Protocol):
    name: str

    async def prepare(self, scenario: int) -> ScenarioMemory: ...

    def describe(self) -> dict[str, Any]: ...


@dataclass
class PromptMemory:
    """A memory that is text placed in the prompt (or nothing)."""

    text: str | None = None
    per_question: bool = False
    cost: MemoryCost = field(default_factory=MemoryCost)
    notes: dict[str, Any] = field(default_factory=dict)

    def prompt_memory(self, question: Question) -> str | None:
        return question.gold_memory if self.per_question else self.text

    def tools(self) -> MemoryTools | None:
        return None

    def record(self) -> dict[str, Any]:
        return {"text": self.text, "cost": self.cost.to_json(), **self.notes}


class NoMemory:
    name = "none"

    async def prepare(self, scenario: int) -> ScenarioMemory:
        return PromptMemory()

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}


class GoldMemory:
    """The question's gold memory, in the prompt: the ceiling for memory systems."""

    name = "gold"

    async def prepare(self, scenario: int) -> ScenarioMemory:
        return PromptMemory(per_question=True)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}


def format_lines(lines: list[HistoryLine]) -> str:
    return "\n".join(f"[{line.timestamp:%Y-%m-%d %H:%M}] {line.speaker}: {line.text}" for line in lines)


class FullHistory:
    """The scenario's whole dialogue in the prompt, cut from the oldest end to fit the budget
    (counted with ``count_tokens``: the model's tokenizer where known, see llm.token_counter)."""

    name = "full-history"

    def __init__(
        self,
        history_loader,
        context_tokens: int,
        count_tokens: TokenCount = estimate_tokens,
        tokenizer: dict[str, Any] | None = None,
    ) -> None:
        self._load = history_loader
        self.context_tokens = context_tokens
        self.count_tokens = count_tokens
        self.tokenizer = tokenizer or {"kind": "chars", "name": "chars/4"}

    async def prepare(self, scenario: int) -> ScenarioMemory:
        lines = self._load(scenario)
        kept, dropped = keep_newest(lines, self.context_tokens, self.count_tokens)
        notes = {"lines_total": len(lines), "lines_dropped": dropped, "truncated": dropped > 0}
        return PromptMemory(text=format_lines(kept), notes=notes)

    def describe(self) -> dict[str, Any]:
        budget = {"context_tokens": self.context_tokens, "tokenizer": self.tokenizer}
        return {"name": self.name, **budget, "truncation": "oldest lines first"}


def keep_newest(
    lines: list[HistoryLine], budget_tokens: int, count_tokens: TokenCount = estimate_tokens
) -> tuple[list[HistoryLine], int]:
    """The newest lines whose text fits the token budget, and how many older lines were dropped."""
    total = 0
    start = len(lines)
    while start > 0:
        cost = count_tokens(format_lines([lines[start - 1]])) + 1  # + the newline
        if total + cost > budget_tokens:
            break
        total += cost
        start -= 1
    return lines[start:], start
