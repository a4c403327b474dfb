"""A paired effect between two runs on their shared targets, as the analyses' tables show it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from execmem.core.tokens import estimate_tokens
from execmem.runs.coding.analysis.rates import outcome_matrix
from execmem.runs.coding.analysis.runset import AnalysisRun
from execmem.runs.paired_stats import full_gained_lost, paired_bootstrap, target_rates


@dataclass(frozen=True)
class Bootstrap:
    n_resamples: int = 10_000
    seed: int = 0


def effect(on: AnalysisRun, off: AnalysisRun, targets: list[str], boot: Bootstrap) -> dict[str, Any]:
    """Resolved rates, Δ on − off with its percentile bootstrap CI over targets, gained/lost at N/N."""
    on_m, off_m = outcome_matrix(on, targets), outcome_matrix(off, targets)
    interval = paired_bootstrap(target_rates(on_m), target_rates(off_m), boot.n_resamples, boot.seed)
    return {
        "on": float(target_rates(on_m).mean()),
        "off": float(target_rates(off_m).mean()),
        "delta": interval.estimate,
        "ci": f"[{interval.low:+.3f}, {interval.high:+.3f}]",
        "low": interval.low,
        "high": interval.high,
        **full_gained_lost(on_m, off_m),
    }


def record_size(run: AnalysisRun, targets: list[str]) -> tuple[float | None, float | None]:
    """Mean lines and tokens of the records the run injected on ``targets`` (None: none injected).
    Layer B's memory.json states both; otherwise they are counted from the text."""
    lines, tokens = [], []
    for target in targets:
        entry, text = run.entry(target), run.text(target)
        if text:
            lines.append(entry.get("lines", len(text.splitlines())))
            tokens.append(entry.get("tokens", estimate_tokens(text)))
    if not lines:
        return None, None
    return round(sum(lines) / len(lines), 1), round(sum(tokens) / len(tokens), 1)


def r4(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def pct(count: int, total: int) -> float | None:
    """``count`` as a percentage of ``total`` (one decimal; None of nothing)."""
    return round(100 * count / total, 1) if total else None
