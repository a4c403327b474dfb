"""A scripted model for the real MemoryOS (``memoryos-pro`` 0.1.0) behind the fake server.

MemoryOS sends one kind of request per job, told apart by its system prompt; ``memoryos_policy``
answers each in the form MemoryOS parses, from the words of the text it was given: keywords (a
comma-separated list), continuity (``false``: every page starts its own chain), a meta-summary,
topic summaries (a JSON list), the profile, and the knowledge (``【User Private Data】`` lines,
``【Assistant Knowledge】`` none). An unknown request is an error, so a new MemoryOS job shows up.
"""

from __future__ import annotations

import json
import re

from execmem.testing.fake_policies import Reply

_WORD = re.compile(r"[A-Za-z]{4,}")


def words(text: str, limit: int = 5) -> list[str]:
    """The first ``limit`` distinct words of four letters or more, lower-cased."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:limit]


def between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[-1].split(end, 1)[0]


def user_lines(conversation: str) -> list[str]:
    """What the user said, from MemoryOS's ``User: ... (Timestamp: ...)`` conversation lines."""
    return [
        between(line, "User: ", " (Timestamp:")
        for line in conversation.splitlines()
        if line.startswith("User: ")
    ]


def _keywords(prompt: str) -> str:
    return ", ".join(words(between(prompt, "Be very selective and concise:\n", "\n\nKeywords:")))


def _summaries(prompt: str) -> str:
    text = prompt.split("Conversation content:\n", 1)[-1]
    return json.dumps([{"theme": " ".join(words(text, 3)), "keywords": words(text), "content": text}])


def _knowledge(prompt: str) -> str:
    said = user_lines(between(prompt, "Latest User-AI Conversation:\n", "\n\n【User Private Data】"))
    facts = "\n".join(f"- User said: {line}" for line in said) or "None"
    return f"【User Private Data】\n{facts}\n【Assistant Knowledge】\n- None"


def _profile(prompt: str) -> str:
    return "Profile: the user said " + "; ".join(user_lines(prompt))


ANSWERS = {
    "You are an expert in keyword extraction": _keywords,
    "You are a conversation continuity detector": lambda prompt: "false",
    "You are a conversation meta-summary updater": lambda prompt: "Talk about " + " ".join(words(prompt, 8)),
    "You are an expert in analyzing dialogue topics": _summaries,
    "You are a knowledge extraction assistant": _knowledge,
    "You are a professional user preference analysis assistant": _profile,
}


def memoryos_policy(body: dict) -> Reply:
    """The answer to one MemoryOS request (a fake-server policy)."""
    system, prompt = body["messages"][0]["content"], body["messages"][-1]["content"]
    for opening, answer in ANSWERS.items():
        if system.startswith(opening):
            return Reply(content=answer(prompt))
    raise ValueError(f"not a MemoryOS request this model knows: {system[:80]!r}")
