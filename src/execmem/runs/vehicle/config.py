"""The configuration of a vehicle run: everything needed to reproduce it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from execmem.llm.config import ModelConfig
from execmem.runs.identity import measured_model
from execmem.runs.prices import Price, PriceTable


class VehicleRunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: ModelConfig
    memory: str = "none"
    memory_options: dict[str, Any] = Field(default_factory=dict)
    # How summary and key-value memories are built: execmem's prompts, or the VehicleMemBench
    # release's method (docs/runs.md); part of the identity only when it is not the default.
    memory_style: Literal["execmem", "release"] = "execmem"
    scenarios: list[int] = Field(default_factory=lambda: list(range(1, 51)))
    max_steps: int = Field(10, ge=1)
    context_tokens: int = Field(100_000, ge=1)
    top_k: int = Field(5, ge=1)
    # How --context-tokens is counted for full-history (llm.token_counter): auto, chars,
    # tiktoken:ENCODING or a tokenizer.json.
    tokenizer: str = "auto"
    data_dir: Path | None = None
    cache_dir: Path | None = None
    # Repeated trials of every question (runs.vehicle.trials); not part of the identity, so a
    # larger --trials on a finished run adds trials.
    trials: int = Field(1, ge=1)
    # Prices per million tokens by model ("*": any), for the cost in metrics.json (runs.prices);
    # not part of the identity: what a run costs does not change what it measures.
    prices: dict[str, Price] | None = None

    def price(self) -> Price | None:
        """The price of this run's model, if prices were given."""
        return PriceTable(self.prices).price_for(self.model.model) if self.prices else None

    def identity(self) -> dict[str, Any]:
        """The fields that define what the run measures (compared on resume); the tokenizer only
        where it cuts the prompt (full-history)."""
        data = self.model_dump(mode="json", exclude={"data_dir", "cache_dir", "trials", "prices"})
        data["model"] = measured_model(data["model"])
        if self.memory != "full-history":
            data.pop("tokenizer")
        if self.memory_style == "execmem":  # runs made before styles existed keep their identity
            data.pop("memory_style")
        return data
