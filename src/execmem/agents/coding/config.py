"""The solver's budgets: one typed config, recorded in every run's manifest."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class SolverConfig(BaseModel):
    """Step, token, time and context budgets of one episode, and how much command output is shown."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_steps: int = Field(30, ge=1, description="model calls per episode")
    max_total_tokens: int = Field(
        400_000, ge=1, description="input + output tokens summed over the episode's model calls"
    )
    time_limit_s: float = Field(900.0, gt=0, description="wall-clock seconds for the agent part")
    command_timeout_s: float = Field(120.0, gt=0, description="seconds one bash command may run")
    output_chars: int = Field(10_000, ge=200, description="characters of command output shown (head+tail)")
    context_tokens: int = Field(
        100_000, ge=1, description="prompt tokens (counted with `tokenizer`) beyond which the episode stops"
    )
    tokenizer: str = Field(
        "auto",
        description="how context_tokens is counted: auto, chars, tiktoken:ENCODING or a tokenizer.json",
    )

    def describe(self) -> dict[str, Any]:
        return self.model_dump()
