"""One request through the real client, for the tests of this folder."""

from __future__ import annotations

import asyncio
from typing import Any

from execmem.core.protocols import ModelReply
from execmem.llm.client import OpenAIChatModel
from execmem.llm.config import ModelConfig

TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
HELLO = [{"role": "user", "content": "hello"}]


def ask(base_url: str, messages: list[dict[str, Any]] = HELLO, tools=TOOLS, **overrides) -> ModelReply:
    """``complete(messages, tools)`` with a fresh client (``overrides``: ModelConfig fields)."""
    settings = {"model": "m", "base_url": base_url, "backoff_base_s": 0.01} | overrides
    model = OpenAIChatModel(ModelConfig(**settings))

    async def go() -> ModelReply:
        try:
            return await model.complete(messages, tools)
        finally:
            await model.aclose()

    return asyncio.run(go())
