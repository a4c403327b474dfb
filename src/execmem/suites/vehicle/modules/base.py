"""The shared shape of a simulated car module: typed fields, tools, state dump."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from execmem.suites.vehicle.modules.checks import int_error, scan
from execmem.suites.vehicle.tooling import ToolSpec, build_schema, is_tool, rename_code, tool_name

Outcome = tuple[bool, str]


def ok(message: str) -> Outcome:
    return True, message


def fail(message: str) -> Outcome:
    return False, message


def clone(value: Any) -> Any:
    """A copy deep enough for state values (JSON-like nesting), much faster than deepcopy."""
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value


@dataclass(frozen=True)
class Field:
    """One state field: its default value and the text the car reports for it."""

    default: Any
    description: str


class VehicleModule:
    """Base class of the 23 modules.

    Subclasses set ``name`` (the benchmark's module key), ``description`` and
    ``fields``; their methods marked with ``@tool`` become the module's tools.
    State lives in ``self.state`` (field name -> plain value).
    """

    name: ClassVar[str]
    description: ClassVar[str]
    fields: ClassVar[dict[str, Field]]
    tools: ClassVar[dict[str, ToolSpec]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        tools: dict[str, ToolSpec] = {}
        for attr, fn in cls.__dict__.items():
            if is_tool(fn):
                name = tool_name(cls.name, attr)
                rename_code(fn, cls.__name__, name)
                tools[name] = ToolSpec(name, cls.name, attr, build_schema(fn, name))
        cls.tools = dict(sorted(tools.items()))

    def __init__(self) -> None:
        self.state: dict[str, Any] = {k: clone(f.default) for k, f in self.fields.items()}

    def snapshot(self) -> dict[str, Any]:
        return {k: clone(v) for k, v in self.state.items()}

    def to_dict(self) -> dict[str, Any]:
        """The benchmark's wrapped form: every field as {value, description, type}."""
        wrapped = {
            k: {"value": clone(v), "description": self.fields[k].description, "type": type(v).__name__}
            for k, v in self.state.items()
        }
        return {"value": wrapped, "description": self.description, "type": type(self).__name__}

    def set_int(
        self, key: str, value: Any, low: int, high: int, message: str, power: str | None = None
    ) -> Outcome:
        """Validate an integer and store it. ``power`` names a flag switched on *first*:
        the benchmark keeps it on even when the value is then rejected."""
        if power:
            self.state[power] = True
        error = int_error(key, value, low, high)
        if error:
            return fail(error)
        self.state[key] = value
        return ok(message)

    def set_choice(
        self, key: str, value: Any, table: dict[str, str], error: str, message: str, power: str | None = None
    ) -> Outcome:
        """Store the canonical form of an enum value (``{value}`` in ``message`` is that form).
        ``power`` is switched on first, as in :meth:`set_int`."""
        if power:
            self.state[power] = True
        canonical = scan(value, table)
        if canonical is None:
            return fail(error)
        self.state[key] = canonical
        return ok(message.format(value=canonical))

    def state_delta(self, before: dict[str, Any]) -> dict[str, Any]:
        """Fields changed since ``before``, as the benchmark reports them in ``current_state``.

        Python ``!=`` decides (so False -> 0.0 is no change), and a field whose
        new value is empty ({}, [] or None) is left out.
        """
        delta = {}
        for key, value in self.state.items():
            if value != before.get(key) and not _is_empty(value):
                delta[key] = clone(value)
        return delta


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, dict | list) and not value)
