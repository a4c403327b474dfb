"""airConditioner: Vehicle air conditioning system related."""

from __future__ import annotations

from typing import Any

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import FOUR_ZONE_ERROR, FOUR_ZONES, int_error, lookup, resolve
from execmem.suites.vehicle.tooling import tool

ZONE_ERROR = FOUR_ZONE_ERROR.format("zone")

DIRECTIONS = {
    d: d for d in ("face", "feet", "window", "face_feet", "face_window", "feet_window", "face_feet_window")
}
MODES = {m: m for m in ("auto", "purify", "dehumidify", "defrost", "swing", "defog")}
CIRCULATIONS = {"inside": "inside", "outside": "outside"}


class AirConditioner(VehicleModule):
    """Four independent zones; an empty ``zone`` means the driver's."""

    name = "airConditioner"
    description = "Vehicle air conditioning system related"
    fields = {
        "driver": Field(
            {
                "is_on": False,
                "temperature": 24,
                "fan_speed": 5,
                "air_direction": "face",
                "mode": "auto",
                "circulation": "inside",
            },
            "Driver zone settings",
        ),
        "passenger": Field(
            {
                "is_on": False,
                "temperature": 24,
                "fan_speed": 5,
                "air_direction": "face",
                "mode": "auto",
                "circulation": "inside",
            },
            "Passenger zone settings",
        ),
        "rear_left": Field(
            {
                "is_on": False,
                "temperature": 24,
                "fan_speed": 5,
                "air_direction": "face",
                "mode": "auto",
                "circulation": "inside",
            },
            "Rear left zone settings",
        ),
        "rear_right": Field(
            {
                "is_on": False,
                "temperature": 24,
                "fan_speed": 5,
                "air_direction": "face",
                "mode": "auto",
                "circulation": "inside",
            },
            "Rear right zone settings",
        ),
    }

    @tool
    def set_power(self, zone: str, is_on: bool) -> Outcome:
        """Set air conditioner power for a zone or group."""
        targets = resolve(zone, FOUR_ZONES, "driver")
        if targets is None:
            return fail(ZONE_ERROR)
        for name in targets:
            self.state[name]["is_on"] = bool(is_on)
        return ok("Air conditioner power set successfully")

    @tool
    def set_temperature(self, zone: str, temperature: int) -> Outcome:
        """Set air conditioner temperature (15-35)."""
        error = int_error("temperature", temperature, 15, 35)
        return self._apply(zone, "temperature", temperature, error, "temperature")

    @tool
    def set_fan_speed(self, zone: str, speed: int) -> Outcome:
        """Set air conditioner fan speed (1-10)."""
        return self._apply(zone, "fan_speed", speed, int_error("fan_speed", speed, 1, 10), "fan speed")

    @tool
    def set_air_direction(self, zone: str, direction: str) -> Outcome:
        """Set air conditioner air direction."""
        value = lookup(direction, DIRECTIONS)
        error = None if value else "air_direction is invalid"
        return self._apply(zone, "air_direction", value, error, "direction")

    @tool
    def set_mode(self, zone: str, mode: str) -> Outcome:
        """Set air conditioner mode (auto/purify/dehumidify/defrost/swing/defog)."""
        value = lookup(mode, MODES)
        error = None if value else "mode is invalid (auto, purify, dehumidify, defrost, swing, defog)"
        return self._apply(zone, "mode", value, error, "mode")

    @tool
    def set_circulation(self, zone: str, circulation: str) -> Outcome:
        """Set air conditioner circulation (inside/outside)."""
        value = lookup(circulation, CIRCULATIONS)
        error = None if value else "circulation must be 'inside' or 'outside'"
        return self._apply(zone, "circulation", value, error, "circulation")

    def _apply(self, zone: Any, key: str, value: Any, error: str | None, label: str) -> Outcome:
        """The value was checked first (``error``), then the zone; success also powers the zone on."""
        if error:
            return fail(error)
        targets = resolve(zone, FOUR_ZONES, "driver")
        if targets is None:
            return fail(ZONE_ERROR)
        for name in targets:
            self.state[name]["is_on"] = True
            self.state[name][key] = value
        return ok(f"Air conditioner {label} set successfully")
