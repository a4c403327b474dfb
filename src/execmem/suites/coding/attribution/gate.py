"""The gating rule (docs/attribution.md, "Headroom"): inject the record only when the solver's
memory-off rate is below a threshold and the record names a directory or identifier anchor of the
target. An oracle-assisted rule (it uses the off outcome, and the gold anchors unless the anchors
come from the problem statement)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from execmem.suites.coding.attribution.anchors import Anchors, shared_anchors

DEFAULT_OFF_BELOW = 0.5


@dataclass(frozen=True)
class GateDecision:
    inject: bool
    off_rate: float
    anchors: dict[str, Any]
    """The target anchors the record names (empty without a record)."""


def gate(
    record: str | None, off_rate: float, anchors: Anchors, off_below: float = DEFAULT_OFF_BELOW
) -> GateDecision:
    if not record:
        return GateDecision(False, off_rate, {})
    shared = shared_anchors(record, anchors)
    return GateDecision(off_rate < off_below and shared.any, off_rate, shared.to_dict())
