"""The simulated car: 23 modules, one dispatch point for their 111 tools."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from execmem.suites.vehicle.flatten import flatten_module
from execmem.suites.vehicle.modules import MODULE_CLASSES
from execmem.suites.vehicle.modules.base import VehicleModule
from execmem.suites.vehicle.tooling import ToolSpec

MODULES: dict[str, type[VehicleModule]] = {cls.name: cls for cls in MODULE_CLASSES}
TOOLS: dict[str, ToolSpec] = {name: spec for cls in MODULE_CLASSES for name, spec in cls.tools.items()}

_INITIAL_FLAT: dict[str, dict[str, Any]] = {}


def initial_module_flat(module: str) -> dict[str, Any]:
    """Flattened state of a fresh module (computed once per process)."""
    if module not in _INITIAL_FLAT:
        _INITIAL_FLAT[module] = flatten_module(MODULES[module]())
    return _INITIAL_FLAT[module]


@dataclass
class CallResult:
    """What one tool call did, as the agent sees it."""

    name: str
    success: bool
    message: str
    current_state: dict[str, Any] | None = None
    raised: str | None = None
    known: bool = True

    def to_model_payload(self) -> dict[str, Any]:
        """The tool result the benchmark returns to the model."""
        if not self.known or self.raised:
            return {"success": False, "error": self.message}
        return {"success": self.success, "message": self.message, "current_state": self.current_state}


class VehicleWorld:
    """A fresh car. Modules are built on first use, so a world that only a few
    calls touch is cheap to create, flatten and compare."""

    def __init__(self, report_state: bool = True) -> None:
        self._modules: dict[str, VehicleModule] = {}
        self.report_state = report_state

    def module(self, name: str) -> VehicleModule:
        found = self._modules.get(name)
        if found is None:
            found = self._modules[name] = MODULES[name]()
        return found

    @property
    def touched(self) -> tuple[str, ...]:
        """Modules that may differ from a fresh car."""
        return tuple(self._modules)

    def call(self, name: str, args: dict[str, Any]) -> CallResult:
        """Run one tool call with the benchmark's semantics.

        Any exception a tool raises (a missing or unexpected argument, a value
        of the wrong type) becomes a failed result, and state changes made before
        it are kept, exactly as the benchmark's prediction side does.
        """
        spec = TOOLS.get(name)
        if spec is None:
            return CallResult(name, False, f"Function {name} not found", known=False)
        module = self.module(spec.module)
        before = module.snapshot() if self.report_state else None
        try:
            success, message = getattr(module, spec.method)(**args)
        except Exception as exc:  # noqa: BLE001 - the benchmark's own contract, see docstring
            return CallResult(name, False, str(exc), raised=type(exc).__name__)
        delta = module.state_delta(before) if before is not None else None
        return CallResult(name, success, message, delta)

    def to_dict(self) -> dict[str, Any]:
        return {name: self.module(name).to_dict() for name in MODULES}

    def flat(self) -> dict[str, Any]:
        """The whole car flattened to short dotted paths."""
        out: dict[str, Any] = {}
        for name in MODULES:
            out.update(self.module_flat(name))
        return out

    def module_flat(self, name: str) -> dict[str, Any]:
        module = self._modules.get(name)
        return initial_module_flat(name) if module is None else flatten_module(module)

    def touched_flat(self) -> dict[str, Any]:
        """Flattened state of the touched modules only."""
        out: dict[str, Any] = {}
        for name in self._modules:
            out.update(flatten_module(self._modules[name]))
        return out
