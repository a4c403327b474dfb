"""The paired permutation test against scipy.stats.permutation_test, and its behaviour on known data."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from execmem.runs.permutation_test import paired_permutation_test, sign_patterns


def scipy_p(on, off, n_resamples, seed):
    result = stats.permutation_test(
        (on, off), lambda x, y, axis=-1: np.mean(x - y, axis=axis), permutation_type="samples",
        n_resamples=n_resamples, vectorized=True, rng=seed,
    )  # fmt: skip
    return result.pvalue, result.statistic


def quarter_rates(rng, n, shift):
    off = rng.integers(0, 5, n) / 4
    return np.clip(off + rng.integers(-1, 2 + shift, n) / 4, 0, 1), off


@pytest.mark.parametrize("n", [2, 4, 9, 13])
def test_exact_p_values_equal_scipys(n):
    rng = np.random.default_rng(n)
    for shift in (0, 1, 2):
        on, off = quarter_rates(rng, n, shift)
        mine = paired_permutation_test(on, off, 10_000, seed=0)
        p, statistic = scipy_p(on, off, 10_000, 0)
        assert mine.exact and mine.n_permutations == 2**n
        assert mine.p_value == pytest.approx(p, abs=1e-12) and mine.statistic == pytest.approx(statistic)


@pytest.mark.parametrize("n", [20, 60])
def test_random_p_values_agree_with_scipys_within_monte_carlo_error(n):
    rng = np.random.default_rng(100 + n)
    for shift in (0, 1):
        on, off = quarter_rates(rng, n, shift)
        mine = paired_permutation_test(on, off, 10_000, seed=7)
        p, _ = scipy_p(on, off, 10_000, 7)
        assert not mine.exact and mine.n_permutations == 10_000
        spread = 2 * np.sqrt(max(p, 1e-3) * (1 - p) / 10_000)
        assert abs(mine.p_value - p) <= 2 * spread + 2e-4, (mine.p_value, p)


def test_the_seed_is_recorded_and_fixes_the_result():
    rng = np.random.default_rng(3)
    on, off = quarter_rates(rng, 30, 1)
    first, again = paired_permutation_test(on, off, 5000, seed=11), paired_permutation_test(on, off, 5000, 11)
    assert first == again and first.seed == 11 and first.to_dict()["n_targets"] == 30


def test_a_large_effect_is_found_and_none_is_not():
    off = np.zeros(30)
    assert paired_permutation_test(off + 0.5, off).p_value < 0.001
    assert paired_permutation_test(off, off).p_value == 1.0
    balanced = np.array([0.25, -0.25, 0.5, -0.5] * 5)  # gains and losses that cancel
    assert paired_permutation_test(balanced + 0.5, np.full(20, 0.5)).p_value == 1.0


def test_every_sign_pattern_is_enumerated_once():
    patterns = sign_patterns(4)
    assert patterns.shape == (16, 4) and len({tuple(row) for row in patterns}) == 16


def test_mismatched_arms_are_refused():
    with pytest.raises(ValueError, match="one value per target"):
        paired_permutation_test([1.0, 0.5], [1.0])
