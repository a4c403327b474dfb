"""bluetooth: Vehicle Bluetooth related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, ok
from execmem.suites.vehicle.tooling import tool


class Bluetooth(VehicleModule):
    name = "bluetooth"
    description = "Vehicle Bluetooth related"
    fields = {
        "is_connected": Field(False, "Whether Bluetooth is connected"),
    }

    @tool
    def set_connection(self, connected: bool) -> Outcome:
        """Set Bluetooth connection state."""
        self.state["is_connected"] = bool(connected)
        return ok(f"Bluetooth {'connected' if connected else 'disconnected'} successfully")
