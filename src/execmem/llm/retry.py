"""When and how long to wait before retrying a failed request."""

from __future__ import annotations

import email.utils
import random
import time

import openai

RETRYABLE_STATUS = {408, 409, 429}


def is_retryable(exc: Exception) -> bool:
    """Rate limits, server errors, timeouts and dropped connections are worth retrying."""
    if isinstance(exc, openai.APIConnectionError | openai.APIResponseValidationError):
        return True  # includes APITimeoutError, and bodies the SDK could not read
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRYABLE_STATUS or exc.status_code >= 500
    return False


def retry_after_s(exc: Exception) -> float | None:
    """The server's ``retry-after`` (seconds or an HTTP date), if it sent one."""
    response = getattr(exc, "response", None)
    if response is None:
        return None
    value = response.headers.get("retry-after-ms")
    if value:
        try:
            return float(value) / 1000
        except ValueError:
            pass
    value = response.headers.get("retry-after")
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


def describe_error(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    kind = type(exc).__name__
    return f"{kind} (HTTP {status}): {exc}" if status else f"{kind}: {exc}"
