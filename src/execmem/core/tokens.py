"""A model-independent token estimate, used wherever text size must be compared across runs."""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """About one token per four characters: the same yardstick for every model and memory system."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)
