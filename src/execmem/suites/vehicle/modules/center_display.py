"""centerInformationDisplay: Center information display related."""

from __future__ import annotations

from typing import Any

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import int_error
from execmem.suites.vehicle.tooling import tool


class CenterInformationDisplay(VehicleModule):
    """Every setter except set_power switches the display on first, so a rejected value keeps it on."""

    name = "centerInformationDisplay"
    description = "Center information display related"
    fields = {
        "is_on": Field(False, "Whether the center display is turned on"),
        "brightness": Field(30, "Center display brightness (0-100)"),
        "auto_brightness_enabled": Field(False, "Whether auto brightness mode is enabled"),
        "time_format": Field("24h", "Time format (12h/24h)"),
        "language": Field("English", "Display language"),
    }

    @tool
    def set_power(self, is_on: bool) -> Outcome:
        """Set center display power state."""
        self.state["is_on"] = bool(is_on)
        return ok(f"Center display turned {'on' if is_on else 'off'} successfully")

    @tool
    def set_brightness(self, brightness: int) -> Outcome:
        """Set center display brightness (0-100)."""
        self.state["is_on"] = True  # powered on before validation: survives a rejected value
        error = int_error("brightness", brightness, 0, 100)
        if error:
            return fail(error)
        self.state["brightness"] = brightness
        return ok("Center display brightness set successfully")

    @tool
    def set_auto_brightness(self, enabled: bool) -> Outcome:
        """Enable or disable auto brightness mode."""
        self.state["is_on"] = True
        self.state["auto_brightness_enabled"] = bool(enabled)
        return ok(f"Auto brightness {'enabled' if enabled else 'disabled'} successfully")

    @tool
    def set_time_format(self, time_format: str) -> Outcome:
        """Set time format ('12h' or '24h')."""
        return self._set_choice("time_format", time_format, ("12h", "24h"), "Time format set successfully")

    @tool
    def set_language(self, language: str) -> Outcome:
        """Set display language ('Chinese' or 'English')."""
        return self._set_choice(
            "language", language, ("Chinese", "English"), "Display language set successfully"
        )

    def _set_choice(self, key: str, value: Any, choices: tuple[str, str], message: str) -> Outcome:
        """Exact, case-sensitive match; ``in`` on a tuple compares, so a list is just invalid."""
        self.state["is_on"] = True  # powered on before validation: survives a rejected value
        if value not in choices:
            return fail(f"{key} must be '{choices[0]}' or '{choices[1]}'")
        self.state[key] = value
        return ok(message)
