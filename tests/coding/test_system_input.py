"""What a memory system is given in Layer B: one conversation per history item, stamped strictly
before the target, with line ids; and the declared target query."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from execmem.suites.coding.history import HistoryItem, TargetView
from execmem.suites.coding.system_input import (
    ISSUE_SPEAKER,
    PATCH_HEADER,
    SOLVER_SPEAKER,
    conversation,
    target_query,
    trajectory_steps,
)

CREATED = datetime(2024, 1, 2, tzinfo=UTC)
TRAJECTORY = (
    "step 1:\nlooking\n$ grep -n 'def f' pkg/m.py\n-> exit 0\n  3:def f(x):\n"
    "step 2:\n$ echo EXECMEM_SUBMIT\nend: submitted"
)
PATCH = (
    "diff --git a/pkg/m.py b/pkg/m.py\n--- a/pkg/m.py\n+++ b/pkg/m.py\n"
    "@@ -3 +3 @@ def f(x):\n-    return x\n+    return -x\n"
)


def item(**overrides) -> HistoryItem:
    fields = {"instance_id": "pkg__f-7", "repo": "local/pkg", "created_at": CREATED,
              "problem_statement": "f(3) is wrong", "trajectory": TRAJECTORY, "model_patch": PATCH,
              "resolved": True, "end_reason": "submitted", "seed": 0}  # fmt: skip
    return HistoryItem(**(fields | overrides))


def test_a_history_item_is_the_issue_then_each_step_then_the_final_patch():
    messages = conversation(item(), CREATED + timedelta(days=1), first_line=11)
    assert [m.speaker for m in messages] == [ISSUE_SPEAKER, SOLVER_SPEAKER, SOLVER_SPEAKER, SOLVER_SPEAKER]
    assert messages[0].text == "f(3) is wrong"
    assert messages[1].text.startswith("step 1:\nlooking\n$ grep") and messages[1].text.endswith(
        "3:def f(x):"
    )
    assert messages[2].text == "step 2:\n$ echo EXECMEM_SUBMIT\nend: submitted"  # the end line stays with it
    assert messages[3].text == f"{PATCH_HEADER}\n{PATCH.strip()}"
    assert [m.line_id for m in messages] == [11, 12, 13, 14]
    assert [m.timestamp - CREATED for m in messages] == [timedelta(seconds=s) for s in range(4)]
    assert not any("pkg__f-7" in m.text for m in messages)  # the history id is the harness's, not the text's


def test_stamps_stay_strictly_before_a_target_only_a_moment_later():
    target = CREATED + timedelta(seconds=2)
    stamps = [m.timestamp for m in conversation(item(), target, 1)]
    assert stamps == sorted(stamps) and len(set(stamps)) == 4 and max(stamps) < target
    with pytest.raises(ValueError, match="not older than the target"):
        conversation(item(), CREATED, 1)


def test_empty_parts_are_left_out():
    assert trajectory_steps("") == [] and trajectory_steps("note\nstep 1:\n$ ls") == ["note", "step 1:\n$ ls"]
    messages = conversation(item(trajectory="", model_patch="  "), CREATED + timedelta(days=1), 1)
    assert [m.speaker for m in messages] == [ISSUE_SPEAKER]


def test_the_query_comes_from_the_target_view_alone():
    view = TargetView(instance_id="pkg__f-9", repo="local/pkg", created_at=CREATED,
                      problem_statement="\n  f(4) is wrong too  \nDetails: it returns 4.\n")  # fmt: skip
    assert target_query(view, "problem") == "f(4) is wrong too  \nDetails: it returns 4."
    assert target_query(view, "title") == "f(4) is wrong too"
    with pytest.raises(ValueError, match="unknown query 'gold'"):
        target_query(view, "gold")
