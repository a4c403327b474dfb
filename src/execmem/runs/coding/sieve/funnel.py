"""The SIEVE funnel: targets kept and dropped per stage, with reasons, and each target's fate.

Two tables in the ``report_tables`` shape: ``sieve-funnel`` (one row per stage: targets in, kept,
dropped, the drop reasons with counts) and ``sieve-targets`` (one row per target: the stage it left
at or "kept", why, its off outcome, its best uplift and the history of its frozen experience).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from execmem.runs.report_tables import ReportTable

STAGES = (
    "1 source validation",
    "2 patch-pattern screen",
    "3 history and distillation",
    "4 verify and freeze",
)


@dataclass
class Funnel:
    """Targets in order, and per stage the reason each dropped target left (None: went on)."""

    targets: list[str]
    repos: dict[str, str]
    drops: list[dict[str, str | None]] = field(default_factory=list)
    verified: dict[str, dict[str, Any]] = field(default_factory=dict)
    counts: dict[str, Any] = field(default_factory=dict)

    def entering(self, stage: int) -> list[str]:
        alive = list(self.targets)
        for drops in self.drops[:stage]:
            alive = [t for t in alive if drops.get(t) is None]
        return alive

    def kept(self) -> list[str]:
        return self.entering(len(self.drops))


def _category(reason: str) -> str:
    return reason.split(":", 1)[0] if ": " in reason and not reason.startswith("at ceiling") else reason


def funnel_table(funnel: Funnel, seeds: int) -> ReportTable:
    rows = []
    for index, name in enumerate(STAGES[: len(funnel.drops)]):
        entering = funnel.entering(index)
        dropped = [funnel.drops[index][t] for t in entering if funnel.drops[index].get(t) is not None]
        reasons = Counter(_category(str(r)) for r in dropped)
        text = "; ".join(
            f"{reason}: {n}" for reason, n in sorted(reasons.items(), key=lambda i: (-i[1], i[0]))
        )
        rows.append([name, len(entering), len(entering) - len(dropped), len(dropped), text or "-"])
    notes = [f"Verification: {seeds} seeds per condition; kept when off < 1 and uplift > 0."]
    notes += [f"{key.replace('_', ' ')}: {value}" for key, value in funnel.counts.items()]
    columns = ["stage", "targets in", "kept", "dropped", "reasons dropped"]
    return ReportTable("sieve-funnel", "SIEVE funnel", columns, rows, notes)


def _fate(funnel: Funnel, target: str) -> tuple[str, str]:
    for index, drops in enumerate(funnel.drops):
        if drops.get(target) is not None:
            return STAGES[index], str(drops[target])
    return "kept", "-"


def targets_table(funnel: Funnel, seeds: int) -> ReportTable:
    rows = []
    for target in funnel.targets:
        stage, reason = _fate(funnel, target)
        verified = funnel.verified.get(target, {})
        off = f"{sum(verified['off'])}/{seeds}" if "off" in verified else None
        uplifts = [c["uplift"] for c in verified.get("candidates", [])]
        frozen = verified.get("frozen")
        history = next((c["history"] for c in verified.get("candidates", []) if c["rank"] == frozen), None)
        rows.append(
            [target, funnel.repos[target], stage, reason, off, max(uplifts) if uplifts else None, history]
        )
    columns = ["target", "repo", "left at", "reason", "off resolved", "best uplift", "frozen from"]
    return ReportTable("sieve-targets", "SIEVE: every target", columns, rows, [])


def funnel_tables(funnel: Funnel, seeds: int) -> list[ReportTable]:
    return [funnel_table(funnel, seeds), targets_table(funnel, seeds)]
