"""The settings of one report (``execmem report``'s options)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class ReportOptions:
    data_dir: Path | None = None
    """The VehicleMemBench release (default: the one each run used, else the usual places)."""
    gold: Path | None = None
    """A gold vehicle run for MemoryScore, when none is among the runs."""
    memory_chars: int = 1000
    """Characters of each memory text an episode keeps (its lines holding evidence or values kept too)."""
    output_chars: int = 1500
    """Characters of each command output a coding step keeps (head and tail)."""
    n_resamples: int = 10_000
    seed: int = 0
    title: str = "execmem report"
