"""footPedal: Foot pedal related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import resolve
from execmem.suites.vehicle.tooling import tool

# Front pedals only: rear_left, front, rear, ... are errors.
POSITIONS: dict[str, tuple[str, ...]] = {
    "driver": ("driver",),
    "passenger": ("passenger",),
    "all": ("driver", "passenger"),
    "主驾": ("driver",),
    "副驾": ("passenger",),
    "全部": ("driver", "passenger"),
}


class FootPedal(VehicleModule):
    name = "footPedal"
    description = "Foot pedal related"
    fields = {
        "driver": Field({"is_on": False}, "Driver foot pedal state"),
        "passenger": Field({"is_on": False}, "Passenger foot pedal state"),
    }

    @tool
    def set_switch(self, position: str, switch: bool) -> Outcome:
        """Set foot pedal switch for a position or all."""
        # A falsy position means driver; a non-empty list raises TypeError (dict lookup).
        targets = resolve(position, POSITIONS, default="driver")
        if targets is None:
            return fail("position must be driver, passenger, or all")
        for name in targets:
            self.state[name]["is_on"] = bool(switch)
        return ok("Foot pedal switch set successfully")
