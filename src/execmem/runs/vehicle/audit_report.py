"""The audit's aggregates: macro means over questions, overall and per reasoning type."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from execmem.suites.vehicle.dataset import REASONING_TYPES
from execmem.suites.vehicle.retrieval import BUDGET_METRICS, EVENT_METRICS, METRICS


def metric_keys(ks: Sequence[int], budgets: Sequence[int] = ()) -> list[str]:
    """``metric@K`` for every metric and K (the event metrics after the others), then
    ``budget_metric@B`` for every token budget."""
    return [f"{metric}@{k}" for metric in (*METRICS, *EVENT_METRICS) for k in ks] + budget_keys(budgets)


def budget_keys(budgets: Sequence[int]) -> list[str]:
    return [f"{metric}@{budget}" for metric in BUDGET_METRICS for budget in budgets]


def mean_of(records: Sequence[dict[str, Any]], key: str) -> float | None:
    """The mean over the records where ``key`` is defined (None if it is defined nowhere)."""
    values = [r[key] for r in records if r.get(key) is not None]
    return round(statistics.fmean(values), 4) if values else None


def block(
    records: Sequence[dict[str, Any]], ks: Sequence[int], budgets: Sequence[int] = ()
) -> dict[str, Any]:
    """Every ``metric@K`` (and ``budget_metric@B``) for the question queries, the same under ``oracle``."""
    keys = metric_keys(ks, budgets)
    oracle = [r["oracle"] for r in records]
    return {
        **{key: mean_of(records, key) for key in keys},
        "oracle": {key: mean_of(oracle, key) for key in keys},
    }


def aggregate(
    records: Sequence[dict[str, Any]], ks: Sequence[int], budgets: Sequence[int] = ()
) -> dict[str, Any]:
    """``overall`` and ``by_reasoning_type`` (known types first, in the release's order)."""
    present = {r["reasoning_type"] for r in records}
    types = [t for t in REASONING_TYPES if t in present] + sorted(present - set(REASONING_TYPES))
    by_type = {t: block([r for r in records if r["reasoning_type"] == t], ks, budgets) for t in types}
    return {"overall": block(records, ks, budgets), "by_reasoning_type": by_type}


def percentiles(values_ms: Sequence[float]) -> dict[str, float | None]:
    """p50 and p95 (inclusive method; None when there is nothing to measure)."""
    if not values_ms:
        return {"p50": None, "p95": None}
    if len(values_ms) == 1:
        return {"p50": round(values_ms[0], 3), "p95": round(values_ms[0], 3)}
    cuts = statistics.quantiles(values_ms, n=100, method="inclusive")
    return {"p50": round(cuts[49], 3), "p95": round(cuts[94], 3)}
