"""What makes two runs the same run: the model settings that do not count, and readable differences.

A resumed run must measure what it started measuring: its identity (the vehicle run's config, the
coding run's manifest) is compared field by field before anything is written. Runs that are
compared with each other must measure the same thing too (:class:`CompareError` when not).
"""

from __future__ import annotations

from typing import Any


class CompareError(ValueError):
    """Runs that cannot be compared or paired (or a folder that is no run); the message says why."""


OPERATIONAL = frozenset(
    {
        "base_url",
        "api_key_env",
        "max_connections",
        "max_retries",
        "timeout_s",
        "backoff_base_s",
        "backoff_max_s",
        "transport",
        "server_defect_after",
        "probe",
    }
)
"""Model settings that change how the endpoint is reached, not what is measured: a resumed run may
change them (another URL for the same model, more connections, a longer timeout)."""


def measured_model(model: dict[str, Any]) -> dict[str, Any]:
    """A model config's fields without the ``OPERATIONAL`` ones."""
    return {key: value for key, value in model.items() if key not in OPERATIONAL}


def identity_mismatch(saved: dict[str, Any], current: dict[str, Any], prefix: str = "") -> list[str]:
    """Readable differences between two identities (empty when they agree)."""
    problems = []
    for key in sorted(saved.keys() | current.keys()):
        old, new = saved.get(key), current.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            problems += identity_mismatch(old, new, f"{prefix}{key}.")
        elif old != new:
            problems.append(f"{prefix}{key}: run has {old!r}, command gives {new!r}")
    return problems
