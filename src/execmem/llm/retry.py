"""What a failed answer means, and how long to wait before trying again.

An answer that is not a 200 is one of: worth retrying (rate limits, server errors, timeouts,
dropped connections), the model's context limit (:class:`ContextOverflow`), a reason to stop
the whole run (:class:`EndpointError`: refused key, unknown model or route), or a plain
refusal of this request (other 4xx), which retrying would not change.
"""

from __future__ import annotations

import email.utils
import json
import random
import re
import time
from collections.abc import Mapping
from typing import Any

from execmem.llm.errors import AuthError, ContextOverflow, EndpointNotFound
from execmem.llm.transport import Answer

RETRYABLE_STATUS = {408, 409, 429}
# How servers word a prompt longer than the window: OpenAI and llama-cpp-python send the code
# context_length_exceeded; vLLM "maximum context length"; llama-server "exceeds the available
# context size" (type exceed_context_size_error); others "too many tokens" or "prompt is too long".
CONTEXT_CODES = {"context_length_exceeded", "exceed_context_size_error", "context_window_exceeded"}
CONTEXT_WORDS = re.compile(
    r"context[ _-]?(length|window|size)|maximum context|too many tokens|prompt is too long"
    r"|exceeds? (the )?(model'?s? )?(maximum|max|context)",
    re.IGNORECASE,
)


def error_fields(text: str) -> dict[str, Any]:
    """The ``error`` object of an OpenAI-style error body (or the body itself, or {})."""
    try:
        body = json.loads(text)
    except ValueError:
        return {}
    if isinstance(body, dict):
        inner = body.get("error")
        return inner if isinstance(inner, dict) else body
    return {}


def error_message(answer: Answer) -> str:
    fields = error_fields(answer.text)
    message = fields.get("message") or fields.get("detail") or answer.text
    message = message if isinstance(message, str) else json.dumps(message)
    return " ".join(message.split())[:500]


def describe(answer: Answer) -> str:
    return f"HTTP {answer.status}: {error_message(answer)}"


def is_context_overflow(answer: Answer) -> bool:
    if answer.status not in (400, 413, 422):
        return False
    fields = error_fields(answer.text)
    if fields.get("code") in CONTEXT_CODES or fields.get("type") in CONTEXT_CODES:
        return True
    return bool(CONTEXT_WORDS.search(error_message(answer)))


def raise_for_endpoint(answer: Answer, url: str) -> None:
    """Raise what a refused answer means for the run: the model's limit, or a reason to stop."""
    if is_context_overflow(answer):
        raise ContextOverflow(describe(answer))
    if answer.status in (401, 403):
        raise AuthError(f"the endpoint {url} refused the API key ({describe(answer)}); check --api-key-env")
    if answer.status == 404:
        raise EndpointNotFound(
            f"{url} answered {describe(answer)}: is the model name right, and does --base-url end in /v1?"
        )


def is_retryable(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """The server's ``retry-after`` (seconds or an HTTP date), if it sent one."""
    value = headers.get("retry-after-ms")
    if value:
        try:
            return float(value) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, parsed.timestamp() - time.time())


def backoff_s(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Exponential backoff with full jitter: uniform in [0, min(cap, base * 2**attempt)]."""
    return rng.uniform(0, min(cap, base * 2**attempt))
