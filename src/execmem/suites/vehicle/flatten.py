"""Flatten car state to dotted paths, by the benchmark evaluator's rules.

The walk is the evaluator's, with one change: the ``value`` segments of the
field wrappers are dropped, so paths read ``seat.driver.headrest_height``.
Rules (see the data README): a wrapper of a scalar type records its value; a
wrapper holding a list walks the items as ``path[i]``; a wrapper holding a dict
walks the dict and records ``path.description`` and ``path.type``; any other
wrapper (a value of None) records nothing. A plain list records its length and
its items; a plain dict its keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from execmem.suites.vehicle.modules.base import VehicleModule

SCALAR_TYPES = ("int", "str", "bool", "float")


def flatten_module(module: VehicleModule) -> dict[str, Any]:
    out: dict[str, Any] = {}
    base = module.name
    for key, value in module.state.items():
        _flatten_wrapper(f"{base}.{key}", value, module.fields[key].description, type(value).__name__, out)
    out[f"{base}.description"] = module.description
    out[f"{base}.type"] = type(module).__name__
    return out


def _flatten_wrapper(path: str, value: Any, description: Any, type_name: Any, out: dict[str, Any]) -> None:
    if type_name in SCALAR_TYPES:
        out[path] = value
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _walk(f"{path}[{i}]", item, out)
    elif isinstance(value, dict):
        _walk(path, value, out)
        out[f"{path}.description"] = description
        out[f"{path}.type"] = type_name


def _walk(path: str, node: Any, out: dict[str, Any]) -> None:
    if isinstance(node, dict):
        if "type" in node and "value" in node:
            # A plain dict shaped like a wrapper is read as one, as the evaluator does.
            _walk_wrapper_like(path, node, out)
            return
        for key, child in node.items():
            _walk(_join(path, key), child, out)
    elif isinstance(node, list):
        out[path] = len(node)
        for i, item in enumerate(node):
            _walk(f"{path}[{i}]", item, out)
    else:
        out[path] = node


def _walk_wrapper_like(path: str, node: dict[str, Any], out: dict[str, Any]) -> None:
    value = node["value"]
    if node["type"] in SCALAR_TYPES:
        out[path] = value
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _walk(f"{path}[{i}]", item, out)
    elif isinstance(value, dict):
        for key, child in node.items():
            _walk(_join(path, key), child, out)


def _join(path: str, key: Any) -> str:
    if key == "value":
        return path
    return f"{path}.{key}" if path else str(key)


def strip_value_segments(path: str) -> str:
    """Short form of an evaluator path: every ``.value`` segment dropped."""
    return ".".join(part for part in path.split(".") if part != "value")
