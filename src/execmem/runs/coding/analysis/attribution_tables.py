"""The attribution tables: label shares per system, per solver and overall, and one row per
failed pair with the evidence that gave its label (docs/attribution.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from execmem.runs.coding.analysis.effects import pct
from execmem.runs.coding.analysis.pairs import Pair
from execmem.runs.report_tables import ReportTable
from execmem.suites.coding.attribution.rules import LABELS, SUBTYPES

LABEL_NAMES = {
    "solver_bound": "solver-bound", "ranking_miss": "ranking miss", "form_degradation": "form degradation",
    "use_failure": "use failure", "other": "other",
}  # fmt: skip
SUBTYPE_NAMES = {
    "instruction_pollution": "instruction pollution", "tool_shell_noise": "tool/shell noise",
    "fix_replaced_by_symptom": "fix replaced by a symptom", "fix_missing": "fix field missing",
    "over_generalised_fix": "over-generalised fix",
}  # fmt: skip


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 1) if values else None


def _share_row(by: str, group: str, pairs: list[Pair]) -> list:
    failed = [p for p in pairs if p.result.failed]
    labels = Counter(p.result.label for p in failed)
    form = [p for p in failed if p.result.label == "form_degradation"]
    subtypes = Counter(p.result.subtype for p in form)
    lines = [p.result.evidence["record"]["lines"] for p in failed if p.result.evidence.get("record")]
    frozen = [p.result.evidence["frozen"]["lines"] for p in failed if p.result.evidence.get("frozen")]
    return [by, group, len(pairs), len(failed), *(pct(labels[k], len(failed)) for k in LABELS),
            *(pct(subtypes[k], len(form)) for k in SUBTYPES), _mean(lines), _mean(frozen)]  # fmt: skip


def shares_table(pairs: list[Pair]) -> ReportTable:
    columns = [
        "by",
        "group",
        "pairs",
        "failed",
        *(f"{LABEL_NAMES[k]} %" for k in LABELS),
        *(f"{SUBTYPE_NAMES[k]} (% of form)" for k in SUBTYPES),
        "record lines",
        "frozen lines",
    ]
    rows = [_share_row(by, group, chosen) for by, group, chosen in _groups(pairs)]
    notes = [
        "A pair (target × solver × system) failed when the system's rate is below max(off, frozen); each "
        "failed pair gets the first label whose rule holds (docs/attribution.md). Label shares: % of failed "
        "pairs; subtypes: % of the form-degraded ones.",
        "Record and frozen lines: mean lines of the injected and of the frozen record, over failed pairs.",
        "Each system at its smallest top_k (the other runs feed the dose curve).",
    ]
    return ReportTable(
        "attribution-shares", "Failure attribution: the first broken link", columns, rows, notes
    )


def labels_table(pairs: list[Pair]) -> ReportTable:
    """The label shares of ``shares_table`` one row per group and label (form degradation by its
    subtypes), as the stacked chart draws them."""
    rows = []
    for by, group, chosen in _groups(pairs):
        failed = [p for p in chosen if p.result.failed]
        names = Counter(_label_name(p) for p in failed)
        rows += [
            [by, group, name, names[name], pct(names[name], len(failed))] for name in _LONG if names[name]
        ]
    chart = {"kind": "stacked", "x": "group", "y": "share of failed pairs %", "color": "label",
             "answers": "Where does each record break: ranking, form, use, or the solver?"}  # fmt: skip
    notes = ["Failed pairs by their label; form degradation split by its subtypes."]
    columns = ["by", "group", "label", "failed pairs", "share of failed pairs %"]
    return ReportTable("attribution-labels", "Failure attribution by label", columns, rows, notes, chart)


_LONG = [
    *(LABEL_NAMES[k] for k in LABELS if k != "form_degradation"),
    *(f"form: {SUBTYPE_NAMES[k]}" for k in SUBTYPES),
]


def _label_name(pair: Pair) -> str:
    if pair.result.label == "form_degradation":
        return f"form: {SUBTYPE_NAMES[pair.result.subtype or '']}"
    return LABEL_NAMES[pair.result.label or "other"]


def _groups(pairs: list[Pair]) -> list[tuple[str, str, list[Pair]]]:
    """(by, group, pairs) per system, per solver, and all."""
    found = []
    keys: list[tuple[str, Callable[[Pair], str]]] = [
        ("system", lambda p: p.system.system),
        ("solver", lambda p: p.solver),
    ]
    for by, key in keys:
        for value in dict.fromkeys(key(p) for p in pairs):
            found.append((by, value, [p for p in pairs if key(p) == value]))
    return found + ([("all", "all", pairs)] if pairs else [])


def pairs_table(pairs: list[Pair]) -> ReportTable:
    columns = ["target", "solver", "system", "off", "frozen", "system rate", "label", "subtype or reason",
               "evidence"]  # fmt: skip
    rows = [
        [
            p.target,
            p.solver,
            p.system.system,
            p.inputs.r_off,
            p.inputs.r_frozen,
            p.inputs.r_system,
            LABEL_NAMES[p.result.label],
            SUBTYPE_NAMES.get(p.result.subtype or "", p.result.reason),
            evidence_summary(p),
        ]
        for p in pairs
        if p.result.failed
    ]
    notes = ["Every failed pair; the full evidence of each pair is in attribution.json."]
    return ReportTable("attribution-pairs", "Failure attribution: the failed pairs", columns, rows, notes)


def evidence_summary(pair: Pair) -> str:
    """One line of what gave the label."""
    evidence, label = pair.result.evidence, pair.result.label
    if label == "solver_bound":
        return f"frozen {pair.inputs.r_frozen:g} <= system {pair.inputs.r_system:g}"
    if label == "ranking_miss":
        ranking = evidence["ranking"]
        return f"frozen history at rank {ranking['rank']}, injected ranks {ranking['injected_ranks']}"
    record = evidence.get("record") or {}
    anchors = record.get("anchors") or {}
    named = ", ".join(f"{k} {', '.join(v[:3])}" for k, v in anchors.items() if v) or "no target anchor"
    counts = record.get("counts", {})
    size = (
        f"{record.get('lines', 0)} lines (flagged {counts.get('flagged', 0)}, "
        f"noise {counts.get('noise', 0)}, "
        f"changes {counts.get('changes', 0)}, symptoms {counts.get('symptoms', 0)}); {named}"
    )
    hits = (evidence.get("read") or {}).get("hits") or []
    if hits:
        size += "; read: " + ", ".join(f"seed {h['seed']} {h['kind']} {h['matched'][:60]}" for h in hits[:3])
    return size if record else "no record injected"
