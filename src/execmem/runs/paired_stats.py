"""Paired statistics of a matched intervention: target-level rates and a percentile bootstrap.

Each target (task) has one resolved rate per condition: the mean over its seeds.
The effect is the mean over targets of (on - off); its 95% interval comes from
resampling targets with replacement (seeds stay with their target), which is
what ``scipy.stats.bootstrap(..., paired=True, method="percentile")`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

N_RESAMPLES = 10_000
_CHUNK = 2_000


@dataclass(frozen=True)
class PairedInterval:
    """Mean paired difference and its percentile bootstrap interval."""

    estimate: float
    low: float
    high: float
    confidence: float
    n_targets: int
    n_resamples: int
    seed: int

    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def paired_differences(
    on: Sequence[float] | np.ndarray, off: Sequence[float] | np.ndarray, what: str = "conditions"
) -> np.ndarray:
    """on - off per target; ValueError unless both hold one value per target."""
    on_values, off_values = np.asarray(on, dtype=float), np.asarray(off, dtype=float)
    if on_values.shape != off_values.shape or on_values.ndim != 1 or on_values.size == 0:
        shapes = f"{on_values.shape} and {off_values.shape}"
        raise ValueError(f"need one value per target in both {what}, got {shapes}")
    return on_values - off_values


def paired_bootstrap(
    on: Sequence[float] | np.ndarray,
    off: Sequence[float] | np.ndarray,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> PairedInterval:
    """Percentile bootstrap interval of mean(on - off), resampling the pairs (targets)."""
    diff = paired_differences(on, off)
    low, high = percentile_interval(diff, n_resamples, seed, confidence)
    return PairedInterval(float(diff.mean()), low, high, confidence, diff.size, n_resamples, seed)


def percentile_interval(
    values: Sequence[float] | np.ndarray,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (each value one target or question,
    resampled with replacement)."""
    means = bootstrap_means(np.asarray(values, dtype=float), n_resamples, np.random.default_rng(seed))
    alpha = (1 - confidence) / 2
    low, high = np.percentile(means, [100 * alpha, 100 * (1 - alpha)])
    return float(low), float(high)


def bootstrap_means(values: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_resamples`` resamples of ``values`` with replacement (drawn in chunks)."""
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, _CHUNK):
        stop = min(start + _CHUNK, n_resamples)
        index = rng.integers(0, values.size, size=(stop - start, values.size))
        means[start:stop] = values[index].mean(axis=1)
    return means


def target_rates(resolved: np.ndarray) -> np.ndarray:
    """Per-target resolved rate from a (targets x seeds) array of 0/1 outcomes."""
    return np.asarray(resolved, dtype=float).mean(axis=1)


def gained_lost(on: np.ndarray, off: np.ndarray) -> dict[str, int]:
    """Targets resolved in no seed without memory but in every seed with it (gained), and the reverse."""
    on_rate, off_rate = target_rates(on), target_rates(off)
    return {
        "gained": int(np.sum((off_rate == 0) & (on_rate == 1))),
        "lost": int(np.sum((off_rate == 1) & (on_rate == 0))),
    }


def full_gained_lost(on: np.ndarray, off: np.ndarray) -> dict[str, int]:
    """Targets resolved in every seed with memory but not without (gained at 4/4 for 4 seeds), and
    targets resolved in every seed without memory but not with it (lost at 4/4)."""
    on_full, off_full = target_rates(on) == 1, target_rates(off) == 1
    return {
        "gained_full": int(np.sum(on_full & ~off_full)),
        "lost_full": int(np.sum(off_full & ~on_full)),
    }
