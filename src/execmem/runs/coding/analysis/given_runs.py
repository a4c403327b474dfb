"""Given-text files made from Layer B runs (the strip arms, the gate), and the runs they call for:
each is an ordinary coding run of the source run's protocol with ``--memory given --given FILE``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execmem.core.text import slug
from execmem.runs.coding.analysis.runset import AnalysisRun
from execmem.suites.coding.given import GivenText, dump_given


@dataclass(frozen=True)
class PlannedRun:
    """A given-text run to make: the source run's protocol, this file in the slot, this folder."""

    source: AnalysisRun
    arm: str
    given_file: Path
    out: Path

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_run": str(self.source.folder),
            "solver": self.source.solver,
            "system": self.source.system,
            "arm": self.arm,
            "given": str(self.given_file),
            "out": str(self.out),
        }


def provenance(run: AnalysisRun, kind: str, **extra: Any) -> dict[str, Any]:
    """What every line derived from one Layer B run shares."""
    return {"kind": kind, "system": run.system, "top_k": run.top_k, "source_run": str(run.folder), **extra}


def write_arm(out: Path, run: AnalysisRun, arm: str, lines: list[GivenText]) -> PlannedRun:
    """``OUT/<solver>/<system>/<arm>.jsonl`` and the run folder ``OUT/<solver>/<system>/runs/<arm>``."""
    folder = out / slug(run.solver, 80) / slug(f"{run.system}-top{run.top_k}", 80)
    dump_given(lines, folder / f"{arm}.jsonl")
    return PlannedRun(run, arm, folder / f"{arm}.jsonl", folder / "runs" / arm)
