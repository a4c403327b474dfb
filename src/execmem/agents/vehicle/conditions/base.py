"""What every memory condition shares: the protocols, the cost record, prompt memory, history text.

A condition builds a :class:`ScenarioMemory` once per scenario; the agent then
receives its memory in the prompt, or through memory tools, or not at all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from execmem.agents.tool_loop import LoopResult, MemoryTools
from execmem.core.protocols import Usage
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

    def add_loop(self, result: LoopResult) -> None:
        """Count one tool loop of the build (a day's filing): its model calls, tokens, overflow."""
        self.llm_calls += result.steps
        self.usage += result.usage
        self.context_overflows += result.end_reason == "context_length"

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


def format_lines(lines: list[HistoryLine]) -> str:
    return "\n".join(f"[{line.timestamp:%Y-%m-%d %H:%M}] {line.speaker}: {line.text}" for line in lines)
