"""The frozen benchmark file: one verified experience per target, with where it came from.

JSON lines, one object per target (format ``execmem-frozen-v1``)::

    {"format": "execmem-frozen-v1", "target": ID, "repo": REPO,
     "experience": {"bug_class", "root_cause", "fix_pattern", "reusable_lesson"},
     "text": the record injected (Experience.render()),
     "provenance": {"history_ids": [...], "candidate_rank": k, "distiller": {...},
                    "solver": {...}, "seeds": [...], "outcomes": {"off": [0/1 per seed],
                    "frozen": [...]}, "uplift": float, ...}}

``text`` is what ``--memory frozen`` injects, whole. ``provenance`` is free-form beyond the keys
above (SIEVE adds the screen score, the anchoring and the stage keys). ``load_frozen`` reads a file
and names the file, line and field of anything wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from execmem.core.files import atomic_write
from execmem.suites.coding.experience import Experience
from execmem.suites.coding.target_lines import target_lines

FROZEN_FORMAT = "execmem-frozen-v1"


class FrozenFileError(ValueError):
    """A malformed frozen file; the message names the file, the line and the field."""


class FrozenRecord(BaseModel):
    """One target's frozen experience."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["execmem-frozen-v1"] = FROZEN_FORMAT
    target: str = Field(min_length=1)
    repo: str = Field(min_length=1)
    experience: Experience
    text: str = Field(min_length=1)
    provenance: dict[str, Any] = Field(default_factory=dict)


def frozen_record(target: str, repo: str, experience: Experience, provenance: dict[str, Any]) -> FrozenRecord:
    """A record whose text is the experience's rendering."""
    return FrozenRecord(
        target=target, repo=repo, experience=experience, text=experience.render(), provenance=provenance
    )


def load_frozen(path: Path) -> dict[str, FrozenRecord]:
    """Every record of a frozen file, by target (a target twice is an error)."""
    return {record.target: record for _, record in target_lines(path, FrozenRecord, FrozenFileError)}


def dump_frozen(records: Iterable[FrozenRecord], path: Path) -> None:
    """Write records as JSON lines (whole or not at all)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as handle:
        for record in records:
            handle.write(record.model_dump_json() + "\n")
