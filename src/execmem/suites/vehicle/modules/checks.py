"""Argument checks shared by the modules, with the benchmark's exact messages.

The benchmark rejects bad values and never clamps them. Its integer check is
``isinstance(v, int)``, so booleans pass and floats (even 5.0) do not.
"""

from __future__ import annotations

from typing import Any

SEATS = ("driver", "passenger", "rear_left", "rear_right")

# The seven location words (and their Chinese aliases) used by four-zone modules.
FOUR_ZONES: dict[str, tuple[str, ...]] = {
    "driver": ("driver",),
    "passenger": ("passenger",),
    "rear_left": ("rear_left",),
    "rear_right": ("rear_right",),
    "front": ("driver", "passenger"),
    "rear": ("rear_left", "rear_right"),
    "all": SEATS,
    "主驾": ("driver",),
    "副驾": ("passenger",),
    "左后": ("rear_left",),
    "右后": ("rear_right",),
    "前排": ("driver", "passenger"),
    "后排": ("rear_left", "rear_right"),
    "全部": SEATS,
}

FOUR_ZONE_ERROR = "{} must be driver, passenger, rear_left, rear_right, front, rear, or all"


def int_error(name: str, value: Any, low: int, high: int) -> str | None:
    """The benchmark's message for a bad integer, or None when ``value`` is valid."""
    if not isinstance(value, int):
        return f"{name} must be an integer"
    if not low <= value <= high:
        return f"{name} must be between {low} and {high}"
    return None


def resolve(
    value: Any, table: dict[str, tuple[str, ...]], default: str | None = None
) -> tuple[str, ...] | None:
    """Members named by a location argument, or None when it names none.

    A falsy value means ``default`` when the module has one. The lookup is a
    dict lookup, so a list or dict raises TypeError, as in the benchmark.
    """
    if default is not None and not value:
        value = default
    return table.get(value)


def lookup(value: Any, table: dict[str, str]) -> str | None:
    """Canonical enum value by hashed lookup (a list or dict raises TypeError)."""
    return table.get(value)


def scan(value: Any, table: dict[str, str]) -> str | None:
    """Canonical enum value by comparison only (a list or dict is simply invalid)."""
    return next((canonical for key, canonical in table.items() if key == value), None)


def stripped(value: Any) -> Any:
    """A string without surrounding whitespace; anything else as is (a later match rejects it)."""
    return value.strip() if isinstance(value, str) else value
