"""``execmem coding report``: every analysis of a set of run folders, as report tables and the
attribution's per-pair evidence (docs/attribution.md, "The report")."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execmem.core.files import DamagedFileError, read_json_document
from execmem.runs.coding.analysis.ablation import ablation_table, arms_table
from execmem.runs.coding.analysis.attribution_tables import labels_table, pairs_table, shares_table
from execmem.runs.coding.analysis.effects import Bootstrap
from execmem.runs.coding.analysis.gating import gate_table
from execmem.runs.coding.analysis.headroom import (
    DEFAULT_HEADROOM_BELOW,
    predictors_table,
    solvers_table,
    split_table,
)
from execmem.runs.coding.analysis.layer_b import dose_table, layer_b_table
from execmem.runs.coding.analysis.pairs import Pair, solver_pairs
from execmem.runs.coding.analysis.rates import complete_targets
from execmem.runs.coding.analysis.runset import SolverRuns, group_runs, load_analysis_run
from execmem.runs.coding.analysis.sources import sieve_frozen_ids, solvers_tasks
from execmem.runs.coding.compare import paired_report
from execmem.runs.coding.layer_a import layer_a_tables
from execmem.runs.identity import CompareError
from execmem.runs.permutation_test import N_PERMUTATIONS
from execmem.runs.report_tables import ReportTable
from execmem.suites.coding.attribution.gate import DEFAULT_OFF_BELOW
from execmem.suites.coding.attribution.lexicons import RULES_VERSION
from execmem.suites.coding.attribution.record_form import FormThresholds
from execmem.suites.coding.conditions import TREATMENTS


@dataclass(frozen=True)
class ReportSettings:
    tasks: Path | None = None
    sieve: Path | None = None
    bootstrap: Bootstrap = field(default_factory=Bootstrap)
    n_permutations: int = N_PERMUTATIONS
    permutation_seed: int = 0
    headroom_below: float = DEFAULT_HEADROOM_BELOW
    off_below: float = DEFAULT_OFF_BELOW


@dataclass
class CodingReport:
    tables: list[ReportTable]
    pairs: list[Pair]
    incomplete: list[str]
    """Runs with targets not finished for every seed (their other targets are still paired)."""

    def pairs_document(self, settings: ReportSettings) -> dict[str, Any]:
        return {
            "rules": RULES_VERSION,
            "thresholds": FormThresholds().to_dict(),
            "headroom_below": settings.headroom_below,
            "pairs": [p.to_dict() for p in self.pairs],
        }


def coding_report(folders: list[Path], settings: ReportSettings) -> CodingReport:
    """Every table the runs allow; CompareError naming what cannot be read or paired."""
    runs = [load_analysis_run(folder) for folder in folders]
    if not runs:
        raise CompareError("give at least one run folder")
    groups = group_runs(runs)
    pairs = all_pairs(groups, settings)
    boot = settings.bootstrap
    tables = [*_sieve_tables(settings.sieve), *_layer_a(groups, boot)]
    if any(g.systems for g in groups):
        tables += [layer_b_table(groups, boot), dose_table(groups, boot)]
    if pairs:
        tables += [
            shares_table(pairs),
            labels_table(pairs),
            pairs_table(pairs),
            split_table(pairs),
            predictors_table(pairs, settings.headroom_below, settings.off_below),
            solvers_table(pairs),
        ]
    if any(g.given for g in groups):
        ablation = ablation_table(groups, settings.n_permutations, settings.permutation_seed)
        tables += [ablation, arms_table(ablation), gate_table(groups, boot)]
    tables = [t for t in tables if t.rows]
    incomplete = [
        str(r.folder) for r in runs if len(complete_targets(r)) < len(r.data.manifest["tasks"]["order"])
    ]
    return CodingReport(tables, pairs, incomplete)


def all_pairs(groups: list[SolverRuns], settings: ReportSettings) -> list[Pair]:
    attributable = [g for g in groups if g.systems and g.off is not None and g.frozen is not None]
    if not attributable:
        return []
    tasks = solvers_tasks([group.off for group in attributable], settings.tasks)
    frozen_ids = sieve_frozen_ids(settings.sieve)
    return [pair for group in attributable for pair in solver_pairs(group, tasks, frozen_ids)]


def _layer_a(groups: list[SolverRuns], boot: Bootstrap) -> list[ReportTable]:
    reports = []
    for group in groups:
        if group.off is not None and any(role in group.layer_a for role in TREATMENTS):
            runs = [run.data for run in group.layer_a.values()]
            reports.append(paired_report(runs, boot.n_resamples, boot.seed, allow_incomplete=True))
    return layer_a_tables(reports) if reports else []


def _sieve_tables(sieve: Path | None) -> list[ReportTable]:
    """The funnel tables of ``SIEVE_DIR/funnel.json``."""
    if sieve is None:
        return []
    path = sieve / "funnel.json"
    if not path.is_file():  # a SIEVE folder cut off before its funnel: only its frozen file is read
        return []
    try:
        document = read_json_document(path)
    except DamagedFileError as exc:
        raise CompareError(str(exc)) from None
    return [ReportTable(t["id"], t["title"], t["columns"], t["rows"], t.get("notes", []))
            for t in document.get("tables", [])]  # fmt: skip
