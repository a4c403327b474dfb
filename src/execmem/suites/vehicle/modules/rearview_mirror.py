"""rearviewMirror: Rearview mirror related."""

from __future__ import annotations

from typing import Any

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import int_error
from execmem.suites.vehicle.tooling import tool

SIDE_ERROR = "side must be 'left', 'right', or 'both'"


def _sides(side: Any) -> tuple[str, ...] | None:
    """Mirrors named by ``side``: exact words only, no default or aliases.

    Matched by comparison, so a list is a handled error rather than a TypeError.
    """
    if side == "both":
        return ("left", "right")
    if side in ("left", "right"):
        return (side,)
    return None


class RearviewMirror(VehicleModule):
    """Every setter except set_power powers the mirror on after validation, even when disabling."""

    name = "rearviewMirror"
    description = "Rearview mirror related"
    fields = {
        "left": Field(
            {
                "is_on": False,
                "height_position": 0,
                "horizontal_position": 0,
                "auto_reverse_tilt": False,
                "auto_fold_on_lock": False,
                "heating_enabled": False,
            },
            "Left rearview mirror settings",
        ),
        "right": Field(
            {
                "is_on": False,
                "height_position": 0,
                "horizontal_position": 0,
                "auto_reverse_tilt": False,
                "auto_fold_on_lock": False,
                "heating_enabled": False,
            },
            "Right rearview mirror settings",
        ),
    }

    @tool
    def set_power(self, side: str, is_on: bool) -> Outcome:
        """Set mirror power for left, right, or both."""
        return self._set_flag(side, "is_on", is_on, "Mirror power set successfully")

    @tool
    def set_height_position(self, side: str, value: int) -> Outcome:
        """Set mirror height position (0-100) for left, right, or both."""
        return self._set_position(side, "height_position", value, "Height position set successfully")

    @tool
    def set_horizontal_position(self, side: str, value: int) -> Outcome:
        """Set mirror horizontal position (0-100) for left, right, or both."""
        return self._set_position(side, "horizontal_position", value, "Horizontal position set successfully")

    @tool
    def set_auto_reverse_tilt(self, side: str, enabled: bool) -> Outcome:
        """Set auto reverse tilt for left, right, or both."""
        return self._set_flag(side, "auto_reverse_tilt", enabled, "Auto reverse tilt set successfully")

    @tool
    def set_auto_fold_on_lock(self, side: str, enabled: bool) -> Outcome:
        """Set auto fold on lock (fold mirrors automatically when the car is locked) for left, right, or both."""  # noqa: E501 - the schema text
        return self._set_flag(side, "auto_fold_on_lock", enabled, "Auto fold on lock set successfully")

    @tool
    def set_heating_enabled(self, side: str, enabled: bool) -> Outcome:
        """Set mirror heating for left, right, or both."""
        return self._set_flag(side, "heating_enabled", enabled, "Mirror heating set successfully")

    def _set_flag(self, side: Any, key: str, enabled: Any, message: str) -> Outcome:
        targets = _sides(side)
        if targets is None:
            return fail(SIDE_ERROR)
        for name in targets:
            self.state[name]["is_on"] = True  # for set_power, overwritten just below
            self.state[name][key] = bool(enabled)
        return ok(message)

    def _set_position(self, side: Any, key: str, value: Any, message: str) -> Outcome:
        """Validate the value first, then the side."""
        error = int_error(key, value, 0, 100)
        if error:
            return fail(error)
        targets = _sides(side)
        if targets is None:
            return fail(SIDE_ERROR)
        for name in targets:
            self.state[name]["is_on"] = True
            self.state[name][key] = value
        return ok(message)
