"""The memory conditions of a coding run: what the one memory slot holds for each target.

| condition    | the slot holds |
|--------------|----------------|
| ``off``        | nothing (no section) |
| ``record``     | the repository's earlier records (``records``) |
| ``frozen``     | the target's frozen experience (``frozen``: a SIEVE output or any file of that format) |
| ``irrelevant`` | everyday sentences with no software content (``everyday``), as long as the treatment text |
| ``other-repo`` | another repository's records, as long as the treatment text |
| ``given``      | the target's text from a given-text file (``given``: strip arms, the gate, any text) |

The *treatment* is ``given`` when the run has a given-text file, else ``frozen`` when it has a
frozen file, else ``record``; the two controls
match the treatment text's length target by target, and a target without treatment text gets no
memory under any condition. A frozen text that names its target (instance id, issue number) is
refused: no target identifier reaches the slot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from execmem.suites.coding.everyday import corpus_sha256, everyday_memory
from execmem.suites.coding.frozen import FrozenRecord
from execmem.suites.coding.given import GivenText, shared_provenance
from execmem.suites.coding.history import identifier_leaks, target_view
from execmem.suites.coding.records import (
    InjectedMemory,
    RecordError,
    RecordPolicy,
    other_repo_memory,
    record_memory,
)
from execmem.suites.coding.tasks import CodingTask

Condition = Literal["off", "record", "frozen", "irrelevant", "other-repo", "given"]
CONDITIONS: tuple[str, ...] = get_args(Condition)
TREATMENTS = ("record", "frozen", "given")
CONTROLS = ("irrelevant", "other-repo")
_CONTROL_RULES = {
    "irrelevant": "everyday sentences with no software content (the shipped corpus), in an order "
    "fixed by sha256(target id, sentence number), joined by spaces, repeated as needed, cut to the "
    "treatment text's length",
    "other-repo": "another repository's records (newest first, repeated as needed), repository chosen "
    "by sha256(target id, repo), cut to the treatment text's length",
}


@dataclass(frozen=True)
class MemorySource:
    """What a run's memory is made from: the task file's records, a frozen file, a given-text file."""

    tasks: Sequence[CodingTask]
    policy: RecordPolicy
    frozen: Mapping[str, FrozenRecord] | None = None
    frozen_sha256: str | None = None
    given: Mapping[str, GivenText] | None = None
    given_sha256: str | None = None

    @property
    def treatment(self) -> str:
        if self.given is not None:
            return "given"
        return "frozen" if self.frozen is not None else "record"


def check_condition(condition: str, source: MemorySource) -> None:
    """RecordError when the condition cannot be run from this source."""
    if condition not in CONDITIONS:
        raise RecordError(f"unknown memory condition {condition!r}; choose one of {', '.join(CONDITIONS)}")
    if condition == "frozen" and source.frozen is None:
        raise RecordError("memory frozen needs a frozen file (--frozen FILE)")
    if condition == "given" and source.given is None:
        raise RecordError("memory given needs a given-text file (--given FILE)")
    if condition in ("record", "frozen") and source.given is not None:
        raise RecordError(f"memory {condition} takes no given-text file (--given: given and the controls)")
    if condition == "record" and source.frozen is not None:
        raise RecordError("memory record takes no frozen file: its controls match the record text")


def frozen_memory(target: CodingTask, source: MemorySource) -> InjectedMemory:
    """The target's frozen record text (None when the file has none for it)."""
    record = (source.frozen or {}).get(target.instance_id)
    if record is None:
        return InjectedMemory(None)
    leaks = identifier_leaks(record.text, target_view(target))
    if leaks:
        raise RecordError(f"frozen record of {target.instance_id} names its target ({', '.join(leaks)})")
    return InjectedMemory(record.text, tuple(record.provenance.get("history_ids", [])))


def given_memory(target: CodingTask, source: MemorySource) -> InjectedMemory:
    """The target's given text (None when the file has none for it, or its text is null)."""
    given = (source.given or {}).get(target.instance_id)
    if given is None or not given.text:
        return InjectedMemory(None)
    leaks = identifier_leaks(given.text, target_view(target))
    if leaks:
        raise RecordError(f"given text of {target.instance_id} names its target ({', '.join(leaks)})")
    history = given.derived_from.get("history_ids") or []
    return InjectedMemory(given.text, tuple(str(h) for h in history))


def treatment_memory(target: CodingTask, source: MemorySource) -> InjectedMemory:
    if source.given is not None:
        return given_memory(target, source)
    if source.frozen is not None:
        return frozen_memory(target, source)
    return record_memory(target, source.tasks, source.policy)


def memory_for(condition: str, target: CodingTask, source: MemorySource) -> InjectedMemory:
    """The memory a target gets under ``condition``."""
    check_condition(condition, source)
    if condition == "off":
        return InjectedMemory(None)
    treatment = treatment_memory(target, source)
    if condition in TREATMENTS:
        return treatment
    size = len(treatment.text or "")
    if condition == "irrelevant":
        return everyday_memory(target.instance_id, size)
    return other_repo_memory(target, source.tasks, size)


def describe_memory(condition: str, source: MemorySource) -> dict[str, Any]:
    """The manifest's memory block: the condition, the treatment's policy, the control rule."""
    if condition == "off":
        return {"condition": "off", "injected": "nothing"}
    block: dict[str, Any] = {"condition": condition, **_treatment_policy(source)}
    if condition in CONTROLS:
        block["matches"] = source.treatment
        block["control_rule"] = _CONTROL_RULES[condition]
        if condition == "irrelevant":
            block["corpus_sha256"] = corpus_sha256()
    return block


def _treatment_policy(source: MemorySource) -> dict[str, Any]:
    if source.given is not None:
        return {
            "arm": next(iter(source.given.values())).arm,
            "given_file_sha256": source.given_sha256,
            "derived_from": shared_provenance(source.given.values()),
            "retrieval_trigger": "none: the text was written before the run (the given-text file)",
            "insertion_rule": "the target's given text, whole, in the <memory> slot of the first user "
            "message; nothing when it is null",
            "truncation_rule": "none",
        }
    if source.frozen is None:
        return source.policy.describe()
    return {
        "frozen_file_sha256": source.frozen_sha256,
        "retrieval_trigger": "once, at episode start",
        "insertion_rule": "the target's frozen record text, whole, in the <memory> slot of the first "
        "user message",
        "truncation_rule": "none",
    }
