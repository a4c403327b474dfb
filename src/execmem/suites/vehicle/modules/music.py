"""music: Vehicle music system related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.tooling import tool

PLAY_MODES = {
    "single_loop": "single_loop",
    "shuffle": "shuffle",
    "sequential": "sequential",
    "list_loop": "list_loop",
    "单曲循环": "single_loop",
    "随机播放": "shuffle",
    "顺序播放": "sequential",
    "列表循环": "list_loop",
}
PLAY_MODE_ERROR = "play_mode must be single_loop, shuffle, sequential, or list_loop"


class Music(VehicleModule):
    name = "music"
    description = "Vehicle music system related"
    fields = {
        "is_on": Field(False, "Whether the music system is on"),
        "play_mode": Field("sequential", "Music play mode"),
        "volume": Field(50, "Music volume (0-100)"),
        "lyrics_display_enabled": Field(False, "Whether lyrics display is enabled"),
        "current_song": Field(
            {"name": "", "artist": "", "is_favorited": False},
            "Current song info (name, artist, is_favorited)",
        ),
        "favorite_list": Field([], "List of favorited song names"),
    }

    @tool
    def switch(self, switch: bool) -> Outcome:
        """Turn the music system on or off."""
        self.state["is_on"] = bool(switch)  # the current song is kept
        return ok(
            "Music system activated successfully" if switch else "Music system deactivated successfully"
        )

    @tool
    def play_song(self, song_name: str, artist: str | None = None) -> Outcome:
        """Play a song by name. This is the primary music playback function."""
        # A non-string name raises AttributeError on .strip(), as in the benchmark.
        if not song_name or not song_name.strip():
            return fail("song_name is required")
        self.state["is_on"] = True  # kept even if a non-string artist raises below
        self.state["current_song"] = {
            "name": song_name.strip(),
            "artist": artist.strip() if artist else "",
            # the favorites hold stripped names but are searched with the raw one
            "is_favorited": song_name in self.state["favorite_list"],
        }
        return ok(f"Now playing: {song_name}" + (f" by {artist}" if artist else ""))

    @tool
    def set_play_mode(self, mode: str) -> Outcome:
        """Set play mode (single_loop/shuffle/sequential/list_loop)."""
        return self.set_choice(
            "play_mode", mode, PLAY_MODES, PLAY_MODE_ERROR, "Play mode set to {value}", power="is_on"
        )

    @tool
    def set_volume(self, volume: int) -> Outcome:
        """Set volume (0-100)."""
        return self.set_int("volume", volume, 0, 100, f"Volume set to {volume}", power="is_on")

    @tool
    def set_lyrics_display(self, enabled: bool) -> Outcome:
        """Enable or disable lyrics display."""
        self.state["is_on"] = True
        self.state["lyrics_display_enabled"] = bool(enabled)
        return ok("Lyrics display enabled" if enabled else "Lyrics display disabled")

    @tool
    def set_favorite(self, favorite: bool) -> Outcome:
        """Add or remove current song from favorites."""
        self.state["is_on"] = True  # powered on before the song check: survives a failure
        song = self.state["current_song"]
        if not song["name"]:
            return fail("No song is currently playing")
        favorites = self.state["favorite_list"]
        name = song["name"]
        song["is_favorited"] = bool(favorite)
        if favorite:
            if name not in favorites:
                favorites.append(name)
            return ok(f"Added '{name}' to favorites")
        if name in favorites:
            favorites.remove(name)
        return ok(f"Removed '{name}' from favorites")
