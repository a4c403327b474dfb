"""door: Door related."""

from __future__ import annotations

from typing import Any

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import FOUR_ZONE_ERROR, FOUR_ZONES, resolve
from execmem.suites.vehicle.tooling import tool

DOOR_ERROR = FOUR_ZONE_ERROR.format("door")


class Door(VehicleModule):
    """Four doors; an empty ``door`` means the driver's. A locked door cannot be opened."""

    name = "door"
    description = "Door related"
    fields = {
        "driver": Field(
            {"is_locked": False, "is_open": False, "open_warning": False}, "Driver door settings"
        ),
        "passenger": Field(
            {"is_locked": False, "is_open": False, "open_warning": False}, "Passenger door settings"
        ),
        "rear_left": Field(
            {"is_locked": False, "is_open": False, "open_warning": False}, "Rear left door settings"
        ),
        "rear_right": Field(
            {"is_locked": False, "is_open": False, "open_warning": False}, "Rear right door settings"
        ),
    }

    @tool
    def set_locked(self, door: str, locked: bool) -> Outcome:
        """Set door lock state for a door or group."""
        # Locking an open door is allowed; it stays open.
        return self._set_flag(door, "is_locked", locked, "Door lock state set successfully")

    @tool
    def set_open(self, door: str, is_open: bool) -> Outcome:
        """Set door open state for a door or group."""
        targets = resolve(door, FOUR_ZONES, "driver")
        if targets is None:
            return fail(DOOR_ERROR)
        # One locked door in the group rejects the whole call; closing always works.
        if is_open and any(self.state[name]["is_locked"] for name in targets):
            return fail("cannot open door when it is locked")
        for name in targets:
            self.state[name]["is_open"] = bool(is_open)
        return ok("Door open state set successfully")

    @tool
    def set_open_warning(self, door: str, enabled: bool) -> Outcome:
        """Enable or disable door open warning for a door or group."""
        return self._set_flag(door, "open_warning", enabled, "Door open warning set successfully")

    def _set_flag(self, door: Any, key: str, value: Any, message: str) -> Outcome:
        targets = resolve(door, FOUR_ZONES, "driver")
        if targets is None:
            return fail(DOOR_ERROR)
        for name in targets:
            self.state[name][key] = bool(value)
        return ok(message)
