"""centerInformationDisplay: Center information display related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, ok
from execmem.suites.vehicle.tooling import tool

# Exact, case-sensitive matches without aliases.
TIME_FORMATS = {"12h": "12h", "24h": "24h"}
TIME_FORMAT_ERROR = "time_format must be '12h' or '24h'"
LANGUAGES = {"Chinese": "Chinese", "English": "English"}
LANGUAGE_ERROR = "language must be 'Chinese' or 'English'"


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
        return self.set_int(
            "brightness", brightness, 0, 100, "Center display brightness set successfully", power="is_on"
        )

    @tool
    def set_auto_brightness(self, enabled: bool) -> Outcome:
        """Enable or disable auto brightness mode."""
        self.state["is_on"] = True
        self.state["auto_brightness_enabled"] = bool(enabled)
        return ok(f"Auto brightness {'enabled' if enabled else 'disabled'} successfully")

    @tool
    def set_time_format(self, time_format: str) -> Outcome:
        """Set time format ('12h' or '24h')."""
        return self.set_choice(
            "time_format",
            time_format,
            TIME_FORMATS,
            TIME_FORMAT_ERROR,
            "Time format set successfully",
            power="is_on",
        )

    @tool
    def set_language(self, language: str) -> Outcome:
        """Set display language ('Chinese' or 'English')."""
        return self.set_choice(
            "language",
            language,
            LANGUAGES,
            LANGUAGE_ERROR,
            "Display language set successfully",
            power="is_on",
        )
