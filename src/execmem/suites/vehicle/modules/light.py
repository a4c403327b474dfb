"""light: Light related."""

from __future__ import annotations

from typing import Any

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import FOUR_ZONE_ERROR, FOUR_ZONES, int_error, lookup, resolve
from execmem.suites.vehicle.tooling import tool

READING_ERROR = FOUR_ZONE_ERROR.format("reading light")

LOW_BEAM_LEVELS = {
    "lowest": "lowest",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "highest": "highest",
    "最低": "lowest",
    "低": "low",
    "中": "medium",
    "高": "high",
    "最高": "highest",
}
AMBIENT_COLORS = {
    "red": "red",
    "orange": "orange",
    "yellow": "yellow",
    "green": "green",
    "cyan": "cyan",
    "blue": "blue",
    "purple": "purple",
    "white": "white",
    "pink": "pink",
    "红色": "red",
    "橙色": "orange",
    "黄色": "yellow",
    "绿色": "green",
    "青色": "cyan",
    "蓝色": "blue",
    "紫色": "purple",
    "白色": "white",
    "粉色": "pink",
}


class Light(VehicleModule):
    """Independent lights (no interlocks); reading lights default to the driver's."""

    name = "light"
    description = "Light related"
    fields = {
        "fog_light": Field({"is_on": False}, "Fog light settings"),
        "high_beam": Field({"is_on": False}, "High beam settings"),
        "low_beam": Field({"is_on": False, "level": "lowest"}, "Low beam settings"),
        "daytime_running": Field({"is_on": False}, "Daytime running light settings"),
        "left_turn": Field({"is_on": False}, "Left turn signal settings"),
        "right_turn": Field({"is_on": False}, "Right turn signal settings"),
        "auto_headlight": Field({"is_on": False}, "Auto headlight settings"),
        "hazard": Field({"is_on": False}, "Hazard light settings"),
        "position": Field({"is_on": False}, "Position light settings"),
        "tail": Field({"is_on": False}, "Tail light settings"),
        "ambient": Field({"is_on": False, "color": "orange"}, "Ambient light settings"),
        "reading_light": Field(
            {
                "driver": {"is_on": False, "brightness": 1},
                "passenger": {"is_on": False, "brightness": 1},
                "rear_left": {"is_on": False, "brightness": 1},
                "rear_right": {"is_on": False, "brightness": 1},
            },
            "Reading light settings",
        ),
    }

    @tool
    def set_fog_light(self, enabled: bool) -> Outcome:
        """Enable or disable fog light."""
        return self._switch("fog_light", enabled, "Fog light")

    @tool
    def set_high_beam(self, enabled: bool) -> Outcome:
        """Enable or disable high beam."""
        return self._switch("high_beam", enabled, "High beam")

    @tool
    def set_low_beam_enabled(self, enabled: bool) -> Outcome:
        """Enable or disable low beam."""
        return self._switch("low_beam", enabled, "Low beam")

    @tool
    def set_daytime_running(self, enabled: bool) -> Outcome:
        """Enable or disable daytime running light."""
        return self._switch("daytime_running", enabled, "Daytime running light")

    @tool
    def set_left_turn(self, enabled: bool) -> Outcome:
        """Enable or disable left turn signal."""
        return self._switch("left_turn", enabled, "Left turn signal")

    @tool
    def set_right_turn(self, enabled: bool) -> Outcome:
        """Enable or disable right turn signal."""
        return self._switch("right_turn", enabled, "Right turn signal")

    @tool
    def set_auto_headlight(self, enabled: bool) -> Outcome:
        """Enable or disable auto headlight."""
        return self._switch("auto_headlight", enabled, "Auto headlight")

    @tool
    def set_hazard(self, enabled: bool) -> Outcome:
        """Enable or disable hazard light."""
        return self._switch("hazard", enabled, "Hazard light")

    @tool
    def set_position(self, enabled: bool) -> Outcome:
        """Enable or disable position light."""
        return self._switch("position", enabled, "Position light")

    @tool
    def set_tail(self, enabled: bool) -> Outcome:
        """Enable or disable tail light."""
        return self._switch("tail", enabled, "Tail light")

    @tool
    def set_ambient_enabled(self, enabled: bool) -> Outcome:
        """Enable or disable ambient light."""
        return self._switch("ambient", enabled, "Ambient light")

    @tool
    def set_low_beam_level(self, level: str) -> Outcome:
        """Set low beam level (lowest/low/medium/high/highest). Automatically enables low beam if off."""
        return self._set_choice(
            "low_beam",
            "level",
            level,
            LOW_BEAM_LEVELS,
            (
                "Low beam level set successfully",
                "low_beam level must be lowest, low, medium, high, or highest",
            ),
        )

    @tool
    def set_ambient_color(self, color: str) -> Outcome:
        """Set ambient light color. Automatically enables ambient light if off."""
        return self._set_choice(
            "ambient",
            "color",
            color,
            AMBIENT_COLORS,
            (
                "Ambient light color set successfully",
                "ambient color must be red, orange, yellow, green, cyan, blue, purple, white, or pink",
            ),
        )

    @tool
    def set_reading_light(self, light: str, enabled: bool) -> Outcome:
        """Enable or disable reading light for a position or group."""
        targets = resolve(light, FOUR_ZONES, "driver")
        if targets is None:
            return fail(READING_ERROR)
        for name in targets:
            self.state["reading_light"][name]["is_on"] = bool(enabled)
        return ok("Reading light set successfully")

    @tool
    def set_reading_light_brightness(self, light: str, brightness: int) -> Outcome:
        """Set reading light brightness (1-10). Automatically enables reading light if off."""
        error = int_error("brightness", brightness, 1, 10)
        if error:
            return fail(error)
        targets = resolve(light, FOUR_ZONES, "driver")
        if targets is None:
            return fail(READING_ERROR)
        for name in targets:
            self.state["reading_light"][name]["is_on"] = True
            self.state["reading_light"][name]["brightness"] = brightness
        return ok("Reading light brightness set successfully")

    def _switch(self, key: str, enabled: Any, label: str) -> Outcome:
        self.state[key]["is_on"] = bool(enabled)
        return ok(f"{label} set successfully")

    def _set_choice(
        self, key: str, attr: str, raw: Any, table: dict[str, str], messages: tuple[str, str]
    ) -> Outcome:
        """Switched on before validation: survives a rejected value (a list raises TypeError)."""
        self.state[key]["is_on"] = True
        value = lookup(raw, table)
        if value is None:
            return fail(messages[1])
        self.state[key][attr] = value
        return ok(messages[0])
