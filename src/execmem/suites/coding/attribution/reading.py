"""Did the solver read the record? Evidence from one episode's trajectory steps
(docs/attribution.md, "Reading the record"): a command opened a file the record names, or the
solver quoted the record (8 consecutive words, or an identifier claim of 4+ characters), where the
problem statement does not already hold what matched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from execmem.suites.coding.anchoring import claims
from execmem.suites.coding.attribution.anchors import is_path, names_file, names_identifier

QUOTE_WORDS = 8
MIN_IDENTIFIER = 4


@dataclass(frozen=True)
class ReadHit:
    seed: int
    step: int
    kind: str
    """``opened`` (a command names a file of the record) or ``quoted`` (words or an identifier)."""
    matched: str

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "step": self.step, "kind": self.kind, "matched": self.matched}


@dataclass(frozen=True)
class RecordCues:
    """What of a record, not already in the problem statement, would show that it was read."""

    paths: tuple[str, ...]
    identifiers: tuple[str, ...]
    phrases: frozenset[tuple[str, ...]]


def _grams(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i : i + QUOTE_WORDS]) for i in range(len(words) - QUOTE_WORDS + 1)}


def record_cues(record: str, statement: str) -> RecordCues:
    found = claims(record)
    paths = tuple(c for c in found if is_path(c) and not names_file(statement, c))
    identifiers = tuple(
        c for c in found
        if not is_path(c) and len(c) >= MIN_IDENTIFIER and not names_identifier(statement, c)
    )  # fmt: skip
    return RecordCues(paths, identifiers, frozenset(_grams(record) - _grams(statement)))


def step_hits(cues: RecordCues, seed: int, step: dict[str, Any]) -> list[ReadHit]:
    """The read evidence of one trajectory step (its commands and the assistant's text)."""
    number = int(step.get("step", 0))
    said = str((step.get("assistant") or {}).get("content") or "")
    commands = [str(r.get("command", "")) for r in step.get("tool_results") or [] if "command" in r]
    hits = [ReadHit(seed, number, "opened", p) for p in cues.paths if any(names_file(c, p) for c in commands)]
    hits += [
        ReadHit(seed, number, "quoted", name)
        for name in cues.identifiers
        if any(names_identifier(text, name) for text in (said, *commands))
    ]
    quoted = _grams(said) & cues.phrases
    if quoted:
        hits.append(ReadHit(seed, number, "quoted", " ".join(sorted(quoted)[0])))
    return hits


def read_hits(cues: RecordCues, seed: int, steps: Iterable[dict[str, Any]]) -> list[ReadHit]:
    return [hit for step in steps if "step" in step for hit in step_hits(cues, seed, step)]


def opened_paths(cues: RecordCues, steps: Iterable[dict[str, Any]]) -> set[str]:
    """The record's paths some command of ``steps`` names (for the ``also_off`` reading aid)."""
    return {hit.matched for hit in read_hits(cues, 0, steps) if hit.kind == "opened"}
