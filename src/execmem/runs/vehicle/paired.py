"""Is one vehicle run better than another? Question-by-question pairing against a baseline run.

Each run scores each paired question with its exact-match rate over its trials (0 or 1 with one
trial). Against the baseline (the first run given):

* ΔESM = the mean over questions of (run − baseline), with a percentile bootstrap 95% interval
  that resamples questions with replacement (a question's trials stay with it):
  ``paired_stats.paired_bootstrap``, 10,000 resamples, the seed recorded;
* questions **won** (the run's rate is higher) and **lost** (lower);
* the exact **McNemar** test: under "neither run is better" a question that differs is won or lost
  with even odds, so the two-sided p is the binomial test of ``won`` successes in ``won + lost``
  tries with p = 1/2. With one trial this is McNemar's exact test; with several it is the sign test
  on the rate differences;
* the **noise floor**: the largest ESM difference between two trials of one run (over the paired
  questions), from the runs with repeated trials; a |ΔESM| at or below it is within run-to-run noise.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np

from execmem.runs.paired_stats import N_RESAMPLES, paired_bootstrap
from execmem.runs.vehicle.trials import split_episode_id

CONFIDENCE = 0.95


def mcnemar_exact(won: int, lost: int) -> float:
    """Two-sided exact McNemar p: the binomial test of ``won`` in ``won + lost`` at p = 1/2."""
    n = won + lost
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(won, lost) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def trial_outcomes(episodes: Sequence[dict[str, Any]]) -> list[float]:
    return [float(e["exact_match"]) for e in episodes]


def rates(by_question: dict[str, list[dict[str, Any]]], questions: Sequence[str]) -> np.ndarray:
    """Each question's exact-match rate over its trials."""
    return np.array([np.mean(trial_outcomes(by_question[q])) for q in questions], dtype=float)


def trial_esms(by_question: dict[str, list[dict[str, Any]]], questions: Sequence[str]) -> list[float]:
    """ESM of each trial over ``questions`` (the trials every question finished)."""
    trials = [{split_episode_id(e["id"])[1]: e for e in by_question[q]} for q in questions]
    common = set.intersection(*(set(t) for t in trials)) if trials else set()
    return [float(np.mean([t[n]["exact_match"] for t in trials])) for n in sorted(common)]


def noise_floor(trial_scores: Sequence[Sequence[float]]) -> float | None:
    """The largest ESM difference between two trials of one run; None without repeated trials."""
    spreads = [max(scores) - min(scores) for scores in trial_scores if len(scores) >= 2]
    return max(spreads) if spreads else None


def paired_against(
    run: np.ndarray,
    baseline: np.ndarray,
    floor: float | None,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> dict[str, Any]:
    """ΔESM of ``run`` over ``baseline`` (rates per question) with its interval, wins, losses, p."""
    interval = paired_bootstrap(run, baseline, n_resamples, seed, CONFIDENCE)
    won, lost = int(np.sum(run > baseline)), int(np.sum(run < baseline))
    return {
        "delta_esm": round(interval.estimate, 4),
        "ci_low": round(interval.low, 4),
        "ci_high": round(interval.high, 4),
        "won": won,
        "lost": lost,
        "mcnemar_p": mcnemar_exact(won, lost),
        "within_noise": None if floor is None else abs(interval.estimate) <= floor,
        "bootstrap": {"resamples": n_resamples, "seed": seed, "confidence": CONFIDENCE},
    }
