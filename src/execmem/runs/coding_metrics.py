"""Aggregate a coding run's episodes into metrics.json."""

from __future__ import annotations

from collections import Counter
from typing import Any

_MEANS = ("steps", "input_tokens", "output_tokens", "commands", "agent_s", "memory_chars")


def compute_metrics(
    episodes: list[dict[str, Any]], infra_errors: list[dict[str, Any]], expected: int
) -> dict[str, Any]:
    """Resolved rate over finished episodes, mean cost per episode, end reasons and error counts."""
    n = len(episodes)
    metrics: dict[str, Any] = {
        "n": n,
        "resolved": sum(bool(e["resolved"]) for e in episodes),
        "resolved_rate": sum(bool(e["resolved"]) for e in episodes) / n if n else 0.0,
        "submitted_rate": sum(e["end_reason"] == "submitted" for e in episodes) / n if n else 0.0,
    }
    for key in _MEANS:
        metrics[f"mean_{key}"] = sum(e[key] for e in episodes) / n if n else 0.0
    metrics["end_reasons"] = dict(Counter(e["end_reason"] for e in episodes))
    metrics["model_errors"] = dict(sum((Counter(e["model_errors"]) for e in episodes), Counter()))
    metrics["episodes"] = {
        "expected": expected,
        "finished": n,
        "infra_errors": len(infra_errors),
        "complete": n == expected,
    }
    metrics["infra_error_kinds"] = dict(Counter(r["error_kind"] for r in infra_errors))
    return metrics
