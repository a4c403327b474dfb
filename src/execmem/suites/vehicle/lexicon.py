"""The car's own vocabulary, for memory systems that take a domain lexicon (``fusion``).

The terms are the names the 111 tools are made of: module names, tool names, parameter names
and enum values. Identifiers stay whole here (``instrumentPanel``, ``north_up``); the memory
splits them into words. The free-text descriptions are left out: they add English filler
("based", "needed", "true") that marks every third line of dialogue as being about the car (on
the release, names alone mark 31,002 statements against 44,724 with descriptions, and fusion's
recall@5 was 0.874 against 0.861). Nothing comes from the questions, histories or gold answers.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from execmem.suites.vehicle.world import MODULES, TOOLS

_TOOL_PREFIX = "carcontrol_"


@cache
def car_lexicon() -> tuple[str, ...]:
    """The distinct names of the car's modules, tools, parameters and enum values, sorted."""
    terms: set[str] = set(MODULES)
    for spec in TOOLS.values():
        terms.add(spec.name.removeprefix(_TOOL_PREFIX).removeprefix(f"{spec.module}_"))
        terms.update(_parameter_terms(spec.schema.get("parameters", {})))
    return tuple(sorted(terms))


def _parameter_terms(parameters: dict[str, Any]) -> set[str]:
    terms: set[str] = set()
    for name, prop in parameters.get("properties", {}).items():
        terms.add(name)
        terms.update(str(value) for value in prop.get("enum", ()))
    return terms
