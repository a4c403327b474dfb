"""The Layer B table (solver x system: resolved off / on, Δ with CI, record size, tokens, steps)
and the dose curve (one system's runs at top_k 1..5 against off)."""

from __future__ import annotations

from execmem.runs.coding.analysis.effects import Bootstrap, effect, r4, record_size
from execmem.runs.coding.analysis.rates import mean_cost, shared_targets
from execmem.runs.coding.analysis.runset import AnalysisRun, SolverRuns
from execmem.runs.report_tables import ReportTable

_CI_NOTE = (
    "Δ: mean over targets of (on − off); 95% CI: percentile bootstrap over targets ({n} resamples, seed {s})."
)


def layer_b_table(groups: list[SolverRuns], boot: Bootstrap) -> ReportTable:
    columns = [
        "solver",
        "system",
        "top k",
        "targets",
        "seeds",
        "resolved off",
        "resolved on",
        "Δ on − off",
        "95% CI",
        "gained at N/N",
        "lost at N/N",
        "record lines",
        "record tokens",
        "input tokens off",
        "input tokens on",
        "output tokens off",
        "output tokens on",
        "steps off",
        "steps on",
    ]
    rows = []
    for group in groups:
        for run in sorted(group.systems, key=lambda r: (r.system, r.top_k)):
            if group.off is not None:
                rows.append(_layer_b_row(group, run, boot))
    notes = [
        "Resolved: mean over targets of the share of seeds whose declared tests pass, on the targets both "
        "runs finished; " + _CI_NOTE.format(n=boot.n_resamples, s=boot.seed),
        "Record lines and tokens: mean over the targets that got a record; tokens, steps: per episode, the "
        "solver's own usage (not the memory side's).",
    ]
    return ReportTable(
        "layer-b-resolved", "Layer B: memory systems against off, per solver", columns, rows, notes
    )


def _layer_b_row(group: SolverRuns, run: AnalysisRun, boot: Bootstrap) -> list:
    off = group.off
    targets = shared_targets(run, off)
    found = effect(run, off, targets, boot)
    lines, tokens = record_size(run, targets)
    row = [
        group.solver,
        run.system,
        run.top_k,
        len(targets),
        len(run.seeds),
        r4(found["off"]),
        r4(found["on"]),
        r4(found["delta"]),
        found["ci"],
        found["gained_full"],
        found["lost_full"],
        lines,
        tokens,
    ]
    for key in ("input_tokens", "output_tokens", "steps"):
        row += [round(mean_cost(off, targets, key), 1), round(mean_cost(run, targets, key), 1)]
    return row


def dose_table(groups: list[SolverRuns], boot: Bootstrap) -> ReportTable:
    """Per solver and system with runs at two or more top_k: one row per top_k, on the targets every
    one of those runs and off finished."""
    columns = ["solver", "system", "top k", "targets", "resolved off", "resolved on", "Δ on − off", "95% CI",
               "low", "high", "record lines", "record tokens"]  # fmt: skip
    rows = []
    for group in groups:
        for runs in _dose_series(group):
            targets = shared_targets(group.off, *runs)
            for run in runs:
                found = effect(run, group.off, targets, boot)
                lines, tokens = record_size(run, targets)
                rows.append(
                    [
                        group.solver,
                        run.system,
                        run.top_k,
                        len(targets),
                        r4(found["off"]),
                        r4(found["on"]),
                        r4(found["delta"]),
                        found["ci"],
                        r4(found["low"]),
                        r4(found["high"]),
                        lines,
                        tokens,
                    ]
                )
    notes = [
        "Records joined in rank order; every row of a system on the same targets. "
        + _CI_NOTE.format(n=boot.n_resamples, s=boot.seed)
    ]
    chart = {"kind": "line", "x": "top k", "y": "resolved on", "color": "system",
             "answers": "Does the resolved rate rise or fall as more records fill the slot?"}  # fmt: skip
    return ReportTable(
        "dose-curve", "Dose curve: resolved rate by records injected (top k)", columns, rows, notes, chart
    )


def _dose_series(group: SolverRuns) -> list[list[AnalysisRun]]:
    if group.off is None:
        return []
    by_system: dict[str, list[AnalysisRun]] = {}
    for run in group.systems:
        by_system.setdefault(run.system, []).append(run)
    return [
        sorted(runs, key=lambda r: r.top_k) for runs in by_system.values() if len({r.top_k for r in runs}) > 1
    ]
