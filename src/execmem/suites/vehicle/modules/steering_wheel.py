"""steeringWheel: Steering wheel related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, ok
from execmem.suites.vehicle.tooling import tool


class SteeringWheel(VehicleModule):
    name = "steeringWheel"
    description = "Steering wheel related"
    fields = {
        "view_display_enabled": Field(False, "Whether steering wheel view display is enabled"),
        "heating_enabled": Field(False, "Whether steering wheel heating is enabled"),
        "heating_level": Field(0, "Steering wheel heating level (0-10)"),
    }

    @tool
    def set_view_display_enabled(self, enabled: bool) -> Outcome:
        """Enable or disable steering wheel view display."""
        self.state["view_display_enabled"] = bool(enabled)
        return ok("Steering wheel view display set successfully")

    @tool
    def set_heating_enabled(self, enabled: bool) -> Outcome:
        """Enable or disable steering wheel heating."""
        self.state["heating_enabled"] = bool(enabled)  # the level is kept
        return ok("Steering wheel heating set successfully")

    @tool
    def set_heating_level(self, level: int) -> Outcome:
        """Set steering wheel heating level (0-10)."""
        # Level 0 leaves the heating enabled.
        return self.set_int(
            "heating_level",
            level,
            0,
            10,
            "Steering wheel heating level set successfully",
            power="heating_enabled",
        )
