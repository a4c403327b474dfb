"""What every adapter owes the protocol, as one scenario run against a fake client or a live service.

Texts carry distinctive words (``xylophone``, ``jazz``) that survive a model rewriting them into
facts, so the same checks hold for raw storage and for LLM extraction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.memory.conftest import at, msg

EARLY = [msg("2025-03-03 08:30", "Set the seat heater to level two every morning.", 1)]
LATE = [msg("2025-03-04 18:05", "Play jazz radio on the drive home.", 2)]
OTHER = [msg("2025-03-03 08:40", "I practise the xylophone every Tuesday evening.", 1, speaker="Dana Lee")]
CUT = at("2025-03-04 00:00")


def has(items: list[Any], word: str) -> bool:
    return any(word in item.text.lower() for item in items)


def exercise(memory: Any, alice: str, bob: str, settle: Callable[[], None] = lambda: None) -> None:
    """Write two of alice's hours and one of bob's, then check search, isolation, cut-off and reset."""
    memory.add(EARLY, alice, at("2025-03-03 09:00"))
    memory.add(LATE, alice, at("2025-03-04 19:00"))
    memory.add(OTHER, bob, at("2025-03-03 09:00"))
    settle()

    assert has(memory.search("seat heater level", alice, 5), "heater")
    assert has(memory.search("jazz radio on the drive home", alice, 10), "jazz")
    assert not has(memory.search("xylophone practice on Tuesday", alice, 10), "xylophone")
    assert has(memory.search("xylophone practice on Tuesday", bob, 10), "xylophone")

    cut = memory.search("jazz radio on the drive home", alice, 10, before=CUT)
    assert not has(cut, "jazz")
    assert all(item.timestamps and max(item.timestamps) < CUT for item in cut)

    memory.reset(alice)
    settle()
    assert memory.search("seat heater level", alice, 5) == []
    assert has(memory.search("xylophone practice on Tuesday", bob, 10), "xylophone")
