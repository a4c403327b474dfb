"""Experiences: the four fields and their record, the anchoring check, the extractive distiller."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from execmem.agents.coding.sieve.distiller import DistillError
from execmem.agents.coding.sieve.extractive import ExtractiveDistiller, bug_class
from execmem.suites.coding.anchoring import check_anchoring, claims
from execmem.suites.coding.experience import Experience
from execmem.suites.coding.history import HistoryItem, TargetView
from execmem.suites.coding.patches import file_diff

SOURCE = (
    "class Grid:\n    def cell(self, row, col):\n"
    "        index = row * self.width + col\n        return self.data[index]\n"
)


def item(patch: str, trajectory: str = "step 1:\n$ cat pkg/grid.py", resolved: bool = True) -> HistoryItem:
    return HistoryItem(
        instance_id="pkg__grid-1",
        repo="pkg",
        created_at="2024-01-01T00:00:00Z",
        problem_statement="Grid.cell returns the wrong cell",
        trajectory=trajectory,
        model_patch=patch,
        resolved=resolved,
        end_reason="submitted",
        seed=0,
    )


TARGET = TargetView(
    instance_id="pkg__grid-2",
    repo="pkg",
    problem_statement="cell() is off again",
    created_at="2024-02-01T00:00:00Z",
)


def test_an_experience_renders_four_labelled_lines_and_refuses_blank_fields():
    experience = Experience(bug_class="b", root_cause="r\n  c", fix_pattern="f", reusable_lesson="l")
    assert experience.render() == "Bug class: b\nRoot cause: r c\nFix pattern: f\nReusable lesson: l"
    with pytest.raises(ValidationError):
        Experience(bug_class=" ", root_cause="r", fix_pattern="f", reusable_lesson="l")
    with pytest.raises(ValidationError):
        Experience(bug_class="b", root_cause="r", fix_pattern="f", reusable_lesson="l", extra="x")


def test_claims_are_paths_and_code_names_not_plain_words():
    text = (
        "In pkg/grid.py the method Grid.cell() used `row * self.width` wrong; check setup.cfg, "
        "index_of and getCell and render( first. Plain words stay out."
    )
    expected = ["pkg/grid.py", "Grid.cell", "row * self.width", "setup.cfg", "index_of", "getCell", "render"]
    assert claims(text) == expected
    assert claims("Look at the loop and the return value.") == []


def test_anchoring_flags_every_claim_the_history_does_not_contain():
    experience = Experience(
        bug_class="off by one",
        root_cause="`row * self.width` in pkg/grid.py",
        fix_pattern="see Grid.cell and helper_fn",
        reusable_lesson="check lib/other.py",
    )
    anchoring = check_anchoring(
        experience, "diff --git a/pkg/grid.py\n-        index = row  *  self.width + col\n Grid.cell"
    )
    assert anchoring.claims == ["row * self.width", "pkg/grid.py", "Grid.cell", "helper_fn", "lib/other.py"]
    assert anchoring.unanchored == ["helper_fn", "lib/other.py"] and not anchoring.anchored
    assert anchoring.to_dict()["anchored"] is False


@pytest.mark.parametrize(
    ("before", "after", "kind"),
    [
        (["if a < b:"], ["if a <= b:"], "wrong comparison operator"),
        (["x = a - b"], ["x = a + b"], "wrong arithmetic operator"),
        (["return n + 1"], ["return n + 2"], "off-by-one or wrong constant"),
        (["if not ok:"], ["if ok:"], "inverted boolean logic"),
        (["f(a, b)"], ["f(b, a)"], "swapped arguments or operands"),
        ([], ["return None"], "missing code"),
        (["print(x)"], [], "extra code"),
        ([], ["# looked here"], "no code change"),
        (["x = compute(a)"], ["x = other(a)"], "wrong expression"),
    ],
)
def test_bug_classes(before, after, kind):
    assert bug_class(before, after) == kind


def test_the_extractive_experience_names_the_function_and_file_and_is_anchored():
    patch = file_diff("pkg/grid.py", SOURCE.replace("row * self.width", "row * self.height"), SOURCE)
    patch = patch.replace("@@ -1,4 +1,4 @@", "@@ -1,4 +1,4 @@ class Grid:")
    history = item(patch)
    experience = asyncio.run(ExtractiveDistiller().distill(TARGET, history))
    assert experience.bug_class == "wrong expression"
    assert "`cell` in pkg/grid.py" in experience.root_cause
    assert "`index = row * self.height + col`" in experience.fix_pattern
    assert "`index = row * self.width + col`" in experience.fix_pattern
    assert experience.reusable_lesson.endswith("the earlier change there resolved its issue")
    assert check_anchoring(experience, history.evidence()).anchored


def test_the_extractive_distiller_refuses_an_empty_patch():
    with pytest.raises(DistillError, match="changes no file"):
        asyncio.run(ExtractiveDistiller().distill(TARGET, item("")))
    assert ExtractiveDistiller().describe() == {
        "kind": "extractive",
        "version": "sieve-extractive-v1",
        "model": None,
    }
