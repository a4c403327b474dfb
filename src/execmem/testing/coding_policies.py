"""Scripted coding solvers: fake-server policies that drive the bash solver as a model would.

``MemoryOracle`` fixes a task only when the memory slot of its first user message names the file
the task's fix touches (the paired protocol's test of whether memory reaches the solver),
``GoldPatcher`` applies a task's gold patch for the seeds it is told to (any task set, the shipped
one included), ``hang`` runs a command that never ends, then submits. Replies are ``bash`` tool
calls. ``MemoryOracle`` works with both solvers' prompts: the built-in one's ``<issue>`` section, or
mini-swe-agent's first message holding the statement (give ``submit`` its submission command).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

from execmem.agents.coding.prompts import SUBMIT_COMMAND, memory_slot_text
from execmem.suites.coding.gitrepo import changed_paths
from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.tasks import CodingTask, load_tasks
from execmem.testing.fake_policies import Reply, ToolCallSpec


def bash(command: str) -> Reply:
    """A reply calling the solver's one tool."""
    return Reply(tool_calls=[ToolCallSpec("bash", {"command": command})])


def issue_of(message: str) -> str:
    """The problem statement inside the solver's first user message (the last ``<issue>`` block: a
    memory slot, which comes first, may quote an issue of its own)."""
    return message.rsplit("<issue>\n", 1)[1].split("\n</issue>", 1)[0]


def steps_taken(body: dict) -> int:
    """How many replies the solver has already given in this episode."""
    return sum(m["role"] == "assistant" for m in body["messages"])


class MemoryOracle:
    """Fixes the task at step 1 (writing ``fixed_source`` over the file of its fix) only if the
    memory slot names that file; then submits with ``submit``."""

    def __init__(self, tasks: Sequence[CodingTask], fixed_source: str, submit: str = SUBMIT_COMMAND) -> None:
        self.by_issue = {task.problem_statement: task for task in tasks}
        self.fixed_source, self.submit = fixed_source, submit

    def __call__(self, body: dict) -> Reply:
        first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        task = self.task_of(first_user)
        path = changed_paths(task.patch)[0]
        if steps_taken(body) == 0 and path in (memory_slot_text(first_user) or ""):
            return bash(f"printf %s {shlex.quote(self.fixed_source)} > {path}")
        return bash(self.submit)

    def task_of(self, message: str) -> CodingTask:
        """The task whose problem statement the first user message carries."""
        if "<issue>\n" in message:
            return self.by_issue[issue_of(message)]
        return self.by_issue[max((s for s in self.by_issue if s in message), key=len)]


class GoldPatcher:
    """Applies the task's gold patch at step 1 when the request's sampling seed is one of ``seeds``
    (default: the even ones), then submits: resolved exactly where it patched."""

    def __init__(
        self, tasks: Sequence[CodingTask], seeds: Callable[[int], bool] = lambda s: s % 2 == 0
    ) -> None:
        self.by_issue = {task.problem_statement: task for task in tasks}
        self.seeds = seeds

    def __call__(self, body: dict) -> Reply:
        first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        task = self.by_issue[issue_of(first_user)]
        if steps_taken(body) == 0 and self.seeds(int(body.get("seed") or 0)):
            return bash(f"printf %s {shlex.quote(task.patch)} | git apply -")
        return bash(SUBMIT_COMMAND)


def hang(body: dict) -> Reply:
    """A solver whose first command never ends; afterwards it submits."""
    return bash("while true; do sleep 1; done") if steps_taken(body) == 0 else bash(SUBMIT_COMMAND)


def gold_patcher(tasks: str | None = None) -> GoldPatcher:
    """Factory for ``--policy``: the GoldPatcher over a task file (default: the shipped set)."""
    return GoldPatcher(load_tasks(Path(tasks) if tasks else builtin_tasks_path()))
