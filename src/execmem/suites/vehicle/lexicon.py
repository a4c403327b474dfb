"""The car's own vocabulary, for memory systems that take a domain lexicon (``fusion``).

The terms are what the 111 tools are made of: module names and descriptions, tool names,
tool and parameter descriptions, parameter names and enum values. Identifiers stay whole here
(``instrumentPanel``, ``north_up``); the memory splits them into words. Nothing comes from the
questions, the histories or the gold answers.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from execmem.suites.vehicle.world import MODULES, TOOLS

_TOOL_PREFIX = "carcontrol_"
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@cache
def car_lexicon() -> tuple[str, ...]:
    """The distinct terms of the car's modules and tools, sorted."""
    terms: set[str] = set()
    for name, module in MODULES.items():
        terms.add(name)
        terms.update(_WORD.findall(module.description))
    for spec in TOOLS.values():
        terms.add(spec.name.removeprefix(_TOOL_PREFIX).removeprefix(f"{spec.module}_"))
        terms.update(_WORD.findall(spec.schema.get("description", "")))
        terms.update(_parameter_terms(spec.schema.get("parameters", {})))
    return tuple(sorted(terms))


def _parameter_terms(parameters: dict[str, Any]) -> set[str]:
    terms: set[str] = set()
    for name, prop in parameters.get("properties", {}).items():
        terms.add(name)
        terms.update(_WORD.findall(prop.get("description", "")))
        terms.update(str(value) for value in prop.get("enum", ()))
    return terms
