"""The Layer A tables: per solver, resolved off / treatment / controls, paired effects and cost.

Built from ``compare.compare_runs``'s reports, in the ``report_tables`` shape:

* ``layer-a-resolved``: one row per solver: targets, seeds, the resolved rate of each condition, the
  paired difference treatment - off and control - off with its bootstrap 95% CI, and the targets
  gained and lost at N/N (resolved in every seed with the treatment but not off, and the reverse);
* ``layer-a-cost``: one row per solver and condition: mean input and output tokens and mean steps
  per episode (solver usage), episodes and suspect evaluations.
"""

from __future__ import annotations

from typing import Any

from execmem.runs.coding.compare import ROLES
from execmem.runs.report_tables import ReportTable
from execmem.suites.coding.conditions import CONTROLS


def _present(reports: list[dict[str, Any]]) -> list[str]:
    return [role for role in ROLES if any(role in r["conditions"] for r in reports)]


def _effect(report: dict[str, Any], comparison: str) -> dict[str, Any] | None:
    return next((e for e in report["effects"] if e["comparison"] == comparison), None)


def _ci(effect: dict[str, Any] | None) -> list[Any]:
    if effect is None:
        return [None, None]
    return [round(effect["estimate"], 4), f"[{effect['low']:+.3f}, {effect['high']:+.3f}]"]


def resolved_table(reports: list[dict[str, Any]]) -> ReportTable:
    roles = _present(reports)
    controls = [role for role in roles if role in CONTROLS]
    seeds = len(reports[0]["seeds"])
    columns = ["solver", "targets", "seeds", *(f"resolved {role}" for role in roles)]
    columns += ["Δ treatment - off", "95% CI"]
    for control in controls:
        columns += [f"Δ {control} - off", "95% CI"]
    columns += [f"gained at {seeds}/{seeds}", f"lost at {seeds}/{seeds}"]
    rows = []
    for report in reports:
        treatment = _effect(report, f"{report['treatment']} - off")
        row = [report["solver"], report["n_targets"], len(report["seeds"])]
        row += [_rate(report, role) for role in roles]
        row += _ci(treatment)
        for control in controls:
            row += _ci(_effect(report, f"{control} - off"))
        row += [treatment["gained_full"], treatment["lost_full"]]
        rows.append(row)
    return ReportTable(
        "layer-a-resolved", "Layer A: resolved rate per solver", columns, rows, _notes(reports)
    )


def _rate(report: dict[str, Any], role: str) -> float | None:
    summary = report["conditions"].get(role)
    return None if summary is None else round(summary["resolved_rate"], 4)


def _notes(reports: list[dict[str, Any]]) -> list[str]:
    boot = reports[0]["bootstrap"]
    notes = [
        "Resolved: mean over targets of the share of seeds whose declared tests pass; Δ: mean over "
        f"targets of (memory - off); 95% CI: percentile bootstrap over targets, {boot['n_resamples']} "
        f"resamples, seed {boot['seed']}.",
        "The treatment is each solver's record or frozen run; the controls hold text of the same length.",
    ]
    notes += sorted({w for report in reports for w in report["warnings"]})
    return notes


def cost_table(reports: list[dict[str, Any]]) -> ReportTable:
    columns = ["solver", "memory", "episodes", "mean input tokens", "mean output tokens", "mean steps",
               "suspect evaluations"]  # fmt: skip
    rows = [
        [report["solver"], role, c["episodes"], round(c["mean_input_tokens"], 1),
         round(c["mean_output_tokens"], 1), round(c["mean_steps"], 2), c["evaluation_suspect"]]
        for report in reports
        for role, c in report["conditions"].items()
    ]  # fmt: skip
    notes = ["Per episode, the solver's own usage (not the memory side's)."]
    return ReportTable("layer-a-cost", "Layer A: solver cost per condition", columns, rows, notes)


def layer_a_tables(reports: list[dict[str, Any]]) -> list[ReportTable]:
    return [resolved_table(reports), cost_table(reports)]
