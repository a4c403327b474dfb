"""instrumentPanel: Instrument panel related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.tooling import tool

# Exact, case-sensitive matches without aliases.
THEMES = {theme: theme for theme in ("scene", "map")}
COLORS = {color: color for color in ("yellow", "green", "red", "orange", "white", "black")}
BEHAVIOR_MODES = {mode: mode for mode in ("constant", "blink", "off")}
TIME_FORMATS = {"12h": "12h", "24h": "24h"}
LANGUAGES = {"Chinese": "Chinese", "English": "English"}


class InstrumentPanel(VehicleModule):
    """No power flag: each setter validates, then sets one field (a failure changes nothing)."""

    name = "instrumentPanel"
    description = "Instrument panel related"
    fields = {
        "total_mileage": Field(1, "Total vehicle mileage (>0)"),
        "theme": Field("scene", "Instrument panel theme"),
        "brightness": Field(3, "Instrument panel brightness (1-5)"),
        "color": Field("white", "Instrument panel color"),
        "behavior_mode": Field("constant", "Instrument panel behavior mode"),
        "auto_brightness_enabled": Field(False, "Whether auto brightness mode is enabled"),
        "time_format": Field("24h", "Time format (12h/24h)"),
        "language": Field("English", "Display language"),
    }

    @tool
    def set_total_mileage(self, mileage: int) -> Outcome:
        """Set total mileage (>0)."""
        if not isinstance(mileage, int):
            return fail("total_mileage must be an integer")
        if mileage <= 0:
            return fail("total_mileage must be greater than 0")
        self.state["total_mileage"] = mileage
        return ok("Total mileage set successfully")

    @tool
    def set_theme(self, theme: str) -> Outcome:
        """Set instrument panel theme ('scene' or 'map')."""
        return self.set_choice(
            "theme",
            theme,
            THEMES,
            "theme must be 'scene' or 'map'",
            "Instrument panel theme set successfully",
        )

    @tool
    def set_brightness(self, brightness: int) -> Outcome:
        """Set brightness (1-5)."""
        return self.set_int("brightness", brightness, 1, 5, "Brightness set successfully")

    @tool
    def set_color(self, color: str) -> Outcome:
        """Set display color."""
        return self.set_choice("color", color, COLORS, "color is invalid", "Display color set successfully")

    @tool
    def set_behavior_mode(self, mode: str) -> Outcome:
        """Set behavior mode ('constant', 'blink', or 'off')."""
        return self.set_choice(
            "behavior_mode",
            mode,
            BEHAVIOR_MODES,
            "behavior_mode must be 'constant', 'blink', or 'off'",
            "Behavior mode set successfully",
        )

    @tool
    def set_auto_brightness(self, enabled: bool) -> Outcome:
        """Enable or disable auto brightness mode."""
        self.state["auto_brightness_enabled"] = bool(enabled)
        return ok(f"Auto brightness {'enabled' if enabled else 'disabled'} successfully")

    @tool
    def set_time_format(self, time_format: str) -> Outcome:
        """Set time format ('12h' or '24h')."""
        return self.set_choice(
            "time_format",
            time_format,
            TIME_FORMATS,
            "time_format must be '12h' or '24h'",
            "Time format set successfully",
        )

    @tool
    def set_language(self, language: str) -> Outcome:
        """Set display language ('Chinese' or 'English')."""
        return self.set_choice(
            "language",
            language,
            LANGUAGES,
            "language must be 'Chinese' or 'English'",
            "Display language set successfully",
        )
