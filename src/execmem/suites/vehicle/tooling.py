"""Declare simulator methods as agent tools, once.

A module method marked with :func:`tool` becomes the tool
``carcontrol_<module>_<method>``; its JSON schema is generated from the
signature and the docstring, so no second list has to be kept in sync.
"""

from __future__ import annotations

import inspect
import types
import typing
from dataclasses import dataclass
from typing import Any

_MARK = "__execmem_tool__"

ZONE_DESCRIPTION = "Target zone: driver/passenger/rear_left/rear_right/front/rear/all"
SWITCH_DESCRIPTION = "Enable (true) or disable (false)"

_JSON_TYPES = {int: "integer", bool: "boolean", str: "string", float: "number"}


@dataclass(frozen=True)
class ToolSpec:
    """One callable tool of the simulated car."""

    name: str
    module: str
    method: str
    schema: dict[str, Any]


def tool(fn):
    """Mark a module method as an agent tool."""
    setattr(fn, _MARK, True)
    return fn


def is_tool(fn: Any) -> bool:
    return callable(fn) and getattr(fn, _MARK, False)


def tool_name(module: str, method: str) -> str:
    return f"carcontrol_{module}_{method}"


def rename_code(fn, class_name: str, name: str) -> None:
    """Give the function the benchmark's tool name.

    Python builds its own argument errors ("X() missing 1 required positional
    argument") from the function's qualified name; renaming it makes those
    messages read exactly as the benchmark's.
    """
    fn.__qualname__ = f"{class_name}.{name}"


def build_schema(fn, name: str) -> dict[str, Any]:
    """The OpenAI function schema of a tool method."""
    hints = typing.get_type_hints(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in list(inspect.signature(fn).parameters.values())[1:]:
        properties[param.name] = {
            "type": _json_type(hints.get(param.name, str)),
            "description": _param_description(param.name),
        }
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
    doc = inspect.getdoc(fn) or name
    return {
        "name": name,
        "description": doc.splitlines()[0],
        "parameters": {"type": "object", "properties": properties, "required": required},
    }


def _json_type(hint: Any) -> str:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
    return _JSON_TYPES[hint]


def _param_description(param: str) -> str:
    if param == "zone":
        return ZONE_DESCRIPTION
    if param in ("is_on", "enabled"):
        return SWITCH_DESCRIPTION
    return param
