"""The history pool and the leak-safe types: what a target may know of its past, and nothing more."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from execmem.agents.coding.sieve.prompts import distill_messages
from execmem.suites.coding.history import (
    HistoryItem,
    TargetView,
    carries_identifiers,
    history_pool,
    identifier_leaks,
    issue_number,
    target_view,
)
from tests.coding.paired_support import make_task

GOLD_FIELDS = {"patch", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS", "outcomes", "meta"}


@pytest.fixture
def tasks(tmp_path):
    made = [make_task(tmp_path, "alpha", day, fn) for day, fn in enumerate(("double", "inc", "neg"), 1)]
    return [*made, make_task(tmp_path, "beta", 1, "double")]


def test_the_views_carry_no_gold_patch_test_patch_or_test_result(tasks):
    assert set(TargetView.model_fields) == {"instance_id", "repo", "problem_statement", "created_at"}
    assert not GOLD_FIELDS & set(HistoryItem.model_fields)
    view = target_view(tasks[2])
    assert view.model_dump().keys() == TargetView.model_fields.keys()
    with pytest.raises(ValidationError):
        TargetView(**view.model_dump(), patch=tasks[2].patch)
    with pytest.raises(ValidationError):
        HistoryItem(
            instance_id="x",
            repo="r",
            created_at=view.created_at,
            problem_statement="p",
            trajectory="t",
            model_patch="",
            resolved=False,
            end_reason="submitted",
            seed=0,
            gold_patch="leak",
        )


def test_the_pool_is_the_strictly_earlier_same_repository_tasks(tasks):
    target = target_view(tasks[2])
    assert [t.instance_id for t in history_pool(target, tasks)] == ["alpha__double", "alpha__inc"]
    same_day = tasks[1].model_copy(update={"instance_id": "alpha__same", "created_at": tasks[2].created_at})
    later = tasks[0].model_copy(
        update={"instance_id": "alpha__later", "created_at": tasks[2].created_at + timedelta(1)}
    )
    pool = history_pool(target, [*tasks, same_day, later])
    assert [t.instance_id for t in pool] == ["alpha__double", "alpha__inc"]
    assert history_pool(target, tasks, eligible=["alpha__inc"])[0].instance_id == "alpha__inc"
    assert history_pool(target_view(tasks[0]), tasks) == []


def test_tasks_carrying_the_targets_identifiers_are_left_out(tasks):
    target = tasks[2].model_copy(update={"instance_id": "org__alpha-1234"})
    view = target_view(target)
    naming_id = tasks[0].model_copy(update={"problem_statement": "Same as org__alpha-1234, see there."})
    naming_issue = tasks[1].model_copy(update={"patch": tasks[1].patch + "\n# fixes #1234\n"})
    pool = history_pool(view, [naming_id, naming_issue, target])
    assert pool == []
    assert carries_identifiers(naming_id, view) == ["org__alpha-1234"]
    assert carries_identifiers(naming_issue, view) == ["issue 1234"]
    assert carries_identifiers(target, view) == ["org__alpha-1234"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("see org__alpha-1234 for details", ["org__alpha-1234"]),
        ("fixed in #1234.", ["issue 1234"]),
        ("Issue 1234 again", ["issue 1234"]),
        ("https://host/org/alpha/issues/1234", ["issue 1234"]),
        ("pull/1234 merged", ["issue 1234"]),
        ("#12345 and 1234 apples and #123", []),
    ],
)
def test_identifier_leaks(text, found):
    view = TargetView(
        instance_id="org__alpha-1234",
        repo="org/alpha",
        problem_statement="x",
        created_at="2024-01-01T00:00:00Z",
    )
    assert identifier_leaks(text, view) == found
    assert issue_number("org__alpha-0042") == "42" and issue_number("demo") is None


def test_the_distillers_prompt_holds_no_gold_patch_of_the_target(tasks):
    target, history = tasks[2], tasks[0]
    item = HistoryItem(
        instance_id=history.instance_id,
        repo=history.repo,
        created_at=history.created_at,
        problem_statement=history.problem_statement,
        trajectory="step 1:\n$ ls",
        model_patch="",
        resolved=False,
        end_reason="submitted",
        seed=0,
    )
    text = "\n".join(m["content"] for m in distill_messages(target_view(target), item))
    assert target.patch not in text and target.problem_statement in text and "tests/test_core.py" not in text
