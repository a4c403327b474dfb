"""The coding half of the report: resolved rates with intervals, the paired comparison, the tables
documents (Layer A, Layer B and the other analyses) and the trajectory viewer's data."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execmem.report.charts import Figure, figure, interval_chart
from execmem.report.coding_runs import CodingRun, paired, resolved_row, trajectories
from execmem.report.options import ReportOptions
from execmem.report.packing import pack
from execmem.report.table_charts import table_figures
from execmem.report.tables import TablesDocument, folder_tables


@dataclass
class CodingSection:
    resolved: list[dict[str, Any]]
    effects: list[dict[str, Any]]
    paired_note: str
    tables: list[tuple[str, TablesDocument]]
    """(where the document came from, the document)."""
    figures: list[Figure]
    browser: dict[str, Any]
    notes: list[str] = field(default_factory=list)


def coding_section(
    runs: list[CodingRun], documents: list[tuple[Path, TablesDocument]], options: ReportOptions
) -> CodingSection:
    n_resamples, seed = options.n_resamples, options.seed
    resolved = [resolved_row(run, n_resamples, seed) for run in runs]
    report, note = paired(runs, n_resamples, seed) if runs else (None, "")
    effects = list(report["effects"]) if report else []
    if report:
        note = f"paired on {report['n_targets']} targets x {len(report['seeds'])} seeds"
        note += "".join(f"; warning: {w}" for w in report["warnings"])
        note += (
            f"; left out (unfinished): {', '.join(report['dropped_targets'])}"
            if report["dropped_targets"]
            else ""
        )
    found = [doc for run in runs for doc in folder_tables(run.folder)] + documents
    section = CodingSection(
        resolved=resolved,
        effects=effects,
        paired_note=note,
        tables=[(str(path), doc) for path, doc in found],
        figures=_figures(resolved, effects) + table_figures([doc for _, doc in found]),
        browser=_browser(runs, options.output_chars),
    )
    section.notes = [f"{run.label}: {run.status()}" for run in runs if not run.complete]
    return section


def _figures(resolved: list[dict[str, Any]], effects: list[dict[str, Any]]) -> list[Figure]:
    figures = []
    if resolved:
        points = [
            {"label": _named(r), "value": r["rate"], "low": r["low"], "high": r["high"]} for r in resolved
        ]
        title = "resolved (share of episodes), 95% bootstrap interval over targets"
        figures.append(figure("coding-resolved", interval_chart(points, title, False, [0, 1])))
    if effects:
        points = [
            {"label": e["comparison"], "value": e["estimate"], "low": e["low"], "high": e["high"]}
            for e in effects
        ]
        title = "difference in resolved rate (paired by target), 95% bootstrap interval"
        figures.append(figure("coding-effects", interval_chart(points, title, True, None)))
    return figures


def _named(row: dict[str, Any]) -> str:
    return row["label"] if row["label"] == row["condition"] else f"{row['label']} ({row['condition']})"


def _browser(runs: list[CodingRun], output_chars: int) -> dict[str, Any]:
    return {
        "runs": [run.label for run in runs],
        "episodes": {run.label: pack(trajectories(run, output_chars)) for run in runs},
        "counts": {run.label: len(run.data.episodes) for run in runs},
    }
