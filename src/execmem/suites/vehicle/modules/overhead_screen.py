"""overheadScreen: Overhead screen related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, ok
from execmem.suites.vehicle.modules.checks import stripped
from execmem.suites.vehicle.tooling import tool

# Surrounding whitespace is stripped before the match (the other displays match exactly).
TIME_FORMATS = {"12h": "12h", "24h": "24h"}
LANGUAGES = {"Chinese": "Chinese", "中文": "Chinese", "English": "English", "英文": "English"}


class OverheadScreen(VehicleModule):
    name = "overheadScreen"
    description = "Overhead screen related"
    fields = {
        "is_on": Field(False, "Whether the overhead screen is turned on or off"),
        "brightness_level": Field(0, "Overhead screen brightness level (0-5)"),
        "time_format": Field("24h", "Time format (12h/24h)"),
        "language": Field("Chinese", "Display language"),
    }

    @tool
    def switch(self, switch: bool) -> Outcome:
        """Turn the overhead screen on or off."""
        self.state["is_on"] = bool(switch)
        return ok(
            "Overhead screen activated successfully" if switch else "Overhead screen deactivated successfully"
        )

    @tool
    def set_brightness_level(self, level: int) -> Outcome:
        """Set overhead screen brightness level (0-5)."""
        return self.set_int(
            "brightness_level",
            level,
            0,
            5,
            "Overhead screen brightness level set successfully",
            power="is_on",
        )

    @tool
    def set_time_format(self, time_format: str) -> Outcome:
        """Set time format ('12h' or '24h')."""
        return self.set_choice(
            "time_format",
            stripped(time_format),
            TIME_FORMATS,
            "time_format must be '12h' or '24h'",
            "Overhead screen time format set successfully",
            power="is_on",
        )

    @tool
    def set_language(self, language: str) -> Outcome:
        """Set display language ('Chinese' or 'English')."""
        return self.set_choice(
            "language",
            stripped(language),
            LANGUAGES,
            "language must be 'Chinese' or 'English'",
            "Overhead screen language set successfully",
            power="is_on",
        )
