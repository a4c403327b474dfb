"""SIEVE stage 2, the deterministic part: how much an earlier fix looks like the target's fix.

This is the one place (beside the evaluator) that reads a target's gold patch. Each patch is reduced
to three sets: the files it changes, their directories (each file's parent folder, ``.`` for the
root) and its *cleaned identifiers*: the names on its changed lines and in the enclosing
``def``/``class`` of each change, lower-cased, without Python keywords and builtins, ``self``/``cls``,
names shorter than three characters and numbers. The score of a history patch against the target's
is ``file_weight * J(files) + dir_weight * J(dirs) + identifier_weight * J(identifiers)``, with
``J`` the Jaccard overlap |A & B| / |A | B| (0 when both are empty). The shortlist is the ``top_n``
candidates with a score above ``min_score``, best first (ties: the newer task first, then the id).
"""

from __future__ import annotations

import builtins
import keyword
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from execmem.suites.coding.gitrepo import changed_paths
from execmem.suites.coding.records import touched_functions
from execmem.suites.coding.tasks import CodingTask

SCREEN_VERSION = "sieve-screen-v1"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IGNORED = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {"self", "cls", "args", "kwargs"}


class ScreenPolicy(BaseModel):
    """The scorer's weights and the shortlist's size (recorded in the stage's provenance)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    top_n: int = Field(3, ge=1, description="candidates shortlisted per target")
    min_score: float = Field(0.0, ge=0, description="a candidate must score above this")
    file_weight: float = Field(1.0, ge=0)
    dir_weight: float = Field(0.5, ge=0)
    identifier_weight: float = Field(2.0, ge=0)

    def describe(self) -> dict[str, Any]:
        return {"version": SCREEN_VERSION, **self.model_dump()}


@dataclass(frozen=True)
class PatchFeatures:
    files: frozenset[str]
    dirs: frozenset[str]
    identifiers: frozenset[str]


@dataclass(frozen=True)
class ScreenScore:
    """One history candidate scored against a target, with the evidence shared."""

    history_id: str
    score: float
    shared_files: tuple[str, ...]
    shared_dirs: tuple[str, ...]
    shared_identifiers: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "history": self.history_id,
            "score": round(self.score, 6),
            "shared_files": list(self.shared_files),
            "shared_dirs": list(self.shared_dirs),
            "shared_identifiers": list(self.shared_identifiers),
        }


def patch_features(patch: str) -> PatchFeatures:
    """The files, directories and cleaned identifiers of a unified diff."""
    files = frozenset(changed_paths(patch))
    dirs = frozenset(posixpath.dirname(path) or "." for path in files)
    names = set(touched_functions(patch))
    for line in patch.splitlines():
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---")):
            names.update(_NAME.findall(line[1:]))
    identifiers = frozenset(n.lower() for n in names if len(n) >= 3 and n not in _IGNORED)
    return PatchFeatures(files, dirs, identifiers)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def score_candidate(target: PatchFeatures, history: CodingTask, policy: ScreenPolicy) -> ScreenScore:
    """The weighted overlap of a history task's gold patch with the target's."""
    other = patch_features(history.patch)
    score = (
        policy.file_weight * jaccard(target.files, other.files)
        + policy.dir_weight * jaccard(target.dirs, other.dirs)
        + policy.identifier_weight * jaccard(target.identifiers, other.identifiers)
    )
    return ScreenScore(
        history.instance_id,
        score,
        tuple(sorted(target.files & other.files)),
        tuple(sorted(target.dirs & other.dirs)),
        tuple(sorted(target.identifiers & other.identifiers)),
    )


def screen(
    target_patch: str, pool: Sequence[CodingTask], policy: ScreenPolicy
) -> tuple[list[ScreenScore], list[ScreenScore]]:
    """(every candidate scored, the shortlist): the pool against the target's gold patch."""
    features = patch_features(target_patch)
    dated = {task.instance_id: task.created_at for task in pool}
    scores = [score_candidate(features, task, policy) for task in pool if task.patch.strip()]
    ranked = sorted(scores, key=lambda s: (-s.score, -dated[s.history_id].timestamp(), s.history_id))
    shortlist = [s for s in ranked if s.score > policy.min_score][: policy.top_n]
    return ranked, shortlist
