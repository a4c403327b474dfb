"""seat: Seat related."""

from __future__ import annotations

from typing import Any

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import FOUR_ZONE_ERROR, FOUR_ZONES, int_error, resolve
from execmem.suites.vehicle.tooling import tool

SEAT_ERROR = FOUR_ZONE_ERROR.format("seat")


class Seat(VehicleModule):
    """Four seats; the ``seat`` argument has no default (an empty value is an error)."""

    name = "seat"
    description = "Seat related"
    fields = {
        "driver": Field(
            {
                "heating_mode": False,
                "heating_level": 1,
                "massage_mode": False,
                "massage_level": 1,
                "ventilation_enabled": False,
                "ventilation_speed": 1,
                "horizontal_position": 50,
                "vertical_position": 50,
                "folded": False,
                "cushion_extension": 50,
                "cushion_angle": 50,
                "backrest_angle": 50,
                "leg_support_height": 50,
                "foot_support_height": 50,
                "headrest_height": 50,
            },
            "Driver seat settings",
        ),
        "passenger": Field(
            {
                "heating_mode": False,
                "heating_level": 1,
                "massage_mode": False,
                "massage_level": 1,
                "ventilation_enabled": False,
                "ventilation_speed": 1,
                "horizontal_position": 50,
                "vertical_position": 50,
                "folded": False,
                "cushion_extension": 50,
                "cushion_angle": 50,
                "backrest_angle": 50,
                "leg_support_height": 50,
                "foot_support_height": 50,
                "headrest_height": 50,
            },
            "Passenger seat settings",
        ),
        "rear_left": Field(
            {
                "heating_mode": False,
                "heating_level": 1,
                "massage_mode": False,
                "massage_level": 1,
                "ventilation_enabled": False,
                "ventilation_speed": 1,
                "horizontal_position": 50,
                "vertical_position": 50,
                "folded": False,
                "cushion_extension": 50,
                "cushion_angle": 50,
                "backrest_angle": 50,
                "leg_support_height": 50,
                "foot_support_height": 50,
                "headrest_height": 50,
            },
            "Rear left seat settings",
        ),
        "rear_right": Field(
            {
                "heating_mode": False,
                "heating_level": 1,
                "massage_mode": False,
                "massage_level": 1,
                "ventilation_enabled": False,
                "ventilation_speed": 1,
                "horizontal_position": 50,
                "vertical_position": 50,
                "folded": False,
                "cushion_extension": 50,
                "cushion_angle": 50,
                "backrest_angle": 50,
                "leg_support_height": 50,
                "foot_support_height": 50,
                "headrest_height": 50,
            },
            "Rear right seat settings",
        ),
    }

    @tool
    def set_heating_mode(self, seat: str, enabled: bool) -> Outcome:
        """Enable or disable seat heating."""
        return self._set_flag(seat, "heating_mode", enabled, "Seat heating mode set successfully")

    @tool
    def set_heating_level(self, seat: str, level: int) -> Outcome:
        """Set seat heating level (1-3). Automatically enables heating if off."""
        return self._set_number(
            seat, "heating_level", level, 3, "Seat heating level set successfully", "heating_mode"
        )

    @tool
    def set_massage_mode(self, seat: str, enabled: bool) -> Outcome:
        """Enable or disable seat massage."""
        return self._set_flag(seat, "massage_mode", enabled, "Seat massage mode set successfully")

    @tool
    def set_massage_level(self, seat: str, level: int) -> Outcome:
        """Set seat massage level (1-3). Automatically enables massage if off."""
        return self._set_number(
            seat, "massage_level", level, 3, "Seat massage level set successfully", "massage_mode"
        )

    @tool
    def set_ventilation_enabled(self, seat: str, enabled: bool) -> Outcome:
        """Enable or disable seat ventilation."""
        return self._set_flag(seat, "ventilation_enabled", enabled, "Seat ventilation set successfully")

    @tool
    def set_ventilation_speed(self, seat: str, speed: int) -> Outcome:
        """Set seat ventilation speed (1-5). Automatically enables ventilation if off."""
        return self._set_number(
            seat,
            "ventilation_speed",
            speed,
            5,
            "Seat ventilation speed set successfully",
            "ventilation_enabled",
        )

    @tool
    def set_folded(self, seat: str, folded: bool) -> Outcome:
        """Fold or unfold the seat."""
        return self._set_flag(seat, "folded", folded, "Seat folded state set successfully")

    @tool
    def set_horizontal_position(self, seat: str, value: int) -> Outcome:
        """Set seat horizontal position (0-100)."""
        return self._set_position(seat, "horizontal_position", value, "Seat horizontal position")

    @tool
    def set_vertical_position(self, seat: str, value: int) -> Outcome:
        """Set seat vertical position (0-100)."""
        return self._set_position(seat, "vertical_position", value, "Seat vertical position")

    @tool
    def set_cushion_extension(self, seat: str, value: int) -> Outcome:
        """Set seat cushion extension (0-100)."""
        return self._set_position(seat, "cushion_extension", value, "Seat cushion extension")

    @tool
    def set_cushion_angle(self, seat: str, value: int) -> Outcome:
        """Set seat cushion angle (0-100)."""
        return self._set_position(seat, "cushion_angle", value, "Seat cushion angle")

    @tool
    def set_backrest_angle(self, seat: str, value: int) -> Outcome:
        """Set seat backrest angle (0-100)."""
        return self._set_position(seat, "backrest_angle", value, "Seat backrest angle")

    @tool
    def set_leg_support_height(self, seat: str, value: int) -> Outcome:
        """Set leg support height (0-100)."""
        return self._set_position(seat, "leg_support_height", value, "Seat leg support height")

    @tool
    def set_foot_support_height(self, seat: str, value: int) -> Outcome:
        """Set foot support height (0-100)."""
        return self._set_position(seat, "foot_support_height", value, "Seat foot support height")

    @tool
    def set_headrest_height(self, seat: str, value: int) -> Outcome:
        """Set headrest height (0-100)."""
        return self._set_position(seat, "headrest_height", value, "Seat headrest height")

    def _set_flag(self, seat: Any, key: str, enabled: Any, message: str) -> Outcome:
        targets = resolve(seat, FOUR_ZONES)
        if targets is None:
            return fail(SEAT_ERROR)
        for name in targets:
            self.state[name][key] = bool(enabled)
        return ok(message)

    def _set_position(self, seat: Any, key: str, value: Any, label: str) -> Outcome:
        return self._set_number(seat, key, value, 100, f"{label} set successfully", low=0)

    def _set_number(
        self, seat: Any, key: str, value: Any, high: int, message: str, mode: str | None = None, low: int = 1
    ) -> Outcome:
        """Validate the value first, then the seat; a level also switches its mode on."""
        error = int_error(key, value, low, high)
        if error:
            return fail(error)
        targets = resolve(seat, FOUR_ZONES)
        if targets is None:
            return fail(SEAT_ERROR)
        for name in targets:
            if mode:
                self.state[name][mode] = True
            self.state[name][key] = value
        return ok(message)
