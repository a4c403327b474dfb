"""The paired bootstrap: agrees with scipy, covers the true effect at about the stated rate."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from execmem.runs.paired_stats import gained_lost, paired_bootstrap, target_rates


def simulated_rates(rng: np.random.Generator, n_targets: int, seeds: int, effect: float):
    """Per-target resolved rates off and on: p_off ~ U(0, 0.6), p_on = p_off + effect."""
    p_off = rng.uniform(0.0, 0.6, n_targets)
    off = rng.random((n_targets, seeds)) < p_off[:, None]
    on = rng.random((n_targets, seeds)) < (p_off + effect)[:, None]
    return target_rates(on), target_rates(off)


def test_interval_agrees_with_scipy_paired_percentile_bootstrap():
    on, off = simulated_rates(np.random.default_rng(11), n_targets=30, seeds=4, effect=0.15)
    ours = paired_bootstrap(on, off, n_resamples=10_000, seed=3)
    theirs = stats.bootstrap(
        (on, off),
        statistic=lambda a, b: np.mean(a - b),
        paired=True,
        vectorized=False,
        method="percentile",
        n_resamples=10_000,
        random_state=np.random.default_rng(5),
    ).confidence_interval
    assert ours.estimate == pytest.approx(np.mean(on - off))
    assert ours.low == pytest.approx(theirs.low, abs=0.012)
    assert ours.high == pytest.approx(theirs.high, abs=0.012)
    assert ours.high - ours.low > 0.1  # a real interval, not a degenerate one


def test_interval_covers_the_true_effect_at_about_95_percent():
    rng = np.random.default_rng(2024)
    effect, hits, simulations = 0.2, 0, 400
    for index in range(simulations):
        on, off = simulated_rates(rng, n_targets=60, seeds=4, effect=effect)
        interval = paired_bootstrap(on, off, n_resamples=2_000, seed=index)
        hits += interval.low <= effect <= interval.high
    assert 0.92 <= hits / simulations <= 0.98


def test_interval_is_seeded_and_recorded():
    on, off = [1.0, 0.5, 0.0, 1.0, 0.75], [0.0, 0.5, 0.25, 0.0, 0.75]
    first, again = paired_bootstrap(on, off, seed=7), paired_bootstrap(on, off, seed=7)
    assert first == again and first.seed == 7 and first.n_resamples == 10_000 and first.n_targets == 5
    assert first.low < first.estimate < first.high and first.excludes_zero() == (first.low > 0)


def test_identical_conditions_give_a_zero_interval():
    rates = np.array([0.0, 0.5, 1.0, 0.25])
    interval = paired_bootstrap(rates, rates)
    assert (interval.estimate, interval.low, interval.high) == (0.0, 0.0, 0.0)
    assert not interval.excludes_zero()


def test_mismatched_or_empty_inputs_are_refused():
    with pytest.raises(ValueError):
        paired_bootstrap([], [])
    with pytest.raises(ValueError):
        paired_bootstrap([1.0, 0.0], [1.0])


def test_targets_gained_and_lost_need_all_seeds():
    off = np.array([[0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 0]])
    on = np.array([[1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 0]])
    assert gained_lost(on, off) == {"gained": 1, "lost": 1}
    assert list(target_rates(on)) == [1.0, 0.0, 1.0, 1.0, 0.75]
