"""A paired permutation test of a mean difference, resampling targets (docs/attribution.md, "Strip
ablation").

Under the null the two conditions of a target are exchangeable, so each target's difference keeps
or flips its sign. The statistic is the mean difference; two-sided p = 2 min(P(T* <= t), P(T* >=
t)), capped at 1. With 2^n sign patterns at most ``n_permutations`` every pattern is enumerated
(exact, p = hits / 2^n); otherwise ``n_permutations`` random patterns from a seeded generator, p =
(hits + 1) / (n_permutations + 1). This is what ``scipy.stats.permutation_test((on, off),
lambda x, y: mean(x - y), permutation_type="samples")`` computes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from execmem.runs.paired_stats import paired_differences

N_PERMUTATIONS = 10_000
_CHUNK = 2_000
_RELATIVE_TIES = np.finfo(float).eps * 100


@dataclass(frozen=True)
class PermutationResult:
    statistic: float
    p_value: float
    n_targets: int
    n_permutations: int
    exact: bool
    seed: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sign_patterns(n: int) -> np.ndarray:
    """Every one of the 2^n patterns of +1/-1 (rows)."""
    bits = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1
    return 1 - 2 * bits.astype(float)


def null_means(diff: np.ndarray, n_permutations: int, seed: int) -> tuple[np.ndarray, bool]:
    """The null distribution of the mean difference, and whether it is exact."""
    n = diff.size
    if 2**n <= n_permutations:
        return sign_patterns(n) @ diff / n, True
    rng = np.random.default_rng(seed)
    means = np.empty(n_permutations)
    for start in range(0, n_permutations, _CHUNK):
        stop = min(start + _CHUNK, n_permutations)
        signs = rng.choice((-1.0, 1.0), size=(stop - start, n))
        means[start:stop] = signs @ diff / n
    return means, False


def paired_permutation_test(
    on: Sequence[float] | np.ndarray,
    off: Sequence[float] | np.ndarray,
    n_permutations: int = N_PERMUTATIONS,
    seed: int = 0,
) -> PermutationResult:
    """Two-sided paired permutation test of mean(on - off) over targets."""
    diff = paired_differences(on, off, "arms")
    observed = float(diff.mean())
    null, exact = null_means(diff, n_permutations, seed)
    ties = abs(_RELATIVE_TIES * observed)
    adjustment = 0 if exact else 1
    total = null.size + adjustment
    below = (np.count_nonzero(null <= observed + ties) + adjustment) / total
    above = (np.count_nonzero(null >= observed - ties) + adjustment) / total
    p_value = float(min(1.0, 2 * min(below, above)))
    return PermutationResult(observed, p_value, int(diff.size), int(null.size), exact, seed)
