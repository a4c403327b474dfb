"""overheadScreen: Overhead screen related."""

from __future__ import annotations

from typing import Any

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import int_error, scan
from execmem.suites.vehicle.tooling import tool

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
        self.state["is_on"] = True  # powered on before validation: survives a rejected value
        error = int_error("brightness_level", level, 0, 5)
        if error:
            return fail(error)
        self.state["brightness_level"] = level
        return ok("Overhead screen brightness level set successfully")

    @tool
    def set_time_format(self, time_format: str) -> Outcome:
        """Set time format ('12h' or '24h')."""
        return self._set_choice(
            "time_format", time_format, TIME_FORMATS, "time_format must be '12h' or '24h'", "time format"
        )

    @tool
    def set_language(self, language: str) -> Outcome:
        """Set display language ('Chinese' or 'English')."""
        return self._set_choice(
            "language", language, LANGUAGES, "language must be 'Chinese' or 'English'", "language"
        )

    def _set_choice(self, key: str, raw: Any, table: dict[str, str], error: str, label: str) -> Outcome:
        """Powered on first; a string is stripped, anything else is simply invalid."""
        self.state["is_on"] = True
        value = scan(raw.strip() if isinstance(raw, str) else raw, table)
        if value is None:
            return fail(error)
        self.state[key] = value
        return ok(f"Overhead screen {label} set successfully")
