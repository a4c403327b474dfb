"""Configuration of an OpenAI-compatible model endpoint."""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# The start-up probe: one tiny request (max_tokens 1) that shows whether the endpoint can serve a run.
PROBE_MESSAGES = ({"role": "user", "content": "Reply with the word OK."},)
PROBE_TOOLS = (
    {
        "type": "function",
        "function": {"name": "noop", "description": "Does nothing.", "parameters": {"type": "object"}},
    },
)
# Shorter keys (local servers' "EMPTY", "x") are not secrets, and masking them would mangle text.
MIN_SECRET_CHARS = 8


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
    max_tokens: int | None = Field(None, ge=1)
    seed: int | None = None
    # Sent with every request that offers tools: llama-cpp-python's server ignores the tools
    # of a request without it. "omit" sends none (the OpenAI default is "auto").
    tool_choice: Literal["auto", "required", "omit"] = "auto"
    # How an assistant message without text is sent back: "" (every server accepts it) or
    # null (valid for OpenAI; llama-cpp-python answers 500).
    null_content: Literal["empty", "null"] = "empty"
    # The same 500 to the same request this many times in a row is a server defect: no more retries.
    server_defect_after: int = Field(2, ge=2)
    probe: bool = True  # one small request before a run: a wrong URL, key or model fails in seconds

    def api_key(self) -> str:
        # Local servers (vLLM, Ollama) accept any key; the SDK insists on one.
        return os.environ.get(self.api_key_env) or "not-set"

    def secret(self) -> str | None:
        """The key's value when it is long enough to be a secret worth masking in written text."""
        key = os.environ.get(self.api_key_env) or ""
        return key if len(key) >= MIN_SECRET_CHARS else None

    def endpoint(self) -> str:
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"

    def sampling(self) -> dict[str, Any]:
        """Request fields that change the answer (part of the cache key)."""
        fields = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}
        return {k: v for k, v in fields.items() if v is not None}

    def describe(self) -> dict[str, Any]:
        return self.model_dump()
