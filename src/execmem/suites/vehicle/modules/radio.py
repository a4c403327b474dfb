"""radio: Vehicle radio system related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.tooling import tool

# The built-in station table, scanned in this order (not part of the state).
STATIONS = (
    {"name": "News FM", "frequency": "98.7MHz"},
    {"name": "Music FM", "frequency": "103.2MHz"},
)


class Radio(VehicleModule):
    name = "radio"
    description = "Vehicle radio system related"
    fields = {
        "is_on": Field(False, "Whether the radio is on"),
        "volume": Field(50, "Radio volume (0-100)"),
        "current_station": Field({}, "Current radio station info"),
    }

    @tool
    def switch(self, switch: bool) -> Outcome:
        """Turn the radio on or off."""
        self.state["is_on"] = bool(switch)  # the station is kept
        return ok(f"Radio {'activated' if switch else 'deactivated'} successfully")

    @tool
    def set_volume(self, volume: int) -> Outcome:
        """Set radio volume (0-100)."""
        return self.set_int("volume", volume, 0, 100, "Radio volume set successfully", power="is_on")

    @tool
    def play_station(self, name: str | None = None, frequency: str | None = None) -> Outcome:
        """Play a station by name or frequency."""
        self.state["is_on"] = True  # powered on before validation: survives a failure
        if not name and not frequency:
            return fail("station name or frequency must be provided")
        # The first row matching either the name or the frequency wins.
        for row in STATIONS:
            if (name and name == row["name"]) or (frequency and frequency == row["frequency"]):
                self.state["current_station"] = dict(row)
                return ok("Radio station set successfully")
        # Unknown station: stored raw, without strip or type check.
        self.state["current_station"] = {"name": name or "", "frequency": frequency or ""}
        return ok("Radio station set successfully")
