"""wiper: Wiper related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import int_error, resolve
from execmem.suites.vehicle.tooling import tool

WIPERS: dict[str, tuple[str, ...]] = {
    "front": ("front",),
    "rear": ("rear",),
    "all": ("front", "rear"),
    "前": ("front",),
    "后": ("rear",),
    "全部": ("front", "rear"),
}
WIPER_ERROR = "wiper must be front, rear, or all"


class Wiper(VehicleModule):
    """Front and rear wipers; an empty ``wiper`` means the front one."""

    name = "wiper"
    description = "Wiper related"
    fields = {
        "front": Field({"is_on": False, "speed": 1}, "Front wiper settings"),
        "rear": Field({"is_on": False, "speed": 1}, "Rear wiper settings"),
    }

    @tool
    def set_open(self, wiper: str, is_on: bool) -> Outcome:
        """Set wiper open state for a position or group."""
        targets = resolve(wiper, WIPERS, "front")
        if targets is None:
            return fail(WIPER_ERROR)
        for name in targets:
            self.state[name]["is_on"] = bool(is_on)
        return ok("Wiper open state set successfully")

    @tool
    def set_speed(self, wiper: str, speed: int) -> Outcome:
        """Set wiper speed (1-5). Auto turn on wiper if needed."""
        error = int_error("speed", speed, 1, 5)
        if error:
            return fail(error)
        targets = resolve(wiper, WIPERS, "front")
        if targets is None:
            return fail(WIPER_ERROR)
        for name in targets:
            self.state[name]["is_on"] = True
            self.state[name]["speed"] = speed
        return ok("Wiper speed set successfully")
