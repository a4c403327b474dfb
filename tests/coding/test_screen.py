"""The patch-pattern screen's deterministic scorer: shared files, directories and cleaned identifiers."""

from __future__ import annotations

from datetime import datetime, timedelta

from execmem.suites.coding.patches import file_diff
from execmem.suites.coding.screen import ScreenPolicy, jaccard, patch_features, screen
from execmem.suites.coding.tasks import CodingTask

SOURCE = (
    "def scale(value, factor):\n    total = value * factor\n    return total\n\n\n"
    "def shift(value):\n    return value + 1\n"
)


def task(name: str, path: str, before: str, after: str, day: int) -> CodingTask:
    return CodingTask(
        instance_id=name,
        repo="r",
        problem_statement=name,
        patch=file_diff(path, before, after),
        FAIL_TO_PASS=["t::x"],
        created_at=datetime(2024, 1, 1) + timedelta(days=day),
        version="1",
        test_cmd="pytest --junitxml={junit}",
    )


def test_features_are_files_directories_and_cleaned_identifiers():
    patch = file_diff("pkg/mod.py", SOURCE, SOURCE.replace("value * factor", "value * factor * self.k"))
    features = patch_features(patch)
    assert features.files == {"pkg/mod.py"} and features.dirs == {"pkg"}
    assert {"total", "value", "factor", "scale"} <= features.identifiers
    assert not {"self", "return", "len", "k"} & features.identifiers
    assert patch_features(file_diff("top.py", "a = 1\n", "a = 2\n")).dirs == {"."}
    assert jaccard(frozenset(), frozenset()) == 0.0


def test_the_same_function_beats_the_same_file_beats_another_file():
    target = file_diff("pkg/mod.py", SOURCE.replace("value * factor", "value / factor"), SOURCE)
    same_function = task("a", "pkg/mod.py", SOURCE.replace("value * factor", "value + factor"), SOURCE, 1)
    same_file = task("b", "pkg/mod.py", SOURCE.replace("value + 1", "value - 1"), SOURCE, 2)
    other = task("c", "lib/other.py", "x = 1\n", "x = 2\n", 3)
    scores, shortlist = screen(target, [other, same_file, same_function], ScreenPolicy(top_n=2))
    assert [s.history_id for s in scores] == ["a", "b", "c"]
    assert [s.history_id for s in shortlist] == ["a", "b"]
    assert scores[0].shared_files == ("pkg/mod.py",) and "factor" in scores[0].shared_identifiers
    assert scores[2].score == 0.0
    _, strict = screen(target, [other, same_file, same_function], ScreenPolicy(min_score=scores[1].score))
    assert [s.history_id for s in strict] == ["a"]


def test_ties_go_to_the_newer_task():
    target = file_diff("pkg/mod.py", SOURCE.replace("value + 1", "value + 2"), SOURCE)
    older = task("old", "pkg/mod.py", SOURCE.replace("value + 1", "value - 1"), SOURCE, 1)
    newer = task("new", "pkg/mod.py", SOURCE.replace("value + 1", "value - 1"), SOURCE, 2)
    _, shortlist = screen(target, [older, newer], ScreenPolicy())
    assert [s.history_id for s in shortlist] == ["new", "old"]
    assert ScreenPolicy().describe()["version"] == "sieve-screen-v1"
