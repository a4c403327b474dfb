"""The chat model behind any OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp, hosted APIs).

One client per run: a limit on concurrent requests (one process's, or a cluster's: see
:mod:`execmem.llm.limits`), retries with jittered backoff that
honour ``retry-after``, a response cache keyed on the full request, per-call token usage and
timings. Requests are plain JSON posted over aiohttp (or httpx): serialised once, the same bytes
being the cache key, without an SDK building each request.

What can go wrong, and what it becomes (see :mod:`execmem.llm.errors`): a request that still
fails after the retries raises :class:`InfraError` (the same 500 twice: :class:`ServerDefect`,
at once); a prompt over the model's window raises :class:`ContextOverflow`; a refused key, an
unknown model or nothing listening raise :class:`EndpointError`. Error texts and replies have
the API key masked before anyone can write them down.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from execmem.core.protocols import ModelReply
from execmem.llm.cache import Cache
from execmem.llm.completion import Completion, MalformedResponse, parse_completion
from execmem.llm.config import PROBE_MESSAGES, PROBE_TOOLS, ModelConfig
from execmem.llm.errors import EndpointError, EndpointUnreachable, InfraError, ServerDefect
from execmem.llm.limits import ConnectionLimit, LocalLimit
from execmem.llm.redact import Redactor
from execmem.llm.retry import backoff_s, describe, is_retryable, raise_for_endpoint, retry_after_s
from execmem.llm.transport import Answer, TransportError, make_transport

log = logging.getLogger(__name__)
CHAT_PATH = "/chat/completions"


@dataclass
class ClientStats:
    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0
    defects: dict[str, int] = field(default_factory=dict)  # server-defect reason -> times seen


@dataclass(frozen=True)
class _Failure:
    reason: str
    retry_in: float | None  # seconds the server asked for (0: our backoff); None: retrying is pointless


@dataclass
class _Timing:
    attempts: int = 0
    queue_s: float = 0.0
    retry_wait_s: float = 0.0
    failed_s: float = 0.0
    latency_s: float = 0.0


class OpenAIChatModel:
    """:class:`execmem.core.protocols.Model` over an OpenAI-compatible ``/chat/completions``."""

    def __init__(
        self,
        config: ModelConfig,
        cache: Cache | None = None,
        seed: int | None = None,
        limit: ConnectionLimit | None = None,
    ) -> None:
        self.config = config
        self.cache = cache
        self.stats = ClientStats()
        self.redact = Redactor(config.secret())
        self.url = config.endpoint()
        self._limit = limit or LocalLimit(config.max_connections)
        self._rng = random.Random(seed)
        headers = {
            "Authorization": f"Bearer {config.api_key()}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        }
        self._transport = make_transport(
            config.transport, self.url, headers, config.timeout_s, config.max_connections
        )

    def describe(self) -> dict[str, Any]:
        return {"kind": "openai-compatible", **self.config.describe()}

    def with_seed(self, seed: int | None) -> OpenAIChatModel:
        """This client (its connections and their limit, cache, stats) sending ``seed`` instead."""
        twin = copy.copy(self)
        twin.config = self.config.model_copy(update={"seed": seed})
        return twin

    def request(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """The request body for ``messages`` (and ``tools``), as sent and as cached."""
        if self.config.null_content == "empty":
            messages = [_with_text(m) for m in messages]
        request: dict[str, Any] = {"model": self.config.model, "messages": list(messages)}
        request |= self.config.sampling()
        if tools:
            request["tools"] = list(tools)
            if self.config.tool_choice != "omit":
                request["tool_choice"] = self.config.tool_choice
        return request

    async def complete(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> ModelReply:
        text = json.dumps(self.request(messages, tools), ensure_ascii=False, separators=(",", ":"))
        data = text.encode("utf-8")  # the key is request_key(request), without serialising twice
        key = hashlib.sha256(data).hexdigest()
        if self.cache is not None and (cached := await self._cached(key)) is not None:
            self.stats.cache_hits += 1
            return _reply(cached, _Timing(attempts=0), cached=True)
        timing = _Timing()
        text, completion = await self._send(data, timing)
        if self.cache is not None:
            self.cache.put_text(key, text)  # only a body that parsed is cached
        return _reply(completion, timing)

    async def _cached(self, key: str) -> Completion | None:
        text = await self.cache.lookup(key) if self.cache is not None else None
        if text is None:
            return None
        try:
            return parse_completion(text)
        except MalformedResponse:  # written by an older version that cached before checking
            return None

    async def _send(self, data: bytes, timing: _Timing) -> tuple[str, Completion]:
        """POST with retries: the answer's (masked) text and its parsed completion."""
        attempts = self.config.max_retries + 1
        previous, repeats = "", 0
        for attempt in range(attempts):
            outcome = await self._attempt(data, timing)
            if not isinstance(outcome, _Failure):
                return outcome
            if outcome.reason.startswith("HTTP 500"):
                repeats = repeats + 1 if outcome.reason == previous else 1
                if repeats >= self.config.server_defect_after:
                    raise self._defect(outcome.reason, attempt + 1)
            previous = outcome.reason
            if outcome.retry_in is None or attempt == attempts - 1:
                self.stats.failures += 1
                raise InfraError(outcome.reason, attempt + 1)
            self.stats.retries += 1
            wait = min(outcome.retry_in, self.config.backoff_max_s) or self._backoff(attempt)
            if outcome.retry_in:  # the server asked for quiet: a shared limit tells every worker
                self._limit.hold(wait)
            timing.retry_wait_s += wait
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")

    async def _attempt(self, data: bytes, timing: _Timing) -> tuple[str, Completion] | _Failure:
        """One try: the text and completion, or why it failed. Final answers raise
        (:class:`ContextOverflow`, :class:`EndpointError`)."""
        answer, error = await self._post(data, timing)
        if error is not None:
            return _Failure(self.redact(error.message), 0.0)
        if answer.status == 200:
            try:
                return answer.text, parse_completion(answer.text)
            except MalformedResponse as exc:
                return _Failure(str(exc), 0.0)
        raise_for_endpoint(answer, self.url)
        retry_in = (retry_after_s(answer.headers) or 0.0) if is_retryable(answer.status) else None
        return _Failure(describe(answer), retry_in)

    async def _post(self, data: bytes, timing: _Timing) -> tuple[Answer | None, TransportError | None]:
        """One request through a free connection slot; the answer has the API key masked."""
        queued = time.perf_counter()
        async with self._limit.slot():
            started = time.perf_counter()
            timing.queue_s += started - queued
            timing.attempts += 1
            self.stats.requests += 1
            try:
                answer = await self._transport.post(CHAT_PATH, data)
            except TransportError as exc:
                timing.failed_s += time.perf_counter() - started
                return None, exc
        elapsed = time.perf_counter() - started
        if answer.status == 200:
            timing.latency_s = elapsed
        else:
            timing.failed_s += elapsed
        return Answer(answer.status, answer.headers, self.redact(answer.text)), None

    def _defect(self, reason: str, attempts: int) -> ServerDefect:
        seen = self.stats.defects.get(reason, 0)
        if seen == 0:
            log.warning("the server answers a request with the same error every time: %s", reason)
        self.stats.defects[reason] = seen + 1
        self.stats.failures += 1
        return ServerDefect(f"server defect (same answer {attempts} times): {reason}", attempts)

    def _backoff(self, attempt: int) -> float:
        return backoff_s(attempt, self.config.backoff_base_s, self.config.backoff_max_s, self._rng)

    async def probe(self) -> None:
        """One small request before a run; EndpointError when the endpoint cannot serve it at all.

        Nothing listening fails at once (no retries); a refused key, an unknown model or a wrong
        route raise their own errors, and so does a refusal of the probe's tool (vLLM without
        ``--enable-auto-tool-choice``); other refusals, and a probe that times out (a busy or slow
        server is still a server), are left for the run's requests to meet.
        """
        request = self.request(PROBE_MESSAGES, PROBE_TOOLS) | {"max_tokens": 1}
        data = json.dumps(request).encode("utf-8")
        for attempt in range(self.config.max_retries + 1):
            answer, error = await self._post(data, _Timing())
            if error is not None and error.kind == "connect":
                raise EndpointUnreachable(f"nothing answers at {self.url}: {self.redact(error.message)}")
            if error is not None and error.kind == "timeout":  # alive, but slow: the run will tell
                log.warning("the start-up probe got no answer within %g s; going on", self.config.timeout_s)
                return
            if answer is not None and (answer.status < 500 and answer.status not in (408, 429)):
                if answer.status != 200:
                    raise_for_endpoint(answer, self.url)
                    _raise_if_tools_refused(answer)
                return
            if attempt < self.config.max_retries:
                await asyncio.sleep(self._backoff(attempt))
        reason = error.message if error is not None else describe(answer)
        raise EndpointUnreachable(f"the endpoint {self.url} does not answer: {self.redact(reason)}")

    async def aclose(self) -> None:
        await self._transport.aclose()


def _raise_if_tools_refused(answer: Answer) -> None:
    message = describe(answer)
    if answer.status in (400, 422) and "tool" in message.lower():
        raise EndpointError(
            f"the endpoint refuses tool calls ({message}); enable them on the server "
            "(docs/endpoints.md) or try --tool-choice omit"
        )


def _with_text(message: dict[str, Any]) -> dict[str, Any]:
    if message.get("content") is None and message.get("role") == "assistant":
        return {**message, "content": ""}
    return message


def _reply(completion: Completion, timing: _Timing, cached: bool = False) -> ModelReply:
    return ModelReply(
        content=completion.content,
        tool_calls=completion.tool_calls,
        usage=completion.usage,
        latency_s=timing.latency_s,
        cached=cached,
        raw=completion.message,
        finish_reason=completion.finish_reason,
        attempts=timing.attempts,
        queue_s=timing.queue_s,
        retry_wait_s=timing.retry_wait_s,
        failed_s=timing.failed_s,
    )
