"""Memory records for the coding suite: what a repository's earlier fixes can tell about a new bug.

The policies, all parameters of :class:`RecordPolicy` and recorded in a run's manifest:

* write policy: one record per earlier solved task (a task with a gold patch) of the repository:
  the first line of its issue, the files and functions its fix touched, its failing tests.
* retrieval trigger: once, at episode start (no retrieval during the episode).
* insertion rule: the ``n_records`` most recent same-repository records whose ``created_at`` is
  strictly before the target's, newest first, joined by blank lines, into the solver's memory slot.
* truncation rule: the joined text is cut to at most ``max_chars`` characters.

The other-repository control (``other_repo_memory``) has a given length, built the same way from a
different repository (chosen by a hash of the target's id, so it is fixed per target): its records,
newest first, repeated if they are too short, cut to that length. No model is involved. Which
condition injects what is ``conditions``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from execmem.suites.coding.gitrepo import changed_paths
from execmem.suites.coding.tasks import CodingTask

_DEFINITION = re.compile(r"^\s*(?:async\s+def|def|class)\s+([A-Za-z_]\w*)")
_ISSUE_CHARS = 200


class RecordError(ValueError):
    """The task set cannot give the memory condition asked for."""


class RecordPolicy(BaseModel):
    """How many records are inserted and how long the memory text may be."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n_records: int = Field(3, ge=1, description="most recent same-repository records inserted")
    max_chars: int = Field(2000, ge=1, description="cap on the inserted memory text, in characters")

    def describe(self) -> dict[str, Any]:
        """The record policy, as the manifest's memory block states it."""
        return {
            "write_policy": "one record per earlier solved task of the repository: first line of "
            "its issue, files and functions its fix touched, its FAIL_TO_PASS tests",
            "retrieval_trigger": "once, at episode start",
            "insertion_rule": f"the {self.n_records} most recent same-repository records with "
            "created_at before the target's, newest first, in the <memory> slot of the first user message",
            "truncation_rule": f"joined text cut to at most {self.max_chars} characters",
            **self.model_dump(),
        }


@dataclass(frozen=True)
class InjectedMemory:
    """The memory text of one target (None: nothing injected) and the tasks it was written from."""

    text: str | None
    sources: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "chars": len(self.text or ""), "sources": list(self.sources)}


def write_record(task: CodingTask) -> str:
    """The record one solved task leaves behind."""
    files = changed_paths(task.patch)
    functions = touched_functions(task.patch)
    issue = (task.problem_statement.strip().splitlines() or [""])[0][:_ISSUE_CHARS]
    lines = [
        f"- fix of {task.created_at.date().isoformat()}: {issue}",
        f"  files changed: {', '.join(files) or '-'}",
        f"  functions changed: {', '.join(functions) or '-'}",
        f"  failing tests: {', '.join(task.FAIL_TO_PASS)}",
    ]
    return "\n".join(lines)


def touched_functions(patch: str) -> list[str]:
    """Names of the functions/classes enclosing each changed line of a unified diff (best effort).

    Inside a hunk, the last ``def``/``class`` seen on a context or removed line encloses what
    follows; before any, git's hunk-header function context is used.
    """
    names: list[str] = []
    current = None
    for line in patch.splitlines():
        if line.startswith("@@"):
            current = _definition(line.split("@@", 2)[-1])
        elif line.startswith((" ", "-")) and not line.startswith("---"):
            current = _definition(line[1:]) or current
            if line.startswith("-") and current and current not in names:
                names.append(current)
        elif line.startswith("+") and not line.startswith("+++") and current and current not in names:
            names.append(current)
    return names


def _definition(text: str) -> str | None:
    match = _DEFINITION.match(text)
    return match.group(1) if match else None


def earlier_records(
    target: CodingTask, tasks: Sequence[CodingTask], repo: str | None = None
) -> list[CodingTask]:
    """Solved tasks of ``repo`` (default: the target's) created before the target, newest first."""
    repo = repo or target.repo
    earlier = [t for t in tasks if t.repo == repo and t.patch.strip() and t.created_at < target.created_at]
    return sorted(earlier, key=lambda t: (t.created_at, t.instance_id), reverse=True)


def record_memory(target: CodingTask, tasks: Sequence[CodingTask], policy: RecordPolicy) -> InjectedMemory:
    """The "record" condition: the target repository's most recent earlier records, capped."""
    chosen = earlier_records(target, tasks)[: policy.n_records]
    if not chosen:
        return InjectedMemory(None)
    text = "\n\n".join(write_record(t) for t in chosen)[: policy.max_chars]
    return InjectedMemory(text, tuple(t.instance_id for t in chosen))


def other_repo_memory(target: CodingTask, tasks: Sequence[CodingTask], size: int) -> InjectedMemory:
    """The other-repository control: ``size`` characters of another repository's records."""
    if size == 0:
        return InjectedMemory(None)
    donor = donor_repo(target, tasks)
    pool = sorted(
        (t for t in tasks if t.repo == donor and t.patch.strip()),
        key=lambda t: (t.created_at, t.instance_id),
        reverse=True,
    )
    used: list[str] = []
    text = ""
    while len(text) < size:
        task = pool[len(used) % len(pool)]
        text = f"{text}\n\n{write_record(task)}" if text else write_record(task)
        used.append(task.instance_id)
    return InjectedMemory(text[:size], tuple(dict.fromkeys(used)))


def donor_repo(target: CodingTask, tasks: Sequence[CodingTask]) -> str:
    """The other repository whose records serve as the target's other-repository control."""
    repos = sorted({t.repo for t in tasks if t.repo != target.repo and t.patch.strip()})
    if not repos:
        raise RecordError(
            f"{target.instance_id}: the other-repository control needs solved tasks from another repository"
        )
    return min(repos, key=lambda repo: hashlib.sha256(f"{target.instance_id}\0{repo}".encode()).hexdigest())
