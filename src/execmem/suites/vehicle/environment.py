"""The car as an agent environment: tools are discovered module by module.

The agent starts with one tool, ``list_module_tools(module_name)``; listing a
module returns its tool schemas and makes them callable. Calls to unknown
tools, or to tools of a module not listed yet, are refused with a message the
model can act on, and counted as the model's errors.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from execmem.suites.vehicle.calls import ToolCall
from execmem.suites.vehicle.world import MODULES, TOOLS, VehicleWorld

LIST_TOOLS = "list_module_tools"
LIST_TOOLS_SCHEMA = {
    "name": LIST_TOOLS,
    "description": "List the tools of one vehicle module; after this call they can be used.",
    "parameters": {
        "type": "object",
        "properties": {
            "module_name": {"type": "string", "description": "Module name, one of: " + ", ".join(MODULES)}
        },
        "required": ["module_name"],
    },
}


def module_catalogue() -> str:
    """One line per module: its name and what it controls (for the system prompt)."""
    return "\n".join(f"- {name}: {cls.description}" for name, cls in MODULES.items())


class VehicleEnvironment:
    """One fresh car for one episode, plus the record of what the agent did to it."""

    def __init__(self) -> None:
        self.world = VehicleWorld()
        self.listed: list[str] = []
        self.calls: list[ToolCall] = []  # car calls that reached the car, in order
        self.errors: Counter[str] = Counter()

    def tool_schemas(self) -> list[dict[str, Any]]:
        schemas = [LIST_TOOLS_SCHEMA]
        for module in self.listed:
            schemas.extend(spec.schema for spec in MODULES[module].tools.values())
        return schemas

    def run_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == LIST_TOOLS:
            return self._list_module(arguments.get("module_name"))
        spec = TOOLS.get(name)
        if spec is None:
            self.errors["unknown_tool"] += 1
            return {"success": False, "error": f"Function {name} not found"}
        if spec.module not in self.listed:
            self.errors["unlisted_module"] += 1
            return {
                "success": False,
                "error": f"{name} belongs to module '{spec.module}', which is not loaded: "
                f"call {LIST_TOOLS}(module_name='{spec.module}') first",
            }
        self.calls.append(ToolCall(name, arguments))
        return self.world.call(name, arguments).to_model_payload()

    def _list_module(self, module: Any) -> dict[str, Any]:
        if not isinstance(module, str) or module not in MODULES:
            self.errors["unknown_module"] += 1
            return {
                "success": False,
                "error": f"Unknown module {module!r}; valid modules: {', '.join(MODULES)}",
            }
        if module not in self.listed:
            self.listed.append(module)
        return {
            "success": True,
            "module": module,
            "tools": [s.schema for s in MODULES[module].tools.values()],
        }
