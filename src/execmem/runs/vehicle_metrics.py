"""Aggregate a vehicle run's episodes into metrics.json."""

from __future__ import annotations

from collections import Counter
from typing import Any

from execmem.suites.vehicle.summary import summarize

_MEANS = ("n_calls", "steps", "input_tokens", "output_tokens", "memory_tokens")


def compute_metrics(
    episodes: list[dict[str, Any]],
    infra_errors: list[dict[str, Any]],
    memory_records: dict[int, dict[str, Any]],
    expected: int,
) -> dict[str, Any]:
    """ESM and P/R/F1 (macro over questions), overall and per reasoning type, plus cost and errors."""
    metrics = summarize(episodes)
    _add_means(metrics["overall"], episodes)
    for name, block in metrics["by_reasoning_type"].items():
        _add_means(block, [e for e in episodes if e["reasoning_type"] == name])
    metrics["episodes"] = {
        "expected": expected,
        "finished": len(episodes),
        "infra_errors": len(infra_errors),
        "complete": len(episodes) == expected,
    }
    metrics["infra_error_reasons"] = dict(Counter(_short(r["reason"]) for r in infra_errors))
    metrics["model_errors"] = dict(sum((Counter(e["model_errors"]) for e in episodes), Counter()))
    metrics["end_reasons"] = dict(Counter(e["end_reason"] for e in episodes))
    metrics["memory_build"] = _memory_cost(memory_records)
    return metrics


def _add_means(block: dict[str, Any], episodes: list[dict[str, Any]]) -> None:
    for key in _MEANS:
        block[f"mean_{key}"] = sum(e[key] for e in episodes) / len(episodes) if episodes else 0.0


def _memory_cost(records: dict[int, dict[str, Any]]) -> dict[str, Any]:
    total: Counter[str] = Counter()
    for record in records.values():
        total.update(record.get("cost", {}))
    return {"scenarios": len(records), **{k: round(v, 3) for k, v in total.items()}}


def _short(reason: str) -> str:
    return reason.split(":", 1)[0]
