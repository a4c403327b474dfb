"""video: Vehicle video system related."""

from __future__ import annotations

from execmem.suites.vehicle.modules.base import Field, Outcome, VehicleModule, fail, ok
from execmem.suites.vehicle.modules.checks import stripped
from execmem.suites.vehicle.tooling import tool

# Stripped before the match. The Chinese forms also take a capital P ("高清 720P"); the bare forms do not.
QUALITIES = {
    "270p": "270p",
    "480p": "480p",
    "720p": "720p",
    "1080p": "1080p",
    "流畅 270p": "270p",
    "流畅 270P": "270p",
    "标清 480p": "480p",
    "标清 480P": "480p",
    "高清 720p": "720p",
    "高清 720P": "720p",
    "蓝光 1080p": "1080p",
    "蓝光 1080P": "1080p",
}
QUALITY_ERROR = "quality must be 270p, 480p, 720p, or 1080p"
SCENES = {"foreground": "foreground", "background": "background", "前景": "foreground", "后景": "background"}
SCENE_ERROR = "scene must be foreground or background"


class Video(VehicleModule):
    name = "video"
    description = "Vehicle video system related"
    fields = {
        "is_on": Field(False, "Whether the video system is on"),
        "quality": Field("480p", "Current video quality"),
        "is_fullscreen": Field(False, "Whether the video is in fullscreen"),
        "scene": Field("foreground", "Current video scene"),
        "volume": Field(50, "Video volume (0-100)"),
        "current_video": Field({"name": "", "is_playing": False}, "Current video info (name, is_playing)"),
    }

    @tool
    def switch(self, switch: bool) -> Outcome:
        """Turn the video system on or off."""
        self.state["is_on"] = bool(switch)
        if not switch:
            self.state["current_video"] = {"name": "", "is_playing": False}
        return ok(
            "Video system activated successfully" if switch else "Video system deactivated successfully"
        )

    @tool
    def play_video(self, video_name: str) -> Outcome:
        """Play a video by name. This is the primary video playback function."""
        # A non-string name raises AttributeError on .strip(), as in the benchmark.
        if not video_name or not video_name.strip():
            return fail("video_name is required")
        self.state["is_on"] = True
        self.state["current_video"] = {"name": video_name.strip(), "is_playing": True}
        return ok(f"Now playing: {video_name}")

    @tool
    def set_quality(self, quality: str) -> Outcome:
        """Set video quality (270p/480p/720p/1080p)."""
        return self.set_choice(
            "quality",
            stripped(quality),
            QUALITIES,
            QUALITY_ERROR,
            "Video quality set successfully",
            power="is_on",
        )

    @tool
    def set_fullscreen(self, fullscreen: bool) -> Outcome:
        """Set fullscreen state."""
        self.state["is_on"] = True  # even when leaving fullscreen
        self.state["is_fullscreen"] = bool(fullscreen)
        return ok("Video fullscreen set successfully")

    @tool
    def set_scene(self, scene: str) -> Outcome:
        """Set video scene (foreground/background)."""
        return self.set_choice(
            "scene", scene, SCENES, SCENE_ERROR, "Video scene set successfully", power="is_on"
        )

    @tool
    def set_volume(self, volume: int) -> Outcome:
        """Set volume (0-100)."""
        return self.set_int("volume", volume, 0, 100, "Video volume set successfully", power="is_on")
