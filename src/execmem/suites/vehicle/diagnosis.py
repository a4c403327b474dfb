"""The first broken link of a failed episode: the rules of docs/diagnosis.md, as pure functions.

The chain from the history to the car: the episode ran (infrastructure), the agent acted, the
evidence was stored, memory delivered it, the agent used it, called the right tools, set the right
values, and nothing else. :func:`first_broken_link` names the first link that broke, from facts
the caller gathers (what was stored and shown: ``delivery``; what the car ended up with:
:func:`compare_states`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from execmem.suites.vehicle.calls import ToolCall
from execmem.suites.vehicle.diff import values_equal
from execmem.suites.vehicle.evidence import Value
from execmem.suites.vehicle.execution import MISSING, changed_paths, run_calls
from execmem.suites.vehicle.world import TOOLS, initial_module_flat

LABELS = (
    "infrastructure_error",
    "no_action",
    "not_stored",
    "not_retrieved",
    "retrieved_not_used",
    "wrong_tool_or_module",
    "wrong_value",
    "extra_action",
)


@dataclass(frozen=True)
class FieldChange:
    """One field the gold calls or the agent changed. ``gold``/``agent`` are ``MISSING`` where that
    side leaves the field as it was (or removes it); ``initial`` where a fresh car lacks it."""

    initial: Any
    gold: Any
    agent: Any
    status: str  # correct, wrong, missed, extra


def compare_states(gold_calls: Sequence[ToolCall], calls: Sequence[ToolCall]) -> dict[str, FieldChange]:
    """Every field either side changes on a fresh car, with its status as the scorer sees it."""
    ref = changed_paths(run_calls(gold_calls)[0])
    pred = changed_paths(run_calls(calls)[0])
    changes = {}
    for path in sorted(ref.keys() | pred.keys()):
        gold, agent = ref.get(path, MISSING), pred.get(path, MISSING)
        initial = initial_module_flat(path.split(".", 1)[0]).get(path, MISSING)
        changes[path] = FieldChange(initial, gold, agent, _status(path, ref, pred))
    return changes


def _status(path: str, ref: Mapping[str, Any], pred: Mapping[str, Any]) -> str:
    if path not in ref:
        return "extra"
    if path not in pred:
        return "missed"
    gold, agent = ref[path], pred[path]
    same = (gold is MISSING) == (agent is MISSING) and (gold is MISSING or values_equal(gold, agent))
    return "correct" if same else "wrong"


def unused_values(shown: Sequence[Value], calls: Sequence[ToolCall]) -> list[Value]:
    """The shown memory values that none of the agent's call arguments carries."""
    used = [v for call in calls for v in call.args.values() if _plain(v)]
    return [value for value in shown if not any(values_equal(value, u) for u in used)]


def _plain(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, str | int | float)


def reached_the_car(calls: Sequence[ToolCall]) -> bool:
    """Whether any call names one of the car's tools. A run records only calls that reached the
    car; a hand-made or edited line may also list unknown tools, which never did."""
    return any(call.name in TOOLS for call in calls)


def missing_gold_tool(gold_calls: Sequence[ToolCall], calls: Sequence[ToolCall]) -> bool:
    """Whether a gold call's tool is one the agent never called."""
    return bool({c.name for c in gold_calls} - {c.name for c in calls})


@dataclass(frozen=True)
class EpisodeFacts:
    """What the rules look at for one episode (see docs/diagnosis.md)."""

    infra_error: bool = False
    acted: bool = True  # a car tool call reached the car
    stored: bool = True
    delivered: bool = True
    unused_shown_values: bool = False  # a memory value the agent was shown is in none of its calls
    missing_gold_tool: bool = False
    changes: Mapping[str, FieldChange] = field(default_factory=dict)

    def statuses(self) -> set[str]:
        return {change.status for change in self.changes.values()}


RULES: tuple[tuple[str, Callable[[EpisodeFacts], bool]], ...] = (
    ("infrastructure_error", lambda f: f.infra_error),
    ("no_action", lambda f: not f.acted),
    ("not_stored", lambda f: not f.stored),
    ("not_retrieved", lambda f: not f.delivered),
    ("retrieved_not_used", lambda f: f.unused_shown_values),
    ("wrong_tool_or_module", lambda f: "missed" in f.statuses() and f.missing_gold_tool),
    ("wrong_value", lambda f: bool({"missed", "wrong"} & f.statuses())),
    ("extra_action", lambda f: "extra" in f.statuses()),
)


def failed(facts: EpisodeFacts) -> bool:
    """An infrastructure error, or a final state that is not the gold one."""
    return facts.infra_error or bool(facts.statuses() - {"correct"})


def first_broken_link(facts: EpisodeFacts) -> str | None:
    """The label of a failed episode (the first rule that holds), None for an exact one."""
    if not failed(facts):
        return None
    return next(label for label, holds in RULES if holds(facts))
