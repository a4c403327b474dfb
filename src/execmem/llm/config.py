"""Configuration of an OpenAI-compatible model endpoint."""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ModelConfig(BaseModel):
    """Everything that identifies a model endpoint and how it is called.

    The API key itself is never stored: only the name of the environment
    variable that holds it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    max_connections: int = Field(16, ge=1)
    max_retries: int = Field(6, ge=0)
    timeout_s: float = Field(120.0, gt=0)
    backoff_base_s: float = Field(0.5, gt=0)
    backoff_max_s: float = Field(30.0, gt=0)
    transport: Literal["aiohttp", "httpx"] = "aiohttp"
    temperature: float | None = 0.0
    max_tokens: int | None = None
    seed: int | None = None

    def api_key(self) -> str:
        # Local servers (vLLM, Ollama) accept any key; the SDK insists on one.
        return os.environ.get(self.api_key_env) or "not-set"

    def sampling(self) -> dict[str, Any]:
        """Request fields that change the answer (part of the cache key)."""
        fields = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}
        return {k: v for k, v in fields.items() if v is not None}

    def describe(self) -> dict[str, Any]:
        return self.model_dump()
