"""Run calls on a fresh car and read off what changed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from execmem.suites.vehicle.calls import ToolCall
from execmem.suites.vehicle.diff import values_equal
from execmem.suites.vehicle.flatten import flatten_module
from execmem.suites.vehicle.world import CallResult, VehicleWorld, initial_module_flat

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>"})()
"""Marks a path that a change removed."""


def run_calls(calls: Iterable[ToolCall], report_state: bool = False) -> tuple[VehicleWorld, list[CallResult]]:
    """A fresh car after ``calls``; failures and raised errors are results, never exceptions."""
    world = VehicleWorld(report_state=report_state)
    results = [world.call(call.name, call.args) for call in calls]
    return world, results


def changed_paths(world: VehicleWorld) -> dict[str, Any]:
    """Paths whose value differs from a fresh car, as the scorer sees them.

    Strings compare case-insensitively and numbers with ``==``; a path that
    exists on one side only is a change (MISSING marks a removed path). Only
    the modules the calls touched are compared: the others are untouched.
    """
    changes: dict[str, Any] = {}
    for name in world.touched:
        initial = initial_module_flat(name)
        final = flatten_module(world.module(name))
        for path, value in final.items():
            if path not in initial or not values_equal(initial[path], value):
                changes[path] = value
        for path in initial.keys() - final.keys():
            changes[path] = MISSING
    return changes
