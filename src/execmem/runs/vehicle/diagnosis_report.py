"""The shape of ``diagnosis.json`` (docs/diagnosis.md): pydantic models, and the label counts.

Readers (the HTML report) validate the file with :class:`DiagnosisReport`; ``FORMAT`` changes only
with an incompatible change of these models.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from execmem.suites.vehicle.dataset import REASONING_TYPES
from execmem.suites.vehicle.diagnosis import LABELS

FORMAT = "execmem-vehicle-diagnosis/1"
Label = Literal[LABELS]  # the labels of suites.vehicle.diagnosis, in rule order
Scalar = str | int | float


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EvidenceLine(_Model):
    line: int
    time: str
    speaker: str
    text: str


class EvidenceEvent(_Model):
    when: str
    text: str
    lines: list[EvidenceLine]


class MemoryCall(_Model):
    name: str
    arguments: str
    result: str


class MemoryShown(_Model):
    """What memory returned to the agent: its prompt memory (or a reference to it) and tool results."""

    prompt: str | None = None
    prompt_ref: str | None = None
    prompt_chars: int | None = None
    prompt_lines: list[str] = []
    tool_calls: list[MemoryCall] = []


class CarCall(_Model):
    name: str
    args: dict[str, Any]
    success: bool
    message: str


class FieldDiff(_Model):
    initial: Any = None
    gold: Any = None
    agent: Any = None
    status: Literal["correct", "wrong", "missed", "extra"]


class EpisodeDiagnosis(_Model):
    id: str
    scenario: int
    index: int
    trial: int
    reasoning_type: str
    label: Label
    query: str
    evidence: list[EvidenceEvent]
    memory_values: list[Scalar]
    values_shown: list[Scalar]
    events_shown: list[int]
    delivered: bool | None
    stored: bool | None
    memory: MemoryShown
    calls: list[CarCall]
    state_diff: dict[str, FieldDiff]
    end_reason: str | None = None
    steps: int | None = None
    error_kind: str | None = None
    error: str | None = None


class LabelBlock(_Model):
    episodes: int
    failures: int
    counts: dict[str, int]
    shares: dict[str, float]


class DiagnosisReport(_Model):
    format: Literal["execmem-vehicle-diagnosis/1"] = FORMAT
    run: str
    model: str
    memory: str
    memory_kind: Literal["none", "gold", "prompt", "key-value", "verbatim-system", "system"]
    stored_basis: Literal["known", "estimated"]
    labels: list[str] = list(LABELS)
    overall: LabelBlock
    by_reasoning_type: dict[str, LabelBlock]
    episodes: list[EpisodeDiagnosis]


def label_block(episodes: int, labels: Iterable[str]) -> LabelBlock:
    """Counts of every label (0 included) and their shares of the failures."""
    counts = dict.fromkeys(LABELS, 0)
    for label in labels:
        counts[label] += 1
    failures = sum(counts.values())
    shares = {label: count / failures if failures else 0.0 for label, count in counts.items()}
    return LabelBlock(episodes=episodes, failures=failures, counts=counts, shares=shares)


def summary_blocks(
    types: dict[str, str], failures: list[EpisodeDiagnosis]
) -> tuple[LabelBlock, dict[str, LabelBlock]]:
    """``overall`` and ``by_reasoning_type`` from every episode's type (``types``: id -> type)."""
    present = set(types.values())
    order = [t for t in REASONING_TYPES if t in present] + sorted(present - set(REASONING_TYPES))
    overall = label_block(len(types), (f.label for f in failures))
    by_type = {
        name: label_block(
            sum(t == name for t in types.values()), (f.label for f in failures if f.reasoning_type == name)
        )
        for name in order
    }
    return overall, by_type
