"""Every public fuzz vector: same diff, same outcome, same message and reported state."""

from __future__ import annotations

import pytest

from execmem.suites.vehicle.diff import state_diff
from execmem.suites.vehicle.flatten import strip_value_segments
from execmem.suites.vehicle.world import VehicleWorld
from tests.conftest import CONFORMANCE, read_jsonl

RECORDS = read_jsonl(CONFORMANCE / "conformance_fuzz_public.jsonl")


def _expected_diff(record: dict) -> dict:
    return {strip_value_segments(path): entry for path, entry in record["diff"].items()}


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_fuzz_vector(record: dict) -> None:
    world = VehicleWorld()
    for call in record["setup"]:
        world.call(call["name"], call["args"])
    before = world.flat()
    result = world.call(record["call"]["name"], record["call"]["args"])
    after = world.flat()

    assert state_diff(before, after) == _expected_diff(record)
    assert result.raised == record["raised"]
    if record["raised"]:
        assert result.message == record["raised_message"]
    else:
        expected = record["result"]
        assert (result.success, result.message) == (expected["success"], expected["message"])
        assert result.current_state == expected["current_state"]


def test_fuzz_file_covers_every_tool() -> None:
    from execmem.suites.vehicle.world import TOOLS

    assert RECORDS, "conformance data missing"
    assert {r["api"] for r in RECORDS} == set(TOOLS)
