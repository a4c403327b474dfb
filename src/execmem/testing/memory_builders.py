"""Scripted memory builders: fake-server policies that answer the memory-building requests of the
``summary`` and ``key-value`` conditions in the release's style, and hand every other request (the
agent's) to another policy.

* ``summary``: on every ``every``-th history day (by date) it calls ``memory_update`` with the
  memory so far plus one bullet ``- noted on DAY``; on the other days it calls no tool.
* ``key-value``: on each day it stores ``note_DAY`` and looks it up (``memory_search``,
  ``memory_list``), then tries to remove a key never stored, then answers "done"; with
  ``endless`` it keeps searching and never answers, so the day ends at the round limit.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from execmem.agents.vehicle.release_prompts import SUMMARY_RELEASE_EMPTY
from execmem.testing.fake_policies import Policy, Reply, ToolCallSpec

_DAY = re.compile(r"Conversations of (\d{4}-\d{2}-\d{2}):")
_MEMORY = re.compile(r"Memory so far:\n(.*?)\n\nConversations of", re.DOTALL)


def offered(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tools a request offers, by name."""
    return {t["function"]["name"]: t["function"] for t in body.get("tools") or [] if "function" in t}


def _user_text(body: dict[str, Any]) -> str:
    return next((m["content"] for m in body["messages"] if m.get("role") == "user"), "")


class ReleaseBuilders:
    """Answers release-style memory building; every other request goes to ``agent``."""

    def __init__(self, agent: Policy, every: int = 2, endless: bool = False) -> None:
        self.agent, self.every, self.endless = agent, every, endless

    def __call__(self, body: dict[str, Any]) -> Reply:
        tools = offered(body)
        if "memory_update" in tools:
            return self.summary(_user_text(body))
        if "memory_add" in tools and "key" in tools["memory_search"]["parameters"]["properties"]:
            return self.key_value(body)
        return self.agent(body)

    def summary(self, prompt: str) -> Reply:
        day = _DAY.search(prompt).group(1)
        if date.fromisoformat(day).toordinal() % self.every:
            return Reply(content="Nothing new about the car today.")
        memory = _MEMORY.search(prompt).group(1)
        memory = "" if memory == SUMMARY_RELEASE_EMPTY else memory + "\n"
        return Reply(tool_calls=[ToolCallSpec("memory_update", {"new_memory": f"{memory}- noted on {day}"})])

    def key_value(self, body: dict[str, Any]) -> Reply:
        day = _DAY.search(_user_text(body)).group(1)
        step = sum(1 for m in body["messages"] if m.get("role") == "assistant")
        if self.endless:
            return Reply(tool_calls=[ToolCallSpec("memory_search", {"key": "note"})])
        if step == 0:
            calls = [
                ToolCallSpec("memory_add", {"key": f"note_{day}", "value": f"panel green on {day}"}),
                ToolCallSpec("memory_search", {"key": f"note_{day}"}),
                ToolCallSpec("memory_list", {}),
            ]
            return Reply(tool_calls=calls)
        if step == 1:
            return Reply(tool_calls=[ToolCallSpec("memory_remove", {"key": "never stored"})])
        return Reply(content="done")
