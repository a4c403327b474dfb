"""``fusion`` serves the coding suite through the protocol unchanged: issues, patches and trajectories."""

from __future__ import annotations

from datetime import datetime

import pytest

from execmem.core.protocols import MemoryMessage
from execmem.memory.embedders import HashingConfig, HashingEmbedder
from execmem.memory.fusion import FusionMemory

DATES = {
    "dates-1": datetime(2024, 1, 10, 9, 0),
    "csv-2": datetime(2024, 2, 3, 14, 0),
    "retry-3": datetime(2024, 3, 20, 11, 0),
}
RECORDS = {
    "dates-1": [
        ("issue", "parse_iso_date raises TypeError for strings with a UTC offset like +02:00"),
        ("agent", "grep -rn 'def parse_iso_date' src/"),
        ("tool", "src/timeutil/parse.py:41:def parse_iso_date(text, default_tz=None):"),
        (
            "patch",
            "--- a/src/timeutil/parse.py\n+++ b/src/timeutil/parse.py\n"
            "-    offset = text[-5:]\n+    offset = _read_offset(text)",
        ),
    ],
    "csv-2": [
        ("issue", "read_rows drops the last row when the CSV file has no trailing newline"),
        ("agent", "python -m pytest tests/test_reader.py -k read_rows"),
        ("tool", "FAILED tests/test_reader.py::test_no_trailing_newline - assert 2 == 3"),
        (
            "patch",
            "--- a/src/tablekit/reader.py\n+++ b/src/tablekit/reader.py\n"
            "-    for line in lines[:-1]:\n+    for line in lines:",
        ),
    ],
    "retry-3": [
        ("issue", "retry_call sleeps forever when max_attempts is zero"),
        ("agent", "sed -n 1,40p src/netkit/retry.py"),
        (
            "patch",
            "--- a/src/netkit/retry.py\n+++ b/src/netkit/retry.py\n"
            "+    if max_attempts <= 0:\n+        raise ValueError('max_attempts must be positive')",
        ),
    ],
}
IDENTIFIERS = ["parse_iso_date", "_read_offset", "read_rows", "retry_call", "max_attempts", "timeutil"]


def ingest(memory: FusionMemory, user_id: str) -> dict[int, str]:
    """Each task's record as one add() at its date; line id -> task."""
    owner, line = {}, 0
    for task, entries in RECORDS.items():
        messages = []
        for speaker, text in entries:
            line += 1
            owner[line] = task
            messages.append(MemoryMessage(speaker, text, DATES[task], line))
        memory.add(messages, user_id, DATES[task])
    return owner


@pytest.fixture(params=[[], IDENTIFIERS], ids=["no-lexicon", "identifier-lexicon"])
def memory(request) -> FusionMemory:
    return FusionMemory(lexicon=request.param, embedder=HashingEmbedder(HashingConfig(dim=128)))


@pytest.mark.parametrize(
    ("new_issue", "task"),
    [
        ("parse_iso_date fails on '2024-05-01T10:00:00-0700' with an offset", "dates-1"),
        ("read_rows loses data: the final row of a CSV without newline at the end is missing", "csv-2"),
        ("retry_call hangs when max_attempts=0 is passed", "retry-3"),
    ],
)
def test_a_new_issue_finds_the_earlier_fix_of_the_same_code(memory, new_issue, task):
    owner = ingest(memory, "repo-a")
    first, second, *_ = memory.search(new_issue, "repo-a", 3)
    anchor = first.line_ids[first.metadata["unit_ids"].index(first.metadata["unit_id"])]
    issue = min(line for line, owned_by in owner.items() if owned_by == task)
    assert owner[anchor] == task  # the best statement is the earlier fix's
    assert issue in first.line_ids + second.line_ids


def test_the_cut_off_keeps_later_fixes_out_and_repositories_apart(memory):
    owner = ingest(memory, "repo-a")
    items = memory.search("retry_call hangs when max_attempts=0", "repo-a", 5, before=DATES["retry-3"])
    assert items and all(owner[line] != "retry-3" for item in items for line in item.line_ids)
    assert memory.search("retry_call hangs when max_attempts=0", "repo-b", 5) == []


def test_a_patch_keeps_its_lines_in_one_statement(memory):
    owner = ingest(memory, "repo-a")
    patch_line = max(line for line, task in owner.items() if task == "csv-2")  # its last entry
    items = memory.search("tablekit reader.py lines patch", "repo-a", 3)
    (item,) = [item for item in items if patch_line in item.line_ids]
    assert (
        "[2024-02-03 14:00] patch: --- a/src/tablekit/reader.py\n+++ b/src/tablekit/reader.py\n" in item.text
    )
    assert "-    for line in lines[:-1]:\n+    for line in lines:" in item.text
