from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from execmem.suites.coding.tasks import CodingTask, TaskFileError, dump_tasks, load_tasks
from tests.coding.conftest import task_record


def write_lines(path: Path, records: list) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def test_lists_given_as_json_strings_are_accepted(tmp_path):
    record = task_record(FAIL_TO_PASS='["a.py::t1", "a.py::t2"]', PASS_TO_PASS="[]")
    (task,) = load_tasks(write_lines(tmp_path / "t.jsonl", [record]))
    assert task.FAIL_TO_PASS == ["a.py::t1", "a.py::t2"]
    assert task.PASS_TO_PASS == []
    assert task.created_at == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_swe_bench_extra_fields_are_kept(tmp_path):
    (task,) = load_tasks(write_lines(tmp_path / "t.jsonl", [task_record(hints_text="see #12")]))
    assert task.model_extra == {"hints_text": "see #12"}


def test_round_trip(tmp_path):
    tasks = [CodingTask.model_validate(task_record(instance_id=f"demo__bug-{n}")) for n in range(3)]
    dump_tasks(tasks, tmp_path / "out" / "tasks.jsonl")
    assert load_tasks(tmp_path / "out" / "tasks.jsonl") == tasks


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (task_record(FAIL_TO_PASS="[oops"), ":2: field FAIL_TO_PASS: Value error, not a JSON list"),
        (task_record(FAIL_TO_PASS=[]), ":2: field FAIL_TO_PASS:"),
        (task_record(created_at="yesterday"), ":2: field created_at:"),
        (task_record(test_cmd="pytest tests"), ":2: field test_cmd: Value error, must contain the {junit}"),
        ({k: v for k, v in task_record().items() if k != "repo"}, ":2: field repo: Field required"),
        (task_record(install=[1]), ":2: field install.0:"),
        ("[1, 2]", ":2: expected a JSON object, got list"),
        ('{"instance_id": ', ":2: invalid JSON"),
    ],
)
def test_errors_name_file_line_and_field(tmp_path, record, expected):
    path = write_lines(tmp_path / "bad.jsonl", [task_record(instance_id="first"), record])
    with pytest.raises(TaskFileError) as caught:
        load_tasks(path)
    assert str(caught.value).startswith(f"{path}{expected}")


def test_duplicate_ids_are_rejected_with_their_line(tmp_path):
    path = write_lines(tmp_path / "dup.jsonl", [task_record(), "", task_record()])
    with pytest.raises(TaskFileError, match=r"dup.jsonl:3: field instance_id: duplicate 'demo__bug-01'"):
        load_tasks(path)


def test_test_command_fills_and_quotes_the_report_path():
    task = CodingTask.model_validate(task_record())
    assert task.test_command("/tmp/a b/r.xml") == "python -m pytest --junitxml='/tmp/a b/r.xml' tests"
