"""The strip ablation's arms of one instruction-polluted record (docs/attribution.md, "Strip
ablation"): the record, the record without its flagged lines, and the record without as many
randomly chosen unflagged non-blank lines (seeded per target)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from execmem.suites.coding.attribution.record_form import FormThresholds, record_form

ARMS = ("original", "flagged-removed", "random-removed")


@dataclass(frozen=True)
class StripArms:
    texts: dict[str, str]
    flagged: tuple[int, ...]
    random_removed: tuple[int, ...]
    seed: int
    rng_seed: int

    def derived_from(self) -> dict[str, Any]:
        """Line numbers are 1-based, as the evidence shows them."""
        return {"flagged_lines": [i + 1 for i in self.flagged],
                "random_removed_lines": [i + 1 for i in self.random_removed],
                "seed": self.seed, "rng_seed": self.rng_seed}  # fmt: skip


def rng_seed(seed: int, target: str) -> int:
    """The random arm's generator seed: sha256("SEED:TARGET"), so records do not shift each other."""
    return int(hashlib.sha256(f"{seed}:{target}".encode()).hexdigest()[:16], 16)


def strip_arms(text: str, target: str, seed: int = 0, thresholds: FormThresholds | None = None) -> StripArms:
    form = record_form(text, thresholds)
    lines = text.splitlines()
    flagged = set(form.flagged)
    unflagged = [i for i, line in enumerate(lines) if line.strip() and i not in flagged]
    generator = np.random.default_rng(rng_seed(seed, target))
    count = min(len(flagged), len(unflagged))
    chosen = sorted(int(i) for i in generator.choice(unflagged, size=count, replace=False)) if count else []
    texts = {
        "original": text,
        "flagged-removed": _without(lines, flagged),
        "random-removed": _without(lines, set(chosen)),
    }
    return StripArms(texts, form.flagged, tuple(chosen), seed, rng_seed(seed, target))


def _without(lines: list[str], removed: set[int]) -> str:
    return "\n".join(line for i, line in enumerate(lines) if i not in removed)
