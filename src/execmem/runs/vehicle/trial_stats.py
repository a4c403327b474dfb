"""Repeated trials in metrics.json: pass^k and the run-to-run spread of ESM.

pass^k is the chance that k trials of a question, drawn from its n finished ones, are all exact:
C(c, k) / C(n, k) for a question exact in c of n trials, averaged over the questions with at
least k finished trials (tau-bench's estimator). pass^n with n trials is the share of questions
exact in every trial; pass^1 is the mean ESM. The spread is ESM trial by trial: mean, sample
standard deviation, lowest and highest, and the share of questions whose outcome differs between
trials.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from math import comb
from typing import Any

from execmem.runs.vehicle.trials import split_episode_id


def outcomes_by_question(episodes: Iterable[dict[str, Any]]) -> dict[str, dict[int, bool]]:
    """question id -> {trial: exact}."""
    found: dict[str, dict[int, bool]] = defaultdict(dict)
    for episode in episodes:
        question, trial = split_episode_id(episode["id"])
        found[question][trial] = bool(episode["exact_match"])
    return dict(found)


def pass_hat(outcomes: dict[str, dict[int, bool]], k: int) -> float | None:
    """pass^k over the questions with at least ``k`` finished trials (None when there is none)."""
    chances = [
        comb(sum(trials.values()), k) / comb(len(trials), k)
        for trials in outcomes.values()
        if len(trials) >= k
    ]
    return round(statistics.fmean(chances), 4) if chances else None


def trial_block(episodes: list[dict[str, Any]], trials: int) -> dict[str, Any]:
    """pass^k for k = 1..trials, and ESM per trial with its spread."""
    outcomes = outcomes_by_question(episodes)
    per_trial = []
    for trial in range(1, trials + 1):
        exact = [found[trial] for found in outcomes.values() if trial in found]
        esm = round(statistics.fmean(exact), 4) if exact else None
        per_trial.append({"trial": trial, "n": len(exact), "exact_match": esm})
    scores = [t["exact_match"] for t in per_trial if t["exact_match"] is not None]
    repeated = [found for found in outcomes.values() if len(found) >= 2]
    return {
        "trials": trials,
        "pass_k": {str(k): pass_hat(outcomes, k) for k in range(1, trials + 1)},
        "per_trial": per_trial,
        "exact_match_mean": round(statistics.fmean(scores), 4) if scores else None,
        "exact_match_sd": round(statistics.stdev(scores), 4) if len(scores) >= 2 else None,
        "exact_match_min": min(scores, default=None),
        "exact_match_max": max(scores, default=None),
        "questions_that_differ": (
            round(sum(len(set(f.values())) > 1 for f in repeated) / len(repeated), 4) if repeated else None
        ),
    }
