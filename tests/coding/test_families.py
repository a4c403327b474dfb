"""The task builder's synthetic bug families: which mutations may make a target's earlier task, how
the search spends its trials, and how the earlier tasks are dated, numbered and linked (offline:
trials are scripted, no test runs)."""

from __future__ import annotations

import random
import textwrap
from datetime import UTC, datetime, timedelta

import pytest

from execmem.suites.coding.builder.families import (
    CLOSE,
    TRIALS_PER_TARGET,
    BugSite,
    earlier_date,
    family_candidates,
    family_links,
    place_families,
    related_pairs,
    relation,
    search_families,
)
from execmem.suites.coding.builder.mutations import find_mutations
from execmem.testing.scripted_trials import ScriptedTrials, scripted_task

PATH = "pkg/ranges.py"
CODE = textwrap.dedent(
    """\
    def total(values):
        return sum(values) + len(values)


    class Low:
        def below(self, x):
            if x < 1:
                return 1
            return x * 2 if x > 5 else x

        def above(self, x):
            return x >= 7


    class High:
        def below(self, x):
            if x <= 10:
                return 10
            return x * 3 if x != 50 else x

        def above(self, x):
            return x == 70
    """
)
MUTATIONS = find_mutations(CODE, PATH)
START = datetime(2023, 1, 2, 9, 0, tzinfo=UTC)


def bug(function: str, line: int, operator: str = "compare-swap"):
    (found,) = [m for m in MUTATIONS if (m.function, m.line, m.operator) == (function, line, operator)]
    return found


TARGETS = [bug("total", 2, "arithmetic-swap"), bug("Low.below", 7), bug("High.below", 17)]
"""The library's task bugs in date order: the first may not get a family (nothing before it)."""


def main_tasks(days: tuple[int, ...] = (10, 30, 55)) -> list:
    """The TARGETS as finished tasks ``__bug-01..03``, dated ``days`` after START."""
    tasks = []
    for number, (mutation, day) in enumerate(zip(TARGETS, days, strict=True), start=1):
        task = scripted_task(mutation, CODE, START + timedelta(days=day, minutes=17 * number))
        tasks.append(task.model_copy(update={"instance_id": f"ranges-1.0__bug-{number:02d}"}))
    return tasks


def test_relation_is_decided_by_operator_file_and_function():
    fits = BugSite(PATH, "Low.below", "compare-swap")
    assert relation(fits, BugSite(PATH, "Low.below", "compare-swap")) == "same-function"
    assert relation(fits, BugSite(PATH, "Low.above", "compare-swap")) == "sibling-function"
    assert relation(fits, BugSite(PATH, "High.below", "compare-swap")) == "same-file"
    assert relation(BugSite(PATH, "f", "off-by-one"), BugSite(PATH, "g", "off-by-one")) == "sibling-function"
    assert relation(fits, BugSite(PATH, "Low.below", "off-by-one")) is None
    assert relation(fits, BugSite("pkg/other.py", "Low.below", "compare-swap")) is None


def test_candidates_share_the_operator_and_file_best_relation_first():
    options = family_candidates(TARGETS[1], MUTATIONS, others=[], skip=set())
    assert [(kind, m.function, m.line) for kind, m in options] == [
        ("same-function", "Low.below", 9),  # never the target's own line
        ("sibling-function", "Low.above", 12),
        ("same-file", "High.below", 17),
        ("same-file", "High.below", 19),
        ("same-file", "High.above", 22),
    ]
    sibling_first = family_candidates(TARGETS[1], MUTATIONS, [], set(), ("sibling-function", "same-function"))
    assert [kind for kind, _ in sibling_first] == ["sibling-function", "same-function"]


def test_candidates_add_no_relation_to_the_other_tasks():
    others = [BugSite.of(TARGETS[0]), BugSite.of(TARGETS[2])]
    options = family_candidates(TARGETS[1], MUTATIONS, others, skip=set())
    # High.below holds another task's bug; High.above would be that bug's sibling.
    assert [(m.function, m.line) for _, m in options] == [("Low.below", 9), ("Low.above", 12)]
    after_skip = family_candidates(TARGETS[1], MUTATIONS, others, skip={options[0][1].key})
    assert [(m.function, m.line) for _, m in after_skip] == [("Low.above", 12)]
    neighbour = BugSite(PATH, "Low.resize", "compare-swap")  # a sibling of every Low method
    assert family_candidates(TARGETS[1], MUTATIONS, [*others, neighbour], skip=set()) == []


def search(trials: ScriptedTrials, seed: int = 0, *, targets=TARGETS, wanted: int = 2, budget: int = 20):
    return search_families(
        targets, MUTATIONS, set(), trials, random.Random(seed), wanted=wanted, budget=budget
    )


def test_search_finds_the_wanted_families_alternating_the_preferred_relation():
    trials = ScriptedTrials({PATH: CODE})
    matches = search(trials)
    assert sorted(match.target for match in matches) == [1, 2]  # never the first task
    assert [match.relation for match in matches] == ["same-function", "sibling-function"]
    assert len(trials.tried) == 2
    for match in matches:
        assert relation(match.site, BugSite.of(TARGETS[match.target])) == match.relation
        assert match.task.meta == match.site.meta()
    assert matches[0].site.function != matches[1].site.function


def test_a_rejected_mutation_falls_back_and_the_budget_is_kept():
    same_function = bug("Low.below", 9)
    trials = ScriptedTrials({PATH: CODE}, rejected=frozenset({same_function.key}))
    (match,) = search(trials, targets=TARGETS[:2], wanted=1)
    assert (match.relation, match.site.function) == ("sibling-function", "Low.above")
    assert trials.tried == [same_function.key, bug("Low.above", 12).key]

    broke = ScriptedTrials({PATH: CODE}, rejected=frozenset({same_function.key}))
    assert search(broke, targets=TARGETS[:2], wanted=1, budget=1) == [] and len(broke.tried) == 1

    everything = frozenset(m.key for m in MUTATIONS)
    hopeless = ScriptedTrials({PATH: CODE}, rejected=everything)
    assert search(hopeless, targets=TARGETS[:2], wanted=1) == []
    assert len(hopeless.tried) == TRIALS_PER_TARGET < len(family_candidates(TARGETS[1], MUTATIONS, [], set()))


def test_search_skips_mutations_the_main_search_already_tried():
    tried = {bug("Low.below", 9).key}
    trials = ScriptedTrials({PATH: CODE})
    matches = search_families(TARGETS[:2], MUTATIONS, tried, trials, random.Random(0), wanted=1, budget=9)
    assert [m.site.function for m in matches] == ["Low.above"] and bug("Low.below", 9).key not in trials.tried
    assert tried == {bug("Low.below", 9).key}  # the caller's set is left alone


def build(seed: int):
    rng = random.Random(seed)
    matches = search_families(
        TARGETS, MUTATIONS, set(), ScriptedTrials({PATH: CODE}), rng, wanted=2, budget=20
    )
    return place_families(main_tasks(), matches, rng, START, "ranges-1.0")


def test_earlier_tasks_are_dated_before_their_target_and_linked_on_the_target_only():
    main, placed = main_tasks(), build(seed=0)
    assert len(placed) == 5
    dates = [task.created_at for task in placed]
    assert dates == sorted(dates) and len(set(dates)) == 5
    by_id = {task.instance_id: task for task in placed}
    links = family_links(placed)
    assert sorted(links) == ["ranges-1.0__bug-02", "ranges-1.0__bug-03"]
    assert sorted(earlier for earlier, _ in links.values()) == ["ranges-1.0__bug-04", "ranges-1.0__bug-05"]
    for target_id, (earlier_id, kind) in links.items():
        target, earlier = by_id[target_id], by_id[earlier_id]
        assert START < earlier.created_at < target.created_at
        assert relation(BugSite.from_meta(earlier.meta), BugSite.from_meta(target.meta)) == kind
        assert earlier.meta["family"] == {"role": "earlier"}
    for task in main:  # the library's own tasks: only the targets' meta gains the link
        kept = by_id[task.instance_id]
        assert kept.model_copy(update={"meta": task.meta}) == task
        assert ("family" in kept.meta) == (task.instance_id in links)


def test_no_task_names_a_later_task_and_the_rest_keep_unrelated_histories():
    placed = build(seed=0)
    for i, task in enumerate(placed):
        text = task.model_dump_json()
        assert not [later.instance_id for later in placed[i + 1 :] if later.instance_id in text]
    close = {(later, earlier) for later, earlier, kind in related_pairs(placed) if kind in CLOSE}
    assert close == {(target, earlier) for target, (earlier, _) in family_links(placed).items()}
    assert len(family_links(placed)) == 2  # of 5 tasks; the first task and both earlier ones have none


def test_families_are_reproducible_from_the_seed():
    assert build(seed=0) == build(seed=0)
    assert {t.created_at for t in build(seed=0)} != {t.created_at for t in build(seed=1)}


def test_an_earlier_date_falls_strictly_inside_a_gap_before_the_target():
    dates = [START + timedelta(days=5), START + timedelta(days=9), START + timedelta(days=20)]
    rng, taken = random.Random(4), set(dates)
    for _ in range(300):
        when = earlier_date(1, dates, START, taken, rng)
        assert START < when < dates[1] and when not in taken and when.second == 0
        taken.add(when)
    assert {when < dates[0] for when in taken - set(dates)} == {True, False}  # both gaps used
    crowded = [START + timedelta(minutes=1)]
    with pytest.raises(ValueError, match="no free minute"):
        earlier_date(0, crowded, START, set(crowded), random.Random(0))
