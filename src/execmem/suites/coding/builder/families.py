"""Synthetic bug families: for some targets, an earlier task whose bug is of the same kind close by.

A family is a later *target* and an *earlier* task of the same library whose bugs come from the same
mutation operator in the same file: in the same function (on another line), in a sibling function
(a method of the same class, or another module-level function), or failing both, elsewhere in the
file. Such a history holds an experience worth finding; the other tasks keep unrelated histories.

The link is written only on the target (``meta["family"]``, naming the earlier task), never on the
earlier task: a task never carries the id of a later one, so no history pool holds a target's id.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from execmem.suites.coding.builder.mutations import Mutation
from execmem.suites.coding.tasks import CodingTask

RELATIONS = ("same-function", "sibling-function", "same-file")
CLOSE = frozenset(RELATIONS[:2])
"""Relations that make a family on their own; the builder keeps them out of unrelated histories."""
PREFERENCES = (RELATIONS, ("sibling-function", "same-function", "same-file"))
"""Relations tried, best first, for a library's 1st, 2nd, 3rd, ... family (in turn)."""
TRIALS_PER_TARGET = 4

Attempt = Callable[[Mutation], CodingTask | None]
"""Tries a mutation as a task: the validated draft, or None when the mutation is rejected."""


@dataclass(frozen=True)
class BugSite:
    """Where a bug sits and which operator made it: what family membership is decided on."""

    file: str
    function: str
    operator: str

    @classmethod
    def of(cls, mutation: Mutation) -> BugSite:
        return cls(mutation.path, mutation.function, mutation.operator)

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any]) -> BugSite:
        return cls(meta["file"], meta["function"], meta["operator"])

    @property
    def scope(self) -> str:
        """The enclosing class (or function) of the function; '' for a module-level function."""
        return self.function.rpartition(".")[0]

    def meta(self) -> dict[str, str]:
        """The task ``meta`` describing this bug."""
        return {"operator": self.operator, "file": self.file, "function": self.function}


def relation(a: BugSite, b: BugSite) -> str | None:
    """How two bugs are related (symmetric): one of ``RELATIONS``, or None when they are not."""
    if a.operator != b.operator or a.file != b.file:
        return None
    if a.function == b.function:
        return "same-function"
    return "sibling-function" if a.scope == b.scope else "same-file"


@dataclass(frozen=True)
class FamilyMatch:
    """An earlier task found for the target at ``target`` (index among the library's tasks)."""

    target: int
    relation: str
    task: CodingTask
    site: BugSite


def target_order(count: int, rng: random.Random) -> list[int]:
    """Indices of the tasks that may get a family, in seeded order: all but the first, so every
    target with a family also has unrelated history before it."""
    order = list(range(1, count))
    rng.shuffle(order)
    return order


def family_candidates(
    target: Mutation,
    found: Sequence[Mutation],
    others: Sequence[BugSite],
    skip: set[str],
    preference: Sequence[str] = RELATIONS,
) -> list[tuple[str, Mutation]]:
    """Mutations that may make the target's earlier task, by ``preference`` then in ``found`` order.

    A candidate is another line of the file with the target's operator; it must not sit in a
    function another task (``others``) already has a bug in, nor be close to one of them, so the
    family adds no relation besides its own. ``skip``: keys already tried.
    """
    own = BugSite.of(target)
    occupied = {(site.file, site.function) for site in others}
    ranked: dict[str, list[Mutation]] = {name: [] for name in preference}
    for mutation in found:
        site = BugSite.of(mutation)
        kind = relation(site, own)
        if kind not in ranked or mutation.key in skip or mutation.line == target.line:
            continue
        if (site.file, site.function) in occupied or any(relation(site, o) in CLOSE for o in others):
            continue
        ranked[kind].append(mutation)
    return [(kind, mutation) for kind in preference for mutation in ranked[kind]]


def search_families(
    targets: Sequence[Mutation],
    found: Sequence[Mutation],
    tried: set[str],
    attempt: Attempt,
    rng: random.Random,
    *,
    wanted: int,
    budget: int,
) -> list[FamilyMatch]:
    """Up to ``wanted`` families over the library's task bugs ``targets`` (in date order), at most
    ``TRIALS_PER_TARGET`` mutations tried per target and ``budget`` in all."""
    matches: list[FamilyMatch] = []
    skip, trials = set(tried), 0
    sites = [BugSite.of(mutation) for mutation in targets]
    for index in target_order(len(targets), rng):
        if len(matches) >= wanted:
            break
        others = [site for i, site in enumerate(sites) if i != index] + [m.site for m in matches]
        preference = PREFERENCES[len(matches) % len(PREFERENCES)]
        options = family_candidates(targets[index], found, others, skip, preference)
        for kind, mutation in options[:TRIALS_PER_TARGET]:
            if trials >= budget:
                return matches
            trials += 1
            skip.add(mutation.key)
            task = attempt(mutation)
            if task is not None:
                matches.append(FamilyMatch(index, kind, task, BugSite.of(mutation)))
                break
    return matches


def place_families(
    tasks: Sequence[CodingTask],
    matches: Sequence[FamilyMatch],
    rng: random.Random,
    start: datetime,
    prefix: str,
) -> list[CodingTask]:
    """The library's tasks (in date order) with each family's earlier task added, all in date order.

    An earlier task is dated in a seeded gap before its target (see ``earlier_date``) and numbered
    after the library's other tasks (``{prefix}__bug-NN``); the link goes on the target only.
    """
    tasks = list(tasks)
    dates = [task.created_at for task in tasks]
    taken = set(dates)
    added = []
    for number, match in enumerate(matches, start=len(tasks) + 1):
        when = earlier_date(match.target, dates, start, taken, rng)
        taken.add(when)
        earlier_id = f"{prefix}__bug-{number:02d}"
        target = tasks[match.target]
        link = {"role": "target", "earlier": earlier_id, "relation": match.relation}
        tasks[match.target] = target.model_copy(update={"meta": {**target.meta, "family": link}})
        meta = {**match.site.meta(), "family": {"role": "earlier"}}
        update = {"instance_id": earlier_id, "created_at": when, "meta": meta}
        added.append(match.task.model_copy(update=update))
    return sorted(tasks + added, key=lambda task: task.created_at)


def earlier_date(
    index: int, dates: Sequence[datetime], start: datetime, taken: set[datetime], rng: random.Random
) -> datetime:
    """A seeded date strictly before ``dates[index]``: one of the gaps before it (the first opens at
    ``start``), then a whole minute strictly inside that gap that no task has yet."""
    gap = rng.randint(0, index)
    low = dates[gap - 1] if gap else start
    minutes = int((dates[gap] - low).total_seconds() // 60)
    for _ in range(1000):
        when = low + timedelta(minutes=rng.randint(1, max(1, minutes - 1)))
        if low < when < dates[gap] and when not in taken:
            return when
    raise ValueError(f"no free minute between {low.isoformat()} and {dates[gap].isoformat()}")


def family_links(tasks: Sequence[CodingTask]) -> dict[str, tuple[str, str]]:
    """Target id -> (earlier task id, relation), as recorded in the targets' ``meta``."""
    links = {}
    for task in tasks:
        family = task.meta.get("family")
        if isinstance(family, dict) and family.get("role") == "target":
            links[task.instance_id] = (family["earlier"], family["relation"])
    return links


def related_pairs(tasks: Sequence[CodingTask]) -> list[tuple[str, str, str]]:
    """Every (later id, earlier id, relation) of same-repository tasks whose bugs are related,
    planted or not, computed from the bugs' ``meta`` alone."""
    pairs = []
    for later in tasks:
        for earlier in tasks:
            if earlier.repo != later.repo or earlier.created_at >= later.created_at:
                continue
            kind = relation(BugSite.from_meta(earlier.meta), BugSite.from_meta(later.meta))
            if kind is not None:
                pairs.append((later.instance_id, earlier.instance_id, kind))
    return pairs
