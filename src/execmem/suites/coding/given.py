"""Given-text files: a run whose memory slot holds, per target, a text written beforehand.

JSON lines, one object per target (docs/attribution.md, "Given-text runs")::

    {"target": ID, "text": "..." | null, "arm": NAME, "derived_from": {...}}

``text`` null leaves the slot empty. One arm per file. The strip ablation's arms and the gating
condition are given-text files; so can be any text a researcher wants to inject as it is.
``load_given`` names the file, line and field of anything wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from execmem.core.files import atomic_write
from execmem.suites.coding.target_lines import target_lines


class GivenFileError(ValueError):
    """A malformed given-text file; the message names the file, the line and the field."""


class GivenText(BaseModel):
    """One target's given text."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    target: str = Field(min_length=1)
    text: str | None
    arm: str = Field(min_length=1)
    derived_from: dict[str, Any] = Field(default_factory=dict)


def load_given(path: Path) -> dict[str, GivenText]:
    """Every line of a given-text file, by target (a target twice, or two arms, is an error)."""
    found: dict[str, GivenText] = {}
    for where, given in target_lines(path, GivenText, GivenFileError):
        first = next(iter(found.values()), given)
        if given.arm != first.arm:
            raise GivenFileError(f"{where}: field arm: {given.arm!r}, the file's arm is {first.arm!r}")
        found[given.target] = given
    if not found:
        raise GivenFileError(f"{path}: no target (the file is empty)")
    return found


def shared_provenance(given: Iterable[GivenText]) -> dict[str, Any]:
    """The ``derived_from`` entries every line holds with the same value."""
    entries = [g.derived_from for g in given]
    if not entries:
        return {}
    return {k: v for k, v in entries[0].items() if all(k in e and e[k] == v for e in entries[1:])}


def dump_given(lines: Iterable[GivenText], path: Path) -> None:
    """Write a given-text file (whole or not at all)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as handle:
        for line in lines:
            handle.write(line.model_dump_json() + "\n")
