"""The benchmark's scores for one question, exactly as defined.

State scores. Run the gold calls on one fresh car (ref) and the predicted calls
on another (pred). C is the set of paths where ref differs from the initial
state. A path of C that pred changed is a TP, and "correct" when pred's value
equals ref's (an added path must be added, a removed one removed); a path of C
that pred left alone is a miss; a path outside C that pred changed is an FP.
Field: recall TP/|C|, precision TP/(TP+FP). Value: recall correct/|C|,
precision correct/(TP+FP). With |C| = 0 (the gold calls change nothing), as the
reference computes it: recall and precision are both 1 when the prediction
changed nothing (FP = 0), else both 0. Exact match: no miss, no FP, every TP
correct.

Tool-call score. Calls are keys (name, sorted-JSON args); a predicted key found
among the unused gold keys is a TP.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from execmem.suites.vehicle.calls import ToolCall
from execmem.suites.vehicle.diff import values_equal
from execmem.suites.vehicle.execution import MISSING, changed_paths, run_calls


@dataclass(frozen=True)
class PRF:
    precision: float
    recall: float
    f1: float

    @classmethod
    def of(cls, precision: float, recall: float) -> PRF:
        total = precision + recall
        return cls(precision, recall, 2 * precision * recall / total if total else 0.0)


@dataclass(frozen=True)
class StateCounts:
    should_change: int
    tp: int
    fp: int
    correct: int

    @property
    def missed(self) -> int:
        return self.should_change - self.tp


@dataclass(frozen=True)
class Score:
    exact_match: bool
    field: PRF
    value: PRF
    tool: PRF
    counts: StateCounts

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["counts"]["missed"] = self.counts.missed
        return out


def reference_changes(gold_calls: Sequence[ToolCall]) -> dict[str, Any]:
    """What the gold calls change on a fresh car (failures swallowed)."""
    world, _ = run_calls(gold_calls)
    return changed_paths(world)


def score_prediction(
    gold_calls: Sequence[ToolCall], predicted: Sequence[ToolCall], ref: dict[str, Any] | None = None
) -> Score:
    """Score predicted calls against the gold calls; ``ref`` may be a cached reference_changes."""
    if ref is None:
        ref = reference_changes(gold_calls)
    world, _ = run_calls(predicted)
    counts = count_state(ref, changed_paths(world))
    return Score(
        exact_match=counts.missed == 0 and counts.fp == 0 and counts.correct == counts.tp,
        field=_state_prf(counts, counts.tp),
        value=_state_prf(counts, counts.correct),
        tool=tool_score(gold_calls, predicted),
        counts=counts,
    )


def count_state(ref: dict[str, Any], pred: dict[str, Any]) -> StateCounts:
    tp = correct = fp = 0
    for path, value in pred.items():
        if path not in ref:
            fp += 1
            continue
        tp += 1
        expected = ref[path]
        if (value is MISSING) == (expected is MISSING) and (
            value is MISSING or values_equal(value, expected)
        ):
            correct += 1
    return StateCounts(should_change=len(ref), tp=tp, fp=fp, correct=correct)


def _state_prf(counts: StateCounts, hits: int) -> PRF:
    changed = counts.tp + counts.fp
    if counts.should_change == 0:  # every change is an FP here: all or nothing
        untouched = 1.0 if counts.fp == 0 else 0.0
        return PRF.of(untouched, untouched)
    return PRF.of(hits / changed if changed else 0.0, hits / counts.should_change)


def tool_score(gold_calls: Sequence[ToolCall], predicted: Sequence[ToolCall]) -> PRF:
    unused = Counter(call.key() for call in gold_calls)
    tp = 0
    for call in predicted:
        key = call.key()
        if unused[key] > 0:
            unused[key] -= 1
            tp += 1
    precision = tp / len(predicted) if predicted else 0.0
    recall = tp / len(gold_calls) if gold_calls else 0.0
    return PRF.of(precision, recall)
