"""Policies of the fake OpenAI-compatible server: what it answers, and how it fails.

A policy gets the parsed request body and returns a :class:`Reply` (a chat
completion) or a :class:`Fault` (an HTTP error, a hang, a dropped connection or
a malformed body). Generic policies live here; suites and tests build their own.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from execmem.core.tokens import estimate_tokens


@dataclass
class ToolCallSpec:
    """One tool call in a reply. A dict ``arguments`` is JSON-dumped; a str is sent verbatim."""

    name: str
    arguments: str | dict = field(default_factory=dict)


@dataclass
class Reply:
    """A successful chat completion; ``usage`` is ``(prompt, completion)`` tokens, else estimated."""

    content: str | None = None
    tool_calls: list[ToolCallSpec] = field(default_factory=list)
    delay_s: float = 0.0
    usage: tuple[int, int] | None = None
    finish_reason: str | None = None  # default: "tool_calls" with tool calls, else "stop"


@dataclass
class Fault:
    """A failed answer: an HTTP error with an OpenAI-style error body, sent after ``delay_s``.

    ``drop_connection`` closes the socket without any response; ``malformed_body`` answers 200 with a
    body that is not valid JSON. ``body`` replaces the generated error JSON verbatim.
    """

    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None
    delay_s: float = 0.0
    drop_connection: bool = False
    malformed_body: bool = False


Policy = Callable[[dict], Reply | Fault]

_ERROR_KINDS = {400: ("invalid_request_error", None), 404: ("invalid_request_error", "not_found")}
_ERROR_KINDS |= {429: ("requests", "rate_limit_exceeded"), 504: ("timeout", "timeout")}
MALFORMED_BODY = '{"id": "chatcmpl-broken", "object": "chat.completion", "choices": [{"mess'


def error_body(status: int, message: str) -> str:
    """The JSON error document the OpenAI API sends with an HTTP error status."""
    kind, code = _ERROR_KINDS.get(
        status, ("server_error" if status >= 500 else "invalid_request_error", None)
    )
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": code}})


def json_tokens(value: Any) -> int:
    """Rough token count of a JSON value: the MemToken yardstick over its JSON text."""
    return estimate_tokens(json.dumps(value, ensure_ascii=False))


class ScriptExhausted(RuntimeError):
    """A :func:`scripted` policy without ``repeat_last`` got more requests than it has replies."""


def scripted(replies: Sequence[Reply | Fault], *, repeat_last: bool = True) -> Policy:
    """Return ``replies`` in order; afterwards repeat the last one, or raise :class:`ScriptExhausted`.

    Repeating is the default so a client's extra call (a retry, a final summary) is harmless; pass
    ``repeat_last=False`` to make every extra request fail loudly (a 500 naming the script length).
    """
    if not replies:
        raise ValueError("scripted() needs at least one reply")
    items = list(replies)
    lock = threading.Lock()
    position = 0

    def policy(body: dict) -> Reply | Fault:
        nonlocal position
        with lock:
            index, position = position, position + 1
        if index < len(items):
            return items[index]
        if repeat_last:
            return items[-1]
        raise ScriptExhausted(
            f"scripted policy has {len(items)} replies; request {index + 1} is one too many"
        )

    return policy


def echo() -> Policy:
    """Reply with the text of the last user message, never calling tools."""

    def policy(body: dict) -> Reply:
        users = [m for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "user"]
        return Reply(content=_text_of(users[-1].get("content")) if users else "")

    return policy


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def with_latency(policy: Policy, seconds: float) -> Policy:
    """Add ``seconds`` of delay to every answer of ``policy`` (replies and faults alike)."""

    def delayed(body: dict) -> Reply | Fault:
        answer = policy(body)
        return dataclasses.replace(answer, delay_s=answer.delay_s + seconds)

    return delayed


class HeldAfter:
    """``policy``, answering the first ``n`` requests at once and holding every later one until
    ``release()`` (at most ``hold_s``): a run that cannot finish before a test has done what it
    must do while the run is under way (interrupt it, start a second run), however slow the machine."""

    def __init__(self, policy: Policy, n: int, hold_s: float = 60.0) -> None:
        self.policy, self.n, self.hold_s = policy, n, hold_s
        self.count = 0
        self._released = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, body: dict) -> Reply | Fault:
        with self._lock:
            self.count += 1
            held = self.count > self.n
        if held:
            self._released.wait(self.hold_s)
        return self.policy(body)

    def release(self) -> None:
        self._released.set()


FAULT_KINDS = ("429", "500", "timeout", "drop", "malformed")


class FaultInjector:
    """Wraps a policy and deterministically answers a share ``rate`` of requests with a fault.

    Whether attempt ``a`` of a request body faults depends only on ``(seed, body, a)``: a fixed seed
    gives the same faults in every run. Only attempts ``a < faulty_attempts`` may fault, so a client
    that retries an identical request succeeds by attempt ``faulty_attempts + 1`` at the latest.
    Faulted requests never reach the wrapped policy, so a scripted policy does not advance on them.
    ``injected`` counts the faults sent, by kind.
    """

    def __init__(
        self,
        policy: Policy,
        rate: float,
        seed: int,
        kinds: Sequence[str] = FAULT_KINDS,
        timeout_s: float = 5.0,
        retry_after_s: float = 0.05,
        faulty_attempts: int = 1,
    ) -> None:
        unknown = sorted(set(kinds) - set(FAULT_KINDS))
        if unknown or not kinds:
            raise ValueError(f"unknown fault kinds {unknown}; choose from {', '.join(FAULT_KINDS)}")
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"fault rate must be within [0, 1], got {rate}")
        self.policy, self.rate, self.seed, self.kinds = policy, rate, seed, tuple(kinds)
        self.timeout_s, self.retry_after_s, self.faulty_attempts = timeout_s, retry_after_s, faulty_attempts
        self.injected: Counter[str] = Counter()
        self._attempts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, body: dict) -> Reply | Fault:
        key = json.dumps(body, sort_keys=True, ensure_ascii=False)
        with self._lock:
            attempt = self._attempts[key]
            self._attempts[key] += 1
        digest = hashlib.sha256(f"{self.seed}\0{attempt}\0{key}".encode()).digest()
        if attempt >= self.faulty_attempts or int.from_bytes(digest[:8]) / 2**64 >= self.rate:
            return self.policy(body)
        kind = self.kinds[int.from_bytes(digest[8:12]) % len(self.kinds)]
        with self._lock:
            self.injected[kind] += 1
        return self.fault(kind)

    def fault(self, kind: str) -> Fault:
        """The fault sent for one kind."""
        if kind == "429":
            return Fault(429, headers={"retry-after": str(self.retry_after_s)})
        if kind == "timeout":
            return Fault(504, delay_s=self.timeout_s)
        return Fault(drop_connection=kind == "drop", malformed_body=kind == "malformed")


def with_faults(policy: Policy, rate: float, seed: int, **options: Any) -> FaultInjector:
    """Inject faults into ``rate`` of requests; ``options`` as for :class:`FaultInjector`.

    ``timeout_s`` must exceed the client's timeout for a "timeout" fault to time the client out.
    """
    return FaultInjector(policy, rate, seed, **options)
