"""window: Window related."""

from __future__ import annotations

from typing import Any

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import FOUR_ZONE_ERROR, FOUR_ZONES, int_error, resolve
from execmem.suites.vehicle.tooling import tool

WINDOW_ERROR = FOUR_ZONE_ERROR.format("window")


class Window(VehicleModule):
    """Four windows; an empty ``window`` means the driver's."""

    name = "window"
    description = "Window related"
    fields = {
        "driver": Field(
            {"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False},
            "Driver window settings",
        ),
        "passenger": Field(
            {"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False},
            "Passenger window settings",
        ),
        "rear_left": Field(
            {"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False},
            "Rear left window settings",
        ),
        "rear_right": Field(
            {"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False},
            "Rear right window settings",
        ),
    }

    @tool
    def set_open(self, window: str, is_open: bool) -> Outcome:
        """Set window open state for a window or group."""
        # open_degree is left alone, so a window can be "open" at degree 0.
        return self._set_flag(window, "is_open", is_open, "Window open state set successfully")

    @tool
    def set_open_degree(self, window: str, degree: int) -> Outcome:
        """Set window open degree (0-100). Auto open when > 0, auto close when = 0."""
        error = int_error("open_degree", degree, 0, 100)
        if error:
            return fail(error)
        targets = resolve(window, FOUR_ZONES, "driver")
        if targets is None:
            return fail(WINDOW_ERROR)
        for name in targets:
            self.state[name]["is_open"] = degree > 0
            self.state[name]["open_degree"] = degree
        return ok("Window open degree set successfully")

    @tool
    def set_child_lock(self, window: str, enabled: bool) -> Outcome:
        """Enable or disable window child lock."""
        return self._set_flag(window, "child_lock", enabled, "Window child lock set successfully")

    @tool
    def set_auto_close_on_lock(self, window: str, enabled: bool) -> Outcome:
        """Enable or disable auto close on lock."""
        return self._set_flag(
            window, "auto_close_on_lock", enabled, "Window auto close on lock set successfully"
        )

    def _set_flag(self, window: Any, key: str, value: Any, message: str) -> Outcome:
        targets = resolve(window, FOUR_ZONES, "driver")
        if targets is None:
            return fail(WINDOW_ERROR)
        for name in targets:
            self.state[name][key] = bool(value)
        return ok(message)
