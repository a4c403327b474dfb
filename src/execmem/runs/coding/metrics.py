"""Aggregate a coding run's episodes into metrics.json."""

from __future__ import annotations

from collections import Counter
from typing import Any

_MEANS = ("steps", "input_tokens", "output_tokens", "commands", "agent_s", "memory_chars")


def is_suspect(episode: dict[str, Any]) -> bool:
    """Whether the episode's test report was doubted (never counted as resolved; older runs: no)."""
    return bool(episode.get("evaluation_suspect", False))


def counts_as_resolved(episode: dict[str, Any]) -> bool:
    return bool(episode["resolved"]) and not is_suspect(episode)


def compute_metrics(
    episodes: list[dict[str, Any]], infra_errors: list[dict[str, Any]], expected: int
) -> dict[str, Any]:
    """Resolved rate over finished episodes, suspect evaluations (counted apart, never resolved), mean
    cost per episode, end reasons and error counts."""
    n = len(episodes)
    metrics: dict[str, Any] = {
        "n": n,
        "resolved": sum(map(counts_as_resolved, episodes)),
        "resolved_rate": sum(map(counts_as_resolved, episodes)) / n if n else 0.0,
        "evaluation_suspect": sum(is_suspect(e) for e in episodes),
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
