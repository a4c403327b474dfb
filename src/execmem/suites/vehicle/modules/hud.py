"""HUD: Head-up display related."""

from __future__ import annotations

from typing import Any

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import int_error
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
        return self._set_level("height_level", level, "HUD height level set successfully")

    @tool
    def set_brightness_level(self, level: int) -> Outcome:
        """Set HUD brightness level (1-10)."""
        return self._set_level("brightness_level", level, "HUD brightness level set successfully")

    def _set_level(self, key: str, level: Any, message: str) -> Outcome:
        self.state["is_on"] = True  # powered on before validation: survives a rejected value
        error = int_error(key, level, 1, 10)
        if error:
            return fail(error)
        self.state[key] = level
        return ok(message)
