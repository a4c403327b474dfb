"""Every Layer B pair (target x solver x system) with its rates, and its attribution
(docs/attribution.md): the run-folder side of ``suites.coding.attribution.rules``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from execmem.runs.coding.analysis.rates import rate, shared_targets, unresolved_seeds
from execmem.runs.coding.analysis.runset import AnalysisRun, SolverRuns
from execmem.runs.coding.analysis.sources import steps
from execmem.suites.coding.attribution.anchors import Anchors, gold_anchors
from execmem.suites.coding.attribution.rules import Attribution, PairInput, attribute
from execmem.suites.coding.tasks import CodingTask


@dataclass(frozen=True)
class Pair:
    solver: str
    system: AnalysisRun
    target: str
    inputs: PairInput
    result: Attribution

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target, "solver": self.solver, "system": self.system.system,
            "top_k": self.system.top_k, "run": str(self.system.folder), "seeds": len(self.system.seeds),
            "r_off": self.inputs.r_off, "r_frozen": self.inputs.r_frozen, "r_system": self.inputs.r_system,
            **self.result.to_dict(),
        }  # fmt: skip


def solver_pairs(
    group: SolverRuns, tasks: Mapping[str, CodingTask], frozen_ids: Mapping[str, frozenset[str]]
) -> list[Pair]:
    """The pairs of a solver's primary Layer B runs (each system at its smallest top_k); none
    without both an off and a frozen run."""
    off, frozen = group.off, group.frozen
    if off is None or frozen is None:
        return []
    found = []
    for system in group.primary_systems():
        for target in shared_targets(system, off, frozen):
            inputs = pair_input(target, tasks[target], system, off, frozen, frozen_ids)
            result = attribute(inputs)
            if result.reason == "no rule matched":  # only then do the trajectories matter
                inputs = with_trajectories(inputs, system, off)
                result = attribute(inputs)
            found.append(Pair(group.solver, system, target, inputs, result))
    return found


def pair_input(
    target: str,
    task: CodingTask,
    system: AnalysisRun,
    off: AnalysisRun,
    frozen: AnalysisRun,
    frozen_ids: Mapping[str, frozenset[str]],
    anchors: Anchors | None = None,
) -> PairInput:
    sources = frozenset(map(str, frozen.entry(target).get("sources") or []))
    ids = sources or frozen_ids.get(target, frozenset())
    return PairInput(
        target=target,
        statement=task.problem_statement,
        anchors=anchors or gold_anchors(task.patch),
        r_off=rate(off, target),
        r_frozen=rate(frozen, target),
        r_system=rate(system, target),
        record=system.text(target),
        frozen_ids=ids,
        ranking=system.entry(target).get("ranking"),
        frozen_text=frozen.text(target),
    )


def with_trajectories(inputs: PairInput, system: AnalysisRun, off: AnalysisRun) -> PairInput:
    """The pair with the steps of its unresolved system seeds and of every off seed."""
    target = inputs.target
    return replace(
        inputs,
        unresolved={seed: steps(system, target, seed) for seed in unresolved_seeds(system, target)},
        off_steps=[steps(off, target, seed) for seed in off.seeds],
    )
