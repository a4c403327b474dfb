"""What a memory system is given in a Layer B run: each history item as one conversation, and the
target's query. Both are made from the leak-safe types alone (``HistoryItem``, ``TargetView``).

Rule ``layer-b-conversation-v1``, one conversation per history item:

* ``user``: the history task's problem statement;
* ``assistant``: one message per step of its compressed trajectory (``step N:`` and what follows it;
  the closing ``end: REASON`` line stays with the last step);
* ``assistant``: ``Final patch:`` and the solver's final diff.

Message ``i`` (from 0) is stamped ``created_at + i`` seconds of the history task; when the
conversation would reach the target's ``created_at``, the spacing shrinks so that every stamp stays
strictly before it. Line ids are given by the caller (consecutive over a target's history), so the
harness can tell which history item a record came from. No history id, target id or gold patch is
in any message.

Queries (``QUERIES``): ``problem``, the target's problem statement, whole; ``title``, its first
non-empty line.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from execmem.core.protocols import MemoryMessage
from execmem.suites.coding.history import HistoryItem, TargetView

CONVERSATION_VERSION = "layer-b-conversation-v1"
ISSUE_SPEAKER, SOLVER_SPEAKER = "user", "assistant"
PATCH_HEADER = "Final patch:"
QUERIES = {
    "problem": "the target's problem statement, whole",
    "title": "the first non-empty line of the target's problem statement",
}
_STEP = re.compile(r"^step \d+:$")
_SPACING = timedelta(seconds=1)


def trajectory_steps(trajectory: str) -> list[str]:
    """The compressed trajectory cut into its steps (text before the first step is its own part)."""
    steps: list[list[str]] = []
    for line in trajectory.splitlines():
        if _STEP.match(line) or not steps:
            steps.append([])
        steps[-1].append(line)
    return [text for text in ("\n".join(step).strip() for step in steps) if text]


def conversation_texts(item: HistoryItem) -> list[tuple[str, str]]:
    """(speaker, text) of the item's conversation, in order (empty parts left out)."""
    texts = [(ISSUE_SPEAKER, item.problem_statement.strip())]
    texts += [(SOLVER_SPEAKER, step) for step in trajectory_steps(item.trajectory)]
    if item.model_patch.strip():
        texts.append((SOLVER_SPEAKER, f"{PATCH_HEADER}\n{item.model_patch.strip()}"))
    return [(speaker, text) for speaker, text in texts if text]


def conversation(item: HistoryItem, before: datetime, first_line: int) -> list[MemoryMessage]:
    """The item as messages stamped strictly before ``before``, line ids from ``first_line``."""
    texts = conversation_texts(item)
    if item.created_at >= before:
        raise ValueError(f"history item {item.instance_id} is not older than the target")
    spacing = min(_SPACING, (before - item.created_at) / (len(texts) + 1))
    return [
        MemoryMessage(speaker, text, item.created_at + spacing * index, first_line + index)
        for index, (speaker, text) in enumerate(texts)
    ]


def target_query(view: TargetView, kind: str) -> str:
    """The query sent to the memory system for a target (``QUERIES`` names the kinds)."""
    if kind == "problem":
        return view.problem_statement.strip()
    if kind == "title":
        return next((line.strip() for line in view.problem_statement.splitlines() if line.strip()), "")
    raise ValueError(f"unknown query {kind!r}; choose one of {', '.join(QUERIES)}")
