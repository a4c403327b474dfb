"""Loading the release into typed records, and clear errors for malformed files."""

from __future__ import annotations

import json
import shutil
from datetime import datetime

import pytest

from execmem.suites.vehicle.dataset import DatasetError, load_history, load_questions


def test_release_counts(vehicle_data):
    questions = load_questions(vehicle_data)
    assert len(questions) == 500
    first = questions[0]
    assert (first.scenario, first.index, first.reasoning_type) == (1, 0, "preference_conflict")
    assert first.gold_calls[0].args == {"color": "green"}
    assert "[April 15, 2025]" in first.gold_memory
    history = load_history(vehicle_data, 1)
    assert history[0].timestamp == datetime(2025, 3, 3, 8, 30)
    assert history[0].speaker == "Gary Allen" and history[0].line_no == 1


def test_repeated_timestamp_prefix_is_read_once(vehicle_data):
    line = next(h for h in load_history(vehicle_data, 18) if h.line_no == 1870)
    assert line.speaker == "Kathleen Ramirez" and line.text.startswith("Wait, screen brightness")


@pytest.fixture
def broken_release(tmp_path, vehicle_data):
    for folder in ("qa_data", "history"):
        (tmp_path / folder).mkdir()
        shutil.copy(
            vehicle_data / folder / ("qa_1.json" if folder == "qa_data" else "history_1.txt"),
            tmp_path / folder,
        )
    return tmp_path


def test_bad_call_string_names_file_item_and_field(broken_release):
    path = broken_release / "qa_data" / "qa_1.json"
    payload = json.loads(path.read_text())
    payload["related_to_vehicle_preference"][3]["new_answer"][1] = "carcontrol_x(color=green)"
    path.write_text(json.dumps(payload))
    with pytest.raises(DatasetError, match=r"qa_1\.json: item 3: field 'new_answer\[1\]'"):
        load_questions(broken_release, [1])


def test_missing_field_and_bad_json(broken_release):
    path = broken_release / "qa_data" / "qa_1.json"
    payload = json.loads(path.read_text())
    del payload["related_to_vehicle_preference"][2]["query"]
    path.write_text(json.dumps(payload))
    with pytest.raises(DatasetError, match=r"item 2: field 'query'"):
        load_questions(broken_release, [1])
    path.write_text("{\n  oops")
    with pytest.raises(DatasetError, match=r"qa_1\.json: line 2: invalid JSON"):
        load_questions(broken_release, [1])


def test_bad_history_line(broken_release):
    path = broken_release / "history" / "history_1.txt"
    lines = path.read_text().splitlines()
    lines[4] = "2025-03-03 08:32 Gary Allen: no brackets"
    path.write_text("\n".join(lines))
    with pytest.raises(DatasetError, match=r"history_1\.txt: line 5: field 'timestamp'"):
        load_history(broken_release, 1)
