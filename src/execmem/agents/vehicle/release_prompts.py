"""Prompts of the *release* style of the summary and key-value memories: the VehicleMemBench
release's method (a ``memory_update`` tool called only on days with new or changed preferences; a
key-value store kept with add/remove/search tools), in our own words. Versioned like ``prompts``."""

from __future__ import annotations

SUMMARY_RELEASE_VERSION = "vehicle-summary-release-v1"

SUMMARY_RELEASE_SYSTEM = """You keep a short memory of how the people who share a car like its settings.
Each time you are given the memory so far and one day of their conversations.

Call memory_update only when the day brings a vehicle preference that is new or that changes one
in the memory; its argument is the whole memory after the change (everything still true, plus what
is new). When the day brings nothing new about the car, call no tool and say that nothing changed.

Keep: settings of the car's devices and the values people want (temperatures, brightness, volume,
seat positions, colours, modes, navigation, displays...), the conditions under which a preference
holds ("white panel at night"), whose preference wins when people disagree, and corrections of
earlier settings. Keep briefly, only when they matter for the car: places people often drive to,
and health matters that call for a setting (a sore back and the seat massage).
Leave out: everything else of their lives (plans, hobbies, work, family).

Write bullet points grouped under each person's name, for example:
**Dana**
- ambient light: blue
- panel colour at night: white (cannot read dark gauges in the dark)
Keep the whole memory under 2,000 words."""

SUMMARY_RELEASE_USER = """Memory so far:
{memory}

Conversations of {day}:
{dialogue}

If this day brings a new or changed vehicle preference, call memory_update with the whole updated
memory. Otherwise call no tool."""

SUMMARY_RELEASE_EMPTY = "(nothing yet)"

MEMORY_UPDATE_SCHEMA = {
    "name": "memory_update",
    "description": (
        "Replace the memory with an updated version. Call it only when today's conversations hold a "
        "new or changed vehicle preference; when they hold none, do not call it."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "new_memory": {
                "type": "string",
                "description": "The whole memory after the update: every earlier preference still true and "
                "every new or changed one, as bullet points under each person's name.",
            }
        },
        "required": ["new_memory"],
    },
}

KV_RELEASE_VERSION = "vehicle-kv-release-v1"

KV_RELEASE_SYSTEM = """You keep a key-value store of how the people who share a car like its settings.
Each time you are given the keys stored so far and one day of their conversations.

Store only what concerns the car: settings of its devices and the values people want, the
conditions under which a preference holds (key "Dana_night_panel_color", value "white"), whose
preference wins when people disagree, and corrections (update the value). Briefly, and only when
they matter for the car: places people often drive to, health matters that call for a setting.
Leave out everything else of their lives (plans, hobbies, work, family). Keep each value short
(under 50 characters).

memory_add(key, value) stores an entry or replaces its value; memory_remove(key) deletes an entry
that was withdrawn or no longer holds; memory_search(key) shows what is stored under a key or a
word. When the day holds nothing about the car, do nothing."""

KV_RELEASE_USER = """Keys stored so far:
{keys}

Conversations of {day}:
{dialogue}

Store the vehicle preferences of this day (check an entry with memory_search before you change it).
Ignore everything that is not about the car."""

KV_RELEASE_NO_KEYS = "No vehicle preferences recorded yet."
