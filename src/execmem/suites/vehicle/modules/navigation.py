"""navigation: Vehicle navigation system related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, clone, fail, ok
from execmem.suites.vehicle.modules.checks import scan
from execmem.suites.vehicle.tooling import tool

VOICE_MODES = {
    "simple": "simple",
    "detailed": "detailed",
    "mute": "mute",
    "简洁": "simple",
    "详细": "detailed",
    "静音": "mute",
}
VOICE_MODE_ERROR = "voice_mode must be simple, detailed, or mute"
MAP_VIEWS = {view: view for view in ("2d", "3d", "heading_up", "north_up")}
MAP_VIEW_ERROR = "map_view must be 2d, 3d, heading_up, or north_up"
ROUTE_PREFERENCES = {
    "fastest": "fastest",
    "shortest": "shortest",
    "no_highway": "no_highway",
    "no_toll": "no_toll",
    "最快": "fastest",
    "最短": "shortest",
    "不走高速": "no_highway",
    "避免收费": "no_toll",
}


class Navigation(VehicleModule):
    """The setters power the device on before validating, so a rejected value keeps it on."""

    name = "navigation"
    description = "Vehicle navigation system related"
    fields = {
        "is_on": Field(False, "Whether the navigation device is on"),
        "voice_mode": Field("detailed", "Voice guidance mode"),
        "volume": Field(50, "Voice volume (0-100)"),
        "map_view": Field("2d", "Map view mode"),
        "map_zoom": Field(5, "Map zoom (1-10)"),
        "traffic_display_enabled": Field(True, "Whether traffic display is enabled"),
        "speed_camera_enabled": Field(True, "Whether speed camera alerts are enabled"),
        "current_destination": Field(
            {"name": "", "route_preference": "fastest", "is_navigating": False},
            "Current destination info (name, route_preference, is_navigating)",
        ),
    }

    @tool
    def switch(self, switch: bool) -> Outcome:
        """Turn the navigation device on or off."""
        self.state["is_on"] = bool(switch)
        if not switch:
            self._clear_destination()
        return ok(f"Navigation {'activated' if switch else 'deactivated'} successfully")

    @tool
    def navigate_to(self, destination: str, route_preference: str | None = None) -> Outcome:
        """Navigate to a destination. This is the primary navigation function."""
        # A falsy destination fails cleanly; a truthy non-string raises AttributeError.
        if not destination or not destination.strip():
            return fail("destination is required")
        self.state["is_on"] = True  # survives an invalid route_preference
        preference = "fastest"
        if route_preference:
            preference = scan(route_preference, ROUTE_PREFERENCES)
            if preference is None:
                return fail("route_preference must be fastest, shortest, no_highway, or no_toll")
        self.state["current_destination"] = {
            "name": destination.strip(),
            "route_preference": preference,
            "is_navigating": True,
        }
        suffix = f" (preference: {preference})" if route_preference else ""
        return ok(f"Navigating to: {destination}{suffix}")

    @tool
    def stop(self) -> Outcome:
        """Stop current navigation and clear destination."""
        self._clear_destination()
        return ok("Navigation stopped")

    @tool
    def set_voice_mode(self, mode: str) -> Outcome:
        """Set voice guidance mode (simple/detailed/mute)."""
        return self.set_choice(
            "voice_mode", mode, VOICE_MODES, VOICE_MODE_ERROR, "Voice mode set to {value}", power="is_on"
        )

    @tool
    def set_volume(self, volume: int) -> Outcome:
        """Set voice volume (0-100)."""
        return self.set_int("volume", volume, 0, 100, f"Volume set to {volume}", power="is_on")

    @tool
    def set_map_view(self, view: str) -> Outcome:
        """Set map view (2d/3d/heading_up/north_up)."""
        return self.set_choice(
            "map_view", view, MAP_VIEWS, MAP_VIEW_ERROR, "Map view set to {value}", power="is_on"
        )

    @tool
    def set_map_zoom(self, zoom: int) -> Outcome:
        """Set map zoom (1-10)."""
        return self.set_int("map_zoom", zoom, 1, 10, f"Map zoom set to {zoom}", power="is_on")

    @tool
    def set_traffic_display(self, enabled: bool) -> Outcome:
        """Enable or disable traffic display on map."""
        self.state["is_on"] = True
        self.state["traffic_display_enabled"] = bool(enabled)
        return ok(f"Traffic display {'enabled' if enabled else 'disabled'}")

    @tool
    def set_speed_camera_alert(self, enabled: bool) -> Outcome:
        """Enable or disable speed camera alerts."""
        self.state["is_on"] = True
        self.state["speed_camera_enabled"] = bool(enabled)
        return ok(f"Speed camera alert {'enabled' if enabled else 'disabled'}")

    def _clear_destination(self) -> None:
        self.state["current_destination"] = clone(self.fields["current_destination"].default)
