"""fuelPort: Fuel port related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.tooling import tool


class FuelPort(VehicleModule):
    """Starts locked, so opening fails until it is unlocked; closing always works."""

    name = "fuelPort"
    description = "Fuel port related"
    fields = {
        "is_open": Field(False, "Whether the fuel port is open"),
        "is_locked": Field(True, "Whether the fuel port is locked"),
    }

    @tool
    def set_open(self, open_state: bool) -> Outcome:
        """Set fuel port open state."""
        if open_state and self.state["is_locked"]:
            return fail("cannot open fuel port when it is locked")
        self.state["is_open"] = bool(open_state)
        return ok(f"Fuel port {'opened' if open_state else 'closed'} successfully")

    @tool
    def set_locked(self, locked: bool) -> Outcome:
        """Set fuel port lock state."""
        # Locking an open port is allowed; it stays open.
        self.state["is_locked"] = bool(locked)
        return ok(f"Fuel port {'locked' if locked else 'unlocked'} successfully")
