"""Replay calls on a fresh car and report the change they make."""

from __future__ import annotations

from typing import Any

from execmem.suites.vehicle.calls import ToolCall
from execmem.suites.vehicle.diff import state_diff
from execmem.suites.vehicle.world import CallResult, VehicleWorld


def replay(setup: list[ToolCall], calls: list[ToolCall]) -> dict[str, Any]:
    """Run ``setup`` then ``calls``; the diff covers the change made by ``calls`` only."""
    world = VehicleWorld()
    for call in setup:
        world.call(call.name, call.args)
    before = world.flat()
    results = [world.call(call.name, call.args) for call in calls]
    return {"diff": state_diff(before, world.flat()), "results": [result_json(r) for r in results]}


def result_json(result: CallResult) -> dict[str, Any]:
    out: dict[str, Any] = {"name": result.name, "success": result.success, "message": result.message}
    if result.raised:
        out["raised"] = result.raised
    elif result.known and result.current_state is not None:
        out["current_state"] = result.current_state
    return out
