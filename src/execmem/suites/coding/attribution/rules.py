"""The attribution rules, in their order (docs/attribution.md, "The labels, in order").

``attribute`` takes everything one pair's rules look at (``PairInput``: the three rates, the record
and the system's ranking, the frozen history ids, the target's anchors and statement, the pair's
unresolved trajectories) and returns its label with the evidence that gave it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from execmem.suites.coding.attribution.anchors import Anchors, shared_anchors
from execmem.suites.coding.attribution.lexicons import RULES_VERSION
from execmem.suites.coding.attribution.reading import opened_paths, read_hits, record_cues
from execmem.suites.coding.attribution.record_form import FormThresholds, RecordForm, record_form

LABELS = ("solver_bound", "ranking_miss", "form_degradation", "use_failure", "other")
SUBTYPES = (
    "instruction_pollution",
    "tool_shell_noise",
    "fix_replaced_by_symptom",
    "fix_missing",
    "over_generalised_fix",
)
Steps = Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class PairInput:
    target: str
    statement: str
    anchors: Anchors
    r_off: float
    r_frozen: float
    r_system: float
    record: str | None
    frozen_ids: frozenset[str] = frozenset()
    ranking: Sequence[Mapping[str, Any]] | None = None
    frozen_text: str | None = None
    unresolved: Mapping[int, Steps] = field(default_factory=dict)
    """The system run's trajectory steps of each unresolved seed."""
    off_steps: Sequence[Steps] = ()
    thresholds: FormThresholds = field(default_factory=FormThresholds)

    @property
    def failed(self) -> bool:
        return self.r_system < max(self.r_off, self.r_frozen)


@dataclass(frozen=True)
class Attribution:
    failed: bool
    label: str | None
    subtype: str | None = None
    reason: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"failed": self.failed, "label": self.label, "subtype": self.subtype,
                "reason": self.reason, "evidence": self.evidence, "rules": RULES_VERSION}  # fmt: skip


def attribute(pair: PairInput) -> Attribution:
    """The first broken link of a failed pair (label None for a pair that did not fail)."""
    evidence = base_evidence(pair)
    if not pair.failed:
        return Attribution(False, None, evidence=evidence)
    if pair.r_frozen <= pair.r_system:
        return Attribution(True, "solver_bound", evidence=evidence)
    miss = ranking_miss(pair)
    evidence["ranking"] = miss if miss is not None else ranking_state(pair)
    if miss is not None:
        return Attribution(True, "ranking_miss", evidence=evidence)
    if not pair.record:
        return Attribution(True, "other", reason="no record injected", evidence=evidence)
    subtype = form_subtype(record_form(pair.record, pair.thresholds), pair.anchors, pair.record)
    if subtype is not None:
        return Attribution(True, "form_degradation", subtype, evidence=evidence)
    hits = reading_evidence(pair)
    evidence["read"] = hits
    if hits["hits"]:
        return Attribution(True, "use_failure", evidence=evidence)
    return Attribution(True, "other", reason="no rule matched", evidence=evidence)


def form_subtype(form: RecordForm, anchors: Anchors, text: str) -> str | None:
    """Rules 3a-3e: the first form subtype that holds, else None (a clean record)."""
    found = form.subtype()
    if found is None and not shared_anchors(text, anchors).any:
        return "over_generalised_fix"
    return found


def is_clean(record: str | None, anchors: Anchors, thresholds: FormThresholds | None = None) -> bool:
    """A record was injected and no form rule holds (the content predictor's "gain")."""
    return bool(record) and form_subtype(record_form(record, thresholds), anchors, record) is None


def base_evidence(pair: PairInput) -> dict[str, Any]:
    """What every pair's evidence holds: the rates, the record's form and anchors, the frozen's."""
    evidence: dict[str, Any] = {
        "rates": {"off": pair.r_off, "frozen": pair.r_frozen, "system": pair.r_system},
        "anchor_source": pair.anchors.source,
        "record": None,
    }
    if pair.record:
        evidence["record"] = {
            **record_form(pair.record, pair.thresholds).to_dict(),
            "anchors": shared_anchors(pair.record, pair.anchors).to_dict(),
        }
    if pair.frozen_text:
        evidence["frozen"] = {
            "lines": len(pair.frozen_text.splitlines()),
            "anchors": shared_anchors(pair.frozen_text, pair.anchors).to_dict(),
        }
    return evidence


def ranking_miss(pair: PairInput) -> dict[str, Any] | None:
    """The best-ranked record from the frozen history that was not injected, when no injected
    record comes from it; None otherwise (or when the ranking is unknown)."""
    if not pair.ranking or not pair.frozen_ids:
        return None
    from_frozen = [r for r in pair.ranking if pair.frozen_ids & set(r.get("history_ids") or [])]
    if not from_frozen or any(r.get("injected") for r in from_frozen):
        return None
    hit = min(from_frozen, key=lambda r: r.get("rank", 0))
    injected = [r.get("rank") for r in pair.ranking if r.get("injected")]
    return {"state": "miss", "rank": hit.get("rank"), "score": hit.get("score"),
            "history_ids": list(hit.get("history_ids") or []), "injected_ranks": injected}  # fmt: skip


def ranking_state(pair: PairInput) -> dict[str, Any]:
    if not pair.frozen_ids:
        return {"state": "frozen history unknown"}
    if not pair.ranking or not any(r.get("history_ids") for r in pair.ranking):
        return {"state": "unknown"}
    hit = any(pair.frozen_ids & set(r.get("history_ids") or []) for r in pair.ranking if r.get("injected"))
    return {"state": "frozen history injected" if hit else "frozen history not ranked"}


def reading_evidence(pair: PairInput) -> dict[str, Any]:
    cues = record_cues(pair.record or "", pair.statement)
    hits = [h for seed, steps in sorted(pair.unresolved.items()) for h in read_hits(cues, seed, steps)]
    off = set().union(*(opened_paths(cues, steps) for steps in pair.off_steps)) if pair.off_steps else set()
    opened = {h.matched for h in hits if h.kind == "opened"}
    return {"hits": [h.to_dict() for h in hits[:20]], "also_off": sorted(opened & off)}
