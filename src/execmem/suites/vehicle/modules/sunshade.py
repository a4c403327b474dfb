"""sunshade: Sunshade related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import lookup, resolve
from execmem.suites.vehicle.tooling import tool

SUNSHADES: dict[str, tuple[str, ...]] = {
    "front": ("front",),
    "rear": ("rear",),
    "all": ("front", "rear"),
    "前排": ("front",),
    "后排": ("rear",),
    "全部": ("front", "rear"),
}
SUNSHADE_ERROR = "sunshade must be front, rear, or all"

DEGREES = {
    "close": "close",
    "min": "min",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "max": "max",
    "关闭": "close",
    "最小": "min",
    "较低": "low",
    "中等": "medium",
    "较高": "high",
    "最大": "max",
}


class Sunshade(VehicleModule):
    """Front and rear sunshades; an empty ``sunshade`` means the front one."""

    name = "sunshade"
    description = "Sunshade related"
    fields = {
        "front": Field(
            {"is_open": False, "auto_close_on_lock": False, "open_degree": "close"}, "Front sunshade settings"
        ),
        "rear": Field(
            {"is_open": False, "auto_close_on_lock": False, "open_degree": "close"}, "Rear sunshade settings"
        ),
    }

    @tool
    def set_open(self, sunshade: str, is_open: bool) -> Outcome:
        """Set sunshade open state for a position or group."""
        # open_degree is left alone.
        targets = resolve(sunshade, SUNSHADES, "front")
        if targets is None:
            return fail(SUNSHADE_ERROR)
        for name in targets:
            self.state[name]["is_open"] = bool(is_open)
        return ok("Sunshade open state set successfully")

    @tool
    def set_open_degree(self, sunshade: str, degree: str) -> Outcome:
        """Set sunshade open degree (close/min/low/medium/high/max). Auto open/close based on degree."""
        targets = resolve(sunshade, SUNSHADES, "front")  # the position is checked before the degree
        if targets is None:
            return fail(SUNSHADE_ERROR)
        value = lookup(degree, DEGREES)
        if value is None:
            return fail("open_degree must be close, min, low, medium, high, or max")
        for name in targets:
            self.state[name]["is_open"] = value != "close"
            self.state[name]["open_degree"] = value
        return ok("Sunshade open degree set successfully")

    @tool
    def set_auto_close_on_lock(self, sunshade: str, enabled: bool) -> Outcome:
        """Enable or disable auto close on lock for all sunshades."""
        # The argument is validated but ignored: the setting always applies to both.
        if resolve(sunshade, SUNSHADES, "front") is None:
            return fail(SUNSHADE_ERROR)
        for name in ("front", "rear"):
            self.state[name]["auto_close_on_lock"] = bool(enabled)
        return ok("Sunshade auto close on lock set successfully")
