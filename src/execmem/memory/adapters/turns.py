"""Messages as (user, assistant) exchanges, for systems that only store question-answer pairs.

MemoryOS stores ``(user_input, agent_response)`` pairs and LightMem wants strictly alternating
user and assistant messages. A history has speakers, not roles: messages by a speaker named in
``assistant_speakers`` are the assistant's, every other message is the user's. A run of user
messages and the assistant messages right after it make one exchange; an exchange whose user
side is empty (the history starts with the assistant) or whose assistant side is empty (nobody
answered) gets ``no_reply`` in the empty place, so every exchange has both sides. Each side's
text is its messages' ``[YYYY-MM-DD HH:MM] Speaker: text`` lines, one per line.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from execmem.core.protocols import MemoryMessage
from execmem.memory.adapters.common import message_text

NO_REPLY = "(no reply)"


@dataclass(frozen=True)
class Exchange:
    """One user turn and the answer to it (either side may be empty)."""

    user: tuple[MemoryMessage, ...]
    assistant: tuple[MemoryMessage, ...]

    @property
    def messages(self) -> tuple[MemoryMessage, ...]:
        return self.user + self.assistant

    @property
    def latest(self) -> datetime:
        return max(m.timestamp for m in self.messages)

    def user_text(self, no_reply: str = NO_REPLY) -> str:
        return _lines(self.user) or no_reply

    def assistant_text(self, no_reply: str = NO_REPLY) -> str:
        return _lines(self.assistant) or no_reply


def exchanges(messages: Sequence[MemoryMessage], assistant_speakers: Collection[str]) -> list[Exchange]:
    """The messages, in order, as exchanges (see the module docstring)."""
    found: list[Exchange] = []
    user: list[MemoryMessage] = []
    answer: list[MemoryMessage] = []
    for message in messages:
        if message.speaker in assistant_speakers:
            answer.append(message)
            continue
        if answer:  # a new question after an answer: the exchange before it is complete
            found.append(Exchange(tuple(user), tuple(answer)))
            user, answer = [], []
        user.append(message)
    if user or answer:
        found.append(Exchange(tuple(user), tuple(answer)))
    return found


def _lines(messages: Sequence[MemoryMessage]) -> str:
    return "\n".join(message_text(m) for m in messages)
