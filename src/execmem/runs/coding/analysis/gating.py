"""The gating condition (docs/attribution.md, "Headroom"): a given-text file per primary Layer B run
that keeps the record only where the gate lets it through, and the table comparing the gate runs
with off, beside the ungated system run on the same targets."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from execmem.runs.coding.analysis.effects import Bootstrap, effect, pct, r4
from execmem.runs.coding.analysis.given_runs import PlannedRun, provenance, write_arm
from execmem.runs.coding.analysis.rates import rate, shared_targets
from execmem.runs.coding.analysis.runset import AnalysisRun, SolverRuns
from execmem.runs.report_tables import ReportTable
from execmem.suites.coding.attribution.anchors import Anchors, gold_anchors, statement_anchors
from execmem.suites.coding.attribution.gate import DEFAULT_OFF_BELOW, gate
from execmem.suites.coding.given import GivenText
from execmem.suites.coding.tasks import CodingTask

KIND = "gate"
AnchorSource = Literal["gold", "statement"]


def target_anchors(task: CodingTask, source: AnchorSource) -> Anchors:
    if source == "statement":
        return statement_anchors(task.problem_statement, task.repo)
    return gold_anchors(task.patch)


def gate_files(
    groups: list[SolverRuns],
    tasks: Mapping[str, CodingTask],
    out: Path,
    off_below: float = DEFAULT_OFF_BELOW,
    anchors: AnchorSource = "gold",
) -> list[PlannedRun]:
    """One gate file per primary Layer B run of a solver with an off run, over the targets both finished."""
    planned = []
    for group in groups:
        for run in group.primary_systems() if group.off is not None else []:
            lines = []
            for target in shared_targets(run, group.off):
                off_rate, text = rate(group.off, target), run.text(target)
                decision = gate(text, off_rate, target_anchors(tasks[target], anchors), off_below)
                derived = provenance(run, KIND, off_below=off_below, anchors=anchors, off_rate=off_rate,
                                     injected=decision.inject, named=decision.anchors)  # fmt: skip
                lines.append(GivenText(target=target, text=text if decision.inject else None, arm=KIND,
                                       derived_from=derived))  # fmt: skip
            if lines:
                planned.append(write_arm(out, run, KIND, lines))
    return planned


def gate_table(groups: list[SolverRuns], boot: Bootstrap) -> ReportTable:
    columns = [
        "solver",
        "system",
        "anchors",
        "off below",
        "targets",
        "injected",
        "resolved off",
        "resolved gate",
        "Δ gate − off",
        "95% CI",
        "lost at N/N",
        "Δ system − off",
        "95% CI (system)",
        "injected improved %",
        "injected worsened %",
    ]
    rows = []
    for group in groups:
        systems = {run.system: run for run in group.primary_systems()}
        for run in group.given:
            if run.given_kind == KIND and group.off is not None:
                rows.append(_row(group, run, systems.get(run.block["derived_from"].get("system")), boot))
    notes = [
        "The gate injects the system's record only when the solver's off rate is below the threshold and the "
        "record names a directory or identifier anchor of the target; an oracle-assisted condition (it "
        "uses the off outcome, and the gold patch's anchors unless anchors = statement).",
        f"95% CI: percentile bootstrap over targets ({boot.n_resamples} resamples, seed {boot.seed}).",
    ]
    return ReportTable(
        "gate", "Gating condition against off, beside the ungated system", columns, rows, notes
    )


def _row(group: SolverRuns, run: AnalysisRun, system: AnalysisRun | None, boot: Bootstrap) -> list[Any]:
    derived = run.block["derived_from"]
    targets = shared_targets(run, group.off, *([system] if system else []))
    found = effect(run, group.off, targets, boot)
    injected = [t for t in targets if run.text(t)]
    moved = [rate(run, t) - rate(group.off, t) for t in injected]
    ungated = effect(system, group.off, targets, boot) if system else None
    return [
        group.solver,
        derived.get("system"),
        derived.get("anchors"),
        derived.get("off_below"),
        len(targets),
        len(injected),
        r4(found["off"]),
        r4(found["on"]),
        r4(found["delta"]),
        found["ci"],
        found["lost_full"],
        r4(ungated["delta"]) if ungated else None,
        ungated["ci"] if ungated else None,
        pct(sum(d > 0 for d in moved), len(moved)),
        pct(sum(d < 0 for d in moved), len(moved)),
    ]
