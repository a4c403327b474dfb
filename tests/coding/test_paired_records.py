"""Memory records: earlier same-repo fixes, N newest first, capped; the controls match their size."""

from __future__ import annotations

from datetime import timedelta

import pytest

from execmem.suites.coding.conditions import MemorySource, describe_memory, memory_for
from execmem.suites.coding.everyday import everyday_sentences
from execmem.suites.coding.records import (
    RecordError,
    RecordPolicy,
    other_repo_memory,
    record_memory,
    touched_functions,
    write_record,
)
from tests.coding.paired_support import make_task

GIT_STYLE = """diff --git a/pkg/mod.py b/pkg/mod.py
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -40,7 +40,7 @@ class Parser:
     def feed(self, data):
         self.buffer += data
-        return len(data)
+        return len(self.buffer)
@@ -90,3 +90,3 @@ def helper(x):
     y = x
-    return y
+    return -y
"""


@pytest.fixture
def tasks(tmp_path):
    """alpha: double (day 1), inc (day 2), neg (day 3); beta: the same, a day later each."""
    made = [make_task(tmp_path, "alpha", day, fn) for day, fn in enumerate(("double", "inc", "neg"), 1)]
    for day, fn in enumerate(("double", "inc", "neg"), 1):
        task = make_task(tmp_path, "beta", day, fn)
        made.append(task.model_copy(update={"created_at": task.created_at + timedelta(days=1)}))
    return made


def by_id(tasks, name):
    return next(t for t in tasks if t.instance_id == name)


def test_a_record_names_files_functions_tests_and_the_issue(tasks):
    text = write_record(by_id(tasks, "alpha__inc"))
    assert "2024-01-02" in text and "In alpha, inc(3) gives a wrong result." in text
    assert "files changed: alpha/core.py" in text and "functions changed: inc" in text
    assert "failing tests: tests/test_core.py::test_inc" in text


def test_touched_functions_use_enclosing_definitions_and_hunk_headers():
    assert touched_functions(GIT_STYLE) == ["feed", "helper"]
    assert touched_functions("") == []


def test_record_holds_the_n_most_recent_earlier_same_repo_fixes_newest_first(tasks):
    target = by_id(tasks, "alpha__neg")
    memory = record_memory(target, tasks, RecordPolicy(n_records=3, max_chars=10_000))
    assert memory.sources == ("alpha__inc", "alpha__double")
    assert memory.text.index("inc(3)") < memory.text.index("double(3)")
    assert "beta" not in memory.text and "neg(3)" not in memory.text
    one = record_memory(target, tasks, RecordPolicy(n_records=1, max_chars=10_000))
    assert one.sources == ("alpha__inc",) and one.text == write_record(by_id(tasks, "alpha__inc"))


def test_same_day_and_later_tasks_never_leak_into_the_record(tasks):
    first = by_id(tasks, "alpha__double")
    assert record_memory(first, tasks, RecordPolicy()).text is None
    twin = first.model_copy(update={"instance_id": "alpha__twin"})
    assert record_memory(twin, [*tasks, twin], RecordPolicy()).text is None


def test_record_text_is_cut_at_the_character_cap(tasks):
    memory = record_memory(by_id(tasks, "alpha__neg"), tasks, RecordPolicy(max_chars=50))
    assert len(memory.text) == 50 and memory.text.startswith("- fix of 2024-01-02")


def other_repo(target, tasks, policy):
    return memory_for("other-repo", target, MemorySource(tasks, policy))


def test_other_repo_control_has_the_records_size_but_another_repos_content(tasks):
    policy = RecordPolicy(n_records=2, max_chars=10_000)
    for target in tasks:
        record = record_memory(target, tasks, policy)
        control = other_repo(target, tasks, policy)
        assert len(control.text or "") == len(record.text or "")
        if record.text:
            other = "beta" if target.repo == "local/alpha" else "alpha"
            assert other in control.text and target.repo.split("/")[1] not in control.text
            assert all(source.startswith(other) for source in control.sources)
    assert other_repo(by_id(tasks, "alpha__neg"), tasks, policy) == other_repo(
        by_id(tasks, "alpha__neg"), tasks, policy
    )


def test_irrelevant_control_is_everyday_text_of_the_records_size(tasks):
    policy = RecordPolicy(n_records=2, max_chars=10_000)
    sentences = everyday_sentences()
    for target in tasks:
        record = record_memory(target, tasks, policy)
        control = memory_for("irrelevant", target, MemorySource(tasks, policy))
        assert len(control.text or "") == len(record.text or "")
        if record.text:
            assert control.text.startswith(tuple(sentences)) and "core.py" not in control.text
            assert all(source.startswith("everyday:") for source in control.sources)
    first, second = (memory_for("irrelevant", by_id(tasks, n), MemorySource(tasks, policy)) for n in
                     ("alpha__neg", "beta__neg"))  # fmt: skip
    assert first.text[:40] != second.text[:40]  # the order is fixed per target


def test_a_long_record_is_matched_by_repeating_a_short_donor(tasks):
    policy = RecordPolicy(n_records=3, max_chars=10_000)
    target = by_id(tasks, "alpha__neg")
    donor = [by_id(tasks, "beta__double")]
    size = len(record_memory(target, tasks, policy).text)
    control = other_repo_memory(target, [*tasks[:3], *donor], size)
    assert len(control.text) == size
    assert control.text.count("beta, double(3)") == 2 and control.sources == ("beta__double",)


def test_conditions(tasks):
    target, policy = by_id(tasks, "beta__inc"), RecordPolicy()
    source = MemorySource(tasks, policy)
    assert memory_for("off", target, source).text is None
    assert memory_for("record", target, source) == record_memory(target, tasks, policy)
    with pytest.raises(RecordError, match="unknown memory condition 'gold'"):
        memory_for("gold", target, source)
    with pytest.raises(RecordError, match="needs a frozen file"):
        memory_for("frozen", target, source)
    with pytest.raises(RecordError, match="another repository"):
        memory_for("other-repo", by_id(tasks, "alpha__neg"), MemorySource(tasks[:3], policy))


def test_policies_are_described_for_the_manifest(tasks):
    source = MemorySource(tasks, RecordPolicy(n_records=2, max_chars=500))
    assert describe_memory("off", source) == {"condition": "off", "injected": "nothing"}
    block = describe_memory("record", source)
    for key in ("write_policy", "retrieval_trigger", "insertion_rule", "truncation_rule"):
        assert block[key]
    assert "2 most recent" in block["insertion_rule"] and "500 characters" in block["truncation_rule"]
    assert block["n_records"] == 2 and "control_rule" not in block
    for control in ("irrelevant", "other-repo"):
        described = describe_memory(control, source)
        assert described["matches"] == "record" and described["control_rule"]
        assert {k: v for k, v in described.items() if k in block} == block | {"condition": control}
    assert "everyday" in describe_memory("irrelevant", source)["control_rule"]
