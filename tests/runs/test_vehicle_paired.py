"""Paired statistics of vehicle compare, checked against scipy.stats on planted differences."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from execmem.runs.vehicle.compare import RunSummary, compare_rows
from execmem.runs.vehicle.paired import mcnemar_exact, noise_floor, paired_against


@pytest.mark.parametrize(
    ("won", "lost"), [(0, 0), (5, 5), (0, 20), (30, 12), (12, 30), (1, 0), (250, 230), (3, 41)]
)
def test_exact_mcnemar_is_the_binomial_test(won, lost):
    expected = 1.0 if won + lost == 0 else stats.binomtest(won, won + lost, 0.5).pvalue
    assert mcnemar_exact(won, lost) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def planted(n: int, rng: np.random.Generator, joint=(0.4, 0.1, 0.2, 0.3)) -> tuple[np.ndarray, np.ndarray]:
    """Paired 0/1 outcomes with P(both) 0.4, P(base only) 0.1, P(run only) 0.2: true ΔESM = +0.1."""
    cells = rng.choice(4, size=n, p=joint)
    base = np.isin(cells, (0, 1)).astype(float)
    run = np.isin(cells, (0, 2)).astype(float)
    return run, base


def test_the_interval_covers_the_planted_difference_about_95_percent_of_the_time():
    rng = np.random.default_rng(7)
    covered = 0
    datasets = 300
    for seed in range(datasets):
        run, base = planted(300, rng)
        found = paired_against(run, base, None, n_resamples=2_000, seed=seed)
        covered += found["ci_low"] <= 0.1 <= found["ci_high"]
    assert 0.91 <= covered / datasets <= 0.985


def test_the_interval_matches_scipy_bootstrap_percentile():
    run, base = planted(500, np.random.default_rng(3))
    ours = paired_against(run, base, None, n_resamples=10_000, seed=1)
    theirs = stats.bootstrap(
        (run, base),
        lambda a, b, axis: np.mean(a - b, axis=axis),
        paired=True,
        vectorized=True,
        method="percentile",
        n_resamples=10_000,
        random_state=np.random.default_rng(2),
    ).confidence_interval
    assert ours["delta_esm"] == pytest.approx(np.mean(run - base), abs=1e-4)
    assert ours["ci_low"] == pytest.approx(theirs.low, abs=0.006)
    assert ours["ci_high"] == pytest.approx(theirs.high, abs=0.006)


def test_won_lost_and_delta_are_counted_question_by_question():
    base = np.array([1, 1, 0, 0, 1, 0, 1, 0], dtype=float)
    run = np.array([1, 0, 1, 1, 1, 0, 1, 1], dtype=float)  # wins 3, loses 1
    found = paired_against(run, base, None, n_resamples=1_000, seed=0)
    assert (found["won"], found["lost"], found["delta_esm"]) == (3, 1, 0.25)
    assert found["mcnemar_p"] == pytest.approx(stats.binomtest(3, 4, 0.5).pvalue)
    assert found["bootstrap"] == {"resamples": 1_000, "seed": 0, "confidence": 0.95}
    assert found["within_noise"] is None  # no repeated trials: the floor is unknown


def test_the_same_seed_gives_the_same_interval():
    run, base = planted(200, np.random.default_rng(5))
    assert paired_against(run, base, None, 2_000, seed=9) == paired_against(run, base, None, 2_000, seed=9)


def test_noise_floor_is_the_largest_spread_between_trials_of_one_run():
    assert noise_floor([[0.5], [0.61, 0.58, 0.6], [0.4, 0.42]]) == pytest.approx(0.03)
    assert noise_floor([[0.5], []]) is None


def summary(name: str, outcomes: dict[str, list[int]], trials: int) -> RunSummary:
    """A run whose question ``q`` has the given exact outcomes, one per trial."""
    episodes = {}
    for number, (question, found) in enumerate(outcomes.items()):
        for trial, exact in enumerate(found, start=1):
            key = question if trial == 1 else f"{question}~t{trial}"
            episodes[key] = {
                "id": key,
                "scenario": 1,
                "index": number,
                "reasoning_type": "state_shift",
                "exact_match": bool(exact),
                **{m: {"precision": 1.0, "recall": 1.0, "f1": 1.0} for m in ("field", "value", "tool")},
                "memory_tokens": 10,
                "input_tokens": 100,
                "output_tokens": 10,
            }
    return RunSummary(Path(name), "m", name, (1,), episodes, len(episodes), 0, trials)


def test_compare_pairs_trials_by_question_and_warns_inside_the_noise_floor():
    questions = [f"1-{i}" for i in range(10)]
    base = summary("base", {q: [1, 0, 1] if i < 4 else [0, 0, 0] for i, q in enumerate(questions)}, 3)
    better = summary("better", {q: [1] if i < 5 else [0] for i, q in enumerate(questions)}, 1)
    rows = compare_rows([base, better], n_resamples=500)
    assert [r["n"] for r in rows] == [10, 10] and rows[0]["episodes"] == 30
    assert rows[0]["trial_esm"] == [0.4, 0.0, 0.4] and rows[0]["noise_floor"] == 0.4
    # rates: base 2/3 on q0-q3, better 1 on q0-q4: ΔESM = (4 * 1/3 + 1) / 10
    assert rows[1]["delta_esm"] == pytest.approx(round(7 / 30, 4))
    assert (rows[1]["won"], rows[1]["lost"]) == (5, 0) and rows[1]["within_noise"] is True
    assert rows[0]["delta_esm"] is None and rows[0]["baseline"] == "base"
