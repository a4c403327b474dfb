"""HUD: Head-up display related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, ok
from execmem.suites.vehicle.tooling import tool


class HUD(VehicleModule):
    name = "HUD"
    description = "Head-up display related"
    fields = {
        "is_on": Field(False, "Whether the HUD is turned on or off"),
        "height_level": Field(5, "HUD height level (1-10)"),
        "brightness_level": Field(5, "HUD brightness level (1-10)"),
    }

    @tool
    def switch(self, switch: bool) -> Outcome:
        """Turn the HUD on or off."""
        # The benchmark stores this argument as given, without bool().
        self.state["is_on"] = switch
        return ok("HUD activated successfully" if switch else "HUD deactivated successfully")

    @tool
    def set_height_level(self, level: int) -> Outcome:
        """Set HUD height level (1-10)."""
        return self.set_int("height_level", level, 1, 10, "HUD height level set successfully", power="is_on")

    @tool
    def set_brightness_level(self, level: int) -> Outcome:
        """Set HUD brightness level (1-10)."""
        return self.set_int(
            "brightness_level", level, 1, 10, "HUD brightness level set successfully", power="is_on"
        )
