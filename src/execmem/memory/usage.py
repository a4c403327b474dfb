"""What writing to a memory system cost in model calls: its optional ``usage()`` report.

A system reports model usage with an optional ``usage()`` method returning running totals under any
of the keys ``llm_calls``, ``input_tokens``, ``output_tokens``; the cost of some work is the
difference across it. Systems without it (the embedded ones call no model) cost 0 calls and 0 tokens.
"""

from __future__ import annotations

from typing import Any

USAGE_KEYS = ("llm_calls", "input_tokens", "output_tokens")


def reported_usage(memory: Any) -> dict[str, int]:
    """The system's running model usage, or zeros when it reports none."""
    report = getattr(memory, "usage", None)
    totals = report() if callable(report) else {}
    return {key: int(totals.get(key, 0)) for key in USAGE_KEYS}


def usage_since(memory: Any, before: dict[str, int]) -> dict[str, int]:
    """The model usage since ``before`` (an earlier ``reported_usage``)."""
    after = reported_usage(memory)
    return {key: after[key] - before[key] for key in USAGE_KEYS}
