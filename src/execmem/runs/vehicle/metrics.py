"""Aggregate a vehicle run's episodes into metrics.json."""

from __future__ import annotations

from collections import Counter
from typing import Any

from execmem.runs.prices import Price, token_costs
from execmem.runs.vehicle.trial_stats import trial_block
from execmem.suites.vehicle.aggregate import summarize

_MEANS = ("n_calls", "steps", "input_tokens", "output_tokens", "memory_tokens")


def compute_metrics(
    episodes: list[dict[str, Any]],
    infra_errors: list[dict[str, Any]],
    memory_records: dict[int, dict[str, Any]],
    expected: int,
    trials: int = 1,
    price: Price | None = None,
) -> dict[str, Any]:
    """ESM and P/R/F1 (macro over episodes: every trial of every question), overall and per
    reasoning type, plus repeated trials, cost and errors."""
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
    metrics["endpoint"] = _endpoint(episodes)
    metrics["memory_build"] = _memory_cost(memory_records)
    metrics["cost"] = cost_block(episodes, metrics["memory_build"], price)
    metrics["trials"] = trial_block(episodes, trials)
    for name, block in metrics["by_reasoning_type"].items():
        block["pass_k"] = trial_block([e for e in episodes if e["reasoning_type"] == name], trials)["pass_k"]
    return metrics


def _add_means(block: dict[str, Any], episodes: list[dict[str, Any]]) -> None:
    for key in _MEANS:
        block[f"mean_{key}"] = sum(e.get(key, 0) for e in episodes) / len(episodes) if episodes else 0.0


def _endpoint(episodes: list[dict[str, Any]]) -> dict[str, Any]:
    """How the endpoint served the episodes: the model's own time apart from waiting for a
    connection or a retry; replies cut at the output cap; episodes where the model replied but
    called no tool."""
    steps = sum(e["steps"] for e in episodes)
    model_s = sum(e.get("model_latency_s", 0.0) for e in episodes)
    return {
        "model_calls": steps,
        "model_latency_s_per_call": round(model_s / steps, 4) if steps else 0.0,
        "queue_s": round(sum(e.get("queue_s", 0.0) for e in episodes), 3),
        "retry_wait_s": round(sum(e.get("retry_wait_s", 0.0) for e in episodes), 3),
        "truncated_replies": sum(e.get("truncated_replies", 0) for e in episodes),
        "episodes_with_replies": sum(e["steps"] > 0 for e in episodes),
        "episodes_without_tool_calls": sum(
            e["steps"] > 0 and e.get("tool_requests", 1) == 0 for e in episodes
        ),
        "context_length_failures": sum(e["end_reason"] == "context_length" for e in episodes),
    }


def _memory_cost(records: dict[int, dict[str, Any]]) -> dict[str, Any]:
    total: Counter[str] = Counter()
    for record in records.values():
        total.update(record.get("cost", {}))
    return {"scenarios": len(records), **{k: round(v, 3) for k, v in total.items()}}


def cost_block(
    episodes: list[dict[str, Any]], memory_build: dict[str, Any], price: Price | None
) -> dict[str, Any]:
    """Answering and memory-building tokens, and their cost when a price is known (per million
    tokens; every token counted, cached answers too: what the run costs from scratch)."""
    answer = (sum(e["input_tokens"] for e in episodes), sum(e["output_tokens"] for e in episodes))
    build = (memory_build.get("input_tokens", 0), memory_build.get("output_tokens", 0))
    costs = token_costs(price, answer, build)
    per_episode = costs["answer"] / len(episodes) if costs["answer"] is not None and episodes else None
    return {
        "price": price.model_dump() if price else None,
        "answer_input_tokens": answer[0],
        "answer_output_tokens": answer[1],
        "build_input_tokens": build[0],
        "build_output_tokens": build[1],
        "memory_build": costs["build"],
        "answer": costs["answer"],
        "total": costs["total"],
        "answer_per_episode": None if per_episode is None else round(per_episode, 6),
    }


def _short(reason: str) -> str:
    return reason.split(":", 1)[0]
