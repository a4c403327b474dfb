"""The chat model behind any OpenAI-compatible endpoint (vLLM, Ollama, hosted APIs).

One client per run: a global limit on concurrent requests, retries with
jittered backoff that honour ``retry-after``, a response cache keyed on the
full request, and per-call token usage. A request that still fails after the
retries raises :class:`InfraError` (the harness's problem, never the model's).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import openai

from execmem.core.protocols import ModelReply, ToolRequest, Usage
from execmem.llm.cache import ResponseCache, request_key
from execmem.llm.config import ModelConfig
from execmem.llm.errors import InfraError
from execmem.llm.retry import backoff_s, describe_error, is_retryable, retry_after_s


class MalformedResponse(Exception):
    """A 200 answer that is not a usable chat completion."""


@dataclass
class ClientStats:
    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0


class OpenAIChatModel:
    """:class:`execmem.core.protocols.Model` over the official async ``openai`` SDK."""

    def __init__(
        self, config: ModelConfig, cache: ResponseCache | None = None, seed: int | None = None
    ) -> None:
        self.config = config
        self.cache = cache
        self.stats = ClientStats()
        self._slots = asyncio.Semaphore(config.max_connections)
        self._rng = random.Random(seed)
        self._client = openai.AsyncOpenAI(
            base_url=config.base_url,
            api_key=config.api_key(),
            max_retries=0,
            timeout=config.timeout_s,
            http_client=_http_client(config.transport),
        )

    def describe(self) -> dict[str, Any]:
        return {"kind": "openai-compatible", **self.config.describe()}

    async def complete(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> ModelReply:
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": list(messages),
            **self.config.sampling(),
        }
        if tools:
            request["tools"] = list(tools)
        key = request_key(request)
        if self.cache is not None and (body := self.cache.get(key)) is not None:
            self.stats.cache_hits += 1
            return parse_reply(body, latency_s=0.0, cached=True)
        started = time.perf_counter()
        body = await self._send(request)
        if self.cache is not None:
            self.cache.put(key, body)
        return parse_reply(body, latency_s=time.perf_counter() - started)

    async def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        attempts = self.config.max_retries + 1
        for attempt in range(attempts):
            try:
                return await self._post(request)
            except (openai.OpenAIError, MalformedResponse) as exc:
                retryable = isinstance(exc, MalformedResponse) or is_retryable(exc)
                if not retryable or attempt == attempts - 1:
                    self.stats.failures += 1
                    raise InfraError(describe_error(exc), attempt + 1) from exc
                self.stats.retries += 1
                await asyncio.sleep(self._wait_s(exc, attempt))
        raise AssertionError("unreachable")

    async def _post(self, request: dict[str, Any]) -> dict[str, Any]:
        async with self._slots:
            self.stats.requests += 1
            # The body is already plain JSON; posting it through the SDK's base client keeps
            # its auth, timeouts and error types but skips its costly per-request transform.
            raw = await self._client.post("/chat/completions", body=request, cast_to=httpx.Response)
            text = raw.text
        try:
            body = json.loads(text)
        except json.JSONDecodeError:
            raise MalformedResponse(f"response body is not JSON: {text[:120]!r}") from None
        if not isinstance(body, dict) or not body.get("choices"):
            raise MalformedResponse(f"response has no choices: {text[:120]!r}")
        return body

    def _wait_s(self, exc: Exception, attempt: int) -> float:
        server_says = retry_after_s(exc)
        if server_says is not None:
            return min(server_says, self.config.backoff_max_s)
        return backoff_s(attempt, self.config.backoff_base_s, self.config.backoff_max_s, self._rng)

    async def aclose(self) -> None:
        await self._client.close()


def _http_client(transport: str) -> httpx.AsyncClient | None:
    """The SDK's aiohttp transport needs about a third less CPU per request than its default httpx."""
    if transport == "aiohttp":
        return openai.DefaultAioHttpClient()
    return None


def parse_reply(body: dict[str, Any], latency_s: float, cached: bool = False) -> ModelReply:
    """The first choice of a chat-completion body as a ModelReply."""
    message = body["choices"][0].get("message") or {}
    calls = tuple(
        ToolRequest(
            id=call.get("id") or f"call_{i}",
            name=(call.get("function") or {}).get("name", ""),
            arguments=(call.get("function") or {}).get("arguments") or "",
        )
        for i, call in enumerate(message.get("tool_calls") or [])
    )
    usage = body.get("usage") or {}
    return ModelReply(
        content=message.get("content"),
        tool_calls=calls,
        usage=Usage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)),
        latency_s=latency_s,
        cached=cached,
        raw=message,
    )
