"""Test double: a scripted memory system whose records take planted forms, so that Layer B's failure
attribution can be checked against a known truth (docs/layer_b.md, "Planted record forms").

It stores each ``add()`` as one history conversation and answers a search with records written by
``planted_record_forms`` from the visible conversations (stamped before the cut-off), most relevant
first: a conversation is the more relevant the more of its patch's function and file names (or the
file's module, ``pkg.mod``) the query mentions, then the more words its issue shares with the query,
then the newer. Per user space the form is ``form`` (one of ``FORMS``), or with ``form="mixed"``
``FORMS[sha256(space) % 7]``; ``plan`` (``{space: form}``) overrides any space.

* ``clean``, ``polluted``, ``over-general``, ``symptom``, ``fix-missing``: rank 1 is that form of the
  most relevant conversation (role ``planted``), the other conversations follow in the same form
  (role ``other``);
* ``ranking-miss``: rank 1 is an over-general record of the least relevant *other* conversation (of
  the same one when there is only one; role ``distractor``), rank 2 the clean record of the most
  relevant one (role ``useful``), then clean records of the rest;
* ``misleading``: rank 1 is the most relevant conversation's clean record naming another function
  (that of the next conversation whose fix changed a different one, else ``helper``; role
  ``planted``), then clean records of the rest.

Each item carries its conversation's line ids and timestamps, and ``metadata`` ``planted_form`` and
``planted_role``: the truth a test compares the attribution with. ``received`` logs every call (what
the harness handed over), for leak tests. Selectable in tests through the test plugin
``tests/plugins/execmem_planted_memory`` (``--memory planted-records``); never registered by execmem.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.suites.coding.system_input import ISSUE_SPEAKER
from execmem.testing.planted_record_forms import (
    WRITERS,
    Conversation,
    clean,
    misleading,
    over_general,
    parse_patch,
    polluted,
)

FORMS = ("clean", "polluted", "over-general", "symptom", "fix-missing", "ranking-miss", "misleading")
_WORD = re.compile(r"\w+")


def conversation_of(messages: Sequence[MemoryMessage]) -> Conversation:
    """One add() read back: the issue, the steps, the final patch."""
    issue = "\n".join(m.text for m in messages if m.speaker == ISSUE_SPEAKER)
    patches = [p for p in (parse_patch(m.text) for m in messages) if p is not None]
    steps = tuple(m.text for m in messages if m.speaker != ISSUE_SPEAKER and parse_patch(m.text) is None)
    line_ids = tuple(m.line_id for m in messages if m.line_id is not None)
    return Conversation(
        issue, steps, patches[-1] if patches else "", line_ids, tuple(m.timestamp for m in messages)
    )


def relevance(conversation: Conversation, query: str) -> tuple[int, float, datetime]:
    """How well a conversation answers the query (higher first; see the module docstring)."""
    names = 0
    if conversation.function and conversation.function in query:
        names += 2
    file = conversation.file
    if file and (file in query or file.removesuffix(".py").replace("/", ".") in query):
        names += 1
    issue, asked = set(_WORD.findall(conversation.issue.lower())), set(_WORD.findall(query.lower()))
    overlap = len(issue & asked) / len(issue | asked) if issue | asked else 0.0
    return names, overlap, max(conversation.timestamps)


class PlantedRecordMemory:
    """The scripted system (``form``: one of ``FORMS`` or ``mixed``; ``plan``: ``{space: form}``;
    ``polluted_lines``: the length of a polluted record)."""

    def __init__(self, form: str = "clean", plan: dict[str, str] | None = None, polluted_lines: int = 60):
        unknown = [f for f in [form, *(plan or {}).values()] if f not in (*FORMS, "mixed")]
        if unknown:
            raise ValueError(
                f"unknown planted form {unknown[0]!r}; choose one of {', '.join(FORMS)} or mixed"
            )
        self.form, self.plan, self.polluted_lines = form, dict(plan or {}), polluted_lines
        self.spaces: dict[str, list[Conversation]] = {}
        self.received: list[dict[str, Any]] = []

    def form_for(self, user_id: str) -> str:
        chosen = self.plan.get(user_id, self.form)
        if chosen != "mixed":
            return chosen
        return FORMS[int(hashlib.sha256(user_id.encode()).hexdigest(), 16) % len(FORMS)]

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        self.received.append({"call": "add", "user_id": user_id, "messages": list(messages)})
        if messages:
            self.spaces.setdefault(user_id, []).append(conversation_of(messages))

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        self.received.append({"call": "search", "user_id": user_id, "query": query, "before": before})
        visible = [c for c in self.spaces.get(user_id, []) if before is None or max(c.timestamps) < before]
        ordered = sorted(visible, key=lambda c: relevance(c, query), reverse=True)
        form = self.form_for(user_id)
        records = self._records(form, ordered)[:top_k]
        return [
            MemoryItem(
                text, 1.0 / rank, c.timestamps, c.line_ids, {"planted_form": form, "planted_role": role}
            )
            for rank, (text, c, role) in enumerate(records, start=1)
        ]

    def _records(self, form: str, ordered: list[Conversation]) -> list[tuple[str, Conversation, str]]:
        if not ordered:
            return []
        if form == "ranking-miss":
            decoy = ordered[-1]
            return [(over_general(decoy), decoy, "distractor"), (clean(ordered[0]), ordered[0], "useful"),
                    *((clean(c), c, "other") for c in ordered[1:])]  # fmt: skip
        if form == "misleading":
            first = ordered[0]
            wrong = next(
                (c.function for c in ordered[1:] if c.function not in (None, first.function)), "helper"
            )
            return [
                (misleading(first, wrong), first, "planted"),
                *((clean(c), c, "other") for c in ordered[1:]),
            ]
        return [(self._write(form, c), c, "planted" if i == 0 else "other") for i, c in enumerate(ordered)]

    def _write(self, form: str, conversation: Conversation) -> str:
        if form == "polluted":
            return polluted(conversation, self.polluted_lines)
        return WRITERS[form](conversation)

    def reset(self, user_id: str) -> None:
        self.spaces.pop(user_id, None)

    def describe(self) -> dict[str, Any]:
        return {"system": "planted-records", "test_double": True, "form": self.form, "plan": self.plan,
                "polluted_lines": self.polluted_lines}  # fmt: skip
