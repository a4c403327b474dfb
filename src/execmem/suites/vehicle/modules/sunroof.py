"""sunroof: Sunroof related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import int_error
from execmem.suites.vehicle.tooling import tool


class Sunroof(VehicleModule):
    name = "sunroof"
    description = "Sunroof related"
    fields = {
        "is_locked": Field(False, "Whether the sunroof is locked"),
        "open_degree": Field(0, "Sunroof open degree (0-100)"),
    }

    @tool
    def set_locked(self, locked: bool) -> Outcome:
        """Set sunroof lock state."""
        # No interlock with open_degree.
        self.state["is_locked"] = bool(locked)
        return ok(f"Sunroof {'locked' if locked else 'unlocked'} successfully")

    @tool
    def set_open_degree(self, degree: int) -> Outcome:
        """Set sunroof open degree (0-100). Auto unlock when > 0, auto lock when = 0."""
        # Compared before validation: a str/None raises TypeError, and a rejected
        # positive value still unlocks.
        if degree > 0:
            self.state["is_locked"] = False
        error = int_error("open_degree", degree, 0, 100)
        if error:
            return fail(error)
        self.state["open_degree"] = degree
        if degree == 0:
            self.state["is_locked"] = True  # even on a fresh world, closing locks
        return ok("Sunroof open degree set successfully")
