"""The vehicle commands end to end, through the real typer app."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from execmem.cli.main import app

runner = CliRunner()


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(autouse=True)
def _data_env(vehicle_data, monkeypatch):
    monkeypatch.setenv("EXECMEM_VEHICLE_DATA", str(vehicle_data))


def test_replay_diff_covers_calls_only_and_reports_failures():
    lines = [
        {
            "setup": ['carcontrol_door_set_locked(door="driver", locked=true)'],
            "calls": [
                {"name": "carcontrol_door_set_open", "args": {"door": "driver", "is_open": True}},
                'carcontrol_door_set_locked(door="driver", locked=false)',
            ],
        },
        {
            "calls": [
                'carcontrol_radio_play_station(name="News FM")',
                "carcontrol_seat_set_folded(folded=true)",
                "carcontrol_nothing(a=1)",
            ]
        },
    ]
    result = runner.invoke(app, ["vehicle", "replay", "-"], input="\n".join(json.dumps(x) for x in lines))
    assert result.exit_code == 0, result.output
    first, second = _lines(result.stdout)
    assert first["diff"] == {"door.driver.is_locked": {"before": True, "after": False}}
    assert first["results"][0] == {
        "name": "carcontrol_door_set_open",
        "success": False,
        "message": "cannot open door when it is locked",
        "current_state": {},
    }
    assert second["diff"]["radio.current_station.name"] == {
        "before": None,
        "after": "News FM",
        "kind": "added",
    }
    assert second["diff"]["radio.is_on"] == {"before": False, "after": True}
    folded, unknown = second["results"][1:]
    assert folded["success"] is False and folded["raised"] == "TypeError" and "'seat'" in folded["message"]
    assert unknown == {
        "name": "carcontrol_nothing",
        "success": False,
        "message": "Function carcontrol_nothing not found",
    }


def test_replay_bad_input_names_line_and_field(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"calls": []}\n\n{"calls": ["f(a=x)"]}\n')
    result = runner.invoke(app, ["vehicle", "replay", str(source)])
    assert result.exit_code == 2
    assert f"{source}:3" in result.stderr and "calls[0]" in result.stderr
    source.write_text('{"calls": [}\n')
    result = runner.invoke(app, ["vehicle", "replay", str(source)])
    assert result.exit_code == 2 and f"{source}:1: invalid JSON" in result.stderr


def test_gold_then_score_is_exact_and_summarised(tmp_path):
    gold = runner.invoke(app, ["vehicle", "gold"])
    assert gold.exit_code == 0
    summary = tmp_path / "summary.json"
    scored = runner.invoke(app, ["vehicle", "score", "--summary", str(summary)], input=gold.stdout)
    assert scored.exit_code == 0, scored.output
    rows = _lines(scored.stdout)
    assert len(rows) == 500 and all(r["exact_match"] for r in rows)
    overall = json.loads(summary.read_text())["overall"]
    assert overall["n"] == 500 and overall["exact_match"] == 1.0 and overall["tool"]["f1"] == 1.0


def test_score_imperfect_predictions_macro_averages():
    preds = [
        {
            "id": "a",
            "scenario": 1,
            "index": 1,
            "calls": ['carcontrol_seat_set_headrest_height(seat="driver", value=44)'],
        },
        {
            "id": "b",
            "scenario": 1,
            "index": 1,
            "calls": ['carcontrol_seat_set_headrest_height(seat="front", value=44)'],
        },
        {"id": "c", "scenario": 1, "index": 0, "calls": []},
    ]
    result = runner.invoke(app, ["vehicle", "score"], input="\n".join(json.dumps(p) for p in preds))
    rows = {r["id"]: r for r in _lines(result.stdout)}
    assert rows["a"]["exact_match"] and not rows["b"]["exact_match"] and not rows["c"]["exact_match"]
    assert rows["b"]["field"] == {"precision": 0.5, "recall": 1.0, "f1": pytest.approx(2 / 3)}
    assert rows["c"]["field"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert rows["a"]["reasoning_type"] == "preference_conflict"


def test_score_rejects_unknown_question():
    result = runner.invoke(app, ["vehicle", "score"], input='{"scenario": 51, "index": 0, "calls": []}\n')
    assert result.exit_code == 2 and "<stdin>:1" in result.stderr and "scenario" in result.stderr


def test_lint_finds_every_known_gold_problem():
    result = runner.invoke(app, ["vehicle", "lint", "--json"])
    assert result.exit_code == 0
    found = {(f["kind"], tuple(f["questions"])) for f in _lines(result.stdout)}
    expected = {
        ("gold-rejected", ("qa_19 #4",)),
        ("gold-rejected", ("qa_45 #3",)),
        ("gold-fails-then-succeeds", ("qa_42 #8",)),
        ("gold-fails-then-succeeds", ("qa_47 #5",)),
        ("gold-no-change", ("qa_31 #9",)),
        ("gold-no-change", ("qa_41 #3",)),
        ("gold-no-change", ("qa_43 #2",)),
        ("duplicate-query", ("qa_38 #2", "qa_38 #3")),
        ("duplicate-query", ("qa_44 #4", "qa_44 #5")),
    }
    assert expected <= found
    assert {kind for kind, _ in found - expected} == {"repeated-call"}


def test_missing_data_dir_message(tmp_path, monkeypatch):
    monkeypatch.setenv("EXECMEM_VEHICLE_DATA", str(tmp_path / "nowhere"))
    result = runner.invoke(app, ["vehicle", "lint"])
    assert result.exit_code == 2
    assert "execmem data fetch vehicle" in result.stderr


def test_python_dash_m_entry_point():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "execmem", "version"], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == __import__("execmem").__version__
