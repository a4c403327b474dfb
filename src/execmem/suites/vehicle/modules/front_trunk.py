"""frontTrunk: Front trunk related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import int_error
from execmem.suites.vehicle.tooling import tool


class FrontTrunk(VehicleModule):
    name = "frontTrunk"
    description = "Front trunk related"
    fields = {
        "is_on": Field(False, "Whether the front trunk system is on"),
        "open_degree": Field(0, "Front trunk open degree (0-100)"),
    }

    @tool
    def switch(self, switch: bool) -> Outcome:
        """Turn the front trunk system on or off."""
        # open_degree is left alone, so the system can be off while open.
        self.state["is_on"] = bool(switch)
        return ok(f"Front trunk {'activated' if switch else 'deactivated'} successfully")

    @tool
    def set_open_degree(self, degree: int) -> Outcome:
        """Set front trunk open degree (0-100)."""
        # Unlike the rear trunk, this validates first: a bad value changes nothing.
        error = int_error("open_degree", degree, 0, 100)
        if error:
            return fail(error)
        if degree > 0:
            self.state["is_on"] = True
        self.state["open_degree"] = degree
        if degree == 0:
            self.state["is_on"] = False
        return ok("Front trunk open degree set successfully")
