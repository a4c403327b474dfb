"""Per-target resolve rates of coding runs and the targets two or more runs share."""

from __future__ import annotations

import numpy as np

from execmem.runs.coding.analysis.runset import AnalysisRun
from execmem.runs.coding.metrics import counts_as_resolved
from execmem.runs.coding.store import episode_id


def complete_targets(run: AnalysisRun) -> list[str]:
    """The run's targets (in its order) finished for every seed."""
    order = run.data.manifest["tasks"]["order"]
    return [t for t in order if all(episode_id(t, s) in run.data.episodes for s in run.seeds)]


def shared_targets(*runs: AnalysisRun) -> list[str]:
    """Targets every run finished for every seed, in the first run's order."""
    done = [set(complete_targets(run)) for run in runs[1:]]
    return [t for t in complete_targets(runs[0]) if all(t in d for d in done)]


def outcome_row(run: AnalysisRun, target: str) -> list[int]:
    return [int(counts_as_resolved(run.data.episodes[episode_id(target, s)])) for s in run.seeds]


def rate(run: AnalysisRun, target: str) -> float:
    row = outcome_row(run, target)
    return sum(row) / len(row)


def rates(run: AnalysisRun, targets: list[str]) -> np.ndarray:
    return np.array([rate(run, t) for t in targets], dtype=float)


def unresolved_seeds(run: AnalysisRun, target: str) -> list[int]:
    return [s for s, ok in zip(run.seeds, outcome_row(run, target), strict=True) if not ok]


def mean_cost(run: AnalysisRun, targets: list[str], key: str) -> float:
    """Mean of an episode field (``input_tokens``, ``output_tokens``, ``steps``) over the targets'
    episodes."""
    values = [run.data.episodes[episode_id(t, s)][key] for t in targets for s in run.seeds]
    return float(np.mean(values)) if values else 0.0


def outcome_matrix(run: AnalysisRun, targets: list[str]) -> np.ndarray:
    """(targets x seeds) of resolved (1) / not (0)."""
    return np.array([outcome_row(run, t) for t in targets], dtype=float).reshape(len(targets), -1)
