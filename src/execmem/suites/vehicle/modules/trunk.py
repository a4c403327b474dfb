"""trunk: Trunk related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import int_error
from execmem.suites.vehicle.tooling import tool


class Trunk(VehicleModule):
    name = "trunk"
    description = "Trunk related"
    fields = {
        "is_on": Field(False, "Whether the rear trunk system is on"),
        "open_degree": Field(0, "Trunk open degree (0-100)"),
    }

    @tool
    def switch(self, switch: bool) -> Outcome:
        """Turn the rear trunk system on or off."""
        self.state["is_on"] = bool(switch)
        return ok(f"Trunk {'activated' if switch else 'deactivated'} successfully")

    @tool
    def set_open_degree(self, degree: int) -> Outcome:
        """Set rear trunk open degree (0-100). Auto on when > 0, auto off when = 0."""
        # Compared before validation: a str/None raises TypeError, and a rejected
        # positive value (150, 2.5) still leaves the trunk on.
        if degree > 0:
            self.state["is_on"] = True
        error = int_error("open_degree", degree, 0, 100)
        if error:
            return fail(error)
        self.state["open_degree"] = degree
        if degree == 0:
            self.state["is_on"] = False
        return ok("Trunk open degree set successfully")
