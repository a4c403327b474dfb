"""What building one library of the task set cost and yielded (``build-tasks --stats``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RepoStats:
    """What building one library cost and yielded."""

    package: str
    env_build_s: float = 0.0
    env_reused: bool = False
    baseline_s: float = 0.0
    baseline_tests: int = 0
    candidates: int = 0
    trials: int = 0
    kept: int = 0
    family_trials: int = 0
    families: int = 0
    rejected: Counter = field(default_factory=Counter)
    trial_s: list[float] = field(default_factory=list)
    validation_s: list[float] = field(default_factory=list)
    total_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        mean = lambda xs: round(sum(xs) / len(xs), 3) if xs else None  # noqa: E731
        return {
            "package": self.package,
            "env_build_s": round(self.env_build_s, 3),
            "env_reused": self.env_reused,
            "baseline_s": round(self.baseline_s, 3),
            "baseline_tests": self.baseline_tests,
            "candidates": self.candidates,
            "trials": self.trials,
            "kept": self.kept,
            "family_trials": self.family_trials,
            "families": self.families,
            "rejected": dict(self.rejected),
            "mean_trial_s": mean(self.trial_s),
            "mean_validation_s": mean(self.validation_s),
            "total_s": round(self.total_s, 3),
            "s_per_task": round(self.total_s / self.tasks, 3) if self.tasks else None,
        }

    @property
    def tasks(self) -> int:
        return self.kept + self.families
