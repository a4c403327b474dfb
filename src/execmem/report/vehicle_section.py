"""The vehicle half of the report: leaderboard, charts, paired differences, diagnosis, audits and the
episode browser's data, from the run folders and audits given."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from execmem.report import vehicle_charts as vc
from execmem.report.audits import Audit, curve_rows, table_rows
from execmem.report.charts import Figure, figure, interval_chart
from execmem.report.options import ReportOptions
from execmem.report.packing import pack
from execmem.report.vehicle_episodes import EXACT, HistoryCache, RunEpisodes, run_episodes
from execmem.report.vehicle_runs import VehicleRun, leaderboard_row
from execmem.runs.identity import CompareError
from execmem.runs.vehicle.compare import compare_rows
from execmem.suites.vehicle.diagnosis import LABELS


@dataclass
class VehicleSection:
    leaderboard: list[dict[str, Any]]
    paired: list[dict[str, Any]]
    paired_note: str
    diagnosis: list[dict[str, Any]]
    audits: list[dict[str, Any]]
    figures: list[Figure]
    browser: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)


def vehicle_section(
    runs: list[VehicleRun], audits: list[Audit], options: ReportOptions, gold: VehicleRun | None = None
) -> VehicleSection:
    """Everything the page shows of vehicle runs (and of audits, which need no run)."""
    if not runs:
        figures = [_audit_figure(audits)] if audits else []
        return VehicleSection([], [], "", [], table_rows(audits), figures, None)
    labels = [run.label for run in runs]
    leaderboard = [leaderboard_row(run, options.n_resamples, options.seed) for run in runs]
    paired, note = _paired(runs, gold, options)
    for row, compared in zip(leaderboard, paired or [{}] * len(runs), strict=True):
        row["memory_score"] = compared.get("memory_score")
    histories: HistoryCache = {}
    chars = options.memory_chars
    diagnosed = {run.label: run_episodes(run.sources, options.data_dir, chars, histories) for run in runs}
    figures = _figures(runs, leaderboard, paired, diagnosed, audits, labels)
    section = VehicleSection(
        leaderboard=leaderboard,
        paired=paired[1:] if paired else [],
        paired_note=note,
        diagnosis=[_diagnosis_row(label, found) for label, found in diagnosed.items()],
        audits=table_rows(audits),
        figures=figures,
        browser=_browser(diagnosed),
    )
    section.notes = [f"{run.label}: {run.status()}" for run in runs if not run.complete]
    return section


def _paired(
    runs: list[VehicleRun], gold: VehicleRun | None, options: ReportOptions
) -> tuple[list[dict[str, Any]], str]:
    """compare's rows (MemoryScore, ΔESM against the first run), on the questions all runs finished."""
    summaries, gold_summary = [run.summary for run in runs], gold.summary if gold else None
    try:
        rows = compare_rows(summaries, gold_summary, True, options.n_resamples, options.seed)
    except CompareError as exc:
        return [], f"no paired comparison: {exc}"
    for row, run in zip(rows, runs, strict=True):
        row["label"] = run.label
    n, boot = rows[0]["n"], (rows[1]["bootstrap"] if len(rows) > 1 else None)
    note = f"paired with {runs[0].label} on the {n:,} questions every run finished"
    if boot:
        note += f" (percentile bootstrap, {boot['resamples']:,} resamples, seed {boot['seed']})"
    return rows, note


def _figures(runs, leaderboard, paired, diagnosed, audits, labels) -> list[Figure]:
    memtoken = [{"run": r["label"], "esm": r["esm"], "memtoken": r["memtoken"]} for r in leaderboard]
    figures = [
        _leaderboard_figure(leaderboard),
        figure("esm-by-type", vc.esm_by_type(_by_type(runs, _esm), labels)),
        figure("value-field", vc.value_vs_field(_by_type(runs, _f1s), labels)),
        figure("esm-memtoken", vc.esm_vs_memtoken(memtoken, labels)),
    ]
    if audits:
        figures.append(_audit_figure(audits))
    figures += _diagnosis_figures(diagnosed)
    if len(paired) > 1:
        figures.append(_paired_figure(paired))
    return figures


def _by_type(runs: list[VehicleRun], numbers: Any) -> list[dict[str, Any]]:
    """One row per run and reasoning type, with ``numbers(block)`` of its metrics."""
    return [
        {"run": run.label, "type": name, **numbers(block)}
        for run in runs
        for name, block in run.metrics["by_reasoning_type"].items()
    ]


def _esm(block: dict[str, Any]) -> dict[str, Any]:
    return {"esm": block["exact_match"], "n": block["n"]}


def _f1s(block: dict[str, Any]) -> dict[str, Any]:
    return {"field_f1": block["field"]["f1"], "value_f1": block["value"]["f1"]}


def _audit_figure(audits: list[Audit]) -> Figure:
    return figure("audit-recall", vc.recall_curves(curve_rows(audits)))


def _leaderboard_figure(rows: list[dict[str, Any]]) -> Figure:
    points = [
        {"label": r["label"], "value": r["esm"], "low": r["esm_low"], "high": r["esm_high"]} for r in rows
    ]
    title = "ESM (share of episodes exactly right), 95% bootstrap interval"
    return figure("leaderboard-esm", interval_chart(points, title, False, [0, 1]))


def _diagnosis_figures(diagnosed: dict[str, RunEpisodes]) -> list[Figure]:
    overall, by_type = [], []
    for label, found in diagnosed.items():
        overall += _label_rows({"run": label}, found.diagnosis.overall)
        for name, block in found.diagnosis.by_reasoning_type.items():
            by_type += _label_rows({"run": label, "group": f"{label} · {name}"}, block)
    title = "share of episodes that failed, by first broken link"
    return [
        figure("diagnosis", vc.diagnosis_bars(overall, "run", title)),
        figure("diagnosis-by-type", vc.diagnosis_bars(by_type, "group", title)),
    ]


def _label_rows(base: dict[str, Any], block: Any) -> list[dict[str, Any]]:
    """Each label's share of the episodes (a group without failures keeps one empty bar)."""
    episodes = block.episodes or 1
    rows = [
        {**base, "label": name, "rank": rank, "share": count / episodes, "count": count}
        for rank, name in enumerate(LABELS)
        if (count := block.counts.get(name, 0))
    ]
    return rows or [{**base, "label": LABELS[0], "rank": 0, "share": 0.0, "count": 0}]


def _paired_figure(paired: list[dict[str, Any]]) -> Figure:
    points = [
        {"label": r["label"], "value": r["delta_esm"], "low": r["ci_low"], "high": r["ci_high"]}
        for r in paired[1:]
    ]
    title = f"ΔESM against {paired[0]['label']} (paired by question), 95% bootstrap interval"
    return figure("paired", interval_chart(points, title, True, None))


def _diagnosis_row(label: str, found: RunEpisodes) -> dict[str, Any]:
    overall = found.diagnosis.overall
    return {"label": label, "episodes": overall.episodes, "failures": overall.failures,
            "counts": overall.counts, "source": found.source}  # fmt: skip


def _browser(diagnosed: dict[str, RunEpisodes]) -> dict[str, Any]:
    questions: dict[str, Any] = {}
    for found in diagnosed.values():
        questions.update(found.questions)
    types = list(dict.fromkeys(q["type"] for q in questions.values()))
    return {
        "runs": list(diagnosed),
        "labels": [EXACT, *LABELS],
        "types": types,
        "scenarios": sorted({q["scenario"] for q in questions.values()}),
        "questions": pack(questions),
        "episodes": {label: pack(found.episodes) for label, found in diagnosed.items()},
        "counts": {label: len(found.episodes) for label, found in diagnosed.items()},
    }
