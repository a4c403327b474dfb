"""The one timestamp format of run records: UTC, ISO 8601, to the second."""

from __future__ import annotations

from datetime import UTC, datetime


def now_iso() -> str:
    """The current time as ``2025-04-15T09:00:00+00:00``."""
    return datetime.now(UTC).isoformat(timespec="seconds")
