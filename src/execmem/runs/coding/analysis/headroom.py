"""Headroom (docs/attribution.md, "Headroom"): effects split by the solver's memory-off rate, the
share of pairs at ceiling, how well headroom alone and record content alone predict the sign of the
effect, the gate on the existing runs, and how two solvers move on the same pairs."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from execmem.runs.coding.analysis.effects import pct
from execmem.runs.coding.analysis.pairs import Pair
from execmem.runs.report_tables import ReportTable
from execmem.suites.coding.attribution.gate import DEFAULT_OFF_BELOW, gate
from execmem.suites.coding.attribution.rules import is_clean

DEFAULT_HEADROOM_BELOW = 0.5


def _delta(p: Pair) -> float:
    return p.inputs.r_system - p.inputs.r_off


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def split_table(pairs: list[Pair]) -> ReportTable:
    columns = ["solver", "off resolved", "pairs", "share of pairs %", "mean Δ system − off", "improved %",
               "worsened %", "mean Δ frozen − off", "frozen worsened %"]  # fmt: skip
    rows = []
    for solver in ["all", *dict.fromkeys(p.solver for p in pairs)]:
        chosen = [p for p in pairs if solver in ("all", p.solver)]
        seeds = max((len(p.system.seeds) for p in chosen), default=0)
        for k in range(seeds + 1):
            bucket = [p for p in chosen if round(p.inputs.r_off * seeds) == k]
            frozen = [p.inputs.r_frozen - p.inputs.r_off for p in bucket]
            rows.append(
                [
                    solver,
                    f"{k}/{seeds}",
                    len(bucket),
                    pct(len(bucket), len(chosen)),
                    _mean([_delta(p) for p in bucket]),
                    pct(sum(_delta(p) > 0 for p in bucket), len(bucket)),
                    pct(sum(_delta(p) < 0 for p in bucket), len(bucket)),
                    _mean(frozen),
                    pct(sum(d < 0 for d in frozen), len(bucket)),
                ]
            )
    ceiling = [p for p in pairs if p.inputs.r_off == 1]
    notes = [
        f"At ceiling (off resolves every seed): {len(ceiling)} of {len(pairs)} pairs "
        f"({pct(len(ceiling), len(pairs)) or 0}%); there memory can only lose: "
        f"{sum(_delta(p) < 0 for p in ceiling)} of them lost seeds with the system's record, "
        f"{sum(p.inputs.r_frozen < 1 for p in ceiling)} with the frozen record.",
        "Pairs: target × solver × system, each system at its smallest top_k.",
    ]
    chart = {"kind": "bars", "x": "off resolved", "y": "mean Δ system − off", "color": "solver",
             "answers": "Where the solver succeeds without memory, can a record only lose?"}  # fmt: skip
    return ReportTable(
        "headroom-split", "Headroom: effects by the solver's memory-off rate", columns, rows, notes, chart
    )


def predictors_table(
    pairs: list[Pair], headroom_below: float = DEFAULT_HEADROOM_BELOW, off_below: float = DEFAULT_OFF_BELOW
) -> ReportTable:
    moved = [p for p in pairs if _delta(p) != 0]
    rules: list[tuple[str, Callable[[Pair], bool]]] = [
        (f"headroom alone (gain when off < {headroom_below:g})", lambda p: p.inputs.r_off < headroom_below),
        ("record content alone (gain when the record is clean)",
         lambda p: is_clean(p.inputs.record, p.inputs.anchors, p.inputs.thresholds)),
    ]  # fmt: skip
    columns = ["rule", "pairs", "right", "right %", "improved %", "worsened %"]
    rows = []
    for name, predicts_gain in rules:
        right = sum(predicts_gain(p) == (_delta(p) > 0) for p in moved)
        rows.append([name, len(moved), right, pct(right, len(moved)), None, None])
    passing = [p for p in pairs if gate(p.inputs.record, p.inputs.r_off, p.inputs.anchors, off_below).inject]
    rows.append([f"gate (off < {off_below:g} and an anchor): pairs it injects", len(passing), None, None,
                 pct(sum(_delta(p) > 0 for p in passing), len(passing)),
                 pct(sum(_delta(p) < 0 for p in passing), len(passing))])  # fmt: skip
    notes = [
        "The two predictors are scored on the pairs whose rate moved (Δ system − off ≠ 0): right % is the "
        "share whose sign they predict. A record is clean when no form rule holds (docs/attribution.md).",
        "The gate row: the pairs the gate would inject, on the existing Layer B runs, and how they moved.",
    ]
    return ReportTable(
        "headroom-predictors", "Headroom: what predicts the sign of the effect", columns, rows, notes
    )


def solvers_table(pairs: list[Pair]) -> ReportTable:
    """For each two solvers, the (target, system) pairs both ran, and how they moved."""
    by_solver: dict[str, dict[tuple[str, str], Pair]] = {}
    for p in pairs:
        by_solver.setdefault(p.solver, {})[(p.target, p.system.system)] = p
    columns = ["solver a", "solver b", "pairs", "moved for both", "opposite directions",
               "weaker gains, stronger loses"]  # fmt: skip
    rows = []
    for a, b in combinations(by_solver, 2):
        common = sorted(by_solver[a].keys() & by_solver[b].keys())
        both = [(by_solver[a][k], by_solver[b][k]) for k in common]
        if not both:
            continue
        moved = [(x, y) for x, y in both if _delta(x) and _delta(y)]
        opposite = [(x, y) for x, y in moved if (_delta(x) > 0) != (_delta(y) > 0)]
        weaker = (
            a if _mean([x.inputs.r_off for x, _ in both]) <= _mean([y.inputs.r_off for _, y in both]) else b
        )
        telling = sum((_delta(x) > 0) == (weaker == a) for x, _ in opposite)
        rows.append([a, b, len(both), len(moved), len(opposite), telling])
    notes = ["The weaker solver is the one with the lower mean memory-off rate on the shared pairs."]
    return ReportTable("headroom-solvers", "Headroom: two solvers on the same pairs", columns, rows, notes)
