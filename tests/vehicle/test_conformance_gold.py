"""All 500 gold answers: same per-call outcomes, same state diff, exact self-match."""

from __future__ import annotations

import pytest

from execmem.suites.vehicle.calls import parse_call_string
from execmem.suites.vehicle.dataset import load_questions
from execmem.suites.vehicle.diff import state_diff
from execmem.suites.vehicle.flatten import strip_value_segments
from execmem.suites.vehicle.scoring import score_prediction
from execmem.suites.vehicle.world import VehicleWorld
from tests.conftest import CONFORMANCE, read_jsonl

LINES = read_jsonl(CONFORMANCE / "conformance_gold.jsonl")


def _ids(line: dict) -> str:
    return f"{line['file']}#{line['index']}"


@pytest.mark.parametrize("line", LINES, ids=[_ids(x) for x in LINES])
def test_gold_line(line: dict) -> None:
    calls = [parse_call_string(answer) for answer in line["answers"]]
    world = VehicleWorld()
    before = world.flat()
    results = [world.call(c.name, c.args) for c in calls]
    expected_diff = {strip_value_segments(p): e for p, e in line["diff"].items()}
    assert state_diff(before, world.flat()) == expected_diff

    for result, expected in zip(results, line["call_results"], strict=True):
        if "raised" in expected:
            assert result.raised and result.message == expected["message"]
        else:
            assert (result.success, result.message) == (expected["success"], expected["message"])

    score = score_prediction(calls, calls)
    assert score.exact_match is line["self_exact_match"] is True
    assert score.counts.should_change == line["n_should_change_paths"]


def test_gold_release_scores_exact_on_all_500(vehicle_data):
    questions = load_questions(vehicle_data)
    assert len(questions) == 500
    scores = [score_prediction(q.gold_calls, q.gold_calls) for q in questions]
    assert all(s.exact_match for s in scores)
    assert all(s.tool.f1 == 1.0 for s in scores)
