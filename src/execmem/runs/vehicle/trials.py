"""Repeated trials of a vehicle run: each trial's episode ids and request seed.

Trial 1 of a question keeps the question's id (``3-4``), so a run without ``--trials`` is trial 1
of any run that adds trials later; trial t >= 2 is ``3-4~t2``. Trial t sends the request seed
``SEED + t - 1`` (``SEED`` from ``--seed``, 0 when not given); trial 1 of a run without ``--seed``
sends no seed, as runs did before trials existed. See docs/runs.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from execmem.suites.vehicle.dataset import Question

_TRIAL = re.compile(r"^(?P<question>.+)~t(?P<trial>[0-9]+)$")


@dataclass(frozen=True)
class Trial:
    """One episode of a run: a question in one trial (from 1)."""

    question: Question
    number: int


def episode_id(question_id: str, trial: int) -> str:
    """The id of ``question_id``'s episode in trial ``trial`` (from 1)."""
    return question_id if trial == 1 else f"{question_id}~t{trial}"


def split_episode_id(episode: str) -> tuple[str, int]:
    """``3-4~t2`` -> ``("3-4", 2)``; an id without a trial mark is trial 1."""
    found = _TRIAL.match(episode)
    return (found.group("question"), int(found.group("trial"))) if found else (episode, 1)


def trial_seed(seed: int | None, trial: int) -> int | None:
    """The request seed of ``trial``: ``seed + trial - 1``; None for trial 1 without a seed."""
    if seed is None and trial == 1:
        return None
    return (seed or 0) + trial - 1
