"""The conditions that put text in the prompt as it is: none, the gold memory, the full history."""

from __future__ import annotations

from typing import Any

from execmem.agents.vehicle.conditions.base import PromptMemory, ScenarioMemory, TokenCount, format_lines
from execmem.core.tokens import estimate_tokens
from execmem.suites.vehicle.dataset import HistoryLine


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
