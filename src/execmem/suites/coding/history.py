"""What a target may know of its past: its view without the answer, and its earlier same-repository tasks.

Leak safety is by type. :class:`TargetView` is all the solver, the distiller and a memory system get
of a target: its id, repository, problem statement and date, never its gold patch, test patch or test
results. :class:`HistoryItem` is what one earlier task left behind when the solver ran it: that task's
problem statement, the compressed trajectory, the solver's final patch and the outcome, never a gold
patch. The target's gold patch is read only by the patch-pattern screen (``screen``) and the evaluator.

The history pool of a target holds the earlier tasks of its repository (``created_at`` strictly
before), never the target itself nor a task that carries the target's identifiers (its instance id,
or a reference to its issue number) in its problem statement or patches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from execmem.suites.coding.tasks import CodingTask

_ISSUE_NUMBER = re.compile(r"-(\d+)$")


class TargetView(BaseModel):
    """A target as the solver, the distiller and memory systems see it (no gold, no tests)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    instance_id: str
    repo: str
    problem_statement: str
    created_at: datetime


class HistoryItem(BaseModel):
    """What the solver produced on one earlier task: nothing of the target, no gold patch."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    instance_id: str
    repo: str
    created_at: datetime
    problem_statement: str
    trajectory: str
    """The solver's trajectory on this task, compressed by ``agents.coding.trajectory``."""
    model_patch: str
    """The solver's final diff on this task."""
    resolved: bool
    end_reason: str
    seed: int

    def evidence(self) -> str:
        """The text an experience's claims must be anchored in: the trajectory and the patch."""
        return f"{self.trajectory}\n{self.model_patch}"


def target_view(task: CodingTask) -> TargetView:
    """The leak-safe view of a task as a target."""
    return TargetView(
        instance_id=task.instance_id,
        repo=task.repo,
        problem_statement=task.problem_statement,
        created_at=task.created_at,
    )


def issue_number(instance_id: str) -> str | None:
    """The trailing issue number of a SWE-bench style id (``owner__repo-1234`` -> ``1234``)."""
    match = _ISSUE_NUMBER.search(instance_id)
    return str(int(match.group(1))) if match else None


def _identifier_patterns(target: TargetView) -> list[tuple[str, re.Pattern[str]]]:
    patterns = [(target.instance_id, re.compile(re.escape(target.instance_id), re.IGNORECASE))]
    number = issue_number(target.instance_id)
    if number is not None:
        reference = rf"(?:#|\bissues?[ /#]+|\bpull/|\bPR ?#?){number}(?!\d)"
        patterns.append((f"issue {number}", re.compile(reference, re.IGNORECASE)))
    return patterns


def identifier_leaks(text: str, target: TargetView) -> list[str]:
    """The target identifiers found in ``text``: its instance id, references to its issue number
    (``#1234``, ``issue 1234``, ``issues/1234``, ``pull/1234``, ``PR 1234``)."""
    return [name for name, pattern in _identifier_patterns(target) if pattern.search(text)]


def carries_identifiers(task: CodingTask, target: TargetView) -> list[str]:
    """The target identifiers a (history) task carries in its id, statement or patches."""
    if task.instance_id == target.instance_id:
        return [target.instance_id]
    text = "\n".join((task.instance_id, task.problem_statement, task.patch, task.test_patch))
    return identifier_leaks(text, target)


def history_pool(
    target: TargetView, tasks: Sequence[CodingTask], eligible: Iterable[str] | None = None
) -> list[CodingTask]:
    """The target's earlier same-repository tasks, oldest first, without any that carry its
    identifiers; ``eligible`` (ids) restricts the candidates further (e.g. to validated tasks)."""
    allowed = None if eligible is None else set(eligible)
    pool = [
        task
        for task in tasks
        if task.repo == target.repo
        and task.created_at < target.created_at
        and (allowed is None or task.instance_id in allowed)
        and not carries_identifiers(task, target)
    ]
    return sorted(pool, key=lambda task: (task.created_at, task.instance_id))


def excluded_for_identifiers(target: TargetView, tasks: Sequence[CodingTask]) -> dict[str, list[str]]:
    """Earlier same-repository tasks left out of the pool because they carry target identifiers."""
    found = {}
    for task in tasks:
        if task.repo == target.repo and task.created_at < target.created_at:
            leaks = carries_identifiers(task, target)
            if leaks:
                found[task.instance_id] = leaks
    return found
