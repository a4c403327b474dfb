"""The attribution rules of docs/attribution.md on hand-made records, rankings and trajectories."""

from __future__ import annotations

import pytest

from execmem.suites.coding.attribution.anchors import gold_anchors, shared_anchors, statement_anchors
from execmem.suites.coding.attribution.gate import gate
from execmem.suites.coding.attribution.record_form import record_form
from execmem.suites.coding.attribution.rules import PairInput, attribute, form_subtype, is_clean
from execmem.suites.coding.attribution.strip import strip_arms

GOLD = """diff --git a/pkg/core.py b/pkg/core.py
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -1,5 +1,5 @@
 def scale_value(x):
-    return x * 3
+    return x * 2
"""
STATEMENT = (
    "After a recent change to `pkg.core`, tests fail.\n- `tests/test_core.py::test_scale`: assert 9 == 6"
)
ANCHORS = gold_anchors(GOLD)
CLEAN = (
    "Bug class: wrong constant\nRoot cause: `scale_value` in pkg/core.py multiplies by the wrong factor\n"
    "Fix pattern: restore the factor 2\nReusable lesson: look at scale_value first"
)
POLLUTED = "\n".join(
    ["You are a software engineer fixing a bug in a Python repository.", "Do not change the tests.",
     "When you are done, run `echo EXECMEM_SUBMIT`.", "user: the scale test fails",
     "assistant: I fixed scale_value in pkg/core.py", *[f"note {i}" for i in range(20)]]
)  # fmt: skip
NOISY = "\n".join(
    ["step 1:", "$ grep -n 'def scale_value' pkg/core.py", "-> exit 0", "  1:def scale_value(x):",
     "step 2:", "$ python -m pytest -q", "-> exit 1", "  1 failed in 0.2s",
     "fixed scale_value in pkg/core.py"]
)  # fmt: skip
SYMPTOM = "test_scale fails: AssertionError: assert 9 == 6"
NO_FIX = "The user works on a Python package.\nThe user likes small functions."
GENERAL = "The user fixed an arithmetic bug by restoring the right constant."


@pytest.mark.parametrize(
    ("text", "subtype"),
    [
        (CLEAN, None),
        (POLLUTED, "instruction_pollution"),
        (NOISY, "tool_shell_noise"),
        (SYMPTOM, "fix_replaced_by_symptom"),
        (NO_FIX, "fix_missing"),
        (GENERAL, "over_generalised_fix"),
        (STATEMENT, "fix_replaced_by_symptom"),  # "a recent change to" is no change
        (GOLD, None),  # a diff is a fix, and it names the file
    ],
)
def test_each_record_form_gets_its_subtype(text, subtype):
    assert form_subtype(record_form(text), ANCHORS, text) == subtype
    assert is_clean(text, ANCHORS) is (subtype is None)


def test_the_thresholds_count_lines_and_shares():
    one = "Please keep this in mind.\nfixed scale_value in pkg/core.py"
    assert record_form(one).flagged == (0,) and not record_form(one).polluted  # 1 line < 2
    diluted = "\n".join(["Please read.", "You must look.", *["fixed scale_value"] * 60])
    form = record_form(diluted)
    assert len(form.flagged) == 2 and form.share(form.flagged) < 0.05 and not form.polluted
    assert record_form(NOISY).noise == (0, 1, 2, 3, 4, 5, 6, 7)


def test_anchors_are_whole_words_paths_and_directories():
    assert ANCHORS.files == {"pkg/core.py"} and ANCHORS.dirs == {"pkg"}
    assert {"scale_value"} <= ANCHORS.identifiers
    assert not shared_anchors("scale_value-like code, see pkg", ANCHORS).any
    shared = shared_anchors("look in core.py under pkg/", ANCHORS)
    assert shared.files == ("pkg/core.py",) and shared.dirs == ("pkg",)
    prose = gold_anchors(GOLD.replace("return x * 2", "return value or the"))
    assert {"value", "the"} <= prose.identifiers
    assert not shared_anchors("the value was wrong", prose).identifiers
    for code in ("`value` was wrong", "obj.value was wrong", "value(3)", "value = 2", "def value"):
        assert shared_anchors(code, prose).identifiers == ("value",), code
    init = gold_anchors(GOLD.replace("pkg/core.py", "pkg/__init__.py"))
    assert not shared_anchors("see __init__.py", init).files
    words = statement_anchors(STATEMENT, "pypi/pkg")
    assert words.files == {"tests/test_core.py"} and "test_scale" in words.identifiers
    assert "pkg" not in words.identifiers and {"core", "pkg.core"} <= words.identifiers


def pair(**changes) -> PairInput:
    values = dict(target="t", statement=STATEMENT, anchors=ANCHORS, r_off=0.0, r_frozen=1.0,
                  r_system=0.0, record=CLEAN, frozen_ids=frozenset({"h1"}))  # fmt: skip
    return PairInput(**(values | changes))


def step(n: int, command: str, said: str = "") -> dict:
    return {"step": n, "assistant": {"content": said}, "tool_results": [{"command": command}]}


def test_a_pair_fails_only_below_off_and_frozen():
    assert not pair(r_system=1.0).failed and attribute(pair(r_system=1.0)).label is None
    assert pair(r_off=1.0, r_frozen=0.5, r_system=0.75).failed
    assert not pair(r_off=0.5, r_frozen=0.5, r_system=0.5).failed


def test_solver_bound_comes_first():
    found = attribute(pair(r_off=1.0, r_frozen=0.25, r_system=0.5, record=POLLUTED))
    assert found.label == "solver_bound" and found.evidence["rates"]["frozen"] == 0.25


def test_a_ranking_miss_needs_the_frozen_history_ranked_but_not_injected():
    ranking = [
        {"rank": 1, "history_ids": ["h9"], "injected": True, "score": 3.0},
        {"rank": 2, "history_ids": ["h1"], "injected": False, "score": 2.5},
    ]
    found = attribute(pair(record=POLLUTED, ranking=ranking))
    assert found.label == "ranking_miss"
    assert found.evidence["ranking"] == {"state": "miss", "rank": 2, "score": 2.5, "history_ids": ["h1"],
                                         "injected_ranks": [1]}  # fmt: skip
    hit = [{**ranking[0], "history_ids": ["h1"]}, ranking[1]]
    found = attribute(pair(record=POLLUTED, ranking=hit))
    assert found.label == "form_degradation" and found.subtype == "instruction_pollution"
    assert found.evidence["ranking"]["state"] == "frozen history injected"
    assert attribute(pair(record=POLLUTED)).evidence["ranking"] == {"state": "unknown"}


def test_use_failure_needs_the_solver_to_read_the_record():
    opened = {0: [step(0, "cat pkg/core.py")]}
    found = attribute(pair(unresolved=opened, off_steps=[[step(0, "sed -n 1,5p pkg/core.py")]]))
    assert found.label == "use_failure"
    hit = {"seed": 0, "step": 0, "kind": "opened", "matched": "pkg/core.py"}
    assert found.evidence["read"]["hits"][0] == hit
    assert found.evidence["read"]["also_off"] == ["pkg/core.py"]
    said = "The note says: scale_value in pkg/core.py multiplies by the wrong factor"
    quoted = {2: [step(3, "ls", said=said)]}
    kinds = {h["kind"] for h in attribute(pair(unresolved=quoted)).evidence["read"]["hits"]}
    assert kinds == {"quoted"}
    assert attribute(pair(unresolved={0: [step(0, "ls tests")]})).reason == "no rule matched"
    assert attribute(pair(record=None)).reason == "no record injected"


def test_the_statement_does_not_count_as_reading():
    record = "Fix in tests/test_core.py: change test_scale to assert 6"
    found = attribute(pair(record=record + " in pkg/", unresolved={0: [step(0, "cat tests/test_core.py")]}))
    assert found.label == "other"


def test_strip_arms_remove_the_flagged_lines_or_as_many_random_ones():
    arms = strip_arms(POLLUTED, "t", seed=0)
    lines = POLLUTED.splitlines()
    assert arms.flagged == (0, 1, 2)
    assert arms.texts["flagged-removed"].splitlines() == lines[3:]
    assert len(arms.random_removed) == 3 and not set(arms.random_removed) & set(arms.flagged)
    kept = [line for i, line in enumerate(lines) if i not in arms.random_removed]
    assert arms.texts["random-removed"].splitlines() == kept and arms.texts["original"] == POLLUTED
    assert strip_arms(POLLUTED, "t", seed=0) == arms
    assert {strip_arms(POLLUTED, "t", seed=s).random_removed for s in range(5)} != {arms.random_removed}
    assert arms.derived_from()["flagged_lines"] == [1, 2, 3]


def test_the_gate_needs_low_off_and_an_anchor():
    assert gate(CLEAN, 0.25, ANCHORS).inject
    assert not gate(CLEAN, 0.5, ANCHORS).inject  # at the threshold: no
    assert not gate(GENERAL, 0.0, ANCHORS).inject
    assert not gate(None, 0.0, ANCHORS).inject
    assert gate(GENERAL + " in pkg/", 0.0, ANCHORS, off_below=0.25).anchors["dirs"] == ["pkg"]
