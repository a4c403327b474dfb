"""The configuration of a vehicle run: everything needed to reproduce it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from execmem.llm.config import ModelConfig

# Settings that change what is measured; a resumed run must keep them.
_OPERATIONAL = {
    "base_url",
    "api_key_env",
    "max_connections",
    "max_retries",
    "timeout_s",
    "backoff_base_s",
    "backoff_max_s",
    "transport",
    "server_defect_after",
    "probe",
}


class VehicleRunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: ModelConfig
    memory: str = "none"
    memory_options: dict[str, Any] = Field(default_factory=dict)
    scenarios: list[int] = Field(default_factory=lambda: list(range(1, 51)))
    max_steps: int = Field(10, ge=1)
    context_tokens: int = Field(100_000, ge=1)
    top_k: int = Field(5, ge=1)
    # How --context-tokens is counted for full-history (llm.token_counter): auto, chars,
    # tiktoken:ENCODING or a tokenizer.json.
    tokenizer: str = "auto"
    data_dir: Path | None = None
    cache_dir: Path | None = None

    def identity(self) -> dict[str, Any]:
        """The fields that define what the run measures (compared on resume); the tokenizer only
        where it cuts the prompt (full-history)."""
        data = self.model_dump(mode="json", exclude={"data_dir", "cache_dir"})
        data["model"] = {k: v for k, v in data["model"].items() if k not in _OPERATIONAL}
        if self.memory != "full-history":
            data.pop("tokenizer")
        return data


def identity_mismatch(saved: dict[str, Any], current: dict[str, Any], prefix: str = "") -> list[str]:
    """Readable differences between two identities (empty when they agree)."""
    problems = []
    for key in sorted(saved.keys() | current.keys()):
        old, new = saved.get(key), current.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            problems += identity_mismatch(old, new, f"{prefix}{key}.")
        elif old != new:
            problems.append(f"{prefix}{key}: run has {old!r}, command gives {new!r}")
    return problems
