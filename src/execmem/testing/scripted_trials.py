"""A scripted stand-in for the task builder's mutation trial: no test runs, a fixed rule decides.

``ScriptedTrials`` accepts every mutation except those whose key it was told to reject, and makes
the task from the mutation alone (the fix as a diff, one failing test named after the function),
so the builder's family search can be checked offline against known truth.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from execmem.suites.coding.builder.families import BugSite
from execmem.suites.coding.builder.mutations import Mutation
from execmem.suites.coding.patches import file_diff
from execmem.suites.coding.tasks import CodingTask


@dataclass
class ScriptedTrials:
    """Callable as the builder's ``Attempt``; ``tried`` lists every key asked about, in order."""

    sources: Mapping[str, str]
    rejected: frozenset[str] = frozenset()
    tried: list[str] = field(default_factory=list)

    def __call__(self, mutation: Mutation) -> CodingTask | None:
        self.tried.append(mutation.key)
        if mutation.key in self.rejected:
            return None
        return scripted_task(mutation, self.sources[mutation.path])

    def task(self, mutation: Mutation) -> CodingTask:
        """The task an accepted trial of ``mutation`` gives (without recording a trial)."""
        return scripted_task(mutation, self.sources[mutation.path])


def scripted_task(mutation: Mutation, source: str, created_at: datetime | None = None) -> CodingTask:
    """A well-formed draft task for ``mutation`` of ``source`` (its fix is the gold patch)."""
    name = mutation.function.replace(".", "_")
    return CodingTask(
        instance_id="scripted__draft",
        repo="local/scripted",
        problem_statement=f"`{mutation.path}` misbehaves.",
        patch=file_diff(mutation.path, mutation.apply(source), source),
        FAIL_TO_PASS=[f"tests/test_scripted.py::test_{name}"],
        created_at=created_at or datetime(2023, 1, 2, 9, 0, tzinfo=UTC),
        version="1.0",
        test_cmd="python -m pytest --junitxml={junit} tests",
        meta=BugSite.of(mutation).meta(),
    )
