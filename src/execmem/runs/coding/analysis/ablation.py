"""The strip ablation (docs/attribution.md, "Strip ablation"): the arm files of every
instruction-polluted record of the Layer B runs, and the table comparing each arm's runs with the
original's (target-level permutation test)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from execmem.runs.coding.analysis.effects import r4
from execmem.runs.coding.analysis.given_runs import PlannedRun, provenance, write_arm
from execmem.runs.coding.analysis.rates import rates, shared_targets
from execmem.runs.coding.analysis.runset import AnalysisRun, SolverRuns
from execmem.runs.permutation_test import N_PERMUTATIONS, paired_permutation_test
from execmem.runs.report_tables import ReportTable
from execmem.suites.coding.attribution.record_form import record_form
from execmem.suites.coding.attribution.strip import ARMS, strip_arms
from execmem.suites.coding.given import GivenText

KIND = "strip-ablation"


def strip_files(groups: list[SolverRuns], out: Path, seed: int = 0) -> list[PlannedRun]:
    """Three arm files per primary Layer B run that holds a polluted record, and their runs."""
    planned = []
    for group in groups:
        for run in group.primary_systems():
            lines = _arm_lines(run, seed)
            if lines["original"]:
                planned += [write_arm(out, run, arm, lines[arm]) for arm in ARMS]
    return planned


def _arm_lines(run: AnalysisRun, seed: int) -> dict[str, list[GivenText]]:
    lines: dict[str, list[GivenText]] = {arm: [] for arm in ARMS}
    for target in run.data.manifest["tasks"]["order"]:
        text = run.text(target)
        if not text or not record_form(text).polluted:
            continue
        arms = strip_arms(text, target, seed)
        history = [str(h) for h in run.entry(target).get("sources") or []]
        derived = provenance(run, KIND, history_ids=history, **arms.derived_from())
        for arm in ARMS:
            lines[arm].append(GivenText(target=target, text=arms.texts[arm], arm=arm, derived_from=derived))
    return lines


def _arm_groups(groups: list[SolverRuns]) -> list[tuple[str, str, dict[str, AnalysisRun]]]:
    found: dict[tuple[str, str], dict[str, AnalysisRun]] = {}
    for group in groups:
        for run in group.given:
            if run.given_kind == KIND:
                found.setdefault((group.solver, run.block["derived_from"].get("system", "?")), {})[
                    run.block["arm"]
                ] = run
    return [(solver, system, arms) for (solver, system), arms in found.items() if "original" in arms]


def ablation_table(
    groups: list[SolverRuns], n_permutations: int = N_PERMUTATIONS, seed: int = 0
) -> ReportTable:
    columns = ["solver", "system", "records", "seeds", "resolved original", "resolved flagged-removed",
               "resolved random-removed", "seeds recovered flagged-removed", "p flagged-removed",
               "seeds recovered random-removed", "p random-removed"]  # fmt: skip
    rows, pooled = [], {arm: ([], []) for arm in ARMS[1:]}
    for solver, system, arms in _arm_groups(groups):
        rows.append(_row(solver, system, arms, pooled, n_permutations, seed))
    if len(rows) > 1:
        rows.append(_pooled_row(pooled, rows, n_permutations, seed))
    notes = [
        "Each arm against the original record on the same targets: seeds recovered = mean over records of "
        "(resolved seeds of the arm − of the original); p: two-sided paired permutation test over targets "
        f"({n_permutations} sign patterns, seed {seed}; every pattern when 2^records ≤ {n_permutations}).",
        "Both arms recover (p < 0.05): the harm is the record's volume; only flagged-removed: the "
        "instructions.",
        "all: every solver's and system's records pooled in one test (each record a unit); read it beside "
        "the rows, since solvers can differ in their sensitivity.",
    ]
    return ReportTable(
        "strip-ablation", "Strip ablation of instruction-polluted records", columns, rows, notes
    )


def arms_table(ablation: ReportTable) -> ReportTable:
    """The ablation's resolved rates, one row per record set and arm, drawn as grouped bars."""
    index = {name: n for n, name in enumerate(ablation.columns)}
    rows = [
        [f"{row[index['solver']]} / {row[index['system']]}", arm, row[index[f"resolved {arm}"]]]
        for row in ablation.rows
        if row[index["solver"]] != "all"
        for arm in ARMS
    ]
    question = "Does taking lines out of a polluted record help, and does it matter which lines?"
    chart = {"kind": "bars", "x": "records", "y": "resolved", "color": "arm", "answers": question}
    notes = ["The same cells as the strip ablation's resolved columns (share of seeds, over its targets)."]
    title = "Strip ablation: resolved per arm"
    return ReportTable("strip-ablation-arms", title, ["records", "arm", "resolved"], rows, notes, chart)


def _row(
    solver: str, system: str, arms: dict[str, AnalysisRun], pooled: dict, n: int, seed: int
) -> list[Any]:
    original = arms["original"]
    present = [arms[a] for a in ARMS if a in arms]
    targets = shared_targets(*present)
    base = rates(original, targets)
    seeds = len(original.seeds)
    row: list[Any] = [solver, system, len(targets), seeds, r4(float(base.mean())) if targets else None]
    tests = []
    for arm in ARMS[1:]:
        row.append(r4(float(rates(arms[arm], targets).mean())) if arm in arms and targets else None)
        tests.append(_test(arms.get(arm), base, targets, seeds, n, seed, pooled[arm]))
    return row + [cell for test in tests for cell in test]


def _test(run: AnalysisRun | None, base: np.ndarray, targets: list[str], seeds: int, n: int, seed: int,
          pooled: tuple[list, list]) -> list[Any]:  # fmt: skip
    if run is None or not targets:
        return [None, None]
    arm = rates(run, targets)
    pooled[0].extend(arm * seeds)
    pooled[1].extend(base * seeds)
    result = paired_permutation_test(arm * seeds, base * seeds, n, seed)
    return [r4(result.statistic), r4(result.p_value)]


def _pooled_row(pooled: dict, rows: list[list[Any]], n: int, seed: int) -> list[Any]:
    row: list[Any] = ["all", "all", sum(r[2] for r in rows), None, None, None, None]
    for arm in ARMS[1:]:
        on, off = pooled[arm]
        result = paired_permutation_test(on, off, n, seed) if on else None
        row += [r4(result.statistic), r4(result.p_value)] if result else [None, None]
    return row
