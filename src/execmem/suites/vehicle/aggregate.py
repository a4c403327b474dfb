"""Macro-averaged summaries of per-question scores, overall and per reasoning type."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

METRICS = ("field", "value", "tool")
PARTS = ("precision", "recall", "f1")


def summarize(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """``{"overall": ..., "by_reasoning_type": {type: ...}}``: n, ESM and mean P/R/F1 per block."""
    rows = list(rows)
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row.get("reasoning_type") or "unknown"].append(row)
    return {
        "overall": _block(rows),
        "by_reasoning_type": {name: _block(group) for name, group in sorted(groups.items())},
    }


def _block(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    block: dict[str, Any] = {"n": n, "exact_match": _mean(float(r["exact_match"]) for r in rows)}
    for metric in METRICS:
        block[metric] = {part: _mean(r[metric][part] for r in rows) for part in PARTS}
    return block


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0
